//! What the back-office shows a merchant's team of the API calls about a
//! payment and of the notifications sent for it: for each shop, its last
//! [`KEPT`] API calls that named one of its payments (the request's and the
//! answer's bodies) and its last [`KEPT`] notifications (their bodies, so
//! one can be sent again). Kept in memory only, whatever the data file:
//! a restart begins them again.
//!
//! A body is redacted when it is kept, never later: a card number as its
//! first six and last four digits, a security code, a payment token, an
//! API key, a password or a secret as stars (a token and a key with their
//! last four characters), and a body that is not JSON is not kept at all
//! (it could hold card data in a shape nothing here can find). A card's
//! security code is never kept after it is used.
//!
//! A handler that finds the payment a call is about says so on the call's
//! [`Exchange`]; the router keeps the exchange when the answer is written
//! ([`CallLog::keep`]).

use std::collections::{HashMap, VecDeque};

use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::Value;
use url::Url;
use uuid::Uuid;

use crate::{card::mask_pan, timeline::now_ms};

/// How many API calls, and how many notifications, a shop keeps.
pub const KEPT: usize = 256;

/// How many of a shop's kept calls one payment may hold: its first and its
/// latest. A holder of one payment's token (a buyer) who sends call after
/// call then turns over that payment's own calls, never another's.
pub const KEPT_PER_PAYMENT: usize = 32;

/// The most characters of a kept body; the rest is counted, not kept.
pub const MAX_KEPT_BODY: usize = 8 * 1024;

/// The API calls and notifications of every shop.
#[derive(Debug, Default)]
pub struct CallLog {
    shops: Mutex<HashMap<u32, Shop>>,
}

#[derive(Debug, Default)]
struct Shop {
    calls: VecDeque<Call>,
    sent: VecDeque<Sent>,
}

/// One API call about a payment, redacted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// When it was answered, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The payment it was about.
    pub payment_id: u64,
    /// The operation, as `POST /api/v1/payment/submit`.
    pub operation: &'static str,
    /// The answer's HTTP status.
    pub status: u16,
    /// The request's body, redacted and pretty-printed.
    pub request: Box<str>,
    /// The answer's body, the same.
    pub answer: Box<str>,
}

/// A notification as it was first owed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The event's ID.
    pub event_id: Uuid,
    /// The payment it tells of.
    pub payment_id: u64,
    /// The payment's token, to queue it again.
    pub token: Uuid,
    /// Where it was posted.
    pub url: Url,
    /// Its body, signed again at each attempt.
    pub body: Bytes,
    /// Attempts made so far.
    pub attempts: u32,
    /// Delivered or abandoned: no attempt is to come.
    pub settled: bool,
}

/// Why a notification cannot be sent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResendRefused {
    /// Its body is no longer kept (or it is no notification of the payment).
    NotKept,
    /// It is still being delivered: an attempt or a retry is to come.
    InProgress,
}

/// What a handler learnt of the call it answers: the payment it is about
/// and the request's body.
#[derive(Debug, Default)]
pub struct Exchange {
    about: Option<(u32, u64)>,
    request: Option<Bytes>,
}

impl Exchange {
    /// The call is about payment `id` of shop `merchant`.
    pub fn about(&mut self, merchant: u32, id: u64) {
        self.about = Some((merchant, id));
    }

    /// Whether a handler found the payment the call is about.
    pub fn is_about_a_payment(&self) -> bool {
        self.about.is_some()
    }

    /// The request's body, as read.
    pub fn request(&mut self, body: &Bytes) {
        self.request = Some(body.clone());
    }
}

