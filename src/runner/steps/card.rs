//! Paying with cards: the merchant's `payment/submit` calls, with the
//! target's test cards and every variation the scenarios need.

use std::str::FromStr;

use cucumber::{Parameter, when};
use payconf_spec::card::CardKind;
use reqwest::Method;
use serde_json::{Value, json};

use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    target_file::TestCard,
    world::{Failure, PaymentWorld, Settled},
};

/// This file: its steps send card data (see [`super::CARD_DATA_DEFINITIONS`]).
pub const DEFINED_IN: &str = file!();

/// Which of the target's test cards a step names: `{card}` in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "card",
    regex = "the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card|\
             the card the issuer authenticates without a challenge|\
             the card whose authentication fails|\
             the card whose issuer rejects the authentication|\
             the card whose issuer's authentication server fails|\
             the card whose issuer's authentication server times out|\
             the card without enough credit|\
             the card the issuer says has expired"
)]
pub struct CardChoice(pub CardKind);

impl CardChoice {
    /// The card in the scenario's words.
    pub fn words(self) -> &'static str {
        match self.0 {
            CardKind::NotEnrolled => "the card not enrolled in 3-D Secure",
            CardKind::Challenge => "the card enrolled in 3-D Secure",
            CardKind::Declined => "the declined card",
            CardKind::FrictionlessAuthenticated => {
                "the card the issuer authenticates without a challenge"
            }
            CardKind::AuthenticationFailed => "the card whose authentication fails",
            CardKind::IssuerRejected => "the card whose issuer rejects the authentication",
            CardKind::AcsTechnicalProblem => "the card whose issuer's authentication server fails",
            CardKind::AcsTimeout => "the card whose issuer's authentication server times out",
            CardKind::InsufficientCredit => "the card without enough credit",
            CardKind::CardExpired => "the card the issuer says has expired",
        }
    }
}

impl FromStr for CardChoice {
    type Err = UnknownCard;

    fn from_str(words: &str) -> Result<Self, Self::Err> {
        CardKind::ALL
            .into_iter()
            .map(Self)
            .find(|choice| choice.words() == words)
            .ok_or_else(|| UnknownCard(words.to_owned()))
    }
}

/// Words of a step that name no test card.
#[derive(Debug, thiserror::Error)]
#[error("no test card is called \"{0}\"")]
pub struct UnknownCard(String);

/// A field of the submit body, as a dotted path: `{field}` in a step
/// (`buyer.email`, `paymentTypeDetails.creditcard.CVV`).
#[derive(Clone, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "field",
    regex = r"(?:shopLogin|buyer|paymentTypeDetails)(?:\.[A-Za-z]+)*"
)]
pub struct SubmitField(String);

impl FromStr for SubmitField {
    type Err = std::convert::Infallible;

    fn from_str(path: &str) -> Result<Self, Self::Err> {
        Ok(Self(path.to_owned()))
    }
}

/// The target's card for a choice, or what the target file must name.
pub(super) fn card(world: &PaymentWorld, kind: CardKind) -> Result<&TestCard, Failure> {
    let target = world.target();
    // The target's road to a failed authentication may be a wrong code
    // typed with the enrolled card (`acs.failing_fields`), where it has no
    // card of its own for it.
    let paid_with = if crate::runner::needs::fails_by_code(target, kind) {
        CardKind::Challenge
    } else {
        kind
    };
    target
        .cards
        .named(paid_with)
        .ok_or_else(|| Failure::plain(format!("the target to name cards.{}", kind.target_key())))
}

/// The submit body for a card.
pub(super) fn submit_body(world: &PaymentWorld, card: &TestCard) -> Value {
    world.ctx.redactor.add_card_number(card.number.expose());
    let target = world.target();
    json!({
        "shopLogin": world.shop_login(),
        "buyer": {"name": target.buyer_name, "email": target.buyer_email},
        "paymentTypeDetails": {
            "creditcard": {
                "number": card.number.expose(),
                "expMonth": card.exp_month,
                "expYear": card.exp_year,
                "CVV": card.cvv.expose(),
                "DCC": null,
            }
        }
    })
}

/// Which token a submit carries.
enum TokenChoice {
    /// The latest payment's.
    Created,
    /// A UUID no create returned: the latest payment's token with its last
    /// group made anew when there is one, so that a service that matches
    /// tokens loosely (by a prefix, or the payment they name) is caught; or
    /// else a fresh one.
    Unknown,
    /// This exact value.
    Given(String),
    /// No `paymentToken` header.
    Nothing,
}

