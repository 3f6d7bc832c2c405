//! What a shop's own checkout asks of the service after create
//! (`@methods`; docs/real-service.md, RS-METHODS): the payment's methods,
//! one method's detail and the data for the buyer, each with the payment's
//! token, the currency-conversion check of a card (`check/DCC/`), and the
//! shop's methods with the API key (`shop/methods/{shopLogin}`). The
//! facts give the fields; the readings (written beside each step) take only
//! what a shop relies on: where each method sends the buyer, which payment
//! an answer is about, its amount and currency.

use cucumber::{then, when};
use reqwest::Method;
use serde_json::{Value, json};
use url::Url;

use super::hundredths;
use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    steps::{
        card::{CardChoice, card},
        payment::shown,
        redirect::carries_payment,
    },
    world::{Failure, PaymentWorld, Settled},
};

/// Where these definitions are: `check/DCC/` sends a card number.
pub const DEFINED_IN: &str = file!();

/// The language the buyer's page asks in: the real service's 2, English.
const LANGUAGE: &str = "2";

/// The scenario's payment: its token and `paymentID`.
fn payment(world: &PaymentWorld) -> Result<(String, String), Failure> {
    let payment = world.payment()?;
    let id = payment
        .payment_id
        .clone()
        .ok_or_else(|| Failure::plain("create to have answered a paymentID"))?;
    Ok((payment.token.clone(), id))
}

/// A GET of the API with the payment's token, as a buyer's page sends it.
async fn with_token(
    world: &mut PaymentWorld,
    operation: &'static str,
    segments: &[&str],
    token: &str,
) -> Result<(), Failure> {
    let mut url = world.target().api_url(segments[0]);
    if let Ok(mut path) = url.path_segments_mut() {
        path.extend(&segments[1..]);
    }
    let request = RecordedRequest::new(Method::GET, url).header("paymentToken", token);
    world.receive(operation, request).await.map(drop)
}

#[when("the buyer's page asks for the payment's methods")]
async fn asks_for_methods(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let (token, id) = payment(world)?;
            with_token(
                world,
                "getPaymentMethods",
                &["/api/v1/payment/methods", &id, LANGUAGE],
                &token,
            )
            .await
        })
        .await
}

/// The methods the last answer lists, a failure when it lists none.
fn methods(world: &PaymentWorld) -> Result<Vec<Value>, Failure> {
    let answer = world.answer()?;
    match answer
        .at("/payload/paymentMethod")
        .and_then(Value::as_array)
    {
        Some(methods) if !methods.is_empty() => Ok(methods.clone()),
        _ => Err(world.failure(
            "payload.paymentMethod, the methods the payment may be paid with: at least one",
            &shown(answer.at("/payload/paymentMethod")),
        )),
    }
}

/// An address as the answer writes it, absolute or from the base URL.
fn address(world: &PaymentWorld, href: &str) -> Option<Url> {
    world.target().base_url.join(href).ok()
}

/// Reading: a method's address sends the buyer to a page of the service's
/// own host that names the payment (as REF-3DS-01 reads the issuer's: one
/// query value the shop login, another the token), whatever its path.
fn names_payment(world: &PaymentWorld, href: Option<&str>, token: &str) -> Result<(), Failure> {
    let shop_login = &world.target().shop_login;
    let base = &world.target().base_url;
    let url = href.and_then(|href| address(world, href));
    let names = url.as_ref().is_some_and(|url| {
        url.origin() == base.origin() && carries_payment(url, shop_login, token)
    });
    if names {
        return Ok(());
    }
    Err(world.failure(
        &format!(
            "userRedirect.href: a page on {} whose query values are this payment's shop login \
             and token",
            base.origin().ascii_serialization()
        ),
        href.unwrap_or("none"),
    ))
}

/// Each method with its name and its `paymentType`.
fn named_and_typed(world: &PaymentWorld, method: &Value) -> Result<(), Failure> {
    let text = |name: &str| method[name].as_str().is_some_and(|t| !t.trim().is_empty());
    if text("name") && text("paymentType") {
        return Ok(());
    }
    Err(world.failure(
        "each method with its name and its paymentType",
        &method.to_string(),
    ))
}

#[when("the merchant's server asks for the shop's payment methods")]
async fn asks_for_shop_methods(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let shop_login = world.target().shop_login.clone();
            let mut url = world.target().api_url("/api/v1/shop/methods");
            if let Ok(mut path) = url.path_segments_mut() {
                path.push(&shop_login);
            }
            let api_key = world.target().api_key.clone();
            let request = merchant::with_key(RecordedRequest::new(Method::GET, url), &api_key);
            world.receive("getShopMethods", request).await.map(drop)
        })
        .await
}

