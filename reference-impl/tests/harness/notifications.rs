//! Server notifications over real sockets: the sandbox posts each
//! payment's outcome to a merchant's server on loopback, signed with the
//! shop's secret, once per payment, retried when the server fails, and
//! without ever holding up `payment/submit`.

use crate::support;

use std::time::Duration;

use payconf_reference::{
    DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SIGNING_SECRET,
    DEFAULT_THREE_DS_CARD, ReferenceConfig,
    notification::{EVENT_ID_HEADER, SIGNATURE_HEADER, verify},
};
use serde_json::{Value, json};
use support::{
    Sandbox, answer_issuer_form,
    back_office::Browser,
    merchant_server::{MerchantServer, Received},
    submit_body,
};
use url::Url;

/// A submit body naming `notify` as its server notification address.
fn submit_notifying(card: &str, notify: &Url) -> Value {
    let mut body = submit_body(card);
    body["responseURLs"] = json!({"serverNotificationURL": notify.as_str()});
    body
}

/// Creates a payment and submits `card` for it, naming `notify` as its
/// server notification address; returns the submit's answer and the
/// payment's ID.
async fn pay_notifying(sandbox: &Sandbox, card: &str, notify: &Url) -> (support::Answer, String) {
    let (token, id) = sandbox.create().await;
    let answer = sandbox
        .submit_with(Some(&token), &submit_notifying(card, notify))
        .await;
    (answer, id)
}

/// Checks what every notification must be: JSON as the spec's callback
/// declares it, signed with the default shop's secret, its event ID in the
/// header and the body.
fn assert_signed(received: &Received) -> Value {
    let body = assert_signed_event(received);
    assert_eq!(body["eventType"], "payment.outcome");
    body
}

/// What every notification must be, whatever its event.
fn assert_signed_event(received: &Received) -> Value {
    assert_eq!(received.header("content-type"), "application/json");
    assert!(
        verify(
            DEFAULT_SIGNING_SECRET,
            received.header(SIGNATURE_HEADER),
            &received.body
        ),
        "the signature verifies with the shop's secret: {}",
        received.header(SIGNATURE_HEADER)
    );
    assert!(!verify(
        "not-the-shops-secret-at-all",
        received.header(SIGNATURE_HEADER),
        &received.body
    ));
    let body = received.json();
    if let Err(violations) = support::contract().check_callback("notifyPaymentOutcome", &body) {
        panic!("the notification breaks the spec: {violations}\n{body:#}");
    }
    assert_eq!(body["eventID"], received.header(EVENT_ID_HEADER));
    body
}

#[tokio::test]
async fn a_paid_submit_is_notified_once_signed_and_naming_the_payment() {
    let merchant = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    let (answer, id) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    let received = merchant.wait_for(1).await;
    let body = assert_signed(&received[0]);
    assert_eq!(body["paymentID"], id.as_str());
    assert_eq!(body["shopLogin"], "DEMO_SHOP");
    assert_eq!(body["shopTransactionID"], "order-1001");
    assert_eq!(body["amount"], "10.00");
    assert_eq!(body["currency"], "EUR");
    assert_eq!(body["outcome"], "paid");
    assert_eq!(body["transactionResult"], "OK");
    assert_eq!(body["channel"], "submit");
    assert_eq!(body["maskedPAN"], "477571******2026");
    assert!(body.get("authentication").is_none(), "{body:#}");
    assert!(
        !String::from_utf8_lossy(&received[0].body).contains(DEFAULT_FRICTIONLESS_CARD),
        "the card number appears only masked"
    );
    // Recorded as delivered: nothing more is owed.
    Browser::signed_in(&sandbox)
        .await
        .timeline_until(&id, "(delivered)")
        .await;
    assert_eq!(merchant.received().len(), 1, "one notification per payment");
}

#[tokio::test]
async fn a_declined_submit_is_notified_as_declined() {
    let merchant = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    pay_notifying(&sandbox, DEFAULT_DECLINED_CARD, &merchant.url).await;
    let body = assert_signed(&merchant.wait_for(1).await[0]);
    assert_eq!(body["outcome"], "declined");
    assert_eq!(body["transactionResult"], "KO");
}

