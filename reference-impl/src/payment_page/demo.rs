//! The demo checkout (`GET /demo/checkout`): a shop page that opens the
//! payment page in the lightbox, for someone trying the sandbox in a
//! browser. The sandbox plays the shop's server: it creates a payment, as
//! a shop's server calls `payment/create`.
//!
//! A demo, and only that: its payments are a demo shop's of their own
//! (`config::demo_shop`: no password, a random key and signing secret, no
//! notification address), never a configured merchant's, so they neither
//! reach a merchant's server nor mix with its payments; it is served while
//! the sandbox listens on loopback only, beyond it when its operator asks
//! (`demo_checkout`, `payconf serve --demo`); it creates at most
//! `DEMO_BURST` payments at once and one every `DEMO_PACE` after that (429
//! with `Retry-After`), of at most [`MAX_AMOUNT`].

use http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use uuid::Uuid;

use super::{lightbox::checkout_snippet, param, query_pairs};
use crate::{
    config::DEMO_SHOP_LOGIN,
    envelope,
    error::ApiError,
    money::{Amount, Currency},
    pages::{error_page, escape, html_with_policy, layout},
    paths::SCRIPT_PATH,
    rate_limit::retry_after_secs,
    state::{Body, Service},
    store::NewPayment,
};

/// The largest demo amount, in minor units (1,000.00).
pub const MAX_AMOUNT: u64 = 100_000;

/// `GET`: the demo checkout page, with a new payment of the demo shop's
/// (`amount` and `currency` from the address, 10.00 EUR by default).
pub fn demo(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let Some(merchant) = service.demo_shop else {
        // Off: the same answer as any address the sandbox does not serve.
        return envelope::refusal(&ApiError::NotFound);
    };
    let pairs = query_pairs(request);
    let get = |name: &str| param(&pairs, name);
    let amount = Amount::parse(get("amount").unwrap_or("10.00"));
    let currency = Currency::parse(get("currency").unwrap_or("EUR"));
    let (Ok(amount), Some(currency)) = (amount, currency) else {
        return error_page(
            StatusCode::BAD_REQUEST,
            "Demo checkout",
            "The demo takes an amount such as 10.00 and a currency such as EUR.",
        );
    };
    if amount.minor() > MAX_AMOUNT {
        return error_page(
            StatusCode::BAD_REQUEST,
            "Demo checkout",
            "The demo takes amounts of at most 1000.00.",
        );
    }
    if let Err(wait) = service.demo_limit.take() {
        let mut page = error_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Demo checkout",
            "The demo has created many payments just now. Try again in a moment.",
        );
        page.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(retry_after_secs(wait)),
        );
        return page;
    }
    let order = format!("DEMO-{}", Uuid::new_v4().simple());
    let (token, payment_id) = service.store.create(NewPayment {
        merchant,
        amount,
        currency,
        shop_transaction_id: order.clone().into(),
        lifetime: None,
        redirects: None,
    });
    tracing::info!(
        payment_id,
        shop = DEMO_SHOP_LOGIN,
        "demo checkout payment created"
    );
    let nonce = Uuid::new_v4().simple().to_string();
    let script = service
        .public_url
        .join(SCRIPT_PATH.trim_start_matches('/'))
        .map_or_else(|_| SCRIPT_PATH.to_owned(), |url| url.to_string());
    let snippet = checkout_snippet(&script, DEMO_SHOP_LOGIN, &token, payment_id, &nonce);
    let main = format!(
        r#"<p>This is a shop's checkout page: the sandbox has created payment <strong>{payment_id}</strong> of <strong>{amount} {currency}</strong> for order <strong>{order}</strong> of its demo shop, as the shop's server would with <code>payment/create</code>.</p>
<p><button type="button" id="pay">Pay {amount} {currency}</button></p>
<p id="outcome" role="status"></p>
{snippet}"#,
        currency = currency.code(),
        order = escape(&order),
    );
    html_with_policy(
        StatusCode::OK,
        layout("Demo checkout", &main),
        &format!(
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'self' 'nonce-{nonce}'; \
             frame-src 'self'; frame-ancestors 'none'"
        ),
    )
}
