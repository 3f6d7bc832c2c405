//! The payment's life after submit, over real sockets: `payment/detail`
//! (by ID, by identifiers, with the key or the payment's token), capture,
//! cancel, refund and update, under both settlement modes; every answer
//! checked against the spec.

use crate::support;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN,
    Merchant, ReferenceConfig, Settlement,
};
use serde_json::{Value, json};
use support::{Answer, Sandbox, create_body, submit_body, with};

/// A second shop, whose payments wait for the merchant's capture or cancel.
/// The card every payment of these tests pays with, unless it is declined.
const FRICTIONLESS: &str = DEFAULT_FRICTIONLESS_CARD;
const SEPARATED_SHOP: &str = "SEPARATED_SHOP";
const SEPARATED_KEY: &str = "separated-api-key";

/// The sandbox with `DEMO_SHOP` settling by itself at once (unified, no
/// delay) and `SEPARATED_SHOP` waiting for the merchant.
async fn sandbox() -> Sandbox {
    let mut config = ReferenceConfig::default();
    config.merchants[0].settlement = Settlement::Unified { delay_ms: 0 };
    let mut separated: Merchant = config.merchants[0].clone();
    separated.shop_login = SEPARATED_SHOP.to_owned();
    separated.api_key = SEPARATED_KEY.to_owned();
    separated.success_url = format!("/merchant/{SEPARATED_SHOP}/success");
    separated.failure_url = format!("/merchant/{SEPARATED_SHOP}/failure");
    separated.settlement = Settlement::Separated;
    config.merchants.push(separated);
    Sandbox::start_with(config).await
}

/// A shop's key and login.
#[derive(Clone, Copy)]
struct Shop {
    login: &'static str,
    key: &'static str,
}

const UNIFIED: Shop = Shop {
    login: DEFAULT_SHOP_LOGIN,
    key: DEFAULT_API_KEY,
};
const SEPARATED: Shop = Shop {
    login: SEPARATED_SHOP,
    key: SEPARATED_KEY,
};

/// A payment of `shop` for 10.00 EUR paid with `card`; returns (token, paymentID).
async fn paid(sandbox: &Sandbox, shop: Shop, card: &str, reference: &str) -> (String, String) {
    let body = json!({
        "shopLogin": shop.login, "amount": "10.00", "currency": "EUR", "shopTransactionID": reference,
    });
    let created = sandbox.create_with(Some(shop.key), &body).await;
    assert_eq!(created.code(), "0", "{:#}", created.body);
    let token = created.payload()["paymentToken"]
        .as_str()
        .expect("token")
        .to_owned();
    let id = created.payload()["paymentID"]
        .as_str()
        .expect("id")
        .to_owned();
    let submitted = sandbox
        .submit_with(
            Some(&token),
            &with(submit_body(card), "/shopLogin", json!(shop.login)),
        )
        .await;
    assert_eq!(submitted.code(), "0", "{:#}", submitted.body);
    (token, id)
}

async fn operation(sandbox: &Sandbox, shop: Shop, path: &str, body: Value) -> Answer {
    let operation_id = match path {
        "capture" => "capturePayment",
        "cancel" => "cancelPayment",
        "refund" => "refundPayment",
        "update" => "updatePayment",
        "detail" => "searchPaymentDetail",
        other => panic!("no operation {other}"),
    };
    let mut body = body;
    body["shopLogin"] = json!(shop.login);
    sandbox
        .post_raw(
            operation_id,
            &format!("/api/v1/payment/{path}/"),
            &[
                ("Content-Type", "application/json".to_owned()),
                ("Authorization", format!("apikey {}", shop.key)),
            ],
            body.to_string().into_bytes(),
        )
        .await
}

async fn detail(sandbox: &Sandbox, id: &str, credential: (&str, String)) -> Answer {
    let response = sandbox
        .client
        .get(sandbox.url(&format!("/api/v1/payment/detail/{id}")))
        .header(credential.0, credential.1)
        .send()
        .await
        .expect("detail is answered");
    support::read_answer("getPaymentDetail", response).await
}

/// `ids` with an `amount`.
fn for_amount(ids: &Value, amount: &str) -> Value {
    let mut body = ids.clone();
    body["amount"] = json!(amount);
    body
}

