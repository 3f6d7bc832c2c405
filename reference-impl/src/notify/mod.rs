//! Server notifications: when a payment reaches its outcome (paid or
//! declined), the service POSTs it to the merchant's server, at the
//! address its create or submit named (`responseURLs.serverNotificationURL`)
//! or else at its profile's notification address as it was when the
//! payment was created (kept with the payment when the profile changes),
//! signed with the shop's secret (see [`message`]).
//!
//! The payment's handler only queues the notification ([`outcome`]), so a
//! slow or absent merchant server never slows `create` or `submit`; the
//! delivery task ([`deliver`]) posts it, and when the server fails (no
//! 2xx, no answer within the attempt's time) tries again after a wait that
//! triples each time, until the retry window is over. Every attempt and
//! its answer lands on the payment's timeline.

pub mod message;
mod shares;

use std::{sync::Arc, time::Duration};

use bytes::Bytes;
use http::header;
use tokio::task::JoinSet;
use uuid::Uuid;

use crate::{
    call_log::{ResendRefused, Sent},
    outbox::Delivery,
    state::Service,
    store::Payment,
    timeline::{What, now_ms},
};
use message::{EVENT_ID_HEADER, PaymentNotification, SIGNATURE_HEADER, signature};
use shares::Shares;

/// Queues the notification of a payment that has just reached its outcome,
/// if its merchant wants one; called under the payment's lock, where the
/// outcome was decided, so exactly one is owed per payment.
pub fn outcome(service: &Service, token: &Uuid, payment: &Payment) {
    owe(service, token, payment, |shop_login, event_id| {
        serde_json::to_vec(&PaymentNotification::of(payment, shop_login, event_id)?).ok()
    });
}

/// Queues a notification for each money event of a paid payment the
/// merchant has not been told of yet (a settlement, a cancel, a refund),
/// oldest first; called under the payment's lock, after the change, so
/// each event is told once.
pub fn money(service: &Service, token: &Uuid, payment: &mut Payment) {
    let Some(ledger) = payment.trail.as_mut().and_then(|t| t.ledger.as_mut()) else {
        return;
    };
    let events = ledger.take_unnotified();
    if events.is_empty() {
        return;
    }
    let ledger = ledger.clone();
    for event in &events {
        owe(service, token, payment, |shop_login, event_id| {
            let notification =
                PaymentNotification::money(payment, shop_login, event_id, event, &ledger)?;
            serde_json::to_vec(&notification).ok()
        });
    }
}

/// A payment's money as it is now, under its lock: a unified shop's
/// settlement made when it is due, and told to the merchant.
pub fn money_now<'p>(
    service: &Service,
    token: &Uuid,
    payment: &'p mut Payment,
    now_ms: u64,
) -> Option<&'p mut crate::ledger::Ledger> {
    payment.ledger_now(now_ms)?;
    money(service, token, payment);
    payment.trail.as_mut()?.ledger.as_mut()
}

/// Queues the notification whose body `build` writes (given the shop
/// login and the event ID), when the payment's merchant wants
/// notifications: at the address the payment keeps (its create's or
/// submit's, or its profile's when it was created, kept when the profile
/// changed since), else its profile's.
fn owe(
    service: &Service,
    token: &Uuid,
    payment: &Payment,
    build: impl FnOnce(&str, Uuid) -> Option<Vec<u8>>,
) {
    let redirects = payment.buyer_redirects.as_deref();
    let named = redirects.and_then(|r| r.notification.as_ref());
    if named.is_none() && redirects.is_some_and(|r| r.unnotified) {
        return;
    }
    let owed = service.profiles.with(payment.merchant, |profile| {
        let url = named
            .or(profile.merchant.notification_url.as_ref())?
            .clone();
        let event_id = Uuid::new_v4();
        let body = build(&profile.merchant.shop_login, event_id)?;
        Some((url, body, event_id))
    });
    let Some((url, body, event_id)) = owed else {
        return;
    };
    let delivery = Delivery {
        event_id,
        token: *token,
        merchant: payment.merchant,
        url,
        body: Bytes::from(body),
        owed_since_ms: now_ms(),
        attempts: 0,
    };
    service.call_log.sent(
        payment.merchant,
        Sent {
            event_id,
            payment_id: payment.id,
            token: *token,
            url: delivery.url.clone(),
            body: delivery.body.clone(),
            attempts: 0,
            settled: false,
        },
    );
    if let Some(journal) = &service.journal {
        journal.owe(&delivery);
    }
    service.notifier.enqueue(delivery);
}

