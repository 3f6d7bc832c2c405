//! The response envelope every API answer carries:
//! `{"error": {"code", "description"}, "payload": {...}}`.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use serde::Serialize;

use payconf_spec::transaction::TransactionResult;

use crate::error::{ApiError, code};

/// Description that goes with `error.code "0"`.
pub const OK_DESCRIPTION: &str = "request correctly processed";

#[derive(Serialize)]
struct Envelope<'a, P> {
    error: ErrorObject<'a>,
    payload: P,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: &'a str,
    description: &'a str,
}

/// An empty JSON object: the payload of every refused call.
#[derive(Serialize)]
struct Empty {}

/// A `200` answer with `error.code "0"` and this payload.
pub fn ok<P: Serialize>(payload: &P) -> Response<Full<Bytes>> {
    json_response(
        StatusCode::OK,
        &Envelope {
            error: ErrorObject {
                code: code::OK,
                description: OK_DESCRIPTION,
            },
            payload,
        },
    )
}

/// The answer for a refused call: its status, its code, an empty payload.
pub fn refusal(error: &ApiError) -> Response<Full<Bytes>> {
    let description = error.to_string();
    let mut response = json_response(
        error.status(),
        &Envelope {
            error: ErrorObject {
                code: error.code(),
                description: &description,
            },
            payload: Empty {},
        },
    );
    if let ApiError::MethodNotAllowed { allow } = error {
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(allow));
    }
    response
}

fn json_response<T: Serialize>(status: StatusCode, body: &T) -> Response<Full<Bytes>> {
    // Serializing these plain structs cannot fail; if it ever did, the caller
    // still gets a well-formed technical-error envelope rather than a panic.
    // Sized for the answers the service gives, so it is written without growing.
    let mut bytes = Vec::with_capacity(512);
    let bytes = serde_json::to_writer(&mut bytes, body)
        .map(|()| bytes)
        .unwrap_or_else(|_| {
            br#"{"error":{"code":"9999","description":"technical error"},"payload":{}}"#.to_vec()
        });
    let mut response = Response::new(Full::new(Bytes::from(bytes)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// `userRedirect`: where the merchant sends the buyer next.
#[derive(Serialize)]
pub struct UserRedirect {
    /// The address; `null` in the create answer, but for pay-by-link.
    pub href: Option<String>,
}

/// What every answer about a transaction opens its payload with: its type
/// and result, and, when refused, the code and words for why. Flattened
/// into each payload (`#[serde(flatten)]`), first.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    /// `transactionType`: `submit`, `capture`, `refund`, `cancel`.
    pub transaction_type: &'static str,
    /// `transactionResult`.
    pub transaction_result: TransactionResult,
    /// `transactionErrorCode`, when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_error_code: Option<&'static str>,
    /// `transactionErrorDescription`, when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_error_description: Option<&'static str>,
}

/// The three identifiers every answer about a payment carries, the
/// service's casing kept (`…ID`). Flattened into each payload.
#[derive(Serialize)]
pub struct PaymentIds {
    /// `bankTransactionID`.
    #[serde(rename = "bankTransactionID")]
    pub bank_transaction_id: String,
    /// `shopTransactionID`.
    #[serde(rename = "shopTransactionID")]
    pub shop_transaction_id: String,
    /// `paymentID`.
    #[serde(rename = "paymentID")]
    pub payment_id: String,
}

impl PaymentIds {
    /// The identifiers of `payment`.
    pub fn of(payment: &crate::store::Payment) -> Self {
        Self {
            bank_transaction_id: payment.bank_transaction_id().to_string(),
            shop_transaction_id: payment.shop_transaction_id.to_string(),
            payment_id: payment.id.to_string(),
        }
    }
}
