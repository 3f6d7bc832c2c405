//! The sandbox's test cards and what each leads to: a card's outcome at
//! submit ([`CardOutcome`]), by its behaviour in the configuration, and the
//! one table of cards and outcomes ([`table`]) that the documentation, the
//! payment page and the back-office show. The real service publishes no
//! test cards for its 3-D Secure outcomes (docs/real-service.md, RS-TEST-CARDS:
//! "Decline cards and issuer-page codes: not documented"), so the numbers
//! are the sandbox's; the codes and levels are [`crate::outcomes`]'.

use payconf_spec::card::CardKind;
use payconf_spec::transaction::TransactionResult;
use serde::Serialize;

use crate::{
    config::ReferenceConfig,
    outcomes::{
        ABANDONED, ACS_TECHNICAL_PROBLEM, AUTHENTICATION_FAILED, AuthenticationLevel, CARD_EXPIRED,
        Challenge, DENIED, Decline, INSUFFICIENT_CREDIT, ISSUER_REJECTED, UNKNOWN_CARD,
    },
    pages::escape,
};

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
    pub fn of(behaviour: Option<CardKind>) -> Self {
        let frictionless = Some(AuthenticationLevel::Frictionless);
        let declined = |decline, level| Self::Declined { decline, level };
        match behaviour {
            Some(CardKind::NotEnrolled) => Self::Authorized { level: None },
            Some(CardKind::FrictionlessAuthenticated) => Self::Authorized {
                level: frictionless,
            },
            Some(CardKind::Challenge) => Self::Challenge(Challenge::Passes),
            Some(CardKind::AuthenticationFailed) => Self::Challenge(Challenge::Fails),
            Some(CardKind::AcsTimeout) => Self::Challenge(Challenge::TimesOut),
            Some(CardKind::Declined) => declined(DENIED, None),
            Some(CardKind::IssuerRejected) => declined(ISSUER_REJECTED, None),
            Some(CardKind::AcsTechnicalProblem) => declined(ACS_TECHNICAL_PROBLEM, None),
            Some(CardKind::InsufficientCredit) => declined(INSUFFICIENT_CREDIT, frictionless),
            Some(CardKind::CardExpired) => declined(CARD_EXPIRED, frictionless),
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
                CardOutcome::Authorized { level } => {
                    (TransactionResult::Ok.word().to_owned(), ok_detail(level))
                }
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
        .find(|c| c.behaviour == CardKind::Challenge)
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
                behaviour: CardKind::Challenge.name(),
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
