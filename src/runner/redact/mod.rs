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

mod context;
mod encodings;

use context::{by_context, mask_grouped, replace_alone};
use encodings::encoded_forms;

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
        let hex = payconf_spec::digest::sha256_hex(bytes);
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
        if let Ok(value) = crate::runner::json::parse(bytes) {
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
}
