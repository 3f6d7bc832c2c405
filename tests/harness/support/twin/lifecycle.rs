//! The twin's payment life after submit, in its own ways: `payment/detail`
//! (events listed flat, or wrapped in the [`Variation::WrappedEvents`]
//! variation), capture, cancel and refund, each refusal as a code of the
//! envelope (`error.code "8014"`, ...) where the reference implementation
//! answers `transactionResult "KO"`. Its own shop settles at once, as soon
//! as the payment is authorised (or two seconds later in
//! [`Variation::SettlesAfterADelay`]); its second shop waits for the
//! merchant's capture.
//!
//! The lifecycle defects each break one `REF-LIFE` requirement.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

use super::{
    API_KEY, Defect, SECOND_API_KEY, SECOND_SHOP, SHOP, Twin, Variation, outcomes::Ending,
};

/// How long the twin's own shop takes to settle in the delayed variation.
pub const SETTLEMENT_DELAY: Duration = Duration::from_secs(2);

/// How long after its check an operation's record lands in the race
/// defects: a handler that awaits its database between the two.
pub const RECORD_LATE: Duration = Duration::from_millis(50);

/// A payment's money, once the twin authorised it.
#[derive(Clone, Debug)]
pub(super) struct Ledger {
    /// The shop it was paid at.
    shop: &'static str,
    /// The merchant's reference.
    reference: String,
    /// What was authorised, in hundredths.
    authorized: u64,
    currency: String,
    /// When its own shop settles it; `None` for the second shop.
    settles_at: Option<Instant>,
    /// (event type, amount in hundredths, when its record lands), oldest
    /// first: at once, but for the race defects' late records.
    events: Vec<(&'static str, u64, Instant)>,
    /// How its authorization ended.
    ending: Ending,
}

impl Ledger {
    /// Settles its own shop's payment when its time has come.
    fn settle_due(&mut self, twin: &Twin) {
        if twin.has(Defect::NeverSettlesByItself) {
            return;
        }
        if let Some(at) = self.settles_at
            && at <= Instant::now()
        {
            self.settles_at = None;
            self.events.push(("MOV", self.authorized, at));
        }
    }

    /// The events whose records have landed: what a check sees.
    fn landed(&self, kind: &'static str) -> impl Iterator<Item = u64> + '_ {
        let now = Instant::now();
        self.events
            .iter()
            .filter(move |(k, _, at)| *k == kind && *at <= now)
            .map(|(_, amount, _)| *amount)
    }

    fn settled(&self) -> u64 {
        self.landed("MOV").sum()
    }

    fn refunded(&self) -> u64 {
        self.landed("STO").sum()
    }

    fn cancelled(&self) -> bool {
        self.landed("CAN").next().is_some()
    }
}

/// Hundredths of an amount written `N`, `N.N` or `N.NN`.
fn hundredths(text: &str) -> Option<u64> {
    let (units, decimals) = text.split_once('.').unwrap_or((text, ""));
    if units.is_empty() || decimals.len() > 2 {
        return None;
    }
    let units: u64 = units.parse().ok()?;
    let cents: u64 = format!("{decimals:0<2}").parse().ok()?;
    Some(units * 100 + cents)
}

fn written(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

impl Twin {
    /// The shop of a create's key, or `None` for a key the twin does not know.
    pub(super) fn shop_of_key(key: &str) -> Option<&'static str> {
        match key {
            API_KEY => Some(SHOP),
            SECOND_API_KEY => Some(SECOND_SHOP),
            _ => None,
        }
    }

    /// A payment's money begins: authorised, and its own shop's settled at
    /// once (or after the variation's delay); or refused, a negative
    /// authorization and nothing after it. A payment executed again (a
    /// defect's) records a second authorization beside the first, as a
    /// second charge is recorded.
    pub(super) fn end(&self, payment_id: &str, ending: Ending) {
        let Some(order) = self
            .state
            .orders
            .lock()
            .expect("lock")
            .get(payment_id)
            .cloned()
        else {
            return;
        };
        let paid = ending.refusal.is_none();
        let authorized = if paid {
            hundredths(&order.amount).unwrap_or(0)
        } else {
            0
        };
        let settles_at = (paid && order.shop == SHOP).then(|| {
            if self.variation == Some(Variation::SettlesAfterADelay) {
                Instant::now() + SETTLEMENT_DELAY
            } else {
                Instant::now()
            }
        });
        if let Some(ledger) = self.state.ledgers.lock().expect("lock").get_mut(payment_id) {
            ledger.authorized += authorized;
            ledger.events.push(("AUT", authorized, Instant::now()));
            return;
        }
        let ledger = Ledger {
            shop: order.shop,
            reference: order.shop_transaction_id,
            authorized,
            currency: order.currency,
            settles_at,
            events: vec![("AUT", authorized, Instant::now())],
            ending,
        };
        self.state
            .ledgers
            .lock()
            .expect("lock")
            .insert(payment_id.to_owned(), ledger);
    }

    /// The shop whose key the request carries.
    pub(super) fn caller(request: &Request) -> Option<&'static str> {
        let value = request.headers.get("authorization")?.to_str().ok()?;
        let (scheme, key) = value.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("apikey")
            .then(|| Self::shop_of_key(key))
            .flatten()
    }

    /// The payment a body names: by `paymentID`, or by `shopTransactionID`.
    fn named(&self, shop: &str, body: &Value) -> Option<String> {
        let ledgers = self.state.ledgers.lock().expect("lock");
        if let Some(id) = body["paymentID"].as_str() {
            return ledgers
                .get(id)
                .filter(|l| l.shop == shop)
                .map(|_| id.to_owned());
        }
        if self.has(Defect::DetailNotFoundByReference) {
            return None;
        }
        let reference = body["shopTransactionID"].as_str()?;
        ledgers
            .iter()
            .find(|(_, l)| l.shop == shop && l.reference == reference)
            .map(|(id, _)| id.clone())
    }

