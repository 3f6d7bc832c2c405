//! A payment keeps its shop's addresses for its whole life: the
//! `responseURLs` of its create (a submit's replacing them address by
//! address), or its profile's notification address as it was when the
//! payment was created, whatever the back-office says later; and a create
//! with `paymentChannel` answers pay-by-link's address.

use crate::support;

use payconf_reference::{DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN, ReferenceConfig};
use reqwest::StatusCode;
use serde_json::json;
use support::{
    Sandbox,
    back_office::{Browser, borrowed, profile_form},
    create_body,
    merchant_server::MerchantServer,
    submit_body,
};

/// A shop that settles 300 ms after the authorisation, so each paid
/// payment's life has a later notification (its settlement).
fn settling_soon() -> ReferenceConfig {
    let mut config = ReferenceConfig::default();
    config.merchants[0].settlement = payconf_reference::Settlement::Unified { delay_ms: 300 };
    config
}

/// Creates a payment with `body`; its token and ID.
async fn create(sandbox: &Sandbox, body: &serde_json::Value) -> (String, String) {
    let answer = sandbox
        .create_with(Some(payconf_reference::DEFAULT_API_KEY), body)
        .await;
    assert_eq!(answer.code(), "0", "{:#}", answer.body);
    let payload = answer.payload();
    (
        payload["paymentToken"]
            .as_str()
            .expect("a token")
            .to_owned(),
        payload["paymentID"].as_str().expect("an ID").to_owned(),
    )
}

