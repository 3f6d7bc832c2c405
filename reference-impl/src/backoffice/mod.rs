//! The merchant back-office, under [`BACK_OFFICE_PATH`]: server-rendered
//! pages, no script. A merchant signs in with their shop login and
//! password ([`session`]), sees their payments newest first and each
//! payment's timeline ([`payments`]), and changes their profile: result
//! pages, notification address, signing secret, API key ([`profile`]).
//!
//! Every page is escaped where values are placed, is neither cached nor
//! framed, and shows the API key and card numbers only masked.

mod calls;
mod list_query;
mod money;
mod notifications;
mod payments;
pub use list_query::CONFORMANCE_PREFIX;
mod profile;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use time::{OffsetDateTime, format_description::BorrowedFormatItem, macros::format_description};

use crate::sessions::{self as session, Session, SignIn};
use crate::{
    form_body::read_form,
    pages::escape,
    paths::BACK_OFFICE_PATH,
    state::{Body, Service},
};

/// The policy of every back-office page: its own styles, no script, no
/// frame, forms only to itself.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
                      frame-ancestors 'none'; base-uri 'none'";

/// Answers a request under the back-office's path.
pub async fn handle(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    let rest = path
        .strip_prefix(BACK_OFFICE_PATH)
        .unwrap_or("")
        .trim_end_matches('/')
        .to_owned();
    let method = request.method().clone();
    if rest == "/sign-in" {
        return match method {
            Method::GET => sign_in_page(service, &request, StatusCode::OK, None),
            Method::POST => sign_in(service, request).await,
            _ => not_allowed("GET, POST"),
        };
    }
    let Some((session_id, session)) = service.sessions.of(request.headers()) else {
        return see_other(&format!("{BACK_OFFICE_PATH}/sign-in"), None);
    };
    let signed_in = SignedIn { session: &session };
    match (rest.as_str(), method) {
        ("", Method::GET) => see_other(&format!("{BACK_OFFICE_PATH}/payments"), None),
        ("/payments", Method::GET) => payments::list(service, &signed_in, request.uri().query()),
        ("/profile", Method::GET) => profile::show(service, &signed_in, None, StatusCode::OK),
        ("/test-cards", Method::GET) => test_cards(service, &signed_in),
        ("/profile" | "/api-key" | "/sign-out", Method::POST) => {
            let Some(form) = change_form(service, &signed_in, request).await else {
                return forbidden();
            };
            match rest.as_str() {
                "/profile" => profile::update(service, &signed_in, &form).await,
                "/api-key" => profile::rotate_key(service, &signed_in),
                _ => {
                    service.sessions.close(&session_id);
                    see_other(
                        &format!("{BACK_OFFICE_PATH}/sign-in"),
                        Some(session::set_cookie(https(service), None)),
                    )
                }
            }
        }
        ("/profile" | "/api-key" | "/sign-out", _) => not_allowed("POST"),
        (other, Method::GET) if notification_path(other).is_some() => {
            let Some((id, event, None)) = notification_path(other) else {
                return not_found(&signed_in);
            };
            notifications::show(service, &signed_in, id, event, None)
        }
        (other, Method::POST) if notification_path(other).is_some() => {
            let Some((id, event, Some("resend"))) = notification_path(other) else {
                return not_found(&signed_in);
            };
            let (id, event) = (id.to_owned(), event.to_owned());
            if change_form(service, &signed_in, request).await.is_none() {
                return forbidden();
            }
            notifications::resend(service, &signed_in, &id, &event)
        }
        (other, Method::GET) if other.starts_with("/payments/") => {
            payments::detail(service, &signed_in, &other["/payments/".len()..])
        }
        (other, Method::POST) if money_action(other).is_some() => {
            let Some((id, action)) = money_action(other) else {
                return forbidden();
            };
            let id = id.to_owned();
            move_money(service, &signed_in, request, &id, action).await
        }
        _ => not_found(&signed_in),
    }
}

