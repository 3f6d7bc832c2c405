//! Shared by the reference implementation's tests: the service on a
//! loopback port, an HTTP client that follows no redirect by itself, and
//! request helpers that check every JSON answer against `spec/openapi.yaml`
//! in both profiles.

pub mod back_office;
pub mod merchant_server;

use std::sync::OnceLock;

use payconf_reference::{DEFAULT_API_KEY, DEFAULT_SHOP_LOGIN, ReferenceConfig, RunningServer};
use payconf_spec::{Profile, contract::Contract};
use reqwest::{Client, StatusCode, header::HeaderMap, redirect};
use scraper::{Html, Selector};
use serde_json::{Value, json};
use url::Url;

/// The spec, read from the repository file (not a copy compiled in).
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml");
        Contract::load(std::path::Path::new(path)).expect("spec/openapi.yaml loads")
    })
}

/// A JSON answer.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    pub fn code(&self) -> &str {
        self.body["error"]["code"]
            .as_str()
            .unwrap_or("<no error.code>")
    }

    pub fn description(&self) -> &str {
        self.body["error"]["description"].as_str().unwrap_or("")
    }

    pub fn payload(&self) -> &Value {
        &self.body["payload"]
    }

    /// Asserts a refusal: status, envelope code, and a description naming `mentions`.
    pub fn assert_refused(&self, status: u16, code: &str, mentions: &str) {
        assert_eq!(self.status.as_u16(), status, "status of {:#}", self.body);
        assert_eq!(self.code(), code, "error.code of {:#}", self.body);
        assert!(
            self.description().contains(mentions),
            "description {:?} should mention {mentions:?}",
            self.description()
        );
        assert_eq!(self.payload(), &json!({}), "payload of a refusal");
    }
}

/// The reference service on `127.0.0.1:0` and a client for it.
pub struct Sandbox {
    pub server: RunningServer,
    pub client: Client,
}

impl Sandbox {
    pub async fn start() -> Self {
        Self::start_with(ReferenceConfig::default()).await
    }

    pub async fn start_with(config: ReferenceConfig) -> Self {
        let server = RunningServer::start(config).await.expect("server starts");
        let client = payconf_reference::http_client()
            .redirect(redirect::Policy::none())
            .build()
            .expect("client builds");
        Self { server, client }
    }

    pub fn url(&self, path: &str) -> Url {
        self.server.base_url.join(path).expect("path joins")
    }

    /// POSTs a raw body to an API path and checks the answer against the spec.
    pub async fn post_raw(
        &self,
        operation_id: &str,
        path: &str,
        headers: &[(&str, impl AsRef<str>)],
        body: Vec<u8>,
    ) -> Answer {
        let mut request = self.client.post(self.url(path)).body(body);
        for (name, value) in headers {
            request = request.header(*name, value.as_ref());
        }
        let response = request.send().await.expect("request is answered");
        read_answer(operation_id, response).await
    }

    /// `payment/create` with an API key (or none) and a JSON body.
    pub async fn create_with(&self, api_key: Option<&str>, body: &Value) -> Answer {
        let auth = api_key.map(|k| format!("apikey {k}"));
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(auth) = &auth {
            headers.push(("Authorization", auth.as_str()));
        }
        self.post_raw(
            "createPayment",
            "/api/v1/payment/create/",
            &headers,
            body.to_string().into_bytes(),
        )
        .await
    }

    /// A successful create with the default merchant; returns (token, paymentID).
    pub async fn create(&self) -> (String, String) {
        let answer = self
            .create_with(Some(DEFAULT_API_KEY), &create_body())
            .await;
        assert_eq!(answer.code(), "0", "create: {:#}", answer.body);
        let payload = answer.payload();
        (
            payload["paymentToken"].as_str().expect("token").to_owned(),
            payload["paymentID"].as_str().expect("id").to_owned(),
        )
    }

    /// `payment/submit` with a token (or none) and a JSON body.
    pub async fn submit_with(&self, token: Option<&str>, body: &Value) -> Answer {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("paymentToken", token));
        }
        self.post_raw(
            "submitPayment",
            "/api/v1/payment/submit/",
            &headers,
            body.to_string().into_bytes(),
        )
        .await
    }

    /// Create then submit a card; returns the submit answer and the create's paymentID.
    pub async fn pay_with(&self, card_number: &str) -> (Answer, String, String) {
        let (token, id) = self.create().await;
        let answer = self
            .submit_with(Some(&token), &submit_body(card_number))
            .await;
        (answer, token, id)
    }

    /// GETs a page and returns status, final headers and body text.
    pub async fn get_page(&self, url: &str) -> (StatusCode, HeaderMap, String) {
        let response = self.client.get(url).send().await.expect("page is answered");
        let status = response.status();
        let headers = response.headers().clone();
        (status, headers, response.text().await.expect("page text"))
    }
}

