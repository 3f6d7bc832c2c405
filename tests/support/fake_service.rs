//! A payment service written for the runner's own tests, on wiremock: it
//! follows the contract, making its own choices where the contract is silent
//! (its own test cards, codes, pages), and can be switched to break exactly
//! one thing with a [`Defect`].

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use wiremock::{
    Mock, MockServer, Request, Respond, ResponseTemplate,
    matchers::{method, path},
};

pub const API_KEY: &str = "fake-service-key";
pub const SHOP: &str = "FAKE_SHOP";
pub const FRICTIONLESS_CARD: &str = "4111111111111111";
pub const THREE_DS_CARD: &str = "5555555555554444";
pub const OTP: &str = "424242";

/// One way to break the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// None: a conformant service.
    None,
    /// `paymentID` as a JSON number (CREATE-03).
    NumericPaymentId,
    /// Refusals without the envelope: `{"message": ...}` (ENV-01).
    RefusalWithoutEnvelope,
    /// Submit's `userRedirect.href` relative (SUBMIT-04).
    RelativeRedirect,
    /// Submit answers another payment's ID (SUBMIT-03).
    SubmitAnswersAnotherPaymentId,
    /// The issuer page's form lands on a page that is not the success page (TDS-04).
    IssuerLandsElsewhere,
    /// Create never answers (a hung server).
    Hangs,
    /// Create answers a body that is not JSON.
    GarbageBody,
}

#[derive(Default)]
struct State {
    payments: Mutex<HashMap<String, String>>,
    next_id: AtomicU64,
}

struct Service {
    defect: Defect,
    base: String,
    state: Arc<State>,
}

fn json_answer(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.to_string(), "application/json")
}

impl Service {
    fn refusal(&self, status: u16, code: &str, description: &str) -> ResponseTemplate {
        if self.defect == Defect::RefusalWithoutEnvelope {
            return json_answer(status, json!({"message": description}));
        }
        json_answer(
            status,
            json!({"error": {"code": code, "description": description}, "payload": {}}),
        )
    }

    fn ok(&self, payload: Value) -> ResponseTemplate {
        json_answer(
            200,
            json!({"error": {"code": "0", "description": "processed"}, "payload": payload}),
        )
    }

    fn create(&self, request: &Request) -> ResponseTemplate {
        match self.defect {
            Defect::Hangs => return ResponseTemplate::new(200).set_delay(Duration::from_secs(30)),
            Defect::GarbageBody => {
                return ResponseTemplate::new(200).set_body_raw("<html>oops</html>", "text/html");
            }
            _ => {}
        }
        let authorized = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            == Some(&format!("apikey {API_KEY}"));
        if !authorized {
            return self.refusal(401, "AUTH", "bad credentials");
        }
        let token = uuid::Uuid::new_v4().to_string();
        let id = 5_000_000_000_000 + self.state.next_id.fetch_add(1, Ordering::Relaxed);
        self.state
            .payments
            .lock()
            .expect("lock")
            .insert(token.clone(), id.to_string());
        let payment_id = if self.defect == Defect::NumericPaymentId {
            json!(id)
        } else {
            json!(id.to_string())
        };
        self.ok(
            json!({"paymentToken": token, "paymentID": payment_id, "userRedirect": {"href": null}}),
        )
    }

    fn submit(&self, request: &Request) -> ResponseTemplate {
        let token = request
            .headers
            .get("paymenttoken")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let Some(id) = self
            .state
            .payments
            .lock()
            .expect("lock")
            .get(token)
            .cloned()
        else {
            return self.refusal(404, "NO_PAYMENT", "unknown payment");
        };
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let number = body
            .pointer("/paymentTypeDetails/creditcard/number")
            .and_then(Value::as_str)
            .unwrap_or("");
        let payment_id = if self.defect == Defect::SubmitAnswersAnotherPaymentId {
            format!("{id}9")
        } else {
            id
        };
        match number {
            FRICTIONLESS_CARD => {
                let href = if self.defect == Defect::RelativeRedirect {
                    "/shop/paid".to_owned()
                } else {
                    format!("{}/shop/paid", self.base)
                };
                self.ok(json!({
                    "transactionType": "submit", "transactionResult": "OK", "paymentID": payment_id,
                    "userRedirect": {"href": href}
                }))
            }
            THREE_DS_CARD => self.ok(json!({
                "transactionType": "submit", "transactionResult": "", "transactionErrorCode": "8006",
                "transactionErrorDescription": "authentication required", "paymentID": payment_id,
                "userRedirect": {"href": format!("{}/issuer/start?ref={token}", self.base)}
            })),
            _ => self.ok(json!({
                "transactionType": "submit", "transactionResult": "KO", "transactionErrorCode": "D1",
                "transactionErrorDescription": "declined", "paymentID": payment_id,
                "userRedirect": {"href": format!("{}/shop/failed", self.base)}
            })),
        }
    }

    fn issuer_page(&self, request: &Request) -> ResponseTemplate {
        let reference = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "ref")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let html = format!(
            r#"<!DOCTYPE html><html><body><h1>Verify</h1>
            <form action="verify" method="post">
              <input type="hidden" name="ref" value="{reference}">
              <label>Code <input type="password" name="passcode"></label>
              <input type="submit" value="Verify">
            </form></body></html>"#
        );
        ResponseTemplate::new(200).set_body_raw(html, "text/html; charset=utf-8")
    }

    fn issuer_verify(&self, request: &Request) -> ResponseTemplate {
        let form: HashMap<String, String> = url::form_urlencoded::parse(&request.body)
            .into_owned()
            .collect();
        let landing = if self.defect == Defect::IssuerLandsElsewhere {
            "/shop/elsewhere"
        } else if form.get("passcode").map(String::as_str) == Some(OTP) {
            "/shop/paid"
        } else {
            "/shop/failed"
        };
        ResponseTemplate::new(302).insert_header("Location", format!("{}{landing}", self.base))
    }
}

/// A handler of one route of the fake service.
type Handler = fn(&Service, &Request) -> ResponseTemplate;

struct Route(Arc<Service>, Handler);

impl Respond for Route {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        (self.1)(&self.0, request)
    }
}

/// The fake service on a loopback port.
pub struct FakeService {
    pub server: MockServer,
}

impl FakeService {
    pub async fn start(defect: Defect) -> Self {
        let server = MockServer::start().await;
        let service = Arc::new(Service {
            defect,
            base: server.uri(),
            state: Arc::default(),
        });
        let routes: [(&str, &str, Handler); 4] = [
            ("POST", "/api/v1/payment/create/", Service::create),
            ("POST", "/api/v1/payment/submit/", Service::submit),
            ("GET", "/issuer/start", Service::issuer_page),
            ("POST", "/issuer/verify", Service::issuer_verify),
        ];
        for (verb, route, handler) in routes {
            Mock::given(method(verb))
                .and(path(route))
                .respond_with(Route(Arc::clone(&service), handler))
                .mount(&server)
                .await;
        }
        Self { server }
    }

    /// A target file describing this service.
    pub fn target_toml(&self) -> String {
        let base = self.server.uri();
        format!(
            r#"base_url = "{base}"
api_key = "{API_KEY}"
shop_login = "{SHOP}"
success_url = "{base}/shop/paid"
[cards.frictionless]
number = "{FRICTIONLESS_CARD}"
exp_month = "01"
exp_year = "39"
cvv = "737"
[cards.three_ds]
number = "{THREE_DS_CARD}"
exp_month = "01"
exp_year = "39"
cvv = "737"
[acs]
driver = "form"
fields = {{ passcode = "{OTP}" }}
"#
        )
    }
}
