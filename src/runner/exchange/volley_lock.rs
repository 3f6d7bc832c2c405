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

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// See the module's guide.
#[derive(Debug, Default)]
pub struct VolleyLock(RwLock<()>);

/// The lock shared with other ordinary exchanges, while held.
pub type Shared<'a> = RwLockReadGuard<'a, ()>;

/// The lock held by a volley alone, while held.
pub type Alone<'a> = RwLockWriteGuard<'a, ()>;

impl VolleyLock {
    /// Waits for the lock shared: at once unless a volley has it or waits for it.
    pub async fn share(&self) -> Shared<'_> {
        self.0.read().await
    }

    /// Waits until nothing else is in flight, and keeps everything else out.
    pub async fn alone(&self) -> Alone<'_> {
        self.0.write().await
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
}
