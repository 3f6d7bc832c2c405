//! 3-D Secure outcomes as the real service names them (`@outcome`,
//! reference profile): the detail of the payment the buyer paid, whatever
//! its end, and what it says of the refusal (`transactionErrorCode`) and of
//! the buyer's authentication (`threeDS.authenticationResult`).
//!
//! Reading written down (docs/readings.md): the real service's document
//! names the object `AuthenticationResult` in its prose and writes every
//! other payload field in camel case, so `authenticationResult` and
//! `AuthenticationResult` are both taken.

use cucumber::{then, when};
use serde_json::Value;

use super::detail::read_detail_of;
use crate::runner::{
    steps::payment::shown,
    world::{Failure, PaymentWorld, Settled},
};

#[when("the merchant reads the detail of the payment the buyer paid")]
async fn reads_detail_of_paid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let payment_id = world
                .payment()?
                .payment_id
                .clone()
                .ok_or_else(|| Failure::plain("create to have answered a paymentID"))?;
            let api_key = world.target().api_key.clone();
            read_detail_of(world, &payment_id, &api_key).await
        })
        .await
}

/// A standard card token keeps the card's first six and last four digits
/// around letters of the service's (docs/real-service.md, RS-CARD-TOKENS:
/// `541238AFAGHA1118`); never the whole number. Kept for the scenario's
/// later submit.
#[then("the detail holds the card token, keeping the card's first six and last four digits")]
fn detail_holds_the_token(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let token = answer.at("/payload/token").and_then(Value::as_str);
        let number = world
            .last_submit_body
            .as_ref()
            .and_then(|body| body.pointer("/paymentTypeDetails/creditcard/number"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let kept = token.is_some_and(|token| {
            number.len() >= 10
                && token.len() > 10
                && token.starts_with(&number[..6])
                && token.ends_with(&number[number.len() - 4..])
                && !token.contains(&number[6..number.len() - 4])
        });
        if !kept {
            return Err(world.failure(
                "payload.token: the card's first six and last four digits around the service's own characters",
                &shown(answer.at("/payload/token")),
            ));
        }
        world.card_token = token.map(str::to_owned);
        Ok(())
    })
}

#[then(expr = "the detail's transaction error code is {string}")]
fn detail_error_code(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let code = answer.at("/payload/transactionErrorCode");
        if code.and_then(Value::as_str) != Some(expected.as_str()) {
            return Err(world.failure(
                &format!("payload.transactionErrorCode {expected:?}"),
                &shown(code),
            ));
        }
        Ok(())
    })
}

#[then(expr = "the detail's authentication level is {string}")]
fn detail_authentication_level(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let level = ["authenticationResult", "AuthenticationResult"]
            .into_iter()
            .find_map(|name| answer.at(&format!("/payload/threeDS/{name}/authenticationLevel")));
        if level.and_then(Value::as_str) != Some(expected.as_str()) {
            return Err(world.failure(
                &format!("payload.threeDS.authenticationResult.authenticationLevel {expected:?}"),
                &shown(level),
            ));
        }
        Ok(())
    })
}
