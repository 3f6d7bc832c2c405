//! The `@robustness` profile's steps: one token submitted by many requests
//! at once, whole payments run in parallel, and generated hostile bodies
//! (see [`crate::runner::hostile`]) whose first finding is shrunk to a small body
//! and shown with a `curl` that replays it.
//!
//! The steps that send card data (the volleys of submits, whole payments
//! in parallel, generated submits) are in [`paying`]; the others only
//! create payments or judge answers.
//!
//! These steps send many requests; only those a finding rests on are kept
//! in the scenario's exchanges, so reports stay readable.

mod paying;

pub use paying::DEFINED_IN as PAYING_DEFINED_IN;
pub(crate) use paying::{volley_of, volleys_line};

use cucumber::{then, when};
use futures_util::{StreamExt, stream};
use payconf_spec::card::CardKind;
use payconf_spec::transaction::TransactionResult;
use serde_json::Value;

use super::{
    card::{card, submit_body, submit_request},
    payment::create_body,
};
use crate::runner::{
    exchange::{Exchange, RecordedRequest},
    hostile::{Generator, HostileRun, Mutation, Operation},
    merchant,
    result::HostileFinding,
    volley::{self, SubmitVolleys, load::Load},
    world::{Failure, PaymentWorld, Settled, is_json_media_type},
};

/// Requests of one step in flight at once at first, for the generated
/// bodies (the requests sent "at once" go as volleys); halved after each
/// wave in which payconf's load cost a request its answer.
const IN_FLIGHT: usize = 16;

/// The most requests a shrink sends.
const SHRINK_BUDGET: usize = 150;

/// Whether an answer executed a payment: `error.code` "0" with
/// `transactionResult` "OK", or with "8006" (an issuer authentication begun).
fn executes(exchange: &Exchange) -> bool {
    let Some(json) = json_of(exchange) else {
        return false;
    };
    let text = |pointer: &str| json.pointer(pointer).and_then(Value::as_str);
    text("/error/code") == Some("0")
        && (text("/payload/transactionResult") == Some(TransactionResult::Ok.word())
            || text("/payload/transactionErrorCode") == Some("8006"))
}

fn json_of(exchange: &Exchange) -> Option<Value> {
    let response = exchange.response.as_ref().ok()?;
    crate::runner::json::parse_ok(&response.body)
}

/// Why an answer breaks the envelope rule, if it does: it must come whole
/// within the timeout, labelled JSON, parse, and carry `error.code` and
/// `error.description` as strings.
fn envelope_problem(exchange: &Exchange) -> Option<String> {
    let response = match &exchange.response {
        Ok(response) => response,
        Err(why) => return Some(why.to_string()),
    };
    let media_type = response.header("content-type").unwrap_or("");
    if !is_json_media_type(media_type) {
        return Some(format!(
            "HTTP {} labelled {:?}, not JSON",
            response.status,
            if media_type.is_empty() {
                "nothing"
            } else {
                media_type
            }
        ));
    }
    let Ok(json) = crate::runner::json::parse(&response.body) else {
        return Some(format!(
            "HTTP {}, a body that does not parse as JSON",
            response.status
        ));
    };
    let error = json.get("error");
    let strings = error.is_some_and(|e| {
        e.get("code").is_some_and(Value::is_string)
            && e.get("description").is_some_and(Value::is_string)
    });
    (!strings).then(|| {
        format!(
            "HTTP {}, no envelope error object with string code and description",
            response.status
        )
    })
}

