//! `payment/detail`: how a merchant confirms a payment's outcome
//! (docs/real-service.md, RS-DETAIL). `GET payment/detail/{paymentID}` names
//! the payment in the path; `POST payment/detail` by `paymentID`,
//! `shopTransactionID` or `bankTransactionID` in the body. Either takes the
//! API key or the payment's own token.
//!
//! The answer says where the payment is: `transactionResult`
//! (`UNSUBMITTED`, `WAITING`, `OK`, `KO`), `transactionState` (its last
//! money event: `AUT`, `MOV`, `CAN`, `STO`) and `events`, each money event
//! with its amount and date (`dd/MM/yy HH:mm:ss`, UTC). The real service's
//! two documents write `events` two ways, and so does the sandbox: the
//! GET answer wraps each as `{"event": {...}}`, the POST answer lists them
//! flat.
//!
//! Every field the real service's documents show is there
//! (docs/real-service.md, RS-DETAIL-FIELDS): the buyer as the submit or the
//! page named them, the card's company, `cvvPresent`, `vbv`, the card
//! token it was paid with or asked for, each event's `eventARN`, and,
//! empty, what the sandbox has none of (`risk`, `customInfo`, `alertCode`,
//! `dcc`, `productType`, `payPalFee`, `fraudPrevention`,
//! `automaticOperation`), so a client generated from the real service's
//! API description, which reads each, reads the sandbox's.
//!
//! A refused payment says why (`transactionErrorCode` and its
//! description), and every submitted card payment how the buyer was
//! authenticated: `threeDS.authenticationResult` (the real service's
//! sandbox-only object) with `authenticationLevel` `2F`, `2C`, or `NA` for
//! none, as [`crate::outcomes`] decides.

use http::{Request, Response};
use hyper::body::Incoming;
use payconf_spec::transaction::TransactionResult;
use serde::Serialize;

use crate::{
    call_log::Exchange,
    caller::Caller,
    envelope,
    error::{ApiError, code},
    ledger::MoneyEvent,
    outcomes::{self, AuthenticationLevel},
    request::{Fields, parse_json_object},
    state::{Body, Service},
    store::{Payment, PaymentState},
    timeline::now_ms,
    transaction_ids::{TransactionIds, parse_digits},
};

/// `GET payment/detail/{paymentID}`.
pub(crate) fn by_id(
    service: &Service,
    request: &Request<Incoming>,
    payment_id: &str,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let caller = Caller::of(service, request.headers())?;
    let id = parse_digits(payment_id)
        .ok_or_else(|| ApiError::field(code::WRONG_PAYMENT_ID, "paymentID", "must be digits"))?;
    let ids = TransactionIds {
        payment_id: Some(id),
        ..TransactionIds::default()
    };
    answer(service, &caller, &ids, Shape::Wrapped, exchange)
}

/// `POST payment/detail`.
pub(crate) async fn search(
    service: &Service,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (parts, body) = request.into_parts();
    let caller = Caller::of(service, &parts.headers)?;
    let body = service.json_body(&parts, body, exchange).await?;
    let object = parse_json_object(&body)?;
    let fields = Fields::root(&object);
    service
        .profiles
        .shop_of(&fields, caller.merchant, "does not belong to the caller")?;
    let ids = TransactionIds::read(&fields)?;
    answer(service, &caller, &ids, Shape::Flat, exchange)
}

/// How many times a payment's own token reads its detail, as in the real
/// service's sandbox (docs/real-service.md, RS-DETAIL: "at most 10 times (5 in
/// sandbox)"); then the API key. Counted in memory: a restart gives a
/// token its reads back.
pub const TOKEN_READS: u8 = 5;

/// How `events` is written.
#[derive(Clone, Copy)]
enum Shape {
    /// `[{"event": {...}}]`, as the GET document writes it.
    Wrapped,
    /// `[{...}]`, as the POST document writes it.
    Flat,
}

