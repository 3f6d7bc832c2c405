//! `POST /api/v1/payment/create/`: authenticates the merchant by API key,
//! validates the payment's amount, currency and reference, and opens a
//! payment process identified by a fresh token, keeping the shop's
//! addresses for it (`responseURLs`); with `paymentChannel`, its answer
//! holds pay-by-link's address.

use http::{HeaderMap, Request, Response, header};
use hyper::body::Incoming;
use serde::Serialize;
use uuid::Uuid;

use crate::{
    call_log::Exchange,
    envelope::{self, UserRedirect},
    error::ApiError,
    request::{create::CreateRequest, parse_json_object},
    paths::FRAMED_PATH,
    state::{Body, Service},
    store::{BuyerRedirects, NewPayment},
};

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
        response_urls,
        pay_by_link,
    } = CreateRequest::read(&object)?;
    service
        .profiles
        .check_shop(merchant, shop_login, "does not belong to this API key")?;

    let (token, id) = service.store.create(NewPayment {
        merchant,
        amount,
        currency,
        shop_transaction_id: shop_transaction_id.into(),
        lifetime: Some(service.config.token_lifetime_of(shop_login)),
        redirects: Some(Box::new(BuyerRedirects::from(response_urls)))
            .filter(|redirects| **redirects != BuyerRedirects::default()),
    });
    exchange.about(merchant, id);
    tracing::info!(payment_id = id, shop = shop_login, %amount, currency = currency.code(), "payment created");
    Ok(envelope::ok(&CreatePayload {
        payment_token: token.hyphenated().to_string(),
        payment_id: id.to_string(),
        user_redirect: UserRedirect {
            href: pay_by_link.then(|| pay_by_link_address(service, shop_login, &token, id)),
        },
    }))
}

/// Pay-by-link's address: the framed page of its own (`lightbox=false`), as
/// the real service answers it (docs/real-service.md, RS-PAY-BY-LINK).
fn pay_by_link_address(service: &Service, shop_login: &str, token: &Uuid, id: u64) -> String {
    let mut url = service
        .public_url
        .join(FRAMED_PATH.trim_start_matches('/'))
        .unwrap_or_else(|_| service.public_url.clone());
    url.query_pairs_mut()
        .append_pair("paymentID", &id.to_string())
        .append_pair("paymentToken", &token.hyphenated().to_string())
        .append_pair("shopLogin", shop_login)
        .append_pair("lightbox", "false");
    url.into()
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

/// The merchant of the API key the headers carry, which must be the
/// merchant of `shop_login` (a path's, say): 1131 for another shop.
pub(crate) fn authenticate_shop(
    service: &Service,
    headers: &HeaderMap,
    shop_login: &str,
) -> Result<u32, ApiError> {
    let merchant = authenticate(service, headers)?;
    service
        .profiles
        .check_shop(merchant, shop_login, "does not belong to this API key")?;
    Ok(merchant)
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
