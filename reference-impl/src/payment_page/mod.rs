//! The standard payment page: the page the buyer pays on when the merchant
//! does not build its own, at an address built from the payment
//! (`/pay?shopLogin=…&paymentToken=…&paymentID=…`), shown as a page of its
//! own or in the lightbox, the overlay a shop's page opens with the
//! service's script ([`lightbox`]).
//!
//! The buyer types card number, expiry, security code, name and e-mail
//! ([`card_form`]); the page executes the payment with the rules and test
//! cards of `payment/submit` (the same [`execute`]), sends an enrolled
//! card's buyer through the same issuer page, and ends on the merchant's
//! back-office success or failure page. Or the buyer pays with the sandbox's
//! alternative method, a wallet that approves by redirect ([`wallet`]): no
//! `payment/submit` is involved. A payment is paid once, whichever way: a
//! later `payment/submit` of its token is refused as already processed, and
//! a page for it shows that it was, with no form to pay.
//!
//! Card data is never logged (the log shows the masked number, as for
//! submit). A form the page refuses charges nothing and comes back with
//! each problem beside its field and what the buyer typed kept.

mod card_form;
mod demo;
mod lightbox;
mod wallet;

pub use lightbox::checkout_snippet;

pub(crate) use demo::demo;
pub(crate) use lightbox::{result, script};
pub(crate) use wallet::{decide as wallet_decide, page as wallet_page};

use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use url::Url;
use uuid::Uuid;

use crate::{
    error::ApiError,
    execute::execute,
    form_body::read_form,
    pages::{error_page_under, escape, html_with_policy, layout, see_other},
    state::{Body, Service},
    store::{BuyerRedirects, PaymentState},
    timeline::Channel,
};
use card_form::{Entered, Problem, card_form};

/// The policy of the service's error pages for a payment (no form on
/// them): no script, and shown in any shop's lightbox (the sandbox takes
/// shops on every origin, and an error may come before the page knows
/// which shop's page opened it).
const FRAMED_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors http: https:";

/// The policy of a page with a form for the buyer (the card form, the
/// wallet's approval): no script, and framed only by the shop page that
/// opened the lightbox, `origin` (an http(s) origin as [`web_origin`]
/// serialises it); by no page when the buyer came without a lightbox, so
/// no other site can lay its page over the buyer's buttons.
fn form_policy(origin: Option<&str>) -> String {
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors {}",
        origin.unwrap_or("'none'")
    )
}

/// The payment a page is for, as its address or its form names it.
struct PageRequest {
    shop_login: String,
    token: Uuid,
    /// `paymentID`, which must match the token's payment when given.
    payment_id: Option<String>,
    /// The origin of the shop page whose lightbox shows the page.
    origin: Option<String>,
}

impl PageRequest {
    /// The payment's reference among a query's or a form's pairs.
    fn from_pairs(pairs: &[(String, String)]) -> Option<Self> {
        let (token, shop_login) = payment_of(pairs)?;
        Some(Self {
            shop_login: shop_login.to_owned(),
            token,
            payment_id: param(pairs, "paymentID").map(str::to_owned),
            origin: param(pairs, "origin").and_then(web_origin),
        })
    }

    /// The hidden fields every form of the page carries back.
    fn hidden(&self, payment_id: u64) -> String {
        let origin = self.origin.as_deref().map_or(String::new(), |origin| {
            format!(
                r#"
<input type="hidden" name="origin" value="{}">"#,
                escape(origin)
            )
        });
        format!(
            r#"<input type="hidden" name="shopLogin" value="{shop}">
<input type="hidden" name="paymentToken" value="{token}">
<input type="hidden" name="paymentID" value="{payment_id}">{origin}"#,
            shop = escape(&self.shop_login),
            token = self.token.hyphenated(),
        )
    }
}

/// `origin` when it is the origin of an http(s) page (`https://shop.example`),
/// as a browser writes it; otherwise `None`: a page opened from a file has
/// the origin `null`, which cannot be told the outcome.
fn web_origin(origin: &str) -> Option<String> {
    let url = Url::parse(origin).ok()?;
    let serialized = url.origin().ascii_serialization();
    (matches!(url.scheme(), "http" | "https") && serialized == origin).then_some(serialized)
}

/// What the page shows of a payment, read under its lock.
pub(crate) struct Shown {
    state: PaymentState,
    payment_id: u64,
    amount: String,
    order: String,
}

/// The payment `request` names, if the service holds it for that shop (and
/// that `paymentID`, when given).
fn lookup(service: &Service, request: &PageRequest) -> Option<Shown> {
    service
        .store
        .with_payment(&request.token, |p| {
            let profile = service.merchant(p.merchant);
            let merchant = &profile.merchant;
            let id_matches = request
                .payment_id
                .as_deref()
                .is_none_or(|id| id.trim() == p.id.to_string());
            (merchant.shop_login == request.shop_login && id_matches).then(|| Shown {
                state: p.state,
                payment_id: p.id,
                amount: format!("{} {}", p.amount, p.currency),
                order: p.shop_transaction_id.to_string(),
            })
        })
        .ok()
        .flatten()
}

/// `GET`: the page for a payment waiting to be paid.
pub fn page(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let pairs = query_pairs(request);
    let Some(page) = PageRequest::from_pairs(&pairs) else {
        return unknown_payment();
    };
    match lookup(service, &page) {
        Some(shown) if shown.state == PaymentState::Created => payment_page(
            service,
            &page,
            &shown,
            &Entered::default(),
            &[],
            StatusCode::OK,
        ),
        Some(shown) => already_processed(shown.state),
        None => unknown_payment(),
    }
}