/// The sandbox's test cards and what each leads to.
fn test_cards(service: &Service, signed_in: &SignedIn<'_>) -> Response<Body> {
    page(
        StatusCode::OK,
        "Test cards",
        Some(signed_in),
        &format!(
            "<p class=\"hint\">What each of the sandbox's test cards leads to, as the real \
             service names its 3-D Secure outcomes. These numbers pay nothing; a buyer's card \
             is never shown whole.</p>\n{}",
            crate::test_cards::html_table(&service.config)
        ),
    )
}

/// A capture, refund or cancel asked for on a payment's page, and the
/// page shown again with its outcome: 409 when it was refused.
async fn move_money(
    service: &Service,
    signed_in: &SignedIn<'_>,
    request: Request<Incoming>,
    id: &str,
    action: money::Action,
) -> Response<Body> {
    let Some(form) = change_form(service, signed_in, request).await else {
        return forbidden();
    };
    let outcome = money::act(service, signed_in, id, action, &form);
    let mut shown = payments::show(service, signed_in, id, outcome.as_ref());
    if matches!(outcome, Some(money::Outcome::Refused(_))) && shown.status() == StatusCode::OK {
        *shown.status_mut() = StatusCode::CONFLICT;
    }
    shown
}

fn not_found(signed_in: &SignedIn<'_>) -> Response<Body> {
    page(
        StatusCode::NOT_FOUND,
        "Page not found",
        Some(signed_in),
        "<p>There is no such back-office page.</p>",
    )
}

/// The payment, the event and what is asked of a notification's path:
/// `/payments/{id}/notifications/{event}` and `…/{event}/resend`.
fn notification_path(path: &str) -> Option<(&str, &str, Option<&str>)> {
    let (id, rest) = path.strip_prefix("/payments/")?.split_once('/')?;
    let rest = rest.strip_prefix("notifications/")?;
    Some(match rest.split_once('/') {
        Some((event, action)) => (id, event, Some(action)),
        None => (id, rest, None),
    })
}

/// The payment and the button a money form's path names:
/// `/payments/{id}/capture|cancel|refund`.
fn money_action(path: &str) -> Option<(&str, money::Action)> {
    let (id, action) = path.strip_prefix("/payments/")?.split_once('/')?;
    Some((id, money::Action::of(action)?))
}

/// The signed-in merchant a page is for.
#[derive(Debug)]
pub struct SignedIn<'a> {
    session: &'a Session,
}

/// The posted form of a change, if it carries the session's token and
/// comes from the back-office's own pages.
async fn change_form(
    service: &Service,
    signed_in: &SignedIn<'_>,
    request: Request<Incoming>,
) -> Option<Vec<(String, String)>> {
    if !session::same_origin(&request, &service.site) {
        return None;
    }
    let form = read_form(service, request, "back-office form").await.ok()?;
    let posted = field(&form, "csrf");
    session::token_matches(signed_in.session, posted).then_some(form)
}

async fn sign_in(service: &Service, request: Request<Incoming>) -> Response<Body> {
    if !session::same_origin(&request, &service.site) {
        return forbidden();
    }
    let form = match read_form(service, request, "sign-in form").await {
        Ok(form) => form,
        Err(refused) => return refused,
    };
    let shop_login = field(&form, "shopLogin").unwrap_or("");
    let password = field(&form, "password").unwrap_or("");
    match service
        .sessions
        .sign_in(&service.profiles, shop_login, password)
        .await
    {
        SignIn::Opened(id) => see_other(
            &format!("{BACK_OFFICE_PATH}/payments"),
            Some(session::set_cookie(https(service), Some(&id))),
        ),
        SignIn::Refused => {
            // The login as typed (bounded, quoted and escaped), never the password.
            tracing::warn!(shop_login = ?logged(shop_login), "back-office sign-in refused");
            sign_in_form(
                service,
                StatusCode::UNAUTHORIZED,
                shop_login,
                Some("The shop login or the password is wrong."),
            )
        }
        SignIn::Slowed(wait) => {
            let secs = crate::rate_limit::retry_after_secs(wait);
            tracing::warn!(
                shop_login = ?logged(shop_login),
                retry_after_secs = secs,
                "back-office sign-in locked out after repeated failures"
            );
            let mut form = sign_in_form(
                service,
                StatusCode::TOO_MANY_REQUESTS,
                shop_login,
                Some(&format!(
                    "Too many failed sign-ins for this shop login. Try again in {secs} seconds."
                )),
            );
            form.headers_mut()
                .insert(header::RETRY_AFTER, http::HeaderValue::from(secs));
            form
        }
    }
}

