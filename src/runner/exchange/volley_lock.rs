//! The volley lock: ordinary exchanges share it, a volley holds it alone.
//!
//! A race check measures how close together its requests reach the
//! target. Requests of other scenarios in flight at that moment (hostile
//! bodies, a buyer at the issuer's page, payments in parallel) queue in
//! front of the volley's at the server and take the runner's CPU, and
//! spread the volley out. So every ordinary request shares the lock while
//! it is in flight (a browser journey for its whole length, as the
//! browser's requests are not payconf's to hold one by one), and a volley
//! waits for those in flight to end and holds the lock alone: requests of
//! other scenarios wait until it is over.
//!
//! The lock is fair (tokio's `RwLock` queues writers and readers in
//! order), so a volley is not starved by a steady stream of requests, and
//! nothing that holds the lock waits for anything that needs it alone: a
//! holder is never nested inside another holder of the same scenario.
//!
//! The lock also counts its sharers, so an exchange knows how many of the
//! run's others were in flight beside it ([`Shared::beside`]): an exchange
//! that got no answer in a crowd may have lost it to payconf's own load
//! (a server that holds 16 connections, and 16 hostile bodies of another
//! scenario in flight), and is sent again alone ([`super::Sender::send_judged`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// See the module's guide.
#[derive(Debug, Default)]
pub struct VolleyLock {
    lock: RwLock<()>,
    /// How many hold the lock shared now.
    sharing: AtomicUsize,
    /// How many shares were ever taken: the number of the last one.
    taken: AtomicU64,
}

/// The lock shared with other ordinary exchanges, while held.
#[derive(Debug)]
pub struct Shared<'a> {
    _guard: RwLockReadGuard<'a, ()>,
    lock: &'a VolleyLock,
    /// The sharers there were when this share was taken.
    found: usize,
    /// This share's number.
    number: u64,
}

/// The lock held by a volley alone, while held.
pub type Alone<'a> = RwLockWriteGuard<'a, ()>;

impl VolleyLock {
    /// Waits for the lock shared: at once unless a volley has it or waits for it.
    pub async fn share(&self) -> Shared<'_> {
        let guard = self.lock.read().await;
        let found = self.sharing.fetch_add(1, Ordering::SeqCst);
        let number = self.taken.fetch_add(1, Ordering::SeqCst) + 1;
        Shared {
            _guard: guard,
            lock: self,
            found,
            number,
        }
    }

    /// Waits until nothing else is in flight, and keeps everything else out.
    pub async fn alone(&self) -> Alone<'_> {
        self.lock.write().await
    }
}

impl Shared<'_> {
    /// How many other holders shared the lock with this one at some moment
    /// so far, at most: those there when it was taken, and every one taken
    /// since. Zero means the exchange had the target to itself.
    pub fn beside(&self) -> usize {
        let since = self.lock.taken.load(Ordering::SeqCst) - self.number;
        self.found + usize::try_from(since).unwrap_or(usize::MAX)
    }
}

impl Drop for Shared<'_> {
    fn drop(&mut self) {
        self.lock.sharing.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_volley_waits_for_exchanges_in_flight_and_holds_back_new_ones() {
        let lock = std::sync::Arc::new(VolleyLock::default());
        let in_flight = lock.share().await;
        let alone = {
            let lock = lock.clone();
            tokio::spawn(async move {
                let _alone = lock.alone().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !alone.is_finished(),
            "the volley waits for the exchange in flight"
        );
        // A new exchange queues behind the waiting volley.
        let newcomer = {
            let lock = lock.clone();
            tokio::spawn(async move {
                let _shared = lock.share().await;
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!newcomer.is_finished(), "new exchanges wait for the volley");
        drop(in_flight);
        tokio::time::timeout(Duration::from_secs(5), alone)
            .await
            .expect("the volley runs once the lock is free")
            .expect("no panic");
        tokio::time::timeout(Duration::from_secs(5), newcomer)
            .await
            .expect("the newcomer runs after the volley")
            .expect("no panic");
    }

    #[tokio::test]
    async fn a_share_counts_the_shares_beside_it_before_and_after_it_was_taken() {
        let lock = VolleyLock::default();
        let first = lock.share().await;
        assert_eq!(first.beside(), 0, "alone so far");
        let second = lock.share().await;
        assert_eq!(
            (first.beside(), second.beside()),
            (1, 1),
            "each sees the other"
        );
        drop(second);
        assert_eq!(first.beside(), 1, "one that has ended was still beside it");
        drop(first);
        let third = lock.share().await;
        assert_eq!(
            third.beside(),
            0,
            "shares that ended before it was taken are not beside it"
        );
    }
}
