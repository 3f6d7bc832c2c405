//! The payment's life after submit, as the merchant's server drives it with
//! its API key: `payment/capture/`, `payment/cancel/`, `payment/refund/`
//! and `payment/update` (docs/real-service.md: RS-CAPTURE, RS-CANCEL, RS-REFUND).
//!
//! Each names the payment by its identifiers (`transaction_ids`) and asks
//! its ledger (`ledger`) for the change. A request the service cannot use
//! (no key, a missing field, no such payment) is refused with the
//! envelope's code; an operation the payment does not allow (a capture
//! above the authorised amount, a refund above the balance, a cancel after
//! settlement) is answered `transactionResult "KO"` with the real
//! service's transaction code, as the real service answers the payment's
//! own outcomes.

use http::{Request, Response};
use hyper::body::Incoming;
use payconf_spec::transaction::TransactionResult;
use serde::Serialize;

use crate::{
    call_log::Exchange,
    create::merchant_call,
    error::{ApiError, code},
    ledger::{Environment, Refused, WRONG_CURRENCY},
    money::{Amount, Currency},
    request::{
        Fields,
        create::{parse_amount, read_amount, read_currency},
        parse_json_object,
    },
    state::{Body, Service},
    store::PaymentState,
    timeline::now_ms,
    transaction_ids::TransactionIds,
};

/// The longest `settlementID` the real service takes.
const MAX_SETTLEMENT_ID: usize = 20;
/// The longest `cancelReason` (the real service's SOAP form's limit).
const MAX_CANCEL_REASON: usize = 50;
/// The longest `refundReason` the reference profile takes.
const MAX_REFUND_REASON: usize = 255;
/// 1445: the amount of a payment past its create cannot be updated.
const CANNOT_UPDATE: Refused = Refused {
    code: "1445",
    description: "amount cannot be updated",
};

/// Which operation a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `payment/capture/`.
    Capture,
    /// `payment/cancel/`.
    Cancel,
    /// `payment/refund/`.
    Refund,
    /// `payment/update`.
    Update,
}

