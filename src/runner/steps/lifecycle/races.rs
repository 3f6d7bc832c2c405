//! The payment's life after submit under requests at once (`@robustness
//! @lifecycle`): refunds of one payment that together exceed what was
//! settled, and a capture and a cancel of one authorised payment. Each is
//! sent as volleys (last bytes released together, [`crate::runner::volley`]),
//! on a fresh payment each, until one volley shows the race or
//! `robustness.volleys` have gone.

use payconf_spec::card::CardKind;
use payconf_spec::transaction::TransactionResult;
use std::time::Duration;

use cucumber::{then, when};

use super::{Operation, Portion, operate, operation_request, paid, pay_at, written};
use crate::runner::{
    exchange::{Exchange, RecordedRequest},
    steps::{
        card::CardChoice,
        robustness::{volley_of, volleys_line},
    },
    target_file::SettlementMode,
    world::{Failure, LifecyclePayment, LifecycleRace as Raced, PaymentWorld, Settled},
};

/// Where these definitions are: their volleys pay fresh payments with
/// card data (see [`crate::runner::steps::CARD_DATA_DEFINITIONS`]).
pub const DEFINED_IN: &str = file!();

/// Whether an answer says the operation was done.
fn done(exchange: &Exchange) -> bool {
    let Ok(response) = &exchange.response else {
        return false;
    };
    let Some(json) = crate::runner::json::parse_ok(&response.body) else {
        return false;
    };
    json.pointer("/error/code").and_then(|v| v.as_str()) == Some("0")
        && json
            .pointer("/payload/transactionResult")
            .and_then(|v| v.as_str())
            == Some(TransactionResult::Ok.word())
}

/// A payment of the separated shop, paid and, with `captured`, captured whole.
async fn fresh(world: &mut PaymentWorld, captured: bool) -> Result<LifecyclePayment, Failure> {
    pay_at(
        world,
        Some(SettlementMode::Separated),
        CardChoice(CardKind::NotEnrolled),
    )
    .await?;
    if captured {
        operate(world, Operation::Capture, Some(Portion::Whole)).await?;
    }
    let payment = paid(world)?.clone();
    if captured && payment.settled == 0 {
        return Err(world.failure(
            "a capture of the whole payment done, to refund it",
            "the capture was not done",
        ));
    }
    Ok(payment)
}

/// Sends volleys of the requests `volley` makes of the scenario's payment
/// (then of a fresh one each, `captured` whole or not), `robustness.volleys`
/// of them, until one shows the race (`shows`); leaves the last in
/// `world.races.lifecycle` and the spreads in a `measured:` line about `what`.
async fn race(
    world: &mut PaymentWorld,
    captured: bool,
    what: &str,
    volley: impl Fn(&PaymentWorld, &LifecyclePayment) -> Result<(Vec<RecordedRequest>, u64), Failure>,
    judge: impl Fn(&[Exchange]) -> (usize, usize),
    shows: impl Fn(&Raced) -> bool,
) -> Result<(), Failure> {
    let rounds = world.target().robustness.volleys;
    let mut spreads: Vec<Option<Duration>> = Vec::new();
    for round in 1..=rounds {
        let payment = if round == 1 {
            paid(world)?.clone()
        } else {
            fresh(world, captured).await?
        };
        let (requests, each) = volley(world, &payment)?;
        let sent = requests.len();
        let answers = volley_of(world, "the requests", requests).await?;
        spreads.push(answers.spread);
        let raced = Raced {
            round,
            sent,
            each,
            settled: payment.settled,
            done: judge(&answers.exchanges),
        };
        let found = shows(&raced);
        world.races.lifecycle = Some(raced);
        if found {
            break;
        }
    }
    world
        .leftovers
        .measured
        .push(volleys_line(what, "request", &spreads, None));
    Ok(())
}

#[when("the merchant refunds more than half of the settled payment by many requests at once")]
async fn refunds_at_once(world: &mut PaymentWorld) -> Result<(), Settled> {
    let count = world.target().robustness.concurrent_submits;
    let what = format!("{count} refunds of one settled payment, each of more than half of it");
    let checked = race(
        world,
        true,
        &what,
        |world, payment| {
            let each = payment.settled / 2 + 1;
            let requests = (0..count)
                .map(|_| operation_request(world, Operation::Refund, Some(each)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((requests, each))
        },
        |answers| (answers.iter().filter(|e| done(e)).count(), 0),
        |raced| raced.done.0 > 1,
    )
    .await;
    world.settle(checked)
}

#[then("the refunds done add up to at most the settled amount")]
fn refunds_within_settled(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let raced = world
            .races
            .lifecycle
            .clone()
            .ok_or_else(|| Failure::plain("refunds sent at once earlier in the scenario"))?;
        let total = raced.each * raced.done.0 as u64;
        if total > raced.settled {
            return Err(world.failure(
                &format!(
                    "refunds done adding up to at most the settled {}",
                    written(raced.settled)
                ),
                &format!(
                    "{} of {} refunds of {} done at once in volley {}: {} refunded",
                    raced.done.0,
                    raced.sent,
                    written(raced.each),
                    raced.round,
                    written(total)
                ),
            ));
        }
        Ok(())
    })
}

#[when("the merchant captures and cancels the payment at once")]
async fn captures_and_cancels_at_once(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = race(
        world,
        false,
        "a capture and a cancel of one authorised payment",
        |world, payment| {
            let requests = vec![
                operation_request(world, Operation::Capture, Some(payment.amount))?,
                operation_request(world, Operation::Cancel, None)?,
            ];
            Ok((requests, payment.amount))
        },
        |answers| {
            let done_at = |i: usize| usize::from(answers.get(i).is_some_and(done));
            (done_at(0), done_at(1))
        },
        |raced| raced.done.0 + raced.done.1 != 1,
    )
    .await;
    world.settle(checked)
}

#[then("exactly one of the capture and the cancel is done")]
fn exactly_one_done(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let raced = world
            .races
            .lifecycle
            .clone()
            .ok_or_else(|| Failure::plain("a capture and a cancel sent at once earlier"))?;
        let (captured, cancelled) = raced.done;
        if captured + cancelled != 1 {
            let said = |n: usize| if n == 1 { "done" } else { "not done" };
            return Err(world.failure(
                "exactly one of them done: the payment settled or its authorization deleted",
                &format!(
                    "in volley {}, the capture {} and the cancel {}",
                    raced.round,
                    said(captured),
                    said(cancelled)
                ),
            ));
        }
        Ok(())
    })
}
