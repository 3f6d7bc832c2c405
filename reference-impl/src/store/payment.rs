//! One payment as the store keeps it: where it is in its life, its trail
//! after create (the buyer's way, its timeline, its money), and the
//! addresses its buyer is sent to.

use std::time::Duration;

use url::Url;

pub use crate::request::submit::Buyer;
use crate::{
    bank_id::bank_transaction_id,
    card::Expiry,
    ledger::{Ending, Ledger, Settlement},
    money::{Amount, Currency},
    outcomes::Challenge,
    request::response_urls::ResponseUrls,
    timeline::{self, Channel, Event},
};

/// Where a payment is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaymentState {
    /// Created; waiting for submit.
    Created,
    /// Submitted with a 3-D Secure card; waiting for the buyer at the issuer.
    AwaitingAuthentication,
    /// The buyer chose an alternative payment method on the payment page;
    /// waiting for them to approve or refuse at the method's page.
    AwaitingMethod,
    /// Paid.
    Authorized,
    /// Refused by the issuer, or the buyer failed or cancelled authentication.
    Declined,
}

/// One payment process.
#[derive(Debug)]
pub struct Payment {
    /// The numeric identifier returned as `paymentID`.
    pub id: u64,
    /// Index of the merchant in the configuration.
    pub merchant: u32,
    /// What the buyer pays.
    pub amount: Amount,
    /// In which currency.
    pub currency: Currency,
    /// The merchant's own reference for the transaction.
    pub shop_transaction_id: Box<str>,
    /// Where the payment is in its life.
    pub state: PaymentState,
    /// Milliseconds after the store's epoch at which the token stops working.
    pub(crate) expires_at_ms: u64,
    /// The submitted card, first six and last four digits only.
    pub masked_pan: Option<Box<str>>,
    /// Addresses the submit call asked the buyer to be sent to.
    pub buyer_redirects: Option<Box<BuyerRedirects>>,
    /// When it was created, in microseconds since the Unix epoch; no two
    /// payments of a store have the same (the later one's is larger), so
    /// it orders them newest first, as their random IDs cannot.
    pub created_us: u64,
    /// What happened to it after create; made at its first event, so a
    /// payment that only waits for its card costs no more than it did
    /// before it had a timeline.
    pub trail: Option<Box<Trail>>,
}

/// A payment's life after create.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trail {
    /// How it was paid, once a card or a method was taken.
    pub channel: Option<Channel>,
    /// Whether the buyer passed the issuer's authentication, for a card
    /// that needed it, once they answered.
    pub authenticated: Option<bool>,
    /// For a card sent to the issuer's challenge, how the challenge ends
    /// for the right code (decided at submit, by the card).
    pub challenge: Option<Challenge>,
    /// How many times its own token has read its detail.
    pub token_reads: u8,
    /// What happened to it since create, oldest first.
    pub events: Vec<Event>,
    /// Its money once a card or method was taken: authorised, settled,
    /// cancelled, refunded.
    pub ledger: Option<Ledger>,
    /// The buyer, as the submit or the payment page named them.
    pub buyer: Option<Buyer>,
    /// The card token it was paid with or asked for, and its card's expiry.
    pub card_token: Option<(Box<str>, Expiry)>,
}


impl Payment {
    /// Appends an event to its timeline (bounded: see [`timeline::record`]).
    pub fn record(&mut self, what: timeline::What) {
        timeline::record(&mut self.trail_mut().events, Event::now(what));
    }

    /// Ends its authorization: paid (`Authorized`) or not (`Declined`), its
    /// ledger opened with the authorization's `AUT` under the shop's
    /// settlement mode, and with how it ended. The one place a payment
    /// becomes either.
    pub fn end(&mut self, ending: Ending, settlement: Settlement) {
        self.state = if ending.paid() {
            PaymentState::Authorized
        } else {
            PaymentState::Declined
        };
        let ledger = Ledger::authorized(ending, self.amount, settlement, timeline::now_ms());
        self.trail_mut().ledger = Some(ledger);
    }

    /// Its trail, made when it has none yet.
    pub fn trail_mut(&mut self) -> &mut Trail {
        self.trail.get_or_insert_with(Box::default)
    }

    /// How it was paid, once a card or a method was taken.
    pub fn channel(&self) -> Option<Channel> {
        self.trail.as_ref().and_then(|t| t.channel)
    }

    /// Whether the buyer passed the issuer's authentication, once they answered.
    pub fn authenticated(&self) -> Option<bool> {
        self.trail.as_ref().and_then(|t| t.authenticated)
    }

    /// What happened to it since create, oldest first.
    pub fn events(&self) -> &[Event] {
        self.trail.as_ref().map_or(&[], |t| &t.events)
    }

    /// Its money, once a card or method was taken.
    pub fn ledger(&self) -> Option<&Ledger> {
        self.trail.as_ref().and_then(|t| t.ledger.as_ref())
    }

