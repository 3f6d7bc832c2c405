//! A payment's money after its authorization, as the real service keeps it
//! (docs/real-service.md, RS-EVENTS): events `AUT` (authorised), `MOV`
//! (settled), `CAN` (cancelled) and `STO` (refunded), and the rules that
//! take it from one to the next.
//!
//! - A shop settles in one of two ways, its settlement mode (the real
//!   service's M.O.T.O. setting): *unified*, where the service settles each
//!   authorised payment by itself after a delay (`MOV`, environment `BAT`);
//!   or *separated*, where a payment stays authorised until the merchant
//!   captures it (`MOV`, partial allowed, never above the authorised
//!   amount) or cancels it (`CAN`, before settlement only).
//! - Settled money is refunded (`STO`, its `eventReferred` the `MOV`), in
//!   as many parts as the merchant likes, never above what was settled.
//!
//! A refusal is a transaction-level code with its description, answered
//! with `transactionResult "KO"`: the operation was understood and the
//! payment does not allow it. The ledger is apart from the timeline, which
//! a client can fill with refused calls: money events are never dropped.
//! A payment takes at most [`MAX_MONEY_EVENTS`] of them; a refund past
//! that is refused.

use serde::{Deserialize, Serialize};

use crate::{
    money::Amount,
    outcomes::{AuthenticationLevel, Decline},
};

/// The most money events a payment keeps (its authorization, settlement
/// and refunds): refunds past it are refused, never dropped.
pub const MAX_MONEY_EVENTS: usize = 100;

/// How a shop's authorised payments are settled: the real service's
/// M.O.T.O. setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settlement {
    /// The service settles each authorised payment by itself after
    /// `delay_ms` (the real service's "unified").
    Unified {
        /// From the authorization to the settlement, in milliseconds.
        delay_ms: u64,
    },
    /// A payment stays authorised until the merchant captures or cancels
    /// it (the real service's "separated").
    Separated,
}

impl Settlement {
    /// Its name in the configuration and the data file: `unified` or `separated`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Unified { .. } => "unified",
            Self::Separated => "separated",
        }
    }
}

/// The code of a money event, as `payment/detail` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventType {
    /// Authorised.
    #[serde(rename = "AUT")]
    Authorized,
    /// Settled: the amount transferred.
    #[serde(rename = "MOV")]
    Settled,
    /// Cancelled: the authorization deleted.
    #[serde(rename = "CAN")]
    Cancelled,
    /// Refunded.
    #[serde(rename = "STO")]
    Refunded,
}

impl EventType {
    /// `AUT`, `MOV`, `CAN` or `STO`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Authorized => "AUT",
            Self::Settled => "MOV",
            Self::Cancelled => "CAN",
            Self::Refunded => "STO",
        }
    }
}

/// Where an event came from, as `payment/detail` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Environment {
    /// Online: an API call or the buyer's payment.
    #[serde(rename = "ONL")]
    Online,
    /// The back-office.
    #[serde(rename = "BOF")]
    BackOffice,
    /// A batch of the service's own: the settlement of a unified shop.
    #[serde(rename = "BAT")]
    Batch,
}

impl Environment {
    /// `ONL`, `BOF` or `BAT`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Online => "ONL",
            Self::BackOffice => "BOF",
            Self::Batch => "BAT",
        }
    }
}

/// One money event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoneyEvent {
    /// Its number in the payment, from 1.
    pub id: u32,
    /// What happened.
    pub kind: EventType,
    /// How much, in hundredths (0 for a cancellation).
    pub minor: u64,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// For a refund, the settlement it refunds.
    pub referred: Option<u32>,
    /// Where it came from.
    pub environment: Environment,
}

