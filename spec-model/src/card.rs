//! Test cards and card data: the kinds of test card the scenarios pay
//! with ([`CardKind`], one type for the runner, the sandbox, the twin and
//! the tests), and a card number as the contract lets it be shown, its
//! first six and last four digits ([`mask_pan`]), nothing of a security code.

use serde::Deserialize;

/// What a test card does when it is paid with: each kind a scenario can
/// name, and a sandbox card can behave as. Written as [`CardKind::name`] in
/// the sandbox's configuration (`behaviour = "acs_timeout"`), where the
/// names of older files, `frictionless` and `three_ds`, still read; and as
/// [`CardKind::target_key`] under a target file's `[cards]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    /// Not enrolled in 3-D Secure: authorized at once, nothing
    /// authenticated (`transactionResult "OK"`).
    #[serde(alias = "frictionless")]
    NotEnrolled,
    /// Enrolled, authenticated by the issuer without a challenge (`2F`),
    /// authorized at once.
    FrictionlessAuthenticated,
    /// Enrolled, challenged (`8006`): the right one-time code authenticates
    /// (`2C`) and pays, a wrong one fails (`8027`), Cancel abandons (`1143`).
    #[serde(alias = "three_ds")]
    Challenge,
    /// Challenged, and the authentication fails whatever the code (`8027`).
    AuthenticationFailed,
    /// The issuer rejects the authentication at submit (`8028`).
    IssuerRejected,
    /// The issuer's access control server fails at submit (`8029`).
    AcsTechnicalProblem,
    /// Challenged, and the access control server times out (`8038`).
    AcsTimeout,
    /// Authenticated without a challenge, then refused for insufficient
    /// credit (`251`).
    InsufficientCredit,
    /// Authenticated without a challenge, then refused as expired (`433`).
    CardExpired,
    /// Declined by the issuer (`transactionResult "KO"`, `74`).
    Declined,
}

impl CardKind {
    /// Every kind, in the order the sandbox's test-card table lists them.
    pub const ALL: [Self; 10] = [
        Self::NotEnrolled,
        Self::FrictionlessAuthenticated,
        Self::Challenge,
        Self::AuthenticationFailed,
        Self::IssuerRejected,
        Self::AcsTechnicalProblem,
        Self::AcsTimeout,
        Self::InsufficientCredit,
        Self::CardExpired,
        Self::Declined,
    ];

    /// Whether it is one of the 3-D Secure outcomes (`@outcome`): every
    /// kind but the three every target names (not enrolled, challenged,
    /// declined).
    pub fn is_outcome(self) -> bool {
        !matches!(self, Self::NotEnrolled | Self::Challenge | Self::Declined)
    }

    /// The 3-D Secure outcomes, in the order of [`CardKind::ALL`].
    pub fn outcomes() -> impl Iterator<Item = Self> {
        Self::ALL.into_iter().filter(|kind| kind.is_outcome())
    }

    /// Its name in the sandbox's configuration.
    pub fn name(self) -> &'static str {
        match self {
            Self::NotEnrolled => "not_enrolled",
            Self::FrictionlessAuthenticated => "frictionless_authenticated",
            Self::Challenge => "challenge",
            Self::AuthenticationFailed => "authentication_failed",
            Self::IssuerRejected => "issuer_rejected",
            Self::AcsTechnicalProblem => "acs_technical_problem",
            Self::AcsTimeout => "acs_timeout",
            Self::InsufficientCredit => "insufficient_credit",
            Self::CardExpired => "card_expired",
            Self::Declined => "declined",
        }
    }

    /// Its key under a target file's `[cards]`: `frictionless` and
    /// `three_ds` for the two cards every target names, else its name.
    pub fn target_key(self) -> &'static str {
        match self {
            Self::NotEnrolled => "frictionless",
            Self::Challenge => "three_ds",
            other => other.name(),
        }
    }

    /// The kind a target file's key stands for.
    pub fn of_target_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.target_key() == key)
    }

    /// What happens, in words, for the test-card table.
    pub fn summary(self) -> &'static str {
        match self {
            Self::NotEnrolled => "not enrolled in 3-D Secure: paid at once",
            Self::FrictionlessAuthenticated => "frictionless: authenticated without a challenge",
            Self::Challenge => "challenge passed with the one-time code",
            Self::AuthenticationFailed => "challenge, and the authentication fails",
            Self::IssuerRejected => "the issuer rejects the authentication",
            Self::AcsTechnicalProblem => {
                "the issuer's authentication server has a technical problem"
            }
            Self::AcsTimeout => "challenge, and the issuer's authentication server times out",
            Self::InsufficientCredit => "authenticated, then declined: insufficient credit",
            Self::CardExpired => "authenticated, then declined: card expired",
            Self::Declined => "declined by the issuer",
        }
    }
}

/// Masks a primary account number: first six and last four characters
/// kept, the rest as `*`. A string shorter than a card number (12) is
/// masked whole, so nothing of it shows.
pub fn mask_pan(pan: &str) -> String {
    let chars: Vec<char> = pan.chars().collect();
    match chars.len() {
        short @ 0..12 => "*".repeat(short),
        n => {
            let first: String = chars[..6].iter().collect();
            let last: String = chars[n - 4..].iter().collect();
            format!("{first}{}{last}", "*".repeat(n - 10))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind reads from the sandbox's file by its name (and the two older
    /// names), and each target-file key names one kind.
    #[test]
    fn each_kind_reads_by_its_name_and_each_target_key_names_one_kind() {
        #[derive(Deserialize)]
        struct Entry {
            behaviour: CardKind,
        }
        let read = |name: &str| {
            serde_json::from_str::<Entry>(&format!(r#"{{"behaviour":"{name}"}}"#))
                .map(|entry| entry.behaviour)
                .ok()
        };
        for kind in CardKind::ALL {
            assert_eq!(read(kind.name()), Some(kind));
            assert_eq!(CardKind::of_target_key(kind.target_key()), Some(kind));
        }
        assert_eq!(read("frictionless"), Some(CardKind::NotEnrolled));
        assert_eq!(read("three_ds"), Some(CardKind::Challenge));
        assert_eq!(read("maybe"), None);
        assert_eq!(CardKind::of_target_key("not_enrolled"), None);
    }

    /// Card numbers keep six and four; anything shorter than a card number
    /// shows nothing; characters count, not bytes.
    #[test]
    fn masking_keeps_six_and_four_of_a_card_number_and_nothing_of_less() {
        let cases = [
            ("4349940199004549", "434994******4549"),
            ("ééé456789012éé", "ééé456****12éé"),
            ("12345678901", "***********"),
            ("", ""),
        ];
        for (pan, shown) in cases {
            assert_eq!(mask_pan(pan), shown, "{pan}");
        }
    }
}
