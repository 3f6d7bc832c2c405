//! The target's test cards, as the target file writes them, and their checks.

use serde::Deserialize;

use super::{Secret, TargetError, target_error};

/// A month or year written as text or as a TOML integer; integers below
/// ten get their leading zero back.
fn two_digits<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Number(u16),
    }
    Ok(match TextOrNumber::deserialize(deserializer)? {
        TextOrNumber::Text(text) => text,
        TextOrNumber::Number(n) => format!("{n:02}"),
    })
}

/// A test card of the target.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCard {
    /// The card number, a secret: masked to six and four wherever it is shown.
    pub number: Secret,
    /// Two-digit expiry month (`exp_month = "05"` or `exp_month = 5`).
    #[serde(deserialize_with = "two_digits")]
    pub exp_month: String,
    /// Expiry year as the target takes it (`"30"` or `30`).
    #[serde(deserialize_with = "two_digits")]
    pub exp_year: String,
    /// Security code.
    pub cvv: Secret,
}

/// The target's test cards.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCards {
    /// A card not enrolled in 3-D Secure.
    pub frictionless: Option<TestCard>,
    /// A card enrolled in 3-D Secure.
    pub three_ds: Option<TestCard>,
    /// A card the issuer declines (reference-profile scenarios).
    pub declined: Option<TestCard>,
}

pub(super) fn check_card(name: &str, card: &TestCard) -> Result<(), TargetError> {
    let setting = |field: &str| format!("cards.{name}.{field}");
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(card.number.expose()) {
        return Err(target_error(&setting("number"), "must be digits only"));
    }
    if card.exp_month.len() != 2 || !digits(&card.exp_month) {
        return Err(target_error(&setting("exp_month"), "must be two digits"));
    }
    if card.exp_year.len() != 2 || !digits(&card.exp_year) {
        return Err(target_error(&setting("exp_year"), "must be two digits"));
    }
    Ok(())
}
