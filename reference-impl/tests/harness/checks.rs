//! The real service's checks over real sockets (`check/pan/`, `cvv`,
//! `expirydate`, `email`, `creditCard`), with the API key or a payment
//! token of the shop's: what each finds, `KO` for data that fails it, and
//! the card's 3-D Secure enrolment and authorisation as the test cards say.

use crate::support;

use payconf_reference::{
    DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN, DEFAULT_THREE_DS_CARD,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::Sandbox;

/// A check with the API key, or with a payment token when `token` is given.
async fn check(
    sandbox: &Sandbox,
    path: &str,
    body: Value,
    token: Option<&str>,
) -> (StatusCode, Value) {
    let request = sandbox
        .client
        .post(sandbox.url(&format!("/api/v1/check/{path}/")))
        .json(&body);
    support::sent_as(request, token).await
}

#[tokio::test]
async fn each_check_says_ok_or_ko_of_what_it_is_given() {
    let sandbox = Sandbox::start().await;
    let shop = |extra: Value| {
        let mut body = json!({"shopLogin": DEFAULT_SHOP_LOGIN});
        body.as_object_mut()
            .expect("an object")
            .extend(extra.as_object().expect("an object").clone());
        body
    };
    for (path, body, field, expected) in [
        (
            "pan",
            shop(json!({"creditcard": {"number": DEFAULT_FRICTIONLESS_CARD}})),
            "checkDigit",
            "OK",
        ),
        (
            "pan",
            shop(json!({"creditcard": {"number": "4775718800002027"}})),
            "checkDigit",
            "KO",
        ),
        (
            "cvv",
            shop(json!({"creditcard": {"cvv": "999"}})),
            "result",
            "OK",
        ),
        (
            "cvv",
            shop(json!({"creditcard": {"cvv": "99"}})),
            "result",
            "KO",
        ),
        (
            "expirydate",
            shop(json!({"creditcard": {"expMonth": "05", "expYear": "99"}})),
            "result",
            "OK",
        ),
        (
            "expirydate",
            shop(json!({"creditcard": {"expMonth": "05", "expYear": "20"}})),
            "result",
            "KO",
        ),
        (
            "email",
            shop(json!({"email": "jane.doe@mail.example"})),
            "result",
            "OK",
        ),
        (
            "email",
            shop(json!({"email": "not an address"})),
            "result",
            "KO",
        ),
    ] {
        let (status, answer) = check(&sandbox, path, body.clone(), None).await;
        assert_eq!(status, StatusCode::OK, "{path} {body}: {answer:#}");
        assert_eq!(answer["error"]["code"], "0", "{answer:#}");
        assert_eq!(
            answer["payload"][field], expected,
            "{path} {body}: {answer:#}"
        );
    }
    let (_, pan) = check(
        &sandbox,
        "pan",
        shop(json!({"creditcard": {"number": DEFAULT_FRICTIONLESS_CARD}})),
        None,
    )
    .await;
    assert_eq!(pan["payload"]["company"], "VISA");
    // What it checks missing: refused, naming it.
    let (status, refused) = check(&sandbox, "pan", shop(json!({"creditcard": {}})), None).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (StatusCode::BAD_REQUEST, &json!("1138"))
    );
    // Another shop's login: 1131; a payment token of the shop's is a caller.
    let (_, other) = check(
        &sandbox,
        "email",
        json!({"shopLogin": "OTHER", "email": "a@b.example"}),
        None,
    )
    .await;
    assert_eq!(other["error"]["code"], "1131");
    let (token, _) = sandbox.create().await;
    let (status, by_token) = check(
        &sandbox,
        "email",
        shop(json!({"email": "a@b.example"})),
        Some(&token),
    )
    .await;
    assert_eq!(
        (status, &by_token["payload"]["result"]),
        (StatusCode::OK, &json!("OK"))
    );
}

#[tokio::test]
async fn a_cards_check_says_its_enrolment_and_with_auth_whether_it_would_be_authorised() {
    let sandbox = Sandbox::start().await;
    let body = |number: &str, with_auth: &str| {
        json!({"shopLogin": DEFAULT_SHOP_LOGIN, "shopTransactionID": "check-1", "withAuth": with_auth,
               "creditcard": {"number": number, "expMonth": "05", "expYear": "99", "CVV": "999"}})
    };
    let (status, answer) = check(
        &sandbox,
        "creditCard",
        body(DEFAULT_FRICTIONLESS_CARD, "FALSE"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer:#}");
    let payload = &answer["payload"];
    assert_eq!(payload["transactionType"], "creditcard");
    assert_eq!(payload["authorizationResult"], "NULL");
    assert_eq!(payload["3DS"], "N");
    assert_eq!(payload["checkDigit"], "OK");
    assert_eq!(payload["expiryDate"], "OK");
    assert_eq!(payload["cvv"], "OK");
    assert_eq!(payload["company"], "VISA");
    let (_, enrolled) = check(
        &sandbox,
        "creditCard",
        body(DEFAULT_THREE_DS_CARD, "TRUE"),
        None,
    )
    .await;
    assert_eq!(enrolled["payload"]["3DS"], "Y");
    assert_eq!(enrolled["payload"]["authorizationResult"], "OK");
    let (_, declined) = check(
        &sandbox,
        "creditCard",
        body(DEFAULT_DECLINED_CARD, "TRUE"),
        None,
    )
    .await;
    assert_eq!(declined["payload"]["authorizationResult"], "KO");
    assert_eq!(
        declined["payload"]["authorizationErrorCode"], "74",
        "{declined:#}"
    );
    // A check keeps nothing: no payment was made.
    assert!(!answer.to_string().contains(DEFAULT_FRICTIONLESS_CARD));
}
