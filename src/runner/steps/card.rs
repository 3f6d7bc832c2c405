//! Paying with cards: the merchant's `payment/submit` calls, with the
//! target's test cards and every variation the scenarios need.

use std::str::FromStr;

use cucumber::{Parameter, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    target_file::TestCard,
    world::{Failure, PaymentWorld, Settled, checked_async},
};

/// Every file of step definitions that send card data (a card number and
/// its security code): this one, the lifecycle's payments, robustness's
/// volleys, the payment page's and its presses at once. No definition elsewhere does, so a scenario is safe to run in
/// production when none of its steps is defined here (a test checks
/// `@production-safe` scenarios with cucumber's own step lookup).
pub const CARD_DATA_DEFINITIONS: [&str; 6] = [
    file!(),
    super::lifecycle::DEFINED_IN,
    super::lifecycle::RACES_DEFINED_IN,
    super::robustness::PAYING_DEFINED_IN,
    super::payment_page::DEFINED_IN,
    super::page_presses::DEFINED_IN,
];

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
pub enum CardChoice {
    /// `cards.frictionless`.
    Frictionless,
    /// `cards.three_ds`.
    ThreeDSecure,
    /// `cards.declined`.
    Declined,
    /// `cards.frictionless_authenticated`.
    FrictionlessAuthenticated,
    /// `cards.authentication_failed`.
    AuthenticationFailed,
    /// `cards.issuer_rejected`.
    IssuerRejected,
    /// `cards.acs_technical_problem`.
    AcsTechnicalProblem,
    /// `cards.acs_timeout`.
    AcsTimeout,
    /// `cards.insufficient_credit`.
    InsufficientCredit,
    /// `cards.card_expired`.
    CardExpired,
}

impl CardChoice {
    /// Every card a step can name.
    pub const ALL: [Self; 10] = [
        Self::Frictionless,
        Self::ThreeDSecure,
        Self::Declined,
        Self::FrictionlessAuthenticated,
        Self::AuthenticationFailed,
        Self::IssuerRejected,
        Self::AcsTechnicalProblem,
        Self::AcsTimeout,
        Self::InsufficientCredit,
        Self::CardExpired,
    ];

    /// The card in the scenario's words.
    pub fn words(self) -> &'static str {
        match self {
            Self::Frictionless => "the card not enrolled in 3-D Secure",
            Self::ThreeDSecure => "the card enrolled in 3-D Secure",
            Self::Declined => "the declined card",
            Self::FrictionlessAuthenticated => {
                "the card the issuer authenticates without a challenge"
            }
            Self::AuthenticationFailed => "the card whose authentication fails",
            Self::IssuerRejected => "the card whose issuer rejects the authentication",
            Self::AcsTechnicalProblem => "the card whose issuer's authentication server fails",
            Self::AcsTimeout => "the card whose issuer's authentication server times out",
            Self::InsufficientCredit => "the card without enough credit",
            Self::CardExpired => "the card the issuer says has expired",
        }
    }

    /// Its name in the target file's `[cards]`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Frictionless => "frictionless",
            Self::ThreeDSecure => "three_ds",
            Self::Declined => "declined",
            Self::FrictionlessAuthenticated => "frictionless_authenticated",
            Self::AuthenticationFailed => "authentication_failed",
            Self::IssuerRejected => "issuer_rejected",
            Self::AcsTechnicalProblem => "acs_technical_problem",
            Self::AcsTimeout => "acs_timeout",
            Self::InsufficientCredit => "insufficient_credit",
            Self::CardExpired => "card_expired",
        }
    }
}

impl FromStr for CardChoice {
    type Err = String;

    fn from_str(words: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|choice| choice.words() == words)
            .ok_or_else(|| format!("no test card is called {words:?}"))
    }
}

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
pub(super) fn card(world: &PaymentWorld, choice: CardChoice) -> Result<&TestCard, Failure> {
    let target = world.target();
    // The target's road to a failed authentication may be a wrong code
    // typed with the enrolled card (`acs.failing_fields`), where it has no
    // card of its own for it.
    let name = if crate::runner::needs::fails_by_code(target, choice.name()) {
        CardChoice::ThreeDSecure.name()
    } else {
        choice.name()
    };
    target
        .cards
        .named(name)
        .ok_or_else(|| Failure::plain(format!("the target to name cards.{}", choice.name())))
}

