//! The 3-D Secure outcomes over real sockets: each of the sandbox's test
//! cards ends the way the real service names it (submit's answer, the
//! issuer's challenge, `payment/detail`'s code and authentication level),
//! every answer checked against the spec; the challenge a card decided at
//! submit outlives a restart with a data file.

use crate::support;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_ISSUER_CODE, ReferenceConfig, default_card, outcomes,
};
use payconf_spec::card::CardKind;
use support::{Answer, Sandbox, answer_issuer_form};

async fn detail(sandbox: &Sandbox, id: &str) -> Answer {
    let response = sandbox
        .client
        .get(sandbox.url(&format!("/api/v1/payment/detail/{id}")))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .send()
        .await
        .expect("detail is answered");
    support::read_answer("getPaymentDetail", response).await
}

/// (transactionResult, transactionErrorCode, authenticationLevel) of a detail.
fn said(answer: &Answer) -> (String, String, String) {
    let payload = answer.payload();
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("(none)").to_owned();
    (
        text(&payload["transactionResult"]),
        text(&payload["transactionErrorCode"]),
        text(&payload["threeDS"]["authenticationResult"]["authenticationLevel"]),
    )
}

fn expected(result: &str, code: &str, level: &str) -> (String, String, String) {
    (result.to_owned(), code.to_owned(), level.to_owned())
}

/// Pays with the card of `behaviour`; at the issuer, answers with `fields`.
/// Returns the submit answer, the payment's detail and, through the
/// issuer, where the buyer landed.
async fn pay(
    sandbox: &Sandbox,
    behaviour: CardKind,
    fields: &[(&str, &str)],
) -> (Answer, Answer, Option<String>) {
    let (submitted, _, id) = sandbox.pay_with(default_card(behaviour)).await;
    assert_eq!(submitted.code(), "0", "{:#}", submitted.body);
    let landed = if submitted.payload()["transactionErrorCode"] == "8006" {
        let href = submitted.payload()["userRedirect"]["href"]
            .as_str()
            .expect("the issuer's address")
            .to_owned();
        answer_issuer_form(sandbox, &href, fields).await.1
    } else {
        None
    };
    (submitted, detail(sandbox, &id).await, landed)
}

#[tokio::test]
async fn each_test_card_ends_as_the_real_service_names_its_outcome() {
    let sandbox = Sandbox::start().await;
    let code = [("otp", DEFAULT_ISSUER_CODE)];
    for (behaviour, at_submit, after) in [
        (
            CardKind::NotEnrolled,
            ("OK", None),
            expected("OK", "0", "NA"),
        ),
        (
            CardKind::FrictionlessAuthenticated,
            ("OK", None),
            expected("OK", "0", "2F"),
        ),
        (
            CardKind::Challenge,
            ("", Some("8006")),
            expected("OK", "0", "2C"),
        ),
        (
            CardKind::AuthenticationFailed,
            ("", Some("8006")),
            expected("KO", "8027", "NA"),
        ),
        (
            CardKind::IssuerRejected,
            ("KO", Some("8028")),
            expected("KO", "8028", "NA"),
        ),
        (
            CardKind::AcsTechnicalProblem,
            ("KO", Some("8029")),
            expected("KO", "8029", "NA"),
        ),
        (
            CardKind::AcsTimeout,
            ("", Some("8006")),
            expected("KO", "8038", "NA"),
        ),
        (
            CardKind::InsufficientCredit,
            ("KO", Some("251")),
            expected("KO", "251", "2F"),
        ),
        (
            CardKind::CardExpired,
            ("KO", Some("433")),
            expected("KO", "433", "2F"),
        ),
        (
            CardKind::Declined,
            ("KO", Some("74")),
            expected("KO", "74", "NA"),
        ),
    ] {
        let (submitted, read, landed) = pay(&sandbox, behaviour, &code).await;
        let name = behaviour.name();
        assert_eq!(
            submitted.payload()["transactionResult"],
            at_submit.0,
            "{name}: {:#}",
            submitted.body
        );
        assert_eq!(
            submitted.payload()["transactionErrorCode"].as_str(),
            at_submit.1,
            "{name}: {:#}",
            submitted.body
        );
        assert_eq!(said(&read), after, "{name}: {:#}", read.body);
        if let Some(landed) = landed {
            let paid = after.0 == "OK";
            let page = if paid { "success" } else { "failure" };
            assert!(landed.contains(page), "{name}: landed on {landed}");
        }
    }
}

#[tokio::test]
async fn a_wrong_code_fails_the_authentication_and_cancel_abandons_it() {
    let sandbox = Sandbox::start().await;
    let (_, wrong, _) = pay(&sandbox, CardKind::Challenge, &[("otp", "000000")]).await;
    assert_eq!(
        said(&wrong),
        expected("KO", "8027", "NA"),
        "{:#}",
        wrong.body
    );
    let (_, cancelled, _) = pay(
        &sandbox,
        CardKind::Challenge,
        &[("otp", DEFAULT_ISSUER_CODE), ("action", "cancel")],
    )
    .await;
    assert_eq!(
        said(&cancelled),
        expected("KO", "1143", "NA"),
        "{:#}",
        cancelled.body
    );
    assert_eq!(
        cancelled.payload()["transactionErrorDescription"],
        outcomes::ABANDONED.description
    );
}

/// The table the documentation, the payment page and the back-office show
/// is on the payment page, every number a card the sandbox knows.
#[tokio::test]
async fn the_payment_page_shows_the_test_card_table() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let mut page = sandbox.url(payconf_reference::PAGE_PATH);
    page.query_pairs_mut()
        .append_pair("a", payconf_reference::DEFAULT_SHOP_LOGIN)
        .append_pair("b", &token)
        .append_pair("paymentID", &id);
    let (status, _, html) = sandbox.get_page(page.as_str()).await;
    assert_eq!(status, 200, "{html}");
    for row in payconf_reference::test_cards::table(&ReferenceConfig::default()) {
        assert!(html.contains(&row.number), "{} on the page", row.number);
    }
}

/// The end a card's challenge was given at submit is in the data file:
/// after a restart, the buyer who gives the right code to the card whose
/// authentication times out still ends with 8038, not paid.
#[tokio::test]
async fn the_challenge_a_card_decided_outlives_a_restart() {
    let dir = std::env::temp_dir().join(format!(
        "payconf-outcomes-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let config = ReferenceConfig {
        data_file: Some(dir.join("sandbox.db")),
        ..ReferenceConfig::default()
    };
    let sandbox = Sandbox::start_with(config.clone()).await;
    let (submitted, _, id) = sandbox.pay_with(default_card(CardKind::AcsTimeout)).await;
    let href = submitted.payload()["userRedirect"]["href"]
        .as_str()
        .expect("the issuer's address")
        .to_owned();
    let path = url::Url::parse(&href).expect("absolute");
    sandbox.server.shutdown().await.expect("stops");

    let again = Sandbox::start_with(config).await;
    let mut issuer = again.url(path.path());
    issuer.set_query(path.query());
    let (_, landed) =
        answer_issuer_form(&again, issuer.as_str(), &[("otp", DEFAULT_ISSUER_CODE)]).await;
    assert!(
        landed.as_deref().is_some_and(|l| l.contains("failure")),
        "{landed:?}"
    );
    let read = detail(&again, &id).await;
    assert_eq!(said(&read), expected("KO", "8038", "NA"), "{:#}", read.body);
}
