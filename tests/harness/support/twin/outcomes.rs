//! The twin's 3-D Secure outcomes (`@outcome`), in its own ways: its own
//! test cards, a declined payment's detail saying `DECLINED` (the real
//! service's other word for `KO`), and `threeDS.AuthenticationResult`
//! named as the real service's document writes it in its prose. Each
//! outcome defect breaks one `REF-OUT` requirement.

use payconf_spec::card::CardKind;

use super::{Defect, Twin};

/// Authenticated without a challenge (`2F`) and paid.
pub const FRICTIONLESS_AUTHENTICATED_CARD: &str = "4917610000000026";
/// Challenged, and the authentication fails (`8027`).
pub const AUTHENTICATION_FAILED_CARD: &str = "4917610000000109";
/// The issuer rejects the authentication at submit (`8028`).
pub const ISSUER_REJECTED_CARD: &str = "4917610000000281";
/// The issuer's authentication server fails at submit (`8029`).
pub const ACS_TECHNICAL_PROBLEM_CARD: &str = "4917610000000364";
/// Challenged, and the authentication server times out (`8038`).
pub const ACS_TIMEOUT_CARD: &str = "4917610000000448";
/// Authenticated, then declined for insufficient credit (`251`).
pub const INSUFFICIENT_CREDIT_CARD: &str = "4917610000000513";
/// Authenticated, then declined as expired (`433`).
pub const CARD_EXPIRED_CARD: &str = "4917610000000695";

/// The twin's card of each 3-D Secure outcome.
pub fn outcome_card(kind: CardKind) -> Option<&'static str> {
    match kind {
        CardKind::FrictionlessAuthenticated => Some(FRICTIONLESS_AUTHENTICATED_CARD),
        CardKind::AuthenticationFailed => Some(AUTHENTICATION_FAILED_CARD),
        CardKind::IssuerRejected => Some(ISSUER_REJECTED_CARD),
        CardKind::AcsTechnicalProblem => Some(ACS_TECHNICAL_PROBLEM_CARD),
        CardKind::AcsTimeout => Some(ACS_TIMEOUT_CARD),
        CardKind::InsufficientCredit => Some(INSUFFICIENT_CREDIT_CARD),
        CardKind::CardExpired => Some(CARD_EXPIRED_CARD),
        CardKind::NotEnrolled | CardKind::Challenge | CardKind::Declined => None,
    }
}

/// The twin's generic decline, for a card it does not know.
pub const DO_NOT_HONOUR: &str = "D05";

/// How a payment's authorization ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ending {
    /// `None`: paid; else the refusal's code.
    pub refusal: Option<&'static str>,
    /// `authenticationLevel`: `2F`, `2C`, or `NA`.
    pub level: &'static str,
}

impl Ending {
    pub(super) fn paid(level: &'static str) -> Self {
        Self {
            refusal: None,
            level,
        }
    }

    pub(super) fn refused(code: &'static str, level: &'static str) -> Self {
        Self {
            refusal: Some(code),
            level,
        }
    }
}

/// What a card does at submit.
pub(super) enum AtSubmit {
    /// Paid at once.
    Paid(Ending),
    /// Sent to the issuer, whose challenge, passed, ends with this refusal
    /// (`None`: paid).
    Challenge(Option<&'static str>),
    /// Refused at once.
    Refused(Ending),
}

impl Twin {
    /// What an outcome card does at submit; `None` for the twin's other cards.
    pub(super) fn outcome_at_submit(&self, number: &str) -> Option<AtSubmit> {
        let generic = |defect: Defect, code: &'static str| {
            if self.has(defect) {
                DO_NOT_HONOUR
            } else {
                code
            }
        };
        Some(match number {
            FRICTIONLESS_AUTHENTICATED_CARD => AtSubmit::Paid(Ending::paid(
                if self.has(Defect::FrictionlessReportedAsNotAuthenticated) {
                    "NA"
                } else {
                    "2F"
                },
            )),
            AUTHENTICATION_FAILED_CARD => AtSubmit::Challenge(Some(generic(
                Defect::FailedAuthenticationReportedAsDenied,
                "8027",
            ))),
            ACS_TIMEOUT_CARD if self.has(Defect::AcsTimeoutPaid) => AtSubmit::Challenge(None),
            ACS_TIMEOUT_CARD => AtSubmit::Challenge(Some("8038")),
            ISSUER_REJECTED_CARD => AtSubmit::Refused(Ending::refused(
                generic(Defect::IssuerRejectionAsGenericDecline, "8028"),
                "NA",
            )),
            ACS_TECHNICAL_PROBLEM_CARD => AtSubmit::Refused(Ending::refused(
                generic(Defect::AcsProblemAsGenericDecline, "8029"),
                "NA",
            )),
            INSUFFICIENT_CREDIT_CARD => AtSubmit::Refused(Ending::refused(
                generic(Defect::InsufficientCreditAsGenericDecline, "251"),
                "2F",
            )),
            CARD_EXPIRED_CARD if self.has(Defect::ExpiredCardPaid) => {
                AtSubmit::Paid(Ending::paid("2F"))
            }
            CARD_EXPIRED_CARD => AtSubmit::Refused(Ending::refused("433", "2F")),
            _ => return None,
        })
    }

    /// How the issuer's challenge ends: the result it relayed (`Y`
    /// authenticated, `N` not, `A` abandoned) and what the card's challenge
    /// ends with when passed.
    pub(super) fn challenge_ending(
        &self,
        result: char,
        passed_ends: Option<&'static str>,
    ) -> Ending {
        let level = if self.has(Defect::ChallengeReportedAsFrictionless) {
            "2F"
        } else {
            "2C"
        };
        match (result, passed_ends) {
            ('Y', None) => Ending::paid(level),
            ('Y', Some(code)) => Ending::refused(code, "NA"),
            ('A', _) if !self.has(Defect::AbandonmentReportedAsFailedAuthentication) => {
                Ending::refused("1143", "NA")
            }
            _ => Ending::refused("8027", "NA"),
        }
    }
}
