//! The target's server notifications, heard: one listener for the run, at
//! the address of the target file's `[notifications]`, and a mailbox per
//! scenario, whose address submit passes as `serverNotificationURL`.
//!
//! A mailbox's address ends in 128 random bits, so a request there came
//! from whoever learned it: the target. What arrives is kept within bounds
//! (a few notifications a mailbox, each body at most [`MAX_BODY`] bytes,
//! read within [`READ_BOUND`]; see [`listen`]) and shown only redacted and
//! neutralised, as every other byte of the target.
//!
//! The listener also keeps whether the target has reached it at all in
//! this run ([`Listener::heard`]): a notification that never came is the
//! target's fault only when the target is known to reach payconf;
//! otherwise the address may be one it cannot reach, and the scenario is
//! an error naming `notifications.url`.

mod listen;
pub mod signature;
#[cfg(test)]
mod tests;

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU32, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use tokio::sync::watch;
use url::Url;

use crate::runner::{redact::Redactor, target_file::NotificationSettings};

/// The most a notification's body may hold.
pub const MAX_BODY: usize = 64 * 1024;
/// How long a notification may take to arrive whole, head and body.
pub const READ_BOUND: Duration = Duration::from_secs(10);
/// Notifications kept per mailbox; later ones are counted only.
const KEPT: usize = 16;

/// The run's listener, and the mailboxes open on it.
#[derive(Debug)]
pub struct Listener {
    /// The address the target posts to; a mailbox's is under it.
    url: Url,
    /// The address bound.
    local: SocketAddr,
    shared: Arc<Shared>,
    stop: tokio::sync::watch::Sender<bool>,
}

#[derive(Debug)]
struct Shared {
    mailboxes: Mutex<HashMap<String, Arc<Inbox>>>,
    /// Notifications that reached an open mailbox, in the whole run.
    heard: watch::Sender<u64>,
    /// Requests to no open mailbox: probes, or a mailbox already closed.
    stray: AtomicU64,
}

/// What one mailbox received.
#[derive(Debug)]
struct Inbox {
    /// When the mailbox opened.
    opened: Instant,
    received: Mutex<Vec<Notification>>,
    /// How many of the next deliveries are refused with HTTP 500.
    refuse: AtomicU32,
    arrived: watch::Sender<usize>,
}

/// One delivery, as it arrived.
#[derive(Clone, Debug)]
pub struct Notification {
    /// How long after the mailbox opened it arrived.
    pub after: Duration,
    /// The request's method.
    pub method: String,
    /// Its body; why it could not be read whole otherwise.
    pub body: Result<Bytes, BodyUnread>,
    /// Its `Notification-Signature`.
    pub signature: Option<String>,
    /// Its `Notification-Event-ID`.
    pub event_header: Option<String>,
    /// The status payconf answered it with.
    pub answered: u16,
}

/// Why a delivery's body was not read: payconf reads at most [`MAX_BODY`]
/// of it, within [`READ_BOUND`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyUnread {
    /// Longer than [`MAX_BODY`].
    #[error("a body of more than {} KiB, not read", MAX_BODY / 1024)]
    TooLarge,
    /// The connection ended before the body did.
    #[error("a body cut off before its end")]
    CutOff,
    /// Not sent whole within [`READ_BOUND`].
    #[error("a body not sent whole within {} s", READ_BOUND.as_secs())]
    TooSlow,
}

/// How much of a notification's body a failure shows.
const SHOWN_BODY: usize = 1500;

/// The `eventType`s of the notifications of a paid payment's money after
/// its outcome (a settlement, a cancel, a refund).
///
/// Reading written down (docs/readings.md): such a notification tells
/// another event than the payment's outcome, so it is neither the outcome's
/// notification nor a second one of it, and the scenario that refuses the
/// outcome's first delivery does not refuse it; a server that settles at
/// once and says so (the twin) passes.
pub const MONEY_EVENTS: [&str; 3] = ["payment.settled", "payment.cancelled", "payment.refunded"];

/// Whether a body is a notification of a change of the payment's money.
fn body_tells_money(body: &Result<Bytes, BodyUnread>) -> bool {
    body.as_ref()
        .ok()
        .and_then(|body| crate::runner::json::parse(body).ok())
        .and_then(|body| {
            body.get("eventType")
                .and_then(serde_json::Value::as_str)
                .map(|t| MONEY_EVENTS.contains(&t))
        })
        .unwrap_or(false)
}

impl Notification {
    /// Whether it tells a change of the payment's money, not its outcome.
    pub fn tells_money(&self) -> bool {
        body_tells_money(&self.body)
    }

    /// The delivery as a failure shows it: method, answer, when, and its
    /// body redacted, cut short and made harmless for a terminal and a CI
    /// log, as every byte of the target.
    pub fn shown(&self, redactor: &Redactor) -> String {
        let body = match &self.body {
            Ok(bytes) if bytes.is_empty() => "an empty body".to_owned(),
            Ok(bytes) => {
                let mut text = redactor.body(bytes);
                if text.len() > SHOWN_BODY {
                    let mut end = SHOWN_BODY;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text = format!("{}… ({} bytes in all)", &text[..end], bytes.len());
                }
                text
            }
            Err(why) => why.to_string(),
        };
        crate::runner::neutral::inline(&format!(
            "{} (payconf answered {}, {:.1} s into the scenario): {body}",
            redactor.text(&self.method),
            self.answered,
            self.after.as_secs_f64()
        ))
        .into_owned()
    }
}