#[tokio::test]
async fn a_three_ds_payment_is_notified_when_the_buyer_authenticates_not_before() {
    let merchant = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    let (answer, id) = pay_notifying(&sandbox, DEFAULT_THREE_DS_CARD, &merchant.url).await;
    let href = answer.payload()["userRedirect"]["href"]
        .as_str()
        .expect("the issuer's address")
        .to_owned();
    answer_issuer_form(&sandbox, &href, &[("otp", "123456")]).await;
    let body = assert_signed(&merchant.wait_for(1).await[0]);
    assert_eq!(body["paymentID"], id.as_str());
    assert_eq!(body["outcome"], "paid");
    assert_eq!(body["authentication"], "authenticated");
    // Not before: the timeline, in the order things happened, has the
    // notification only after the buyer's answer to the issuer.
    let steps = Browser::signed_in(&sandbox)
        .await
        .timeline_until(&id, "(delivered)")
        .await;
    let at = |what: &str| {
        steps
            .iter()
            .position(|s| s.contains(what))
            .unwrap_or_else(|| panic!("{what:?} in {steps:#?}"))
    };
    assert!(
        at("authenticated with the issuer") < at("notification"),
        "{steps:#?}"
    );
    assert_eq!(merchant.received().len(), 1, "{steps:#?}");
}

#[tokio::test]
async fn the_profiles_address_is_used_when_the_submit_names_none() {
    let merchant = MerchantServer::start().await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].notification_url = Some(merchant.url.clone());
    let sandbox = Sandbox::start_with(config).await;
    let (answer, _, id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    let body = assert_signed(&merchant.wait_for(1).await[0]);
    assert_eq!(body["paymentID"], id.as_str());
}

#[tokio::test]
async fn a_refused_delivery_is_retried_with_the_same_event_id() {
    let merchant = MerchantServer::answering(&[500, 503]).await;
    let mut config = ReferenceConfig::default();
    config.limits.notification_first_retry = Duration::from_millis(20);
    let sandbox = Sandbox::start_with(config).await;
    let (_, id) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    let received = merchant.wait_for(3).await;
    let ids: Vec<&str> = received.iter().map(|r| r.header(EVENT_ID_HEADER)).collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    for attempt in &received {
        assert_signed(attempt);
    }
    Browser::signed_in(&sandbox)
        .await
        .timeline_until(&id, "HTTP 200 (delivered)")
        .await;
    assert_eq!(
        merchant.received().len(),
        3,
        "delivered on the third attempt, then no more"
    );
}

#[tokio::test]
async fn retries_stop_when_the_window_is_over() {
    let merchant = MerchantServer::answering(&[500; 50]).await;
    let mut config = ReferenceConfig::default();
    // Attempts at 0, 100 and 400 ms (a busy machine may take 600 ms more
    // over them); the next would come at 1,300 ms, past the window.
    config.limits.notification_first_retry = Duration::from_millis(100);
    config.limits.notification_window = Duration::from_millis(1000);
    let sandbox = Sandbox::start_with(config).await;
    let (_, id) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    merchant.wait_for(3).await;
    Browser::signed_in(&sandbox)
        .await
        .timeline_until(&id, "abandoned: its retry time ran out")
        .await;
    assert_eq!(merchant.received().len(), 3);
}

#[tokio::test]
async fn a_merchant_server_that_does_not_answer_never_holds_up_submit() {
    let merchant = MerchantServer::start().await;
    merchant.hold();
    let sandbox = Sandbox::start().await;
    pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    // The first notification is in the merchant's hands, unanswered.
    merchant.wait_for(1).await;
    // The service goes on: a create and a submit are answered meanwhile.
    let (answer, _, _) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    merchant.release();
}

#[tokio::test]
async fn an_unreachable_merchant_server_does_not_change_the_payment() {
    // A port nothing listens on: bound, then closed.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        Url::parse(&format!(
            "http://{}/n",
            listener.local_addr().expect("address")
        ))
        .expect("valid")
    };
    let sandbox = Sandbox::start().await;
    let (answer, _) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &closed).await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
}

#[tokio::test]
async fn a_merchant_server_that_never_answers_is_given_up_on_within_the_attempts_time() {
    let merchant = MerchantServer::start().await;
    merchant.hold();
    let mut config = ReferenceConfig::default();
    config.limits.notification_timeout = Duration::from_millis(200);
    config.limits.notification_first_retry = Duration::from_millis(20);
    let sandbox = Sandbox::start_with(config).await;
    pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    // Unanswered, the first attempt ends at its bound and a second comes.
    let received = merchant.wait_for(2).await;
    assert_eq!(
        received[0].header(EVENT_ID_HEADER),
        received[1].header(EVENT_ID_HEADER)
    );
    merchant.release();
}

/// `payment/<path>/` (capture, cancel, refund) of the default shop's
/// payment `id`, with its key, for `amount` when given.
async fn operate(sandbox: &Sandbox, path: &str, id: &str, amount: Option<&str>) -> support::Answer {
    let mut body = json!({"shopLogin": "DEMO_SHOP", "paymentID": id, "currency": "EUR"});
    if let Some(amount) = amount {
        body["amount"] = json!(amount);
    }
    let operation = format!("{path}Payment");
    sandbox
        .post_raw(
            &operation,
            &format!("/api/v1/payment/{path}/"),
            &[
                ("Content-Type", "application/json".to_owned()),
                (
                    "Authorization",
                    format!("apikey {}", payconf_reference::DEFAULT_API_KEY),
                ),
            ],
            body.to_string().into_bytes(),
        )
        .await
}

