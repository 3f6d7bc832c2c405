//! The robustness steps that send card data: one payment submitted by many
//! requests at once, many buyers paying at once, and generated submit
//! bodies. They are apart so that `@production-safe` scenarios can be
//! checked against their definitions ([`crate::runner::steps::CARD_DATA_DEFINITIONS`]).

use cucumber::when;

use super::{Operation, one_flow, send_at_once, send_hostile};
use crate::runner::{
    steps::card::{CardChoice, card, submit_body, submit_request},
    world::{Failure, PaymentWorld},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

#[when("the buyer's payment is submitted by many requests at once")]
async fn submitted_at_once(world: &mut PaymentWorld) -> Result<(), Failure> {
    let token = world.payment()?.token.clone();
    let card = card(world, CardChoice::Frictionless)?.clone();
    let body = submit_body(world, &card).to_string().into_bytes();
    let count = world.target().robustness.concurrent_submits;
    let requests = (0..count)
        .map(|_| submit_request(world, Some(&token), body.clone()))
        .collect();
    world.volley = send_at_once(world, requests).await;
    Ok(())
}

#[when("many buyers each pay a payment of their own at once")]
async fn many_buyers(world: &mut PaymentWorld) -> Result<(), Failure> {
    let card = card(world, CardChoice::Frictionless)?.clone();
    let body = submit_body(world, &card).to_string().into_bytes();
    let count = world.target().robustness.parallel_flows;
    let flows =
        futures_util::future::join_all((0..count).map(|_| one_flow(world, body.clone()))).await;
    let mut done = Vec::new();
    for flow in flows {
        done.push(flow.map_err(|why| world.failure("a whole payment: create, then submit", &why))?);
    }
    world.flows = done;
    Ok(())
}

#[when("the buyer's payment is submitted with generated hostile bodies")]
async fn hostile_submits(world: &mut PaymentWorld) -> Result<(), Failure> {
    send_hostile(world, Operation::Submit).await
}
