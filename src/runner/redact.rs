//! Keeps secrets and card data out of everything payconf prints or writes.
//!
//! Three mechanisms work together. Structurally, JSON fields that hold a
//! security code (under any of the names servers give it) are replaced
//! whole, card-number fields are masked to their first six and last four
//! digits, and credential headers are masked. By value, every secret the
//! run knows (the API key, the issuer's codes, every card number it sends,
//! the base URL's credentials) is replaced wherever it appears in text,
//! and so are the forms servers re-encode it in: URL-encoded, in base64 at
//! any offset (a Basic credential, a base64 blob), a card number written
//! with spaces or dashes. A secret too short to replace inside longer text
//! (a 4-digit issuer code) is replaced wherever it stands alone. By
//! context, a security code after the words people write before one
//! (`CVV 917`, `cvc_code=917`) and the credentials of any address
//! (`user:pass@`) are masked whatever their value.

use std::sync::RwLock;

use base64::Engine as _;
use payconf_spec::card::mask_pan;
use serde_json::Value;

/// What stands in for a secret.
pub const MASK: &str = "***";

/// Secrets at least this long are replaced inside longer text; shorter ones
/// only where they stand alone, not inside a longer run of letters or
/// digits (a 4-digit code is inside many numbers).
const REPLACED_INSIDE: usize = 6;

/// An encoded form shorter than this says too little to be masked.
const SHORTEST_ENCODED: usize = 6;

/// The run's secrets and how each is shown. Its `Debug` shows only how many.
#[derive(Default)]
pub struct Redactor {
    secrets: RwLock<Secrets>,
    /// The origins whose answers' bodies may be shown; `None` shows every
    /// answer's.
    published: Option<Vec<url::Origin>>,
}

#[derive(Default)]
struct Secrets {
    /// (text, replacement) replaced wherever they appear, longest first so
    /// overlapping ones mask whole: secrets and their encoded forms.
    inside: Vec<(String, String)>,
    /// (text, replacement) replaced where they stand alone.
    alone: Vec<(String, String)>,
    /// Card numbers (their digits) that may be written in groups
    /// (`4111 1111-1111 1111`), each with how it is shown.
    grouped_cards: Vec<(Vec<u8>, String)>,
}

