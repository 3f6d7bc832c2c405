//! Live payments, keyed by their token.
//!
//! The store is split into shards, each a hash map behind its own lock, so
//! concurrent calls on different payments rarely meet, and every state
//! transition of one payment happens inside one critical section: two submits
//! of the same token cannot both see it unsubmitted. A payment past its
//! lifetime cannot be used at once, but the store remembers it for
//! [`EXPIRED_REMEMBERED`] more, so that its token is told apart from one
//! never issued (`1457` expired, not `1170` invalid); then
//! [`PaymentStore::sweep`] removes it, one shard at a time, so a sweep never
//! holds up the whole service.
//!
//! A payment is found by its token, or by its `paymentID` through an index
//! beside the shards ([`PaymentStore::token_of`]), as the operations after
//! submit name it.
//!
//! With a data file, the store queues each payment to the journal when it
//! is created and whenever a call changes it, under its lock (so the file
//! sees a payment's changes in the order they were made), and the removal
//! of those the sweep takes.

use std::{
    collections::{HashMap, hash_map::Entry},
    hash::BuildHasherDefault,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use parking_lot::Mutex;
use url::Url;
use uuid::Uuid;

use crate::timeline::{self, Channel};

const SHARDS: usize = 64;
/// The smallest and largest payment IDs: twelve digits (the real
/// service's are 10 to 12).
const FIRST_ID: u64 = 100_000_000_000;
const LAST_ID: u64 = 999_999_999_999;

/// How long a submitted payment stays, at least: see
/// [`PaymentStore::keep_submitted`]. A day, as the real service's token
/// works for `payment/detail` for 24 h after the authorization, and the
/// merchant captures, cancels and refunds within it.
pub const SUBMITTED_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// How long a payment past its lifetime is remembered, its token answered
/// as expired rather than unknown.
pub const EXPIRED_REMEMBERED: Duration = Duration::from_secs(15 * 60);

/// Why a payment's token could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoSuchPayment {
    /// The store holds no payment of that token: never issued, or forgotten.
    Unknown,
    /// The token was issued and its lifetime is over.
    Expired,
}

impl From<NoSuchPayment> for crate::error::ApiError {
    fn from(missing: NoSuchPayment) -> Self {
        match missing {
            NoSuchPayment::Unknown => Self::InvalidPaymentToken,
            NoSuchPayment::Expired => Self::ExpiredPaymentToken,
        }
    }
}

type Shard = Mutex<HashMap<Uuid, Payment, BuildHasherDefault<TokenHasher>>>;
type IdShard = Mutex<HashMap<u64, Uuid, BuildHasherDefault<TokenHasher>>>;

/// The payments the service holds.
#[derive(Debug)]
pub struct PaymentStore {
    /// Shards, chosen by bits of the token.
    shards: Box<[Shard]>,
    /// Each payment's token by its `paymentID`, in shards chosen by the ID.
    ids: Box<[IdShard]>,
    /// The newest payment's creation time, in microseconds since the Unix
    /// epoch: the next one's is later.
    last_created_us: AtomicU64,
    /// Zero point of the expiry clock.
    epoch: Instant,
    /// How long a token lives after create.
    lifetime: Duration,
    /// How long a payment past its lifetime is remembered as expired.
    remembered_ms: u64,
    /// Where changes are written, with a data file.
    journal: Option<Arc<dyn PaymentLog>>,
    /// Unified shops' settlements to come, earliest first.
    settlements: Settlements,
}

/// Where the store writes its payments' changes (the data file's journal).
pub trait PaymentLog: Send + Sync + std::fmt::Debug {
    /// A payment as it is now; `expires_unix_ms` is when its token stops
    /// working, in milliseconds since the Unix epoch.
    fn payment(&self, token: &Uuid, payment: &Payment, expires_unix_ms: u64);
    /// Payments removed: their lifetime is over.
    fn forget(&self, tokens: Vec<Uuid>);
}

impl PaymentStore {
    /// An empty store whose tokens live for `lifetime`.
    #[cfg(test)]
    pub fn new(lifetime: Duration) -> Self {
        Self::journaled(lifetime, None)
    }

    /// An empty store whose expired payments are remembered for `remembered`.
    #[cfg(test)]
    pub fn remembering(lifetime: Duration, remembered: Duration) -> Self {
        Self {
            remembered_ms: duration_ms(remembered),
            ..Self::new(lifetime)
        }
    }