/// The profile's notification address changed in the back-office.
async fn change_notification_address(sandbox: &Sandbox, address: &str) {
    let browser = Browser::signed_in(sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    let pairs = profile_form(&profile, &[("notificationUrl", address)]);
    let saved = browser.post("/backoffice/profile", &borrowed(&pairs)).await;
    assert_eq!(saved.status, StatusCode::OK);
    assert_eq!(saved.text("[role=status]"), ["The profile was saved."]);
}

#[tokio::test]
async fn a_payment_created_with_response_urls_returns_its_buyer_and_notifies_there_for_life() {
    let shop = MerchantServer::start().await;
    let profile_server = MerchantServer::start().await;
    let later_server = MerchantServer::start().await;
    let mut config = settling_soon();
    config.merchants[0].notification_url = Some(profile_server.url.clone());
    let sandbox = Sandbox::start_with(config).await;
    let mut body = create_body();
    body["responseURLs"] = json!({
        "buyerOK": "https://shop.example/thanks?order=7",
        "buyerKO": "https://shop.example/sorry",
        "serverNotificationURL": shop.url.as_str(),
    });
    let (token, id) = create(&sandbox, &body).await;
    // The profile changes before the payment is paid: nothing of it counts.
    change_notification_address(&sandbox, later_server.url.as_str()).await;
    let answer = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    assert_eq!(
        answer.payload()["userRedirect"]["href"],
        format!("https://shop.example/thanks?order=7&a={DEFAULT_SHOP_LOGIN}&b={token}").as_str(),
        "the create's return address, with the shop and the token"
    );
    // The outcome and the settlement, both at the create's address.
    let received = shop.wait_for(2).await;
    assert_eq!(received[0].json()["paymentID"], id.as_str());
    assert_eq!(received[1].json()["eventType"], "payment.settled");
    assert!(profile_server.received().is_empty());
    assert!(later_server.received().is_empty());
}

#[tokio::test]
async fn a_submits_addresses_replace_the_creates_one_by_one() {
    let create_server = MerchantServer::start().await;
    let submit_server = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    let mut body = create_body();
    body["responseURLs"] = json!({
        "buyerOK": "https://shop.example/from-create",
        "serverNotificationURL": create_server.url.as_str(),
    });
    let (token, _) = create(&sandbox, &body).await;
    let mut submit = submit_body(DEFAULT_FRICTIONLESS_CARD);
    submit["responseURLs"] = json!({"serverNotificationURL": submit_server.url.as_str()});
    let answer = sandbox.submit_with(Some(&token), &submit).await;
    assert_eq!(
        answer.payload()["userRedirect"]["href"],
        format!("https://shop.example/from-create?a={DEFAULT_SHOP_LOGIN}&b={token}").as_str(),
        "the create's return address, which the submit did not replace"
    );
    submit_server.wait_for(1).await;
    assert!(create_server.received().is_empty());
}

/// A payment without addresses of its own is told where its profile said
/// when it was created: a change of the profile's address after that sends
/// its later notifications nowhere else (once, they went to whichever shop
/// held the profile then); a payment created after the change goes to the
/// new address.
#[tokio::test]
async fn a_change_of_the_profiles_address_leaves_the_earlier_payments_where_they_were() {
    let before = MerchantServer::start().await;
    let after = MerchantServer::start().await;
    let mut config = settling_soon();
    config.merchants[0].notification_url = Some(before.url.clone());
    let sandbox = Sandbox::start_with(config).await;
    let (earlier, earlier_id) = sandbox.create().await;
    change_notification_address(&sandbox, after.url.as_str()).await;
    let (later, later_id) = sandbox.create().await;
    for token in [&earlier, &later] {
        let answer = sandbox
            .submit_with(Some(token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
            .await;
        assert_eq!(answer.payload()["transactionResult"], "OK");
    }
    let told_before = before.wait_for(2).await;
    let told_after = after.wait_for(2).await;
    for received in &told_before {
        assert_eq!(received.json()["paymentID"], earlier_id.as_str());
    }
    for received in &told_after {
        assert_eq!(received.json()["paymentID"], later_id.as_str());
    }

    // No address when it was created: none, though the profile has one now.
    let quiet = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    let (token, _) = sandbox.create().await;
    change_notification_address(&sandbox, quiet.url.as_str()).await;
    let answer = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    let (fresh, fresh_id) = sandbox.create().await;
    sandbox
        .submit_with(Some(&fresh), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    let received = quiet.wait_for(1).await;
    assert_eq!(received[0].json()["paymentID"], fresh_id.as_str());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(quiet.received().len(), 1, "the earlier payment told no one");
}

#[tokio::test]
async fn a_create_with_a_payment_channel_answers_pay_by_links_address() {
    let sandbox = Sandbox::start().await;
    let mut body = create_body();
    body["paymentChannel"] = json!({"channelType": ["EMAIL"]});
    let answer = sandbox
        .create_with(Some(payconf_reference::DEFAULT_API_KEY), &body)
        .await;
    assert_eq!(answer.code(), "0", "{:#}", answer.body);
    let payload = answer.payload();
    let href = payload["userRedirect"]["href"]
        .as_str()
        .unwrap_or_else(|| panic!("an address: {payload:#}"));
    let link = url::Url::parse(href).expect("an absolute address");
    assert_eq!(link.origin(), sandbox.server.base_url.origin());
    assert_eq!(link.path(), payconf_reference::FRAMED_PATH);
    let query: Vec<(String, String)> = link.query_pairs().into_owned().collect();
    assert_eq!(
        query,
        [
            (
                "paymentID".to_owned(),
                payload["paymentID"].as_str().expect("an ID").to_owned()
            ),
            (
                "paymentToken".to_owned(),
                payload["paymentToken"]
                    .as_str()
                    .expect("a token")
                    .to_owned()
            ),
            ("shopLogin".to_owned(), DEFAULT_SHOP_LOGIN.to_owned()),
            ("lightbox".to_owned(), "false".to_owned()),
        ]
    );
    let (status, headers, html) = sandbox.get_page(href).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("id=\"card\""), "the card form: {html}");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .expect("ascii")
            .ends_with("frame-ancestors 'none'"),
        "a page of its own"
    );

    // Without a channel the answer's address is null, as the contract says.
    let answer = sandbox
        .create_with(Some(payconf_reference::DEFAULT_API_KEY), &create_body())
        .await;
    assert!(answer.payload()["userRedirect"]["href"].is_null());

    for channel in [
        json!({"channelType": ["FAX"]}),
        json!({"channelType": []}),
        json!({}),
    ] {
        let mut body = create_body();
        body["paymentChannel"] = channel.clone();
        let answer = sandbox
            .create_with(Some(payconf_reference::DEFAULT_API_KEY), &body)
            .await;
        assert_eq!(answer.code(), "1442", "{channel}: {:#}", answer.body);
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    }
}
