//! 3-D Secure outcomes as the real service names them
//! (docs/real-service.md: RS-OUTCOME-CODES, RS-TEST-CARDS): the code a refused payment ends
//! with ([`Decline`]), the authentication `payment/detail` reports
//! ([`AuthenticationLevel`]: `2F` frictionless, `2C` challenge), and how
//! the issuer's challenge ends ([`Challenge`]), decided at submit by the
//! card (`test_cards`) and kept with the payment until the buyer answers.
//!
//! A leaf: the payment's money (`ledger`) keeps what this names, and the
//! test cards say which card leads where.

use serde::{Deserialize, Serialize};

/// How the issuer authenticated the buyer: the real service's
/// `authenticationLevel` (3-D Secure 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuthenticationLevel {
    /// `2F`: authenticated without a challenge.
    #[serde(rename = "2F")]
    Frictionless,
    /// `2C`: authenticated by the buyer's answer to a challenge.
    #[serde(rename = "2C")]
    Challenge,
}

impl AuthenticationLevel {
    /// `2F` or `2C`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Frictionless => "2F",
            Self::Challenge => "2C",
        }
    }

    /// The real service's `authMethod`: `01` frictionless, `02` challenge.
    pub fn method(self) -> &'static str {
        match self {
            Self::Frictionless => "01",
            Self::Challenge => "02",
        }
    }
}

/// How the issuer's challenge ends for a buyer who gives the right code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Challenge {
    /// Authenticated (`2C`) and paid.
    Passes,
    /// The authentication fails whatever the buyer types (`8027`).
    Fails,
    /// The issuer's access control server does not answer in time (`8038`).
    TimesOut,
}

impl Challenge {
    /// Its name in the data file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passes => "passes",
            Self::Fails => "fails",
            Self::TimesOut => "times-out",
        }
    }

    /// The challenge a name in the data file stands for.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Passes, Self::Fails, Self::TimesOut]
            .into_iter()
            .find(|c| c.name() == name)
    }

    /// How the buyer's answer ends it: authenticated, or refused with
    /// a code. Cancel is `1143` (abandoned by the buyer) and a wrong code
    /// `8027` (authentication failed), whatever the card.
    pub fn answered(self, cancelled: bool, code_matches: bool) -> Result<(), Decline> {
        match (cancelled, code_matches, self) {
            (true, _, _) => Err(ABANDONED),
            (false, false, _) | (false, true, Self::Fails) => Err(AUTHENTICATION_FAILED),
            (false, true, Self::TimesOut) => Err(ACS_TIMEOUT),
            (false, true, Self::Passes) => Ok(()),
        }
    }
}

/// Why a payment was refused: the real service's transaction code and its
/// description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decline {
    /// `transactionErrorCode`.
    pub code: &'static str,
    /// `transactionErrorDescription`.
    pub description: &'static str,
}

const fn decline(code: &'static str, description: &'static str) -> Decline {
    Decline { code, description }
}

/// `74`: the issuer refuses the authorization.
pub const DENIED: Decline = decline("74", "Authorization denied");
/// `97`: a card the sandbox does not know.
pub const UNKNOWN_CARD: Decline = decline(
    "97",
    "Authorization denied: the sandbox accepts only its test cards",
);
/// `8027`: the buyer failed the issuer's authentication.
pub const AUTHENTICATION_FAILED: Decline = decline("8027", "Authentication failed");
/// `8028`: the issuer rejects the authentication.
pub const ISSUER_REJECTED: Decline = decline("8028", "Issuer rejects authentication");
/// `8029`: the issuer's access control server has a technical problem.
pub const ACS_TECHNICAL_PROBLEM: Decline = decline("8029", "ACS technical problem");
/// `8038`: the issuer's access control server timed out.
pub const ACS_TIMEOUT: Decline = decline("8038", "Not authenticated: ACS timeout");
/// `1143`: the buyer abandoned the payment at the issuer.
pub const ABANDONED: Decline = decline("1143", "Abandoned by buyer");
/// `251`: authenticated, then refused for insufficient credit.
pub const INSUFFICIENT_CREDIT: Decline = decline("251", "Insufficient credit");
/// `433`: authenticated, then refused because the card has expired.
pub const CARD_EXPIRED: Decline = decline("433", "Card expired");

/// Every code a payment can end with, for reading one back from the data file.
const DECLINES: [Decline; 9] = [
    DENIED,
    UNKNOWN_CARD,
    AUTHENTICATION_FAILED,
    ISSUER_REJECTED,
    ACS_TECHNICAL_PROBLEM,
    ACS_TIMEOUT,
    ABANDONED,
    INSUFFICIENT_CREDIT,
    CARD_EXPIRED,
];

/// The decline a code names.
pub fn decline_of(code: &str) -> Option<Decline> {
    DECLINES.into_iter().find(|d| d.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_ends_by_the_answer_and_the_card() {
        assert_eq!(Challenge::Passes.answered(false, true), Ok(()));
        assert_eq!(
            Challenge::Passes.answered(false, false),
            Err(AUTHENTICATION_FAILED)
        );
        assert_eq!(Challenge::Passes.answered(true, true), Err(ABANDONED));
        assert_eq!(
            Challenge::Fails.answered(false, true),
            Err(AUTHENTICATION_FAILED)
        );
        assert_eq!(Challenge::TimesOut.answered(false, true), Err(ACS_TIMEOUT));
        assert_eq!(Challenge::TimesOut.answered(true, true), Err(ABANDONED));
    }

    #[test]
    fn every_code_and_challenge_reads_back() {
        for decline in DECLINES {
            assert_eq!(decline_of(decline.code), Some(decline));
        }
        for challenge in [Challenge::Passes, Challenge::Fails, Challenge::TimesOut] {
            assert_eq!(Challenge::from_name(challenge.name()), Some(challenge));
        }
    }
}