impl Operation {
    /// Its method and path, for the back-office's call log.
    pub fn path(self) -> &'static str {
        match self {
            Self::Capture => "POST /api/v1/payment/capture",
            Self::Cancel => "POST /api/v1/payment/cancel",
            Self::Refund => "POST /api/v1/payment/refund",
            Self::Update => "POST /api/v1/payment/update",
        }
    }

    /// `transactionType` of its answer.
    fn transaction_type(self) -> &'static str {
        match self {
            Self::Capture => "capture",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
            Self::Update => "update",
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OperationPayload {
    #[serde(flatten)]
    transaction: crate::envelope::Transaction,
    #[serde(flatten)]
    ids: crate::envelope::PaymentIds,
}

/// Answers one of the operations.
pub(crate) async fn handle(
    service: &Service,
    operation: Operation,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (merchant, body) = merchant_call(service, request, exchange).await?;
    let object = parse_json_object(&body)?;
    let fields = Fields::root(&object);
    service
        .profiles
        .shop_of(&fields, merchant, "does not belong to this API key")?;
    let change = Change::read(operation, &fields)?;
    let token = TransactionIds::read(&fields)?.find(service, merchant)?;
    let now = now_ms();
    let answered = service
        .store
        .with_payment(&token, |p| {
            exchange.about(p.merchant, p.id);
            let outcome = change.apply(p, now);
            // The money it moved (and a settlement made on the way), told.
            crate::notify::money(service, &token, p);
            let payload = OperationPayload {
                transaction: crate::envelope::Transaction {
                    transaction_type: operation.transaction_type(),
                    transaction_result: TransactionResult::of(outcome.is_ok()),
                    transaction_error_code: outcome.err().map(|r| r.code),
                    transaction_error_description: outcome.err().map(|r| r.description),
                },
                ids: crate::envelope::PaymentIds::of(p),
            };
            tracing::info!(
                payment_id = p.id,
                operation = operation.transaction_type(),
                result = payload.transaction.transaction_result.word(),
                code = payload.transaction.transaction_error_code.unwrap_or(""),
                "payment operation"
            );
            payload
        })
        .map_err(|_| ApiError::TransactionNotFound)?;
    Ok(crate::envelope::ok(&answered))
}

/// What an operation asks of the payment, read and checked.
enum Change {
    Capture { amount: Amount, currency: Currency },
    Cancel,
    Refund { amount: Amount, currency: Currency },
    /// A new amount; a currency, when sent, must be the payment's: the
    /// real service's update changes no currency (its body has none), and
    /// answering OK to one that differs would tell the shop it changed.
    Update {
        amount: Option<Amount>,
        currency: Option<Currency>,
    },
}

impl Change {
    fn read(operation: Operation, fields: &Fields<'_>) -> Result<Self, ApiError> {
        let bounded = |name: &str, most: usize| -> Result<(), ApiError> {
            match fields.optional_str(name)? {
                Some(text) if text.chars().count() > most => Err(ApiError::field(
                    code::INVALID_PARAMETER,
                    name,
                    format!("must be at most {most} characters"),
                )),
                _ => Ok(()),
            }
        };
        Ok(match operation {
            Operation::Capture => {
                bounded("settlementID", MAX_SETTLEMENT_ID)?;
                Self::Capture {
                    amount: read_amount(fields)?,
                    currency: read_currency(fields)?,
                }
            }
            Operation::Cancel => {
                bounded("cancelReason", MAX_CANCEL_REASON)?;
                Self::Cancel
            }
            Operation::Refund => {
                bounded("settlementID", MAX_SETTLEMENT_ID)?;
                bounded("refundReason", MAX_REFUND_REASON)?;
                if let Some(flag) = fields.optional_str("chargeBackFraud")?
                    && !matches!(flag, "TRUE" | "FALSE")
                {
                    return Err(ApiError::field(
                        code::INVALID_PARAMETER,
                        "chargeBackFraud",
                        "must be TRUE or FALSE",
                    ));
                }
                Self::Refund {
                    amount: read_amount(fields)?,
                    currency: read_currency(fields)?,
                }
            }
            Operation::Update => Self::Update {
                amount: match fields.optional_str("amount")? {
                    Some(text) => Some(parse_amount(text)?),
                    None => None,
                },
                currency: match fields.optional_str("currency")? {
                    Some(_) => Some(read_currency(fields)?),
                    None => None,
                },
            },
        })
    }

    /// Applies the change to the payment, under its lock.
    fn apply(&self, p: &mut crate::store::Payment, now: u64) -> Result<(), Refused> {
        let payment_currency = p.currency;
        let authorized = p.amount;
        let no_ledger = crate::ledger::NO_AUTHORIZATION;
        match self {
            Self::Capture { amount, currency } => {
                let ledger = p.ledger_now(now).ok_or(no_ledger)?;
                if *currency != payment_currency {
                    return Err(WRONG_CURRENCY);
                }
                ledger.capture(*amount, authorized, Environment::Online, now)
            }
            Self::Cancel => {
                let ledger = p.ledger_now(now).ok_or(no_ledger)?;
                ledger.cancel(Environment::Online, now)
            }
            Self::Refund { amount, currency } => {
                let ledger = p.ledger_now(now).ok_or(crate::ledger::CANNOT_REFUND)?;
                if *currency != payment_currency {
                    return Err(WRONG_CURRENCY);
                }
                ledger.refund(*amount, Environment::Online, now)
            }
            Self::Update { amount, currency } => {
                // Before its card is taken, the amount is still the merchant's to change.
                if p.state != PaymentState::Created {
                    return Err(CANNOT_UPDATE);
                }
                if currency.is_some_and(|currency| currency != payment_currency) {
                    return Err(WRONG_CURRENCY);
                }
                if let Some(amount) = amount {
                    p.amount = *amount;
                }
                Ok(())
            }
        }
    }
}
