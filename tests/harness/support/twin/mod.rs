//! The conformant twin: a second implementation of the contract, on
//! wiremock, that makes its own choices everywhere the contract is silent,
//! and the defect catalogue (`spec/defects.yaml`) as switches on it.
//!
//! Where the reference implementation answers refusals with 4xx statuses and
//! the real service's codes, the twin answers every refusal with HTTP 200
//! and codes of its own (`AUTH_REQUIRED`, …); it labels its JSON
//! `text/json; charset=utf-8`, adds fields to every payload and a
//! `requestId` to the envelope, numbers payments with 13 digits, takes its
//! own test cards, and sends the buyer to a shop on another origin. Its
//! issuer lives on a third origin, with a session cookie, a page of other
//! field names (`passcode`, a channel select, a checkbox, a named button),
//! and a chain back to the shop: a redirect to the challenge, a form of
//! hidden fields that a script posts back to the service (3-D Secure's
//! `PaRes`/`MD`), a 303 and a 302.
//!
//! Its issuer page comes in the shapes real issuers build ([`IssuerStyle`]:
//! plain, scripted, framed, two-step with Cancel first), each a conforming
//! variation: the contract says nothing about the page.
//! Its standard payment page comes in the styles real services build
//! ([`PageStyle`]: a full page, the lightbox, hosted fields; [`page`]), with
//! an alternative method approved on another origin. It starts on its
//! origins, and is described to `payconf run`, in [`service`].
//!
//! A [`Defect`] breaks exactly one core requirement; the twin with none
//! passes every `@core` scenario, in every style, with the right driver,
//! and in each [`Variation`] (a reading of the contract) too.

mod api;
mod backlog;
mod defect;
mod issuer;
mod lifecycle;
mod lightbox;
mod methods;
mod notify;
mod outcomes;
mod page;
mod review;
mod service;
mod transport;
mod variation;

pub use defect::{Defect, LIFECYCLE, OUTCOME, REAL_CLIENT};
pub use issuer::IssuerStyle;
pub use notify::SIGNING_SECRET;
pub use page::PageStyle;
pub use service::TwinService;
pub use variation::Variation;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use url::Url;
use wiremock::{Request, Respond, ResponseTemplate};

pub const API_KEY: &str = "twin-merchant-key-7f3a";
pub const SHOP: &str = "TWIN_STORE";
/// The twin's second shop, which settles when the merchant captures.
pub const SECOND_SHOP: &str = "TWIN_WAREHOUSE";
pub const SECOND_API_KEY: &str = "twin-warehouse-key-91c2";
pub const FRICTIONLESS_CARD: &str = "4111111111111111";
pub const THREE_DS_CARD: &str = "5555555555554444";
/// A card the twin declines (it declines every card but its two).
pub const DECLINED_CARD: &str = "4000056655665556";
pub const PASSCODE: &str = "424242";

const JSON: &str = "text/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// A payment the twin holds.
#[derive(Clone)]
struct Payment {
    /// The `paymentID` as create answered it, as text.
    id: String,
    /// Its place among the payments created, from 1.
    order: u64,
    /// Whether submit was called with its token.
    submitted: bool,
    /// When its first submit's claim lands: when its answer has gone out,
    /// for the defects that claim a token in two steps (which tell "at
    /// once" from "again" by it), or its check and the race's window.
    answered_at: Option<std::time::Instant>,
}

impl Payment {
    /// Whether it was claimed by a write that has not landed by `now`: the
    /// racing defects' window, in which a second check finds it unclaimed.
    fn claim_pending(&self, now: std::time::Instant) -> bool {
        self.submitted && self.answered_at.is_some_and(|at| at > now)
    }
}

/// The twin's state, shared by its three origins.
#[derive(Default)]
struct State {
    /// Payments by token.
    payments: Mutex<HashMap<String, Payment>>,
    /// Issuer sessions: session id to (payment id, cookie value, authenticated).
    sessions: Mutex<HashMap<String, Session>>,
    /// Next payment number.
    next_id: AtomicU64,
    /// How many payments were created.
    created: AtomicU64,
    /// Where the payment page sent the buyer of each payment it paid, by
    /// token: a shop's page.
    page_outcomes: Mutex<HashMap<String, String>>,
    /// When the last API requests came, for the rate-limited variation.
    recent_requests: Mutex<std::collections::VecDeque<std::time::Instant>>,
    /// Each payment's order, for its notification, by payment ID.
    orders: Mutex<HashMap<String, notify::Order>>,
    /// Each paid payment's money, by payment ID.
    ledgers: Mutex<HashMap<String, lifecycle::Ledger>>,
    /// The card each payment's review step keeps, by token.
    reviews: Mutex<HashMap<String, HashMap<String, String>>>,
    /// The origin of the shop page whose lightbox opened each payment, by
    /// payment ID.
    lightboxes: Mutex<HashMap<String, String>>,
}

