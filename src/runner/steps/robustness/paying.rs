//! The robustness steps that send card data: one payment submitted by
//! volleys of requests at once, many buyers paying at once, and generated
//! submit bodies. They are apart so that `@production-safe` scenarios can
//! be checked against their definitions ([`crate::runner::steps::CARD_DATA_DEFINITIONS`]).
//!
//! Requests "at once" go as volleys ([`crate::runner::volley`]): last bytes
//! released together over connections opened beforehand, with the volley lock
//! to themselves.

use payconf_spec::card::CardKind;
use std::time::Duration;

use cucumber::when;
use serde_json::Value;

use super::{Operation, create_request, fresh_token, json_of, judged, send_hostile};
use crate::runner::{
    exchange::{Exchange, RecordedRequest},
    steps::{
        card::{card, submit_body, submit_request},
        payment::create_body,
    },
    volley::{
        self, Volley,
        load::{self, Load},
        spreads,
    },
    world::{Failure, ParallelPayment, PaymentWorld, Settled},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

/// Sends a volley of `what` (in words, for the error), keeping every
/// exchange for `--har`.
pub(crate) async fn volley_of(
    world: &PaymentWorld,
    what: &str,
    requests: Vec<RecordedRequest>,
) -> Result<Volley, Failure> {
    let volley = volley::send(world.target(), &world.ctx.sender, requests)
        .await
        .map_err(|why| Failure::harness(format!("payconf could not send {what} at once: {why}")))?;
    world.also_sent(&volley.warm);
    world.also_sent(&volley.exchanges);
    Ok(volley)
}

/// The scenario's `measured:` line for its volleys: how many of `what`
/// went, how close together each volley's `unit`s were, and why they
/// stopped early if they did (no payment for volley `no_payment`).
pub(crate) fn volleys_line(
    what: &str,
    unit: &str,
    measured: &[Option<Duration>],
    no_payment: Option<usize>,
) -> String {
    let sent = measured.len();
    let mut line = format!(
        "{sent} {} of {what}; between the first and the last {unit}: {}",
        if sent == 1 { "volley" } else { "volleys" },
        spreads(measured),
    );
    if let Some(round) = no_payment {
        line.push_str(&format!(
            "; no more volleys: the create for volley {round} gave no payment token"
        ));
    }
    line
}

/// How the volleys went out, for the scenario's `measured:` line.
fn how_sent(protocol: &str, held: usize, count: usize) -> String {
    let (connections, last) = if protocol == "HTTP/2" {
        ("one connection", "final frame")
    } else {
        ("a connection each", "last byte")
    };
    let gate = if held == count {
        format!("every request's {last} released together")
    } else {
        format!(
            "{held} of {count} requests' {last}s released together (the others had not gone out)"
        )
    };
    format!("over {protocol} on {connections} opened beforehand, {gate}")
}

#[when("the buyer's payment is submitted by many requests at once")]
async fn submitted_at_once(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let card = card(world, CardKind::NotEnrolled)?.clone();
            let body = submit_body(world, &card).to_string().into_bytes();
            let settings = world.target().robustness;
            let mut token = Some(world.payment()?.token.clone());
            let mut measured: Vec<Option<Duration>> = Vec::new();
            let mut fewest_held = settings.concurrent_submits;
            let mut protocol = "HTTP/1.1";
            let mut no_payment = None;
            let mut load = Load::new("submits of one token", 0, settings.concurrent_submits);
            for round in 1..=settings.volleys {
                let token = match token.take() {
                    Some(token) => token,
                    None => match fresh_token(world).await {
                        Some(token) => token,
                        None => {
                            no_payment = Some(round);
                            break;
                        }
                    },
                };
                let requests = (0..settings.concurrent_submits)
                    .map(|_| submit_request(world, Some(&token), body.clone()))
                    .collect();
                let volley = volley_of(world, "the submits", requests).await?;
                measured.push(volley.spread);
                fewest_held = fewest_held.min(volley.held);
                protocol = volley.protocol;
                load.sent += volley.exchanges.len();
                load.note(&volley.exchanges);
                let volleys = judged(volley.exchanges, round);
                let twice = volleys.twice();
                world.races.volley = Some(volleys);
                if twice {
                    break;
                }
            }
            let what = format!(
                "{} submits of one token, each on a fresh payment, {}",
                settings.concurrent_submits,
                how_sent(protocol, fewest_held, settings.concurrent_submits),
            );
            world
                .leftovers
                .measured
                .push(volleys_line(&what, "request", &measured, no_payment));
            // A submit with no answer executes nothing: nothing to send again.
            world.leftovers.measured.extend(load.line());
            Ok(())
        })
        .await
}

