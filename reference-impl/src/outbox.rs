//! The notifications owed to merchants' servers, between the handler that
//! decides a payment's outcome and the delivery task (`notify`) that posts
//! them: a queue that never makes its sender wait.

use bytes::Bytes;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use url::Url;
use uuid::Uuid;

/// A notification owed to a merchant's server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The event's ID: the same on every attempt.
    pub event_id: Uuid,
    /// The payment it tells of.
    pub token: Uuid,
    /// The payment's merchant, whose secret signs it.
    pub merchant: u32,
    /// Where it is posted.
    pub url: Url,
    /// The JSON body, the same on every attempt.
    pub body: Bytes,
    /// When it was first owed, in milliseconds since the Unix epoch: the
    /// retry window counts from there.
    pub owed_since_ms: u64,
    /// Attempts made so far.
    pub attempts: u32,
}

/// The queue between the handlers and the delivery task.
#[derive(Debug)]
pub struct Notifier {
    queue: mpsc::UnboundedSender<Delivery>,
    waiting: Mutex<Option<mpsc::UnboundedReceiver<Delivery>>>,
}

impl Default for Notifier {
    fn default() -> Self {
        let (queue, waiting) = mpsc::unbounded_channel();
        Self {
            queue,
            waiting: Mutex::new(Some(waiting)),
        }
    }
}

impl Notifier {
    /// The receiving end, for the one delivery task (`None` once taken).
    pub fn take_waiting(&self) -> Option<mpsc::UnboundedReceiver<Delivery>> {
        self.waiting.lock().take()
    }

    /// Queues a delivery; never waits.
    pub fn enqueue(&self, delivery: Delivery) {
        // The receiver lives as long as the service: a send fails only when
        // the delivery task has ended, at shutdown.
        let _ = self.queue.send(delivery);
    }
}