#[derive(Clone)]
struct Session {
    payment_id: String,
    cookie: Option<String>,
    authenticated: Option<bool>,
    /// Whether the buyer came from the payment page, not a submit.
    from_page: bool,
    /// Whether it runs inside the page's overlay, which the end of the way
    /// leaves for the whole window.
    framed: bool,
    /// What the card's challenge ends with when passed: `None`, paid.
    passed_ends: Option<&'static str>,
}

/// The twin's behaviour, with the addresses of its three origins.
struct Twin {
    defect: Option<Defect>,
    /// Whether the defect shows one try in two: on the payments created
    /// second, fourth, sixth…, and not on the others (a flaky server, for
    /// `--retries`). A run's check of its credentials creates the first.
    intermittent: bool,
    /// How the issuer page is built.
    style: IssuerStyle,
    /// How the payment page is built.
    page_style: PageStyle,
    /// A conforming variation, if one is switched on.
    variation: Option<Variation>,
    /// The API and the 3-D Secure return.
    service: Url,
    /// The issuer's authentication pages.
    issuer: Url,
    /// The merchant's shop: success, failure and order-status pages.
    shop: Url,
    /// Where the reset-connection defect points the buyer.
    resetting: Option<Url>,
    /// The race defect's window: how long after its check a submit's
    /// claim of the token lands.
    race_window: std::time::Duration,
    state: State,
    /// Where notifications are handed over to be posted.
    outbox: tokio::sync::mpsc::UnboundedSender<notify::Outgoing>,
}

/// The race defect's window in the catalogue's twin. The one defect timed
/// in milliseconds, and on purpose: the window is the specimen. A server
/// whose claim lands a millisecond after its check is what ROB-01's volleys
/// must catch, and only timing can make one; a volley whose spread exceeds
/// the window misses it, which the scenario's `measured:` line says.
pub const RACE_WINDOW: std::time::Duration = std::time::Duration::from_millis(1);

fn answer(status: u16, media_type: &str, body: impl Into<Vec<u8>>) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.into(), media_type)
}

fn redirect(status: u16, location: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).insert_header("Location", location)
}

fn page(title: &str, body: &str) -> ResponseTemplate {
    answer(
        200,
        HTML,
        format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body>{body}</body></html>"
        ),
    )
}

/// `http://host/path` as `//host/path`: relative to the scheme of the page it is on.
fn scheme_relative(address: &str) -> String {
    address
        .strip_prefix("http:")
        .expect("the twin's addresses are http")
        .to_owned()
}

fn form_fields(request: &Request) -> HashMap<String, String> {
    url::form_urlencoded::parse(&request.body)
        .into_owned()
        .collect()
}

/// The `paymentToken` header a request carries (empty without one).
fn payment_token(request: &Request) -> String {
    request
        .headers
        .get("paymenttoken")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

fn query(request: &Request, name: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

fn cookie(request: &Request, name: &str) -> Option<String> {
    let header = request.headers.get("cookie")?.to_str().ok()?;
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then(|| v.to_owned())
    })
}

impl Twin {
    fn has(&self, defect: Defect) -> bool {
        self.defect == Some(defect)
            && (!self.intermittent || self.state.created.load(Ordering::Relaxed) % 2 == 0)
    }