/// Why the listener could not start.
#[derive(Debug, thiserror::Error)]
#[error(
    "notifications.listen: payconf cannot listen on {address} for the target's \
     notifications: {source}"
)]
pub struct ListenError {
    address: SocketAddr,
    #[source]
    source: std::io::Error,
}

impl Listener {
    /// Binds the listener and starts serving it.
    pub async fn start(settings: &NotificationSettings) -> Result<Arc<Self>, ListenError> {
        let socket = tokio::net::TcpListener::bind(settings.listen)
            .await
            .map_err(|source| ListenError {
                address: settings.listen,
                source,
            })?;
        let local = socket.local_addr().map_err(|source| ListenError {
            address: settings.listen,
            source,
        })?;
        let url = match &settings.url {
            Some(url) => url.clone(),
            None => {
                Url::parse(&format!("http://{local}/")).expect("a socket address makes an http URL")
            }
        };
        let shared = Arc::new(Shared {
            mailboxes: Mutex::default(),
            heard: watch::channel(0).0,
            stray: AtomicU64::new(0),
        });
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(listen::serve(socket, Arc::clone(&shared), stopped));
        Ok(Arc::new(Self {
            url,
            local,
            shared,
            stop,
        }))
    }

    /// The address the target posts to.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The address bound.
    pub fn local(&self) -> SocketAddr {
        self.local
    }

    /// Opens a mailbox of its own address.
    pub fn open(&self) -> Mailbox {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let mut url = self.url.clone();
        let base = url.path().trim_end_matches('/').to_owned();
        url.set_path(&format!("{base}/payconf/notifications/{id}"));
        let (arrived, _) = watch::channel(0);
        let inbox = Arc::new(Inbox {
            opened: Instant::now(),
            received: Mutex::new(Vec::new()),
            refuse: AtomicU32::new(0),
            arrived,
        });
        lock(&self.shared.mailboxes).insert(id.clone(), Arc::clone(&inbox));
        Mailbox {
            id,
            url,
            inbox,
            shared: Arc::clone(&self.shared),
        }
    }

    /// Notifications that reached an open mailbox so far in the run: the
    /// evidence that the target reaches payconf at all.
    pub fn heard(&self) -> u64 {
        *self.shared.heard.borrow()
    }

    /// Waits until the target has reached payconf, or `bound` has passed;
    /// whether it has.
    pub async fn heard_within(&self, bound: Duration) -> bool {
        let mut heard = self.shared.heard.subscribe();
        let waited = tokio::time::timeout(bound, heard.wait_for(|n| *n > 0)).await;
        matches!(waited, Ok(Ok(_)))
    }

    /// Requests that reached no open mailbox.
    pub fn stray(&self) -> u64 {
        self.shared.stray.load(Ordering::Relaxed)
    }

    /// Stops listening.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A scenario's mailbox: its address, and what arrived there.
#[derive(Debug)]
pub struct Mailbox {
    id: String,
    url: Url,
    inbox: Arc<Inbox>,
    shared: Arc<Shared>,
}

impl Mailbox {
    /// The address submit passes as `serverNotificationURL`.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Refuses the next `count` deliveries of the outcome with HTTP 500.
    pub fn refuse_next(&self, count: u32) {
        self.inbox.refuse.store(count, Ordering::Release);
    }

    /// Every delivery kept so far, oldest first.
    pub fn received(&self) -> Vec<Notification> {
        lock(&self.inbox.received).clone()
    }

    /// Waits until at least `count` deliveries have arrived, or `deadline`;
    /// the deliveries kept by then.
    pub async fn until(&self, count: usize, deadline: tokio::time::Instant) -> Vec<Notification> {
        let mut arrived = self.inbox.arrived.subscribe();
        let _ = tokio::time::timeout_at(deadline, arrived.wait_for(|n| *n >= count)).await;
        self.received()
    }

    /// How long the mailbox has been open.
    pub fn open_for(&self) -> Duration {
        self.inbox.opened.elapsed()
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        lock(&self.shared.mailboxes).remove(&self.id);
    }
}

impl Shared {
    /// The mailbox of a request's path, when one is open: its last segment.
    fn inbox(&self, path: &str) -> Option<Arc<Inbox>> {
        let id = path.trim_end_matches('/').rsplit('/').next()?;
        lock(&self.mailboxes).get(id).cloned()
    }

    /// A delivery to an open mailbox, kept (within [`KEPT`]) and counted;
    /// the status to answer it with. Only a notification of the outcome is
    /// refused on purpose (see [`MONEY_EVENTS`]).
    fn deliver(
        &self,
        inbox: &Inbox,
        body: &Result<Bytes, BodyUnread>,
        make: impl FnOnce(u16, Duration) -> Notification,
    ) -> u16 {
        let refuse = !body_tells_money(body)
            && inbox
                .refuse
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                .is_ok();
        let status = if refuse { 500 } else { 200 };
        {
            let mut received = lock(&inbox.received);
            if received.len() < KEPT {
                received.push(make(status, inbox.opened.elapsed()));
            }
            inbox.arrived.send_replace(received.len());
        }
        self.heard.send_modify(|heard| *heard += 1);
        status
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