/// A payment's money once a card or method was taken.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// Whether the authorization was granted (a declined payment has a
    /// negative `AUT` and nothing after it).
    pub authorized: bool,
    /// When a unified shop's payment settles by itself, in milliseconds
    /// since the Unix epoch; `None` once settled or cancelled, or for a
    /// separated shop.
    pub settles_at_ms: Option<u64>,
    /// What was settled, in hundredths.
    pub settled_minor: u64,
    /// What was refunded of it, in hundredths.
    pub refunded_minor: u64,
    /// Every money event, oldest first.
    pub events: Vec<MoneyEvent>,
    /// How the buyer was authenticated before the authorization, when
    /// they were (`authenticationLevel`); a file written before the sandbox
    /// kept it reads as not authenticated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationLevel>,
    /// The code a refused authorization ended with (`transactionErrorCode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Box<str>>,
    /// How many of its events the merchant was notified of: the
    /// authorization by the payment's outcome, each later one by its own
    /// notification. A file written before the sandbox kept it reads as
    /// every event notified, so nothing old is sent again.
    #[serde(default = "every_event")]
    pub notified: u32,
}

fn every_event() -> u32 {
    u32::MAX
}

/// How a payment's authorization ended: granted or refused with a code,
/// after the buyer's 3-D Secure authentication when there was one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// `None`: granted; else why not.
    pub refusal: Option<Decline>,
    /// How the buyer was authenticated.
    pub authentication: Option<AuthenticationLevel>,
}

impl Ending {
    /// Granted, after an authentication at `level` when there was one.
    pub fn granted(authentication: Option<AuthenticationLevel>) -> Self {
        Self {
            refusal: None,
            authentication,
        }
    }

    /// Refused with `decline`, after an authentication at `level` when
    /// there was one.
    pub fn refused(decline: Decline, authentication: Option<AuthenticationLevel>) -> Self {
        Self {
            refusal: Some(decline),
            authentication,
        }
    }

    /// Whether the payment is paid.
    pub fn paid(self) -> bool {
        self.refusal.is_none()
    }
}

/// Why the ledger refuses an operation: the real service's transaction
/// code and its description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    /// `transactionErrorCode`.
    pub code: &'static str,
    /// `transactionErrorDescription`.
    pub description: &'static str,
}

const fn refused(code: &'static str, description: &'static str) -> Refused {
    Refused { code, description }
}

/// 8012: there is no authorization to capture or cancel.
pub const NO_AUTHORIZATION: Refused = refused("8012", "authorisation not found");
/// 8014: a capture above the authorised amount (the real service also says 58).
pub const ABOVE_AUTHORIZED: Refused = refused("8014", "settlement greater than authorisation");
/// 2019: a payment settled already, cancelled, or of a unified shop.
pub const CANNOT_SETTLE: Refused = refused("2019", "transaction cannot be settled");
/// 2017: a payment settled already, or cancelled.
pub const CANNOT_DELETE: Refused = refused("2017", "transaction cannot be deleted");
/// 8016: a refund of a payment never settled.
pub const NO_SETTLEMENT: Refused = refused("8016", "transaction without settlement");
/// 2014: a refund above what is left of the settled amount (also 8015).
pub const ABOVE_BALANCE: Refused = refused("2014", "refund exceeds the balance");
/// 2018: a refund of a payment that cannot be refunded (declined,
/// cancelled, or with as many refunds as it keeps).
pub const CANNOT_REFUND: Refused = refused("2018", "transaction cannot be refunded");
/// 65: another currency than the payment's.
pub const WRONG_CURRENCY: Refused = refused("65", "wrong currency");

impl Ledger {
    /// The ledger of a payment whose card or method was just taken, for
    /// `amount`, under the shop's settlement mode.
    pub fn authorized(ending: Ending, amount: Amount, settlement: Settlement, now_ms: u64) -> Self {
        let granted = ending.paid();
        let mut ledger = Self {
            authorized: granted,
            authentication: ending.authentication,
            refusal: ending.refusal.map(|d| d.code.into()),
            // The authorization is told by the payment's outcome.
            notified: 1,
            ..Self::default()
        };
        ledger.push(
            EventType::Authorized,
            if granted { amount.minor() } else { 0 },
            now_ms,
            None,
            Environment::Online,
        );
        if let (true, Settlement::Unified { delay_ms }) = (granted, settlement) {
            ledger.settles_at_ms = Some(now_ms.saturating_add(delay_ms));
        }
        ledger
    }

