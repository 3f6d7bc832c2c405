//! What the service's log holds: no card data typed on the payment page,
//! and every failed back-office sign-in and lock-out (never a password).
//! In a test binary of its own, not a module of `harness`: tracing caches
//! which events a thread's subscriber wants, and other tests' threads would
//! leave it unasked.

// Of the shared support, this binary uses the sandbox alone.
#[allow(dead_code)]
#[path = "harness/support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};

use payconf_reference::{DEFAULT_SHOP_LOGIN, PAGE_PATH};
use reqwest::StatusCode;
use support::Sandbox;

/// The page's card form posted for a new payment; the answer's status.
async fn pay_on_page(sandbox: &Sandbox, number: &str, cvv: &str) -> StatusCode {
    let (token, id) = sandbox.create().await;
    let mut page = sandbox.url(PAGE_PATH);
    page.query_pairs_mut()
        .append_pair("a", DEFAULT_SHOP_LOGIN)
        .append_pair("b", &token);
    let (status, _, _) = sandbox.get_page(page.as_str()).await;
    assert_eq!(status, StatusCode::OK);
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("a", DEFAULT_SHOP_LOGIN),
            ("b", token.as_str()),
            ("paymentID", id.as_str()),
            ("cardNumber", number),
            ("expMonth", "05"),
            ("expYear", "99"),
            ("cvv", cvv),
            ("holder", "Ada Buyer"),
            ("email", "ada@example.com"),
            ("method", "card"),
        ])
        .finish();
    sandbox
        .client
        .post(page)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("the form is answered")
        .status()
}

/// A log writer that keeps every line in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the log").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The service's log as a test's thread sees it, until the guard goes.
fn capture() -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}

#[tokio::test]
async fn failed_sign_ins_and_lock_outs_are_logged_without_the_password() {
    let (captured, _guard) = capture();
    let sandbox = Sandbox::start().await;
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..4 {
        let response = sandbox
            .client
            .post(sandbox.url(&format!("{}/sign-in", payconf_reference::BACK_OFFICE_PATH)))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header(
                "Origin",
                sandbox.server.base_url.origin().ascii_serialization(),
            )
            .body(format!(
                "shopLogin={DEFAULT_SHOP_LOGIN}&password=hunter2-guess"
            ))
            .send()
            .await
            .expect("answered");
        statuses.push(response.status().as_u16());
        retry_after = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().expect("ascii").to_owned());
    }
    assert_eq!(statuses, [401, 401, 401, 429]);
    assert_eq!(
        retry_after.as_deref(),
        Some("1"),
        "a 429 says when to come back"
    );
    let log = String::from_utf8(captured.0.lock().expect("the log").clone()).expect("text");
    assert_eq!(
        log.matches("back-office sign-in refused").count(),
        3,
        "{log}"
    );
    assert!(log.contains("locked out"), "{log}");
    assert!(log.contains(DEFAULT_SHOP_LOGIN), "{log}");
    assert!(
        !log.contains("hunter2"),
        "the password is never logged:\n{log}"
    );
}

#[tokio::test]
async fn card_data_typed_on_the_page_never_reaches_the_log() {
    let (captured, _guard) = capture();
    let sandbox = Sandbox::start().await;
    let refused = pay_on_page(&sandbox, "4775718800002027", "12").await;
    assert_eq!(refused, StatusCode::UNPROCESSABLE_ENTITY);
    let paid = pay_on_page(&sandbox, "4775 7188 0000 2026", "999").await;
    assert_eq!(paid, StatusCode::SEE_OTHER);

    let log = String::from_utf8(captured.0.lock().expect("the log").clone()).expect("text");
    assert!(
        log.contains("477571******2026"),
        "the masked card is logged:\n{log}"
    );
    for secret in [
        "4775718800002026",
        "4775 7188 0000 2026",
        "4775718800002027",
        "cvv=999",
    ] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}
