//! The gate a volley's requests wait at, each written but for its last
//! byte: a request body ([`GatedBody`]) that yields everything but its last
//! byte at once, tells the gate it is ready, and yields the last byte only
//! when the gate opens, noting when it did.
//!
//! The body has an exact length, so the HTTP stack announces it
//! (`Content-Length` on HTTP/1.1) and the server, which cannot act on a
//! request before its body is whole, waits for the last byte like payconf.

use std::{
    convert::Infallible,
    pin::Pin,
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    task::{Context, Poll, Waker},
    time::Instant,
};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

/// Where a volley's bodies wait for their last byte to go.
#[derive(Debug, Default)]
pub struct Gate {
    open: AtomicBool,
    /// The bodies waiting for the gate to open.
    waiting: Mutex<Vec<Waker>>,
    /// How many bodies have given all but their last byte.
    ready: AtomicUsize,
    /// Told each time a body becomes ready.
    readied: Notify,
    /// When each body gave its last byte, in the order they did.
    released: Mutex<Vec<Instant>>,
}

impl Gate {
    /// How many bodies wait with only their last byte left.
    pub fn ready(&self) -> usize {
        self.ready.load(Ordering::Acquire)
    }

    /// Completes when a body becomes ready after this call (whether or
    /// not it has been polled by then).
    pub fn readied(&self) -> tokio::sync::futures::Notified<'_> {
        self.readied.notified()
    }

    /// Lets every body give its last byte.
    pub fn open(&self) {
        self.open.store(true, Ordering::Release);
        let waiting = std::mem::take(&mut *lock(&self.waiting));
        for waker in waiting {
            waker.wake();
        }
    }

    /// When each body gave its last byte, in the order they did.
    pub fn released(&self) -> Vec<Instant> {
        lock(&self.released).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A request body that waits at a [`Gate`] with its last byte.
#[derive(Debug)]
pub struct GatedBody {
    gate: std::sync::Arc<Gate>,
    /// Everything but the last byte, until given.
    first: Option<Bytes>,
    /// The last byte, until given.
    last: Option<Bytes>,
    length: u64,
    /// Whether the gate has been told this body is ready.
    told: bool,
}

impl GatedBody {
    /// `bytes` (at least one), its last byte held at `gate`.
    pub fn new(gate: std::sync::Arc<Gate>, bytes: Vec<u8>) -> Self {
        let length = bytes.len() as u64;
        let mut first = Bytes::from(bytes);
        let last = first.split_off(first.len().saturating_sub(1));
        Self {
            gate,
            first: (!first.is_empty()).then_some(first),
            last: (!last.is_empty()).then_some(last),
            length,
            told: false,
        }
    }
}

impl Body for GatedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        if self.last.is_none() {
            return Poll::Ready(None);
        }
        if !self.told {
            // Asked for the last byte: everything before it is with the
            // HTTP stack, which writes it out before waiting on us.
            self.told = true;
            self.gate.ready.fetch_add(1, Ordering::AcqRel);
            self.gate.readied.notify_waiters();
        }
        if !self.gate.open.load(Ordering::Acquire) {
            lock(&self.gate.waiting).push(cx.waker().clone());
            // Opened while the waker was being put down: not to be missed.
            if !self.gate.open.load(Ordering::Acquire) {
                return Poll::Pending;
            }
        }
        let last = self.last.take().expect("checked above");
        lock(&self.gate.released).push(Instant::now());
        Poll::Ready(Some(Ok(Frame::data(last))))
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.last.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.length)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use http_body_util::BodyExt;

    use super::*;

    #[tokio::test]
    async fn a_body_gives_all_but_its_last_byte_then_waits_for_the_gate() {
        let gate = Arc::new(Gate::default());
        let mut body = GatedBody::new(gate.clone(), b"{\"a\":1}".to_vec());
        assert_eq!(body.size_hint().exact(), Some(7));
        let first = body.frame().await.expect("a frame").expect("data");
        assert_eq!(
            first.into_data().expect("data"),
            Bytes::from_static(b"{\"a\":1")
        );
        let waiting = tokio::spawn(async move {
            let last = body.frame().await.expect("a frame").expect("data");
            (
                last.into_data().expect("data"),
                body.frame().await.is_none(),
            )
        });
        while gate.ready() < 1 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the last byte waits for the gate");
        assert!(gate.released().is_empty());
        gate.open();
        let (last, ended) = waiting.await.expect("no panic");
        assert_eq!(last, Bytes::from_static(b"}"));
        assert!(ended);
        assert_eq!(gate.released().len(), 1);
    }

    #[tokio::test]
    async fn a_one_byte_body_waits_whole() {
        let gate = Arc::new(Gate::default());
        gate.open();
        let body = GatedBody::new(gate.clone(), b"x".to_vec());
        let bytes = body.collect().await.expect("a body").to_bytes();
        assert_eq!(bytes, Bytes::from_static(b"x"));
        assert_eq!(gate.ready(), 1);
    }
}