impl Redactor {
    /// A redactor that knows these secrets (shown as `***`).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let redactor = Self::default();
        for secret in secrets {
            redactor.add_secret(&secret);
        }
        redactor
    }

    /// Shows the bodies of answers from these origins only: an answer from
    /// any other address (where a redirect of the target led) is shown by
    /// its size and digest, so that a target cannot make payconf fetch a
    /// private address and publish what it answered.
    pub fn publishing(mut self, origins: Vec<url::Origin>) -> Self {
        self.published = Some(origins);
        self
    }

    /// Whether the body of an answer from `url` may be shown.
    pub fn publishes(&self, url: &url::Url) -> bool {
        self.published
            .as_ref()
            .is_none_or(|origins| origins.contains(&url.origin()))
    }

    /// An answer's body for display, when `url` is an address the run was
    /// given; otherwise its size, digest and why it is not shown.
    pub fn answer_body(&self, url: &url::Url, bytes: &[u8]) -> String {
        if self.publishes(url) {
            return self.body(bytes);
        }
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(bytes);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "({} bytes, sha256 {hex}; not shown: {} is not an address the run was given. \
             Name it in acs.origins to see it)",
            bytes.len(),
            self.text(&url.origin().ascii_serialization())
        )
    }

    /// A card number about to be sent: shown as its first six and last four
    /// digits, also written in groups; its encoded forms as `***`.
    pub fn add_card_number(&self, number: &str) {
        let shown = mask_pan(number);
        self.add(number, &shown, true);
        let digits: Vec<u8> = number.bytes().filter(u8::is_ascii_digit).collect();
        if digits.len() >= 12 {
            let mut secrets = self.write();
            if !secrets.grouped_cards.iter().any(|(d, _)| *d == digits) {
                secrets.grouped_cards.push((digits, shown));
            }
        }
    }

    /// A payment token the target issued: shown as its first eight
    /// characters, in headers, bodies and addresses alike.
    pub fn add_payment_token(&self, token: &str) {
        self.add(token, &shown_token(token), false);
    }

    /// Any other secret: shown as `***`, whatever its length, with its
    /// encoded forms.
    pub fn add_secret(&self, secret: &str) {
        self.add(secret, MASK, true);
    }

    fn add(&self, secret: &str, replacement: &str, encodings: bool) {
        if secret.is_empty() {
            return;
        }
        let mut secrets = self.write();
        if secret.len() < REPLACED_INSIDE {
            if !secrets.alone.iter().any(|(s, _)| s == secret) {
                secrets
                    .alone
                    .push((secret.to_owned(), replacement.to_owned()));
            }
            return;
        }
        let mut forms = vec![(secret.to_owned(), replacement.to_owned())];
        if encodings {
            forms.extend(
                encoded_forms(secret)
                    .into_iter()
                    .filter(|form| form != secret && form.len() >= SHORTEST_ENCODED)
                    .map(|form| (form, MASK.to_owned())),
            );
        }
        for (form, shown) in forms {
            if !secrets.inside.iter().any(|(s, _)| *s == form) {
                secrets.inside.push((form, shown));
            }
        }
        secrets
            .inside
            .sort_by_key(|(secret, _)| std::cmp::Reverse(secret.len()));
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Secrets> {
        self.secrets.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Text with every known secret, and everything that reads as a secret
    /// by its context, replaced.
    pub fn text(&self, text: &str) -> String {
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        let mut out = text.to_owned();
        for (secret, replacement) in &secrets.inside {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), replacement);
            }
        }
        for (secret, replacement) in &secrets.alone {
            if out.contains(secret.as_str()) {
                out = replace_alone(&out, secret, replacement);
            }
        }
        for (digits, shown) in &secrets.grouped_cards {
            if let Some(replaced) = mask_grouped(&out, digits, shown) {
                out = replaced;
            }
        }
        by_context(out)
    }

    /// A JSON value with security codes removed, card numbers masked, and
    /// every string redacted as text.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, v)| {
                        let shown = if is_security_code_field(key) && !v.is_null() {
                            Value::String(MASK.to_owned())
                        } else if is_card_number_field(key) {
                            match v {
                                Value::String(s) => Value::String(mask_pan(&self.text(s))),
                                Value::Number(n) => Value::String(mask_pan(&n.to_string())),
                                other => self.json(other),
                            }
                        } else {
                            self.json(v)
                        };
                        (key.clone(), shown)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::String(s) => Value::String(self.text(s)),
            other => other.clone(),
        }
    }

    /// A body for display: JSON redacted structurally, text as text, and
    /// anything else (a compressed or binary answer) by its length and its
    /// first bytes.
    pub fn body(&self, bytes: &[u8]) -> String {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
            return self.json(&value).to_string();
        }
        let text = String::from_utf8_lossy(bytes);
        // A page in Latin-1 is still text; a gzip stream or an image is not.
        let unreadable = text
            .chars()
            .filter(|c| *c == '\u{fffd}' || (c.is_control() && !matches!(c, '\t' | '\n' | '\r')))
            .count();
        match text {
            text if !text.contains('\0') && unreadable * 10 <= text.chars().count() => {
                self.text(&text)
            }
            _ => {
                let first: Vec<String> =
                    bytes.iter().take(16).map(|b| format!("{b:02x}")).collect();
                format!(
                    "({} bytes that are not text, beginning {})",
                    bytes.len(),
                    first.join(" ")
                )
            }
        }
    }

    /// A header value for display.
    pub fn header(&self, name: &str, value: &str) -> String {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "authorization" | "proxy-authorization" => match value.split_once(' ') {
                Some((scheme, _)) => format!("{scheme} {MASK}"),
                None => MASK.to_owned(),
            },
            "paymenttoken" => shown_token(value),
            "cookie" | "set-cookie" | "x-api-key" | "api-key" | "apikey" => MASK.to_owned(),
            _ if is_security_code_field(&lower) => MASK.to_owned(),
            _ => self.text(value),
        }
    }
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.secrets.read().map_or(0, |s| {
            s.inside.len() + s.alone.len() + s.grouped_cards.len()
        });
        write!(f, "Redactor({known} forms of secrets)")
    }
}

