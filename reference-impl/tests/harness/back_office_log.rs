//! What a merchant's team reads in the back-office when a payment did not
//! go as their code expected: each API call about the payment with its
//! request and answer (redacted), and each notification's page with its
//! attempts and a button that sends it again. Real sockets, pages read
//! with an HTML parser.

use crate::support;

use payconf_reference::{
    BACK_OFFICE_PATH, DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, ReferenceConfig,
};
use reqwest::StatusCode;
use serde_json::json;
use support::{
    Sandbox,
    back_office::{Browser, Page},
    merchant_server::MerchantServer,
    submit_body, with,
};

/// A security code no page of the sandbox has any reason to hold.
const CVV: &str = "7419";

#[tokio::test]
async fn each_payments_api_calls_are_shown_with_their_bodies_redacted() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let card = with(
        submit_body(DEFAULT_FRICTIONLESS_CARD),
        "/paymentTypeDetails/creditcard/CVV",
        json!(CVV),
    );
    let paid = sandbox.submit_with(Some(&token), &card).await;
    assert_eq!(paid.code(), "0", "{:#}", paid.body);
    // Refused: the payment is already paid.
    let again = sandbox.submit_with(Some(&token), &card).await;
    assert_ne!(again.code(), "0");
    let detail = sandbox
        .client
        .get(sandbox.url(&format!("/api/v1/payment/detail/{id}")))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .send()
        .await
        .expect("answered");
    assert_eq!(detail.status(), StatusCode::OK);
    // Another payment's calls are not this one's.
    sandbox.create().await;

    let browser = Browser::signed_in(&sandbox).await;
    let page = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments/{id}"))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    let calls = page.text("ol.calls > li > details > summary");
    let operations: Vec<&str> = calls
        .iter()
        .map(|c| c.splitn(3, ' ').nth(2).unwrap_or_default())
        .collect();
    assert_eq!(
        operations,
        [
            "POST /api/v1/payment/create: HTTP 200, error code 0",
            "POST /api/v1/payment/submit: HTTP 200, error code 0",
            &format!(
                "POST /api/v1/payment/submit: HTTP 400, error code {}",
                again.code()
            ),
            "GET /api/v1/payment/detail/{id}: HTTP 200, error code 0",
        ],
        "{calls:#?}"
    );
    let bodies = page.text("ol.calls pre");
    assert!(
        bodies[0].contains("\"shopTransactionID\": \"order-1001\""),
        "{bodies:#?}"
    );
    assert!(
        bodies[2].contains("\"number\": \"477571******2026\""),
        "{bodies:#?}"
    );
    assert!(bodies[2].contains("\"CVV\": \"***\""), "{bodies:#?}");
    assert!(
        bodies[3].contains("\"maskedPAN\": \"477571******2026\""),
        "{bodies:#?}"
    );
    // The create's answer names the token by its last four characters only.
    assert!(
        bodies[1].contains(&format!("\"…{}\"", &token[token.len() - 4..])),
        "{bodies:#?}"
    );
    assert_secrets_absent(&page, &token);
}

/// A shop that puts a card number where no card belongs (its order
/// reference, the buyer's name) finds it masked in the calls the
/// back-office shows, as a card field's is: masked by what a value holds,
/// not by its field's name.
#[tokio::test]
async fn a_card_number_put_in_a_reference_or_a_name_is_masked_in_the_calls_shown() {
    const IN_REFERENCE: &str = "4539970000000014";
    const IN_NAME: &str = "4111-1111-1111-1111";
    let sandbox = Sandbox::start().await;
    let created = sandbox
        .create_with(
            Some(DEFAULT_API_KEY),
            &with(
                support::create_body(),
                "/shopTransactionID",
                json!(IN_REFERENCE),
            ),
        )
        .await;
    assert_eq!(created.code(), "0", "{:#}", created.body);
    let token = created.payload()["paymentToken"]
        .as_str()
        .expect("a token")
        .to_owned();
    let id = created.payload()["paymentID"]
        .as_str()
        .expect("an ID")
        .to_owned();
    let card = with(
        submit_body(DEFAULT_FRICTIONLESS_CARD),
        "/buyer/name",
        json!(format!("Jane Doe {IN_NAME}")),
    );
    let paid = sandbox.submit_with(Some(&token), &card).await;
    assert_eq!(paid.code(), "0", "{:#}", paid.body);
    let browser = Browser::signed_in(&sandbox).await;
    let page = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments/{id}"))
        .await;
    let bodies = page.text("ol.calls pre").join("\n");
    for card in [IN_REFERENCE, IN_NAME, "4111111111111111"] {
        assert!(!bodies.contains(card), "{card} in {bodies}");
    }
    assert!(
        bodies.contains("\"shopTransactionID\": \"453997******0014\""),
        "{bodies}"
    );
    assert!(bodies.contains("Jane Doe 411111******1111"), "{bodies}");
}