impl CallLog {
    /// Keeps an answered call when it was about a payment: `answer` is the
    /// answer's body.
    pub fn keep(&self, exchange: Exchange, operation: &'static str, status: u16, answer: &[u8]) {
        let Some((merchant, payment_id)) = exchange.about else {
            return;
        };
        let call = Call {
            at_ms: now_ms(),
            payment_id,
            operation,
            status,
            request: match &exchange.request {
                Some(body) => redacted(body),
                None => "(no body)".into(),
            },
            answer: redacted(answer),
        };
        let mut shops = self.shops.lock();
        let calls = &mut shops.entry(merchant).or_default().calls;
        let own = |kept: &Call| kept.payment_id == payment_id;
        if calls.iter().filter(|kept| own(kept)).count() >= KEPT_PER_PAYMENT {
            // The payment's first call (its create, as a rule) stays; its
            // oldest after that makes room.
            let second = calls.iter().enumerate().filter(|(_, kept)| own(kept)).nth(1);
            if let Some((at, _)) = second {
                calls.remove(at);
            }
        } else if calls.len() >= KEPT {
            calls.pop_front();
        }
        calls.push_back(call);
    }

    /// Keeps a notification as it is first owed.
    pub fn sent(&self, merchant: u32, sent: Sent) {
        let mut shops = self.shops.lock();
        let kept = &mut shops.entry(merchant).or_default().sent;
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back(sent);
    }

    /// A notification delivered or abandoned after `attempts` attempts.
    pub fn settled(&self, merchant: u32, event_id: Uuid, attempts: u32) {
        let mut shops = self.shops.lock();
        let found = shops
            .get_mut(&merchant)
            .and_then(|shop| shop.sent.iter_mut().find(|s| s.event_id == event_id));
        if let Some(sent) = found {
            sent.attempts = attempts;
            sent.settled = true;
        }
    }

    /// A settled notification of payment `payment_id`, taken to be sent
    /// again: from now on it is in progress, so a second press of the
    /// button sends nothing more.
    pub fn resend(
        &self,
        merchant: u32,
        payment_id: u64,
        event_id: Uuid,
    ) -> Result<Sent, ResendRefused> {
        let mut shops = self.shops.lock();
        let sent = shops
            .get_mut(&merchant)
            .and_then(|shop| shop.sent.iter_mut().find(|s| s.event_id == event_id))
            .filter(|sent| sent.payment_id == payment_id)
            .ok_or(ResendRefused::NotKept)?;
        if !sent.settled {
            return Err(ResendRefused::InProgress);
        }
        sent.settled = false;
        Ok(sent.clone())
    }

    /// The calls kept about payment `id` of shop `merchant`, oldest first.
    pub fn calls(&self, merchant: u32, id: u64) -> Vec<Call> {
        self.shops
            .lock()
            .get(&merchant)
            .map_or_else(Vec::new, |shop| {
                shop.calls
                    .iter()
                    .filter(|call| call.payment_id == id)
                    .cloned()
                    .collect()
            })
    }

    /// The notification `event_id` of shop `merchant`, if it is still kept.
    pub fn notification(&self, merchant: u32, event_id: Uuid) -> Option<Sent> {
        self.shops
            .lock()
            .get(&merchant)?
            .sent
            .iter()
            .find(|sent| sent.event_id == event_id)
            .cloned()
    }
}

/// A body as the back-office may show it: JSON redacted and
/// pretty-printed, within [`MAX_KEPT_BODY`]; anything else not kept.
pub fn redacted(body: &[u8]) -> Box<str> {
    if body.is_empty() {
        return "(no body)".into();
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
        return format!(
            "(not JSON, {} bytes: not kept, as it could hold card data)",
            body.len()
        )
        .into();
    };
    redact(&mut value, None);
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    match text.char_indices().nth(MAX_KEPT_BODY) {
        Some((cut, _)) => format!(
            "{}\n… ({} more bytes not kept)",
            &text[..cut],
            text.len() - cut
        )
        .into(),
        None => text.into(),
    }
}

/// What a field of this name holds, by its name: case and `_`/`-` aside.
enum Secret {
    /// A card number: first six and last four digits.
    CardNumber,
    /// A security code, password or secret: stars.
    Whole,
    /// A payment token or an API key: its last four characters.
    LastFour,
}

