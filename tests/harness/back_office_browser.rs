//! The back-office as a merchant uses it, in Chromium: sign in, change the
//! success page, pay with a test card on the sandbox's payment page, find
//! the payment with its masked card and its timeline, and the notification
//! with its attempts (the merchant's server refuses the first), its
//! notification's page and the button that sends it again. Every page
//! passes axe-core with no serious or critical violation, and no page shows
//! the API key or a card number unmasked. Screenshots of each page are left
//! in `target/back-office-screens/`.

use std::{path::PathBuf, time::Duration};

use fantoccini::{Client, Locator};
use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_PASSWORD, DEFAULT_SHOP_LOGIN,
    ReferenceConfig, RunningServer,
};
use serde_json::{Value, json};

use crate::support::{merchant::MerchantServer, runner::start_chromium};

/// axe-core's script, as `.ci/install-axe` puts it (or `PAYCONF_AXE_JS`).
fn axe_script(test: &str) -> Option<String> {
    let path = std::env::var_os("PAYCONF_AXE_JS").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/axe/node_modules/axe-core/axe.min.js")
        },
        PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(script) => Some(script),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!(
                "{test}: CI must check accessibility, but {}: {why}",
                path.display()
            )
        }
        Err(why) => {
            eprintln!(
                "skipped {test}: axe-core is not at {} ({why}); run .ci/install-axe",
                path.display()
            );
            None
        }
    }
}

/// The page the browser shows: checked with axe-core, searched for
/// secrets, and photographed as `name`.
async fn check_page(client: &Client, axe: &str, name: &str) -> String {
    let html = client.source().await.expect("the page's source");
    for secret in [
        DEFAULT_API_KEY,
        DEFAULT_FRICTIONLESS_CARD,
        "4775 7188 0000 2026",
    ] {
        assert!(!html.contains(secret), "{name} shows {secret} unmasked");
    }
    check_accessible(client, axe, name).await;
    html
}

/// The page the browser shows: checked with axe-core and photographed as
/// `name`.
async fn check_accessible(client: &Client, axe: &str, name: &str) {
    client
        .execute(&format!("{axe}\nreturn true;"), Vec::new())
        .await
        .expect("axe-core loads");
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, {resultTypes: ['violations']})
               .then(r => done(JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))))
               .catch(e => done(JSON.stringify({error: String(e)})));",
            Vec::new(),
        )
        .await
        .expect("axe-core runs");
    let violations: Value =
        serde_json::from_str(found.as_str().expect("a JSON text")).expect("axe's answer");
    assert!(violations.is_array(), "{name}: axe failed: {violations}");
    let serious: Vec<&Value> = violations
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .collect();
    assert!(serious.is_empty(), "{name}: {serious:#?}");
    let png = client.screenshot().await.expect("a screenshot");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/back-office-screens");
    std::fs::create_dir_all(&dir).expect("a folder for the screenshots");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("the screenshot is kept");
}

async fn fill(client: &Client, css: &str, text: &str) {
    let field = client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("a field {css}"));
    field.clear().await.expect("cleared");
    field.send_keys(text).await.expect("typed");
}

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("a control {css}"))
        .click()
        .await
        .expect("clicked");
}