/// One buyer's token cannot wipe the shop's record of its other payments:
/// 300 refused submits with payment B's token turn over B's own calls
/// (its first and its latest kept), and payment A's create is still shown.
#[tokio::test]
async fn a_flood_of_calls_with_one_token_leaves_other_payments_calls_kept() {
    let sandbox = Sandbox::start().await;
    let (_, first) = sandbox.create().await;
    let (token, flooded) = sandbox.create().await;
    let refused = with(
        submit_body(DEFAULT_FRICTIONLESS_CARD),
        "/paymentTypeDetails/creditcard/number",
        json!("1234"),
    );
    for _ in 0..300 {
        let answer = sandbox.submit_with(Some(&token), &refused).await;
        assert_ne!(answer.code(), "0", "{:#}", answer.body);
    }
    let browser = Browser::signed_in(&sandbox).await;
    let summaries = |id: String| {
        let browser = &browser;
        async move {
            browser
                .get(&format!("{BACK_OFFICE_PATH}/payments/{id}"))
                .await
                .text("ol.calls > li > details > summary")
        }
    };
    let kept = summaries(first).await;
    assert_eq!(kept.len(), 1, "{kept:#?}");
    assert!(kept[0].contains("POST /api/v1/payment/create"), "{kept:#?}");
    let own = summaries(flooded).await;
    assert_eq!(own.len(), payconf_reference::KEPT_PER_PAYMENT, "{own:#?}");
    assert!(own[0].contains("POST /api/v1/payment/create"), "{own:#?}");
}

/// Neither the card number, nor its security code, nor the payment's
/// token, nor the API key anywhere in the page.
fn assert_secrets_absent(page: &Page, token: &str) {
    for secret in [
        DEFAULT_FRICTIONLESS_CARD,
        token,
        DEFAULT_API_KEY,
        &format!("\"{CVV}\""),
    ] {
        assert!(!page.html.contains(secret), "{secret} in the page");
        let pre = page.text("pre").join("\n");
        assert!(!pre.contains(secret), "{secret} in {pre}");
    }
}

#[tokio::test]
async fn a_notification_has_its_page_and_is_sent_again_once_settled_and_once_only() {
    let merchant = MerchantServer::answering(&[500]).await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].notification_url = Some(merchant.url.clone());
    config.limits.notification_first_retry = std::time::Duration::from_millis(20);
    let sandbox = Sandbox::start_with(config).await;
    let (_, _, id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let browser = Browser::signed_in(&sandbox).await;
    browser.timeline_until(&id, "HTTP 200 (delivered)").await;
    let first = merchant.wait_for(2).await;

    let payment = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments/{id}"))
        .await;
    let link = payment
        .attr("ol.timeline a[href*='/notifications/']", "href")
        .expect("the timeline links the notification's page");
    let event_id = first[0].header("Notification-Event-ID").to_owned();
    assert!(link.ends_with(&event_id), "{link}");
    let page = browser.get(&link).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    let attempts = page.text("ol.timeline li");
    assert!(
        attempts[0].contains("attempt 1") && attempts[0].contains("HTTP 500"),
        "{attempts:#?}"
    );
    assert!(
        attempts[1].contains("attempt 2") && attempts[1].contains("HTTP 200 (delivered)"),
        "{attempts:#?}"
    );
    let facts = page.text("dd");
    assert!(
        facts.iter().any(|f| f == "settled after 2 attempts"),
        "{facts:#?}"
    );
    let body = page.text("pre").join("");
    let sent: serde_json::Value = serde_json::from_str(&body).expect("the body, as JSON");
    assert_eq!(sent, first[0].json());

    // Sent again: the same event and body, signed anew.
    merchant.hold();
    let resend = format!("{link}/resend");
    let pressed = browser.post(&resend, &[("csrf", &page.form_token())]).await;
    assert_eq!(pressed.status, StatusCode::SEE_OTHER, "{}", pressed.html);
    assert_eq!(pressed.location.as_deref(), Some(link.as_str()));
    let all = merchant.wait_for(3).await;
    assert_eq!(all[2].header("Notification-Event-ID"), event_id);
    assert_eq!(all[2].body, first[0].body);
    // While it is in progress, a second press sends nothing.
    let twice = browser.post(&resend, &[("csrf", &page.form_token())]).await;
    assert_eq!(twice.status, StatusCode::CONFLICT, "{}", twice.html);
    assert!(
        twice.html.contains("still being delivered"),
        "{}",
        twice.html
    );
    merchant.release();
    let steps = browser.timeline_until(&id, "attempt 3").await;
    assert!(
        steps
            .iter()
            .any(|s| s.contains("sent again from the back-office")),
        "{steps:#?}"
    );
    assert_eq!(merchant.received().len(), 3);

    // Without the form token, nothing is sent; another's event is no page.
    let forged = browser.post(&resend, &[("csrf", "forged")]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let unknown = browser
        .get(&format!(
            "{BACK_OFFICE_PATH}/payments/{id}/notifications/{}",
            uuid_nil()
        ))
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(merchant.received().len(), 3);
}

fn uuid_nil() -> &'static str {
    "00000000-0000-0000-0000-000000000000"
}
