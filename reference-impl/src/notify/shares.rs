//! Who may post how many notifications at once: each merchant its own
//! share of the delivery slots, and each of a merchant's receivers (the
//! `host:port` a notification goes to) its own share of the merchant's.
//!
//! An attempt takes a slot of its receiver, then of its merchant, then of
//! the whole service, always in that order, so no two attempts wait on
//! each other crosswise. A receiver that never answers holds at most
//! [`RECEIVER_SHARE`] slots, its merchant's other receivers still have the
//! rest of [`MERCHANT_SHARE`], and the other merchants never wait for it:
//! the service's [`TOTAL`] is many merchants' shares.

use std::{collections::HashMap, sync::Arc};

use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use url::Url;

/// Attempts in flight to one receiver of one merchant.
pub const RECEIVER_SHARE: usize = 4;
/// Attempts in flight for one merchant, all its receivers together.
pub const MERCHANT_SHARE: usize = 8;
/// Attempts in flight for the whole service.
pub const TOTAL: usize = 64;
/// Idle shares kept before the unused ones are let go.
const KEPT_IDLE: usize = 1024;

/// The delivery slots, shared fairly.
#[derive(Debug)]
pub struct Shares {
    total: Arc<Semaphore>,
    merchants: Mutex<HashMap<u32, Arc<Semaphore>>>,
    receivers: Mutex<HashMap<(u32, String), Arc<Semaphore>>>,
}

impl Default for Shares {
    fn default() -> Self {
        Self {
            total: Arc::new(Semaphore::new(TOTAL)),
            merchants: Mutex::default(),
            receivers: Mutex::default(),
        }
    }
}

/// The slots an attempt holds while it is made.
#[derive(Debug)]
pub struct Slot {
    _receiver: OwnedSemaphorePermit,
    _merchant: OwnedSemaphorePermit,
    _total: OwnedSemaphorePermit,
}

impl Shares {
    /// The slots for an attempt of `merchant` to `url`, once they are free;
    /// `delayed` is told, once, when the attempt has to wait for its
    /// receiver's or its merchant's earlier attempts.
    pub async fn take(&self, merchant: u32, url: &Url, delayed: impl FnOnce()) -> Slot {
        let receiver = share(
            &self.receivers,
            (merchant, receiver_of(url)),
            RECEIVER_SHARE,
        );
        let merchant = share(&self.merchants, merchant, MERCHANT_SHARE);
        let mut delayed = Some(delayed);
        let receiver = take(receiver, &mut delayed).await;
        let merchant = take(merchant, &mut delayed).await;
        let total = take(Arc::clone(&self.total), &mut None::<fn()>).await;
        Slot {
            _receiver: receiver,
            _merchant: merchant,
            _total: total,
        }
    }
}

/// The share named `key`, made when first needed; shares nobody holds are
/// let go once there are many.
fn share<K: std::hash::Hash + Eq + Clone>(
    shares: &Mutex<HashMap<K, Arc<Semaphore>>>,
    key: K,
    size: usize,
) -> Arc<Semaphore> {
    let mut shares = shares.lock();
    if shares.len() > KEPT_IDLE && !shares.contains_key(&key) {
        shares.retain(|_, s| Arc::strong_count(s) > 1 || s.available_permits() < size);
    }
    Arc::clone(
        shares
            .entry(key)
            .or_insert_with(|| Arc::new(Semaphore::new(size))),
    )
}

/// A slot of `share`, telling `waits` (once) when none is free at once.
async fn take(share: Arc<Semaphore>, waits: &mut Option<impl FnOnce()>) -> OwnedSemaphorePermit {
    if let Ok(permit) = Arc::clone(&share).try_acquire_owned() {
        return permit;
    }
    if let Some(told) = waits.take() {
        told();
    }
    share
        .acquire_owned()
        .await
        .expect("the shares' semaphores are never closed")
}

/// A notification address's receiver: its host and port.
fn receiver_of(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("valid")
    }

    #[tokio::test]
    async fn a_full_receiver_delays_its_own_notifications_and_no_one_elses() {
        let shares = Shares::default();
        let dead = url("http://dead.example/notify");
        let mut held = Vec::new();
        let never = || panic!("delayed");
        for _ in 0..RECEIVER_SHARE {
            held.push(shares.take(0, &dead, never).await);
        }
        let quick = |merchant, address: &'static str| {
            let shares = &shares;
            async move {
                tokio::time::timeout(
                    Duration::from_millis(200),
                    shares.take(merchant, &url(address), never),
                )
                .await
                .expect("a slot at once")
            }
        };
        // The merchant's other receiver, and another merchant on the same one.
        quick(0, "http://alive.example/").await;
        quick(1, "http://dead.example/notify").await;
        let told = std::sync::atomic::AtomicBool::new(false);
        let waiting = shares.take(0, &dead, || {
            told.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let mut waiting = std::pin::pin!(waiting);
        assert!(
            tokio::time::timeout(Duration::from_millis(100), &mut waiting)
                .await
                .is_err(),
            "the dead receiver's fifth attempt waits"
        );
        assert!(
            told.load(std::sync::atomic::Ordering::Relaxed),
            "and says so at once"
        );
        held.pop();
        waiting.await;
    }

    #[tokio::test]
    async fn a_merchant_never_holds_more_than_its_share() {
        let shares = Shares::default();
        let mut held = Vec::new();
        for n in 0..MERCHANT_SHARE {
            let address = url(&format!("http://r{n}.example/"));
            held.push(shares.take(7, &address, || panic!("delayed")).await);
        }
        let another = url("http://another.example/");
        let more = shares.take(7, &another, || ());
        assert!(
            tokio::time::timeout(Duration::from_millis(100), more)
                .await
                .is_err()
        );
        assert_eq!(shares.total.available_permits(), TOTAL - MERCHANT_SHARE);
    }
}