/// A field of a JSON answer, as text.
fn text(json: &Value, pointer: &str) -> Option<String> {
    json.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Why a payment of the volley cannot be followed: what its operation's
/// answer lacked.
#[derive(Debug, thiserror::Error)]
enum Unfollowed {
    /// No answer, at the volley's load and sent again alone.
    #[error("{operation} got {said}")]
    NoAnswer {
        operation: &'static str,
        said: String,
    },
    /// An answer that could not be used.
    #[error("{operation} got no usable answer: {why}")]
    Unusable {
        operation: &'static str,
        why: String,
    },
    /// An answer that is not JSON.
    #[error("{operation} gave no JSON answer")]
    NotJson { operation: &'static str },
    /// A JSON answer without the field.
    #[error("{operation} gave no {field}")]
    Missing {
        operation: &'static str,
        field: &'static str,
    },
}

/// (token, payment ID) of a create's answer; `load` says why there is
/// no answer at all.
fn created(exchange: &Exchange, load: &Load) -> Result<(String, String), Unfollowed> {
    let json = json_of_answer(exchange, load, "create")?;
    let field = |field: &'static str| {
        text(&json, &format!("/payload/{field}")).ok_or(Unfollowed::Missing {
            operation: "create",
            field,
        })
    };
    Ok((field("paymentToken")?, field("paymentID")?))
}

/// The payment ID a submit's answer names.
fn answered(exchange: &Exchange, load: &Load) -> Result<String, Unfollowed> {
    let json = json_of_answer(exchange, load, "submit")?;
    text(&json, "/payload/paymentID").ok_or(Unfollowed::Missing {
        operation: "submit",
        field: "paymentID",
    })
}

/// The JSON of an answer, or why there is none: no answer at all, at load
/// and alone, or an answer that is not JSON.
fn json_of_answer(
    exchange: &Exchange,
    load: &Load,
    operation: &'static str,
) -> Result<Value, Unfollowed> {
    match &exchange.response {
        Err(alone) if load::unanswered(exchange) => Err(Unfollowed::NoAnswer {
            operation,
            said: load.still_none(alone),
        }),
        Err(why) => Err(Unfollowed::Unusable {
            operation,
            why: why.to_string(),
        }),
        Ok(_) => json_of(exchange).ok_or(Unfollowed::NotJson { operation }),
    }
}

/// A volley's requests that got no answer at its load, sent again alone:
/// its exchanges, each judged on the answer it got, and the load told.
async fn answered_alone(world: &mut PaymentWorld, volley: &mut Volley, what: &str) -> Load {
    let sent = volley.exchanges.len();
    let start = Load::new(what, sent, sent);
    let (load, again) = load::again_alone(&world.ctx.sender, &mut volley.exchanges, start).await;
    world.also_sent(again.iter().map(|&at| &volley.exchanges[at]));
    if let Some(line) = load.line() {
        world.leftovers.measured.push(line);
    }
    load
}

#[when("many buyers each pay a payment of their own at once")]
async fn many_buyers(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let card = card(world, CardKind::NotEnrolled)?.clone();
            let body = submit_body(world, &card).to_string().into_bytes();
            let count = world.target().robustness.parallel_flows;
            let whole = "a whole payment: create, then submit";
            let creates = (0..count)
                .map(|_| create_request(world, create_body(world).to_string().into_bytes()))
                .collect();
            let mut creates = volley_of(world, "the creates", creates).await?;
            let load = answered_alone(world, &mut creates, "creates").await;
            let mut payments = Vec::with_capacity(count);
            for exchange in &creates.exchanges {
                payments.push(
                    created(exchange, &load)
                        .map_err(|why| world.failure(whole, &why.to_string()))?,
                );
            }
            let submits = payments
                .iter()
                .map(|(token, _)| submit_request(world, Some(token), body.clone()))
                .collect();
            let mut submits = volley_of(world, "the submits", submits).await?;
            let load = answered_alone(world, &mut submits, "submits").await;
            let mut paid = Vec::with_capacity(count);
            for ((token, id), exchange) in payments.into_iter().zip(&submits.exchanges) {
                let answered = answered(exchange, &load)
                    .map_err(|why| world.failure(whole, &why.to_string()))?;
                paid.push(ParallelPayment {
                    token,
                    created: id,
                    answered,
                });
            }
            world.races.payments = paid;
            world.leftovers.measured.push(format!(
                "{count} creates at once, then their {count} submits at once, {}; \
             between the first and the last request: {} for the creates, {} for the submits",
                how_sent(creates.protocol, creates.held.min(submits.held), count),
                spreads(&[creates.spread]),
                spreads(&[submits.spread]),
            ));
            Ok(())
        })
        .await
}

#[when("the buyer's payment is submitted with generated hostile bodies")]
async fn hostile_submits(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| send_hostile(world, Operation::Submit).await)
        .await
}