    /// An empty store whose changes are written to `journal`, when given.
    pub fn journaled(lifetime: Duration, journal: Option<Arc<dyn PaymentLog>>) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            ids: (0..SHARDS).map(|_| Mutex::default()).collect(),
            last_created_us: AtomicU64::new(0),
            epoch: Instant::now(),
            lifetime,
            remembered_ms: duration_ms(EXPIRED_REMEMBERED),
            journal,
            settlements: Settlements::default(),
        }
    }

    /// Puts back a payment read from the data file, unless it is past the
    /// time it is remembered; payment IDs go on counting from above the
    /// highest seen.
    pub fn restore(&self, token: Uuid, mut payment: Payment, expires_unix_ms: u64) {
        let now_unix = timeline::now_ms();
        if expires_unix_ms.saturating_add(self.remembered_ms) <= now_unix {
            if let Some(journal) = &self.journal {
                journal.forget(vec![token]);
            }
            return;
        }
        // A payment already expired keeps its distance from now, as far as
        // the store's clock reaches back.
        payment.expires_at_ms = match expires_unix_ms.checked_sub(now_unix) {
            Some(left) => self.now_ms().saturating_add(left),
            None => self
                .now_ms()
                .saturating_sub(now_unix.saturating_sub(expires_unix_ms)),
        };
        self.last_created_us
            .fetch_max(payment.created_us, Ordering::Relaxed);
        self.settlements
            .schedule(&token, None, payment.ledger().and_then(|l| l.settles_at_ms));
        self.id_shard(payment.id).lock().insert(payment.id, token);
        self.shard(&token).lock().insert(token, payment);
    }

    /// When a payment's token stops working, in milliseconds since the Unix epoch.
    fn expires_unix_ms(&self, payment: &Payment) -> u64 {
        timeline::now_ms().saturating_add(payment.expires_at_ms.saturating_sub(self.now_ms()))
    }

    /// Now, in microseconds since the Unix epoch, and later than every
    /// payment created before.
    pub(crate) fn created_now(&self) -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        let before = self
            .last_created_us
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or(now);
        now.max(before + 1)
    }

    /// Records a new payment; returns its token and ID.
    pub fn create(&self, new: NewPayment) -> (Uuid, u64) {
        let lifetime = new.lifetime.unwrap_or(self.lifetime);
        let expires_at_ms = self.now_ms().saturating_add(duration_ms(lifetime));
        let payment = Payment {
            id: 0,
            merchant: new.merchant,
            amount: new.amount,
            currency: new.currency,
            shop_transaction_id: new.shop_transaction_id,
            state: PaymentState::Created,
            expires_at_ms,
            masked_pan: None,
            buyer_redirects: new.redirects,
            created_us: self.created_now(),
            trail: None,
        };
        loop {
            let token = Uuid::new_v4();
            let mut shard = self.shard(&token).lock();
            // A collision of random v4 UUIDs is vanishingly rare; draw again if it happens.
            if let Entry::Vacant(slot) = shard.entry(token) {
                let id = self.new_id(token);
                let mut payment = payment;
                payment.id = id;
                let payment = slot.insert(payment);
                if let Some(journal) = &self.journal {
                    journal.payment(&token, payment, self.expires_unix_ms(payment));
                }
                return (token, id);
            }
        }
    }

    /// Keeps a payment that has just left `Created` for at least
    /// [`SUBMITTED_RETENTION`] (or its token's lifetime, if longer) from
    /// now: the token's lifetime bounds the wait for submit, not the buyer's
    /// time at the issuer nor the answers to later submits of the token.
    pub fn keep_submitted(&self, payment: &mut Payment) {
        let until = self
            .now_ms()
            .saturating_add(duration_ms(SUBMITTED_RETENTION.max(self.lifetime)));
        payment.expires_at_ms = payment.expires_at_ms.max(until);
    }

    /// Runs `f` on the live payment a token names, under its shard's lock;
    /// a payment `f` changed is queued to the journal. A payment past its
    /// lifetime is [`NoSuchPayment::Expired`] while it is remembered.
    pub fn with_payment<R>(
        &self,
        token: &Uuid,
        f: impl FnOnce(&mut Payment) -> R,
    ) -> Result<R, NoSuchPayment> {
        let now = self.now_ms();
        let mut shard = self.shard(token).lock();
        match shard.get_mut(token) {
            Some(payment) if payment.expires_at_ms > now => {
                let settles_at = |p: &Payment| p.ledger().and_then(|l| l.settles_at_ms);
                let due_before = settles_at(payment);
                let Some(journal) = &self.journal else {
                    let answer = f(payment);
                    self.settlements
                        .schedule(token, due_before, settles_at(payment));
                    return Ok(answer);
                };
                let before = Fingerprint::of(payment);
                let answer = f(payment);
                self.settlements
                    .schedule(token, due_before, settles_at(payment));
                if Fingerprint::of(payment) != before {
                    journal.payment(token, payment, self.expires_unix_ms(payment));
                }
                Ok(answer)
            }
            Some(payment) if self.remembered(payment, now) => Err(NoSuchPayment::Expired),
            _ => Err(NoSuchPayment::Unknown),
        }
    }

    /// The payments whose settlement is due by `now_unix_ms`, taken from
    /// those to come, earliest first.
    pub fn due_settlements(&self, now_unix_ms: u64) -> Vec<Uuid> {
        self.settlements.due(now_unix_ms)
    }

    /// A new payment ID for `token`: random, in the real service's shape
    /// (twelve digits), so that an ID tells nothing of another shop's
    /// payments nor how many there are; drawn again while it is taken.
    fn new_id(&self, token: Uuid) -> u64 {
        loop {
            let id =
                FIRST_ID + (Uuid::new_v4().as_u128() % u128::from(LAST_ID - FIRST_ID + 1)) as u64;
            if let Entry::Vacant(slot) = self.id_shard(id).lock().entry(id) {
                slot.insert(token);
                return id;
            }
        }
    }

    /// The token of the payment with this `paymentID`, while the store holds it.
    pub fn token_of(&self, payment_id: u64) -> Option<Uuid> {
        self.id_shard(payment_id).lock().get(&payment_id).copied()
    }

    /// Keeps `address` as the notification address of every live payment of
    /// `merchant` created before `created_before_us` that has none of its
    /// own ([`Payment::keep_notification_address`]), each kept one queued to
    /// the journal; how many. Called when the profile's address changes.
    pub fn keep_notification_addresses(
        &self,
        merchant: u32,
        created_before_us: u64,
        address: Option<&Url>,
    ) -> usize {
        let now = self.now_ms();
        let mut kept = 0;
        for shard in self.shards.iter() {
            for (token, payment) in shard.lock().iter_mut() {
                if payment.merchant == merchant
                    && payment.expires_at_ms > now
                    && payment.created_us < created_before_us
                    && payment.keep_notification_address(address)
                {
                    kept += 1;
                    if let Some(journal) = &self.journal {
                        journal.payment(token, payment, self.expires_unix_ms(payment));
                    }
                }
            }
        }
        kept
    }

    /// Calls `f` on every live payment, a shard at a time under its lock.
    pub fn for_each(&self, mut f: impl FnMut(&Uuid, &Payment)) {
        let now = self.now_ms();
        for shard in self.shards.iter() {
            for (token, payment) in shard.lock().iter() {
                if payment.expires_at_ms > now {
                    f(token, payment);
                }
            }
        }
    }

    /// Removes payments no longer remembered, one shard at a time; returns how many.
    #[cfg(test)]
    pub fn sweep(&self) -> usize {
        (0..self.shards.len()).map(|i| self.sweep_shard(i)).sum()
    }

    /// How many shards [`Self::sweep_shard`] takes.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Whether a payment is still held: live, or expired and remembered.
    fn remembered(&self, payment: &Payment, now: u64) -> bool {
        payment.expires_at_ms.saturating_add(self.remembered_ms) > now
    }

    /// Removes the payments of one shard that are no longer remembered,
    /// holding only its lock, and gives memory back when most of the shard
    /// was removed; returns how many.
    pub fn sweep_shard(&self, index: usize) -> usize {
        let now = self.now_ms();
        let Some(shard) = self.shards.get(index) else {
            return 0;
        };
        let mut shard = shard.lock();
        let before = shard.len();
        let mut gone = Vec::new();
        let mut gone_ids = Vec::new();
        shard.retain(|token, p| {
            let kept = self.remembered(p, now);
            if !kept {
                gone_ids.push(p.id);
                if self.journal.is_some() {
                    gone.push(*token);
                }
            }
            kept
        });
        if let Some(journal) = &self.journal {
            journal.forget(gone);
        }
        if shard.capacity() > 64 && shard.len() < shard.capacity() / 4 {
            shard.shrink_to_fit();
        }
        let removed = before - shard.len();
        drop(shard);
        for id in gone_ids {
            self.id_shard(id).lock().remove(&id);
        }
        removed
    }

    /// How many payments the store holds, expired but unswept ones included.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    fn id_shard(&self, payment_id: u64) -> &IdShard {
        &self.ids[usize::try_from(payment_id % SHARDS as u64).unwrap_or(0)]
    }

    fn shard(&self, token: &Uuid) -> &Shard {
        let bytes = token.as_bytes();
        &self.shards[usize::from(bytes[15]) % SHARDS]
    }

    fn now_ms(&self) -> u64 {
        duration_ms(self.epoch.elapsed())
    }
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

mod fingerprint;
mod payment;
mod settlements;
mod token_hasher;

use fingerprint::Fingerprint;
pub use payment::{Buyer, BuyerRedirects, NewPayment, Payment, PaymentState, Trail};
use settlements::Settlements;
use token_hasher::TokenHasher;

#[cfg(test)]
mod tests;
