//! The buyer on the target's standard payment page (`[payment_page]`): the
//! page opened at its declared address for the scenario's payment, a card
//! typed into the inputs `payment_page.fields` names (through the issuer's
//! page after, for an enrolled card), or the alternative method chosen and
//! approved, with no `payment/submit` from the merchant; and the page
//! opened for a payment the service does not hold.
//!
//! The journeys are the issuer drivers' ([`crate::runner::buyer`]): the
//! run's driver answers each page in turn, and where the buyer lands is
//! judged by the redirect steps ([`super::redirect`]).

use std::collections::BTreeMap;

use cucumber::{then, when};
use reqwest::Method;
use url::Url;

use super::{
    card::{CardChoice, card, unknown_token},
    redirect::configured_values,
};
use crate::runner::{
    buyer::{
        Answer, Choice, Page,
        form::{self, served_page::ServedPage},
    },
    exchange::RecordedRequest,
    target_file::{CardField, IssuerStep, PaymentPage, PaymentRefs, TestCard},
    world::{Failure, PaymentWorld, Settled},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

/// The target's payment page, or what the target file must declare.
pub(super) fn declared(world: &PaymentWorld) -> Result<PaymentPage, Failure> {
    world
        .target()
        .payment_page
        .clone()
        .ok_or_else(|| Failure::plain("the target to declare its [payment_page]"))
}

/// The page's address for the scenario's latest payment.
fn page_address(world: &PaymentWorld, page: &PaymentPage) -> Result<Url, Failure> {
    let payment = world.payment()?;
    address(world, page, &payment.token, payment.payment_id.as_deref())
}

pub(super) fn address(
    world: &PaymentWorld,
    page: &PaymentPage,
    token: &str,
    payment_id: Option<&str>,
) -> Result<Url, Failure> {
    if payment_id.is_none() && page.address.contains("{paymentID}") {
        return Err(Failure::plain(
            "a paymentID from create, which payment_page.address takes",
        ));
    }
    let refs = PaymentRefs {
        token,
        payment_id: payment_id.unwrap_or_default(),
        shop_login: &world.target().shop_login,
    };
    page.address_for(refs)
        .map_err(|e| Failure::plain(format!("payment_page.address to make an address: {e}")))
}

/// What the buyer types on the page for `card`: by the page's input names,
/// or by the card fields' own names when steps describe the page.
pub(super) fn card_values(
    world: &PaymentWorld,
    page: &PaymentPage,
    card: &TestCard,
) -> BTreeMap<String, String> {
    let redactor = &world.ctx.redactor;
    redactor.add_card_number(card.number.expose());
    let target = world.target();
    let value = |field: CardField| match field {
        CardField::Number => card.number.expose().to_owned(),
        CardField::ExpMonth => card.exp_month.clone(),
        CardField::ExpYear => card.exp_year.clone(),
        CardField::Expiry => format!("{}/{}", card.exp_month, card.exp_year),
        CardField::Cvv => card.cvv.expose().to_owned(),
        CardField::Name => target.buyer_name.clone(),
        CardField::Email => target.buyer_email.clone(),
    };
    // A security code is masked after its usual names; under a name of the
    // page's own, it is masked wherever it stands alone.
    if let Some(input) = page.fields.get(&CardField::Cvv) {
        if redactor.text(&format!("{input}=917")).contains("917") {
            redactor.add_secret(card.cvv.expose());
        }
    }
    if page.steps.is_empty() {
        page.fields
            .iter()
            .map(|(field, input)| (input.clone(), value(*field)))
            .collect()
    } else {
        CardField::ALL
            .into_iter()
            .map(|field| (field.name().to_owned(), value(field)))
            .collect()
    }
}

/// Drives the buyer from the payment page through `answers` and keeps
/// where they land.
async fn journey(
    world: &mut PaymentWorld,
    start: &Url,
    answers: &[Answer<'_>],
) -> Result<(), Failure> {
    let landed = world.answer_pages(answers, start).await;
    world.landing = Some(landed?);
    Ok(())
}

/// Pays `choice` on the page, through the issuer's page when `issuer`.
async fn pays_on_page(
    world: &mut PaymentWorld,
    choice: CardChoice,
    issuer: bool,
) -> Result<(), Failure> {
    let page = declared(world)?;
    let card = card(world, choice.0)?.clone();
    let start = page_address(world, &page)?;
    let values = card_values(world, &page, &card);
    let acs = configured_values(world);
    let ctx = std::sync::Arc::clone(&world.ctx);
    let mut answers = vec![Answer {
        page: Page::Payment,
        choice: Choice::Authenticate,
        values: &values,
        steps: &page.steps,
    }];
    if issuer {
        answers.push(Answer {
            page: Page::Issuer,
            choice: Choice::Authenticate,
            values: &acs,
            steps: &ctx.target.acs.steps,
        });
    }
    journey(world, &start, &answers).await
}

#[when(expr = "the buyer pays on the payment page with {card}")]
async fn pays_on_the_page(world: &mut PaymentWorld, choice: CardChoice) -> Result<(), Settled> {
    let checked = pays_on_page(world, choice, false).await;
    world.settle(checked)
}

#[when(
    expr = "the buyer pays on the payment page with {card}, completing the issuer authentication"
)]
async fn pays_on_the_page_through_the_issuer(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let checked = pays_on_page(world, choice, true).await;
    world.settle(checked)
}

