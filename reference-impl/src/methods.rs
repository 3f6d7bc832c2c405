//! The payment's methods, as a shop's own checkout asks for them after
//! create (docs/real-service.md, RS-METHODS), with the payment's token:
//! `GET payment/methods/{paymentID}/{languageID}` (the methods the buyer
//! may pay with, each with its logo and the address that pays with it),
//! `GET payment/methods/detail/{paymentID}/{paymentType}` (one method's
//! banks, and its address), `GET payment/dataForBuyer/{paymentID}` (what a
//! page shows the buyer: the shop's sign, the amount and currency); and,
//! with the API key, `GET shop/methods/{shopLogin}` (the shop's methods,
//! whatever payment).
//!
//! Ours, where the facts give only the fields: the sandbox's methods are
//! the card (`CREDITCARD`, "Credit card") and its wallet (`WALLET`,
//! "Sandbox wallet"), named in English whatever the language (a
//! `languageID` is the real service's number, 1 to 5); each `logo` is an
//! SVG image of the sandbox's own, written into the address (`data:`),
//! the same at every size; the address that pays is the hosted page with
//! the method preselected (`pagam.aspx?a=&b=&paymentType=`), and neither
//! method has banks to choose among (`bank` empty). `dataForBuyer`'s `sign`
//! is the shop login, `merchantLogo` empty and `visibleCustomFields` none.
//! A `paymentID` the token's payment does not have is 2011, one that is
//! not digits 1413, as detail's; a
//! `paymentType` the shop does not offer 1400 (element not found); a
//! `languageID` that is not one 1173 (input not in the correct format).

use http::{Request, Response};
use hyper::body::Incoming;
use serde::Serialize;
use uuid::Uuid;

use crate::{
    create::authenticate_shop,
    envelope::{self, UserRedirect},
    error::{ApiError, code},
    money::{Amount, Currency},
    paths::PAGE_PATH,
    payment_method::Method,
    request::submit::payment_token,
    state::{Body, Service},
    transaction_ids::parse_digits,
};

/// A method's logo: an SVG image, written into its address.
fn logo(method: Method) -> &'static str {
    match method {
        Method::Card => CARD_LOGO,
        Method::Wallet => WALLET_LOGO,
    }
}

/// The card's logo, an SVG image percent-encoded into a `data:` address.
const CARD_LOGO: &str = "data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%20width%3D%2264%22%20height%3D%2240%22%3E%3Crect%20width%3D%2264%22%20height%3D%2240%22%20rx%3D%224%22%20fill%3D%22%23234%22%2F%3E%3Crect%20y%3D%228%22%20width%3D%2264%22%20height%3D%228%22%20fill%3D%22%23999%22%2F%3E%3C%2Fsvg%3E";

/// The wallet's logo, as the card's.
const WALLET_LOGO: &str = "data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%20width%3D%2264%22%20height%3D%2240%22%3E%3Crect%20width%3D%2264%22%20height%3D%2240%22%20rx%3D%224%22%20fill%3D%22%23375%22%2F%3E%3Ccircle%20cx%3D%2248%22%20cy%3D%2220%22%20r%3D%226%22%20fill%3D%22%23fff%22%2F%3E%3C%2Fsvg%3E";

/// `logo`: the same image at every size.
#[derive(Serialize)]
struct Logo {
    large: &'static str,
    mobile: &'static str,
    vector: &'static str,
}

/// One method of a list.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    name: &'static str,
    logo: Logo,
    payment_type: &'static str,
    payment_type_detail: UserRedirect,
    user_redirect: UserRedirect,
}

/// `payment/methods`' and `shop/methods`' answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Methods {
    payment_method: Vec<Listed>,
    #[serde(rename = "paymentID", skip_serializing_if = "Option::is_none")]
    payment_id: Option<String>,
}

/// `payment/methods/detail`'s answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MethodDetail {
    payment_type_detail: Banks,
    user_redirect: UserRedirect,
    #[serde(rename = "paymentID")]
    payment_id: String,
}

/// `paymentTypeDetail`: the banks the buyer chooses among (none, here).
#[derive(Serialize)]
struct Banks {
    bank: Vec<()>,
}

/// `payment/dataForBuyer`'s answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DataForBuyer {
    merchant_logo: &'static str,
    sign: String,
    amount: String,
    #[serde(rename = "languageID")]
    language_id: &'static str,
    currency: String,
    visible_custom_fields: Vec<()>,
    #[serde(rename = "paymentID")]
    payment_id: String,
}