async fn submit(
    world: &mut PaymentWorld,
    token: TokenChoice,
    mut body: Value,
) -> Result<(), Failure> {
    if let Some(mailbox) = &world.mailbox {
        body["responseURLs"]["serverNotificationURL"] = Value::String(mailbox.url().to_string());
    }
    let token = match token {
        TokenChoice::Created => Some(world.payment()?.token.clone()),
        TokenChoice::Unknown => Some(unknown_token(world)),
        TokenChoice::Given(value) => Some(value),
        TokenChoice::Nothing => None,
    };
    let request = submit_request(world, token.as_deref(), body.to_string().into_bytes());
    world.submitted_token.clone_from(&token);
    world.last_submit_body = Some(body);
    world.receive("submitPayment", request).await.map(drop)
}

/// A token no create returned, as [`TokenChoice::Unknown`] says.
pub(super) fn unknown_token(world: &PaymentWorld) -> String {
    let fresh = uuid::Uuid::new_v4().hyphenated().to_string();
    let Some(created) = world.payments.last().map(|p| p.token.as_str()) else {
        return fresh;
    };
    match (uuid::Uuid::try_parse(created), created.rsplit_once('-')) {
        (Ok(_), Some((head, last))) => {
            let tail = &fresh[fresh.len() - last.len()..];
            if tail.eq_ignore_ascii_case(last) {
                fresh
            } else {
                format!("{head}-{tail}")
            }
        }
        _ => fresh,
    }
}

/// A submit request carrying this body, under this token.
pub(super) fn submit_request(
    world: &PaymentWorld,
    token: Option<&str>,
    body: Vec<u8>,
) -> RecordedRequest {
    let target = world.target();
    let mut request = RecordedRequest::new(Method::POST, merchant::submit_url(target))
        .header("Content-Type", "application/json")
        .body(body);
    // Whether submit also needs the key the contract does not say; the
    // merchant's server that calls it holds the key, so it sends it.
    if target.submit_authorization {
        request = merchant::with_key(request, world.api_key());
    }
    if let Some(token) = token {
        request = request.header("paymentToken", token);
    }
    request
}

async fn pay_with_changes(
    world: &mut PaymentWorld,
    choice: CardChoice,
    token: TokenChoice,
    change: impl FnOnce(&mut Value),
) -> Result<(), Failure> {
    let card = card(world, choice.0)?.clone();
    world.fails_at_issuer = crate::runner::needs::fails_by_code(world.target(), choice.0);
    let mut body = submit_body(world, &card);
    change(&mut body);
    submit(world, token, body).await
}

#[when(expr = "the buyer pays with {card}")]
async fn pays_with(world: &mut PaymentWorld, card: CardChoice) -> Result<(), Settled> {
    submit_created(world, card).await
}

/// The merchant's server submitting the payment's token, as in the
/// customised integration, after the buyer has paid some other way.
#[when(expr = "the merchant's server submits the payment's token with {card}")]
async fn merchant_submits(world: &mut PaymentWorld, card: CardChoice) -> Result<(), Settled> {
    submit_created(world, card).await
}

/// A submit of the created payment's token with `card`, as it is.
async fn submit_created(world: &mut PaymentWorld, card: CardChoice) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |_| {}).await
        })
        .await
}

#[when(expr = "the buyer pays with {card} under an unknown payment token")]
async fn pays_under_unknown_token(
    world: &mut PaymentWorld,
    card: CardChoice,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Unknown, |_| {}).await
        })
        .await
}

#[when(expr = "the buyer pays with {card} under the payment token \"{}\"")]
async fn pays_under_token(
    world: &mut PaymentWorld,
    card: CardChoice,
    token: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Given(token), |_| {}).await
        })
        .await
}

#[when(expr = "the buyer pays with {card} without a payment token")]
async fn pays_without_token(world: &mut PaymentWorld, card: CardChoice) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Nothing, |_| {}).await
        })
        .await
}

#[when(expr = "the buyer pays with {card}, returning to \"{}\" or \"{}\"")]
async fn pays_returning_to(
    world: &mut PaymentWorld,
    card: CardChoice,
    ok: String,
    ko: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["responseURLs"] = json!({"buyerOK": ok, "buyerKO": ko});
            })
            .await
        })
        .await
}

