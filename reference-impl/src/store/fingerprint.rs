//! What the store compares before and after a call to know whether a
//! payment changed, and so whether the journal writes it again.

use super::{Channel, Payment, PaymentState};

/// What a call may change of a payment: when it differs after the call,
/// the payment is written again. Its timeline only grows (up to its bound),
/// so its length tells whether an event was added.
#[derive(PartialEq, Eq)]
pub(super) struct Fingerprint {
    state: PaymentState,
    events: usize,
    expires_at_ms: u64,
    masked_pan: bool,
    redirects: bool,
    channel: Option<Channel>,
    authenticated: Option<bool>,
    money: Option<(usize, Option<u64>)>,
}

impl Fingerprint {
    pub(super) fn of(p: &Payment) -> Self {
        Self {
            state: p.state,
            events: p.events().len(),
            expires_at_ms: p.expires_at_ms,
            masked_pan: p.masked_pan.is_some(),
            redirects: p.buyer_redirects.is_some(),
            channel: p.channel(),
            authenticated: p.authenticated(),
            money: p.ledger().map(|l| (l.events.len(), l.settles_at_ms)),
        }
    }
}