fn secret(name: &str) -> Option<Secret> {
    let name: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    match name.as_str() {
        "number" | "pan" | "cardnumber" | "creditcard" | "accountnumber" => {
            Some(Secret::CardNumber)
        }
        "cvv" | "cvv2" | "cvc" | "cvc2" | "cvn" | "securitycode" | "password" | "secret"
        | "signingsecret" => Some(Secret::Whole),
        "paymenttoken" | "apikey" | "token" | "authorization" => Some(Secret::LastFour),
        _ => None,
    }
}

/// Masks every secret in `value`, which `key` names in its parent.
fn redact(value: &mut Value, key: Option<&str>) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                redact(field, Some(name));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, key)),
        Value::Null | Value::Bool(_) => {}
        Value::Number(_) | Value::String(_) => {
            let text = match &*value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let masked = match key.and_then(secret) {
                Some(Secret::CardNumber) if looks_like_card(&text) => mask_pan(&digits(&text)),
                Some(Secret::CardNumber) => stars(&text),
                Some(Secret::Whole) => "***".to_owned(),
                Some(Secret::LastFour) => last_four(&text),
                // A card number wherever else it is put (a free-text field).
                None if looks_like_card(&text) && !key.is_some_and(names_an_id) => {
                    mask_pan(&digits(&text))
                }
                // An address whose query carries a secret: the buyer's
                // return addresses carry the payment token as `b`.
                None => match address_masked(&text) {
                    Some(masked) => masked,
                    // A card number inside a text or an identifier of the
                    // shop's (`buyer.name`, `shopTransactionID`): masked
                    // by what it holds, not by the field's name.
                    None => match cards_masked_in(&text) {
                        Some(masked) => masked,
                        None => return,
                    },
                },
            };
            *value = Value::String(masked);
        }
    }
}

/// An http(s) address with the secrets of its query masked, as fields of
/// their names are (`b`, the service's name for the payment token, as a
/// token); `None` when it is no such address or holds no secret.
pub fn address_masked(text: &str) -> Option<String> {
    // Most strings are no address with a query: they are passed over
    // without parsing, and without allocating.
    let starts = |scheme: &[u8]| {
        text.as_bytes()
            .get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    };
    if !text.contains('?') || !(starts(b"http://") || starts(b"https://")) {
        return None;
    }
    let mut url = url::Url::parse(text).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.query().is_none() {
        return None;
    }
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let mut masked_any = false;
    let masked: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(name, value)| {
            let kind = if name == "b" {
                Some(Secret::LastFour)
            } else {
                secret(&name)
            };
            let value = match kind {
                Some(Secret::CardNumber) if looks_like_card(&value) => mask_pan(&digits(&value)),
                Some(Secret::CardNumber) => stars(&value),
                Some(Secret::Whole) => "***".to_owned(),
                Some(Secret::LastFour) => last_four(&value),
                None if looks_like_card(&value) => mask_pan(&digits(&value)),
                None => return (name, value),
            };
            masked_any = true;
            (name, value)
        })
        .collect();
    if !masked_any {
        return None;
    }
    url.query_pairs_mut().clear().extend_pairs(masked);
    Some(url.into())
}