fn event_types(detail: &Answer) -> Vec<String> {
    detail.payload()["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|item| {
            let event = item.get("event").unwrap_or(item);
            event["eventtype"].as_str().expect("eventtype").to_owned()
        })
        .collect()
}

fn assert_result(answer: &Answer, result: &str, code: Option<&str>) {
    assert_eq!(answer.code(), "0", "{:#}", answer.body);
    assert_eq!(
        answer.payload()["transactionResult"],
        result,
        "{:#}",
        answer.body
    );
    assert_eq!(
        answer.payload()["transactionErrorCode"].as_str(),
        code,
        "{:#}",
        answer.body
    );
}

#[tokio::test]
async fn a_unified_shops_payment_settles_by_itself_and_is_refunded_in_parts_up_to_the_settled_amount()
 {
    let sandbox = sandbox().await;
    let (_, id) = paid(&sandbox, UNIFIED, FRICTIONLESS, "order-unified").await;
    let read = detail(
        &sandbox,
        &id,
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    )
    .await;
    assert_eq!(read.payload()["transactionResult"], "OK");
    assert_eq!(read.payload()["transactionState"], "MOV");
    assert_eq!(event_types(&read), ["AUT", "MOV"]);
    // The GET document's shape: each event wrapped.
    assert_eq!(read.payload()["events"][1]["event"]["environment"], "BAT");

    let ids = json!({"paymentID": id, "currency": "EUR"});
    let capture = operation(&sandbox, UNIFIED, "capture", for_amount(&ids, "10.00")).await;
    assert_result(&capture, "KO", Some("2019"));
    let cancel = operation(&sandbox, UNIFIED, "cancel", ids.clone()).await;
    assert_result(&cancel, "KO", Some("2017"));

    for (amount, result, code) in [
        ("4", "OK", None),
        ("6.01", "KO", Some("2014")),
        ("6.00", "OK", None),
        ("0.01", "KO", Some("2014")),
    ] {
        let refund = operation(&sandbox, UNIFIED, "refund", for_amount(&ids, amount)).await;
        assert_result(&refund, result, code);
        assert_eq!(refund.payload()["transactionType"], "refund");
        assert_eq!(refund.payload()["paymentID"], id.as_str());
    }
    let read = operation(
        &sandbox,
        UNIFIED,
        "detail",
        json!({"shopTransactionID": "order-unified"}),
    )
    .await;
    assert_eq!(read.payload()["transactionState"], "STO");
    assert_eq!(event_types(&read), ["AUT", "MOV", "STO", "STO"]);
    // The POST document's shape: flat, a refund naming the settlement.
    assert_eq!(read.payload()["events"][2]["eventReferred"], "2");
    assert_eq!(read.payload()["events"][2]["eventamount"], "4.00");
}

#[tokio::test]
async fn a_separated_shop_captures_once_at_most_the_authorised_amount_or_cancels_before_settlement()
{
    let sandbox = sandbox().await;
    let (_, captured) = paid(&sandbox, SEPARATED, FRICTIONLESS, "order-capture").await;
    let ids = json!({"paymentID": captured, "currency": "EUR"});
    let refund = operation(&sandbox, SEPARATED, "refund", for_amount(&ids, "1.00")).await;
    assert_result(&refund, "KO", Some("8016"));
    for (amount, result, code) in [
        ("10.01", "KO", Some("8014")),
        ("7.50", "OK", None),
        ("1.00", "KO", Some("2019")),
    ] {
        let capture = operation(&sandbox, SEPARATED, "capture", for_amount(&ids, amount)).await;
        assert_result(&capture, result, code);
    }
    let cancel = operation(&sandbox, SEPARATED, "cancel", ids.clone()).await;
    assert_result(&cancel, "KO", Some("2017"));
    let refund = operation(&sandbox, SEPARATED, "refund", for_amount(&ids, "7.51")).await;
    assert_result(&refund, "KO", Some("2014"));
    let in_dollars = operation(
        &sandbox,
        SEPARATED,
        "refund",
        json!({"paymentID": captured, "amount": "1.00", "currency": "USD"}),
    )
    .await;
    assert_result(&in_dollars, "KO", Some("65"));

    let (_, cancelled) = paid(&sandbox, SEPARATED, FRICTIONLESS, "order-cancel").await;
    let ids = json!({"paymentID": cancelled, "currency": "EUR"});
    assert_result(
        &operation(&sandbox, SEPARATED, "cancel", ids.clone()).await,
        "OK",
        None,
    );
    assert_result(
        &operation(&sandbox, SEPARATED, "cancel", ids.clone()).await,
        "KO",
        Some("2017"),
    );
    let capture = operation(&sandbox, SEPARATED, "capture", for_amount(&ids, "1.00")).await;
    assert_result(&capture, "KO", Some("2019"));
    let read = detail(
        &sandbox,
        &cancelled,
        ("Authorization", format!("apikey {SEPARATED_KEY}")),
    )
    .await;
    assert_eq!(read.payload()["transactionState"], "CAN");
}