    /// Settles a unified shop's payment whose time has come, dated when it
    /// was due; whether it did.
    pub fn settle_due(&mut self, amount: Amount, now_ms: u64) -> bool {
        match self.settles_at_ms {
            Some(at) if at <= now_ms => {
                self.settles_at_ms = None;
                self.settled_minor = amount.minor();
                self.push(
                    EventType::Settled,
                    amount.minor(),
                    at,
                    None,
                    Environment::Batch,
                );
                true
            }
            _ => false,
        }
    }

    /// The events the merchant has not been notified of yet, oldest first,
    /// taken: from now on they count as notified.
    pub fn take_unnotified(&mut self) -> Vec<MoneyEvent> {
        let from = usize::try_from(self.notified)
            .unwrap_or(usize::MAX)
            .min(self.events.len());
        self.notified = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
        self.events[from..].to_vec()
    }

    /// The last event's code, `transactionState`; empty before any.
    pub fn state(&self) -> &'static str {
        self.events.last().map_or("", |e| e.kind.code())
    }

    /// Whether it was cancelled.
    pub fn cancelled(&self) -> bool {
        self.events.iter().any(|e| e.kind == EventType::Cancelled)
    }

    /// Captures `amount` of a separated shop's authorised payment.
    pub fn capture(
        &mut self,
        amount: Amount,
        authorized: Amount,
        from: Environment,
        now_ms: u64,
    ) -> Result<(), Refused> {
        if !self.authorized {
            return Err(NO_AUTHORIZATION);
        }
        if self.settled_minor > 0 || self.cancelled() || self.settles_at_ms.is_some() {
            return Err(CANNOT_SETTLE);
        }
        if amount > authorized {
            return Err(ABOVE_AUTHORIZED);
        }
        self.settled_minor = amount.minor();
        self.push(EventType::Settled, amount.minor(), now_ms, None, from);
        Ok(())
    }

    /// Cancels a separated shop's authorised payment, before settlement.
    pub fn cancel(&mut self, from: Environment, now_ms: u64) -> Result<(), Refused> {
        if !self.authorized {
            return Err(NO_AUTHORIZATION);
        }
        if self.settled_minor > 0 || self.cancelled() || self.settles_at_ms.is_some() {
            return Err(CANNOT_DELETE);
        }
        self.push(EventType::Cancelled, 0, now_ms, None, from);
        Ok(())
    }

    /// Refunds `amount` of the settled money.
    pub fn refund(
        &mut self,
        amount: Amount,
        from: Environment,
        now_ms: u64,
    ) -> Result<(), Refused> {
        if !self.authorized || self.cancelled() || self.events.len() >= MAX_MONEY_EVENTS {
            return Err(CANNOT_REFUND);
        }
        if self.settled_minor == 0 {
            return Err(NO_SETTLEMENT);
        }
        let balance = self.settled_minor - self.refunded_minor;
        if amount.minor() > balance {
            return Err(ABOVE_BALANCE);
        }
        self.refunded_minor += amount.minor();
        let settlement = self
            .events
            .iter()
            .rfind(|e| e.kind == EventType::Settled)
            .map(|e| e.id);
        self.push(
            EventType::Refunded,
            amount.minor(),
            now_ms,
            settlement,
            from,
        );
        Ok(())
    }

    fn push(
        &mut self,
        kind: EventType,
        minor: u64,
        at_ms: u64,
        referred: Option<u32>,
        environment: Environment,
    ) {
        let id = u32::try_from(self.events.len() + 1).unwrap_or(u32::MAX);
        self.events.push(MoneyEvent {
            id,
            kind,
            minor,
            at_ms,
            referred,
            environment,
        });
    }
}

#[cfg(test)]
mod tests;
