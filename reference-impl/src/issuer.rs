//! The simulated issuer: the page a buyer with a 3-D Secure card is sent to,
//! where they type the one-time code their bank sent them (or cancel), and
//! the answer to that form, which ends the payment and sends the buyer on to
//! the merchant with a `303 See Other`.

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use subtle::ConstantTimeEq;
use url::Url;
use uuid::Uuid;

use crate::{
    pages::{error_page, escape, html, layout},
    service::{Body, Service},
    store::PaymentState,
};

/// The largest form body the issuer page reads.
const MAX_FORM_BYTES: usize = 16 * 1024;

/// The fields that name the payment, in the page's address and its form.
#[derive(Debug, Default)]
struct PaymentReference {
    shop_login: Option<String>,
    payment_token: Option<String>,
}

impl PaymentReference {
    fn from_pairs<'a>(
        pairs: impl Iterator<Item = (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>)>,
    ) -> (Self, Vec<(String, String)>) {
        let mut reference = Self::default();
        let mut rest = Vec::new();
        for (name, value) in pairs {
            match &*name {
                "shopLogin" => reference.shop_login = Some(value.into_owned()),
                "paymentToken" => reference.payment_token = Some(value.into_owned()),
                _ => rest.push((name.into_owned(), value.into_owned())),
            }
        }
        (reference, rest)
    }

    fn token(&self) -> Option<Uuid> {
        self.payment_token
            .as_deref()
            .and_then(|t| Uuid::try_parse(t).ok())
    }
}

/// What the page shows about the payment being authenticated.
struct PaymentSummary {
    shop_login: String,
    amount: String,
    masked_pan: String,
    shop_transaction_id: String,
}

/// `GET`: the authentication form for a payment awaiting authentication.
pub fn page(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let query = request.uri().query().unwrap_or("");
    let (reference, _) = PaymentReference::from_pairs(form_urlencoded::parse(query.as_bytes()));
    let (Some(token), Some(shop_login)) = (reference.token(), reference.shop_login.as_deref())
    else {
        return unknown_request();
    };
    let summary = service.store.with_payment(&token, |p| {
        let (merchant, _) = service.merchant(p.merchant);
        if merchant.shop_login != shop_login {
            return None;
        }
        Some((
            p.state,
            PaymentSummary {
                shop_login: merchant.shop_login.clone(),
                amount: format!("{} {}", p.amount, p.currency),
                masked_pan: p.masked_pan.as_deref().unwrap_or("").to_owned(),
                shop_transaction_id: p.shop_transaction_id.to_string(),
            },
        ))
    });
    match summary {
        Ok(Some((PaymentState::AwaitingAuthentication, summary))) => {
            html(StatusCode::OK, form_page(&token, &summary))
        }
        Ok(Some(_)) => already_completed(),
        Ok(None) | Err(_) => unknown_request(),
    }
}

fn form_page(token: &Uuid, summary: &PaymentSummary) -> String {
    let hidden = format!(
        r#"<input type="hidden" name="paymentToken" value="{token}">
<input type="hidden" name="shopLogin" value="{shop}">"#,
        token = token.hyphenated(),
        shop = escape(&summary.shop_login),
    );
    let main = format!(
        r#"<p>Your bank asks you to confirm this payment with the one-time code it sent you.</p>
<dl>
<dt>Merchant</dt><dd>{shop}</dd>
<dt>Amount</dt><dd>{amount}</dd>
<dt>Card</dt><dd>{pan}</dd>
<dt>Order</dt><dd>{order}</dd>
</dl>
<form method="post" action="authenticate" id="authenticate">
{hidden}
<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<div><button type="submit" name="action" value="authenticate">Confirm payment</button></div>
</form>
<form method="post" action="authenticate" id="cancel">
{hidden}
<input type="hidden" name="action" value="cancel">
<button type="submit" class="secondary">Cancel payment</button>
</form>
<p class="note">Sandbox issuer: this page stands in for the card holder's bank.</p>"#,
        shop = escape(&summary.shop_login),
        amount = escape(&summary.amount),
        pan = escape(&summary.masked_pan),
        order = escape(&summary.shop_transaction_id),
    );
    layout("Confirm your payment", &main)
}

/// `POST`: the buyer's answer. The right code authorizes the payment and sends
/// the buyer to the success page; a wrong code or a cancel declines it and
/// sends them to the failure page.
pub async fn answer(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let is_form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !is_form {
        return error_page(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported form",
            "The authentication form must be sent as application/x-www-form-urlencoded.",
        );
    }
    let bytes = match tokio::time::timeout(
        service.config.limits.body_read_timeout,
        Limited::new(body, MAX_FORM_BYTES).collect(),
    )
    .await
    {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(_)) | Err(_) => {
            return error_page(
                StatusCode::BAD_REQUEST,
                "Form not received",
                "The authentication form could not be read.",
            );
        }
    };
    let (reference, rest) = PaymentReference::from_pairs(form_urlencoded::parse(&bytes));
    let field = |name: &str| {
        rest.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let (Some(token), Some(shop_login)) = (reference.token(), reference.shop_login.as_deref())
    else {
        return unknown_request();
    };
    let cancelled = field("action") == Some("cancel");
    let code_matches = field("otp").is_some_and(|otp| {
        bool::from(
            otp.trim()
                .as_bytes()
                .ct_eq(service.config.issuer_code.as_bytes()),
        )
    });
    let authenticated = !cancelled && code_matches;

    let landing = service.store.with_payment(&token, |p| {
        let (merchant, pages) = service.merchant(p.merchant);
        if merchant.shop_login != shop_login {
            return Err(Refusal::Unknown);
        }
        if p.state != PaymentState::AwaitingAuthentication {
            return Err(Refusal::Completed);
        }
        let redirects = p.buyer_redirects.as_deref();
        Ok(if authenticated {
            p.state = PaymentState::Authorized;
            (
                p.id,
                redirects
                    .and_then(|r| r.ok.clone())
                    .unwrap_or_else(|| pages.success.clone()),
            )
        } else {
            p.state = PaymentState::Declined;
            (
                p.id,
                redirects
                    .and_then(|r| r.ko.clone())
                    .unwrap_or_else(|| pages.failure.clone()),
            )
        })
    });
    match landing {
        Ok(Ok((payment_id, url))) => {
            tracing::info!(
                payment_id,
                authenticated,
                cancelled,
                "issuer authentication finished"
            );
            see_other(&url)
        }
        Ok(Err(Refusal::Completed)) => already_completed(),
        Ok(Err(Refusal::Unknown)) | Err(_) => unknown_request(),
    }
}

enum Refusal {
    Unknown,
    Completed,
}

fn see_other(url: &Url) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SEE_OTHER;
    match HeaderValue::from_str(url.as_str()) {
        Ok(location) => {
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        // A parsed URL is always a valid header value; refuse rather than panic.
        Err(_) => error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Technical error",
            "The merchant's page could not be reached.",
        ),
    }
}

fn unknown_request() -> Response<Body> {
    error_page(
        StatusCode::NOT_FOUND,
        "Authentication not found",
        "This authentication request is unknown or has expired. Return to the merchant and pay again.",
    )
}

fn already_completed() -> Response<Body> {
    error_page(
        StatusCode::CONFLICT,
        "Authentication already completed",
        "This payment is no longer waiting for authentication.",
    )
}