/// The forms servers and pages commonly re-encode a secret in: percent-
/// encoded as forms and as `encodeURIComponent` write it (either case of
/// hex), hexadecimal, HTML's numeric character references, and the runs of
/// base64 (standard and URL-safe) that encode it at
/// each of the three offsets it can stand at inside longer data, so a
/// Basic credential or a base64 blob that holds it is caught too.
fn encoded_forms(secret: &str) -> Vec<String> {
    let mut forms = Vec::new();
    let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    forms.push(form.to_ascii_lowercase_hex());
    forms.push(form);
    let component = uri_component(secret);
    forms.push(component.to_ascii_lowercase_hex());
    forms.push(component);
    // Hexadecimal, and HTML's numeric character references, as pages
    // write what they do not want read at a glance.
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    forms.push(
        secret
            .chars()
            .map(|c| format!("&#{};", u32::from(c)))
            .collect(),
    );
    forms.push(
        secret
            .chars()
            .map(|c| format!("&#x{:x};", u32::from(c)))
            .collect(),
    );
    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for offset in 0..3usize {
            let mut bytes = vec![0u8; offset];
            bytes.extend_from_slice(secret.as_bytes());
            let encoded = engine.encode(&bytes);
            // Only the characters every bit of which is the secret's.
            let first = (8 * offset).div_ceil(6);
            let last = 8 * (offset + secret.len()) / 6;
            if last > first {
                forms.push(encoded[first..last].to_owned());
            }
        }
    }
    forms
}

/// `secret` as JavaScript's `encodeURIComponent` writes it.
fn uri_component(secret: &str) -> String {
    let mut out = String::with_capacity(secret.len() * 3);
    for byte in secret.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Percent-encoding's hex digits in lower case (`%2f`), as some encoders write them.
trait LowerHex {
    fn to_ascii_lowercase_hex(&self) -> String;
}

impl LowerHex for String {
    fn to_ascii_lowercase_hex(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut rest = self.as_str();
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
            out.push_str(&escape.to_ascii_lowercase());
            rest = &rest[at + escape.len()..];
        }
        out.push_str(rest);
        out
    }
}