/// A submit asking for a card token for the card (`requestToken`
/// `MASKEDPAN`, the real service's standard token).
#[when(expr = "the buyer pays with {card}, asking for a card token")]
async fn pays_asking_for_a_token(
    world: &mut PaymentWorld,
    card: CardChoice,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["paymentTypeDetails"]["creditcard"]["requestToken"] = json!("MASKEDPAN");
            })
            .await
        })
        .await
}

/// A submit of the latest payment with the card token an earlier step
/// found in a detail, and no card number.
#[when("the buyer pays the new payment with the card token alone")]
async fn pays_with_the_token(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let token = world.card_token.clone().ok_or_else(|| {
                Failure::plain("a card token from an earlier step of the scenario")
            })?;
            let body = json!({
                "shopLogin": world.target().shop_login,
                "paymentTypeDetails": {"creditcard": {"token": token}},
            });
            submit(world, TokenChoice::Created, body).await
        })
        .await
}

#[when(expr = "the buyer pays with {card} for the shop \"{}\"")]
async fn pays_for_shop(
    world: &mut PaymentWorld,
    card: CardChoice,
    shop: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["shopLogin"] = Value::String(shop);
            })
            .await
        })
        .await
}

#[when(expr = "the buyer pays with {card} expiring \"{}\"\\/\"{}\"")]
async fn pays_expiring(
    world: &mut PaymentWorld,
    card: CardChoice,
    month: String,
    year: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["paymentTypeDetails"]["creditcard"]["expMonth"] = Value::String(month);
                body["paymentTypeDetails"]["creditcard"]["expYear"] = Value::String(year);
            })
            .await
        })
        .await
}

#[when(expr = "the buyer pays with {card} and the security code \"{}\"")]
async fn pays_with_security_code(
    world: &mut PaymentWorld,
    card: CardChoice,
    cvv: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["paymentTypeDetails"]["creditcard"]["CVV"] = Value::String(cvv);
            })
            .await
        })
        .await
}

#[when(expr = "the buyer pays with {card} as \"{}\" with e-mail \"{}\"")]
async fn pays_as_buyer(
    world: &mut PaymentWorld,
    card: CardChoice,
    name: String,
    email: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["buyer"] = json!({"name": name, "email": email});
            })
            .await
        })
        .await
}

/// `DCC` as clients of the real service send it: the strings `"false"` and
/// `"true"` as well as null (docs/real-service.md, RS-PATHS).
#[when(expr = "the buyer pays with {card} with DCC {string}")]
async fn pays_with_dcc(
    world: &mut PaymentWorld,
    card: CardChoice,
    dcc: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                body["paymentTypeDetails"]["creditcard"]["DCC"] = Value::String(dcc);
            })
            .await
        })
        .await
}

#[when(expr = "the buyer pays with {card} without {field}")]
async fn pays_without_field(
    world: &mut PaymentWorld,
    card: CardChoice,
    field: SubmitField,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            pay_with_changes(world, card, TokenChoice::Created, |body| {
                let mut path: Vec<&str> = field.0.split('.').collect();
                let last = path.pop().unwrap_or_default();
                let parent = path.iter().try_fold(&mut *body, |v, key| v.get_mut(*key));
                if let Some(Value::Object(object)) = parent {
                    object.remove(last);
                }
            })
            .await
        })
        .await
}

#[when(expr = "the buyer pays with the card number {string}")]
async fn pays_with_card_number(world: &mut PaymentWorld, number: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            world.ctx.redactor.add_card_number(&number);
            pay_with_changes(
                world,
                CardChoice(CardKind::NotEnrolled),
                TokenChoice::Created,
                |body| {
                    body["paymentTypeDetails"]["creditcard"]["number"] = Value::String(number);
                },
            )
            .await
        })
        .await
}

#[when("the buyer pays again with the same payment token")]
async fn pays_again(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let token = world
                .submitted_token
                .clone()
                .ok_or_else(|| Failure::plain("an earlier submit in the scenario"))?;
            let body = world
                .last_submit_body
                .clone()
                .ok_or_else(|| Failure::plain("an earlier submit in the scenario"))?;
            submit(world, TokenChoice::Given(token), body).await
        })
        .await
}