/// Sends generated bodies in waves, at a concurrency the target keeps up
/// with: a request payconf's load left with no answer is sent again alone
/// and judged on that answer, and the waves after it go half as wide.
/// What the load did is told on the scenario's `measured:` line.
async fn send_all(
    world: &mut PaymentWorld,
    what: &str,
    requests: Vec<RecordedRequest>,
) -> Vec<Exchange> {
    let mut load = Load::new(what, requests.len(), IN_FLIGHT);
    let mut width = IN_FLIGHT;
    let mut exchanges = Vec::with_capacity(requests.len());
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        let wave: Vec<RecordedRequest> = requests.by_ref().take(width).collect();
        let mut answers: Vec<Exchange> = stream::iter(wave)
            .map(|request| async { world.ctx.sender.send(request).await.exchange })
            .buffered(width)
            .collect()
            .await;
        world.also_sent(&answers);
        let before = load.unanswered;
        let again;
        (load, again) = volley::load::again_alone(&world.ctx.sender, &mut answers, load).await;
        world.also_sent(again.iter().map(|&at| &answers[at]));
        if load.unanswered > before {
            width = (width / 2).max(1);
        }
        exchanges.extend(answers);
    }
    if let Some(line) = load.line() {
        world.leftovers.measured.push(if width < IN_FLIGHT {
            format!("{line}; the bodies after went {width} at a time")
        } else {
            line
        });
    }
    exchanges
}

/// The last volley so far: `answers` of volley `round`, each judged once.
fn judged(answers: Vec<Exchange>, round: usize) -> SubmitVolleys {
    SubmitVolleys {
        sent: answers.len(),
        executed: answers.into_iter().filter(executes).collect(),
        round,
    }
}

#[then("at most one of those answers executes the payment")]
fn at_most_one_executes(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let Some(volleys) = world.races.volley.take() else {
            return Err(Failure::plain(
                "submits of one token sent at once earlier in the scenario",
            ));
        };
        if volleys.twice() {
            let (count, executed, round) = (volleys.sent, volleys.executed.len(), volleys.round);
            world
                .trail
                .exchanges
                .extend(volleys.executed.into_iter().take(2));
            return Err(world.failure(
                &format!(
                    "at most one of {count} submits of one token at once executing the payment"
                ),
                &format!("{executed} of them executed it, in volley {round} (the first two shown)"),
            ));
        }
        Ok(())
    })
}

/// A token still waiting for issuer authentication, submitted again: the
/// real service keeps a token valid until the payment is submitted *and
/// authorised*, and answering `8006` again executes nothing (no event, the
/// payment's state unchanged: docs/real-service.md, the payment token). So
/// only a payment made here, `transactionResult` "OK" under `error.code`
/// "0" (the issuer's authentication skipped), executes it; `8006` again is
/// the same authentication still awaited.
#[then(
    "the answer executes nothing: asking again for the issuer authentication still awaited is no execution"
)]
fn answer_pays_nothing(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let exchange = world.exchange_at(answer.exchange);
        if pays(exchange) {
            return Err(world.failure(
                "nothing executed: no transactionResult \"OK\" under error.code \"0\" for a \
                 token still waiting for issuer authentication (8006 again asks for the same \
                 authentication, and is no execution)",
                "the payment was made, the issuer's authentication skipped",
            ));
        }
        Ok(())
    })
}

/// Whether an answer made a payment: `error.code` "0" with
/// `transactionResult` "OK".
fn pays(exchange: &Exchange) -> bool {
    json_of(exchange).is_some_and(|json| {
        let text = |pointer: &str| json.pointer(pointer).and_then(Value::as_str);
        text("/error/code") == Some("0")
            && text("/payload/transactionResult") == Some(TransactionResult::Ok.word())
    })
}

#[then("the answer executes nothing")]
fn answer_executes_nothing(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let exchange = world.exchange_at(answer.exchange);
        if executes(exchange) {
            return Err(world.failure(
                "nothing executed: neither transactionResult \"OK\" nor \"8006\" under error.code \"0\"",
                "the payment was executed again",
            ));
        }
        Ok(())
    })
}

/// A create request of the merchant's, carrying this body.
fn create_request(world: &PaymentWorld, body: Vec<u8>) -> RecordedRequest {
    merchant::create_request(world.target(), body)
}

