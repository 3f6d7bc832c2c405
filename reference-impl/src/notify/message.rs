//! A server notification as the merchant's server receives it: the JSON
//! body (`PaymentNotification` in `spec/openapi.yaml`), its event ID, and
//! its signature, an HMAC-SHA256 with the shop's signing secret over the
//! timestamp, a dot and the body, sent as
//! `Notification-Signature: t=<unix seconds>,v1=<hex>`.

use crate::secrets::{hex, unhex};
use hmac::{Hmac, Mac};
use payconf_spec::transaction::TransactionResult;
use serde::Serialize;
use sha2::Sha256;
use time::{OffsetDateTime, format_description::well_known::Rfc3339};
use uuid::Uuid;

use crate::{
    ledger::{EventType, Ledger, MoneyEvent},
    store::{Payment, PaymentState},
    timeline::Channel,
};

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "Notification-Signature";
/// The header carrying the event ID (also in the body as `eventID`).
pub const EVENT_ID_HEADER: &str = "Notification-Event-ID";

/// The body of a payment's outcome notification.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentNotification<'a> {
    /// The same on every attempt of one notification: the merchant's server
    /// handles an event ID once.
    #[serde(rename = "eventID")]
    pub event_id: String,
    /// `payment.outcome` when the payment is paid or declined; then, for
    /// a paid payment's money, `payment.settled` (captured, or settled by
    /// the service), `payment.cancelled` or `payment.refunded`.
    pub event_type: &'static str,
    /// When it happened (RFC 3339, UTC).
    pub occurred_at: String,
    /// The merchant's shop login.
    pub shop_login: &'a str,
    /// The payment's `paymentID`.
    #[serde(rename = "paymentID")]
    pub payment_id: String,
    /// The merchant's reference.
    #[serde(rename = "shopTransactionID")]
    pub shop_transaction_id: &'a str,
    /// The amount, as create took it.
    pub amount: String,
    /// The currency.
    pub currency: &'a str,
    /// `paid` or `declined`.
    pub outcome: &'static str,
    /// `OK` or `KO`, as `payment/submit` answers.
    pub transaction_result: TransactionResult,
    /// `submit`, `payment-page` or `alternative-method`.
    pub channel: &'static str,
    /// The card, first six and last four digits; absent for an
    /// alternative method.
    #[serde(rename = "maskedPAN", skip_serializing_if = "Option::is_none")]
    pub masked_pan: Option<&'a str>,
    /// `authenticated` or `failed` for a card that went through the
    /// issuer's authentication; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authentication: Option<&'static str>,
    /// For a money event: the payment's state after it (`MOV`, `CAN`, `STO`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_state: Option<&'static str>,
    /// For a money event: its amount.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_amount: Option<String>,
    /// For a money event: what is settled of the payment after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_amount: Option<String>,
    /// For a money event: what is refunded of it after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refunded_amount: Option<String>,
}

impl<'a> PaymentNotification<'a> {
    /// The notification of a payment that has reached its outcome; `None`
    /// while it has not.
    pub fn of(payment: &'a Payment, shop_login: &'a str, event_id: Uuid) -> Option<Self> {
        let paid = match payment.state {
            PaymentState::Authorized => true,
            PaymentState::Declined => false,
            _ => return None,
        };
        Some(Self {
            event_id: event_id.hyphenated().to_string(),
            event_type: "payment.outcome",
            occurred_at: rfc3339(OffsetDateTime::now_utc()),
            shop_login,
            payment_id: payment.id.to_string(),
            shop_transaction_id: &payment.shop_transaction_id,
            amount: payment.amount.to_string(),
            currency: payment.currency.code(),
            outcome: if paid { "paid" } else { "declined" },
            transaction_result: TransactionResult::of(paid),
            channel: payment.channel().unwrap_or(Channel::Submit).name(),
            masked_pan: payment.masked_pan.as_deref(),
            authentication: payment
                .authenticated()
                .map(|yes| if yes { "authenticated" } else { "failed" }),
            transaction_state: None,
            event_amount: None,
            settled_amount: None,
            refunded_amount: None,
        })
    }

