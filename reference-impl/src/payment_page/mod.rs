//! The standard payment page: the page the buyer pays on when the merchant
//! does not build its own, at the real service's addresses: the hosted page
//! (`/pagam/pagam.aspx?a=<shopLogin>&b=<paymentToken>`, with an optional
//! `paymentType`), and the page the lightbox frames, which is also
//! pay-by-link's (`/pagam/src/index.html?paymentID=…&paymentToken=…&
//! shopLogin=…&lightBox=true|false`); the lightbox is the overlay a shop's
//! page opens with the service's script ([`lightbox`]).
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
//! In the lightbox, the page is framed only by the shop page that first
//! opened it: its origin is the frame's `Referer` (the script asks the
//! browser to send the origin, whatever the shop page's own referrer
//! policy), kept with the payment at the first opening, so a page of
//! another site that learnt the token can neither frame the form nor be
//! told the outcome.
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
    execute::{PaidCard, execute},
    form_body::read_form,
    pages::{error_page_under, escape, html_with_policy, layout, see_other},
    payment_method::Method,
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
    /// Whether the page is shown in a shop page's lightbox (the framed
    /// page's `lightBox=true`, carried on by its forms).
    lightbox: bool,
    /// The method the address preselected (`paymentType`; any other
    /// shows every method).
    preselected: Option<Method>,
    /// Where the page's forms post, relative to the page's own address.
    action: &'static str,
}

impl PageRequest {
    /// The payment the hosted page's address or its forms name: `a` the
    /// shop login, `b` the token (the real service's names).
    fn hosted(pairs: &[(String, String)]) -> Option<Self> {
        let (token, shop_login) = payment_of(pairs)?;
        Some(Self {
            shop_login: shop_login.to_owned(),
            token,
            payment_id: given(pairs, "paymentID"),
            lightbox: param(pairs, "lightBox") == Some("true"),
            preselected: param(pairs, "paymentType").and_then(Method::of_type),
            action: "pagam.aspx",
        })
    }

    /// The payment the framed page's address names, by the real service's
    /// four parameters (`lightBox` written so or `lightbox`, as the real
    /// service writes it in pay-by-link's address).
    fn framed(pairs: &[(String, String)]) -> Option<Self> {
        let lightbox = pairs
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("lightBox"))
            .is_some_and(|(_, value)| value.eq_ignore_ascii_case("true"));
        Some(Self {
            shop_login: param(pairs, "shopLogin")?.to_owned(),
            token: Uuid::try_parse(param(pairs, "paymentToken")?.trim()).ok()?,
            payment_id: given(pairs, "paymentID"),
            lightbox,
            preselected: None,
            action: "../pagam.aspx",
        })
    }

    /// The hidden fields every form of the page carries back.
    fn hidden(&self, payment_id: u64) -> String {
        let mut hidden = format!(
            r#"<input type="hidden" name="a" value="{shop}">
<input type="hidden" name="b" value="{token}">
<input type="hidden" name="paymentID" value="{payment_id}">"#,
            shop = escape(&self.shop_login),
            token = self.token.hyphenated(),
        );
        if self.lightbox {
            hidden.push_str("\n<input type=\"hidden\" name=\"lightBox\" value=\"true\">");
        }
        if let Some(preselected) = self.preselected {
            hidden.push_str(&format!(
                "\n<input type=\"hidden\" name=\"paymentType\" value=\"{}\">",
                preselected.payment_type()
            ));
        }
        hidden
    }
}

/// The origin of the page a request came from, by its `Referer`, when that
/// page is an http(s) page.
fn referring_origin(request: &Request<Incoming>) -> Option<String> {
    let referer = request.headers().get(http::header::REFERER)?.to_str().ok()?;
    let url = Url::parse(referer).ok()?;
    web_origin(&url.origin().ascii_serialization())
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
    /// The origin of the shop page whose lightbox first opened the page.
    framed_by: Option<Box<str>>,
}

