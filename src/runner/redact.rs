//! Keeps secrets and card data out of everything payconf prints or writes.
//!
//! Two mechanisms work together. Structurally, JSON fields that hold a
//! security code are replaced whole, card-number fields are masked to their
//! first six and last four digits, and credential headers are masked. By
//! value, every secret the run knows (the API key, the issuer's code, every
//! card number it sends) is replaced wherever it appears in text, so a server
//! that echoes one back cannot leak it either.

use std::sync::RwLock;

use payconf_spec::card::mask_pan;
use serde_json::Value;

/// What stands in for a secret.
pub const MASK: &str = "***";

/// The run's secrets and how each is shown. Its `Debug` shows only how many.
#[derive(Default)]
pub struct Redactor {
    /// (secret, replacement), longest secret first so overlapping ones mask whole.
    secrets: RwLock<Vec<(String, String)>>,
}

impl Redactor {
    /// A redactor that knows these secrets (shown as `***`).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let redactor = Self::default();
        for secret in secrets {
            redactor.add(secret, MASK.to_owned());
        }
        redactor
    }

    /// A card number about to be sent: shown as its first six and last four digits.
    pub fn add_card_number(&self, number: &str) {
        self.add(number.to_owned(), mask_pan(number));
    }

    /// A payment token the target issued: shown as its first eight
    /// characters, in headers, bodies and addresses alike.
    pub fn add_payment_token(&self, token: &str) {
        self.add(token.to_owned(), shown_token(token));
    }

    /// Any other secret: shown as `***`.
    pub fn add_secret(&self, secret: &str) {
        self.add(secret.to_owned(), MASK.to_owned());
    }

    fn add(&self, secret: String, replacement: String) {
        // Very short values (a 3-digit code) would mask innocent text; those
        // are masked structurally instead.
        if secret.len() < 6 {
            return;
        }
        let mut secrets = self.secrets.write().unwrap_or_else(|e| e.into_inner());
        if secrets.iter().any(|(s, _)| *s == secret) {
            return;
        }
        secrets.push((secret, replacement));
        secrets.sort_by_key(|(secret, _)| std::cmp::Reverse(secret.len()));
    }

    /// Text with every known secret replaced.
    pub fn text(&self, text: &str) -> String {
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        let mut out = text.to_owned();
        for (secret, replacement) in secrets.iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), replacement);
            }
        }
        out
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

    /// A body for display: JSON redacted structurally, anything else as text.
    pub fn body(&self, bytes: &[u8]) -> String {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => self.json(&value).to_string(),
            Err(_) => self.text(&String::from_utf8_lossy(bytes)),
        }
    }

    /// A header value for display.
    pub fn header(&self, name: &str, value: &str) -> String {
        match name.to_ascii_lowercase().as_str() {
            "authorization" | "proxy-authorization" => match value.split_once(' ') {
                Some((scheme, _)) => format!("{scheme} {MASK}"),
                None => MASK.to_owned(),
            },
            "paymenttoken" => shown_token(value),
            "cookie" | "set-cookie" => MASK.to_owned(),
            _ => self.text(value),
        }
    }
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.secrets.read().map_or(0, |s| s.len());
        write!(f, "Redactor({known} secrets)")
    }
}

/// A payment token as shown: its first eight characters.
fn shown_token(token: &str) -> String {
    let shown: String = token.chars().take(8).collect();
    format!("{shown}…")
}

fn is_security_code_field(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "cvv" | "cvv2" | "cvc" | "cvc2" | "securitycode" | "security_code"
    )
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
