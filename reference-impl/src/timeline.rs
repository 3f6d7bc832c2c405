//! What happened to a payment, in order, for the back-office: its submits
//! and their answers, the issuer's or the method's pages, where the buyer
//! was sent, and each notification attempt with the merchant server's
//! answer. A payment keeps at most [`MAX_EVENTS`] events, so a client
//! repeating a refused submit cannot grow it without bound.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The most events a payment keeps; later ones are counted, not kept.
pub const MAX_EVENTS: usize = 64;

/// How a payment was paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channel {
    /// By `payment/submit`, from the merchant's server.
    Submit,
    /// By card on the standard payment page.
    PaymentPage,
    /// With an alternative method chosen on the payment page.
    Alternative,
}

impl Channel {
    /// The name notifications and the data file use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Submit => "submit",
            Self::PaymentPage => "payment-page",
            Self::Alternative => "alternative-method",
        }
    }

    /// The channel a name gives.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Submit, Self::PaymentPage, Self::Alternative]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

/// One thing that happened to a payment (kept in a data file as JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// What.
    pub what: What,
}

/// The kinds of [`Event`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// A card was taken for the payment, and what it led to.
    Paid {
        /// Which way the card came.
        channel: Channel,
        /// The card, first six and last four digits.
        masked_pan: Box<str>,
        /// `OK`, `KO` or `8006` (the issuer's authentication needed).
        answer: Box<str>,
    },
    /// A submit for the payment was refused, with the envelope's code.
    SubmitRefused {
        /// The error code answered.
        code: Box<str>,
    },
    /// The issuer's authentication page was shown.
    IssuerPageShown,
    /// The buyer answered the issuer's page.
    IssuerAnswered {
        /// The code was right.
        authenticated: bool,
    },
    /// The buyer chose the alternative method on the payment page.
    MethodChosen,
    /// The buyer approved or refused at the method's page.
    MethodDecided {
        /// Approved.
        approved: bool,
    },
    /// The buyer was sent to an address as the payment ended.
    BuyerSent {
        /// The address.
        to: Box<str>,
    },
    /// A server notification was attempted.
    Notification {
        /// The event's ID, the same on every attempt.
        event_id: Uuid,
        /// 1 for the first attempt.
        attempt: u32,
        /// Where it was posted.
        to: Box<str>,
        /// The merchant server's HTTP status, or why there was none.
        answer: Box<str>,
        /// The server took it (a 2xx status).
        delivered: bool,
    },
    /// A notification's attempt waited: the receiver had not answered the
    /// merchant's earlier notifications yet, and had all the slots its
    /// share allows.
    NotificationDelayed {
        /// The event's ID.
        event_id: Uuid,
        /// The attempt that waited, 1 for the first.
        attempt: u32,
    },
    /// Notifications stopped: the retry time ran out.
    NotificationAbandoned {
        /// The event's ID.
        event_id: Uuid,
    },
    /// The merchant sent a notification again from the back-office.
    NotificationResent {
        /// The event's ID, the same as before.
        event_id: Uuid,
    },
    /// Events past [`MAX_EVENTS`] were not kept.
    Truncated,
}

impl What {
    /// The notification event this is about, if it is about one.
    pub fn notification(&self) -> Option<Uuid> {
        match self {
            Self::Notification { event_id, .. }
            | Self::NotificationDelayed { event_id, .. }
            | Self::NotificationAbandoned { event_id }
            | Self::NotificationResent { event_id } => Some(*event_id),
            _ => None,
        }
    }
}

impl Event {
    /// `what`, now.
    pub fn now(what: What) -> Self {
        Self {
            at_ms: now_ms(),
            what,
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Appends `event` to `events`, up to [`MAX_EVENTS`]: the last kept slot
/// says that later events were not kept.
pub fn record(events: &mut Vec<Event>, event: Event) {
    match events.len() {
        n if n + 1 < MAX_EVENTS => events.push(event),
        n if n + 1 == MAX_EVENTS => events.push(Event {
            at_ms: event.at_ms,
            what: What::Truncated,
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_stops_at_its_bound_and_says_so() {
        let mut events = Vec::new();
        for _ in 0..(MAX_EVENTS * 3) {
            record(
                &mut events,
                Event::now(What::SubmitRefused { code: "E1".into() }),
            );
        }
        assert_eq!(events.len(), MAX_EVENTS);
        assert_eq!(events.last().map(|e| &e.what), Some(&What::Truncated));
    }

    #[test]
    fn channels_and_events_read_back_as_written() {
        for channel in [Channel::Submit, Channel::PaymentPage, Channel::Alternative] {
            assert_eq!(Channel::from_name(channel.name()), Some(channel));
        }
        let events = vec![
            Event::now(What::Paid {
                channel: Channel::PaymentPage,
                masked_pan: "477571******2026".into(),
                answer: "OK".into(),
            }),
            Event::now(What::Notification {
                event_id: Uuid::new_v4(),
                attempt: 2,
                to: "http://127.0.0.1:9/n".into(),
                answer: "HTTP 500".into(),
                delivered: false,
            }),
        ];
        let text = serde_json::to_string(&events).expect("written");
        assert_eq!(
            serde_json::from_str::<Vec<Event>>(&text).expect("read"),
            events
        );
    }
}
