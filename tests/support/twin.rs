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
//! A [`Defect`] breaks exactly one core requirement; the twin with none
//! passes every `@core` scenario.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use tokio::{io::AsyncReadExt, net::TcpListener};
use url::Url;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate, matchers::any};

pub const API_KEY: &str = "twin-merchant-key-7f3a";
pub const SHOP: &str = "TWIN_STORE";
pub const FRICTIONLESS_CARD: &str = "4111111111111111";
pub const THREE_DS_CARD: &str = "5555555555554444";
pub const PASSCODE: &str = "424242";

const JSON: &str = "text/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// One entry of the defect catalogue, `spec/defects.yaml`, by the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    RefusalWithoutEnvelope,
    RefusalCodeAsNumber,
    RefusalPayloadAsString,
    RefusalAsHtml,
    RefusalLabelledTextPlain,
    RefusalHangs,
    RefusalFloods,
    CreateDescriptionEmpty,
    PaymentTokenNotUuid,
    PaymentIdAsNumber,
    PaymentIdNotDigits,
    CreateRedirectNotNull,
    CreateRedirectMissing,
    PaymentIdRepeated,
    AuthorizationNotRequired,
    AnyApiKeyAccepted,
    UnknownTokenPaid,
    TransactionTypeWrongCase,
    TransactionTypeMissing,
    TransactionResultLowerCase,
    SubmitAnswersAnotherPaymentId,
    SuccessRedirectRelative,
    SuccessRedirectElsewhere,
    EnrolledCardWithout8006,
    EnrolledCard8006AsNumber,
    EnrolledCardDescriptionEmpty,
    IssuerAddressRelative,
    IssuerLandsElsewhere,
    IssuerRedirectsForever,
    IssuerResetsConnection,
}

impl Defect {
    /// Every defect the twin can be switched to.
    pub const ALL: [Self; 30] = [
        Self::RefusalWithoutEnvelope,
        Self::RefusalCodeAsNumber,
        Self::RefusalPayloadAsString,
        Self::RefusalAsHtml,
        Self::RefusalLabelledTextPlain,
        Self::RefusalHangs,
        Self::RefusalFloods,
        Self::CreateDescriptionEmpty,
        Self::PaymentTokenNotUuid,
        Self::PaymentIdAsNumber,
        Self::PaymentIdNotDigits,
        Self::CreateRedirectNotNull,
        Self::CreateRedirectMissing,
        Self::PaymentIdRepeated,
        Self::AuthorizationNotRequired,
        Self::AnyApiKeyAccepted,
        Self::UnknownTokenPaid,
        Self::TransactionTypeWrongCase,
        Self::TransactionTypeMissing,
        Self::TransactionResultLowerCase,
        Self::SubmitAnswersAnotherPaymentId,
        Self::SuccessRedirectRelative,
        Self::SuccessRedirectElsewhere,
        Self::EnrolledCardWithout8006,
        Self::EnrolledCard8006AsNumber,
        Self::EnrolledCardDescriptionEmpty,
        Self::IssuerAddressRelative,
        Self::IssuerLandsElsewhere,
        Self::IssuerRedirectsForever,
        Self::IssuerResetsConnection,
    ];

    /// Its id in the catalogue: the variant's name in kebab case.
    pub fn id(self) -> String {
        let name = format!("{self:?}");
        let mut id = String::new();
        for (i, c) in name.char_indices() {
            let after_letter = name[..i].chars().last().is_some_and(char::is_alphabetic);
            if i > 0 && (c.is_ascii_uppercase() || (c.is_ascii_digit() && after_letter)) {
                id.push('-');
            }
            id.push(c.to_ascii_lowercase());
        }
        id
    }

    /// The defect with this catalogue id.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.id() == id)
    }
}

/// A payment the twin holds.
#[derive(Clone)]
struct Payment {
    /// The `paymentID` as create answered it, as text.
    id: String,
    /// Whether submit was called with its token.
    submitted: bool,
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
}

#[derive(Clone)]
struct Session {
    payment_id: String,
    cookie: Option<String>,
    authenticated: Option<bool>,
}

