//! The buyer's journeys through the reference implementation, over real
//! sockets: frictionless, 3-D Secure through the issuer page's form,
//! declined, wrong code, cancel, and custom redirect addresses.

use crate::support;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN,
    DEFAULT_THREE_DS_CARD,
};
use reqwest::StatusCode;
use scraper::{Html, Selector};
use serde_json::json;
use support::{Sandbox, answer_issuer_form, submit_body, with};
use url::Url;

const FRICTIONLESS: &str = DEFAULT_FRICTIONLESS_CARD;
const THREE_DS: &str = DEFAULT_THREE_DS_CARD;
const DECLINED: &str = DEFAULT_DECLINED_CARD;

/// Asserts that `url` is the default shop's merchant `page` (`success`,
/// `failure`) on this sandbox.
fn assert_shop_page(sandbox: &Sandbox, url: &str, page: &str) {
    assert_eq!(
        support::page_of(url, DEFAULT_SHOP_LOGIN),
        sandbox
            .url(&format!("/merchant/{DEFAULT_SHOP_LOGIN}/{page}"))
            .as_str()
    );
}

/// A payment of the 3-D Secure card on a fresh sandbox, and the issuer's
/// page its submit sends the buyer to.
async fn at_the_issuer() -> (Sandbox, String) {
    let sandbox = Sandbox::start().await;
    let (answer, _, _) = sandbox.pay_with(THREE_DS).await;
    let href = answer.payload()["userRedirect"]["href"]
        .as_str()
        .expect("href")
        .to_owned();
    (sandbox, href)
}

/// A payment paid with `card` on a fresh sandbox: the submit processed
/// (200, code "0") for this payment, its payload, and the merchant page
/// the buyer is sent to, which must be the shop's `page`.
async fn paid_to(card: &str, page: &str) -> (Sandbox, serde_json::Value, String) {
    let sandbox = Sandbox::start().await;
    let (answer, _, payment_id) = sandbox.pay_with(card).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.code(), "0");
    let payload = answer.payload();
    assert_eq!(payload["paymentID"], payment_id.as_str());
    let href = payload["userRedirect"]["href"]
        .as_str()
        .expect("href")
        .to_owned();
    assert_shop_page(&sandbox, &href, page);
    (sandbox, payload.clone(), href)
}

#[tokio::test]
async fn frictionless_card_is_authorized_and_sent_to_the_success_page() {
    let (sandbox, payload, href) = paid_to(FRICTIONLESS, "success").await;
    assert_eq!(payload["transactionType"], "submit");
    assert_eq!(payload["transactionResult"], "OK");
    assert_eq!(payload["maskedPAN"], "477571******2026");
    assert!(payload.get("transactionErrorCode").is_none());
    let (status, _, page) = sandbox.get_page(&href).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Payment successful"), "{page}");
}

#[tokio::test]
async fn create_answers_a_uuid_token_a_twelve_digit_id_and_a_null_redirect() {
    let sandbox = Sandbox::start().await;
    let answer = sandbox
        .create_with(Some(DEFAULT_API_KEY), &support::create_body())
        .await;

    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.code(), "0");
    assert_eq!(answer.description(), "request correctly processed");
    let payload = answer.payload();
    let token = payload["paymentToken"].as_str().expect("token");
    assert_eq!(
        uuid::Uuid::parse_str(token).map(|u| u.get_version_num()),
        Ok(4)
    );
    let id = payload["paymentID"].as_str().expect("id");
    assert!(
        id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit()),
        "{id}"
    );
    assert_eq!(payload["userRedirect"], json!({"href": null}));
}

#[tokio::test]
async fn two_creates_get_distinct_tokens_and_ids() {
    let sandbox = Sandbox::start().await;
    let (t1, id1) = sandbox.create().await;
    let (t2, id2) = sandbox.create().await;
    assert_ne!(t1, t2);
    assert_ne!(id1, id2);
}

