//! The target's test cards, as the target file writes them, and their checks.

use payconf_spec::card::CardKind;
use serde::Deserialize;

use super::{Secret, TargetError, target_error};

/// A month or year as the target file may write it: text, or a TOML
/// integer whose leading zero is put back below ten.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum TwoDigits {
    /// `"05"`.
    Text(String),
    /// `5`.
    Number(u16),
}

/// A month or year written as text or as a TOML integer; integers below
/// ten get their leading zero back.
fn two_digits<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(match TwoDigits::deserialize(deserializer)? {
        TwoDigits::Text(text) => text,
        TwoDigits::Number(n) => format!("{n:02}"),
    })
}

/// A test card of the target.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestCard {
    /// The card number, a secret: masked to six and four wherever it is shown.
    pub number: Secret,
    /// Two-digit expiry month (`exp_month = "05"` or `exp_month = 5`).
    #[serde(deserialize_with = "two_digits")]
    #[schemars(with = "TwoDigits")]
    pub exp_month: String,
    /// Expiry year as the target takes it (`"30"` or `30`).
    #[serde(deserialize_with = "two_digits")]
    #[schemars(with = "TwoDigits")]
    pub exp_year: String,
    /// Security code.
    pub cvv: Secret,
}

/// The target's test cards: the three every run knows, and one for each
/// 3-D Secure outcome the real service names, which its outcome scenarios
/// need (each skipped, saying so, when the card is not declared).
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestCards {
    /// A card not enrolled in 3-D Secure.
    pub frictionless: Option<TestCard>,
    /// A card enrolled in 3-D Secure: the issuer challenges the buyer.
    pub three_ds: Option<TestCard>,
    /// A card the issuer declines (reference-profile scenarios).
    pub declined: Option<TestCard>,
    /// Authenticated without a challenge (`2F`) and paid.
    pub frictionless_authenticated: Option<TestCard>,
    /// Challenged, and the authentication fails (`8027`); or else, where
    /// `acs.failing_fields` is declared, the card enrolled in 3-D Secure
    /// with those values typed.
    pub authentication_failed: Option<TestCard>,
    /// The issuer rejects the authentication (`8028`).
    pub issuer_rejected: Option<TestCard>,
    /// The issuer's access control server fails (`8029`).
    pub acs_technical_problem: Option<TestCard>,
    /// Challenged, and the access control server times out (`8038`).
    pub acs_timeout: Option<TestCard>,
    /// Authenticated, then declined for insufficient credit (`251`).
    pub insufficient_credit: Option<TestCard>,
    /// Authenticated, then declined as expired (`433`).
    pub card_expired: Option<TestCard>,
}

impl TestCards {
    /// Every kind, in the order a target file lists them.
    pub const ORDER: [CardKind; 10] = [
        CardKind::NotEnrolled,
        CardKind::Challenge,
        CardKind::Declined,
        CardKind::FrictionlessAuthenticated,
        CardKind::AuthenticationFailed,
        CardKind::IssuerRejected,
        CardKind::AcsTechnicalProblem,
        CardKind::AcsTimeout,
        CardKind::InsufficientCredit,
        CardKind::CardExpired,
    ];

    /// The card of `kind`, when declared.
    pub fn named(&self, kind: CardKind) -> Option<&TestCard> {
        match kind {
            CardKind::NotEnrolled => self.frictionless.as_ref(),
            CardKind::Challenge => self.three_ds.as_ref(),
            CardKind::Declined => self.declined.as_ref(),
            CardKind::FrictionlessAuthenticated => self.frictionless_authenticated.as_ref(),
            CardKind::AuthenticationFailed => self.authentication_failed.as_ref(),
            CardKind::IssuerRejected => self.issuer_rejected.as_ref(),
            CardKind::AcsTechnicalProblem => self.acs_technical_problem.as_ref(),
            CardKind::AcsTimeout => self.acs_timeout.as_ref(),
            CardKind::InsufficientCredit => self.insufficient_credit.as_ref(),
            CardKind::CardExpired => self.card_expired.as_ref(),
        }
    }

    /// Every declared card, by its kind.
    pub fn all(&self) -> impl Iterator<Item = (CardKind, &TestCard)> {
        Self::ORDER
            .into_iter()
            .filter_map(|kind| self.named(kind).map(|card| (kind, card)))
    }

    /// Checks every declared card, and that the two every run needs are.
    pub(super) fn check(&self) -> Result<(), TargetError> {
        for (kind, card) in self.all() {
            check_card(kind.target_key(), card)?;
        }
        if self.frictionless.is_none() {
            return Err(target_error(
                "cards.frictionless",
                "missing: a card not enrolled in 3-D Secure",
            ));
        }
        if self.three_ds.is_none() {
            return Err(target_error(
                "cards.three_ds",
                "missing: a card enrolled in 3-D Secure",
            ));
        }
        Ok(())
    }
}

fn check_card(name: &str, card: &TestCard) -> Result<(), TargetError> {
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
