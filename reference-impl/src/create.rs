//! `POST /api/v1/payment/create/`: authenticates the merchant by API key,
//! validates the payment's amount, currency and reference, and opens a
//! payment process identified by a fresh token.

use http::{HeaderMap, Request, Response, header};
use hyper::body::Incoming;
use serde::Serialize;

use crate::{
    call_log::Exchange,
    envelope::{self, UserRedirect},
    error::{ApiError, code},
    money::{Amount, AmountError, Currency},
    request_body::{Fields, parse_json_object},
    state::{Body, Service},
    store::NewPayment,
};

/// The longest `shopTransactionID` the reference profile accepts.
pub const MAX_SHOP_TRANSACTION_ID: usize = 50;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreatePayload {
    payment_token: String,
    #[serde(rename = "paymentID")]
    payment_id: String,
    user_redirect: UserRedirect,
}

pub(crate) async fn create(
    service: &Service,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (merchant, body) = merchant_call(service, request, exchange).await?;
    let object = parse_json_object(&body)?;
    let CreateRequest {
        shop_login,
        amount,
        currency,
        shop_transaction_id,
    } = CreateRequest::read(&object)?;
    service
        .profiles
        .check_shop(merchant, shop_login, "does not belong to this API key")?;

    let (token, id) = service.store.create(NewPayment {
        merchant,
        amount,
        currency,
        shop_transaction_id: shop_transaction_id.into(),
    });
    exchange.about(merchant, id);
    tracing::info!(payment_id = id, shop = shop_login, %amount, currency = currency.code(), "payment created");
    Ok(envelope::ok(&CreatePayload {
        payment_token: token.hyphenated().to_string(),
        payment_id: id.to_string(),
        user_redirect: UserRedirect { href: None },
    }))
}

/// A create body that passed validation.
pub(crate) struct CreateRequest<'a> {
    /// `shopLogin`, not yet checked against the key.
    pub shop_login: &'a str,
    /// `amount`.
    pub amount: Amount,
    /// `currency`.
    pub currency: Currency,
    /// `shopTransactionID`.
    pub shop_transaction_id: &'a str,
}

impl<'a> CreateRequest<'a> {
    /// Validates every field of a create body, each refusal naming its field.
    pub(crate) fn read(object: &'a crate::json::Object<'a>) -> Result<Self, ApiError> {
        let fields = Fields::root(object);
        let shop_login = fields.required_str("shopLogin", code::INVALID_PARAMETER)?;
        let amount = read_amount(&fields)?;
        let currency = read_currency(&fields)?;
        let shop_transaction_id = fields.required_str_coded(
            "shopTransactionID",
            code::SHOP_TRANSACTION_ID_MISSING,
            code::SHOP_TRANSACTION_ID,
        )?;
        check_shop_transaction_id(shop_transaction_id)?;
        Ok(Self {
            shop_login,
            amount,
            currency,
            shop_transaction_id,
        })
    }
}

/// An amount, each refusal with the real service's code.
pub(crate) fn parse_amount(text: &str) -> Result<Amount, ApiError> {
    Amount::parse(text).map_err(|e| {
        let code = match e {
            AmountError::NotNumeric => code::AMOUNT_NOT_NUMERIC,
            AmountError::Decimals => code::AMOUNT_DECIMALS,
            AmountError::Separator => code::AMOUNT_SEPARATOR,
            AmountError::TooSmall => code::AMOUNT_TOO_SMALL,
            AmountError::TooLarge => code::AMOUNT_TOO_LARGE,
        };
        ApiError::field(code, "amount", e.to_string())
    })
}

/// The `amount` field: missing is 1112, another type than a string 1113.
pub(crate) fn read_amount(fields: &Fields<'_>) -> Result<Amount, ApiError> {
    parse_amount(fields.required_str_coded(
        "amount",
        code::AMOUNT_MISSING,
        code::AMOUNT_NOT_NUMERIC,
    )?)
}

/// The `currency` field, with the real service's code.
pub(crate) fn read_currency(fields: &Fields<'_>) -> Result<Currency, ApiError> {
    Currency::parse(fields.required_str("currency", code::INVALID_CURRENCY)?).ok_or_else(|| {
        ApiError::field(
            code::INVALID_CURRENCY,
            "currency",
            "must be a three-letter upper-case ISO 4217 code",
        )
    })
}

/// A merchant's call to the API: its key checked first (a call with no
/// key, or one the sandbox does not know, is refused before its body is
/// read), then its JSON body read and logged. The merchant's shop and the
/// body.
pub(crate) async fn merchant_call(
    service: &Service,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<(u32, bytes::Bytes), ApiError> {
    let (parts, body) = request.into_parts();
    let merchant = authenticate(service, &parts.headers)?;
    let body = service.json_body(&parts, body, exchange).await?;
    Ok((merchant, body))
}

/// Finds the merchant whose key the `Authorization: apikey <KEY>` header
/// carries (compared in constant time: see [`crate::profiles::Profiles::by_api_key`]).
pub(crate) fn authenticate(service: &Service, headers: &HeaderMap) -> Result<u32, ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(ApiError::MissingApiKey)?;
    let key = value
        .as_bytes()
        .split_at_checked(7)
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"apikey "))
        .map(|(_, key)| key)
        .ok_or(ApiError::InvalidApiKey)?;
    service
        .profiles
        .by_api_key(key)
        .ok_or(ApiError::InvalidApiKey)
}

/// Missing or empty is 1115, too long 1116 (the real service's codes);
/// a control character 4801, invalid.
fn check_shop_transaction_id(id: &str) -> Result<(), ApiError> {
    let (code, reason) = if id.is_empty() {
        (code::SHOP_TRANSACTION_ID_MISSING, "must not be empty")
    } else if id.chars().count() > MAX_SHOP_TRANSACTION_ID {
        (
            code::SHOP_TRANSACTION_ID_TOO_LONG,
            "must be at most 50 characters",
        )
    } else if id.chars().any(char::is_control) {
        (
            code::SHOP_TRANSACTION_ID,
            "must not contain control characters",
        )
    } else {
        return Ok(());
    };
    Err(ApiError::field(code, "shopTransactionID", reason))
}
