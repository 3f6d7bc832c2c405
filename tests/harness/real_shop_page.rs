//! A shop's checkout page written as shops write it for the real service,
//! its script's host replaced by the sandbox's and nothing else, paying in
//! headless Chromium: `axerve.lightBox.shop`, then
//! `axerve.lightBox.open(paymentID, paymentToken, callback)` and the
//! callback's `response.status === "OK"` (`../shared/contract/
//! real-service-frontend.md` §2). The card not enrolled and the card through
//! the 3-D Secure challenge each reach the callback with `OK`; without a
//! callback the buyer arrives at `responseURL`; at a 400 px wide screen the
//! page opens in a window, whose result reaches the shop's page; an empty
//! token is error 1134 in the callback, with nothing opened.

use std::time::Duration;

use fantoccini::{Client, Locator};
use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_ISSUER_CODE, DEFAULT_SHOP_LOGIN,
    DEFAULT_THREE_DS_CARD, ReferenceConfig, RunningServer,
};
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate, matchers::any};

use crate::support::runner::{browser_or_skip, start_chromium};

/// The real service's test host, as a shop's page names it.
const REAL_HOST: &str = "https://sandbox.gestpay.net";

/// The shop's checkout page, as a shop writes it for the real service: the
/// payment's ID and token come from its server (here, the address), the
/// callback is the shop's (`mode=redirect`: none, the script sends the
/// buyer to `responseURL`).
const SHOP_PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>My shop: checkout</title>
<script type="text/javascript" src="https://sandbox.gestpay.net/pagam/javascript/axerve.js"></script>
</head>
<body>
<h1>Checkout</h1>
<p>Basket: 10.00 EUR</p>
<button type="button" id="pay">Pay now</button>
<p id="outcome"></p>
<script type="text/javascript">
  var params = new URLSearchParams(window.location.search);
  axerve.lightBox.shop = 'DEMO_SHOP';
  axerve.debug = true;
  document.getElementById('pay').addEventListener('click', function () {
    var callback = function (response) {
      window.shopResponse = response;
      if (response.status === "OK") {
        document.getElementById('outcome').innerHTML = 'Thank you for your order';
      } else {
        document.getElementById('outcome').innerHTML = 'The payment failed';
      }
    };
    axerve.lightBox.open(params.get('id'), params.get('token'),
      params.get('mode') === 'redirect' ? undefined : callback);
  });
</script>
</body>
</html>
"#;

/// Serves the shop's page with the sandbox's host in place of the real one.
struct ShopPage {
    sandbox: String,
}

impl Respond for ShopPage {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_raw(
            SHOP_PAGE.replace(REAL_HOST, &self.sandbox),
            "text/html; charset=utf-8",
        )
    }
}

/// The sandbox, its base address, and the shop's page server in front of it.
async fn sandbox_and_shop() -> (RunningServer, String, MockServer) {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("the sandbox");
    let base = server.base_url.as_str().trim_end_matches('/').to_owned();
    let shop = MockServer::start().await;
    Mock::given(any())
        .respond_with(ShopPage {
            sandbox: base.clone(),
        })
        .mount(&shop)
        .await;
    (server, base, shop)
}

/// A payment the shop's server creates: its token and ID.
async fn create(base: &str) -> (String, String) {
    let created: Value = payconf_reference::http_client()
        .build()
        .expect("an HTTP client")
        .post(format!("{base}/api/v1/payment/create/"))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .json(&json!({"shopLogin": DEFAULT_SHOP_LOGIN, "amount": "10.00", "currency": "EUR", "shopTransactionID": "order-real-shop"}))
        .send()
        .await
        .expect("created")
        .json()
        .await
        .expect("JSON");
    let text = |field: &str| {
        created["payload"][field]
            .as_str()
            .unwrap_or_else(|| panic!("{field} in {created}"))
            .to_owned()
    };
    (text("paymentToken"), text("paymentID"))
}

async fn fill(client: &Client, css: &str, text: &str) {
    let field = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("a field {css}"));
    field.clear().await.expect("cleared");
    field.send_keys(text).await.expect("typed");
}

async fn click(client: &Client, css: &str) {
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("a control {css}"))
        .click()
        .await
        .expect("clicked");
}

/// The card form of the sandbox's page, filled with `number` and sent.
async fn pay_with(client: &Client, number: &str) {
    fill(client, "#cardNumber", number).await;
    fill(client, "#expMonth", "12").await;
    fill(client, "#expYear", "99").await;
    fill(client, "#cvv", "123").await;
    fill(client, "#holder", "Ada Buyer").await;
    fill(client, "#email", "ada@example.com").await;
    click(client, "#card button[value=card]").await;
}