/// Delivers the queued notifications until the service stops.
pub async fn deliver(service: Arc<Service>) {
    let Some(mut waiting) = service.notifier.take_waiting() else {
        return;
    };
    // No proxy (it would connect where the policy never looked) and a
    // resolver that hands out only the addresses the policy allows.
    let client = match crate::tls::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(crate::outbound::Resolver(Arc::clone(
            &service.outbound,
        ))))
        .timeout(service.config.limits.notification_timeout)
        .user_agent("payment-sandbox-notifications/1")
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "cannot build the notification client: no notification will be sent");
            return;
        }
    };
    // Each merchant, and each of its receivers, gets a share of the slots:
    // one merchant's dead receiver never delays another's notifications.
    let slots = Arc::new(Shares::default());
    // Owned here, so the deliveries in progress stop when this task is
    // aborted, at shutdown.
    let mut in_progress = JoinSet::new();
    loop {
        tokio::select! {
            queued = waiting.recv() => {
                let Some(delivery) = queued else { break };
                let (service, client, slots) = (Arc::clone(&service), client.clone(), Arc::clone(&slots));
                in_progress.spawn(async move { until_done(&service, &client, &slots, delivery).await });
            }
            Some(_) = in_progress.join_next(), if !in_progress.is_empty() => {}
        }
    }
}

/// Attempts a delivery until the merchant's server takes it or the retry
/// window is over.
async fn until_done(
    service: &Service,
    client: &reqwest::Client,
    slots: &Shares,
    mut delivery: Delivery,
) {
    let limits = service.config.limits;
    loop {
        let answer = {
            let _slot = slots
                .take(delivery.merchant, &delivery.url, || {
                    let what = What::NotificationDelayed {
                        event_id: delivery.event_id,
                        attempt: delivery.attempts + 1,
                    };
                    let _ = service
                        .store
                        .with_payment(&delivery.token, |p| p.record(what));
                })
                .await;
            attempt(service, client, &delivery).await
        };
        delivery.attempts += 1;
        let delivered = answer.delivered();
        let answer_text = answer.to_string();
        tracing::info!(
            event_id = %delivery.event_id,
            attempt = delivery.attempts,
            delivered,
            answer = answer_text.as_str(),
            "notification attempted"
        );
        let what = What::Notification {
            event_id: delivery.event_id,
            attempt: delivery.attempts,
            to: delivery.url.as_str().into(),
            answer: answer_text.into(),
            delivered,
        };
        let _ = service
            .store
            .with_payment(&delivery.token, |p| p.record(what));
        if delivered {
            settled(service, &delivery);
            return;
        }
        let wait = retry_wait(limits.notification_first_retry, delivery.attempts);
        let elapsed = Duration::from_millis(now_ms().saturating_sub(delivery.owed_since_ms));
        if elapsed + wait > limits.notification_window {
            tracing::warn!(event_id = %delivery.event_id, attempts = delivery.attempts, "notification abandoned");
            let what = What::NotificationAbandoned {
                event_id: delivery.event_id,
            };
            let _ = service
                .store
                .with_payment(&delivery.token, |p| p.record(what));
            settled(service, &delivery);
            return;
        }
        if let Some(journal) = &service.journal {
            journal.attempted(&delivery);
        }
        tokio::time::sleep(wait).await;
    }
}

/// A delivery ended, delivered or abandoned: no attempt is to come.
fn settled(service: &Service, delivery: &Delivery) {
    service
        .call_log
        .settled(delivery.merchant, delivery.event_id, delivery.attempts);
    if let Some(journal) = &service.journal {
        journal.settled(delivery);
    }
}