/// The twin's behaviour, with the addresses of its three origins.
struct Twin {
    defect: Option<Defect>,
    /// The API and the 3-D Secure return.
    service: Url,
    /// The issuer's authentication pages.
    issuer: Url,
    /// The merchant's shop: success, failure and order-status pages.
    shop: Url,
    /// Where the reset-connection defect points the buyer.
    resetting: Option<Url>,
    state: State,
}

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
        answer(200, JSON, body.to_string())
    }

    /// A refusal: HTTP 200, a code of the twin's own, an empty payload.
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
            _ => answer(200, JSON, envelope(json!(code), json!({}))),
        }
    }

    fn create(&self, request: &Request) -> ResponseTemplate {
        let credentials = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        match credentials {
            None if !self.has(Defect::AuthorizationNotRequired) => {
                return self.refusal("AUTH_REQUIRED", "Authorization header required");
            }
            Some(value)
                if !self.has(Defect::AnyApiKeyAccepted)
                    && value.split_once(' ').is_none_or(|(scheme, key)| {
                        !scheme.eq_ignore_ascii_case("apikey") || key != API_KEY
                    }) =>
            {
                return self.refusal("AUTH_INVALID", "API key not recognised");
            }
            _ => {}
        }
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return self.refusal("BAD_JSON", "request body is not JSON");
        };
        if body["shopLogin"] != SHOP {
            return self.refusal("SHOP_UNKNOWN", "unknown shop");
        }
        for field in ["amount", "currency", "shopTransactionID"] {
            if !body[field].is_string() {
                return self.refusal("FIELD_MISSING", &format!("{field} is required"));
            }
        }

        let number = if self.has(Defect::PaymentIdRepeated) {
            4_210_000_000_000
        } else {
            4_210_000_000_000 + self.state.next_id.fetch_add(1, Ordering::Relaxed)
        };
        let id = if self.has(Defect::PaymentIdNotDigits) {
            format!("PAY-{number}")
        } else {
            number.to_string()
        };
        let token = if self.has(Defect::PaymentTokenNotUuid) {
            format!("tok_{}", uuid::Uuid::new_v4().simple())
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        self.state.payments.lock().expect("lock").insert(
            token.clone(),
            Payment {
                id: id.clone(),
                submitted: false,
            },
        );

        let mut payload = json!({
            "paymentToken": token,
            "paymentID": if self.has(Defect::PaymentIdAsNumber) { json!(number) } else { json!(id) },
            "userRedirect": {"href": null},
            "createdAt": "2026-11-22T10:00:00Z",
            "expiresInSeconds": 1800,
            "links": {"status": Self::at(&self.service, &format!("/payments/{id}"))},
        });
        if self.has(Defect::CreateRedirectNotNull) {
            payload["userRedirect"]["href"] = json!(Self::at(&self.service, "/pay"));
        }
        if self.has(Defect::CreateRedirectMissing) {
            payload
                .as_object_mut()
                .expect("an object")
                .remove("userRedirect");
        }
        let description = if self.has(Defect::CreateDescriptionEmpty) {
            ""
        } else {
            "Request processed successfully"
        };
        self.processed(description, payload)
    }

    fn submit(&self, request: &Request) -> ResponseTemplate {
        let token = request
            .headers
            .get("paymenttoken")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return self.refusal("BAD_JSON", "request body is not JSON");
        };
        let payment = {
            let mut payments = self.state.payments.lock().expect("lock");
            match payments.get_mut(&token) {
                Some(payment) if payment.submitted => {
                    return self.refusal("ALREADY_SUBMITTED", "payment already submitted");
                }
                Some(payment) => {
                    payment.submitted = true;
                    payment.clone()
                }
                None if self.has(Defect::UnknownTokenPaid) => Payment {
                    id: "4219999999999".to_owned(),
                    submitted: true,
                },
                None => return self.refusal("TOKEN_UNKNOWN", "no payment for this token"),
            }
        };
        if body["shopLogin"] != SHOP {
            return self.refusal("SHOP_MISMATCH", "shop does not own this payment");
        }
        let number = body
            .pointer("/paymentTypeDetails/creditcard/number")
            .and_then(Value::as_str)
            .unwrap_or("");
        let masked = if number.len() >= 10 {
            format!("{}******{}", &number[..6], &number[number.len() - 4..])
        } else {
            String::new()
        };
        let payment_id = if self.has(Defect::SubmitAnswersAnotherPaymentId) {
            "4218888888888".to_owned()
        } else {
            payment.id.clone()
        };
        let mut payload = json!({
            "transactionType": if self.has(Defect::TransactionTypeWrongCase) { "Submit" } else { "submit" },
            "paymentID": payment_id,
            "bankTransactionID": format!("BT{}", payment.id),
            "maskedPAN": masked,
            "authorizationCode": null,
        });
        match number {
            FRICTIONLESS_CARD => {
                let thanks = format!("/thank-you?order={}", payment.id);
                payload["transactionResult"] =
                    json!(if self.has(Defect::TransactionResultLowerCase) {
                        "ok"
                    } else {
                        "OK"
                    });
                payload["authorizationCode"] = json!("A7B9Q2");
                payload["userRedirect"] = json!({"href": if self.has(Defect::SuccessRedirectRelative) {
                    scheme_relative(&Self::at(&self.shop, &thanks))
                } else if self.has(Defect::SuccessRedirectElsewhere) {
                    Self::at(&self.shop, &format!("/order-status?order={}", payment.id))
                } else {
                    Self::at(&self.shop, &thanks)
                }});
            }
            THREE_DS_CARD => {
                let session = uuid::Uuid::new_v4().simple().to_string();
                self.state.sessions.lock().expect("lock").insert(
                    session.clone(),
                    Session {
                        payment_id: payment.id.clone(),
                        cookie: None,
                        authenticated: None,
                    },
                );
                let begin = format!("/acs/begin?txn={session}");
                let href = match (&self.resetting, self.defect) {
                    (Some(resetting), _) => Self::at(resetting, &begin),
                    (None, Some(Defect::IssuerAddressRelative)) => {
                        scheme_relative(&Self::at(&self.issuer, &begin))
                    }
                    _ => Self::at(&self.issuer, &begin),
                };
                payload["transactionResult"] = json!("");
                payload["transactionErrorCode"] = if self.has(Defect::EnrolledCard8006AsNumber) {
                    json!(8006)
                } else {
                    json!("8006")
                };
                payload["transactionErrorDescription"] =
                    json!(if self.has(Defect::EnrolledCardDescriptionEmpty) {
                        ""
                    } else {
                        "Cardholder authentication required by the issuer"
                    });
                if self.has(Defect::EnrolledCardWithout8006) {
                    payload
                        .as_object_mut()
                        .expect("an object")
                        .remove("transactionErrorCode");
                }
                payload["userRedirect"] = json!({ "href": href });
            }
            _ => {
                payload["transactionResult"] = json!("KO");
                payload["transactionErrorCode"] = json!("D05");
                payload["transactionErrorDescription"] = json!("Do not honour");
                payload["userRedirect"] =
                    json!({"href": Self::at(&self.shop, &format!("/sorry?order={}", payment.id))});
            }
        }
        if self.has(Defect::TransactionTypeMissing) {
            payload
                .as_object_mut()
                .expect("an object")
                .remove("transactionType");
        }
        self.processed("Request processed successfully", payload)
    }

    /// The issuer address: a session cookie, then a redirect to the challenge.
    fn issuer_begin(&self, request: &Request) -> ResponseTemplate {
        let session = query(request, "txn").unwrap_or_default();
        let mut sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get_mut(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        let value = uuid::Uuid::new_v4().simple().to_string();
        entry.cookie = Some(value.clone());
        redirect(302, &format!("/acs/challenge/{session}")).insert_header(
            "Set-Cookie",
            format!("acs_sid={value}; Path=/acs; HttpOnly; SameSite=Lax"),
        )
    }

    fn session_of(&self, request: &Request, session: &str) -> Option<Session> {
        let sessions = self.state.sessions.lock().expect("lock");
        let entry = sessions.get(session)?;
        (entry.cookie.is_some() && entry.cookie == cookie(request, "acs_sid"))
            .then(|| entry.clone())
    }

    fn challenge_page(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        page(
            "Twin Bank SecureCode",
            &format!(
                r#"<h1>Confirm your purchase</h1>
<form id="challenge" method="POST" action="{session}/confirm">
  <input type="hidden" name="txn" value="{session}">
  <input type="hidden" name="nonce" value="n-{session}">
  <label>Send the code by <select name="channel"><option value="sms" selected>SMS</option><option value="app">App</option></select></label>
  <label>Passcode <input type="password" name="passcode" autocomplete="one-time-code"></label>
  <label><input type="checkbox" name="trust_device" value="1"> Trust this device</label>
  <button type="submit" name="decision" value="approve">Confirm</button>
</form>
<form method="POST" action="{session}/abort">
  <input type="hidden" name="txn" value="{session}">
  <button type="submit">Cancel payment</button>
</form>"#
            ),
        )
    }

    /// The page a script posts back to the service at once: 3-D Secure's result.
    fn relay_to_service(&self, session: &str, authenticated: bool) -> ResponseTemplate {
        let action = Self::at(&self.service, "/3ds/return");
        let result = if authenticated { "Y" } else { "N" };
        page(
            "Returning to the shop",
            &format!(
                r#"<script>window.onload = function () {{ document.forms[0].submit(); }};</script>
<form method="post" action="{action}">
  <input type="hidden" name="PaRes" value="{result}-{session}">
  <input type="hidden" name="MD" value="{session}">
  <noscript><button type="submit">Continue</button></noscript>
</form>"#
            ),
        )
    }

    fn confirm(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        let form = form_fields(request);
        let authenticated = form.get("txn").map(String::as_str) == Some(session)
            && form.get("decision").map(String::as_str) == Some("approve")
            && form.get("passcode").map(String::as_str) == Some(PASSCODE);
        if self.has(Defect::IssuerRedirectsForever) {
            return redirect(302, &format!("/acs/challenge/{session}/wait?n=1"));
        }
        self.relay_to_service(session, authenticated)
    }

    fn wait(&self, request: &Request, session: &str) -> ResponseTemplate {
        let n: u64 = query(request, "n")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        redirect(302, &format!("/acs/challenge/{session}/wait?n={}", n + 1))
    }

    fn abort(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        self.relay_to_service(session, false)
    }

    /// The service receives the issuer's result and sends the buyer on.
    fn three_ds_return(&self, request: &Request) -> ResponseTemplate {
        let form = form_fields(request);
        let session = form.get("MD").cloned().unwrap_or_default();
        let authenticated = form
            .get("PaRes")
            .is_some_and(|r| r == &format!("Y-{session}"));
        let mut sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get_mut(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        entry.authenticated = Some(authenticated);
        redirect(303, &format!("/checkout/complete?txn={session}"))
    }

    fn complete(&self, request: &Request) -> ResponseTemplate {
        let session = query(request, "txn").unwrap_or_default();
        let sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        let order = &entry.payment_id;
        let landing = match entry.authenticated {
            _ if self.has(Defect::IssuerLandsElsewhere) => format!("/order-status?order={order}"),
            Some(true) => format!("/thank-you?order={order}"),
            _ => format!("/sorry?order={order}"),
        };
        redirect(302, &Self::at(&self.shop, &landing))
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
            Origin::Service => match (method, path) {
                ("POST", "/api/v1/payment/create/" | "/api/v1/payment/create") => {
                    Some(self.create(request))
                }
                ("POST", "/api/v1/payment/submit/" | "/api/v1/payment/submit") => {
                    Some(self.submit(request))
                }
                ("POST", "/3ds/return") => Some(self.three_ds_return(request)),
                ("GET", "/checkout/complete") => Some(self.complete(request)),
                _ => None,
            },
            Origin::Issuer => issuer_page(self),
            Origin::Shop => match path {
                "/thank-you" => Some(page("Thank you", "<h1>Thank you for your order</h1>")),
                "/sorry" => Some(page("Payment failed", "<h1>Your payment failed</h1>")),
                "/order-status" => Some(page("Order status", "<h1>Order pending</h1>")),
                _ => None,
            },
        };
        found.unwrap_or_else(|| self.refusal("NOT_FOUND", "no such resource"))
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

/// A listener that resets every connection once the request has arrived.
async fn resetting_listener() -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buffer = [0_u8; 1024];
            let _ = stream.read(&mut buffer).await;
            let _ = stream.set_zero_linger();
            drop(stream);
        }
    });
    Url::parse(&format!("http://{address}/")).expect("an address")
}