/// The payment `request` names, if the service holds it for that shop (and
/// that `paymentID`, when given); `opened_by`, the origin of a shop page
/// opening it in its lightbox, is kept when it is the first.
fn lookup(service: &Service, request: &PageRequest, opened_by: Option<&str>) -> Option<Shown> {
    service
        .store
        .with_payment(&request.token, |p| {
            let profile = service.merchant(p.merchant);
            let merchant = &profile.merchant;
            let id_matches = request
                .payment_id
                .as_deref()
                .is_none_or(|id| id.trim() == p.id.to_string());
            if merchant.shop_login != request.shop_login || !id_matches {
                return None;
            }
            let framed_by = if p.state == PaymentState::Created {
                p.lightbox_origin(opened_by)
            } else {
                p.framed_by().map(Box::from)
            };
            Some(Shown {
                state: p.state,
                payment_id: p.id,
                amount: format!("{} {}", p.amount, p.currency),
                order: p.shop_transaction_id.to_string(),
                framed_by,
            })
        })
        .ok()
        .flatten()
}

/// `GET`: the hosted page for a payment waiting to be paid.
pub fn page(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let pairs = query_pairs(request);
    let Some(page) = PageRequest::hosted(&pairs) else {
        return unknown_payment();
    };
    show(service, &page, None)
}

/// `GET`: the page the lightbox frames (`lightBox=true`), or pay-by-link's
/// page of its own (`lightBox=false`).
pub fn framed(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let pairs = query_pairs(request);
    let Some(page) = PageRequest::framed(&pairs) else {
        return unknown_payment();
    };
    let opened_by = page.lightbox.then(|| referring_origin(request)).flatten();
    show(service, &page, opened_by.as_deref())
}

/// The page for the payment `page` names, when it waits to be paid.
fn show(service: &Service, page: &PageRequest, opened_by: Option<&str>) -> Response<Body> {
    match lookup(service, page, opened_by) {
        Some(shown) if shown.state == PaymentState::Created => payment_page(
            service,
            page,
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
    let Some(page) = PageRequest::hosted(&pairs) else {
        return unknown_payment();
    };
    let Some(shown) = lookup(service, &page, None) else {
        return unknown_payment();
    };
    if shown.state != PaymentState::Created {
        return already_processed(shown.state);
    }
    // Told to the lightbox's shop page only when paid in the lightbox.
    let framed_by = if page.lightbox {
        shown.framed_by.clone()
    } else {
        None
    };
    let method = param(&pairs, "method");
    if method == Some(wallet::METHOD) {
        return wallet::choose(service, &page.token, &page.shop_login, framed_by);
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
        framed_by,
        ..BuyerRedirects::default()
    };
    match execute(
        service,
        &page.token,
        &page.shop_login,
        &PaidCard::of(service, &number),
        Some(entered.buyer()),
        redirects,
        Channel::PaymentPage,
    ) {
        Ok(executed) => see_other(&executed.href),
        Err(ApiError::AlreadyProcessed) => lookup(service, &page, None)
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
    let card = card_form(
        page.action,
        &hidden,
        &format!("Pay {}", shown.amount),
        entered,
        problems,
    );
    let wallet = format!(
        r#"<div class="or">
<p>Or pay with your Sandbox Wallet: you approve the payment on its page.</p>
{}
</div>"#,
        wallet::choice_form(page.action, &hidden)
    );
    let (card, wallet) = match page.preselected {
        Some(Method::Card) => (card, String::new()),
        Some(Method::Wallet) => (String::new(), wallet),
        None => (card, wallet),
    };
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
{wallet}
<p class="note">Sandbox payment page: use the sandbox's test cards. Nothing is charged.</p>
<details class="note"><summary>The sandbox's test cards</summary>
{cards}
</details>"#,
        shop = escape(&page.shop_login),
        amount = escape(&shown.amount),
        order = escape(&shown.order),
        cards = crate::test_cards::html_table(&service.config),
    );
    let framed_by = if page.lightbox {
        shown.framed_by.as_deref()
    } else {
        None
    };
    html_with_policy(status, layout("Payment", &main), &form_policy(framed_by))
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

/// A parameter's value, when it is given and not empty.
fn given(pairs: &[(String, String)], name: &str) -> Option<String> {
    param(pairs, name)
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

/// The token and shop login a page's address or form names: `b` and `a`,
/// as the real service's page addresses name them.
fn payment_of(pairs: &[(String, String)]) -> Option<(Uuid, &str)> {
    Some((
        Uuid::try_parse(param(pairs, "b")?.trim()).ok()?,
        param(pairs, "a")?,
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