#[when("the buyer chooses the alternative method on the payment page and approves the payment")]
async fn approves_alternative(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let page = declared(world)?;
            let method = page.alternative.clone().ok_or_else(|| {
                Failure::plain("the target to declare [payment_page.alternative]")
            })?;
            let start = page_address(world, &page)?;
            let choose = [IssuerStep::click(&method.choose)];
            let none = BTreeMap::new();
            let approval: BTreeMap<String, String> = method
                .fields
                .iter()
                .map(|(name, value)| (name.clone(), value.expose().to_owned()))
                .collect();
            let answers = [
                Answer {
                    page: Page::MethodChoice,
                    choice: Choice::Authenticate,
                    values: &none,
                    steps: &choose,
                },
                Answer {
                    page: Page::MethodApproval,
                    choice: Choice::Authenticate,
                    values: &approval,
                    steps: &method.steps,
                },
            ];
            journey(world, &start, &answers).await
        })
        .await
}

/// Opens the page at `url` as a buyer's browser does; the exchange's index
/// in the scenario's trail.
pub(super) async fn open_page(world: &mut PaymentWorld, url: Url) -> Result<usize, Failure> {
    let request = RecordedRequest::new(Method::GET, url).header("Accept", form::BROWSER_ACCEPT);
    let ctx = std::sync::Arc::clone(&world.ctx);
    world
        .trail
        .exchange(&ctx.sender, &ctx.redactor, request)
        .await
}

#[when("the buyer opens the payment page of a payment the service does not hold")]
async fn opens_unknown_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let page = declared(world)?;
            let token = unknown_token(world);
            let payment_id = (uuid::Uuid::new_v4().as_u128() % 1_000_000_000).to_string();
            let url = address(world, &page, &token, Some(&payment_id))?;
            open_page(world, url).await.map(drop)
        })
        .await
}

/// The page refuses a payment it does not hold: a client error (a server
/// error is the target's fault all the same), and no input of the card's
/// number to type into.
#[then("the payment page refuses it and offers no card form")]
fn page_refuses(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let page = declared(world)?;
        let exchange = world
            .trail
            .last()
            .ok_or_else(|| Failure::plain("the payment page to have been opened"))?;
        let Ok(response) = &exchange.response else {
            return Err(Failure::plain("an answer from the payment page"));
        };
        if !(400..500).contains(&response.status) {
            return Err(world.failure(
                "an HTTP client error (4xx): the page refuses a payment the service does not hold",
                &format!("HTTP {}", response.status),
            ));
        }
        let document = ServedPage::read(&response.body, &exchange.request.url).map_err(|why| {
            Failure::harness(format!(
                "payconf could not read the payment page's answer: {why}"
            ))
        })?;
        if let Some(found) = card_input(&document, &page) {
            return Err(world.failure(
                "no card form on the page of a payment the service does not hold",
                &format!("an input to type the card number into ({found})"),
            ));
        }
        Ok(())
    })
}

/// The input of the card number on a page as served, as the target file
/// names it (the input name, else the selector of the step that types it).
fn card_input(document: &ServedPage, page: &PaymentPage) -> Option<String> {
    let css = match page.fields.get(&CardField::Number) {
        Some(name) => format!("[name=\"{}\"]", name.replace(['"', '\\'], "")),
        None => page
            .steps
            .iter()
            .find(|step| step.field() == Some(CardField::Number.name()))?
            .selector()
            .to_owned(),
    };
    document.has(&css).then_some(css)
}
