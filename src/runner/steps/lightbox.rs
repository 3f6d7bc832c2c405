//! The buyer in the target's lightbox, opened from a shop's page as shops
//! written for the real service open it (`[payment_page.lightbox]`;
//! `../shared/contract/real-service-frontend.md` §2): payconf's shop page
//! ([`crate::runner::shop_page`]) includes the target's script and its Pay
//! button calls `axerve.lightBox.open(paymentID, paymentToken, callback)`
//! for the scenario's payment. The buyer clicks Pay, types the card into
//! the payment page where the lightbox shows it (its overlay's frame on a
//! desktop, a window of its own on a phone's screen), through the issuer's
//! page for an enrolled card, and the journey ends where the shop's page
//! goes: payconf's page told what the callback heard, or, with no
//! callback, the address the result sent the buyer to.
//!
//! The lightbox is a script: only the browser driver runs these scenarios
//! ([`crate::runner::needs::LIGHTBOX_TAG`]).

use cucumber::{then, when};
use url::Url;

use super::{
    card::{CardChoice, card},
    payment_page::{card_values, declared},
    redirect::configured_values,
};
use crate::runner::{
    buyer::{Answer, Choice, Page, Screen, same_page},
    shop_page::{Checkout, Opening, PAY_BUTTON, Told, told::shown},
    target_file::IssuerStep,
    world::{Failure, PaymentWorld, Settled},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

/// How the buyer meets the lightbox.
#[derive(Clone, Copy, Debug)]
struct Way {
    screen: Screen,
    opening: Opening,
    /// Through the issuer's page after the card.
    issuer: bool,
}

/// The buyer opens the lightbox from the shop's page for the scenario's
/// payment (with `token`, or the payment's own) and, with `choice`, pays
/// there; where the journey ends is kept, and what the shop's page was told.
async fn in_lightbox(
    world: &mut PaymentWorld,
    choice: Option<CardChoice>,
    way: Way,
    token: Option<&str>,
) -> Result<(), Failure> {
    let page = declared(world)?;
    let shop = world
        .ctx
        .shop_page
        .clone()
        .ok_or_else(|| Failure::harness("payconf's shop page is not served in this run"))?;
    let payment = world.payment()?.clone();
    let payment_id = payment.payment_id.clone().ok_or_else(|| {
        Failure::plain("a paymentID from create, which axerve.lightBox.open takes")
    })?;
    let case = uuid::Uuid::new_v4().simple().to_string();
    let shop_login = world.target().shop_login.clone();
    let start = shop.checkout(Checkout {
        case: &case,
        payment_id: &payment_id,
        token: token.unwrap_or(&payment.token),
        shop_login: &shop_login,
        opening: way.opening,
    });
    let heard = shop.heard(&case);
    let pay = [IssuerStep::click(PAY_BUTTON)];
    let none = std::collections::BTreeMap::new();
    let values = match choice {
        Some(choice) => {
            let card = card(world, choice.0)?.clone();
            card_values(world, &page, &card)
        }
        None => std::collections::BTreeMap::new(),
    };
    let acs = configured_values(world);
    let ctx = std::sync::Arc::clone(&world.ctx);
    let mut answers = vec![Answer {
        page: Page::Shop,
        choice: Choice::Authenticate,
        values: &none,
        steps: &pay,
    }];
    if choice.is_some() {
        answers.push(Answer {
            page: Page::Payment,
            choice: Choice::Authenticate,
            values: &values,
            steps: &page.steps,
        });
    }
    if way.issuer {
        answers.push(Answer {
            page: Page::Issuer,
            choice: Choice::Authenticate,
            values: &acs,
            steps: &ctx.target.acs.steps,
        });
    }
    let landed = world
        .answer_pages_on(&answers, &start, way.screen, std::slice::from_ref(&heard))
        .await?;
    world.told = same_page(&landed, &heard).then(|| Told::read(&landed));
    world.landing = Some(landed);
    Ok(())
}

const DESKTOP: Way = Way {
    screen: Screen::Desktop,
    opening: Opening::Callback,
    issuer: false,
};

#[when(expr = "the buyer pays with {card} in the lightbox the shop's page opens")]
async fn pays_in_lightbox(world: &mut PaymentWorld, choice: CardChoice) -> Result<(), Settled> {
    let paid = in_lightbox(world, Some(choice), DESKTOP, None).await;
    world.settle(paid)
}

#[when(
    expr = "the buyer pays with {card} in the lightbox the shop's page opens, completing the issuer authentication"
)]
async fn pays_in_lightbox_through_issuer(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let way = Way {
        issuer: true,
        ..DESKTOP
    };
    let paid = in_lightbox(world, Some(choice), way, None).await;
    world.settle(paid)
}

#[when(expr = "the buyer pays with {card} in the lightbox the shop's page opens with no callback")]
async fn pays_in_lightbox_without_callback(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let way = Way {
        opening: Opening::Redirect,
        ..DESKTOP
    };
    let paid = in_lightbox(world, Some(choice), way, None).await;
    world.settle(paid)
}

#[when(
    expr = "the buyer, on a phone's narrow screen, pays with {card} in the lightbox the shop's page opens"
)]
async fn pays_in_lightbox_on_phone(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let way = Way {
        screen: Screen::Phone,
        ..DESKTOP
    };
    let paid = in_lightbox(world, Some(choice), way, None).await;
    world.settle(paid)
}