#[then("each payment has its own token and payment ID")]
fn own_tokens_and_ids(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let tokens: std::collections::BTreeSet<&str> = world
            .races
            .payments
            .iter()
            .map(|p| p.token.as_str())
            .collect();
        let ids: std::collections::BTreeSet<&str> = world
            .races
            .payments
            .iter()
            .map(|p| p.created.as_str())
            .collect();
        let count = world.races.payments.len();
        if tokens.len() != count || ids.len() != count {
            return Err(world.failure(
                &format!(
                    "{count} payments created at once, {count} tokens and {count} payment IDs"
                ),
                &format!("{} tokens and {} payment IDs", tokens.len(), ids.len()),
            ));
        }
        Ok(())
    })
}

#[then("each submit answers its own payment's ID")]
fn own_ids_answered(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let wrong: Vec<String> = world
            .races
            .payments
            .iter()
            .filter(|p| p.created != p.answered)
            .map(|p| format!("payment {:?} answered as {:?}", p.created, p.answered))
            .collect();
        if !wrong.is_empty() {
            return Err(world.failure(
                "each submit answering the paymentID its create returned",
                &format!(
                    "{} of {}: {}",
                    wrong.len(),
                    world.races.payments.len(),
                    wrong.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
                ),
            ));
        }
        Ok(())
    })
}

/// A card number that is no card: a service that pays it has executed a
/// payment from nothing.
const NOT_A_CARD: &str = "0000-NOT-A-CARD";

fn generator(world: &PaymentWorld, operation: Operation) -> Result<Generator, Failure> {
    Ok(match operation {
        Operation::Create => Generator::new(
            create_body(world),
            &["/shopLogin", "/amount", "/currency", "/shopTransactionID"],
        ),
        Operation::Submit => {
            let card = card(world, CardKind::NotEnrolled)?.clone();
            let mut body = submit_body(world, &card);
            body["paymentTypeDetails"]["creditcard"]["number"] = Value::from(NOT_A_CARD);
            Generator::new(
                body,
                &[
                    "/shopLogin",
                    "/buyer/name",
                    "/buyer/email",
                    "/paymentTypeDetails/creditcard/expMonth",
                    "/paymentTypeDetails/creditcard/expYear",
                    "/paymentTypeDetails/creditcard/CVV",
                    "/paymentTypeDetails",
                ],
            )
        }
    })
}

fn hostile_request(
    world: &PaymentWorld,
    operation: Operation,
    token: Option<&str>,
    body: Vec<u8>,
) -> RecordedRequest {
    match operation {
        Operation::Create => create_request(world, body),
        Operation::Submit => submit_request(world, token, body),
    }
}

/// What is wrong with a generated body's answer, if anything.
fn problem(operation: Operation, exchange: &Exchange) -> Option<String> {
    envelope_problem(exchange).or_else(|| {
        (operation == Operation::Submit && executes(exchange)).then(|| {
            format!("a payment executed with the card number {NOT_A_CARD:?}, which is no card")
        })
    })
}

async fn send_hostile(world: &mut PaymentWorld, operation: Operation) -> Result<(), Failure> {
    let generator = generator(world, operation)?;
    let token = match operation {
        Operation::Create => None,
        Operation::Submit => Some(world.payment()?.token.clone()),
    };
    let count = world.target().robustness.hostile_requests;
    let requests = generator
        .trees(world.ctx.seed, count)
        .iter()
        .map(|tree| {
            hostile_request(
                world,
                operation,
                token.as_deref(),
                generator.render(&tree.current()),
            )
        })
        .collect();
    let what = match operation {
        Operation::Create => "generated bodies to create",
        Operation::Submit => "generated bodies to submit",
    };
    let answers = send_all(world, what, requests).await;
    let findings = answers
        .iter()
        .enumerate()
        .filter_map(|(i, exchange)| problem(operation, exchange).map(|why| (i, why)))
        .collect();
    world.races.hostile = Some(HostileRun {
        operation,
        generator,
        token,
        findings,
        sent: count,
    });
    Ok(())
}

#[when("the merchant sends generated hostile bodies to create")]
async fn hostile_creates(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| send_hostile(world, Operation::Create).await)
        .await
}

/// A fresh payment's token, so that a shrunk submit is not refused only
/// because an earlier one used the token up.
async fn fresh_token(world: &PaymentWorld) -> Option<String> {
    fresh_payment(world).await.map(|(token, _)| token)
}