/// `text` with every card number in it masked (first six and last four
/// digits), `None` when it holds none: 13 to 19 digits in groups joined by
/// one space or dash, that pass the check digit, as the scanners for card
/// data find them; from each group the longest such span, so a card typed
/// after another number (`call 0039 4111…`) is found too (a shop's long
/// identifiers of 12 digits or fewer, and nine in ten longer ones, are
/// left as they are).
fn cards_masked_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.iter().filter(|b| b.is_ascii_digit()).count() < 13 {
        return None;
    }
    // The runs of digits, as byte ranges.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_digit() {
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            groups.push((start, at));
        } else {
            at += 1;
        }
    }
    let joined = |(_, end): (usize, usize), (start, _): (usize, usize)| {
        start == end + 1 && matches!(bytes[end], b' ' | b'-')
    };
    let mut cards: Vec<(usize, usize, String)> = Vec::new();
    let mut first = 0;
    while first < groups.len() {
        let mut digits = String::new();
        let mut found = None;
        for last in first..groups.len() {
            if last > first && !joined(groups[last - 1], groups[last]) {
                break;
            }
            digits.push_str(&text[groups[last].0..groups[last].1]);
            if digits.len() > 19 {
                break;
            }
            if digits.len() >= 13 && crate::card::luhn_valid(&digits) {
                found = Some((last, mask_pan(&digits)));
            }
        }
        match found {
            Some((last, masked)) => {
                cards.push((groups[first].0, groups[last].1, masked));
                first = last + 1;
            }
            None => first += 1,
        }
    }
    if cards.is_empty() {
        return None;
    }
    let mut masked = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end, card) in cards {
        masked.push_str(&text[at..start]);
        masked.push_str(&card);
        at = end;
    }
    masked.push_str(&text[at..]);
    Some(masked)
}

/// 12 to 19 digits (spaces and dashes aside), as card numbers have.
fn looks_like_card(text: &str) -> bool {
    let digits = digits(text);
    (12..=19).contains(&digits.len())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-'))
}

fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// A value already masked stays as it is; anything else becomes stars.
fn stars(text: &str) -> String {
    if text.contains('*') {
        text.to_owned()
    } else {
        "***".to_owned()
    }
}

fn last_four(text: &str) -> String {
    let count = text.chars().count();
    if count <= 8 {
        return "***".to_owned();
    }
    let tail: String = text.chars().skip(count - 4).collect();
    format!("…{tail}")
}

