//! Card tokens over real sockets, as shops use them for one-click and
//! recurring payments: a submit asks for one (`requestToken: "MASKEDPAN"`),
//! the detail shows it, a second payment pays with the token alone (an
//! enrolled card's token still goes through 3-D Secure), `shop/token`
//! asks for, lists and deletes them with the API key, and a token outlives
//! a restart with `--data`; never a card number kept.

use crate::support;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN, DEFAULT_THREE_DS_CARD,
    ReferenceConfig,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Sandbox, submit_body};

/// A submit body paying with the card token `token` alone.
fn token_body(token: &str) -> Value {
    json!({
        "shopLogin": DEFAULT_SHOP_LOGIN,
        "paymentTypeDetails": {"creditcard": {"token": token}},
    })
}

/// A submit body paying with `card` and asking for a token.
fn asking_for_a_token(card: &str, request: &str) -> Value {
    let mut body = submit_body(card);
    body["paymentTypeDetails"]["creditcard"]["requestToken"] = json!(request);
    body
}

/// `GET payment/detail/{id}`'s payload, with the API key.
async fn detail(sandbox: &Sandbox, id: &str) -> Value {
    let response = sandbox
        .client
        .get(sandbox.url(&format!("/api/v1/payment/detail/{id}")))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .send()
        .await
        .expect("detail is answered");
    support::read_answer("getPaymentDetail", response)
        .await
        .payload()
        .clone()
}

