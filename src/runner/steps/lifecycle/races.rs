//! The payment's life after submit under requests at once (`@robustness
//! @lifecycle`): refunds of one payment that together exceed what was
//! settled, and a capture and a cancel of one authorised payment. Each is
//! sent as volleys (last bytes released together, [`crate::runner::volley`]),
//! on a fresh payment each, until one volley shows the race or
//! `robustness.volleys` have gone.

use std::time::Duration;

use cucumber::{then, when};

use super::{Operation, Portion, operate, operation_request, paid, pay_at, written};
use crate::runner::{
    exchange::{Exchange, RecordedRequest},
    steps::{card::CardChoice, robustness::volleys_line},
    target_file::SettlementMode,
    volley,
    world::{
        Failure, LifecyclePayment, LifecycleRace as Raced, PaymentWorld, Settled, checked,
        checked_async,
    },
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
            == Some("OK")
}

/// A payment of the separated shop, paid and, with `captured`, captured whole.
async fn fresh(world: &mut PaymentWorld, captured: bool) -> Result<LifecyclePayment, Failure> {
    pay_at(
        world,
        Some(SettlementMode::Separated),
        CardChoice::Frictionless,
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

async fn volley_of(
    world: &PaymentWorld,
    requests: Vec<RecordedRequest>,
) -> Result<volley::Volley, Failure> {
    let volley = volley::send(world.target(), &world.ctx.patient, requests)
        .await
        .map_err(|why| {
            Failure::harness(format!(
                "payconf could not send the requests at once: {why}"
            ))
        })?;
    world.also_sent(&volley.warm);
    world.also_sent(&volley.exchanges);
    Ok(volley)
}

#[when("the merchant refunds more than half of the settled payment by many requests at once")]
async fn refunds_at_once(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = checked_async(async {
        let settings = world.target().robustness;
        let mut spreads: Vec<Option<Duration>> = Vec::new();
        for round in 1..=settings.volleys {
            let payment = if round == 1 {
                paid(world)?.clone()
            } else {
                fresh(world, true).await?
            };
            let each = payment.settled / 2 + 1;
            let requests = (0..settings.concurrent_submits)
                .map(|_| operation_request(world, Operation::Refund, Some(each)))
                .collect::<Result<Vec<_>, _>>()?;
            let volley = volley_of(world, requests).await?;
            spreads.push(volley.spread);
            let refunded = volley.exchanges.iter().filter(|e| done(e)).count();
            world.raced = Some(Raced {
                round,
                sent: settings.concurrent_submits,
                each,
                settled: payment.settled,
                done: (refunded, 0),
            });
            if refunded > 1 {
                break;
            }
        }
        let what = format!(
            "{} refunds of one settled payment, each of more than half of it",
            settings.concurrent_submits
        );
        world
            .measured
            .push(volleys_line(&what, "request", &spreads, None));
        Ok(())
    })
    .await;
    world.settle(checked)
}

#[then("the refunds done add up to at most the settled amount")]
fn refunds_within_settled(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = checked(|| {
        let raced = world
            .raced
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
    });
    world.settle(checked)
}

#[when("the merchant captures and cancels the payment at once")]
async fn captures_and_cancels_at_once(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = checked_async(async {
        let settings = world.target().robustness;
        let mut spreads: Vec<Option<Duration>> = Vec::new();
        for round in 1..=settings.volleys {
            let payment = if round == 1 {
                paid(world)?.clone()
            } else {
                fresh(world, false).await?
            };
            let requests = vec![
                operation_request(world, Operation::Capture, Some(payment.amount))?,
                operation_request(world, Operation::Cancel, None)?,
            ];
            let volley = volley_of(world, requests).await?;
            spreads.push(volley.spread);
            let captured = usize::from(volley.exchanges.first().is_some_and(done));
            let cancelled = usize::from(volley.exchanges.get(1).is_some_and(done));
            world.raced = Some(Raced {
                round,
                sent: 2,
                each: payment.amount,
                settled: 0,
                done: (captured, cancelled),
            });
            if captured + cancelled != 1 {
                break;
            }
        }
        world.measured.push(volleys_line(
            "a capture and a cancel of one authorised payment",
            "request",
            &spreads,
            None,
        ));
        Ok(())
    })
    .await;
    world.settle(checked)
}

#[then("exactly one of the capture and the cancel is done")]
fn exactly_one_done(world: &mut PaymentWorld) -> Result<(), Settled> {
    let checked = checked(|| {
        let raced = world
            .raced
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
    });
    world.settle(checked)
}
