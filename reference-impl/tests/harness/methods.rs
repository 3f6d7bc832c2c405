//! The payment's methods over real sockets, as a shop's own checkout asks
//! for them after create: `payment/methods/{paymentID}/{languageID}`,
//! `payment/methods/detail/{paymentID}/{paymentType}` and
//! `payment/dataForBuyer/{paymentID}` with the payment's token,
//! `shop/methods/{shopLogin}` with the API key, and `check/DCC/`: what
//! each gives, and each address it gives paying the payment.

use crate::support;

use payconf_reference::DEFAULT_SHOP_LOGIN;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::Sandbox;

/// A GET with the payment's token (or the API key, when `token` is none).
async fn get(sandbox: &Sandbox, path: &str, token: Option<&str>) -> (StatusCode, Value) {
    support::sent_as(sandbox.client.get(sandbox.url(path)), token).await
}

#[tokio::test]
async fn a_payments_methods_each_lead_to_the_hosted_page_that_pays_with_it() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let (status, answer) = get(
        &sandbox,
        &format!("/api/v1/payment/methods/{id}/2"),
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["error"]["code"], "0", "{answer}");
    let payload = &answer["payload"];
    assert_eq!(payload["paymentID"], id.as_str());
    let methods = payload["paymentMethod"].as_array().expect("a list");
    let types: Vec<&str> = methods
        .iter()
        .map(|m| m["paymentType"].as_str().expect("a type"))
        .collect();
    assert_eq!(types, ["CREDITCARD", "WALLET"]);
    for method in methods {
        assert!(method["name"].as_str().is_some_and(|n| !n.is_empty()));
        for size in ["large", "mobile", "vector"] {
            assert!(
                method["logo"][size]
                    .as_str()
                    .is_some_and(|l| l.starts_with("data:image/svg+xml,")),
                "{method}"
            );
        }
        let pays = method["userRedirect"]["href"].as_str().expect("an address");
        let pays = url::Url::parse(pays).expect("absolute");
        assert_eq!(pays.path(), payconf_reference::PAGE_PATH);
        let pairs: Vec<(String, String)> = pays.query_pairs().into_owned().collect();
        assert!(pairs.contains(&("a".to_owned(), DEFAULT_SHOP_LOGIN.to_owned())));
        assert!(pairs.contains(&("b".to_owned(), token.clone())));
        assert!(pairs.contains(&(
            "paymentType".to_owned(),
            method["paymentType"].as_str().expect("a type").to_owned()
        )));
        // The page the address names offers the payment, with that method.
        let page = sandbox
            .client
            .get(pays.as_str())
            .send()
            .await
            .expect("the page");
        assert_eq!(page.status(), StatusCode::OK);
        // Its detail answers the same address, and no banks to choose.
        let detail = method["paymentTypeDetail"]["href"]
            .as_str()
            .expect("the detail's address");
        let detail = url::Url::parse(detail).expect("absolute");
        let (status, detail) = get(&sandbox, detail.path(), Some(&token)).await;
        assert_eq!(status, StatusCode::OK, "{detail}");
        assert_eq!(detail["payload"]["paymentTypeDetail"]["bank"], json!([]));
        assert_eq!(
            detail["payload"]["userRedirect"]["href"],
            method["userRedirect"]["href"]
        );
        assert_eq!(detail["payload"]["paymentID"], id.as_str());
    }
}

#[tokio::test]
async fn the_data_for_the_buyer_is_the_payments_own() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let (status, answer) = get(
        &sandbox,
        &format!("/api/v1/payment/dataForBuyer/{id}"),
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let payload = &answer["payload"];
    assert_eq!(payload["paymentID"], id.as_str());
    assert_eq!(payload["sign"], DEFAULT_SHOP_LOGIN);
    assert_eq!(payload["currency"], "EUR");
    assert!(
        payload["amount"].as_str().is_some_and(|a| !a.is_empty()),
        "{payload}"
    );
    assert_eq!(payload["visibleCustomFields"], json!([]));
}

#[tokio::test]
async fn another_payments_id_a_method_not_offered_or_a_wrong_language_is_refused() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let (_, other) = sandbox.create().await;
    for (path, code) in [
        (format!("/api/v1/payment/methods/{other}/2"), "2011"),
        (format!("/api/v1/payment/dataForBuyer/{other}"), "2011"),
        (format!("/api/v1/payment/methods/{id}/en"), "1173"),
        (
            format!("/api/v1/payment/methods/detail/{id}/PAYPAL"),
            "1400",
        ),
    ] {
        let (status, answer) = get(&sandbox, &path, Some(&token)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{path}: {answer}");
    }
    // Without the payment's token, nothing is said of it.
    let (status, answer) = get(&sandbox, &format!("/api/v1/payment/methods/{id}/2"), None).await;
    assert!(status.is_client_error(), "{answer}");
    assert_ne!(answer["error"]["code"], "0");
}

#[tokio::test]
async fn a_shops_methods_are_listed_with_its_api_key_alone() {
    let sandbox = Sandbox::start().await;
    let (status, answer) = get(
        &sandbox,
        &format!("/api/v1/shop/methods/{DEFAULT_SHOP_LOGIN}"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let types: Vec<&str> = answer["payload"]["paymentMethod"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| m["paymentType"].as_str().expect("a type"))
        .collect();
    assert_eq!(types, ["CREDITCARD", "WALLET"]);
    let (status, answer) = get(&sandbox, "/api/v1/shop/methods/ANOTHER_SHOP", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["code"], "1131", "{answer}");
}

#[tokio::test]
async fn check_dcc_offers_no_conversion_of_the_payments_own_amount() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let response = sandbox
        .client
        .post(sandbox.url("/api/v1/check/DCC/"))
        .header("paymentToken", &token)
        .json(&json!({"shopLogin": DEFAULT_SHOP_LOGIN, "creditcard": {"number": payconf_reference::DEFAULT_FRICTIONLESS_CARD}, "languageId": "2"}))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.expect("JSON");
    let payload = &answer["payload"];
    assert_eq!(payload["paymentID"], id.as_str(), "{answer}");
    assert_eq!(payload["DCC"]["eligible"], "False");
    assert_eq!(payload["DCC"]["currency"], "EUR");
    assert_eq!(payload["DCC"]["exchangeRate"], "1");
    // The card's number is what it checks.
    let response = sandbox
        .client
        .post(sandbox.url("/api/v1/check/DCC/"))
        .header("paymentToken", &token)
        .json(&json!({"shopLogin": DEFAULT_SHOP_LOGIN, "creditcard": {}}))
        .send()
        .await
        .expect("answered");
    let answer: Value = response.json().await.expect("JSON");
    assert_eq!(answer["error"]["code"], "1138", "{answer}");
}