/// Presses `css`, whose answer is the same address again, and waits (at
/// most 20 s) until the page it was pressed on has been replaced: what is
/// read next is the answer's page, never the one before it. The page
/// pressed on is marked by a script; the answer's page has no mark.
async fn press_for_the_same_page(client: &Client, css: &str) {
    client
        .execute("window.pressedHere = true; return null;", Vec::new())
        .await
        .expect("the page pressed on, marked");
    click(client, css).await;
    let mut last = String::new();
    for _ in 0..200 {
        // While the answer loads, the driver may fail to run the script:
        // asked again until the answer's page is there.
        match client
            .execute("return window.pressedHere === true;", Vec::new())
            .await
        {
            Ok(Value::Bool(false)) => return,
            Ok(other) => last = format!("still the page pressed on ({other})"),
            Err(error) => last = error.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("pressing {css} never replaced the page: {last}");
}

/// Waits (at most 20 s, the machine may be busy) for the page a click or
/// a form led to: the element `css`, which the page before it lacks.
async fn arrived(client: &Client, css: &str) {
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("the next page, with {css}, never came"));
}

/// The texts of the elements `css`, as the page shows them, read by one
/// script: all of them from one page, even when a form's answer replaces
/// it meanwhile (the driver then may fail to run it: run again, at most
/// 20 times).
async fn texts(client: &Client, css: &str) -> Vec<String> {
    let mut last = String::new();
    for _ in 0..20 {
        match client
            .execute(
                "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText);",
                vec![json!(css)],
            )
            .await
        {
            Ok(read) => {
                return serde_json::from_value(read)
                    .unwrap_or_else(|error| panic!("the texts of {css}: {error}"));
            }
            Err(error) => last = error.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the texts of {css} could not be read: {last}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the back-office in the browser, with axe"]
async fn a_merchant_signs_in_changes_the_success_page_and_follows_a_payment_and_its_notification() {
    const TEST: &str =
        "a_merchant_signs_in_changes_the_success_page_and_follows_a_payment_and_its_notification";
    if !crate::support::runner::browser_or_skip(TEST) {
        return;
    }
    let Some(axe) = axe_script(TEST) else {
        return;
    };
    let merchant = MerchantServer::refusing_once().await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].notification_url = Some(merchant.url.parse().expect("a URL"));
    config.limits.notification_first_retry = Duration::from_millis(300);
    let server = RunningServer::start(config).await.expect("the sandbox");
    let base = server.base_url.as_str().trim_end_matches('/').to_owned();
    let chromium = start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let client = turn.client;
    client
        .set_window_size(1280, 900)
        .await
        .expect("a desktop window");

    // Signed out, the back-office asks for the shop's sign-in.
    client
        .goto(&format!("{base}/backoffice/"))
        .await
        .expect("opens");
    check_page(client, &axe, "1-sign-in").await;
    fill(client, "#shopLogin", DEFAULT_SHOP_LOGIN).await;
    fill(client, "#password", DEFAULT_PASSWORD).await;
    click(client, "button[type=submit]").await;
    arrived(client, "nav").await;
    let after = client.current_url().await.expect("a page");
    assert!(
        after.path().ends_with("/backoffice/payments"),
        "{after}: {}",
        client.source().await.unwrap_or_default()
    );
    check_page(client, &axe, "2-payments-empty").await;

    // The success page, changed in the profile.
    click(client, "nav a[href$='/profile']").await;
    arrived(client, "#successUrl").await;
    let thanks = format!("{base}/merchant/{DEFAULT_SHOP_LOGIN}/success?order=changed");
    fill(client, "#successUrl", &thanks).await;
    click(client, "form[action$='/profile'] button[type=submit]").await;
    arrived(client, "[role=status]").await;
    assert_eq!(
        texts(client, "[role=status]").await,
        ["The profile was saved."]
    );
    let profile = check_page(client, &axe, "3-profile-saved").await;
    assert!(profile.contains("••••••••-key"), "the key, masked");

    // The test cards' page: published numbers, the one page that shows
    // them whole; accessible like the others.
    click(client, "nav a[href$='/test-cards']").await;
    arrived(client, "table.cards").await;
    check_accessible(client, &axe, "3-test-cards").await;

    // The merchant's server creates a payment; the buyer pays on the
    // sandbox's payment page with a test card.
    let created: Value = payconf_reference::http_client().build().expect("an HTTP client")
        .post(format!("{base}/api/v1/payment/create/"))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .json(&json!({"shopLogin": DEFAULT_SHOP_LOGIN, "amount": "42.50", "currency": "EUR", "shopTransactionID": "order-browser-1"}))
        .send()
        .await
        .expect("created")
        .json()
        .await
        .expect("JSON");
    let (token, id) = (
        created["payload"]["paymentToken"]
            .as_str()
            .expect("a token"),
        created["payload"]["paymentID"].as_str().expect("an ID"),
    );
    client
        .goto(&format!(
            "{base}/pagam/pagam.aspx?a={DEFAULT_SHOP_LOGIN}&b={token}"
        ))
        .await
        .expect("the payment page opens");
    fill(client, "#cardNumber", "4775 7188 0000 2026").await;
    fill(client, "#expMonth", "12").await;
    fill(client, "#expYear", "99").await;
    fill(client, "#cvv", "123").await;
    fill(client, "#holder", "Ada Buyer").await;
    fill(client, "#email", "ada@example.com").await;
    click(client, "button[name=method][value=card]").await;
    // The changed page, with the service's parameters: the shop and the
    // payment's token, after the page's own.
    let mut thanks_url = url::Url::parse(&thanks).expect("a URL");
    thanks_url
        .query_pairs_mut()
        .append_pair("a", DEFAULT_SHOP_LOGIN)
        .append_pair("b", token);
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_url(&thanks_url)
        .await
        .unwrap_or_else(|_| panic!("the buyer never reached the changed success page {thanks}"));

    // The payment in the back-office, its card masked.
    client
        .goto(&format!("{base}/backoffice/payments"))
        .await
        .expect("opens");
    arrived(client, "tbody tr").await;
    assert_eq!(texts(client, "tbody tr td:nth-child(2)").await, [id]);
    assert_eq!(
        texts(client, "tbody tr td:nth-child(6)").await,
        ["477571******2026"]
    );
    assert_eq!(
        texts(client, "tbody tr td:nth-child(7)").await,
        ["paid on the payment page"]
    );
    check_page(client, &axe, "4-payments").await;

    // Its timeline, with the notification's two attempts: refused, taken.
    click(client, &format!("tbody a[href$='/payments/{id}']")).await;
    arrived(client, "ol.timeline").await;
    let mut steps = Vec::new();
    for _ in 0..100 {
        steps = texts(client, "ol.timeline li").await;
        if steps.iter().any(|s| s.contains("HTTP 200 (delivered)")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        client.refresh().await.expect("reloaded");
        arrived(client, "ol.timeline").await;
    }
    for wanted in [
        "created by payment/create.",
        "card 477571******2026 entered on the payment page: authorized (OK).",
        "the buyer was sent to",
        "attempt 1, posted to",
        "HTTP 500 (not delivered)",
        "attempt 2, posted to",
        "HTTP 200 (delivered)",
    ] {
        assert!(
            steps.iter().any(|s| s.contains(wanted)),
            "{wanted:?} not in the timeline: {steps:#?}"
        );
    }
    check_page(client, &axe, "5-payment-timeline").await;
    assert_eq!(merchant.taken().into_iter().collect::<Vec<_>>(), [id]);

    // The notification's own page, its attempts and a button that sends it
    // again: pressed, the third attempt comes.
    click(client, "ol.timeline a[href*='/notifications/']").await;
    arrived(client, "form[action$='/resend']").await;
    check_page(client, &axe, "6-notification").await;
    press_for_the_same_page(client, "form[action$='/resend'] button").await;
    for _ in 0..100 {
        steps = texts(client, "ol.timeline li").await;
        if steps
            .iter()
            .any(|s| s.contains("attempt 3") && s.contains("(delivered)"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        client.refresh().await.expect("reloaded");
        arrived(client, "ol.timeline").await;
    }
    assert!(
        steps
            .iter()
            .any(|s| s.contains("sent again from the back-office")),
        "{steps:#?}"
    );
    assert!(
        steps
            .iter()
            .any(|s| s.contains("attempt 3") && s.contains("(delivered)")),
        "{steps:#?}"
    );
    check_page(client, &axe, "7-notification-sent-again").await;

    drop(turn);
    chromium.close().await;
    server.shutdown().await.expect("stops");
}