#[tokio::test]
async fn enrolled_card_answers_8006_and_the_issuer_form_leads_to_the_success_page() {
    let sandbox = Sandbox::start().await;
    let (answer, token, payment_id) = sandbox.pay_with(THREE_DS).await;

    assert_eq!(answer.code(), "0");
    let payload = answer.payload();
    assert_eq!(payload["transactionResult"], "");
    assert_eq!(payload["transactionErrorCode"], "8006");
    assert_eq!(payload["transactionErrorDescription"], "Verify By Visa");
    assert_eq!(payload["paymentID"], payment_id.as_str());
    let href = payload["userRedirect"]["href"].as_str().expect("href");
    let issuer = Url::parse(href).expect("absolute address");
    assert_eq!(
        issuer.origin(),
        sandbox.server.base_url.origin(),
        "on the service's own host"
    );
    let query: Vec<(String, String)> = issuer.query_pairs().into_owned().collect();
    assert!(
        query.contains(&("a".into(), DEFAULT_SHOP_LOGIN.into())),
        "{href}"
    );
    assert!(query.contains(&("b".into(), token.clone())), "{href}");

    let (status, location) = answer_issuer_form(&sandbox, href, &[("otp", "123456")]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let landing = location.expect("Location");
    assert_shop_page(&sandbox, &landing, "success");
    let (status, _, page) = sandbox.get_page(&landing).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Payment successful"));

    // The payment is over: its page and a second submit are refused.
    let (status, _, _) = sandbox.get_page(href).await;
    assert_eq!(status, StatusCode::CONFLICT);
    sandbox
        .submit_with(Some(&token), &submit_body(THREE_DS))
        .await
        .assert_refused(400, "1137", "already processed");
}

#[tokio::test]
async fn wrong_issuer_code_declines_and_lands_on_the_failure_page() {
    let (sandbox, href) = at_the_issuer().await;

    let (status, location) = answer_issuer_form(&sandbox, &href, &[("otp", "000000")]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let landing = location.expect("Location");
    assert_shop_page(&sandbox, &landing, "failure");
    let (_, _, page) = sandbox.get_page(&landing).await;
    assert!(page.contains("Payment not completed"));
}

#[tokio::test]
async fn cancel_at_the_issuer_lands_on_the_failure_page() {
    let (sandbox, href) = at_the_issuer().await;

    let (status, location) =
        answer_issuer_form(&sandbox, &href, &[("otp", "123456"), ("action", "cancel")]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        location
            .as_deref()
            .map(|l| support::page_of(l, DEFAULT_SHOP_LOGIN))
            .as_deref(),
        Some(
            sandbox
                .url(&format!("/merchant/{DEFAULT_SHOP_LOGIN}/failure"))
                .as_str()
        )
    );
}

#[tokio::test]
async fn declined_card_answers_ko_and_the_failure_page() {
    let (_, payload, _) = paid_to(DECLINED, "failure").await;
    assert_eq!(payload["transactionResult"], "KO");
    assert_eq!(payload["transactionErrorCode"], "74");
}

#[tokio::test]
async fn a_card_that_is_not_a_test_card_is_declined_with_97() {
    let sandbox = Sandbox::start().await;
    let (answer, _, _) = sandbox.pay_with("4242424242424242").await;
    assert_eq!(answer.payload()["transactionResult"], "KO");
    assert_eq!(answer.payload()["transactionErrorCode"], "97");
}

#[tokio::test]
async fn response_urls_override_the_back_office_pages_for_every_outcome() {
    let sandbox = Sandbox::start().await;
    let urls = json!({
        "buyerOK": "https://shop.example/thanks?order=1",
        "buyerKO": "https://shop.example/sorry",
        "serverNotificationURL": "https://shop.example/notify",
    });
    let pay = |card: &'static str| {
        let sandbox = &sandbox;
        let urls = urls.clone();
        async move {
            let (token, _) = sandbox.create().await;
            let mut body = submit_body(card);
            body["responseURLs"] = urls;
            sandbox.submit_with(Some(&token), &body).await
        }
    };

    let href = |answer: &support::Answer| {
        let href = answer.payload()["userRedirect"]["href"]
            .as_str()
            .expect("href");
        support::page_of(href, DEFAULT_SHOP_LOGIN)
    };
    let ok = pay(FRICTIONLESS).await;
    assert_eq!(href(&ok), "https://shop.example/thanks?order=1");
    let ko = pay(DECLINED).await;
    assert_eq!(href(&ko), "https://shop.example/sorry");
    let three_ds = pay(THREE_DS).await;
    let href = three_ds.payload()["userRedirect"]["href"]
        .as_str()
        .expect("href")
        .to_owned();
    let (_, location) = answer_issuer_form(&sandbox, &href, &[("otp", "123456")]).await;
    assert_eq!(
        location
            .map(|l| support::page_of(&l, DEFAULT_SHOP_LOGIN))
            .as_deref(),
        Some("https://shop.example/thanks?order=1")
    );
}

#[tokio::test]
async fn submit_answers_on_the_path_without_the_trailing_slash() {
    let sandbox = Sandbox::start().await;
    let (token, _) = sandbox.create().await;
    let answer = sandbox
        .post_raw(
            "submitPayment",
            "/api/v1/payment/submit",
            &[
                ("Content-Type", "application/json"),
                ("paymentToken", &token),
            ],
            submit_body(FRICTIONLESS).to_string().into_bytes(),
        )
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
}

#[tokio::test]
async fn configured_merchant_cards_and_code_drive_the_journey() {
    let config = payconf_reference::ReferenceConfig::from_toml(
        r#"
        issuer_code = "password"
        [[merchants]]
        shop_login = "ACME"
        api_key = "acme-secret"
        success_url = "https://acme.example/paid"
        failure_url = "https://acme.example/unpaid"
        [[cards]]
        number = "4111111111111111"
        behaviour = "three_ds"
        "#,
    )
    .expect("config parses");
    let sandbox = Sandbox::start_with(config).await;
    let create = sandbox
        .create_with(
            Some("acme-secret"),
            &with(support::create_body(), "/shopLogin", json!("ACME")),
        )
        .await;
    assert_eq!(create.code(), "0");
    let token = create.payload()["paymentToken"]
        .as_str()
        .expect("token")
        .to_owned();
    let body = with(submit_body("4111111111111111"), "/shopLogin", json!("ACME"));
    let answer = sandbox.submit_with(Some(&token), &body).await;
    assert_eq!(answer.payload()["transactionErrorCode"], "8006");
    let href = answer.payload()["userRedirect"]["href"]
        .as_str()
        .expect("href")
        .to_owned();

    let (_, location) = answer_issuer_form(&sandbox, &href, &[("otp", "password")]).await;
    assert_eq!(
        location.map(|l| support::page_of(&l, "ACME")).as_deref(),
        Some("https://acme.example/paid")
    );
    // The built-in merchant is gone with the file's own list.
    let refused = sandbox
        .create_with(Some(DEFAULT_API_KEY), &support::create_body())
        .await;
    refused.assert_refused(403, "1166", "invalid API key");
}

#[tokio::test]
async fn the_issuer_page_escapes_what_it_echoes() {
    let sandbox = Sandbox::start().await;
    let hostile = r#"<script>alert("x")</script>&"'"#;
    let create = sandbox
        .create_with(
            Some(DEFAULT_API_KEY),
            &with(support::create_body(), "/shopTransactionID", json!(hostile)),
        )
        .await;
    let token = create.payload()["paymentToken"]
        .as_str()
        .expect("token")
        .to_owned();
    let answer = sandbox
        .submit_with(Some(&token), &submit_body(THREE_DS))
        .await;
    let href = answer.payload()["userRedirect"]["href"]
        .as_str()
        .expect("href")
        .to_owned();

    let (_, _, html) = sandbox.get_page(&href).await;
    assert!(!html.contains("<script>"), "{html}");
    let document = Html::parse_document(&html);
    let dd = Selector::parse("dd").expect("selector");
    let shown: Vec<String> = document.select(&dd).map(|e| e.text().collect()).collect();
    assert!(
        shown.iter().any(|text| text == hostile),
        "the reference is shown as text: {shown:?}"
    );
}

/// A merchant's code written for the real service, sending what its clients
/// send (docs/real-service.md, RS-PATHS): paths without the trailing
/// slash, an amount without decimals or with one, no `buyer`, `DCC` as a
/// string, and no `Authorization` on submit. Each is paid, or sent to the
/// issuer for the enrolled card.
#[tokio::test]
async fn a_real_service_clients_create_and_submit_are_paid() {
    let sandbox = Sandbox::start().await;
    for (amount, card, dcc, result) in [
        ("100", FRICTIONLESS, json!("false"), "OK"),
        ("72.5", FRICTIONLESS, json!("true"), "OK"),
        ("72.50", THREE_DS, json!(null), ""),
    ] {
        let created = sandbox
            .post_raw(
                "createPayment",
                "/api/v1/payment/create",
                &[
                    ("Content-Type", "application/json".to_owned()),
                    ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
                ],
                json!({
                    "shopLogin": DEFAULT_SHOP_LOGIN,
                    "amount": amount,
                    "currency": "EUR",
                    "shopTransactionID": format!("order-{amount}"),
                })
                .to_string()
                .into_bytes(),
            )
            .await;
        assert_eq!(
            created.code(),
            "0",
            "create of {amount}: {:#}",
            created.body
        );
        let token = created.payload()["paymentToken"]
            .as_str()
            .expect("token")
            .to_owned();
        let submitted = sandbox
            .post_raw(
                "submitPayment",
                "/api/v1/payment/submit",
                &[
                    ("Content-Type", "application/json"),
                    ("paymentToken", &token),
                ],
                json!({
                    "shopLogin": DEFAULT_SHOP_LOGIN,
                    "paymentTypeDetails": {"creditcard": {
                        "number": card, "expMonth": "05", "expYear": "99", "CVV": "999", "DCC": dcc,
                    }},
                })
                .to_string()
                .into_bytes(),
            )
            .await;
        assert_eq!(
            submitted.code(),
            "0",
            "submit of {amount}: {:#}",
            submitted.body
        );
        assert_eq!(submitted.payload()["transactionResult"], result);
    }
}

/// A buyer's name and e-mail address are optional, each alone; what is
/// given must still be well formed.
#[tokio::test]
async fn a_buyer_without_a_name_or_an_e_mail_address_is_paid() {
    let sandbox = Sandbox::start().await;
    for buyer in [
        json!({}),
        json!({"email": "jane@mail.example"}),
        json!({"name": "Jane", "email": ""}),
        json!(null),
    ] {
        let (token, _) = sandbox.create().await;
        let answer = sandbox
            .submit_with(
                Some(&token),
                &with(submit_body(FRICTIONLESS), "/buyer", buyer.clone()),
            )
            .await;
        assert_eq!(answer.code(), "0", "buyer {buyer}: {:#}", answer.body);
        assert_eq!(answer.payload()["transactionResult"], "OK");
    }
}