/// `request` sent with a payment's token, or with the default merchant's
/// API key when `token` is none; its status and JSON body.
pub async fn sent_as(request: reqwest::RequestBuilder, token: Option<&str>) -> (StatusCode, Value) {
    let request = match token {
        Some(token) => request.header("paymentToken", token),
        None => request.header("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    };
    let response = request.send().await.expect("answered");
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

/// Reads a JSON answer and checks it against the spec in both profiles.
pub async fn read_answer(operation_id: &str, response: reqwest::Response) -> Answer {
    let status = response.status();
    let headers = response.headers().clone();
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    assert_eq!(
        content_type, "application/json",
        "media type of a {status} answer"
    );
    let bytes = response.bytes().await.expect("body is read");
    let body: Value = serde_json::from_slice(&bytes).expect("body is JSON");
    for profile in [Profile::Core, Profile::Reference] {
        if let Err(violations) =
            contract().check_response(operation_id, status.as_u16(), &body, profile)
        {
            panic!("{operation_id} {status} breaks the spec ({profile:?}): {violations}\n{body:#}");
        }
    }
    Answer {
        status,
        headers,
        body,
    }
}

pub fn create_body() -> Value {
    json!({
        "shopLogin": DEFAULT_SHOP_LOGIN,
        "amount": "10.00",
        "currency": "EUR",
        "shopTransactionID": "order-1001",
    })
}

pub fn submit_body(card_number: &str) -> Value {
    json!({
        "shopLogin": DEFAULT_SHOP_LOGIN,
        "buyer": {"name": "Jane Doe", "email": "jane.doe@mail.example"},
        "paymentTypeDetails": {
            "creditcard": {
                "number": card_number,
                "expMonth": "12",
                "expYear": "99",
                "CVV": "123",
                "DCC": null,
            }
        }
    })
}

/// Sets a value at a JSON pointer (creating nothing: the parent must exist).
pub fn with(mut body: Value, pointer: &str, value: Value) -> Value {
    *body.pointer_mut(pointer).expect("pointer exists") = value;
    body
}

/// Removes the value at a JSON pointer.
pub fn without(mut body: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    body.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .expect("parent is an object")
        .remove(key);
    body
}

/// The issuer page's first form, filled and submitted as a browser would.
/// Returns the answer's status and `Location`.
pub async fn answer_issuer_form(
    sandbox: &Sandbox,
    page_url: &str,
    fields: &[(&str, &str)],
) -> (StatusCode, Option<String>) {
    let (status, headers, html) = sandbox.get_page(page_url).await;
    assert_eq!(status, StatusCode::OK, "issuer page: {html}");
    assert!(
        headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/html"),
        "issuer page media type"
    );
    let document = Html::parse_document(&html);
    let form_selector = Selector::parse("form").expect("selector");
    let input_selector = Selector::parse("input").expect("selector");
    let form = document
        .select(&form_selector)
        .next()
        .expect("the page has a form");
    let method = form.value().attr("method").unwrap_or("get");
    assert!(method.eq_ignore_ascii_case("post"), "the form posts");
    let action = Url::parse(page_url)
        .expect("page URL")
        .join(form.value().attr("action").unwrap_or(""))
        .expect("action resolves");
    let mut pairs: Vec<(String, String)> = form
        .select(&input_selector)
        .filter(|input| input.value().attr("type") == Some("hidden"))
        .filter_map(|input| {
            Some((
                input.value().attr("name")?.to_owned(),
                input.value().attr("value").unwrap_or("").to_owned(),
            ))
        })
        .collect();
    for (name, value) in fields {
        let declared = form
            .select(&input_selector)
            .any(|input| input.value().attr("name") == Some(name));
        assert!(declared || *name == "action", "the form has a field {name}");
        pairs.push(((*name).to_owned(), (*value).to_owned()));
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    let response = sandbox
        .client
        .post(action)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("form is answered");
    let location = response
        .headers()
        .get("location")
        .map(|v| v.to_str().expect("ascii").to_owned());
    (response.status(), location)
}

/// A buyer's return address as the sandbox gives it, without the
/// service's parameters: `returned` must end with `a` (the shop login,
/// `shop`) and `b` (a payment token), the real service's names, which are
/// taken off; the page and its own parameters are what is left.
pub fn page_of(returned: &str, shop: &str) -> String {
    let mut url = url::Url::parse(returned).expect("an address");
    let mut pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let token = pairs.pop().expect("the service's b");
    let login = pairs.pop().expect("the service's a");
    assert_eq!(login, ("a".to_owned(), shop.to_owned()), "{returned}");
    assert!(
        token.0 == "b" && uuid::Uuid::parse_str(&token.1).is_ok(),
        "{returned}: b is the payment token"
    );
    if pairs.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.into()
}