/// `POST`: the buyer pays, by card or with the alternative method.
pub async fn pay(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let pairs = match read_form(service, request, "payment form").await {
        Ok(pairs) => pairs,
        Err(refused) => return refused,
    };
    let Some(page) = PageRequest::from_pairs(&pairs) else {
        return unknown_payment();
    };
    let Some(shown) = lookup(service, &page) else {
        return unknown_payment();
    };
    if shown.state != PaymentState::Created {
        return already_processed(shown.state);
    }
    let method = param(&pairs, "method");
    if method == Some(wallet::METHOD) {
        return wallet::choose(service, &page.token, &page.shop_login, page.origin);
    }
    let entered = Entered::from_pairs(&pairs);
    let number = match entered.check() {
        Ok(number) => number,
        Err(problems) => {
            tracing::debug!(
                payment_id = shown.payment_id,
                fields = problems
                    .iter()
                    .map(|(name, _)| *name)
                    .collect::<Vec<_>>()
                    .join(","),
                "payment page refused the card form"
            );
            return payment_page(
                service,
                &page,
                &shown,
                &entered,
                &problems,
                StatusCode::UNPROCESSABLE_ENTITY,
            );
        }
    };
    let redirects = BuyerRedirects {
        framed_by: page.origin.as_deref().map(Box::from),
        ..BuyerRedirects::default()
    };
    match execute(
        service,
        &page.token,
        &page.shop_login,
        &number,
        redirects,
        Channel::PaymentPage,
    ) {
        Ok(executed) => see_other(&executed.href),
        Err(ApiError::AlreadyProcessed) => lookup(service, &page)
            .map_or_else(unknown_payment, |shown| already_processed(shown.state)),
        Err(_) => unknown_payment(),
    }
}

/// The page with its card form and the alternative method.
fn payment_page(
    service: &Service,
    page: &PageRequest,
    shown: &Shown,
    entered: &Entered,
    problems: &[Problem],
    status: StatusCode,
) -> Response<Body> {
    let hidden = page.hidden(shown.payment_id);
    let main = format!(
        r#"<style>
.error {{ color: #b42318; margin: .2rem 0 0; }}
input[type=email] {{ font-size: 1.1rem; padding: .4rem; width: 100%; box-sizing: border-box; }}
main input[type=text] {{ width: 100%; box-sizing: border-box; letter-spacing: normal; }}
.or {{ margin-top: 2rem; border-top: 1px solid #dde; padding-top: 1rem; }}
</style>
<dl>
<dt>Merchant</dt><dd>{shop}</dd>
<dt>Amount</dt><dd>{amount}</dd>
<dt>Order</dt><dd>{order}</dd>
</dl>
{card}
<div class="or">
<p>Or pay with your Sandbox Wallet: you approve the payment on its page.</p>
{wallet}
</div>
<p class="note">Sandbox payment page: use the sandbox's test cards. Nothing is charged.</p>
<details class="note"><summary>The sandbox's test cards</summary>
{cards}
</details>"#,
        shop = escape(&page.shop_login),
        amount = escape(&shown.amount),
        order = escape(&shown.order),
        card = card_form(&hidden, &format!("Pay {}", shown.amount), entered, problems),
        wallet = wallet::choice_form(&hidden),
        cards = crate::test_cards::html_table(&service.config),
    );
    html_with_policy(
        status,
        layout("Payment", &main),
        &form_policy(page.origin.as_deref()),
    )
}

/// The page for a payment that is no longer waiting to be paid: no form.
fn already_processed(state: PaymentState) -> Response<Body> {
    let said = match state {
        PaymentState::Authorized => "This payment has already been made.",
        PaymentState::Declined => {
            "This payment has already been processed and was not authorized. Return to the shop \
             to pay again."
        }
        PaymentState::AwaitingAuthentication | PaymentState::AwaitingMethod => {
            "This payment is already under way: finish it where you started it."
        }
        PaymentState::Created => "This payment is waiting to be paid.",
    };
    framed_error(StatusCode::CONFLICT, "Payment already processed", said)
}

/// The page for a payment the service does not hold: no form.
fn unknown_payment() -> Response<Body> {
    framed_error(
        StatusCode::NOT_FOUND,
        "Payment not found",
        "This payment is unknown or has expired. Return to the shop and start again.",
    )
}

/// An error page that can be shown in the lightbox.
fn framed_error(status: StatusCode, title: &str, said: &str) -> Response<Body> {
    error_page_under(status, title, said, FRAMED_POLICY)
}

/// The first value of a query's or a form's parameter.
fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The token and shop login a page's address or form names.
fn payment_of(pairs: &[(String, String)]) -> Option<(Uuid, &str)> {
    Some((
        Uuid::try_parse(param(pairs, "paymentToken")?.trim()).ok()?,
        param(pairs, "shopLogin")?,
    ))
}

/// A request's query as name and value pairs.
fn query_pairs(request: &Request<Incoming>) -> Vec<(String, String)> {
    form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_origin_of_a_web_page_is_told_the_outcome() {
        assert_eq!(
            web_origin("https://shop.example").as_deref(),
            Some("https://shop.example")
        );
        assert_eq!(
            web_origin("http://127.0.0.1:8080").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        for not_one in [
            "null",
            "https://shop.example/",
            "https://shop.example/page",
            "javascript:alert(1)",
            "file:///tmp/shop.html",
            "https://SHOP.example",
        ] {
            assert_eq!(web_origin(not_one), None, "{not_one}");
        }
    }
}
