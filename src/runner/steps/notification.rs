//! The merchant's server hearing from the service: the scenario's mailbox
//! on payconf's listener, whose address submits pass as
//! `serverNotificationURL`, and what must arrive there.
//!
//! A notification that never came is a FAIL only when the target is known
//! to reach payconf: it has posted to some scenario's mailbox in this run.
//! Otherwise `notifications.url` may be an address the target cannot
//! reach, and the scenario is an ERROR that says so.

use cucumber::{given, then};
use serde_json::Value;

use crate::runner::{
    notifications::{Notification, signature},
    target_file::NotificationSettings,
    world::{Failure, PaymentWorld, Settled},
};

/// The callback the spec describes notifications by.
const CALLBACK: &str = "notifyPaymentOutcome";

/// Whether a delivery tells a change of the payment's money, not its
/// outcome (see [`crate::runner::notifications::MONEY_EVENTS`]).
fn tells_money(n: &Notification) -> bool {
    n.tells_money()
}

#[given("payconf listens for the merchant's server notifications")]
fn listens(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let listener = world.ctx.notifications.as_ref().ok_or_else(|| {
            Failure::harness(
                "a listener for notifications: the target file declares no [notifications]",
            )
        })?;
        world.mailbox = Some(listener.open());
        Ok(())
    })
}

#[given("payconf refuses the first notification with HTTP 500")]
fn refuses_first(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        mailbox(world)?.refuse_next(1);
        Ok(())
    })
}

#[then("one notification of the payment arrives, saying it is paid")]
async fn one_notification_paid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let first = first_arrival(world).await?;
            let body = describes_the_payment(world, &first)?;
            if body.get("outcome").and_then(Value::as_str) != Some("paid") {
                return Err(world.failure(
                    "a notification with outcome \"paid\"",
                    &shown(world, &first),
                ));
            }
            let settled = tokio::time::Instant::now() + settings(world)?.second_look;
            let all = mailbox(world)?.until(usize::MAX, settled).await;
            let first_id = event_id(&first);
            if let Some(other) = all
                .iter()
                .filter(|n| !tells_money(n))
                .find(|n| event_id(n) != first_id)
            {
                return Err(world.failure(
                    "one notification of the payment's outcome: every delivery of it under one \
                 event ID",
                    &format!(
                        "two events for one outcome:\n  {}\n  {}",
                        shown(world, &first),
                        shown(world, other)
                    ),
                ));
            }
            Ok(())
        })
        .await
}

#[then("a notification of the payment arrives")]
async fn a_notification(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| first_arrival(world).await.map(drop))
        .await
}

#[then("its signature verifies with the shop's signing secret")]
fn signature_verifies(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let first = mailbox(world)?
            .received()
            .into_iter()
            .next()
            .ok_or_else(|| Failure::plain("a notification received earlier in the scenario"))?;
        let secret = settings(world)?.signing_secret.as_ref().ok_or_else(|| {
            Failure::harness("notifications.signing_secret, the shop's signing secret")
        })?;
        let body = first.body.as_deref().unwrap_or_default();
        let expected = "a Notification-Signature of the form t=<unix seconds>,v1=<64 hex \
                        digits>, the HMAC-SHA256 with the shop's signing secret of the \
                        timestamp, a dot and the body";
        match signature::judge(secret.expose(), first.signature.as_deref(), body) {
            signature::Judged::Verified => Ok(()),
            signature::Judged::Missing => Err(world.failure(
                expected,
                &format!("no Notification-Signature header: {}", shown(world, &first)),
            )),
            signature::Judged::Malformed => Err(world.failure(
                expected,
                &format!(
                    "Notification-Signature: {}",
                    world
                        .ctx
                        .redactor
                        .text(first.signature.as_deref().unwrap_or(""))
                ),
            )),
            signature::Judged::Misbuilt(what) => {
                Err(world.failure(expected, &format!("{what}, with the shop's secret")))
            }
            signature::Judged::Unverified => Err(Failure::harness(format!(
                "the notification's signature does not verify with \
                 notifications.signing_secret: payconf cannot tell a target that signs \
                 wrongly from a secret that is not the shop's. Set \
                 notifications.signing_secret (or {}) to the shop's signing secret as its \
                 back-office shows it; if it is that already, the target signs with another \
                 key",
                crate::runner::target_file::SECRET_VARIABLE
            ))),
        }
    })
}

#[then("it is posted again with the same event ID")]
async fn posted_again(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let bound = settings(world)?.retry_within;
            let mailbox = mailbox(world)?;
            // The outcome's first delivery, and where it stands among all of
            // them: a retry comes after it.
            let (at, first) = mailbox
                .received()
                .into_iter()
                .enumerate()
                .find(|(_, n)| !tells_money(n))
                .ok_or_else(|| Failure::plain("a notification received earlier in the scenario"))?;
            let after = at + 1;
            if first.answered != 500 {
                return Err(Failure::harness(
                    "the first notification refused with HTTP 500, as the scenario asked; \
                 payconf answered it otherwise",
                ));
            }
            let Some(id) = event_id(&first) else {
                return Err(world.failure(
                    "a notification with an event ID (eventID, Notification-Event-ID) that tells \
                 a retry from a new notification",
                    &shown(world, &first),
                ));
            };
            let deadline = tokio::time::Instant::now() + bound;
            let mut seen = after;
            loop {
                let all = mailbox.until(seen + 1, deadline).await;
                if let Some(again) = all[after.min(all.len())..]
                    .iter()
                    .find(|n| event_id(n).as_deref() == Some(id.as_str()))
                {
                    world.leftovers.measured.push(format!(
                        "the refused notification was posted again {:.1} s later",
                        again.after.saturating_sub(first.after).as_secs_f64()
                    ));
                    return Ok(());
                }
                if all.len() == seen || tokio::time::Instant::now() >= deadline {
                    let others: Vec<String> = all[after.min(all.len())..]
                        .iter()
                        .map(|n| shown(world, n))
                        .collect();
                    let actual = if others.is_empty() {
                        format!(
                            "nothing more within {} s of the refused delivery, {}",
                            bound.as_secs(),
                            shown(world, &first)
                        )
                    } else {
                        format!("only other events: {}", others.join("; "))
                    };
                    return Err(world.failure(
                        &format!(
                            "the notification refused with HTTP 500 posted again, with the same \
                         event ID, within {} s (notifications.retry_within_secs)",
                            bound.as_secs()
                        ),
                        &actual,
                    ));
                }
                seen = all.len();
            }
        })
        .await
}

