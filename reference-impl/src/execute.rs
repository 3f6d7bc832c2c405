//! A card paying a payment: the sandbox's rule for each test card
//! (authorized, sent to the issuer, declined) and the one place a payment
//! leaves `Created` with a card, shared by `payment/submit` and the payment
//! page: the check and the change happen under the payment's lock, so of
//! two attempts at once exactly one executes.

use payconf_spec::transaction::TransactionResult;
use url::Url;
use uuid::Uuid;

use payconf_spec::card::CardKind;

use crate::{
    card::{CardNumber, Expiry},
    error::{ApiError, transaction_code},
    landing::landing,
    ledger::Ending,
    money::Currency,
    notify,
    paths::ISSUER_PATH,
    state::Service,
    store::{Buyer, BuyerRedirects, PaymentState},
    timeline::{Channel, What},
};

/// What a card leads to (see [`crate::outcomes`]).
pub use crate::test_cards::CardOutcome as Outcome;

/// The card a payment is paid with, as the sandbox keeps it: masked, and
/// how its test cards treat it; from its number, or from a card token.
#[derive(Clone, Debug)]
pub struct PaidCard {
    /// First six and last four digits.
    pub masked_pan: String,
    /// How the sandbox's test cards treat it; `None`: not one of them.
    pub kind: Option<CardKind>,
    /// The card token the payment is paid with or asked for, and its
    /// card's expiry, kept with the payment for its detail.
    pub token: Option<(Box<str>, Expiry)>,
}

impl PaidCard {
    /// A card given by its number.
    pub fn of(service: &Service, number: &CardNumber) -> Self {
        Self {
            masked_pan: number.masked(),
            kind: service.config.card_kind(number),
            token: None,
        }
    }
}

impl Outcome {
    /// What the sandbox does with a card.
    pub fn for_card(service: &Service, number: &CardNumber) -> Self {
        Self::of(service.config.card_kind(number))
    }

    /// Its name, for the log.
    fn name(self) -> &'static str {
        match self {
            Self::Authorized { .. } => "Authorized",
            Self::Challenge(_) => "AuthenticationRequired",
            Self::Declined { .. } => "Declined",
        }
    }

    /// What `payment/submit` answers for it: `transactionResult`, or the
    /// code that sends the buyer to the issuer.
    fn answer(self) -> &'static str {
        match self {
            Self::Authorized { .. } => TransactionResult::Ok.word(),
            Self::Challenge(_) => transaction_code::AUTHENTICATION_REQUIRED,
            Self::Declined { .. } => TransactionResult::Ko.word(),
        }
    }

    /// How the authorization ends at submit; `None`: at the issuer.
    fn ending(self) -> Option<Ending> {
        match self {
            Self::Authorized { level } => Some(Ending::granted(level)),
            Self::Challenge(_) => None,
            Self::Declined { decline, level } => Some(Ending::refused(decline, level)),
        }
    }

    /// Whether it pays at once.
    pub fn paid(self) -> bool {
        matches!(self, Self::Authorized { .. })
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
/// (`via`) and however often. `buyer` is who pays, as the caller names
/// them; `redirects` are the buyer's addresses for
/// this payment, when the caller names any. A payment that ends here owes
/// its merchant a notification.
pub fn execute(
    service: &Service,
    token: &Uuid,
    shop_login: &str,
    card: &PaidCard,
    buyer: Option<Buyer>,
    redirects: BuyerRedirects,
    via: Channel,
) -> Result<Executed, ApiError> {
    let outcome = Outcome::of(card.kind);
    let masked_pan = card.masked_pan.clone();
    let executed = service
        .store
        .with_payment(token, |p| {
            if p.state != PaymentState::Created {
                return Err(ApiError::AlreadyProcessed);
            }
            match (outcome, outcome.ending()) {
                (Outcome::Challenge(challenge), _) => {
                    p.state = PaymentState::AwaitingAuthentication;
                    p.trail_mut().challenge = Some(challenge);
                }
                (_, Some(ending)) => {
                    let settlement = service
                        .profiles
                        .with(p.merchant, |profile| profile.merchant.settlement);
                    p.end(ending, settlement);
                }
                (_, None) => {}
            }
            service.store.keep_submitted(p);
            p.masked_pan = Some(masked_pan.as_str().into());
            p.trail_mut().channel = Some(via);
            p.record(What::Paid {
                channel: via,
                masked_pan: masked_pan.as_str().into(),
                answer: outcome.answer().into(),
            });
            p.redirect_buyer(redirects.clone());
            p.trail_mut().buyer.clone_from(&buyer);
            p.trail_mut().card_token.clone_from(&card.token);
            let href = match outcome {
                Outcome::Challenge(_) => service.own_page(ISSUER_PATH, shop_login, token),
                Outcome::Authorized { .. } | Outcome::Declined { .. } => {
                    service.profiles.with(p.merchant, |profile| {
                        landing(
                            service,
                            token,
                            shop_login,
                            &profile.pages,
                            p.buyer_redirects.as_deref(),
                            outcome.paid(),
                        )
                    })
                }
            };
            if !matches!(outcome, Outcome::Challenge(_)) {
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
