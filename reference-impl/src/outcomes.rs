//! 3-D Secure outcomes as the real service names them
//! (real-service-operations §3 and §4): what each of the sandbox's test
//! cards leads to, the code a refused payment ends with, and the
//! authentication `payment/detail` reports (`authenticationLevel` `2F`
//! frictionless, `2C` challenge).
//!
//! A card's outcome is decided at submit ([`CardOutcome`]): paid at once,
//! refused at once, or sent to the issuer's challenge, whose end
//! ([`Challenge`]) is decided then too and kept with the payment until the
//! buyer answers. The real service publishes no test cards for these
//! outcomes (§4: "Decline cards and issuer-page codes: not documented"), so
//! the numbers are the sandbox's choice; the codes are the real service's.
//! [`table`] lists them, once, for the documentation, the payment page
//! and the back-office.

use serde::{Deserialize, Serialize};

use crate::{
    config::{CardBehaviour, ReferenceConfig},
    error::transaction_code,
    pages::escape,
};

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
pub const DENIED: Decline = decline(
    transaction_code::DECLINED,
    transaction_code::DECLINED_DESCRIPTION,
);
/// `97`: a card the sandbox does not know.
pub const UNKNOWN_CARD: Decline = decline(
    transaction_code::UNKNOWN_CARD,
    transaction_code::UNKNOWN_CARD_DESCRIPTION,
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

/// What a card leads to at submit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardOutcome {
    /// Paid at once; `level` is how the issuer authenticated the buyer
    /// (`None`: the card is not enrolled, nothing was authenticated).
    Authorized {
        /// How the buyer was authenticated.
        level: Option<AuthenticationLevel>,
    },
    /// The buyer goes to the issuer's challenge, which ends so.
    Challenge(Challenge),
    /// Refused at once, after an authentication at `level` when there was one.
    Declined {
        /// Why.
        decline: Decline,
        /// How the buyer was authenticated before the refusal.
        level: Option<AuthenticationLevel>,
    },
}

impl CardOutcome {
    /// What a card of this behaviour leads to; `None`: a card the sandbox
    /// does not know.
    pub fn of(behaviour: Option<CardBehaviour>) -> Self {
        let frictionless = Some(AuthenticationLevel::Frictionless);
        let declined = |decline, level| Self::Declined { decline, level };
        match behaviour {
            Some(CardBehaviour::NotEnrolled) => Self::Authorized { level: None },
            Some(CardBehaviour::FrictionlessAuthenticated) => Self::Authorized {
                level: frictionless,
            },
            Some(CardBehaviour::Challenge) => Self::Challenge(Challenge::Passes),
            Some(CardBehaviour::AuthenticationFailed) => Self::Challenge(Challenge::Fails),
            Some(CardBehaviour::AcsTimeout) => Self::Challenge(Challenge::TimesOut),
            Some(CardBehaviour::Declined) => declined(DENIED, None),
            Some(CardBehaviour::IssuerRejected) => declined(ISSUER_REJECTED, None),
            Some(CardBehaviour::AcsTechnicalProblem) => declined(ACS_TECHNICAL_PROBLEM, None),
            Some(CardBehaviour::InsufficientCredit) => declined(INSUFFICIENT_CREDIT, frictionless),
            Some(CardBehaviour::CardExpired) => declined(CARD_EXPIRED, frictionless),
            None => declined(UNKNOWN_CARD, None),
        }
    }
}

/// One row of the test-card table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TestCardRow {
    /// The card number (the sandbox's, public: it pays nothing).
    pub number: String,
    /// Its behaviour's name in the configuration file.
    pub behaviour: &'static str,
    /// What happens, in words.
    pub outcome: &'static str,
    /// What submit answers.
    pub submit: String,
    /// What `payment/detail` says of it afterwards.
    pub detail: String,
}

/// The sandbox's test cards, in the configuration's order, with what
/// each leads to, and the rows of outcomes reached by the buyer's answer
/// at the issuer (a wrong code, Cancel) with the challenge card.
pub fn table(config: &ReferenceConfig) -> Vec<TestCardRow> {
    let mut rows: Vec<TestCardRow> = config
        .cards
        .iter()
        .map(|card| {
            let behaviour = card.behaviour;
            let (submit, detail) = match CardOutcome::of(Some(behaviour)) {
                CardOutcome::Authorized { level } => ("OK".to_owned(), ok_detail(level)),
                CardOutcome::Challenge(challenge) => (
                    "8006, to the issuer".to_owned(),
                    match challenge.answered(false, true) {
                        Ok(()) => ok_detail(Some(AuthenticationLevel::Challenge)),
                        Err(decline) => ko_detail(decline, None),
                    },
                ),
                CardOutcome::Declined { decline, level } => {
                    (format!("KO {}", decline.code), ko_detail(decline, level))
                }
            };
            TestCardRow {
                number: card.number.test_card_digits().to_owned(),
                behaviour: behaviour.name(),
                outcome: behaviour.summary(),
                submit,
                detail,
            }
        })
        .collect();
    if let Some(challenge) = config
        .cards
        .iter()
        .find(|c| c.behaviour == CardBehaviour::Challenge)
    {
        for (outcome, decline) in [
            (
                "the challenge card, a wrong one-time code at the issuer",
                AUTHENTICATION_FAILED,
            ),
            (
                "the challenge card, Cancel at the issuer: the buyer abandons",
                ABANDONED,
            ),
        ] {
            rows.push(TestCardRow {
                number: challenge.number.test_card_digits().to_owned(),
                behaviour: CardBehaviour::Challenge.name(),
                outcome,
                submit: "8006, to the issuer".to_owned(),
                detail: ko_detail(decline, None),
            });
        }
    }
    rows
}

/// The table as HTML, for the payment page and the back-office: a
/// `<table>` with its caption, every cell escaped.
pub fn html_table(config: &ReferenceConfig) -> String {
    let rows: String = table(config)
        .iter()
        .map(|row| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&row.number),
                escape(row.outcome),
                escape(&row.submit),
                escape(&row.detail)
            )
        })
        .collect();
    format!(
        "<table class=\"cards\">\n<caption>Test cards: any expiry from this month on, any \
         3- or 4-digit security code; the issuer's one-time code is <code>{}</code></caption>\n\
         <thead><tr><th scope=\"col\">Card</th><th scope=\"col\">Outcome</th>\
         <th scope=\"col\">Submit answers</th><th scope=\"col\">payment/detail says</th></tr>\
         </thead>\n<tbody>\n{rows}</tbody>\n</table>",
        escape(&config.issuer_code)
    )
}

fn ok_detail(level: Option<AuthenticationLevel>) -> String {
    format!(
        "OK, authenticationLevel {}",
        level.map_or("NA", AuthenticationLevel::code)
    )
}

fn ko_detail(decline: Decline, level: Option<AuthenticationLevel>) -> String {
    match level {
        Some(level) => format!("KO {}, authenticationLevel {}", decline.code, level.code()),
        None => format!("KO {}", decline.code),
    }
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

    #[test]
    fn the_table_has_a_row_for_every_outcome_the_issue_names() {
        let rows = table(&ReferenceConfig::default());
        let said: String = rows
            .iter()
            .map(|r| format!("{} {}\n", r.submit, r.detail))
            .collect();
        for code in [
            "2F", "2C", "8027", "8028", "8029", "8038", "1143", "251", "433",
        ] {
            assert!(said.contains(code), "{code} in\n{said}");
        }
    }
}