/// Into the lightbox's frame, once the script has laid the overlay.
async fn into_the_lightbox(client: &Client) {
    let frame = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#axerve_lightBox iframe[allow=payment]"))
        .await
        .expect("the overlay and its frame");
    frame.enter_frame().await.expect("into the frame");
}

/// Back to the shop's page, out of the frame (which the result removes).
async fn to_the_shop_page(client: &Client) {
    let window = client.window().await.expect("the window");
    client
        .switch_to_window(window)
        .await
        .expect("back to the shop's page");
}

/// What the shop's callback got, once it got it (20 s at most), on the
/// shop's page.
async fn shop_response(client: &Client) -> Value {
    for _ in 0..200 {
        if let Ok(response) = client
            .execute("return window.shopResponse || null;", Vec::new())
            .await
            && !response.is_null()
        {
            return response;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the shop's callback was never called: {}",
        client.source().await.unwrap_or_default()
    );
}

/// The shop's success address, with the service's `a` and `b`.
fn success(base: &str, token: &str) -> String {
    format!("{base}/merchant/{DEFAULT_SHOP_LOGIN}/success?a={DEFAULT_SHOP_LOGIN}&b={token}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shop_page_written_for_the_real_service_pays_on_the_sandbox_in_chromium() {
    if !browser_or_skip("a_shop_page_written_for_the_real_service_pays_on_the_sandbox_in_chromium")
    {
        return;
    }
    let (server, base, shop) = sandbox_and_shop().await;
    let checkout = |token: &str, id: &str, mode: &str| {
        format!("{}/checkout?token={token}&id={id}&mode={mode}", shop.uri())
    };
    let chromium = start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let client = turn.client;
    client
        .set_window_size(1280, 900)
        .await
        .expect("a desktop window");

    // The card not enrolled: the callback's status is "OK".
    let (token, id) = create(&base).await;
    client
        .goto(&checkout(&token, &id, "callback"))
        .await
        .expect("the shop's page opens");
    click(client, "#pay").await;
    into_the_lightbox(client).await;
    pay_with(client, DEFAULT_FRICTIONLESS_CARD).await;
    to_the_shop_page(client).await;
    let response = shop_response(client).await;
    assert_eq!(response["status"], "OK", "{response}");
    assert_eq!(response["paymentID"], id.as_str(), "{response}");
    assert_eq!(
        response["responseURL"],
        success(&base, &token),
        "{response}"
    );
    let overlays = client
        .find_all(Locator::Css("#axerve_lightBox"))
        .await
        .expect("the page");
    assert!(overlays.is_empty(), "the overlay closed with the result");

    // The enrolled card, through the issuer's challenge in the frame.
    let (token, id) = create(&base).await;
    client
        .goto(&checkout(&token, &id, "callback"))
        .await
        .expect("the shop's page opens");
    click(client, "#pay").await;
    into_the_lightbox(client).await;
    pay_with(client, DEFAULT_THREE_DS_CARD).await;
    fill(client, "input[name=otp]", DEFAULT_ISSUER_CODE).await;
    click(client, "#authenticate button[value=authenticate]").await;
    to_the_shop_page(client).await;
    let response = shop_response(client).await;
    assert_eq!(response["status"], "OK", "{response}");
    assert_eq!(
        response["responseURL"],
        success(&base, &token),
        "{response}"
    );

    // No callback: the script sends the buyer to responseURL.
    let (token, id) = create(&base).await;
    client
        .goto(&checkout(&token, &id, "redirect"))
        .await
        .expect("the shop's page opens");
    click(client, "#pay").await;
    into_the_lightbox(client).await;
    pay_with(client, DEFAULT_FRICTIONLESS_CARD).await;
    to_the_shop_page(client).await;
    let arrived = url::Url::parse(&success(&base, &token)).expect("a URL");
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_url(&arrived)
        .await
        .unwrap_or_else(|_| panic!("the buyer never arrived at {arrived}"));

    // An empty token: error 1134 in the callback, nothing opened.
    client
        .goto(&checkout("", "", "callback"))
        .await
        .expect("the shop's page opens");
    click(client, "#pay").await;
    let response = shop_response(client).await;
    assert_eq!(response["error"]["code"], "1134", "{response}");
    assert_eq!(
        response["error"]["description"],
        "Not accepted call: empty parameter paymentToken"
    );
    assert!(response["payLoad"].is_null(), "{response}");
    assert!(
        client
            .find_all(Locator::Css("#axerve_lightBox"))
            .await
            .expect("the page")
            .is_empty()
    );

    // A 400 px wide screen: the page opens in a window of its own, and its
    // result reaches the shop's page.
    turn.cdp(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 400, "height": 800, "screenWidth": 400, "screenHeight": 800,
               "deviceScaleFactor": 1, "mobile": false}),
    )
    .await
    .expect("a phone's screen");
    let (token, id) = create(&base).await;
    client
        .goto(&checkout(&token, &id, "callback"))
        .await
        .expect("the shop's page opens");
    let width = client
        .execute("return window.screen.width;", Vec::new())
        .await
        .expect("the screen's width");
    assert!(
        width.as_u64().is_some_and(|w| w < 500),
        "a narrow screen: {width}"
    );
    let shop_window = client.window().await.expect("the shop's window");
    click(client, "#pay").await;
    let mut opened = None;
    for _ in 0..200 {
        let windows = client.windows().await.expect("the windows");
        if let Some(other) = windows.into_iter().find(|w| *w != shop_window) {
            opened = Some(other);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let opened = opened.expect("the payment page in a window of its own");
    assert!(
        client
            .find_all(Locator::Css("#axerve_lightBox"))
            .await
            .expect("the page")
            .is_empty(),
        "no overlay on a phone"
    );
    client
        .switch_to_window(opened)
        .await
        .expect("into the payment's window");
    let address = client.current_url().await.expect("its address");
    assert_eq!(address.path(), payconf_reference::FRAMED_PATH, "{address}");
    pay_with(client, DEFAULT_FRICTIONLESS_CARD).await;
    client
        .switch_to_window(shop_window.clone())
        .await
        .expect("back to the shop's window");
    let response = shop_response(client).await;
    assert_eq!(response["status"], "OK", "{response}");
    assert_eq!(response["paymentID"], id.as_str(), "{response}");
    let mut windows = Vec::new();
    for _ in 0..100 {
        windows = client.windows().await.expect("the windows");
        if windows.len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(windows, [shop_window], "the payment's window closed itself");
    drop(turn);
    chromium.close().await;
    let _ = server.shutdown().await;
}

/// The open overlay, as the shop's page has it: how many, and the mark the
/// test put on the first one (empty on another).
async fn overlays(client: &Client) -> Value {
    client
        .execute(
            "var open = document.querySelectorAll('#axerve_lightBox'); \
             return [open.length, open.length ? (open[0].dataset.first || '') : ''];",
            Vec::new(),
        )
        .await
        .expect("the page")
}

/// Opens the lightbox again from the shop's page while it is open, and
/// waits for the question it asks: its words.
async fn open_again(client: &Client) -> String {
    client
        .execute(
            "var open = document.getElementById('axerve_lightBox'); \
             if (open && !open.dataset.first) { open.dataset.first = 'yes'; } \
             setTimeout(function () { document.getElementById('pay').click(); }, 0); \
             return null;",
            Vec::new(),
        )
        .await
        .expect("the second open");
    for _ in 0..200 {
        if let Ok(text) = client.get_alert_text().await {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("opening again while a payment is open asked the buyer nothing");
}

/// Opening a payment while one is open asks the buyer first (the real
/// script's `confirm`): refused, the open payment stays; accepted, a new
/// overlay takes its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_open_asks_the_buyer_before_dropping_the_open_payment() {
    if !browser_or_skip("a_second_open_asks_the_buyer_before_dropping_the_open_payment") {
        return;
    }
    let (server, base, shop) = sandbox_and_shop().await;
    let chromium = start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let client = turn.client;
    client
        .set_window_size(1280, 900)
        .await
        .expect("a desktop window");
    let (token, id) = create(&base).await;
    client
        .goto(&format!(
            "{}/checkout?token={token}&id={id}&mode=callback",
            shop.uri()
        ))
        .await
        .expect("the shop's page opens");
    click(client, "#pay").await;
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#axerve_lightBox"))
        .await
        .expect("the overlay");
    let asked = open_again(client).await;
    assert!(asked.contains("abort"), "{asked}");
    client.dismiss_alert().await.expect("refused");
    assert_eq!(
        overlays(client).await,
        json!([1, "yes"]),
        "the open payment stays"
    );
    open_again(client).await;
    client.accept_alert().await.expect("accepted");
    let mut now = Value::Null;
    for _ in 0..100 {
        now = overlays(client).await;
        if now == json!([1, ""]) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(now, json!([1, ""]), "a new overlay in the open one's place");
    drop(turn);
    chromium.close().await;
    let _ = server.shutdown().await;
}
