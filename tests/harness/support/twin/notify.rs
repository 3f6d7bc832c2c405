//! The twin's server notifications. Where the contract says only that the
//! service posts the result to `serverNotificationURL`, the twin follows
//! the reference profile (the spec's `paymentOutcome` callback: its body,
//! its signature, retries of what is refused), so that the `@notification`
//! scenarios have a second implementation to pass, and its defects to
//! catch. Its own choices remain: extra fields in the body, its own retry
//! schedule (1 s, then three times longer), and, in its variation, late
//! deliveries, each acknowledged one sent again.
//!
//! Deliveries leave from a task of their own: a responder hands them over
//! and answers at once, as a service's handler does.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::{Defect, SHOP, Twin, Variation};

/// The twin shop's signing secret.
pub const SIGNING_SECRET: &str = "twin-signing-secret-91c2";
/// Attempts of one notification, the first included.
const ATTEMPTS: u32 = 5;

/// What the twin knows of a payment's order, for its notification.
#[derive(Clone, Debug)]
pub(super) struct Order {
    /// The shop it was created at.
    pub(super) shop: &'static str,
    pub(super) shop_transaction_id: String,
    pub(super) amount: String,
    pub(super) currency: String,
    /// Where submit asked for the outcome to be posted.
    pub(super) notify: Option<String>,
    /// Whether its outcome has been notified.
    pub(super) notified: bool,
}

/// One notification, on its way.
#[derive(Debug)]
pub(super) struct Outgoing {
    url: String,
    event_id: String,
    body: Vec<u8>,
}

/// Where the payment's outcome is reached.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reached {
    /// At submit: a card not enrolled, or declined.
    Submit,
    /// Back from the issuer's page.
    Issuer,
}

impl Twin {
    /// Keeps the order's details at create.
    pub(super) fn keep_order(&self, payment_id: &str, order: Order) {
        self.state
            .orders
            .lock()
            .expect("lock")
            .insert(payment_id.to_owned(), order);
    }

    /// Keeps the address submit named for the payment's notification.
    pub(super) fn notify_at(&self, payment_id: &str, address: Option<&str>) {
        if let Some(order) = self.state.orders.lock().expect("lock").get_mut(payment_id) {
            order.notify = address.map(str::to_owned);
        }
    }

    /// The payment has reached its outcome: its notification goes out,
    /// once, when submit named an address.
    pub(super) fn notify(&self, payment_id: &str, paid: bool, reached: Reached) {
        let order = {
            let mut orders = self.state.orders.lock().expect("lock");
            let Some(order) = orders.get_mut(payment_id) else {
                return;
            };
            if order.notified || order.notify.is_none() {
                return;
            }
            order.notified = true;
            order.clone()
        };
        if reached == Reached::Issuer && self.has(Defect::IssuerPaymentsNotNotified) {
            return;
        }
        let paid =
            paid && !(reached == Reached::Submit && self.has(Defect::PaidNotifiedAsDeclined));
        let events = if reached == Reached::Submit && self.has(Defect::NotifiedTwice) {
            2
        } else {
            1
        };
        for _ in 0..events {
            let mut body = notification_body(payment_id, &order, "payment.outcome", paid);
            body["twin"] = json!({"attempts": ATTEMPTS, "schedule": "1s x3"});
            self.send(&order, body);
        }
        // Its own shop settles a paid payment at once, and says so: a
        // notification of the money after the outcome's, which no outcome
        // scenario takes for a second notification of the outcome.
        let settles_at_once = self.variation != Some(Variation::SettlesAfterADelay);
        if paid && order.shop == SHOP && settles_at_once {
            let mut body = notification_body(payment_id, &order, "payment.settled", true);
            body["transactionState"] = json!("MOV");
            body["eventAmount"] = json!(order.amount);
            self.send(&order, body);
        }
    }

    /// Hands a notification to the outbox, to the address its submit named.
    fn send(&self, order: &Order, body: serde_json::Value) {
        let event_id = body["eventID"].as_str().unwrap_or_default().to_owned();
        let _ = self.outbox.send(Outgoing {
            url: order.notify.clone().expect("an address, checked before"),
            event_id,
            body: body.to_string().into_bytes(),
        });
    }
}

/// A notification of the payment, under a new event ID.
fn notification_body(
    payment_id: &str,
    order: &Order,
    event_type: &str,
    paid: bool,
) -> serde_json::Value {
    json!({
        "eventID": uuid::Uuid::new_v4().to_string(),
        "eventType": event_type,
        "occurredAt": time::OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .expect("zero nanoseconds")
            .format(&time::format_description::well_known::Rfc3339)
            .expect("a time formats"),
        "shopLogin": SHOP,
        "paymentID": payment_id,
        "shopTransactionID": order.shop_transaction_id,
        "amount": order.amount,
        "currency": order.currency,
        "outcome": if paid { "paid" } else { "declined" },
        "transactionResult": if paid { "OK" } else { "KO" },
        "channel": "submit",
    })
}

/// Posts every notification handed over, each in a task of its own.
pub(super) fn start(
    defect: Option<Defect>,
    variation: Option<Variation>,
) -> UnboundedSender<Outgoing> {
    let (outbox, mut queue): (UnboundedSender<Outgoing>, UnboundedReceiver<Outgoing>) =
        tokio::sync::mpsc::unbounded_channel();
    let client = payconf_reference::http_client()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("a client");
    tokio::spawn(async move {
        while let Some(outgoing) = queue.recv().await {
            tokio::spawn(deliver(client.clone(), outgoing, defect, variation));
        }
    });
    outbox
}

async fn deliver(
    client: reqwest::Client,
    outgoing: Outgoing,
    defect: Option<Defect>,
    variation: Option<Variation>,
) {
    let late = variation == Some(Variation::LateNotifications);
    if late {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
    }
    let mut wait = Duration::from_secs(1);
    for _ in 0..ATTEMPTS {
        let acknowledged = post(&client, &outgoing, defect).await;
        if acknowledged && late {
            // Delivered at least once: once more, as a sender unsure it was heard.
            post(&client, &outgoing, defect).await;
        }
        if acknowledged || defect == Some(Defect::RefusedNotificationNotRetried) {
            return;
        }
        tokio::time::sleep(if late {
            Duration::from_millis(3_500)
        } else {
            wait
        })
        .await;
        wait *= 3;
    }
}

/// One attempt; whether it was acknowledged (a 2xx).
async fn post(client: &reqwest::Client, outgoing: &Outgoing, defect: Option<Defect>) -> bool {
    let timestamp = time::OffsetDateTime::now_utc().unix_timestamp().to_string();
    let mut mac =
        Hmac::<Sha256>::new_from_slice(SIGNING_SECRET.as_bytes()).expect("any key length");
    if defect != Some(Defect::SignatureWithoutTimestamp) {
        mac.update(timestamp.as_bytes());
        mac.update(b".");
    }
    mac.update(&outgoing.body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    client
        .post(&outgoing.url)
        .header("Content-Type", "application/json")
        .header("Notification-Signature", format!("t={timestamp},v1={hex}"))
        .header("Notification-Event-ID", &outgoing.event_id)
        .body(outgoing.body.clone())
        .send()
        .await
        .is_ok_and(|answer| answer.status().is_success())
}