/// A `shop/token` call with the API key: the answer's status and body.
async fn shop_token(
    sandbox: &Sandbox,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = sandbox
        .client
        .request(method, sandbox.url(path))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("answered");
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test]
async fn a_token_asked_for_at_submit_pays_the_next_payment_alone_and_is_listed_and_deleted() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let answer = sandbox
        .submit_with(
            Some(&token),
            &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, "MASKEDPAN"),
        )
        .await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    let paid = detail(&sandbox, &id).await;
    let card_token = paid["token"].as_str().expect("a token").to_owned();
    assert_eq!(card_token.len(), 16, "{card_token}");
    assert!(
        card_token.starts_with(&DEFAULT_FRICTIONLESS_CARD[..6])
            && card_token.ends_with(&DEFAULT_FRICTIONLESS_CARD[12..]),
        "the first six and last four digits kept: {card_token}"
    );
    assert!(!card_token.contains(&DEFAULT_FRICTIONLESS_CARD[6..12]));
    assert_eq!(paid["tokenExpiryMonth"], "12", "{paid:#}");
    assert_eq!(paid["tokenExpiryYear"], "99");

    // The next payment, with the token alone: paid, the same card.
    let (next, next_id) = sandbox.create().await;
    let answer = sandbox
        .submit_with(Some(&next), &token_body(&card_token))
        .await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    assert_eq!(answer.payload()["maskedPAN"], "477571******2026");
    assert_eq!(
        detail(&sandbox, &next_id).await["token"],
        card_token.as_str()
    );

    // Asked for again for the same card: the same token.
    let (third, _) = sandbox.create().await;
    sandbox
        .submit_with(
            Some(&third),
            &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, "MASKEDPAN"),
        )
        .await;
    let (status, listed) = shop_token(
        &sandbox,
        reqwest::Method::GET,
        &format!("/api/v1/shop/token/{DEFAULT_SHOP_LOGIN}"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{listed:#}");
    assert_eq!(
        listed["payload"]["tokens"],
        json!([{"token": card_token, "tokenExpiryMonth": "12", "tokenExpiryYear": "99",
                "maskedPAN": "477571******2026"}])
    );
    assert!(!listed.to_string().contains(DEFAULT_FRICTIONLESS_CARD));

    let (status, deleted) = shop_token(
        &sandbox,
        reqwest::Method::DELETE,
        &format!("/api/v1/shop/token/{DEFAULT_SHOP_LOGIN}/{card_token}"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{deleted:#}");
    assert_eq!(
        deleted["payload"],
        json!({"result": "OK", "token": card_token})
    );
    let (after, _) = sandbox.create().await;
    sandbox
        .submit_with(Some(&after), &token_body(&card_token))
        .await
        .assert_refused(400, "1165", "token");
    let (status, again) = shop_token(
        &sandbox,
        reqwest::Method::DELETE,
        &format!("/api/v1/shop/token/{DEFAULT_SHOP_LOGIN}/{card_token}"),
        None,
    )
    .await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (StatusCode::BAD_REQUEST, &json!("1165"))
    );
}

#[tokio::test]
async fn an_enrolled_cards_token_still_goes_through_3_d_secure_and_another_shops_is_unknown() {
    let mut config = ReferenceConfig::default();
    let mut other = config.merchants[0].clone();
    other.shop_login = "OTHER_SHOP".to_owned();
    other.api_key = "other-key".to_owned();
    config.merchants.push(other);
    let sandbox = Sandbox::start_with(config).await;
    let (status, issued) = shop_token(
        &sandbox,
        reqwest::Method::POST,
        "/api/v1/shop/token/",
        Some(json!({
            "shopLogin": DEFAULT_SHOP_LOGIN, "requestToken": "MASKEDPAN",
            "creditCard": {"number": DEFAULT_THREE_DS_CARD, "expMonth": "05", "expYear": "29", "CVV": "123"},
        })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{issued:#}");
    assert_eq!(issued["payload"]["transactionType"], "REQUESTTOKEN");
    assert_eq!(issued["payload"]["cardBIN"], &DEFAULT_THREE_DS_CARD[..6]);
    let card_token = issued["payload"]["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    // Updated: the same card, a new expiry; another card's number is 1163.
    for (number, status, answered) in [
        (DEFAULT_THREE_DS_CARD, StatusCode::OK, json!("UPDATETOKEN")),
        (
            DEFAULT_FRICTIONLESS_CARD,
            StatusCode::BAD_REQUEST,
            Value::Null,
        ),
    ] {
        let (got, updated) = shop_token(
            &sandbox,
            reqwest::Method::POST,
            "/api/v1/shop/token/",
            Some(json!({
                "shopLogin": DEFAULT_SHOP_LOGIN, "requestToken": "MASKEDPAN",
                "creditCard": {"number": number, "expMonth": "07", "expYear": "31", "token": card_token},
            })),
        )
        .await;
        assert_eq!(got, status, "{updated:#}");
        assert_eq!(
            updated["payload"]["transactionType"], answered,
            "{updated:#}"
        );
        if status == StatusCode::OK {
            assert_eq!(updated["payload"]["tokenExpiryYear"], "31");
        } else {
            assert_eq!(updated["error"]["code"], "1163", "{updated:#}");
        }
    }
    let (token, _) = sandbox.create().await;
    let answer = sandbox
        .submit_with(Some(&token), &token_body(&card_token))
        .await;
    assert_eq!(
        answer.payload()["transactionErrorCode"],
        "8006",
        "{:#}",
        answer.body
    );

    // Another shop does not hold it.
    let body = json!({"shopLogin": "OTHER_SHOP", "amount": "1.00", "currency": "EUR", "shopTransactionID": "o-1"});
    let created = sandbox.create_with(Some("other-key"), &body).await;
    let other_token = created.payload()["paymentToken"].as_str().expect("a token");
    let mut paying = token_body(&card_token);
    paying["shopLogin"] = json!("OTHER_SHOP");
    sandbox
        .submit_with(Some(other_token), &paying)
        .await
        .assert_refused(400, "1165", "token");

    // A custom token: the shop's own name, checked.
    for (request, code) in [
        ("SHORT", "1160"),
        ("4775718800002026", "1161"),
        ("CUSTOMER-0000042", "1162"),
    ] {
        let (token, _) = sandbox.create().await;
        sandbox
            .submit_with(
                Some(&token),
                &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, request),
            )
            .await
            .assert_refused(400, code, "requestToken");
    }
    let (token, _) = sandbox.create().await;
    let answer = sandbox
        .submit_with(
            Some(&token),
            &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, "CUSTOMER00000042"),
        )
        .await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    let (token, _) = sandbox.create().await;
    sandbox
        .submit_with(
            Some(&token),
            &asking_for_a_token(DEFAULT_THREE_DS_CARD, "CUSTOMER00000042"),
        )
        .await
        .assert_refused(400, "1163", "requestToken");
}

#[tokio::test]
async fn a_card_token_outlives_a_restart_with_the_data_file() {
    let dir =
        std::env::temp_dir().join(format!("payconf-tokens-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let config = ReferenceConfig {
        data_file: Some(dir.join("sandbox.db")),
        ..ReferenceConfig::default()
    };
    let sandbox = Sandbox::start_with(config.clone()).await;
    let (token, id) = sandbox.create().await;
    sandbox
        .submit_with(
            Some(&token),
            &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, "MASKEDPAN"),
        )
        .await;
    let card_token = detail(&sandbox, &id).await["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    sandbox.server.shutdown().await.expect("stops");
    let file = std::fs::read(dir.join("sandbox.db")).expect("the data file");
    assert!(
        !file
            .windows(DEFAULT_FRICTIONLESS_CARD.len())
            .any(|w| w == DEFAULT_FRICTIONLESS_CARD.as_bytes()),
        "no card number in the data file"
    );

    let again = Sandbox::start_with(config).await;
    assert_eq!(detail(&again, &id).await["token"], card_token.as_str());
    let (next, _) = again.create().await;
    let answer = again
        .submit_with(Some(&next), &token_body(&card_token))
        .await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
}

/// The back-office's profile page lists the shop's payment methods and the
/// tokens it holds, each card masked, where a merchant looks for them.
#[tokio::test]
async fn the_back_office_lists_the_shops_methods_and_its_tokens_masked() {
    let sandbox = Sandbox::start().await;
    let browser = support::back_office::Browser::signed_in(&sandbox).await;
    let before = browser.get("/backoffice/profile").await;
    assert!(
        before
            .text("p")
            .iter()
            .any(|p| p.contains("holds no card token")),
        "no token yet"
    );
    let methods = before.text("ul li");
    assert!(
        methods.iter().any(|m| m.contains("CREDITCARD")),
        "{methods:?}"
    );
    assert!(methods.iter().any(|m| m.contains("WALLET")), "{methods:?}");
    let (token, id) = sandbox.create().await;
    let answer = sandbox
        .submit_with(
            Some(&token),
            &asking_for_a_token(DEFAULT_FRICTIONLESS_CARD, "MASKEDPAN"),
        )
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    let card_token = detail(&sandbox, &id).await["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let after = browser.get("/backoffice/profile").await;
    let cells = after.text("tbody td");
    assert!(cells.iter().any(|c| c == &card_token), "{cells:?}");
    let masked = format!(
        "{}******{}",
        &DEFAULT_FRICTIONLESS_CARD[..6],
        &DEFAULT_FRICTIONLESS_CARD[DEFAULT_FRICTIONLESS_CARD.len() - 4..]
    );
    assert!(cells.iter().any(|c| c == &masked), "{cells:?}");
    assert!(
        !after.html.contains(DEFAULT_FRICTIONLESS_CARD),
        "the card's number is never shown"
    );
}