/// The first notification of the scenario's mailbox, within the bound;
/// when none comes, a FAIL if the target is known to reach payconf, an
/// ERROR naming `notifications.url` if not.
async fn first_arrival(world: &mut PaymentWorld) -> Result<Notification, Failure> {
    let bound = settings(world)?.within;
    let deadline = tokio::time::Instant::now() + bound;
    let mailbox = mailbox(world)?;
    let outcome = mailbox.open_for();
    // The first that tells the outcome: a change of the money may come first.
    let mut wanted = 1;
    let arrived = loop {
        let arrived = mailbox.until(wanted, deadline).await;
        if arrived.len() < wanted || arrived.iter().any(|n| !tells_money(n)) {
            break arrived;
        }
        wanted = arrived.len() + 1;
    };
    if let Some(first) = arrived.into_iter().find(|n| !tells_money(n)) {
        world.leftovers.measured.push(format!(
            "the notification arrived {:.1} s after the payment's outcome",
            first.after.saturating_sub(outcome).as_secs_f64()
        ));
        return Ok(first);
    }
    let listener = world
        .ctx
        .notifications
        .as_ref()
        .ok_or_else(|| Failure::harness("a listener for notifications"))?;
    let url = listener.url().to_string();
    // Other scenarios' notifications may still be on their way.
    if listener.heard_within(bound).await {
        return Err(world.failure(
            &format!(
                "a notification of the payment posted to its serverNotificationURL within {} s \
                 (notifications.within_secs)",
                bound.as_secs()
            ),
            &format!(
                "none came, though the target posted {} notification(s) to payconf at {url} \
                 in this run, so it reaches that address",
                listener.heard()
            ),
        ));
    }
    Err(Failure::harness(format!(
        "no notification reached payconf's listener at {url} in this run ({} request(s) \
         to no mailbox): payconf cannot tell a target that sends none from one that cannot \
         reach that address. Set notifications.url to the address the target reaches \
         payconf at (behind NAT or from a container it is not {}), and \
         notifications.listen to where payconf listens",
        listener.stray(),
        listener.local()
    )))
}

/// The notification's body against the spec's callback and
/// naming the scenario's payment: its `paymentID` and `shopTransactionID`.
fn describes_the_payment(world: &PaymentWorld, n: &Notification) -> Result<Value, Failure> {
    let expected = "a POST whose JSON body is a PaymentNotification (spec/openapi.yaml, \
                    callback notifyPaymentOutcome) naming the payment";
    let body = match (&n.body, n.method.as_str()) {
        (Ok(body), "POST") => crate::runner::json::parse(body).ok(),
        _ => None,
    };
    let Some(body) = body else {
        return Err(world.failure(expected, &shown(world, n)));
    };
    if let Err(violations) = world.ctx.contract.check_callback(CALLBACK, &body) {
        return Err(world.failure(
            expected,
            &format!(
                "{}; {}",
                world.ctx.redactor.text(&violations.to_string()),
                shown(world, n)
            ),
        ));
    }
    let payment = world.payment()?;
    let names = |field: &str, wanted: Option<&String>| {
        wanted.is_none_or(|wanted| body.get(field).and_then(Value::as_str) == Some(wanted))
    };
    if !names("paymentID", payment.payment_id.as_ref())
        || !names("shopTransactionID", payment.shop_transaction_id.as_ref())
    {
        return Err(world.failure(
            &format!(
                "a notification naming the payment: paymentID {} and shopTransactionID {}",
                payment.payment_id.as_deref().unwrap_or("(none)"),
                payment.shop_transaction_id.as_deref().unwrap_or("(none)")
            ),
            &shown(world, n),
        ));
    }
    Ok(body)
}

/// A delivery's event ID: the body's `eventID`, or else its header.
fn event_id(n: &Notification) -> Option<String> {
    let from_body = n
        .body
        .as_ref()
        .ok()
        .and_then(|body| crate::runner::json::parse(body).ok())
        .and_then(|body| body.get("eventID")?.as_str().map(str::to_owned));
    from_body.or_else(|| n.event_header.clone())
}

/// A delivery as a failure shows it.
fn shown(world: &PaymentWorld, n: &Notification) -> String {
    n.shown(&world.ctx.redactor)
}

fn mailbox(world: &PaymentWorld) -> Result<&crate::runner::notifications::Mailbox, Failure> {
    world.mailbox.as_ref().ok_or_else(|| {
        Failure::plain("payconf listening for notifications earlier in the scenario")
    })
}

fn settings(world: &PaymentWorld) -> Result<&NotificationSettings, Failure> {
    world
        .target()
        .notifications
        .as_ref()
        .ok_or_else(|| Failure::harness("the target file's [notifications]"))
}