/// The submit body for a card.
pub(super) fn submit_body(world: &PaymentWorld, card: &TestCard) -> Value {
    world.ctx.redactor.add_card_number(card.number.expose());
    let target = world.target();
    json!({
        "shopLogin": target.shop_login,
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
        request = merchant::with_key(request, &target.api_key);
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
    let card = card(world, choice)?.clone();
    world.fails_at_issuer = crate::runner::needs::fails_by_code(world.target(), choice.name());
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
    let checked =
        checked_async(async { pay_with_changes(world, card, TokenChoice::Created, |_| {}).await })
            .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} under an unknown payment token")]
async fn pays_under_unknown_token(
    world: &mut PaymentWorld,
    card: CardChoice,
) -> Result<(), Settled> {
    let checked =
        checked_async(async { pay_with_changes(world, card, TokenChoice::Unknown, |_| {}).await })
            .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} under the payment token \"{}\"")]
async fn pays_under_token(
    world: &mut PaymentWorld,
    card: CardChoice,
    token: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Given(token), |_| {}).await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} without a payment token")]
async fn pays_without_token(world: &mut PaymentWorld, card: CardChoice) -> Result<(), Settled> {
    let checked =
        checked_async(async { pay_with_changes(world, card, TokenChoice::Nothing, |_| {}).await })
            .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card}, returning to \"{}\" or \"{}\"")]
async fn pays_returning_to(
    world: &mut PaymentWorld,
    card: CardChoice,
    ok: String,
    ko: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["responseURLs"] = json!({"buyerOK": ok, "buyerKO": ko});
        })
        .await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} for the shop \"{}\"")]
async fn pays_for_shop(
    world: &mut PaymentWorld,
    card: CardChoice,
    shop: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["shopLogin"] = Value::String(shop);
        })
        .await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} expiring \"{}\"\\/\"{}\"")]
async fn pays_expiring(
    world: &mut PaymentWorld,
    card: CardChoice,
    month: String,
    year: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["paymentTypeDetails"]["creditcard"]["expMonth"] = Value::String(month);
            body["paymentTypeDetails"]["creditcard"]["expYear"] = Value::String(year);
        })
        .await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} and the security code \"{}\"")]
async fn pays_with_security_code(
    world: &mut PaymentWorld,
    card: CardChoice,
    cvv: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["paymentTypeDetails"]["creditcard"]["CVV"] = Value::String(cvv);
        })
        .await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} as \"{}\" with e-mail \"{}\"")]
async fn pays_as_buyer(
    world: &mut PaymentWorld,
    card: CardChoice,
    name: String,
    email: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["buyer"] = json!({"name": name, "email": email});
        })
        .await
    })
    .await;
    world.settle(checked)
}

/// `DCC` as clients of the real service send it: the strings `"false"` and
/// `"true"` as well as null (docs/real-service.md, RS-PATHS).
#[when(expr = "the buyer pays with {card} with DCC {string}")]
async fn pays_with_dcc(
    world: &mut PaymentWorld,
    card: CardChoice,
    dcc: String,
) -> Result<(), Settled> {
    let checked = checked_async(async {
        pay_with_changes(world, card, TokenChoice::Created, |body| {
            body["paymentTypeDetails"]["creditcard"]["DCC"] = Value::String(dcc);
        })
        .await
    })
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with {card} without {field}")]
async fn pays_without_field(
    world: &mut PaymentWorld,
    card: CardChoice,
    field: SubmitField,
) -> Result<(), Settled> {
    let checked = checked_async(async {
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
    .await;
    world.settle(checked)
}

#[when(expr = "the buyer pays with the card number {string}")]
async fn pays_with_card_number(world: &mut PaymentWorld, number: String) -> Result<(), Settled> {
    let checked = checked_async(async {
        world.ctx.redactor.add_card_number(&number);
        pay_with_changes(
            world,
            CardChoice::Frictionless,
            TokenChoice::Created,
            |body| {
                body["paymentTypeDetails"]["creditcard"]["number"] = Value::String(number);
            },
        )
        .await
    })
    .await;
    world.settle(checked)
}

#[when("the buyer pays again with the same payment token")]
async fn pays_again(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = checked_async(async {
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
    .await;
    world.settle(checked)
}