/// Sends a settled notification of payment `payment_id` again, as the
/// merchant asked from the back-office: the same event ID and body, signed
/// anew, its attempts counted on from the earlier ones, within a retry
/// window of its own.
pub fn resend(
    service: &Service,
    merchant: u32,
    payment_id: u64,
    event_id: Uuid,
) -> Result<(), ResendRefused> {
    let sent = service.call_log.resend(merchant, payment_id, event_id)?;
    let _ = service.store.with_payment(&sent.token, |p| {
        p.record(What::NotificationResent { event_id });
    });
    let delivery = Delivery {
        event_id,
        token: sent.token,
        merchant,
        url: sent.url,
        body: sent.body,
        owed_since_ms: now_ms(),
        attempts: sent.attempts,
    };
    if let Some(journal) = &service.journal {
        journal.owe(&delivery);
    }
    tracing::info!(event_id = %event_id, payment_id, "notification sent again from the back-office");
    service.notifier.enqueue(delivery);
    Ok(())
}

/// One POST, and what came of it.
async fn attempt(service: &Service, client: &reqwest::Client, delivery: &Delivery) -> Attempted {
    // An address the policy does not allow (a notification owed from
    // before the sandbox listened beyond loopback) fails as a closed port
    // would, and nothing is sent to it.
    let literal = match delivery.url.host() {
        Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::from(ip)),
        Some(url::Host::Ipv6(ip)) => Some(ip.into()),
        _ => None,
    };
    if literal.is_some_and(|ip| service.outbound.judge_ip(ip).is_err()) {
        return Attempted::CouldNotConnect;
    }
    let secret = service
        .merchant(delivery.merchant)
        .merchant
        .signing_secret
        .clone();
    let timestamp = i64::try_from(now_ms() / 1000).unwrap_or(i64::MAX);
    let sent = client
        .post(delivery.url.clone())
        .header(header::CONTENT_TYPE, "application/json")
        .header(
            SIGNATURE_HEADER,
            signature(&secret, timestamp, &delivery.body),
        )
        .header(EVENT_ID_HEADER, delivery.event_id.hyphenated().to_string())
        .body(delivery.body.clone())
        .send()
        .await;
    match sent {
        Ok(response) => Attempted::Answered(response.status()),
        Err(error) if error.is_timeout() => {
            Attempted::NoAnswer(service.config.limits.notification_timeout)
        }
        Err(error) if error.is_connect() => Attempted::CouldNotConnect,
        Err(_) => Attempted::Failed,
    }
}

/// What came of one POST of a notification, as the payment's timeline and
/// the log say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attempted {
    /// The merchant's server answered this status: delivered when a 2xx.
    Answered(http::StatusCode),
    /// No answer within this bound.
    NoAnswer(Duration),
    /// No connection was made: the port was closed, or the address is one
    /// the sandbox may not send to (nothing is sent there).
    CouldNotConnect,
    /// The exchange failed otherwise.
    Failed,
}

impl Attempted {
    /// Whether the merchant's server took the notification.
    fn delivered(self) -> bool {
        matches!(self, Self::Answered(status) if status.is_success())
    }
}

impl std::fmt::Display for Attempted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Answered(status) => write!(f, "HTTP {}", status.as_u16()),
            Self::NoAnswer(bound) => write!(f, "no answer within {} s", bound.as_secs_f32()),
            Self::CouldNotConnect => f.write_str("could not connect"),
            Self::Failed => f.write_str("the exchange failed"),
        }
    }
}

/// The wait after the `attempts`-th failed attempt: `first`, then three
/// times longer each time.
pub fn retry_wait(first: Duration, attempts: u32) -> Duration {
    first.saturating_mul(3u32.saturating_pow(attempts.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_triples_after_each_failure() {
        let first = Duration::from_secs(2);
        let waits: Vec<u64> = (1..=5).map(|n| retry_wait(first, n).as_secs()).collect();
        assert_eq!(waits, [2, 6, 18, 54, 162]);
        assert!(
            retry_wait(first, 60) >= Duration::from_secs(3600),
            "saturates, never wraps"
        );
    }
}