#[tokio::test]
async fn a_declined_payment_is_ko_with_a_negative_authorization_and_nothing_after_it() {
    let sandbox = sandbox().await;
    let (_, id) = paid(&sandbox, SEPARATED, DEFAULT_DECLINED_CARD, "order-declined").await;
    let read = detail(
        &sandbox,
        &id,
        ("Authorization", format!("apikey {SEPARATED_KEY}")),
    )
    .await;
    assert_eq!(read.payload()["transactionResult"], "KO");
    assert_eq!(read.payload()["transactionState"], "AUT");
    assert_eq!(read.payload()["events"][0]["event"]["eventamount"], "0.00");
    let ids = json!({"paymentID": id, "currency": "EUR", "amount": "1.00"});
    assert_result(
        &operation(&sandbox, SEPARATED, "capture", ids.clone()).await,
        "KO",
        Some("8012"),
    );
    assert_result(
        &operation(&sandbox, SEPARATED, "cancel", ids.clone()).await,
        "KO",
        Some("8012"),
    );
    assert_result(
        &operation(&sandbox, SEPARATED, "refund", ids).await,
        "KO",
        Some("2018"),
    );
}

#[tokio::test]
async fn detail_reads_a_payment_by_any_of_its_identifiers_with_the_key_or_its_own_token() {
    let sandbox = sandbox().await;
    let (token, id) = sandbox.create().await;
    let unsubmitted = detail(&sandbox, &id, ("paymentToken", token.clone())).await;
    assert_eq!(unsubmitted.payload()["transactionResult"], "UNSUBMITTED");
    assert_eq!(unsubmitted.payload()["transactionState"], "");
    let bank = unsubmitted.payload()["bankTransactionID"]
        .as_str()
        .expect("bank id")
        .to_owned();
    assert_ne!(bank, id);

    for ids in [
        json!({"paymentID": id}),
        json!({"bankTransactionID": bank}),
        json!({"shopTransactionID": "order-1001"}),
        json!({"paymentID": id, "shopTransactionID": "order-1001", "bankTransactionID": bank}),
    ] {
        let read = operation(&sandbox, UNIFIED, "detail", ids.clone()).await;
        assert_eq!(read.payload()["paymentID"], id.as_str(), "{ids}");
    }
    let refused = [
        (json!({}), 400, "2016"),
        (json!({"paymentID": "12ab"}), 400, "1413"),
        (json!({"paymentID": "999999999999"}), 400, "2011"),
        (
            json!({"paymentID": id, "shopTransactionID": "another-order"}),
            400,
            "2011",
        ),
    ];
    for (ids, status, code) in refused {
        operation(&sandbox, UNIFIED, "detail", ids)
            .await
            .assert_refused(status, code, "");
    }
    // Another shop finds nothing of this one's: the payment exists for its own shop only.
    operation(&sandbox, SEPARATED, "detail", json!({"paymentID": id}))
        .await
        .assert_refused(400, "2011", "transaction not found");
    // Two payments under one reference: the paymentID must say which.
    sandbox
        .create_with(Some(DEFAULT_API_KEY), &create_body())
        .await;
    operation(
        &sandbox,
        UNIFIED,
        "detail",
        json!({"shopTransactionID": "order-1001"}),
    )
    .await
    .assert_refused(400, "2012", "name the paymentID");
    // A token reads its own payment only.
    let (_, other) = paid(&sandbox, UNIFIED, FRICTIONLESS, "order-other").await;
    detail(&sandbox, &other, ("paymentToken", token))
        .await
        .assert_refused(400, "2011", "");
    detail(
        &sandbox,
        "12ab",
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    )
    .await
    .assert_refused(400, "1413", "paymentID");
}