    /// The notification of a paid payment's money event (a settlement, a
    /// cancel, a refund): the payment's notification, its `eventType` the
    /// event's, with the event's amount and the payment's money after it.
    pub fn money(
        payment: &'a Payment,
        shop_login: &'a str,
        event_id: Uuid,
        event: &MoneyEvent,
        ledger: &Ledger,
    ) -> Option<Self> {
        let event_type = match event.kind {
            EventType::Settled => "payment.settled",
            EventType::Cancelled => "payment.cancelled",
            EventType::Refunded => "payment.refunded",
            EventType::Authorized => return None,
        };
        let at = i128::from(event.at_ms) * 1_000_000;
        let occurred_at = OffsetDateTime::from_unix_timestamp_nanos(at)
            .map_or_else(|_| rfc3339(OffsetDateTime::now_utc()), rfc3339);
        Some(Self {
            event_type,
            occurred_at,
            transaction_state: Some(event.kind.code()),
            event_amount: Some(hundredths(event.minor)),
            settled_amount: Some(hundredths(ledger.settled_minor)),
            refunded_amount: Some(hundredths(ledger.refunded_minor)),
            ..Self::of(payment, shop_login, event_id)?
        })
    }
}

/// A time as RFC 3339 in whole seconds, UTC.
fn rfc3339(at: OffsetDateTime) -> String {
    at.replace_nanosecond(0)
        .unwrap_or(at)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// Hundredths as an amount with a dot and two decimals.
fn hundredths(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The `Notification-Signature` value of `body` signed at `timestamp`
/// (Unix seconds) with `secret`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!("t={timestamp},v1={}", hex(&mac(secret, timestamp, body)))
}

/// How far a signature's timestamp may be from the receiver's clock: an
/// older one is a replay.
pub const TOLERANCE_SECS: i64 = 300;

/// Whether `header` is a signature of `body` with `secret`, made within
/// [`TOLERANCE_SECS`] of now: the merchant's side, as the documentation's
/// snippet does it (compared in constant time).
pub fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    verify_at(secret, header, body, now)
}

/// [`verify`], on a receiver whose clock says `now` (Unix seconds).
pub fn verify_at(secret: &str, header: &str, body: &[u8], now: i64) -> bool {
    let mut timestamp = None;
    let mut given = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", v)) => given = unhex(v),
            _ => {}
        }
    }
    let (Some(timestamp), Some(given)) = (timestamp, given) else {
        return false;
    };
    if now.abs_diff(timestamp) > TOLERANCE_SECS.unsigned_abs() {
        return false;
    }
    let mut check = keyed(secret);
    check.update(timestamp.to_string().as_bytes());
    check.update(b".");
    check.update(body);
    check.verify_slice(&given).is_ok()
}

fn keyed(secret: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts any key length")
}

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
    let mut mac = keyed(secret);
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_secret_only() {
        let body = br#"{"eventID":"e"}"#;
        let header = signature("whsec-0123456789abcdef", 1_700_000_000, body);
        assert!(header.starts_with("t=1700000000,v1="), "{header}");
        let now = 1_700_000_010;
        assert!(verify_at("whsec-0123456789abcdef", &header, body, now));
        assert!(!verify_at("another-secret-0123456", &header, body, now));
        assert!(!verify_at("whsec-0123456789abcdef", &header, b"{}", now));
        let moved = header.replace("t=1700000000", "t=1700000001");
        assert!(!verify_at("whsec-0123456789abcdef", &moved, body, now));
        assert!(!verify_at("whsec-0123456789abcdef", "v1=zz", body, now));
    }

    #[test]
    fn a_signature_from_beyond_the_tolerance_is_a_replay() {
        let body = br#"{"eventID":"e"}"#;
        let header = signature("whsec-0123456789abcdef", 1_700_000_000, body);
        let secret = "whsec-0123456789abcdef";
        assert!(verify_at(
            secret,
            &header,
            body,
            1_700_000_000 + TOLERANCE_SECS
        ));
        assert!(!verify_at(
            secret,
            &header,
            body,
            1_700_000_000 + TOLERANCE_SECS + 1
        ));
        assert!(!verify_at(
            secret,
            &header,
            body,
            1_700_000_000 - TOLERANCE_SECS - 1
        ));
        assert!(!verify(secret, &header, body), "signed in 2023");
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_timestamp_dot_body() {
        // Computed apart, with Python's hmac module:
        // hmac.new(b"key", b"1.{}", hashlib.sha256).hexdigest()
        assert_eq!(
            signature("key", 1, b"{}"),
            "t=1,v1=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224"
        );
    }
}