    /// Whether a request body crashes the twin's parser: nesting deeper
    /// than 64, or any byte that is not ASCII, with the defects that do so.
    fn crashes_on(&self, request: &Request) -> bool {
        let body = &request.body;
        if self.has(Defect::NonAsciiCrashes) {
            return body.iter().any(|b| !b.is_ascii());
        }
        if self.has(Defect::DeepNestingCrashes) {
            let mut depth = 0_usize;
            for byte in body {
                match byte {
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if depth > 64 {
                    return true;
                }
            }
        }
        false
    }

    fn at(base: &Url, path: &str) -> String {
        base.join(path).expect("a path joins a base").to_string()
    }

    fn processed(&self, description: &str, payload: Value) -> ResponseTemplate {
        let body = json!({
            "requestId": uuid::Uuid::new_v4().to_string(),
            "error": {"code": "0", "description": description, "traceId": "t-0"},
            "payload": payload,
        });
        self.json(200, body.to_string())
    }

    /// A refusal as the twin writes it: HTTP 200, a code of its own, an
    /// empty payload (null in the variation that writes it so).
    fn envelope(&self, code: &str, description: &str) -> ResponseTemplate {
        let payload = if self.variation == Some(Variation::NullPayloadOnRefusals) {
            Value::Null
        } else {
            json!({})
        };
        let body = json!({"requestId": uuid::Uuid::new_v4().to_string(),
                          "error": {"code": code, "description": description}, "payload": payload});
        self.json(200, body.to_string())
    }

    /// A refusal of a payment operation the service's own code decides
    /// (authentication, an unknown token, a shop mismatch).
    fn refusal(&self, code: &str, description: &str) -> ResponseTemplate {
        let envelope = |code: Value, payload: Value| {
            json!({"requestId": uuid::Uuid::new_v4().to_string(),
                   "error": {"code": code, "description": description}, "payload": payload})
            .to_string()
        };
        match self.defect {
            Some(Defect::RefusalWithoutEnvelope) => {
                answer(200, JSON, json!({"message": description}).to_string())
            }
            Some(Defect::RefusalCodeAsNumber) => answer(200, JSON, envelope(json!(401), json!({}))),
            Some(Defect::RefusalPayloadAsString) => {
                answer(200, JSON, envelope(json!(code), json!("none")))
            }
            Some(Defect::RefusalAsHtml) => page("Error", &format!("<h1>{description}</h1>")),
            Some(Defect::RefusalLabelledTextPlain) => {
                answer(200, "text/plain", envelope(json!(code), json!({})))
            }
            Some(Defect::RefusalHangs) => answer(200, JSON, envelope(json!(code), json!({})))
                .set_delay(Duration::from_secs(60)),
            Some(Defect::RefusalFloods) => {
                let mut body = format!("{{\"error\":{{\"code\":\"{code}\",\"description\":\"");
                body.push_str(&"x".repeat(8 << 20));
                answer(200, JSON, body)
            }
            _ => self.envelope(code, description),
        }
    }

    /// The answer to a request the service cannot use (a body that is not
    /// JSON, a field missing, no such operation): where many servers let
    /// their web framework answer with its own error page.
    fn unusable(&self, status: u16, code: &str, description: &str) -> ResponseTemplate {
        match self.defect {
            Some(Defect::UnusableRequestAsHtml) => {
                let body = format!(
                    "<!DOCTYPE html><html><head><title>{status} Error</title></head>\
                     <body><h1>{status}</h1><p>{description}</p></body></html>"
                );
                answer(status, HTML, body)
            }
            Some(Defect::UnusableRequestEmpty) => ResponseTemplate::new(status),
            _ => self.envelope(code, description),
        }
    }

    fn respond(&self, origin: Origin, request: &Request) -> ResponseTemplate {
        let method = request.method.as_str();
        let path = request.url.path();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let issuer_page = |twin: &Self| match (method, segments.as_slice()) {
            ("GET", ["acs", "begin"]) => Some(twin.issuer_begin(request)),
            ("GET", ["acs", "challenge", session]) => Some(twin.challenge_page(request, session)),
            ("POST", ["acs", "challenge", session, "confirm"]) => {
                Some(twin.confirm(request, session))
            }
            ("GET", ["acs", "challenge", session, "wait"]) => Some(twin.wait(request, session)),
            ("POST", ["acs", "challenge", session, "abort"]) => Some(twin.abort(request, session)),
            _ => None,
        };
        let found = match origin {
            Origin::Service if self.crashes_on(request) => {
                return ResponseTemplate::new(500).set_body_raw("Internal Server Error", HTML);
            }
            Origin::Service if path.starts_with("/api/") && self.over_rate() => {
                let body = json!({"error": {"code": "RATE_LIMITED", "description": "too many requests"},
                                  "payload": {}});
                return self
                    .json(429, body.to_string())
                    .insert_header("Retry-After", "1");
            }
            Origin::Service => match (method, path) {
                // Without the trailing slash alone, in the variation that
                // spells create and submit so.
                ("POST", "/api/v1/payment/create/" | "/api/v1/payment/submit/")
                    if self.variation == Some(Variation::SlashlessOperations) =>
                {
                    None
                }
                ("POST", "/api/v1/payment/create/" | "/api/v1/payment/create") => {
                    Some(self.create(request))
                }
                ("POST", "/api/v1/payment/submit/" | "/api/v1/payment/submit") => {
                    Some(self.submit(request))
                }
                ("POST", "/3ds/return") => Some(self.three_ds_return(request)),
                // Without the trailing slash alone, in the variation that spells them so.
                ("POST", lifecycle)
                    if self.variation == Some(Variation::NoTrailingSlash)
                        && lifecycle.starts_with("/api/v1/payment/")
                        && lifecycle.ends_with('/')
                        && !lifecycle.ends_with("/create/")
                        && !lifecycle.ends_with("/submit/") =>
                {
                    None
                }
                ("POST", "/api/v1/payment/detail" | "/api/v1/payment/detail/") => {
                    Some(self.detail(request, None))
                }
                ("GET", methods) if methods.starts_with("/api/v1/payment/methods/detail/") => {
                    let rest = methods
                        .strip_prefix("/api/v1/payment/methods/detail/")
                        .unwrap_or("");
                    let (id, kind) = rest.split_once('/').unwrap_or((rest, ""));
                    Some(self.method_detail(request, id, kind.trim_end_matches('/')))
                }
                ("GET", methods) if methods.starts_with("/api/v1/payment/methods/") => {
                    let rest = methods
                        .strip_prefix("/api/v1/payment/methods/")
                        .unwrap_or("");
                    let id = rest.split('/').next().unwrap_or("");
                    Some(self.payment_methods(request, id))
                }
                ("GET", data) if data.starts_with("/api/v1/payment/dataForBuyer/") => {
                    let id = data
                        .strip_prefix("/api/v1/payment/dataForBuyer/")
                        .unwrap_or("");
                    Some(self.data_for_buyer(request, id.trim_end_matches('/')))
                }
                ("POST", "/api/v1/check/DCC/" | "/api/v1/check/DCC") => {
                    Some(self.check_dcc(request))
                }
                ("GET", shop) if shop.starts_with("/api/v1/shop/methods/") => {
                    let login = shop.strip_prefix("/api/v1/shop/methods/").unwrap_or("");
                    Some(self.shop_methods(request, login.trim_end_matches('/')))
                }
                ("GET", detail) if detail.starts_with("/api/v1/payment/detail/") => {
                    Some(self.detail(request, detail.strip_prefix("/api/v1/payment/detail/")))
                }
                (
                    "POST",
                    "/api/v1/payment/capture/"
                    | "/api/v1/payment/capture"
                    | "/api/v1/payment/cancel/"
                    | "/api/v1/payment/cancel"
                    | "/api/v1/payment/refund/"
                    | "/api/v1/payment/refund",
                ) => {
                    let kind = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
                    Some(self.operation(request, kind))
                }
                ("GET", "/checkout/pay") => Some(self.payment_page(request)),
                ("GET", "/checkout/pay/frame") => Some(self.payment_frame(request)),
                ("GET", "/checkout/lightbox.js") => Some(self.lightbox_script()),
                ("POST", "/checkout/pay/charge") => Some(self.charge(request)),
                ("POST", "/checkout/pay/confirm") => Some(self.confirm_review(request)),
                ("POST", "/checkout/apm/start") => Some(self.alternative_start(request)),
                ("GET", "/checkout/apm/start") => Some(self.linked_alternative(request)),
                ("GET", "/checkout/apm/return") => Some(self.alternative_return(request)),
                ("GET", "/3ds/frame") => Some(self.frame_host(request)),
                ("GET", "/checkout/complete") => Some(self.complete(request)),
                ("GET", "/result") => Some(self.result_page(request)),
                // The issuer's pages answer here too, for an issuer address
                // written as a path on the service's host.
                _ => issuer_page(self),
            },
            Origin::Issuer => match (method, path) {
                ("GET", "/checkout/field") => Some(self.hosted_field(request)),
                ("GET", "/twinpay/approve") => Some(self.alternative_approval(request)),
                ("POST", "/twinpay/approve/decide") => Some(self.alternative_decision(request)),
                _ => issuer_page(self),
            },
            Origin::Shop => match path {
                "/thank-you" => Some(page("Thank you", "<h1>Thank you for your order</h1>")),
                "/sorry" => Some(page("Payment failed", "<h1>Your payment failed</h1>")),
                "/order-status" => Some(page("Order status", "<h1>Order pending</h1>")),
                _ => None,
            },
        };
        found.unwrap_or_else(|| self.unusable(404, "NOT_FOUND", "no such resource"))
    }
}

/// Which of the twin's origins a request reached.
#[derive(Clone, Copy)]
enum Origin {
    Service,
    Issuer,
    Shop,
}

struct Route(Arc<Twin>, Origin);

impl Respond for Route {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        self.0.respond(self.1, request)
    }
}