#[then("each method listed has a name and a type")]
fn each_listed_method_is_named(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        for method in methods(world)? {
            named_and_typed(world, &method)?;
        }
        Ok(())
    })
}

#[then(
    "each method has a name and a type, and an address on the service's own host naming the payment"
)]
fn each_method_leads_to_the_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let (token, _) = payment(world)?;
        for method in methods(world)? {
            named_and_typed(world, &method)?;
            names_payment(world, method["userRedirect"]["href"].as_str(), &token)?;
        }
        Ok(())
    })
}

#[when("the buyer's page asks for the detail of the payment's first method")]
async fn asks_for_method_detail(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let (token, id) = payment(world)?;
            let first = methods(world)?
                .first()
                .and_then(|m| m["paymentType"].as_str().map(str::to_owned))
                .ok_or_else(|| Failure::plain("the first method's paymentType"))?;
            with_token(
                world,
                "getPaymentMethodDetail",
                &["/api/v1/payment/methods/detail", &id, &first],
                &token,
            )
            .await
        })
        .await
}

/// The answer is about the scenario's payment: its `paymentID`.
fn about_the_payment(world: &PaymentWorld, pointer: &str) -> Result<(), Failure> {
    let (_, id) = payment(world)?;
    let answer = world.answer()?;
    if answer.str_at(pointer) != Some(id.as_str()) {
        return Err(world.failure(
            &format!(
                "{}: the payment's paymentID, {id}",
                &pointer[1..].replace('/', ".")
            ),
            &shown(answer.at(pointer)),
        ));
    }
    Ok(())
}

#[then(
    "the method's detail names the payment, with an address on the service's own host naming it"
)]
fn detail_names_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        about_the_payment(world, "/payload/paymentID")?;
        let (token, _) = payment(world)?;
        let href = world
            .answer()?
            .str_at("/payload/userRedirect/href")
            .map(str::to_owned);
        names_payment(world, href.as_deref(), &token)
    })
}

#[when("the buyer's page asks for the data for the buyer of the payment")]
async fn asks_for_data_for_buyer(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let (token, id) = payment(world)?;
            with_token(
                world,
                "getDataForBuyer",
                &["/api/v1/payment/dataForBuyer", &id],
                &token,
            )
            .await
        })
        .await
}

/// Reading: the amount is the one create was given, whatever its zeros
/// (`1`, `1.0`, `1.00`); the currency the same code.
#[then("the data for the buyer holds the payment's amount and currency")]
fn data_holds_amount(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        about_the_payment(world, "/payload/paymentID")?;
        let target = world.target();
        let (amount, currency) = (target.amount.clone(), target.currency.clone());
        let answer = world.answer()?;
        let given = answer.str_at("/payload/amount").and_then(hundredths);
        let said_currency = answer.str_at("/payload/currency");
        if given != hundredths(&amount) || said_currency != Some(currency.as_str()) {
            return Err(world.failure(
                &format!("payload.amount {amount} and payload.currency {currency}, create's"),
                &shown(answer.at("/payload")),
            ));
        }
        Ok(())
    })
}

#[when(expr = "the merchant's server checks the currency conversion of {card} for the payment")]
async fn checks_dcc(world: &mut PaymentWorld, choice: CardChoice) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let (token, _) = payment(world)?;
            let number = card(world, choice.0)?.number.clone();
            world.ctx.redactor.add_card_number(number.expose());
            let body = json!({
                "shopLogin": world.target().shop_login,
                "creditcard": {"number": number.expose()},
                "languageId": LANGUAGE,
            });
            let url = world.target().operation_url("/api/v1/check/DCC/");
            let request = RecordedRequest::new(Method::POST, url)
                .header("paymentToken", &token)
                .header("Content-Type", "application/json")
                .body(body.to_string());
            world.receive("checkDcc", request).await.map(drop)
        })
        .await
}

/// Reading: the offer is about the payment the token names, and says
/// whether the card is eligible (`True` or `False`, whatever the case; the
/// real service's other values are not known).
#[then("the conversion offer names the payment and says whether the card is eligible")]
fn offer_names_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        about_the_payment(world, "/payload/paymentID")?;
        let answer = world.answer()?;
        let eligible = answer.str_at("/payload/DCC/eligible");
        if !eligible
            .is_some_and(|e| e.eq_ignore_ascii_case("true") || e.eq_ignore_ascii_case("false"))
        {
            return Err(world.failure(
                "payload.DCC.eligible \"True\" or \"False\"",
                &shown(answer.at("/payload/DCC/eligible")),
            ));
        }
        Ok(())
    })
}