/// A payment created anew: its token, and its ID when create gave one.
pub(crate) async fn fresh_payment(world: &PaymentWorld) -> Option<(String, Option<String>)> {
    let create = create_request(world, create_body(world).to_string().into_bytes());
    let answer = world.ctx.sender.send(create).await.exchange;
    world.also_sent([&answer]);
    let json = json_of(&answer)?;
    let text = |pointer: &str| {
        json.pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some((text("/payload/paymentToken")?, text("/payload/paymentID")))
}

/// Shrinks the `index`-th body while its answer still fails; returns the
/// smallest failing mutation, its exchange and problem, and the requests sent.
async fn shrink(
    world: &PaymentWorld,
    run: &HostileRun,
    index: usize,
) -> (Mutation, Option<(Exchange, String)>, usize) {
    let mut tree = run.generator.tree(world.ctx.seed, index);
    let mut best = (tree.current(), None);
    let mut sent = 0;
    if !tree.simplify() {
        return (best.0, best.1, sent);
    }
    while sent < SHRINK_BUDGET {
        let mutation = tree.current();
        let token = match run.operation {
            Operation::Create => None,
            Operation::Submit => fresh_token(world).await.or_else(|| run.token.clone()),
        };
        let request = hostile_request(
            world,
            run.operation,
            token.as_deref(),
            run.generator.render(&mutation),
        );
        // Alone: a candidate is judged on its own answer, never on the
        // load of the other scenarios' requests.
        let exchange = world.ctx.sender.send_alone(request).await.exchange;
        world.also_sent([&exchange]);
        sent += 1;
        if let Some(why) = problem(run.operation, &exchange) {
            best = (mutation, Some((exchange, why)));
            if !tree.simplify() {
                break;
            }
        } else if !tree.complicate() {
            break;
        }
    }
    (best.0, best.1, sent)
}

#[then("every answer is JSON with the envelope, within the timeout")]
async fn every_hostile_answer_enveloped(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| judge_hostile(world).await)
        .await
}

#[then("every answer is JSON with the envelope, within the timeout, and none pays")]
async fn every_hostile_answer_enveloped_unpaid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| judge_hostile(world).await)
        .await
}

async fn judge_hostile(world: &mut PaymentWorld) -> Result<(), Failure> {
    let Some(run) = world.races.hostile.take() else {
        return Err(Failure::plain(
            "generated bodies sent earlier in the scenario",
        ));
    };
    let Some((index, first)) = run.findings.first().cloned() else {
        return Ok(());
    };
    let seed = world.ctx.seed;
    let (mutation, shrunk, requests) = shrink(world, &run, index).await;
    let (why, replay) = match shrunk {
        Some((exchange, why)) => {
            let record = exchange.record(&world.ctx.redactor);
            world.trail.exchanges.push(exchange);
            (why, Some(record.curl))
        }
        None => (first, None),
    };
    let body = run.generator.render(&mutation);
    let finding = HostileFinding {
        operation: run.operation.name().to_owned(),
        seed,
        sent: run.sent,
        failed: run.findings.len(),
        first: index,
        shrink_requests: requests,
        body_bytes: body.len(),
        body: run.generator.describe(&mutation),
        nesting: mutation.nesting(),
        problem: world.ctx.redactor.text(&why),
        replay,
    };
    let expected = match run.operation {
        Operation::Create => {
            "every answer to a generated body JSON with the envelope, within the timeout"
        }
        Operation::Submit => {
            "every answer to a generated body JSON with the envelope, within the timeout, and no payment executed"
        }
    };
    let mut actual = format!(
        "{} of {} generated bodies failed (seed {seed}; the first, #{index}, replays with --seed {seed}); \
         shrunk with {requests} more requests to a body of {} bytes ({}): {why}",
        finding.failed, finding.sent, finding.body_bytes, finding.body,
    );
    if let Some(replay) = &finding.replay {
        actual.push_str(&format!("\nreplay:   {replay}"));
    }
    world.leftovers.hostile = Some(finding);
    Err(world.failure(expected, &actual))
}
