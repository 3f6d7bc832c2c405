//! Reading the payment with `payment/detail` (by its ID, or by the
//! merchant's reference) and judging what it says: the result, the state,
//! the events (flat, or each wrapped as `{"event": ...}`), and a unified
//! shop's own settlement, awaited within `lifecycle.settles_within_secs`.

use payconf_spec::transaction::TransactionResult;
use std::time::{Duration, Instant};

use cucumber::{then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::{hundredths, lifecycle, paid, written};
use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    steps::payment::shown,
    target_file::Secret,
    world::{Answer, Failure, PaymentWorld, Settled},
};

/// How often a payment's detail is read while waiting for its settlement.
const SETTLEMENT_POLL: Duration = Duration::from_millis(250);

/// Reads the payment's detail by its `paymentID` (GET, with its shop's key).
pub(super) async fn read_detail(world: &mut PaymentWorld) -> Result<(), Failure> {
    let payment = paid(world)?.clone();
    read_detail_of(world, &payment.payment_id, &payment.api_key).await
}

/// Reads the detail of the payment `payment_id` names (a segment of the
/// path, escaped: it is the target's), with `api_key`.
pub(in crate::runner::steps) async fn read_detail_of(
    world: &mut PaymentWorld,
    payment_id: &str,
    api_key: &Secret,
) -> Result<(), Failure> {
    let mut url = world.target().api_url("/api/v1/payment/detail");
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.push(payment_id);
    }
    let request = merchant::with_key(RecordedRequest::new(Method::GET, url), api_key);
    world.receive("getPaymentDetail", request).await.map(drop)
}

#[when("the merchant reads the payment's detail by its payment ID")]
async fn reads_detail(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = read_detail(world).await;
    world.settle(checked)
}

#[when("the merchant looks the payment up by its shop transaction ID")]
async fn looks_up_detail(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let payment = paid(world)?.clone();
            let body = json!({
                "shopLogin": payment.shop_login,
                "shopTransactionID": payment.shop_transaction_id,
            });
            let path = lifecycle(world)?.path("/api/v1/payment/detail");
            let request = merchant::keyed_post(
                world.target().api_url(&path),
                &payment.api_key,
                body.to_string(),
            );
            world
                .receive("searchPaymentDetail", request)
                .await
                .map(drop)
        })
        .await
}

/// The words a target may give the result a scenario names: any of
/// [`TransactionResult::words`] (the real service's detail writes `APPROVED`
/// for `OK`, `DECLINED` for `KO`, `XX` for `PENDING`: docs/real-service.md,
/// §1.1); none for a word that names no result.
fn result_words(result: &str) -> &'static [&'static str] {
    TransactionResult::of_word(result).map_or(&[], TransactionResult::words)
}

#[then(expr = "the detail's transaction result is {string}")]
fn detail_result(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let result = answer.at("/payload/transactionResult");
        let words = result_words(&expected);
        if !result
            .and_then(Value::as_str)
            .is_some_and(|found| words.contains(&found))
        {
            return Err(world.failure(
                &format!("payload.transactionResult {}", words.join(" or ")),
                &shown(result),
            ));
        }
        Ok(())
    })
}

#[then("the detail names the payment")]
fn detail_names_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let expected = paid(world)?.payment_id.clone();
        let answer = world.answer()?;
        let found = answer.at("/payload/paymentID");
        if found.and_then(Value::as_str) != Some(expected.as_str()) {
            return Err(world.failure(
                &format!("payload.paymentID {expected:?}, the payment's"),
                &shown(found),
            ));
        }
        Ok(())
    })
}

#[then(expr = "the payment's state is one of {string}")]
fn state_is_one_of(world: &mut PaymentWorld, states: String) -> Result<(), Settled> {
    world.check(|world| {
        let allowed: Vec<&str> = states.split(',').map(str::trim).collect();
        let answer = world.answer()?;
        let state = answer.at("/payload/transactionState");
        match state.and_then(Value::as_str) {
            Some(found) if allowed.contains(&found) => Ok(()),
            _ => Err(world.failure(
                &format!("payload.transactionState one of {}", allowed.join(", ")),
                &shown(state),
            )),
        }
    })
}

#[then(expr = "the payment's state is {string}")]
fn state_is(world: &mut PaymentWorld, state: String) -> Result<(), Settled> {
    state_is_one_of(world, state)
}

/// The events of a detail answer, each unwrapped from `{"event": ...}`
/// when the target wraps them.
fn events(answer: &Answer) -> Vec<&Value> {
    answer
        .at("/payload/events")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| item.get("event").unwrap_or(item))
                .collect()
        })
        .unwrap_or_default()
}

/// The authorizations a detail answer records (its `AUT` events, positive
/// or negative), each as `AUT <amount>`.
pub(in crate::runner::steps) fn authorizations(answer: &Answer) -> Vec<String> {
    events(answer)
        .into_iter()
        .filter(|event| event.get("eventtype").and_then(Value::as_str) == Some("AUT"))
        .map(|event| {
            let amount = event
                .get("eventamount")
                .and_then(Value::as_str)
                .unwrap_or("?");
            format!("AUT {amount}")
        })
        .collect()
}

/// Whether an event is of `kind` and `amount` (hundredths).
fn event_is(event: &Value, kind: &str, amount: u64) -> bool {
    event.get("eventtype").and_then(Value::as_str) == Some(kind)
        && event
            .get("eventamount")
            .and_then(Value::as_str)
            .and_then(hundredths)
            == Some(amount)
}

#[then("the payment's first event is an authorization of its amount")]
fn first_event_is_authorization(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let amount = paid(world)?.amount;
        let answer = world.answer()?;
        let events = events(answer);
        match events.first() {
            Some(event) if event_is(event, "AUT", amount) => Ok(()),
            first => Err(world.failure(
                &format!("events beginning with AUT of {}", written(amount)),
                &shown(first.copied()),
            )),
        }
    })
}

#[then("the payment's last event is of that amount")]
fn last_event_of_amount(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let payment = paid(world)?;
        let amount = payment
            .last_amount
            .ok_or_else(|| Failure::plain("an operation done earlier in the scenario"))?;
        let answer = world.answer()?;
        let state = answer.str_at("/payload/transactionState").unwrap_or("");
        let events = events(answer);
        match events.last() {
            Some(event) if event_is(event, state, amount) => Ok(()),
            last => Err(world.failure(
                &format!(
                    "the last event of the state's kind ({state}) and of {}",
                    written(amount)
                ),
                &shown(last.copied()),
            )),
        }
    })
}

#[then("the payment is settled by the service within the target's settlement time")]
async fn settled_by_the_service(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let within = lifecycle(world)?.settles_within;
            let started = Instant::now();
            loop {
                read_detail(world).await?;
                let answer = world.answer()?;
                let amount = paid(world)?.amount;
                let settled = events(answer)
                    .iter()
                    .any(|event| event_is(event, "MOV", amount));
                if settled {
                    if let Some(state) = world.lifecycle.as_mut() {
                        state.settled = amount;
                    }
                    return Ok(());
                }
                if started.elapsed() >= within {
                    let state = shown(answer.at("/payload/transactionState"));
                    return Err(world.failure(
                        &format!(
                            "a MOV event of the payment's amount within {} s \
                         (lifecycle.settles_within_secs)",
                            within.as_secs()
                        ),
                        &format!("transactionState {state} after {} s", within.as_secs()),
                    ));
                }
                tokio::time::sleep(SETTLEMENT_POLL).await;
            }
        })
        .await
}