#[when("the shop's page opens the lightbox with an empty payment token")]
async fn opens_with_empty_token(world: &mut PaymentWorld) -> Result<(), Settled> {
    let opened = in_lightbox(world, None, DESKTOP, Some("")).await;
    world.settle(opened)
}

/// What the shop's page was told; a failure of the target when its
/// journey ended elsewhere or its page was told nothing readable.
fn told(world: &PaymentWorld) -> Result<&Told, Failure> {
    let landed = world
        .landing
        .as_ref()
        .ok_or_else(|| Failure::plain("the buyer to have met the lightbox"))?;
    match &world.told {
        Some(Ok(told)) => Ok(told),
        Some(Err(why)) => Err(world.failure("what the lightbox told the shop's page", why)),
        None => Err(world.failure(
            "the shop's callback told the result, on the shop's page",
            &format!("the buyer was sent to {}", shown_address(landed)),
        )),
    }
}

/// The callback's message; a failure when the callback was not called.
fn message(world: &PaymentWorld) -> Result<&serde_json::Value, Failure> {
    let told = told(world)?;
    told.message()
        .ok_or_else(|| world.failure("the shop's callback called with the result", &told.said()))
}

fn shown_address(url: &Url) -> String {
    crate::runner::neutral::inline(&crate::runner::redact::shown_url(url)).into_owned()
}

/// The callback hears the paid payment as shops test it:
/// `response.status === "OK"`.
#[then("the shop's callback is told the payment is paid")]
fn told_paid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let message = message(world)?;
        if message["status"] != "OK" {
            return Err(world.failure(
                "a result whose status is \"OK\", which is how a shop's page tells a paid payment",
                &format!("the callback told {}", shown(message)),
            ));
        }
        Ok(())
    })
}

/// The callback hears a payment that was not paid as anything but "OK"
/// (shops treat every other status as a failure): it is told, with a
/// status.
#[then("the shop's callback is told the payment is not paid")]
fn told_not_paid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let message = message(world)?;
        match message["status"].as_str() {
            Some(status) if status != "OK" => Ok(()),
            _ => Err(world.failure(
                "a result whose status is not \"OK\": the payment was not paid",
                &format!("the callback told {}", shown(message)),
            )),
        }
    })
}

/// On a desktop, the lightbox is an overlay of the shop's page holding the
/// payment page in a frame (`#axerve_lightBox`), and opens no window.
#[then("the payment page was shown in the lightbox's overlay on the shop's page")]
fn shown_in_overlay(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let told = told(world)?;
        if !told.frames.iter().any(|frame| frame.overlay) || !told.windows.is_empty() {
            return Err(world.failure(
                "the payment page in a frame inside the overlay #axerve_lightBox, on the \
                 shop's page, and no window opened",
                &opened(told),
            ));
        }
        Ok(())
    })
}

/// On a phone's screen, the lightbox lays no frame on the shop's page: the
/// payment page opens in a window of its own (and was paid there, as the
/// callback says).
#[then("the payment page was shown in a window of its own, not on the shop's page")]
fn shown_in_window(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let told = told(world)?;
        if !told.frames.is_empty() {
            return Err(world.failure(
                "on a screen under 500 px wide, the payment page in a window of its own, \
                 with no frame on the shop's page",
                &opened(told),
            ));
        }
        Ok(())
    })
}

/// What the lightbox opened, in words.
fn opened(told: &Told) -> String {
    let frames: Vec<String> = told
        .frames
        .iter()
        .map(|frame| {
            format!(
                "a frame of {}{}",
                crate::runner::neutral::inline(&frame.src),
                if frame.overlay {
                    " in #axerve_lightBox"
                } else {
                    " outside any #axerve_lightBox"
                }
            )
        })
        .collect();
    let windows = told.windows.len();
    match (frames.is_empty(), windows) {
        (true, 0) => "nothing opened".to_owned(),
        (false, 0) => format!("{}; no window", frames.join(", ")),
        (true, n) => format!("{n} window(s) opened; no frame"),
        (false, n) => format!("{}; and {n} window(s) opened", frames.join(", ")),
    }
}

/// Before anything opens, the script refuses an empty token to the
/// callback as the real one does: `{"error": {"code": "1134", ...},
/// "payLoad": null}`.
#[then(expr = "the shop's callback is told error {string} with no payload, and nothing opened")]
fn told_error(world: &mut PaymentWorld, code: String) -> Result<(), Settled> {
    world.check(|world| {
        let told = told(world)?;
        let message = message(world)?;
        let said = message["error"]["code"].as_str().map(str::to_owned).or_else(|| {
            message["error"]["code"].as_u64().map(|code| code.to_string())
        });
        if said.as_deref() != Some(code.as_str())
            || !message["error"]["description"].is_string()
            || !message.get("payLoad").is_some_and(serde_json::Value::is_null)
        {
            return Err(world.failure(
                &format!(
                    "{{\"error\": {{\"code\": \"{code}\", \"description\": ...}}, \"payLoad\": null}}"
                ),
                &format!("the callback told {}", shown(message)),
            ));
        }
        if !told.opened_nothing() {
            return Err(world.failure(
                "nothing opened for a payment the script refused",
                &opened(told),
            ));
        }
        Ok(())
    })
}
