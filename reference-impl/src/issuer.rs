//! The simulated issuer: the page a buyer with a 3-D Secure card is sent to,
//! where they type the one-time code their bank sent them (or cancel), and
//! the answer to that form, which ends the payment and sends the buyer on to
//! the merchant with a `303 See Other`.
//!
//! The page comes in the shapes real issuers build ([`IssuerPage`]): a plain
//! form; a form a script builds; the form inside an iframe; a channel choice
//! before the code. Every shape posts the same form to the same answer.

use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::{
    config::IssuerPage,
    form_body::read_form,
    landing::landing,
    ledger::Ending,
    notify,
    outcomes::{AuthenticationLevel, Challenge},
    pages::{error_page, escape, html, html_with_policy, layout, see_other},
    state::{Body, Service},
    store::PaymentState,
    timeline::What,
};

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
                "a" => reference.shop_login = Some(value.into_owned()),
                "b" => reference.payment_token = Some(value.into_owned()),
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
    /// The shop page's origin, when the payment page was in its lightbox:
    /// the issuer's page is then shown in the same frame.
    framed_by: Option<String>,
    amount: String,
    masked_pan: String,
    shop_transaction_id: String,
}

/// `GET`: the authentication form for a payment awaiting authentication.
pub fn page(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let query = request.uri().query().unwrap_or("");
    let (reference, rest) = PaymentReference::from_pairs(form_urlencoded::parse(query.as_bytes()));
    let (Some(token), Some(shop_login)) = (reference.token(), reference.shop_login.as_deref())
    else {
        return unknown_request();
    };
    let summary = service.store.with_payment(&token, |p| {
        let profile = service.merchant(p.merchant);
        let merchant = &profile.merchant;
        if merchant.shop_login != shop_login {
            return None;
        }
        if p.state == PaymentState::AwaitingAuthentication {
            p.record(What::IssuerPageShown);
        }
        Some((
            p.state,
            PaymentSummary {
                shop_login: merchant.shop_login.clone(),
                framed_by: p
                    .buyer_redirects
                    .as_ref()
                    .and_then(|r| r.framed_by.as_deref())
                    .map(str::to_owned),
                amount: format!("{} {}", p.amount, p.currency),
                masked_pan: p.masked_pan.as_deref().unwrap_or("").to_owned(),
                shop_transaction_id: p.shop_transaction_id.to_string(),
            },
        ))
    });
    match summary {
        Ok(Some((PaymentState::AwaitingAuthentication, summary))) => {
            let param = |name: &str| {
                rest.iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.as_str())
            };
            // Framed only by the sandbox's own page (the framed style's
            // challenge) and the lightbox's shop, when there is one.
            let ancestors = match &summary.framed_by {
                Some(origin) => format!("'self' {origin}"),
                None => "'self'".to_owned(),
            };
            let page = styled_page(service.config.issuer_page, &token, &summary, param);
            crate::pages::framed_by(page, &ancestors)
        }
        Ok(Some(_)) => already_completed(),
        Ok(None) | Err(_) => unknown_request(),
    }
}