/// Whether a field's name says it holds an identifier (`paymentID`,
/// `shopTransactionID`), whose digits are no card's.
fn names_an_id(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with("id")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_keeps_its_page_and_masks_the_token_and_a_card_in_its_query() {
        let body = br#"{"payload":{"userRedirect":{"href":"https://shop.example/thanks?order=7&a=SHOP&b=0d7b7c1e-9f0e-4c4b-9a57-2f6f3c1d8e11&note=4539970000000014"}}}"#;
        let kept = redacted(body);
        assert!(
            kept.contains(
                "https://shop.example/thanks?order=7&a=SHOP&b=%E2%80%A68e11&note=453997******0014"
            ),
            "{kept}"
        );
        assert!(!kept.contains("0d7b7c1e"), "{kept}");
        let plain = redacted(br#"{"href":"https://shop.example/thanks?order=7"}"#);
        assert!(
            plain.contains("https://shop.example/thanks?order=7"),
            "{plain}"
        );
    }

    #[test]
    fn a_submit_body_is_kept_with_its_card_masked_and_no_security_code() {
        let body = br#"{"shopLogin":"ACME","paymentTypeDetails":{"creditcard":{"number":"4539970000000014","expMonth":"12","expYear":"30","CVV":"123"}},"buyer":{"name":"4111 1111 1111 1111"}}"#;
        let kept = redacted(body);
        assert!(kept.contains("\"453997******0014\""), "{kept}");
        assert!(kept.contains("\"CVV\": \"***\""), "{kept}");
        assert!(kept.contains("\"411111******1111\""), "{kept}");
        for secret in ["4539970000000014", "123\"", "4111 1111 1111 1111"] {
            assert!(!kept.contains(secret), "{secret} in {kept}");
        }
        assert!(kept.contains("\"expMonth\": \"12\""), "{kept}");
    }

    #[test]
    fn tokens_and_keys_keep_their_last_four_and_identifiers_their_digits() {
        let kept = redacted(
            br#"{"payload":{"paymentToken":"0d7b7c1e-9f0e-4c4b-9a57-2f6f3c1d8e11","paymentID":"123456789012","shopTransactionID":"4539970000000014"},"apikey":"sk_live_abcdef"}"#,
        );
        assert!(kept.contains("\"…8e11\""), "{kept}");
        assert!(kept.contains("\"…cdef\""), "{kept}");
        assert!(kept.contains("\"123456789012\""), "{kept}");
        assert!(!kept.contains("0d7b7c1e"), "{kept}");
    }

    #[test]
    fn a_card_number_inside_a_text_or_an_identifier_is_masked_by_its_content() {
        let kept = redacted(
            br#"{"shopTransactionID":"4539970000000014","buyer":{"name":"J. Doe 4111-1111-1111-1111 (card)","email":"a5555555555554444@shop.example"},"customInfo":{"note":"order 20261203000123, call 0039 06 1234 5678","after":"ref 0039 4012888888881881"}}"#,
        );
        for card in [
            "4539970000000014",
            "4111-1111-1111-1111",
            "5555555555554444",
            "4012888888881881",
        ] {
            assert!(!kept.contains(card), "{card} in {kept}");
        }
        assert!(kept.contains("\"453997******0014\""), "{kept}");
        assert!(kept.contains("J. Doe 411111******1111 (card)"), "{kept}");
        assert!(kept.contains("a555555******4444@shop.example"), "{kept}");
        assert!(kept.contains("ref 0039 401288******1881"), "{kept}");
        // Digits that are no card's (a long order number that fails the
        // check digit, a telephone number) stay whole.
        assert!(
            kept.contains("order 20261203000123, call 0039 06 1234 5678"),
            "{kept}"
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_not_kept_and_a_long_one_is_cut() {
        let kept = redacted(b"number=4539970000000014&CVV=123");
        assert_eq!(
            &*kept,
            "(not JSON, 31 bytes: not kept, as it could hold card data)"
        );
        let long = format!("{{\"note\":\"{}\"}}", "é".repeat(20_000));
        let kept = redacted(long.as_bytes());
        assert!(kept.chars().count() < MAX_KEPT_BODY + 60, "cut");
        assert!(
            kept.ends_with("more bytes not kept)"),
            "{}",
            &kept[kept.len() - 80..]
        );
    }

    #[test]
    fn one_payments_calls_turn_over_its_own_and_never_anothers() {
        let log = CallLog::default();
        let call = |id: u64, operation: &'static str| {
            let mut exchange = Exchange::default();
            exchange.about(1, id);
            exchange.request(&Bytes::from_static(b"{}"));
            log.keep(exchange, operation, 200, b"{}");
        };
        call(1, "POST /api/v1/payment/create");
        call(2, "POST /api/v1/payment/create");
        // A buyer with payment 2's token, 300 refused submits in a row.
        for _ in 0..300 {
            call(2, "POST /api/v1/payment/submit");
        }
        call(2, "GET /api/v1/payment/detail/2");
        assert_eq!(
            log.calls(1, 1)
                .iter()
                .map(|c| c.operation)
                .collect::<Vec<_>>(),
            ["POST /api/v1/payment/create"],
            "another payment's call stays"
        );
        let own = log.calls(1, 2);
        assert_eq!(own.len(), KEPT_PER_PAYMENT);
        assert_eq!(own[0].operation, "POST /api/v1/payment/create", "its first stays");
        assert_eq!(
            own[KEPT_PER_PAYMENT - 1].operation,
            "GET /api/v1/payment/detail/2",
            "and its latest"
        );
    }

    #[test]
    fn a_shop_keeps_its_last_calls_and_only_its_own() {
        let log = CallLog::default();
        for id in 0..(KEPT as u64 + 3) {
            let mut exchange = Exchange::default();
            exchange.about(1, id % 16);
            exchange.request(&Bytes::from_static(b"{}"));
            log.keep(exchange, "POST /api/v1/payment/detail", 200, b"{}");
        }
        log.keep(
            Exchange::default(),
            "POST /api/v1/payment/create",
            400,
            b"{}",
        );
        // Sixteen payments, none over its own share: the shop's bound holds.
        let kept: usize = (0..16).map(|id| log.calls(1, id).len()).sum();
        assert_eq!(kept, KEPT);
        assert!(log.calls(2, 0).is_empty());
    }
}