/// The twin on three loopback origins.
pub struct TwinService {
    pub service: MockServer,
    pub issuer: MockServer,
    pub shop: MockServer,
}

impl TwinService {
    /// The twin, conformant (`None`) or with one defect.
    pub async fn start(defect: Option<Defect>) -> Self {
        let (service, issuer, shop) = tokio::join!(
            MockServer::start(),
            MockServer::start(),
            MockServer::start()
        );
        let base = |server: &MockServer| Url::parse(&server.uri()).expect("a server address");
        let resetting = if defect == Some(Defect::IssuerResetsConnection) {
            Some(resetting_listener().await)
        } else {
            None
        };
        let twin = Arc::new(Twin {
            defect,
            service: base(&service),
            issuer: base(&issuer),
            shop: base(&shop),
            resetting,
            state: State::default(),
        });
        for (server, origin) in [
            (&service, Origin::Service),
            (&issuer, Origin::Issuer),
            (&shop, Origin::Shop),
        ] {
            Mock::given(any())
                .respond_with(Route(Arc::clone(&twin), origin))
                .mount(server)
                .await;
        }
        Self {
            service,
            issuer,
            shop,
        }
    }

    /// A target file describing the twin.
    pub fn target_toml(&self) -> String {
        let base = self.service.uri();
        let shop = self.shop.uri();
        format!(
            r#"base_url = "{base}"
api_key = "{API_KEY}"
shop_login = "{SHOP}"
currency = "USD"
amount = "42.00"
success_url = "{shop}/thank-you"
failure_url = "{shop}/sorry"
[cards.frictionless]
number = "{FRICTIONLESS_CARD}"
exp_month = "03"
exp_year = "31"
cvv = "737"
[cards.three_ds]
number = "{THREE_DS_CARD}"
exp_month = "03"
exp_year = "31"
cvv = "737"
[acs]
driver = "form"
fields = {{ passcode = "{PASSCODE}" }}
"#
        )
    }
}
