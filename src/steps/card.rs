//! Paying with cards: the merchant's `payment/submit` calls, with the
//! target's test cards and every variation the scenarios need.

use cucumber::{given, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::SUBMIT_PATH;
use crate::{
    exchange::RecordedRequest,
    target::TestCard,
    world::{Failure, PaymentWorld},
};

pub(super) fn card<'a>(world: &'a PaymentWorld, name: &str) -> Result<&'a TestCard, Failure> {
    let cards = &world.target().cards;
    let (card, setting) = match name {
        "the card not enrolled in 3-D Secure" => (&cards.frictionless, "cards.frictionless"),
        "the card enrolled in 3-D Secure" => (&cards.three_ds, "cards.three_ds"),
        _ => (&cards.declined, "cards.declined"),
    };
    card.as_ref()
        .ok_or_else(|| Failure::plain(&format!("the target to name {setting}")))
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

async fn submit(world: &mut PaymentWorld, token: TokenChoice, body: Value) -> Result<(), Failure> {
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
fn unknown_token(world: &PaymentWorld) -> String {
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
    let mut request = RecordedRequest::new(Method::POST, target.api_url(SUBMIT_PATH))
        .header("Content-Type", "application/json")
        .body(body);
    // Whether submit also needs the key the contract does not say; the
    // merchant's server that calls it holds the key, so it sends it.
    if target.submit_authorization {
        request = request.header(
            "Authorization",
            format!("apikey {}", target.api_key.expose()),
        );
    }
    if let Some(token) = token {
        request = request.header("paymentToken", token);
    }
    request
}

async fn pay_with_changes(
    world: &mut PaymentWorld,
    card_name: &str,
    token: TokenChoice,
    change: impl FnOnce(&mut Value),
) -> Result<(), Failure> {
    let card = card(world, card_name)?.clone();
    let mut body = submit_body(world, &card);
    change(&mut body);
    submit(world, token, body).await
}

#[when(
    regex = r"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card)$"
)]
async fn pays_with(world: &mut PaymentWorld, card_name: String) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |_| {}).await
}

#[when(
    regex = r"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) under an unknown payment token$"
)]
async fn pays_under_unknown_token(
    world: &mut PaymentWorld,
    card_name: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Unknown, |_| {}).await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) under the payment token "(.*)"$"#
)]
async fn pays_under_token(
    world: &mut PaymentWorld,
    card_name: String,
    token: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Given(token), |_| {}).await
}

#[when(
    regex = r"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) without a payment token$"
)]
async fn pays_without_token(world: &mut PaymentWorld, card_name: String) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Nothing, |_| {}).await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card), returning to "(.*)" or "(.*)"$"#
)]
async fn pays_returning_to(
    world: &mut PaymentWorld,
    card_name: String,
    ok: String,
    ko: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        body["responseURLs"] = json!({"buyerOK": ok, "buyerKO": ko});
    })
    .await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) for the shop "(.*)"$"#
)]
async fn pays_for_shop(
    world: &mut PaymentWorld,
    card_name: String,
    shop: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        body["shopLogin"] = Value::String(shop);
    })
    .await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) expiring "(.*)"/"(.*)"$"#
)]
async fn pays_expiring(
    world: &mut PaymentWorld,
    card_name: String,
    month: String,
    year: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        body["paymentTypeDetails"]["creditcard"]["expMonth"] = Value::String(month);
        body["paymentTypeDetails"]["creditcard"]["expYear"] = Value::String(year);
    })
    .await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) and the security code "(.*)"$"#
)]
async fn pays_with_security_code(
    world: &mut PaymentWorld,
    card_name: String,
    cvv: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        body["paymentTypeDetails"]["creditcard"]["CVV"] = Value::String(cvv);
    })
    .await
}

#[when(
    regex = r#"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) as "(.*)" with e-mail "(.*)"$"#
)]
async fn pays_as_buyer(
    world: &mut PaymentWorld,
    card_name: String,
    name: String,
    email: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        body["buyer"] = json!({"name": name, "email": email});
    })
    .await
}

#[when(
    regex = r"^the buyer pays with (the card not enrolled in 3-D Secure|the card enrolled in 3-D Secure|the declined card) without ((?:shopLogin|buyer|paymentTypeDetails)(?:\.[A-Za-z]+)*)$"
)]
async fn pays_without_field(
    world: &mut PaymentWorld,
    card_name: String,
    field: String,
) -> Result<(), Failure> {
    pay_with_changes(world, &card_name, TokenChoice::Created, |body| {
        let mut path: Vec<&str> = field.split('.').collect();
        let last = path.pop().unwrap_or_default();
        let parent = path.iter().try_fold(&mut *body, |v, key| v.get_mut(*key));
        if let Some(Value::Object(object)) = parent {
            object.remove(last);
        }
    })
    .await
}

#[when(expr = "the buyer pays with the card number {string}")]
async fn pays_with_card_number(world: &mut PaymentWorld, number: String) -> Result<(), Failure> {
    world.ctx.redactor.add_card_number(&number);
    pay_with_changes(
        world,
        "the card not enrolled in 3-D Secure",
        TokenChoice::Created,
        |body| {
            body["paymentTypeDetails"]["creditcard"]["number"] = Value::String(number);
        },
    )
    .await
}

#[when("the buyer pays again with the same payment token")]
async fn pays_again(world: &mut PaymentWorld) -> Result<(), Failure> {
    let token = world
        .submitted_token
        .clone()
        .ok_or_else(|| Failure::plain("an earlier submit in the scenario"))?;
    let body = world
        .last_submit_body
        .clone()
        .ok_or_else(|| Failure::plain("an earlier submit in the scenario"))?;
    submit(world, TokenChoice::Given(token), body).await
}

#[given("the payment's token has expired")]
async fn token_has_expired(world: &mut PaymentWorld) -> Result<(), Failure> {
    let lifetime = world
        .target()
        .token_lifetime
        .ok_or_else(|| Failure::plain("the target to name token_lifetime_secs"))?;
    tokio::time::sleep(lifetime + std::time::Duration::from_millis(100)).await;
    Ok(())
}
