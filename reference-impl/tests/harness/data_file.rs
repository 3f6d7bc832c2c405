//! The sandbox with a data file, over real sockets: what it acknowledged
//! is there after a restart (payments, profile changes, the rotated key),
//! notifications still owed are delivered after it, and a file it cannot
//! use stops it before it serves.

use crate::support;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN, DEFAULT_THREE_DS_CARD,
    DataError, ReferenceConfig, RunningServer, ServeError,
};
use support::{
    Sandbox,
    back_office::{Browser, borrowed, profile_form},
    create_body,
    merchant_server::MerchantServer,
    submit_body,
};

fn data_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "payconf-data-{name}-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join("sandbox.db")
}

fn config_with(file: &Path) -> ReferenceConfig {
    ReferenceConfig {
        data_file: Some(file.to_owned()),
        ..ReferenceConfig::default()
    }
}

#[tokio::test]
async fn payments_are_there_after_a_restart_in_the_state_they_were_left() {
    let file = data_file("restart");
    let sandbox = Sandbox::start_with(config_with(&file)).await;
    let (_, paid_token, paid_id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let (waiting_token, waiting_id) = sandbox.create().await;
    let (answer, _, _) = sandbox.pay_with(DEFAULT_THREE_DS_CARD).await;
    let issuer = url::Url::parse(
        answer.payload()["userRedirect"]["href"]
            .as_str()
            .expect("the issuer's address"),
    )
    .expect("absolute");
    sandbox.server.shutdown().await.expect("stops");

    let again = Sandbox::start_with(config_with(&file)).await;
    // The paid payment is paid: a second submit is refused as processed.
    again
        .submit_with(Some(&paid_token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await
        .assert_refused(400, "1137", "already processed");
    // The created one still waits for its card, under the same ID.
    let answer = again
        .submit_with(
            Some(&waiting_token),
            &submit_body(DEFAULT_FRICTIONLESS_CARD),
        )
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    assert_eq!(answer.payload()["paymentID"], waiting_id.as_str());
    // The buyer at the issuer finishes on the restarted sandbox (on its new port).
    let mut moved = again.url(issuer.path());
    moved.set_query(issuer.query());
    let (status, location) =
        support::answer_issuer_form(&again, moved.as_str(), &[("otp", "123456")]).await;
    assert_eq!(status, 303);
    assert!(
        support::page_of(&location.expect("a landing"), DEFAULT_SHOP_LOGIN)
            .ends_with("/merchant/DEMO_SHOP/success"),
        "authenticated, so paid"
    );
    // New payments do not reuse an ID, and their IDs have the real
    // service's shape (random, twelve digits).
    let (_, new_id) = again.create().await;
    assert!(new_id != paid_id && new_id != waiting_id, "{new_id}");
    assert_eq!(new_id.len(), 12, "{new_id}");
}

#[tokio::test]
async fn a_notification_still_owed_is_delivered_after_a_restart() {
    let file = data_file("owed");
    // Refuses the first attempt, takes the next.
    let merchant = MerchantServer::answering(&[500]).await;
    let mut config = config_with(&file);
    config.merchants[0].notification_url = Some(merchant.url.clone());
    // The retry would come long after the test: only a restart delivers it.
    config.limits.notification_first_retry = Duration::from_secs(600);
    config.limits.notification_window = Duration::from_secs(3600);
    let sandbox = Sandbox::start_with(config.clone()).await;
    let (_, _, id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    merchant.wait_for(1).await;
    // The refusal is recorded before the sandbox stops.
    Browser::signed_in(&sandbox)
        .await
        .timeline_until(&id, "HTTP 500 (not delivered)")
        .await;
    sandbox.server.shutdown().await.expect("stops");

    let again = Sandbox::start_with(config).await;
    let received = merchant.wait_for(2).await;
    let (first, second) = (received[0].json(), received[1].json());
    assert_eq!(second["paymentID"], id.as_str());
    assert_eq!(second["eventID"], first["eventID"], "the same event, owed");
    // Recorded as delivered: nothing more is owed.
    Browser::signed_in(&again)
        .await
        .timeline_until(&id, "HTTP 200 (delivered)")
        .await;
    assert_eq!(merchant.received().len(), 2, "delivered, then no more");
}

#[tokio::test]
async fn a_rotated_key_and_a_changed_profile_outlive_a_restart() {
    let file = data_file("profile");
    let sandbox = Sandbox::start_with(config_with(&file)).await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    let pairs = profile_form(&profile, &[("successUrl", "https://shop.example/thanks")]);
    assert_eq!(
        browser
            .post("/backoffice/profile", &borrowed(&pairs))
            .await
            .status,
        200
    );
    let rotated = browser
        .post("/backoffice/api-key", &[("csrf", &profile.form_token())])
        .await;
    let new_key = rotated.text("#new-key").concat();
    drop(browser);
    sandbox.server.shutdown().await.expect("stops");

    let again = Sandbox::start_with(config_with(&file)).await;
    again
        .create_with(Some(DEFAULT_API_KEY), &create_body())
        .await
        .assert_refused(403, "1166", "invalid API key");
    let created = again.create_with(Some(&new_key), &create_body()).await;
    assert_eq!(created.code(), "0");
    let token = created.payload()["paymentToken"]
        .as_str()
        .expect("a token")
        .to_owned();
    let paid = again
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(
        support::page_of(
            paid.payload()["userRedirect"]["href"]
                .as_str()
                .expect("href"),
            DEFAULT_SHOP_LOGIN
        ),
        "https://shop.example/thanks"
    );
}

#[tokio::test]
async fn a_file_another_sandbox_holds_stops_the_second_before_it_serves() {
    let file = data_file("held");
    let first = RunningServer::start(config_with(&file))
        .await
        .expect("starts");
    // The first sandbox has the file once it answers.
    let client = payconf_reference::http_client()
        .build()
        .expect("an HTTP client");
    client
        .get(
            first
                .base_url
                .join("/merchant/DEMO_SHOP/success")
                .expect("joins"),
        )
        .send()
        .await
        .expect("answered");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let refused = payconf_reference::Prepared::new(&listener, config_with(&file), false)
        .expect_err("held by the first");
    assert!(
        matches!(refused, ServeError::Data(DataError::Locked { .. })),
        "{refused}"
    );
    first.shutdown().await.expect("stops");
    payconf_reference::Prepared::new(&listener, config_with(&file), false)
        .expect("free once the first stopped");
}

/// A payment's money (its settlement and refunds) and the shop's
/// settlement mode are in the file: after a restart the refund that was
/// taken is still there, and what is left of the balance is all that can
/// be refunded.
#[tokio::test]
async fn a_payments_money_outlives_a_restart() {
    let file = data_file("money");
    let mut config = config_with(&file);
    config.merchants[0].settlement = payconf_reference::Settlement::Unified { delay_ms: 0 };
    let sandbox = Sandbox::start_with(config.clone()).await;
    let (_, _, id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let refund = |amount: &str| {
        serde_json::json!({"shopLogin": "DEMO_SHOP", "paymentID": id, "amount": amount, "currency": "EUR"})
            .to_string()
            .into_bytes()
    };
    let headers = [
        ("Content-Type", "application/json".to_owned()),
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    ];
    let first = sandbox
        .post_raw(
            "refundPayment",
            "/api/v1/payment/refund/",
            &headers,
            refund("4.00"),
        )
        .await;
    assert_eq!(
        first.payload()["transactionResult"],
        "OK",
        "{:#}",
        first.body
    );
    sandbox.server.shutdown().await.expect("stops");

    // The file's settlement mode is the one read back, not the configuration's.
    config.merchants[0].settlement = payconf_reference::Settlement::Separated;
    let again = Sandbox::start_with(config).await;
    let too_much = again
        .post_raw(
            "refundPayment",
            "/api/v1/payment/refund/",
            &headers,
            refund("6.01"),
        )
        .await;
    assert_eq!(
        too_much.payload()["transactionErrorCode"],
        "2014",
        "{:#}",
        too_much.body
    );
    let rest = again
        .post_raw(
            "refundPayment",
            "/api/v1/payment/refund/",
            &headers,
            refund("6.00"),
        )
        .await;
    assert_eq!(rest.payload()["transactionResult"], "OK", "{:#}", rest.body);
    let (_, _, later) = again.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let capture = again
        .post_raw(
            "capturePayment",
            "/api/v1/payment/capture/",
            &headers,
            serde_json::json!({"shopLogin": "DEMO_SHOP", "paymentID": later, "amount": "10.00", "currency": "EUR"})
                .to_string()
                .into_bytes(),
        )
        .await;
    assert_eq!(
        capture.payload()["transactionErrorCode"],
        "2019",
        "still unified: {:#}",
        capture.body
    );
    again.server.shutdown().await.expect("stops");
}

/// Every byte the data file leaves on disk (the database, its write-ahead
/// log and index), as one lossy text.
fn on_disk(file: &Path) -> String {
    let mut text = String::new();
    for suffix in ["", "-wal", "-shm"] {
        let path = PathBuf::from(format!("{}{suffix}", file.display()));
        if let Ok(bytes) = std::fs::read(&path) {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    text
}

/// `--data` held every secret in plain text, readable by all (0644): the
/// API keys (the rotated one "shown once" included) and the back-office
/// password. The file is its owner's alone now, and holds the key and the
/// password only as a digest and a hash; the key still works after a
/// restart, the signing secret still signs, and the profile page shows
/// neither whole.
#[tokio::test]
async fn the_data_file_keeps_no_key_or_password_anyone_could_use() {
    use std::os::unix::fs::PermissionsExt;
    let file = data_file("secrets");
    let sandbox = Sandbox::start_with(config_with(&file)).await;
    let browser = Browser::signed_in(&sandbox).await;
    let page = browser.get("/backoffice/profile").await;
    let rotated = browser
        .post("/backoffice/api-key", &[("csrf", &page.form_token())])
        .await;
    let new_key = rotated.text("#new-key").join("");
    assert!(new_key.starts_with("sk_sandbox_"), "{}", rotated.html);
    let profile = browser.get("/backoffice/profile").await;
    assert!(!profile.html.contains(&new_key), "the key is shown once");
    assert!(
        !profile
            .html
            .contains(payconf_reference::DEFAULT_SIGNING_SECRET),
        "the signing secret is never shown whole once saved"
    );
    sandbox.server.shutdown().await.expect("stops");

    let mode = std::fs::metadata(&file)
        .expect("there")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let disk = on_disk(&file);
    assert!(
        disk.contains("$pbkdf2-sha256$"),
        "the password's hash is kept"
    );
    for secret in [
        new_key.as_str(),
        DEFAULT_API_KEY,
        payconf_reference::DEFAULT_PASSWORD,
    ] {
        assert!(!disk.contains(secret), "{secret} is on disk");
    }

    let again = Sandbox::start_with(config_with(&file)).await;
    let answer = again.create_with(Some(&new_key), &create_body()).await;
    assert_eq!(
        answer.code(),
        "0",
        "the rotated key still works: {:#}",
        answer.body
    );
    again
        .create_with(Some(DEFAULT_API_KEY), &create_body())
        .await
        .assert_refused(403, "1166", "");
    Browser::signed_in(&again).await;
    again.server.shutdown().await.expect("stops");
}

/// A file others may read is refused, naming its mode; nothing is served
/// over it.
#[tokio::test]
async fn a_data_file_others_can_read_stops_the_sandbox_naming_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let file = data_file("exposed");
    let first = Sandbox::start_with(config_with(&file)).await;
    first.server.shutdown().await.expect("stops");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let refused = payconf_reference::Prepared::new(&listener, config_with(&file), false)
        .expect_err("exposed");
    let said = refused.to_string();
    assert!(
        said.contains("0644") && said.contains("chmod 600"),
        "{said}"
    );
    assert!(matches!(
        refused,
        ServeError::Data(DataError::Exposed { .. })
    ));
}

/// A file an older sandbox wrote holds its keys and passwords in plain
/// text (here: written into a file's profile row as it wrote them): read
/// back, they are digested and the row written again, so they are gone
/// from the disk, and they still work.
#[tokio::test]
async fn an_older_files_plain_keys_are_digested_when_it_is_read_back() {
    let file = data_file("legacy");
    let first = Sandbox::start_with(config_with(&file)).await;
    first.server.shutdown().await.expect("stops");
    rusqlite::Connection::open(&file)
        .and_then(|old| {
            old.execute(
                "UPDATE profiles SET api_key = 'legacy-key-0123456789', \
                 password = 'legacy-password-horse' WHERE shop_login = 'DEMO_SHOP'",
                [],
            )
        })
        .expect("a row as an older sandbox wrote it");
    let sandbox = Sandbox::start_with(config_with(&file)).await;
    let answer = sandbox
        .create_with(Some("legacy-key-0123456789"), &create_body())
        .await;
    assert_eq!(answer.code(), "0", "{:#}", answer.body);
    let page = support::back_office::sign_in(&sandbox, "DEMO_SHOP", "legacy-password-horse").await;
    assert_eq!(page.status, reqwest::StatusCode::SEE_OTHER, "{}", page.html);
    sandbox.server.shutdown().await.expect("stops");
    let disk = on_disk(&file);
    assert!(
        !disk.contains("legacy-key-0123456789"),
        "the plain key is gone"
    );
    assert!(
        !disk.contains("legacy-password-horse"),
        "the plain password is gone"
    );
}

/// What the detail tells of a paid payment is there after a restart: the
/// buyer the submit named, the card's company, each settled event's
/// `eventARN`; and the addresses its create gave (`responseURLs`).
#[tokio::test]
async fn a_payments_buyer_and_its_shops_addresses_outlive_a_restart() {
    let file = data_file("buyer");
    let mut config = config_with(&file);
    config.merchants[0].settlement = payconf_reference::Settlement::Unified { delay_ms: 0 };
    let sandbox = Sandbox::start_with(config.clone()).await;
    let mut body = support::create_body();
    body["responseURLs"] = serde_json::json!({"buyerKO": "https://shop.example/sorry"});
    let created = sandbox
        .create_with(Some(payconf_reference::DEFAULT_API_KEY), &body)
        .await;
    let token = created.payload()["paymentToken"]
        .as_str()
        .expect("a token")
        .to_owned();
    let id = created.payload()["paymentID"]
        .as_str()
        .expect("an ID")
        .to_owned();
    let waiting = sandbox
        .create_with(Some(payconf_reference::DEFAULT_API_KEY), &body)
        .await
        .payload()["paymentToken"]
        .as_str()
        .expect("a token")
        .to_owned();
    let answer = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    sandbox.server.shutdown().await.expect("stops");

    let again = Sandbox::start_with(config).await;
    let read = again
        .client
        .get(again.url(&format!("/api/v1/payment/detail/{id}")))
        .header(
            "Authorization",
            format!("apikey {}", payconf_reference::DEFAULT_API_KEY),
        )
        .send()
        .await
        .expect("detail is answered");
    let detail = support::read_answer("getPaymentDetail", read).await;
    let payload = detail.payload();
    assert_eq!(payload["buyer"]["name"], "Jane Doe", "{payload:#}");
    assert_eq!(payload["buyer"]["email"], "jane.doe@mail.example");
    assert_eq!(payload["company"], "VISA");
    assert_eq!(payload["cvvPresent"], "Y");
    let events = payload["events"].as_array().expect("events");
    let arn = |kind: &str| {
        events
            .iter()
            .map(|e| &e["event"])
            .find(|e| e["eventtype"] == kind)
            .and_then(|e| e["eventARN"].as_str())
            .unwrap_or_else(|| panic!("a {kind} with an eventARN: {payload:#}"))
            .to_owned()
    };
    assert_eq!(arn("AUT"), "");
    let settled = arn("MOV");
    assert!(
        settled.len() == 23 && settled.bytes().all(|b| b.is_ascii_digit()),
        "{settled}"
    );
    // The waiting payment's create's address, kept: a declined card goes there.
    let answer = again
        .submit_with(
            Some(&waiting),
            &submit_body(payconf_reference::DEFAULT_DECLINED_CARD),
        )
        .await;
    assert_eq!(
        answer.payload()["userRedirect"]["href"],
        format!("https://shop.example/sorry?a=DEMO_SHOP&b={waiting}").as_str()
    );
}