/// `text` with `secret` replaced where no letter or digit touches it.
fn replace_alone(text: &str, secret: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices(secret) {
        if at < last {
            continue;
        }
        let before = text[..at].chars().next_back();
        let after = text[at + secret.len()..].chars().next();
        if before.is_some_and(|c| c.is_alphanumeric()) || after.is_some_and(|c| c.is_alphanumeric())
        {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(replacement);
        last = at + secret.len();
    }
    out.push_str(&text[last..]);
    out
}

/// What reads as a secret by its context, whatever its value: a security
/// code after its name, the credentials of an address.
fn by_context(text: String) -> String {
    let text = match mask_named_codes(&text) {
        Some(masked) => masked,
        None => text,
    };
    match mask_userinfo(&text) {
        Some(masked) => masked,
        None => text,
    }
}

/// The words a security code's name begins with, after an optional `card`.
const CODE_NAMES: [&str; 6] = ["cvv", "cvc", "cvn", "csc", "security", "verification"];

/// A 3- or 4-digit code after a name of the security code (`CVV`, `cvc2`,
/// `card_security_code`, `verification value`, each optionally followed by
/// `code`, `number` or `value`) and what people put between them (up to
/// four marks such as `:`, `=`, quotes and spaces, or `is`), masked;
/// `None` when there is none.
fn mask_named_codes(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut codes: Vec<(usize, usize)> = Vec::new();
    for name in CODE_NAMES {
        for (at, _) in lower.match_indices(name) {
            if !name_starts_at(bytes, at) {
                continue;
            }
            let mut end = at + name.len();
            end = match name {
                "cvv" | "cvc" | "cvn" => end + usize::from(bytes.get(end) == Some(&b'2')),
                "security" => match word_after(bytes, end, &["code"]) {
                    Some(after) => after,
                    None => continue,
                },
                "verification" => match word_after(bytes, end, &["value", "code"]) {
                    Some(after) => after,
                    None => continue,
                },
                _ => end,
            };
            end = word_after(bytes, end, &["code", "number", "value"]).unwrap_or(end);
            if let Some(code) = code_after(bytes, end) {
                codes.push(code);
            }
        }
    }
    if codes.is_empty() {
        return None;
    }
    codes.sort_unstable();
    codes.dedup();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (from, to) in codes {
        if from < last {
            continue;
        }
        out.push_str(&text[last..from]);
        out.push_str(MASK);
        last = to;
    }
    out.push_str(&text[last..]);
    Some(out)
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether a name that begins at `at` stands at the start of a word, or
/// after `card` (`card_security_code`, `cardCvv`) that does.
fn name_starts_at(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    let alone = |end: usize| end == 0 || !bytes[end - 1].is_ascii_alphanumeric();
    if alone(at) {
        return true;
    }
    let without_separator = before
        .strip_suffix(b"_")
        .or_else(|| before.strip_suffix(b"-"))
        .or_else(|| before.strip_suffix(b" "))
        .unwrap_or(before);
    without_separator
        .strip_suffix(b"card")
        .is_some_and(|card| alone(card.len()))
}

/// Where one of `words` ends, after an optional ` `, `_` or `-` at `from`.
fn word_after(bytes: &[u8], from: usize, words: &[&str]) -> Option<usize> {
    let start = from + usize::from(matches!(bytes.get(from), Some(b' ' | b'_' | b'-')));
    words
        .iter()
        .find(|word| bytes[start.min(bytes.len())..].starts_with(word.as_bytes()))
        .map(|word| start + word.len())
}

/// The span of a 3- or 4-digit code that follows a name ending at `from`.
fn code_after(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    if bytes.get(from).copied().is_some_and(is_word) && !bytes[from].is_ascii_digit() {
        return None;
    }
    let marks = |from: usize, most: usize| {
        bytes[from..]
            .iter()
            .take(most)
            .take_while(|b| !b.is_ascii_alphanumeric())
            .count()
    };
    let mut at = from + marks(from, 4);
    if bytes[at..].starts_with(b"is") {
        let gap = marks(at + 2, 3);
        if gap > 0 {
            at += 2 + gap;
        }
    }
    let digits = bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let ends_word = bytes.get(at + digits).is_none_or(|b| !is_word(*b));
    ((3..=4).contains(&digits) && ends_word).then_some((at, at + digits))
}

/// Every address's credentials (`scheme://user:pass@`) masked; `None`
/// when no address holds any.
fn mask_userinfo(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for (at, _) in text.match_indices("://") {
        let scheme = bytes[..at]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
            .count();
        if scheme == 0 || !bytes[at - scheme].is_ascii_alphabetic() {
            continue;
        }
        let from = at + 3;
        let length = bytes[from..]
            .iter()
            .take_while(|b| !b.is_ascii_whitespace() && !b"/?#@\"'<>".contains(b))
            .count();
        if length > 0 && bytes.get(from + length) == Some(&b'@') {
            spans.push((from, from + length));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (from, to) in spans {
        out.push_str(&text[last..from]);
        out.push_str(MASK);
        last = to;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// `text` with a card number written in groups (`4111 1111-1111 1111`:
/// its digits, one space, dash or dot at most between two) replaced by
/// `shown`, where no letter or digit touches it.
fn mask_grouped(text: &str, digits: &[u8], shown: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let first = *digits.first()?;
    let mut out = String::new();
    let mut last = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != first || (at > 0 && bytes[at - 1].is_ascii_alphanumeric()) {
            at += 1;
            continue;
        }
        let mut i = at;
        let mut matched = 0;
        while matched < digits.len() && i < bytes.len() {
            if bytes[i] == digits[matched] {
                matched += 1;
                i += 1;
            } else if matched > 0
                && matches!(bytes[i], b' ' | b'-' | b'.')
                && bytes.get(i + 1) == Some(&digits[matched])
            {
                i += 1;
            } else {
                break;
            }
        }
        if matched == digits.len() && bytes.get(i).is_none_or(|b| !b.is_ascii_alphanumeric()) {
            out.push_str(&text[last..at]);
            out.push_str(shown);
            last = i;
            at = i;
        } else {
            at += 1;
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// An address as payconf shows it: its credentials (`user:pass@`) masked.
pub fn shown_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    if !shown.username().is_empty() {
        let _ = shown.set_username(MASK);
    }
    if shown.password().is_some() {
        let _ = shown.set_password(Some(MASK));
    }
    shown.to_string()
}

/// A payment token as shown: its first eight characters.
fn shown_token(token: &str) -> String {
    let shown: String = token.chars().take(8).collect();
    format!("{shown}…")
}

/// Whether a field or header holds a security code, under the names
/// servers give it: `CVV`, `cvc2`, `cvn`, `securityCode`,
/// `card_security_code`, `cvc_code`, `X-CVV`, `cardVerificationValue`.
fn is_security_code_field(key: &str) -> bool {
    let key: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    [
        "cvv",
        "cvc",
        "cvn",
        "securitycode",
        "verificationvalue",
        "verificationcode",
    ]
    .iter()
    .any(|name| key.contains(name))
        || matches!(key.as_str(), "csc" | "xcsc")
}

fn is_card_number_field(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "number" | "cardnumber" | "card_number" | "pan"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_masks_cards_and_drops_security_codes() {
        let redactor = Redactor::default();
        let body = json!({"paymentTypeDetails": {"creditcard": {
            "number": "4111111111111111", "CVV": "999", "expMonth": "05", "DCC": null
        }}});
        let shown = redactor.json(&body).to_string();
        assert!(shown.contains("411111******1111"), "{shown}");
        assert!(!shown.contains("999"), "{shown}");
        assert!(shown.contains("\"expMonth\":\"05\""), "{shown}");
    }

    #[test]
    fn known_secrets_are_masked_anywhere_in_text() {
        let redactor = Redactor::new(["merchant-key".to_owned()]);
        redactor.add_card_number("5555555555554444");
        let shown = redactor.text("key merchant-key card 5555555555554444 echoed");
        assert_eq!(shown, "key *** card 555555******4444 echoed");
    }

    #[test]
    fn credential_headers_are_masked() {
        let redactor = Redactor::default();
        assert_eq!(
            redactor.header("Authorization", "apikey secret"),
            "apikey ***"
        );
        assert_eq!(
            redactor.header("paymentToken", "1f6c3e5a-8b2d-4c7e-9a41-2d5b7e9f0c13"),
            "1f6c3e5a…"
        );
    }

    #[test]
    fn non_json_bodies_are_redacted_as_text() {
        let redactor = Redactor::new(["top-secret-key".to_owned()]);
        assert_eq!(redactor.body(b"<p>top-secret-key</p>"), "<p>***</p>");
    }

    #[test]
    fn a_short_issuer_code_is_masked_where_it_stands_alone() {
        let redactor = Redactor::new(["4321".to_owned()]);
        assert_eq!(
            redactor.text("otp=4321&order=14321&code 4321."),
            "otp=***&order=14321&code ***."
        );
    }

    #[test]
    fn a_key_is_masked_in_the_forms_servers_re_encode_it_in() {
        use base64::Engine as _;
        let key = "k3y/with+odd=chars";
        let redactor = Redactor::new([key.to_owned()]);
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let entities: String = key
            .chars()
            .map(|c| format!("&#{};", u32::from(c)))
            .collect();
        let encoded = [
            "k3y%2Fwith%2Bodd%3Dchars".to_owned(),
            "k3y%2fwith%2bodd%3dchars".to_owned(),
            hex.to_ascii_uppercase(),
            hex,
            entities,
            base64::engine::general_purpose::STANDARD.encode(key),
            base64::engine::general_purpose::URL_SAFE.encode(key),
        ];
        for form in &encoded {
            let shown = redactor.text(&format!("echo {form} done"));
            assert!(
                !shown.contains(form.trim_end_matches('=')),
                "{form}: {shown}"
            );
        }
        // Inside a Basic credential, at each offset the key can stand at.
        for user in ["s", "sh", "shop"] {
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{key}"));
            let shown = redactor.text(&format!("Basic {basic}"));
            let decoded = shown
                .strip_prefix("Basic ")
                .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            assert!(!decoded.contains(key), "{user}: {shown}");
            assert!(shown.contains(MASK), "{user}: {shown}");
        }
    }

    #[test]
    fn a_card_number_is_masked_in_groups_and_in_base64() {
        use base64::Engine as _;
        let redactor = Redactor::default();
        redactor.add_card_number("4111111111111111");
        for form in [
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "4111.1111.1111.1111",
        ] {
            assert_eq!(
                redactor.text(&format!("card {form}.")),
                "card 411111******1111."
            );
        }
        let encoded = base64::engine::general_purpose::STANDARD.encode("pan=4111111111111111");
        assert!(redactor.text(&encoded).contains(MASK), "{encoded}");
    }

    #[test]
    fn a_security_code_is_masked_by_its_names_and_the_words_before_it() {
        let redactor = Redactor::default();
        for (text, shown) in [
            ("CVV 917 was wrong", "CVV *** was wrong"),
            ("cvv=917&x=1", "cvv=***&x=1"),
            ("card security code: 917", "card security code: ***"),
            ("{\"cvc_code\":\"917\"}", "{\"cvc_code\":\"***\"}"),
            ("the CVC is 0428", "the CVC is ***"),
            ("order 917 shipped", "order 917 shipped"),
        ] {
            assert_eq!(redactor.text(text), shown, "{text}");
        }
        let body = serde_json::json!({"cvn": "917", "card_security_code": 917, "cvcCode": "917"});
        assert!(!redactor.json(&body).to_string().contains("917"));
        assert_eq!(redactor.header("X-CVV", "917"), MASK);
    }

    #[test]
    fn credentials_in_any_address_are_masked() {
        let redactor = Redactor::default();
        assert_eq!(
            redactor.text("GET http://user:pa55@127.0.0.1:8080/x and https://k@h/"),
            "GET http://***@127.0.0.1:8080/x and https://***@h/"
        );
        assert_eq!(redactor.text("mail a@b.example"), "mail a@b.example");
    }
}