/// The payment the token of `request` names, which must be `payment_id`.
struct Named {
    token: Uuid,
    id: u64,
    shop_login: String,
    amount: Amount,
    currency: Currency,
}

fn named(service: &Service, request: &Request<Incoming>, payment_id: &str) -> Result<Named, ApiError> {
    let token = payment_token(request.headers())?;
    let (id, merchant, amount, currency) = service
        .store
        .with_payment(&token, |p| (p.id, p.merchant, p.amount, p.currency))?;
    let named = parse_digits(payment_id).ok_or_else(|| {
        ApiError::field(code::WRONG_PAYMENT_ID, "paymentID", "must be digits")
    })?;
    if named != id {
        return Err(ApiError::TransactionNotFound);
    }
    let shop_login = service.merchant(merchant).merchant.shop_login.clone();
    Ok(Named {
        token,
        id,
        shop_login,
        amount,
        currency,
    })
}

/// The hosted page's address for `method`.
fn paying_with(service: &Service, named: &Named, method: Method) -> String {
    let mut url = service.own_page(PAGE_PATH, &named.shop_login, &named.token);
    url.query_pairs_mut()
        .append_pair("paymentType", method.payment_type());
    url.into()
}

/// `GET payment/methods/{paymentID}/{languageID}`.
pub(crate) fn payment_methods(
    service: &Service,
    request: &Request<Incoming>,
    payment_id: &str,
    language_id: &str,
) -> Result<Response<Body>, ApiError> {
    let named = named(service, request, payment_id)?;
    if !matches!(language_id.trim(), "1" | "2" | "3" | "4" | "5") {
        return Err(ApiError::field(
            code::INPUT_FORMAT,
            "languageID",
            "is the real service's language number, 1 to 5",
        ));
    }
    let payment_method = Method::ALL
        .into_iter()
        .map(|method| {
            let mut detail = service.public_url.clone();
            detail.set_path(&format!(
                "/api/v1/payment/methods/detail/{}/{}",
                named.id,
                method.payment_type()
            ));
            listed(method, Some(detail.into()), Some(paying_with(service, &named, method)))
        })
        .collect();
    Ok(envelope::ok(&Methods {
        payment_method,
        payment_id: Some(named.id.to_string()),
    }))
}

fn listed(method: Method, detail: Option<String>, redirect: Option<String>) -> Listed {
    Listed {
        name: method.name(),
        logo: Logo {
            large: logo(method),
            mobile: logo(method),
            vector: logo(method),
        },
        payment_type: method.payment_type(),
        payment_type_detail: UserRedirect { href: detail },
        user_redirect: UserRedirect { href: redirect },
    }
}

/// `GET payment/methods/detail/{paymentID}/{paymentType}`.
pub(crate) fn method_detail(
    service: &Service,
    request: &Request<Incoming>,
    payment_id: &str,
    payment_type: &str,
) -> Result<Response<Body>, ApiError> {
    let named = named(service, request, payment_id)?;
    let method = Method::of_type(payment_type).ok_or_else(|| {
        ApiError::field(
            code::ELEMENT_NOT_FOUND,
            "paymentType",
            "is no method the shop offers: CREDITCARD or WALLET",
        )
    })?;
    Ok(envelope::ok(&MethodDetail {
        payment_type_detail: Banks { bank: Vec::new() },
        user_redirect: UserRedirect {
            href: Some(paying_with(service, &named, method)),
        },
        payment_id: named.id.to_string(),
    }))
}

/// `GET payment/dataForBuyer/{paymentID}`.
pub(crate) fn data_for_buyer(
    service: &Service,
    request: &Request<Incoming>,
    payment_id: &str,
) -> Result<Response<Body>, ApiError> {
    let named = named(service, request, payment_id)?;
    Ok(envelope::ok(&DataForBuyer {
        merchant_logo: "",
        sign: named.shop_login.clone(),
        amount: named.amount.to_string(),
        language_id: "2",
        currency: named.currency.to_string(),
        visible_custom_fields: Vec::new(),
        payment_id: named.id.to_string(),
    }))
}

/// `GET shop/methods/{shopLogin}`: the shop's methods, with the API key.
pub(crate) fn shop_methods(
    service: &Service,
    request: &Request<Incoming>,
    shop_login: &str,
) -> Result<Response<Body>, ApiError> {
    authenticate_shop(service, request.headers(), shop_login)?;
    Ok(envelope::ok(&Methods {
        payment_method: Method::ALL
            .into_iter()
            .map(|method| listed(method, None, None))
            .collect(),
        payment_id: None,
    }))
}
