//! `@robustness` on the payment page (ROB-05): the buyer pressing pay twice
//! at once, as two tabs of one payment would. The page is opened once, its
//! card form read as the form driver reads it and filled for each of two
//! cards, and the two presses are sent as a volley ([`crate::runner::volley`]:
//! last bytes released together). Each press is followed to where it sends
//! the buyer, as evidence.
//!
//! Executions are judged by what the service recorded, never by landings:
//! the real service keeps a token valid until the payment is authorised
//! (docs/real-service.md, the payment token), so a declined press processed
//! first and a paying press after it land honestly on the failure page and
//! on the success page, with one authorization. What each volley's payment
//! records is read back (`payment/detail`): more than one authorization
//! (an `AUT` event, positive or negative: after one, the real service
//! records nothing more of it) is the payment executed twice. What a press
//! that loses answers (the result again, an "already paid" page, an error
//! page) is the service's own.

use std::collections::BTreeMap;

use cucumber::{then, when};
use url::Url;

use super::{
    card::{CardChoice, card},
    lifecycle::detail::{authorizations, read_detail_of},
    payment_page::{address, card_values, declared, open_page},
};
use crate::runner::{
    buyer::{Choice, form::served_page::ServedPage},
    exchange::{Exchange, RecordedRequest},
    steps::robustness::{fresh_payment, volley_of, volleys_line},
    volley::{PagePresses, PressRound},
    world::{Failure, PaymentWorld, Settled},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

#[when(
    expr = "the buyer presses pay twice at once on the payment page, with {card} and with {card}"
)]
async fn presses_twice(
    world: &mut PaymentWorld,
    first: CardChoice,
    second: CardChoice,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let page = declared(world)?;
            if !page.steps.is_empty() {
                return Err(Failure::harness(
                    "payconf presses pay twice by sending the page's form as the form driver reads \
                 it, so it needs the page's inputs in payment_page.fields; [[payment_page.steps]] \
                 describe a page only a browser gets through",
                ));
            }
            let cards = [
                card(world, first.0)?.clone(),
                card(world, second.0)?.clone(),
            ];
            let values = cards.map(|card| card_values(world, &page, &card));
            let rounds = world.target().robustness.volleys;
            let mut measured = Vec::new();
            let mut no_payment = None;
            let mut pressed = Vec::new();
            for round in 1..=rounds {
                let (token, payment_id) = if round == 1 {
                    let payment = world.payment()?;
                    (payment.token.clone(), payment.payment_id.clone())
                } else {
                    match fresh_payment(world).await {
                        Some(created) => created,
                        None => {
                            no_payment = Some(round);
                            break;
                        }
                    }
                };
                let start = address(world, &page, &token, payment_id.as_deref())?;
                let requests = presses(world, &start, &values).await?;
                let volley = volley_of(world, "the two presses of pay", requests).await?;
                measured.push(volley.spread);
                let mut landed = Vec::new();
                for exchange in volley.exchanges {
                    let outcome = outcome_of(world, &exchange).await;
                    landed.push((exchange, outcome));
                }
                pressed.push(PressRound {
                    round,
                    payment_id,
                    landed,
                });
            }
            world.races.presses = Some(PagePresses {
                cards: [first, second].map(CardChoice::words),
                rounds: pressed,
            });
            world.leftovers.measured.push(volleys_line(
                "two presses of pay on one payment's page, each on a fresh payment",
                "press",
                &measured,
                no_payment,
            ));
            Ok(())
        })
        .await
}

