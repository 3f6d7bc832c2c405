//! A card paying a payment: the sandbox's rule for each test card
//! (authorized, sent to the issuer, declined) and the one place a payment
//! leaves `Created` with a card, shared by `payment/submit` and the payment
//! page: the check and the change happen under the payment's lock, so of
//! two attempts at once exactly one executes.

use url::Url;
use uuid::Uuid;

use crate::{
    card::CardNumber,
    config::CardBehaviour,
    error::{ApiError, transaction_code},
    landing::landing,
    money::Currency,
    notify,
    paths::ISSUER_PATH,
    state::Service,
    store::{BuyerRedirects, PaymentState},
    timeline::{Channel, What},
};

/// What a card leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Paid at once.
    Authorized,
    /// The card is enrolled in 3-D Secure: the buyer goes to the issuer.
    AuthenticationRequired,
    /// Refused, with the transaction's code and description.
    Declined {
        /// `transactionErrorCode`.
        code: &'static str,
        /// `transactionErrorDescription`.
        description: &'static str,
    },
}

impl Outcome {
    /// What the sandbox does with a card.
    pub fn of(service: &Service, number: &CardNumber) -> Self {
        match service.config.card_behaviour(number) {
            Some(CardBehaviour::Frictionless) => Self::Authorized,
            Some(CardBehaviour::ThreeDs) => Self::AuthenticationRequired,
            Some(CardBehaviour::Declined) => Self::Declined {
                code: transaction_code::DECLINED,
                description: transaction_code::DECLINED_DESCRIPTION,
            },
            None => Self::Declined {
                code: transaction_code::UNKNOWN_CARD,
                description: transaction_code::UNKNOWN_CARD_DESCRIPTION,
            },
        }
    }

    /// Its name, for the log.
    fn name(self) -> &'static str {
        match self {
            Self::Authorized => "Authorized",
            Self::AuthenticationRequired => "AuthenticationRequired",
            Self::Declined { .. } => "Declined",
        }
    }

    /// What `payment/submit` answers for it: `transactionResult`, or the
    /// code that sends the buyer to the issuer.
    fn answer(self) -> &'static str {
        match self {
            Self::Authorized => "OK",
            Self::AuthenticationRequired => transaction_code::AUTHENTICATION_REQUIRED,
            Self::Declined { .. } => "KO",
        }
    }
}

/// A payment a card has paid (or started to, at the issuer).
#[derive(Debug)]
pub struct Executed {
    /// What the card led to.
    pub outcome: Outcome,
    /// The payment's `paymentID`.
    pub payment_id: u64,
    /// The merchant's reference.
    pub shop_transaction_id: Box<str>,
    /// The payment's currency.
    pub currency: Currency,
    /// The card, first six and last four digits.
    pub masked_pan: String,
    /// Where the buyer goes next: the issuer, or where the payment ends.
    pub href: Url,
}

/// Executes the payment `token` names with a card: once, whoever asks
/// (`via`) and however often. `redirects` are the buyer's addresses for
/// this payment, when the caller names any. A payment that ends here owes
/// its merchant a notification.
pub fn execute(
    service: &Service,
    token: &Uuid,
    shop_login: &str,
    number: &CardNumber,
    redirects: BuyerRedirects,
    via: Channel,
) -> Result<Executed, ApiError> {
    let outcome = Outcome::of(service, number);
    let masked_pan = number.masked();
    let executed = service
        .store
        .with_payment(token, |p| {
            if p.state != PaymentState::Created {
                return Err(ApiError::AlreadyProcessed);
            }
            match outcome {
                Outcome::AuthenticationRequired => p.state = PaymentState::AwaitingAuthentication,
                Outcome::Authorized | Outcome::Declined { .. } => {
                    let settlement = service
                        .profiles
                        .with(p.merchant, |profile| profile.merchant.settlement);
                    p.end(outcome == Outcome::Authorized, settlement);
                }
            }
            service.store.keep_submitted(p);
            p.masked_pan = Some(masked_pan.as_str().into());
            p.trail_mut().channel = Some(via);
            p.record(What::Paid {
                channel: via,
                masked_pan: masked_pan.as_str().into(),
                answer: outcome.answer().into(),
            });
            if redirects != BuyerRedirects::default() {
                p.buyer_redirects = Some(Box::new(redirects.clone()));
            }
            let href = match outcome {
                Outcome::AuthenticationRequired => service.own_page(ISSUER_PATH, shop_login, token),
                Outcome::Authorized | Outcome::Declined { .. } => {
                    service.profiles.with(p.merchant, |profile| {
                        landing(
                            service,
                            token,
                            shop_login,
                            &profile.pages,
                            p.buyer_redirects.as_deref(),
                            outcome == Outcome::Authorized,
                        )
                    })
                }
            };
            if outcome != Outcome::AuthenticationRequired {
                p.record(What::BuyerSent {
                    to: href.as_str().into(),
                });
                notify::outcome(service, token, p);
            }
            Ok((p.id, p.shop_transaction_id.clone(), p.currency, href))
        })
        .map_err(ApiError::from)??;
    let (payment_id, shop_transaction_id, currency, href) = executed;
    tracing::info!(
        payment_id,
        card = masked_pan.as_str(),
        outcome = outcome.name(),
        via = via.name(),
        "payment executed"
    );
    Ok(Executed {
        outcome,
        payment_id,
        shop_transaction_id,
        currency,
        masked_pan,
        href,
    })
}