/// A paid payment's money is told as it moves: the settlement the sandbox
/// makes by itself when it is due (no call reads the payment), then each
/// refund; at a shop that settles separately, a capture and a cancel. Each
/// a notification of its own, after the outcome's, with the money after it.
#[tokio::test]
async fn each_change_of_a_paid_payments_money_is_notified() {
    let merchant = MerchantServer::start().await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].settlement = payconf_reference::Settlement::Unified { delay_ms: 300 };
    let sandbox = Sandbox::start_with(config).await;
    let (_, id) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    let received = merchant.wait_for(2).await;
    assert_eq!(assert_signed(&received[0])["paymentID"], id.as_str());
    let settled = assert_signed_event(&received[1]);
    assert_eq!(settled["eventType"], "payment.settled", "{settled:#}");
    assert_eq!(settled["transactionState"], "MOV");
    assert_eq!(settled["eventAmount"], "10.00");
    assert_eq!(settled["settledAmount"], "10.00");
    assert_eq!(settled["refundedAmount"], "0.00");

    let answer = operate(&sandbox, "refund", &id, Some("4")).await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    let received = merchant.wait_for(3).await;
    let refunded = assert_signed_event(&received[2]);
    assert_eq!(refunded["eventType"], "payment.refunded", "{refunded:#}");
    assert_eq!(refunded["transactionState"], "STO");
    assert_eq!(refunded["eventAmount"], "4.00");
    assert_eq!(refunded["refundedAmount"], "4.00");
    // Told once each: all three recorded as delivered, nothing more comes.
    Browser::signed_in(&sandbox)
        .await
        .timeline_counting(&id, "(delivered)", 3)
        .await;
    assert_eq!(merchant.received().len(), 3);
}

#[tokio::test]
async fn a_capture_and_a_cancel_at_a_shop_that_settles_separately_are_notified() {
    let merchant = MerchantServer::start().await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].settlement = payconf_reference::Settlement::Separated;
    let sandbox = Sandbox::start_with(config).await;
    let (_, captured) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    merchant.wait_for(1).await;
    let answer = operate(&sandbox, "capture", &captured, Some("6.00")).await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    let received = merchant.wait_for(2).await;
    let capture = assert_signed_event(&received[1]);
    assert_eq!(capture["eventType"], "payment.settled", "{capture:#}");
    assert_eq!(capture["eventAmount"], "6.00");

    let (_, cancelled) = pay_notifying(&sandbox, DEFAULT_FRICTIONLESS_CARD, &merchant.url).await;
    merchant.wait_for(3).await;
    let answer = operate(&sandbox, "cancel", &cancelled, None).await;
    assert_eq!(
        answer.payload()["transactionResult"],
        "OK",
        "{:#}",
        answer.body
    );
    let received = merchant.wait_for(4).await;
    let cancel = assert_signed_event(&received[3]);
    assert_eq!(cancel["eventType"], "payment.cancelled", "{cancel:#}");
    assert_eq!(cancel["paymentID"], cancelled.as_str());
    assert_eq!(cancel["transactionState"], "CAN");
}

/// The documentation's signature-checking snippet (docs/sandbox.md), run
/// as a merchant would run it: it takes a fresh signature, and refuses the
/// same body and signature replayed from ten minutes ago, a wrong secret
/// and a header that is not a signature.
#[test]
fn the_documented_snippet_checks_the_signature_and_its_timestamp() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/sandbox.md"))
        .expect("docs/sandbox.md");
    let snippet = docs
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the snippet");
    assert!(snippet.contains("def verified"), "{snippet}");
    let body = br#"{"eventID":"e-1"}"#;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let fresh = payconf_reference::notification::signature(
        DEFAULT_SIGNING_SECRET,
        i64::try_from(now).expect("fits"),
        body,
    );
    let replayed = payconf_reference::notification::signature(
        DEFAULT_SIGNING_SECRET,
        i64::try_from(now - 600).expect("fits"),
        body,
    );
    let body = String::from_utf8_lossy(body);
    let program = format!(
        "{snippet}\nsecret = {secret:?}.encode()\nbody = {body:?}.encode()\n\
         print(verified(secret, {fresh:?}, body), verified(secret, {replayed:?}, body), \
         verified(b'another-secret-entirely', {fresh:?}, body), verified(secret, 'v1=00', body))\n",
        secret = DEFAULT_SIGNING_SECRET,
    );
    let ran = std::process::Command::new("python3")
        .args(["-c", &program])
        .output()
        .expect("python3 runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout).trim(),
        "True False False False"
    );
}