    /// `GET payment/detail/{id}` and `POST payment/detail`.
    pub(super) fn detail(&self, request: &Request, path_id: Option<&str>) -> ResponseTemplate {
        let Some(shop) = Self::caller(request) else {
            return self.refusal("AUTH_INVALID", "API key not recognised");
        };
        let body: Value = if let Some(id) = path_id {
            json!({"paymentID": id})
        } else {
            match self.read(&request.body) {
                Some(body) => body,
                None => return self.unusable(400, "BAD_JSON", "request body is not JSON"),
            }
        };
        let Some(id) = self.named(shop, &body) else {
            return self.refusal("TXN_NOT_FOUND", "no such transaction");
        };
        let mut ledgers = self.state.ledgers.lock().expect("lock");
        let ledger = ledgers.get_mut(&id).expect("named from the ledgers");
        ledger.settle_due(self);
        let mut events: Vec<(&str, u64)> = ledger
            .events
            .iter()
            .map(|(kind, amount, _)| (*kind, *amount))
            .collect();
        if self.has(Defect::DetailMissesTheAuthorization) {
            events.retain(|(kind, _)| *kind != "AUT");
        }
        let last = events.last().map_or("", |(kind, _)| *kind);
        let state = if last == "MOV" && self.has(Defect::DetailStateStaleAfterCapture) {
            "AUT"
        } else {
            last
        };
        let wrapped = self.variation == Some(Variation::WrappedEvents);
        let events: Vec<Value> = events
            .iter()
            .enumerate()
            .map(|(i, (kind, amount))| {
                let event = json!({
                    "eventtype": kind, "eventamount": written(*amount),
                    "eventdate": "26/11/26 12:00:00", "eventID": (i + 1).to_string(),
                });
                if wrapped {
                    json!({"event": event})
                } else {
                    event
                }
            })
            .collect();
        self.processed(
            "Request processed successfully",
            json!({
                "transactionType": "detail",
                "transactionResult": if ledger.ending.refusal.is_some() { "DECLINED" } else { "OK" },
                "transactionErrorCode": ledger.ending.refusal.unwrap_or(""),
                "threeDS": {"AuthenticationResult": {"authenticationLevel": ledger.ending.level}},
                "transactionState": state,
                "paymentID": id,
                "shopTransactionID": ledger.reference,
                "currency": ledger.currency,
                "events": events,
                "channel": "api",
            }),
        )
    }

    /// `payment/capture/`, `payment/cancel/` and `payment/refund/`.
    pub(super) fn operation(&self, request: &Request, kind: &str) -> ResponseTemplate {
        let Some(shop) = Self::caller(request) else {
            return self.refusal("AUTH_INVALID", "API key not recognised");
        };
        let Some(body) = self.read(&request.body) else {
            return self.unusable(400, "BAD_JSON", "request body is not JSON");
        };
        let Some(id) = self.named(shop, &body) else {
            return self.refusal("TXN_NOT_FOUND", "no such transaction");
        };
        let amount = body["amount"].as_str().and_then(hundredths);
        let mut ledgers = self.state.ledgers.lock().expect("lock");
        let ledger = ledgers.get_mut(&id).expect("named from the ledgers");
        ledger.settle_due(self);
        // When the record lands: at once, but late in the race defects.
        let landing = |late: bool| Instant::now() + if late { RECORD_LATE } else { Duration::ZERO };
        let racing_transitions = self.has(Defect::CaptureAndCancelBothDone);
        let racing_refunds = self.has(Defect::ConcurrentRefundsExceedTheBalance);
        let refused = match kind {
            "capture" => {
                let amount = amount.unwrap_or(0);
                if ledger.shop == SHOP || ledger.settled() > 0 || ledger.cancelled() {
                    Some(("2019", "transaction cannot be settled"))
                } else if amount > ledger.authorized
                    && !self.has(Defect::CaptureAboveAuthorizedAccepted)
                {
                    Some(("58", "confirmed amount exceeds the authorised amount"))
                } else {
                    ledger
                        .events
                        .push(("MOV", amount, landing(racing_transitions)));
                    None
                }
            }
            "cancel" => {
                let captured = ledger.settled() > 0;
                // Its own shop settles by itself: no payment of it is cancelled.
                let refused = ledger.cancelled()
                    || ledger.shop == SHOP
                    || (captured && !self.has(Defect::CancelAfterCaptureAccepted));
                if refused {
                    Some(("2017", "transaction cannot be deleted"))
                } else {
                    if !self.has(Defect::CancelNotApplied) {
                        ledger.events.push(("CAN", 0, landing(racing_transitions)));
                    }
                    None
                }
            }
            _ => {
                let amount = amount.unwrap_or(0);
                let balance = ledger.settled().saturating_sub(ledger.refunded());
                if ledger.settled() == 0 && !self.has(Defect::RefundWithoutSettlementAccepted) {
                    Some(("8016", "no settlement"))
                } else if amount > balance
                    && !self.has(Defect::RefundAboveBalanceAccepted)
                    && ledger.settled() > 0
                {
                    Some(("8015", "refund greater than balance"))
                } else {
                    ledger.events.push(("STO", amount, landing(racing_refunds)));
                    None
                }
            }
        };
        match refused {
            Some((code, description)) => self.refusal(code, description),
            None => self.processed(
                "Request processed successfully",
                json!({
                    "transactionType": kind,
                    "transactionResult": "OK",
                    "paymentID": id,
                    "shopTransactionID": ledger.reference,
                }),
            ),
        }
    }
}