/// The page of one style. `param` reads the page address's own parameters:
/// the two-step page's channel, the framed page's inner view.
fn styled_page<'a>(
    style: IssuerPage,
    token: &Uuid,
    summary: &PaymentSummary,
    param: impl Fn(&str) -> Option<&'a str>,
) -> Response<Body> {
    const TITLE: &str = "Confirm your payment";
    let hidden = hidden_fields(token, summary);
    match style {
        IssuerPage::Form => html(
            StatusCode::OK,
            layout(TITLE, &form_main(summary, &hidden, "")),
        ),
        IssuerPage::TwoStep => match param("channel") {
            Some(channel @ ("sms" | "email" | "app")) => html(
                StatusCode::OK,
                layout(TITLE, &code_main(summary, &hidden, channel)),
            ),
            _ => html(StatusCode::OK, layout(TITLE, &channel_main(&hidden))),
        },
        IssuerPage::Framed if param("view") == Some("challenge") => html_with_policy(
            StatusCode::OK,
            // To the page that frames it: the whole window on the hosted
            // page, the lightbox's frame in a shop's page (the top there
            // is the shop's, which the buyer must not leave).
            layout(TITLE, &form_main(summary, &hidden, r#" target="_parent""#)),
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
        ),
        IssuerPage::Framed => {
            let inner = format!(
                "pagam3d.aspx?a={}&b={}&view=challenge",
                form_urlencoded::byte_serialize(summary.shop_login.as_bytes()).collect::<String>(),
                token.hyphenated()
            );
            let main = format!(
                r#"<p>Your bank's page is shown below.</p>
<iframe src="{src}" title="Your bank" style="width:100%;height:34rem;border:1px solid #ccd"></iframe>"#,
                src = escape(&inner)
            );
            html_with_policy(
                StatusCode::OK,
                layout("Secure checkout", &main),
                "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'",
            )
        }
        IssuerPage::Scripted => {
            let nonce = Uuid::new_v4().simple().to_string();
            let main = format!(
                r#"{summary}
<div id="challenge" data-token="{token}" data-shop="{shop}"><p>Loading your bank's page…</p></div>
<noscript><p>This page needs JavaScript.</p></noscript>
<script nonce="{nonce}">{SCRIPTED_CHALLENGE}</script>"#,
                summary = summary_list(summary),
                token = token.hyphenated(),
                shop = escape(&summary.shop_login),
            );
            html_with_policy(
                StatusCode::OK,
                layout(TITLE, &main),
                &format!(
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'"
                ),
            )
        }
    }
}

/// The fields every form of the page carries back: which payment it is.
fn hidden_fields(token: &Uuid, summary: &PaymentSummary) -> String {
    format!(
        r#"<input type="hidden" name="b" value="{token}">
<input type="hidden" name="a" value="{shop}">"#,
        token = token.hyphenated(),
        shop = escape(&summary.shop_login),
    )
}

/// What is being paid, as the page shows it.
fn summary_list(summary: &PaymentSummary) -> String {
    format!(
        r#"<p>Your bank asks you to confirm this payment with the one-time code it sent you.</p>
<dl>
<dt>Merchant</dt><dd>{shop}</dd>
<dt>Amount</dt><dd>{amount}</dd>
<dt>Card</dt><dd>{pan}</dd>
<dt>Order</dt><dd>{order}</dd>
</dl>"#,
        shop = escape(&summary.shop_login),
        amount = escape(&summary.amount),
        pan = escape(&summary.masked_pan),
        order = escape(&summary.shop_transaction_id),
    )
}

/// The plain page: a form for the code, and a form that cancels. `target`
/// is an attribute both forms carry (the framed page posts to its parent).
fn form_main(summary: &PaymentSummary, hidden: &str, target: &str) -> String {
    format!(
        r#"{summary}
<form method="post" action="pagam3d.aspx" id="authenticate"{target}>
{hidden}
<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<div><button type="submit" name="action" value="authenticate">Confirm payment</button></div>
</form>
<form method="post" action="pagam3d.aspx" id="cancel"{target}>
{hidden}
<input type="hidden" name="action" value="cancel">
<button type="submit" class="secondary">Cancel payment</button>
</form>
<p class="note">Sandbox issuer: this page stands in for the card holder's bank.</p>"#,
        summary = summary_list(summary),
    )
}

/// The two-step page's first step: where the code is sent.
fn channel_main(hidden: &str) -> String {
    format!(
        r#"<p>Your bank will send you a one-time code. Where should it go?</p>
<form method="get" action="pagam3d.aspx" id="channel">
{hidden}
<label><input type="radio" name="channel" value="sms" checked> Text message to your phone</label>
<label><input type="radio" name="channel" value="email"> E-mail</label>
<label><input type="radio" name="channel" value="app"> Your banking app</label>
<div><button type="submit">Send the code</button></div>
</form>"#
    )
}

/// The two-step page's second step: one form whose first button cancels.
fn code_main(summary: &PaymentSummary, hidden: &str, channel: &str) -> String {
    let sent_by = match channel {
        "sms" => "text message",
        "email" => "e-mail",
        _ => "your banking app",
    };
    format!(
        r#"{summary}
<p>We sent the code by {sent_by}.</p>
<form method="post" action="pagam3d.aspx" id="authenticate">
{hidden}
<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" autofocus>
<div><button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
<button type="submit" name="action" value="authenticate">Confirm</button></div>
</form>"#,
        summary = summary_list(summary),
    )
}

/// The scripted page's script: it builds the form a moment after the page
/// loads, with Cancel before Confirm, and submits it when a button is clicked.
const SCRIPTED_CHALLENGE: &str = r#"
document.addEventListener('DOMContentLoaded', function () {
  setTimeout(function () {
    var root = document.getElementById('challenge');
    var form = document.createElement('form');
    form.method = 'post';
    form.action = 'pagam3d.aspx';
    function hidden(name, value) {
      var input = document.createElement('input');
      input.type = 'hidden'; input.name = name; input.value = value;
      form.appendChild(input);
      return input;
    }
    hidden('b', root.dataset.token);
    hidden('a', root.dataset.shop);
    var action = hidden('action', '');
    var label = document.createElement('label');
    label.textContent = 'One-time code';
    var code = document.createElement('input');
    code.type = 'text'; code.name = 'otp'; code.autocomplete = 'one-time-code';
    label.appendChild(code);
    form.appendChild(label);
    function button(text, value, secondary) {
      var b = document.createElement('button');
      b.type = 'button'; b.textContent = text;
      if (secondary) { b.className = 'secondary'; }
      b.addEventListener('click', function () { action.value = value; form.submit(); });
      form.appendChild(b);
    }
    button('Cancel', 'cancel', true);
    button('Confirm', 'authenticate', false);
    root.replaceChildren(form);
  }, 150);
});
"#;

/// `POST`: the buyer's answer. The right code ends the challenge as the
/// card decided at submit ([`Challenge`]): authenticated (`2C`) and paid,
/// to the success page, or refused (`8027`, `8038`); a wrong code is
/// `8027` and a cancel `1143`, to the failure page.
pub async fn answer(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let pairs = match read_form(service, request, "authentication form").await {
        Ok(pairs) => pairs,
        Err(refused) => return refused,
    };
    let (reference, rest) = PaymentReference::from_pairs(
        pairs
            .into_iter()
            .map(|(name, value)| (name.into(), value.into())),
    );
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

    let landing = service.store.with_payment(&token, |p| {
        let profile = service.merchant(p.merchant);
        let (merchant, pages) = (&profile.merchant, &profile.pages);
        if merchant.shop_login != shop_login {
            return Err(Refusal::Unknown);
        }
        if p.state != PaymentState::AwaitingAuthentication {
            return Err(Refusal::Completed);
        }
        let challenge = p
            .trail
            .as_ref()
            .and_then(|t| t.challenge)
            .unwrap_or(Challenge::Passes);
        let ending = match challenge.answered(cancelled, code_matches) {
            Ok(()) => Ending::granted(Some(AuthenticationLevel::Challenge)),
            // Cancelled, the buyer was never authenticated; refused after
            // the code, they were challenged and not authenticated.
            Err(decline) => Ending::refused(decline, None),
        };
        let authenticated = ending.paid();
        p.end(ending, merchant.settlement);
        p.trail_mut().authenticated = Some(authenticated);
        p.record(What::IssuerAnswered { authenticated });
        let redirects = p.buyer_redirects.as_deref();
        let to = landing(service, &token, shop_login, pages, redirects, authenticated);
        p.record(What::BuyerSent {
            to: to.as_str().into(),
        });
        notify::outcome(service, &token, p);
        Ok((p.id, to, authenticated))
    });
    match landing {
        Ok(Ok((payment_id, url, authenticated))) => {
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