/// The page at `start` opened once, as the buyer's two tabs show it, and
/// pay pressed in each with its card's `values`: the two requests, not
/// yet sent.
async fn presses(
    world: &mut PaymentWorld,
    start: &Url,
    values: &[BTreeMap<String, String>; 2],
) -> Result<Vec<RecordedRequest>, Failure> {
    let (document, cookie) = open(world, start).await?;
    let mut requests = Vec::new();
    for values in values {
        let Some(form) = document.answer(Choice::Authenticate, values) else {
            return Err(Failure::harness(format!(
                "payconf cannot press pay on the payment page at {start} without a browser: no \
                 form of the page as served holds the inputs payment_page.fields names, with a \
                 control that sends it"
            )));
        };
        let mut request = form.request();
        if let Some(cookie) = &cookie {
            request = request.header("Cookie", cookie.clone());
        }
        requests.push(request);
    }
    Ok(requests)
}

/// Opens the page as the buyer's browser does, once for both tabs: the
/// page read within bounds, and the cookies it sets.
async fn open(
    world: &mut PaymentWorld,
    start: &Url,
) -> Result<(ServedPage, Option<String>), Failure> {
    let index = open_page(world, start.clone()).await?;
    let exchange = &world.trail.exchanges[index];
    let response = exchange
        .response
        .as_ref()
        .expect("exchange() returned Ok only for a response");
    if !(200..300).contains(&response.status) {
        return Err(world.failure(
            "the payment page of a payment just created, opened (HTTP 2xx)",
            &format!("HTTP {}", response.status),
        ));
    }
    let cookies: Vec<&str> = response
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("set-cookie"))
        .filter_map(|(_, value)| value.split(';').next())
        .map(str::trim)
        .collect();
    let cookie = (!cookies.is_empty()).then(|| cookies.join("; "));
    let document = ServedPage::read(&response.body, start).map_err(|why| {
        Failure::harness(format!(
            "payconf could not read the payment page at {start}: {why}"
        ))
    })?;
    Ok((document, cookie))
}

/// Where a press sends the buyer, followed as a buyer who answers nothing
/// more; none when its answer sends them nowhere (a page of its own).
async fn outcome_of(world: &mut PaymentWorld, exchange: &Exchange) -> Option<Url> {
    let response = exchange.response.as_ref().ok()?;
    if !(300..400).contains(&response.status) {
        return None;
    }
    let next = exchange
        .request
        .url
        .join(response.header("location")?)
        .ok()?;
    world.follow(&next).await.ok()
}

/// What the service recorded of each payment pressed: at most one
/// authorization. The first payment recorded twice fails, with its presses
/// and its detail as the evidence.
#[then("the service records at most one authorization of each payment pressed")]
async fn one_authorization_recorded(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let Some(presses) = world.races.presses.take() else {
                return Err(Failure::plain(
                    "presses of pay at once on the payment page earlier in the scenario",
                ));
            };
            let key = world.target().api_key.clone();
            for round in presses.rounds {
                let Some(payment_id) = round.payment_id.clone() else {
                    return Err(Failure::harness(format!(
                        "payconf cannot read what the service recorded of volley {}'s payment: its \
                     create answered no paymentID",
                        round.round
                    )));
                };
                read_detail_of(world, &payment_id, &key).await?;
                let answer = world.answer()?;
                let recorded = authorizations(answer);
                if recorded.len() <= 1 {
                    continue;
                }
                let said: Vec<String> = presses
                    .cards
                    .iter()
                    .zip(&round.landed)
                    .map(|(card, (_, landed))| {
                        let page = landed.as_ref().map_or("no page".to_owned(), Url::to_string);
                        format!("the press with {card} landed on {page}")
                    })
                    .collect();
                let events: Vec<String> = recorded.iter().map(|e| e.to_string()).collect();
                world
                    .trail
                    .exchanges
                    .extend(round.landed.into_iter().map(|(exchange, _)| exchange));
                return Err(world.failure(
                    "one execution of one payment: of two presses of one token at once, at most \
                 one authorization recorded in its payment/detail",
                    &format!(
                        "in volley {}, {}; its detail records {} authorizations ({}): the payment \
                     was executed twice",
                        round.round,
                        said.join(" and "),
                        recorded.len(),
                        events.join(", ")
                    ),
                ));
            }
            Ok(())
        })
        .await
}