fn answer(
    service: &Service,
    caller: &Caller,
    ids: &TransactionIds<'_>,
    shape: Shape,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let token = ids.find(service, caller.merchant)?;
    if caller.token.is_some_and(|own| own != token) {
        return Err(ApiError::TransactionNotFound);
    }
    let now = now_ms();
    let payload = service
        .store
        .with_payment(&token, |p| {
            exchange.about(p.merchant, p.id);
            if caller.token.is_some() {
                let trail = p.trail_mut();
                if trail.token_reads >= TOKEN_READS {
                    return Err(ApiError::TokenReadsSpent(TOKEN_READS));
                }
                trail.token_reads += 1;
            }
            crate::notify::money_now(service, &token, p, now);
            Ok(DetailPayload::of(p, shape))
        })
        .map_err(|_| ApiError::TransactionNotFound)??;
    Ok(envelope::ok(&payload))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DetailPayload {
    transaction_type: &'static str,
    transaction_result: TransactionResult,
    transaction_state: &'static str,
    transaction_error_code: &'static str,
    transaction_error_description: &'static str,
    #[serde(flatten)]
    ids: envelope::PaymentIds,
    authorization_code: String,
    currency: String,
    #[serde(rename = "maskedPAN")]
    masked_pan: String,
    payment_method: &'static str,
    td_level: &'static str,
    country: &'static str,
    company: &'static str,
    buyer: BuyerDetail,
    risk: Risk,
    custom_info: CustomInfo,
    alert_code: &'static str,
    alert_description: &'static str,
    cvv_present: &'static str,
    dcc: Dcc,
    product_type: &'static str,
    token: String,
    token_expiry_month: String,
    token_expiry_year: String,
    vbv: Vbv,
    pay_pal_fee: &'static str,
    fraud_prevention: FraudPrevention,
    automatic_operation: AutomaticOperation,
    events: Vec<EventEntry>,
    #[serde(rename = "threeDS", skip_serializing_if = "Option::is_none")]
    three_ds: Option<ThreeDs>,
}

/// `buyer`: as the submit or the payment page named them.
#[derive(Serialize)]
struct BuyerDetail {
    name: String,
    email: String,
}

/// `risk`: the sandbox scores no risk (empty, ours).
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Risk {
    risk_response_code: &'static str,
    risk_response_description: &'static str,
}

/// `customInfo`: the sandbox takes none at create, so `{}`.
#[derive(Serialize)]
struct CustomInfo {}

/// `dcc`: the sandbox converts no currency (ours: `False`, as submit's
/// `DCC` is documented).
#[derive(Serialize)]
struct Dcc {
    eligible: &'static str,
    currency: &'static str,
}

/// `vbv`: whether the buyer passed the issuer's authentication (ours: `OK`
/// authenticated, `KO` failed, empty without one).
#[derive(Serialize)]
struct Vbv {
    flag: &'static str,
    buyer: &'static str,
}

/// `fraudPrevention`: the sandbox runs no fraud check (empty, ours).
#[derive(Serialize, Default)]
struct FraudPrevention {
    check: &'static str,
    state: &'static str,
    description: &'static str,
    order: &'static str,
}

/// `automaticOperation`: the sandbox schedules none (empty, ours; its own
/// settlement of a unified shop is the `MOV` event).
#[derive(Serialize, Default)]
struct AutomaticOperation {
    #[serde(rename = "type")]
    kind: &'static str,
    date: &'static str,
    amount: &'static str,
}

/// `threeDS`: how the buyer was authenticated, for a payment whose card
/// was taken.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreeDs {
    authentication_result: AuthenticationResult,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuthenticationResult {
    /// `2F`, `2C`, or `NA`: not authenticated.
    authentication_level: &'static str,
    /// `Y` authenticated, `N` not.
    authentication_status: &'static str,
    #[serde(rename = "ECI")]
    eci: &'static str,
    three_ds_version: &'static str,
    trans_details: TransDetails,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TransDetails {
    /// `01` frictionless, `02` challenge; empty without authentication.
    auth_method: &'static str,
}

impl ThreeDs {
    fn of(p: &Payment) -> Option<Self> {
        if p.channel() == Some(crate::timeline::Channel::Alternative) {
            return None;
        }
        let level = p.ledger()?.authentication;
        Some(Self {
            authentication_result: AuthenticationResult {
                authentication_level: level.map_or("NA", AuthenticationLevel::code),
                authentication_status: if level.is_some() { "Y" } else { "N" },
                // Visa's: 05 authenticated, 07 not.
                eci: if level.is_some() { "05" } else { "07" },
                three_ds_version: if level.is_some() { "2.2.0" } else { "" },
                trans_details: TransDetails {
                    auth_method: level.map_or("", AuthenticationLevel::method),
                },
            },
        })
    }
}

impl DetailPayload {
    fn of(p: &Payment, shape: Shape) -> Self {
        let ledger = p.ledger();
        let result = match p.state {
            PaymentState::Created => TransactionResult::Unsubmitted,
            PaymentState::AwaitingAuthentication | PaymentState::AwaitingMethod => {
                TransactionResult::Waiting
            }
            PaymentState::Authorized => TransactionResult::Ok,
            PaymentState::Declined => TransactionResult::Ko,
        };
        let paid = p.state == PaymentState::Authorized;
        let masked_pan = p.masked_pan.as_deref().unwrap_or("");
        let refusal = ledger
            .and_then(|l| l.refusal.as_deref())
            .and_then(outcomes::decline_of);
        let brand = match p.channel() {
            None => "",
            Some(crate::timeline::Channel::Alternative) => "SANDBOXWALLET",
            Some(_) => crate::card::company(masked_pan),
        };
        let card_taken = !masked_pan.is_empty();
        let authenticated = match (ledger.and_then(|l| l.authentication), p.authenticated()) {
            (Some(_), _) | (None, Some(true)) => "OK",
            (None, Some(false)) => "KO",
            (None, None) => "",
        };
        let buyer = p.trail.as_ref().and_then(|t| t.buyer.as_ref());
        let card_token = p.trail.as_ref().and_then(|t| t.card_token.as_ref());
        Self {
            transaction_type: "detail",
            transaction_result: result,
            transaction_state: ledger.map_or("", |l| l.state()),
            transaction_error_code: refusal.map_or("0", |d| d.code),
            transaction_error_description: refusal.map_or("", |d| d.description),
            ids: envelope::PaymentIds::of(p),
            authorization_code: if paid {
                format!("{:06}", p.id % 1_000_000)
            } else {
                String::new()
            },
            currency: p.currency.code().to_owned(),
            masked_pan: masked_pan.to_owned(),
            payment_method: brand,
            td_level: match ledger.and_then(|l| l.authentication) {
                Some(_) => "FULL",
                None => "",
            },
            country: "",
            company: if card_taken { brand } else { "" },
            buyer: BuyerDetail {
                name: buyer.map_or_else(String::new, |b| b.name.to_string()),
                email: buyer.map_or_else(String::new, |b| b.email.to_string()),
            },
            risk: Risk::default(),
            custom_info: CustomInfo {},
            alert_code: "",
            alert_description: "",
            cvv_present: if card_taken { "Y" } else { "" },
            dcc: Dcc {
                eligible: "False",
                currency: "",
            },
            product_type: "",
            token: card_token.map_or_else(String::new, |(token, _)| token.to_string()),
            token_expiry_month: card_token
                .map_or_else(String::new, |(_, e)| format!("{:02}", e.month)),
            token_expiry_year: card_token
                .map_or_else(String::new, |(_, e)| format!("{:02}", e.year % 100)),
            vbv: Vbv {
                flag: authenticated,
                buyer: authenticated,
            },
            pay_pal_fee: "",
            fraud_prevention: FraudPrevention::default(),
            automatic_operation: AutomaticOperation::default(),
            events: ledger
                .map(|l| {
                    l.events
                        .iter()
                        .map(|e| EventEntry::of(p.id, e, shape))
                        .collect()
                })
                .unwrap_or_default(),
            three_ds: ThreeDs::of(p),
        }
    }
}

/// One item of `events`, wrapped or flat.
#[derive(Serialize)]
#[serde(untagged)]
enum EventEntry {
    Wrapped { event: EventFields },
    Flat(EventFields),
}

impl EventEntry {
    fn of(payment_id: u64, event: &MoneyEvent, shape: Shape) -> Self {
        let fields = EventFields::of(payment_id, event);
        match shape {
            Shape::Wrapped => Self::Wrapped { event: fields },
            Shape::Flat => Self::Flat(fields),
        }
    }
}

#[derive(Serialize)]
struct EventFields {
    eventtype: &'static str,
    eventamount: String,
    eventdate: String,
    #[serde(rename = "eventARN")]
    event_arn: String,
    #[serde(rename = "eventID")]
    event_id: String,
    #[serde(rename = "eventReferred")]
    event_referred: String,
    environment: &'static str,
    operator: &'static str,
}

impl EventFields {
    fn of(payment_id: u64, event: &MoneyEvent) -> Self {
        Self {
            eventtype: event.kind.code(),
            eventamount: format!("{}.{:02}", event.minor / 100, event.minor % 100),
            eventdate: event_date(event.at_ms),
            event_arn: event_arn(payment_id, event),
            event_id: event.id.to_string(),
            event_referred: event.referred.map(|id| id.to_string()).unwrap_or_default(),
            environment: event.environment.code(),
            operator: "",
        }
    }
}

/// `eventARN`, the acquirer's reference of money that moved: 23 digits
/// (an acquirer reference number's length) for a settlement or a refund,
/// made of the payment's ID and the event's, so each is its own; empty for
/// an authorisation or a cancel, where no money moved. The digits are
/// ours: the real service's are the acquirer's.
fn event_arn(payment_id: u64, event: &MoneyEvent) -> String {
    match event.kind.code() {
        "MOV" | "STO" => format!(
            "74{:012}{:09}",
            payment_id % 1_000_000_000_000,
            u64::from(event.id) % 1_000_000_000
        ),
        _ => String::new(),
    }
}

/// `dd/MM/yy HH:mm:ss`, UTC, as the real service's example writes dates.
fn event_date(at_ms: u64) -> String {
    let seconds = i64::try_from(at_ms / 1000).unwrap_or(0);
    let Ok(at) = time::OffsetDateTime::from_unix_timestamp(seconds) else {
        return String::new();
    };
    format!(
        "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
        at.day(),
        u8::from(at.month()),
        at.year().rem_euclid(100),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_dates_are_written_as_the_real_service_writes_them() {
        // 2016-08-19 16:13:14 UTC, the real service's example's first date.
        assert_eq!(event_date(1_471_623_194_000), "19/08/16 16:13:14");
    }
}