    /// Its money, once a card or method was taken, with a unified shop's
    /// settlement made when it is due.
    pub fn ledger_now(&mut self, now_ms: u64) -> Option<&mut Ledger> {
        let amount = self.amount;
        let ledger = self.trail.as_mut().and_then(|t| t.ledger.as_mut())?;
        ledger.settle_due(amount, now_ms);
        Some(ledger)
    }

    /// The bank's identifier of its transaction, `bankTransactionID`: digits,
    /// as unique as the `paymentID` and apart from it (see
    /// [`bank_transaction_id`]), so a merchant's code that mixes the two up
    /// finds nothing.
    pub fn bank_transaction_id(&self) -> u64 {
        bank_transaction_id(self.id)
    }

    /// When it was created, in milliseconds since the Unix epoch.
    pub fn created_ms(&self) -> u64 {
        self.created_us / 1000
    }

    /// Takes the buyer's addresses a step of its payment names (a submit's
    /// `responseURLs`, the lightbox it is paid in): each address the step
    /// names replaces the one kept (a submit's over a create's), and the
    /// lightbox's origin is the step's own (none for a step outside one).
    pub fn redirect_buyer(&mut self, step: BuyerRedirects) {
        let kept = self.buyer_redirects.take().map(|r| *r).unwrap_or_default();
        let merged = BuyerRedirects {
            ok: step.ok.or(kept.ok),
            ko: step.ko.or(kept.ko),
            framed_by: step.framed_by,
            notification: step.notification.or(kept.notification),
            unnotified: kept.unnotified,
        };
        self.buyer_redirects = (merged != BuyerRedirects::default()).then(|| Box::new(merged));
    }

    /// The origin of the shop page whose lightbox shows its payment page:
    /// the first that opened it (`origin`), kept, so that no later page of
    /// another site that learnt the token can frame it or be told its
    /// outcome.
    pub fn lightbox_origin(&mut self, origin: Option<&str>) -> Option<Box<str>> {
        if let Some(bound) = self.buyer_redirects.as_ref().and_then(|r| r.framed_by.clone()) {
            return Some(bound);
        }
        let origin: Box<str> = origin?.into();
        self.buyer_redirects
            .get_or_insert_with(Box::default)
            .framed_by = Some(origin.clone());
        Some(origin)
    }

    /// Keeps `address`, the profile's notification address when the payment
    /// was created, as its own, unless it has one already (or none at all):
    /// so the profile's changing later sends none of its notifications
    /// elsewhere. Whether it was kept.
    pub fn keep_notification_address(&mut self, address: Option<&Url>) -> bool {
        if self
            .buyer_redirects
            .as_ref()
            .is_some_and(|r| r.notification.is_some() || r.unnotified)
        {
            return false;
        }
        let redirects = self.buyer_redirects.get_or_insert_with(Box::default);
        match address {
            Some(address) => redirects.notification = Some(address.clone()),
            None => redirects.unnotified = true,
        }
        true
    }

    /// The lightbox's origin, once one opened its payment page.
    pub fn framed_by(&self) -> Option<&str> {
        self.buyer_redirects.as_ref()?.framed_by.as_deref()
    }
}

/// Where the buyer goes when the payment ends, where the back-office pages
/// are not the answer: the `responseURLs` a submit call passed, or the shop
/// page whose lightbox the buyer paid in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuyerRedirects {
    /// Where the buyer goes after a successful payment.
    pub ok: Option<Url>,
    /// Where the buyer goes after a failed one.
    pub ko: Option<Url>,
    /// The origin of the shop page that showed the payment page in its
    /// lightbox: the outcome is told to it, by the result page.
    pub framed_by: Option<Box<str>>,
    /// Where the outcome is posted, in place of the profile's notification
    /// address: the `responseURLs.serverNotificationURL` of its create or
    /// submit, or the profile's address when the payment was created, kept
    /// when the profile's changed since.
    pub notification: Option<Url>,
    /// No notification at all, whatever the profile says now: its profile
    /// had no notification address when the payment was created.
    pub unnotified: bool,
}


impl From<ResponseUrls> for BuyerRedirects {
    /// A create's or a submit's `responseURLs`: no shop page's lightbox.
    fn from(urls: ResponseUrls) -> Self {
        let ResponseUrls {
            ok,
            ko,
            notification,
        } = urls;
        Self {
            ok,
            ko,
            framed_by: None,
            notification,
            unnotified: false,
        }
    }
}

/// What create records about a new payment.
#[derive(Debug)]
pub struct NewPayment {
    /// Index of the merchant in the configuration.
    pub merchant: u32,
    /// What the buyer pays.
    pub amount: Amount,
    /// In which currency.
    pub currency: Currency,
    /// The merchant's own reference.
    pub shop_transaction_id: Box<str>,
    /// How long its token lives; `None`: the store's lifetime.
    pub lifetime: Option<Duration>,
    /// The shop's addresses for it, given at create (`responseURLs`).
    pub redirects: Option<Box<BuyerRedirects>>,
}