/// A shop login as a log line may hold it: its first 64 characters.
fn logged(shop_login: &str) -> String {
    shop_login.chars().take(64).collect()
}

fn sign_in_page(
    service: &Service,
    request: &Request<Incoming>,
    status: StatusCode,
    problem: Option<&str>,
) -> Response<Body> {
    if service.sessions.of(request.headers()).is_some() {
        return see_other(&format!("{BACK_OFFICE_PATH}/payments"), None);
    }
    sign_in_form(service, status, "", problem)
}

fn sign_in_form(
    service: &Service,
    status: StatusCode,
    shop_login: &str,
    problem: Option<&str>,
) -> Response<Body> {
    let problem = problem.map_or_else(String::new, |p| {
        format!(
            r#"<p class="problem" role="alert" id="problem">{}</p>"#,
            escape(p)
        )
    });
    let described = if problem.is_empty() {
        ""
    } else {
        r#" aria-describedby="problem""#
    };
    let main = format!(
        r#"{problem}<form method="post" action="{BACK_OFFICE_PATH}/sign-in">
<label for="shopLogin">Shop login</label>
<input id="shopLogin" name="shopLogin" type="text" autocomplete="username" required value="{login}"{described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{described}>
<div><button type="submit">Sign in</button></div>
</form>{demo}"#,
        login = escape(shop_login),
        demo = if service.demo_sign_in {
            format!(
                r#"
<p class="note" id="demo-sign-in">This sandbox's demo shop: sign in as <code>{}</code> with the password <code>{}</code>. Shown while the sandbox listens on this machine alone.</p>"#,
                escape(crate::config::DEFAULT_SHOP_LOGIN),
                escape(crate::config::DEFAULT_PASSWORD)
            )
        } else {
            String::new()
        },
    );
    page(status, "Sign in to the back-office", None, &main)
}

/// The back-office's style sheet.
const STYLE: &str = "\
body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d2433; margin: 0; }
header { background: #1d2433; color: #fff; padding: .8rem 1.5rem; display: flex; gap: 2rem; align-items: center; flex-wrap: wrap; }
header p { margin: 0; font-weight: 700; }
nav { display: flex; gap: 1.2rem; align-items: center; }
nav a, button.link { color: #fff; font-size: 1rem; }
main { max-width: 64rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
h1 { font-size: 1.5rem; margin-top: 0; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
a { color: #1d4ed8; }
label { display: block; margin: 1rem 0 .3rem; font-weight: 600; }
input[type=text], input[type=password], input[type=url], select { font-size: 1rem; padding: .45rem; width: 100%; max-width: 36rem; box-sizing: border-box; border: 1px solid #5a6275; border-radius: 4px; }
button { font-size: 1rem; padding: .5rem 1.2rem; margin-top: 1rem; border-radius: 4px; border: 1px solid #1d4ed8; background: #1d4ed8; color: #fff; cursor: pointer; }
button.link { background: none; border: none; padding: 0; margin: 0; text-decoration: underline; }
form.inline { display: inline; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #d5d9e0; }
th { background: #eef0f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.2rem; }
dt { color: #4a5163; } dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
ol.timeline li, ol.calls li { margin: .45rem 0; }
pre { background: #eef0f4; padding: .6rem .8rem; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
summary { cursor: pointer; }
.problem { color: #a11d1d; font-weight: 600; }
.done { color: #146c2e; font-weight: 600; }
.hint { color: #4a5163; font-size: .9rem; margin: .2rem 0 0; }
code { background: #eef0f4; padding: .1rem .3rem; border-radius: 3px; overflow-wrap: anywhere; }
.test-mode { background: #fef3c7; color: #5c3d00; margin: 0; padding: .45rem 1.5rem; font-weight: 600; border-bottom: 1px solid #f59e0b; }";

/// A back-office page: `main` is HTML already escaped.
pub fn page(
    status: StatusCode,
    title: &str,
    signed_in: Option<&SignedIn<'_>>,
    main: &str,
) -> Response<Body> {
    let nav = signed_in.map_or_else(String::new, |s| {
        format!(
            r#"<nav aria-label="Back-office">
<a href="{BACK_OFFICE_PATH}/payments">Payments</a>
<a href="{BACK_OFFICE_PATH}/profile">Profile</a>
<a href="{BACK_OFFICE_PATH}/test-cards">Test cards</a>
<form method="post" action="{BACK_OFFICE_PATH}/sign-out" class="inline">
<input type="hidden" name="csrf" value="{token}">
<button type="submit" class="link">Sign out</button>
</form>
</nav>"#,
            token = escape(&s.session.form_token),
        )
    });
    let title = escape(title);
    let body = crate::pages::document(
        &format!("{title} · Sandbox back-office"),
        STYLE,
        &format!(
            "<header><p>Sandbox back-office</p>{nav}</header>\n<p class=\"test-mode\" role=\"note\" \
             id=\"test-mode\">Test mode: a sandbox. No payment here moves money; pay with its \
             test cards.</p>\n"
        ),
        &title,
        main,
    );
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        // Its own origin only: the back-office's addresses name payments,
        // and its forms' `Origin` is then the real one.
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CONTENT_SECURITY_POLICY, POLICY),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A `303 See Other` to a back-office path, setting a cookie when given.
fn see_other(path: &str, cookie: Option<String>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SEE_OTHER;
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(path) {
        headers.insert(header::LOCATION, location);
    }
    if let Some(cookie) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::SET_COOKIE, cookie);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn forbidden() -> Response<Body> {
    page(
        StatusCode::FORBIDDEN,
        "Change refused",
        None,
        &format!(
            r#"<p>This change did not come from a back-office page of this session, so it was not made. <a href="{BACK_OFFICE_PATH}/profile">Back to the profile</a>.</p>"#
        ),
    )
}

fn not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = page(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed",
        None,
        "<p>This back-office page does not take this method.</p>",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// Whether the back-office is served over HTTPS (its cookie is then `Secure`).
fn https(service: &Service) -> bool {
    service.public_url.scheme() == "https"
}

/// A form field's value.
fn field<'f>(form: &'f [(String, String)], name: &str) -> Option<&'f str> {
    form.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The hidden field carrying the session's form token.
fn token_field(signed_in: &SignedIn<'_>) -> String {
    format!(
        r#"<input type="hidden" name="csrf" value="{}">"#,
        escape(&signed_in.session.form_token)
    )
}

/// A moment as `2026-11-24 21:30:05`, UTC.
pub(super) fn when(at_ms: u64) -> String {
    const FORMAT: &[BorrowedFormatItem<'_>] =
        format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    let seconds = i64::try_from(at_ms / 1000).unwrap_or(i64::MAX);
    OffsetDateTime::from_unix_timestamp(seconds)
        .ok()
        .and_then(|t| t.format(FORMAT).ok())
        .unwrap_or_else(|| "unknown time".to_owned())
}