#[tokio::test]
async fn the_operations_need_the_api_key_of_the_payments_shop() {
    let sandbox = sandbox().await;
    let (_, id) = paid(&sandbox, SEPARATED, FRICTIONLESS, "order-keys").await;
    let body =
        json!({"shopLogin": SEPARATED_SHOP, "paymentID": id, "amount": "1.00", "currency": "EUR"});
    for path in ["capture", "cancel", "refund", "update"] {
        let operation_id = format!("{path}Payment");
        let without = sandbox
            .post_raw(
                &operation_id,
                &format!("/api/v1/payment/{path}/"),
                &[("Content-Type", "application/json")],
                body.to_string().into_bytes(),
            )
            .await;
        without.assert_refused(403, "1171", "authentication header missing");
        // The unified shop's key does not reach the separated shop's payment.
        let other_key = operation(&sandbox, UNIFIED, path, body.clone()).await;
        other_key.assert_refused(400, "2011", "transaction not found");
    }
    let response = sandbox
        .client
        .get(sandbox.url("/api/v1/payment/capture/"))
        .send()
        .await
        .expect("answered");
    let answer = support::read_answer("capturePayment", response).await;
    answer.assert_refused(405, "9405", "POST");
}

#[tokio::test]
async fn update_changes_the_amount_until_the_payment_is_submitted() {
    let sandbox = sandbox().await;
    let (token, id) = sandbox.create().await;
    // A public client of the real service writes `paymentId`.
    let update = operation(
        &sandbox,
        UNIFIED,
        "update",
        json!({"paymentId": id, "amount": "12.50"}),
    )
    .await;
    assert_result(&update, "OK", None);
    assert_eq!(update.payload()["transactionType"], "update");
    let read = pay_and_read(&sandbox, &token, &id).await;
    assert_eq!(read.payload()["events"][0]["event"]["eventamount"], "12.50");
    let late = operation(
        &sandbox,
        UNIFIED,
        "update",
        json!({"paymentID": id, "amount": "1.00"}),
    )
    .await;
    assert_result(&late, "KO", Some("1445"));
}

/// Pays the created payment (`token`, `id`) with the frictionless card and
/// reads its detail with the API key.
async fn pay_and_read(sandbox: &Sandbox, token: &str, id: &str) -> Answer {
    sandbox
        .submit_with(Some(token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    detail(
        sandbox,
        id,
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    )
    .await
}

/// An update that names another currency than the payment's is refused
/// (65, as a capture's or a refund's would be) and changes nothing, the
/// amount it carried neither: the real service's update changes no
/// currency. The payment's own currency is taken.
#[tokio::test]
async fn update_refuses_another_currency_and_changes_nothing() {
    let sandbox = sandbox().await;
    let (token, id) = sandbox.create().await;
    let other = operation(
        &sandbox,
        UNIFIED,
        "update",
        json!({"paymentID": id, "amount": "99.00", "currency": "USD"}),
    )
    .await;
    assert_result(&other, "KO", Some("65"));
    let same = operation(
        &sandbox,
        UNIFIED,
        "update",
        json!({"paymentID": id, "amount": "12.50", "currency": "EUR"}),
    )
    .await;
    assert_result(&same, "OK", None);
    let read = pay_and_read(&sandbox, &token, &id).await;
    assert_eq!(read.payload()["currency"], "EUR");
    assert_eq!(read.payload()["events"][0]["event"]["eventamount"], "12.50");
}

/// A payment's own token reads its detail five times, as in the real
/// service's sandbox; then it is refused (403, 1404) and the API key reads on.
#[tokio::test]
async fn a_token_reads_its_payments_detail_five_times_then_the_key_is_needed() {
    let sandbox = sandbox().await;
    let (token, id) = paid(&sandbox, UNIFIED, FRICTIONLESS, "order-reads").await;
    for read in 1..=5 {
        let answer = detail(&sandbox, &id, ("paymentToken", token.clone())).await;
        assert_eq!(answer.code(), "0", "read {read}: {:#}", answer.body);
    }
    detail(&sandbox, &id, ("paymentToken", token.clone()))
        .await
        .assert_refused(403, "1404", "use the API key");
    let by_key = detail(
        &sandbox,
        &id,
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    )
    .await;
    assert_eq!(by_key.payload()["paymentID"], id.as_str());
}
