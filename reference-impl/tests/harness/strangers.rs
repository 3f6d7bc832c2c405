//! What a stranger on the sandbox's network can do with its public pages,
//! attacked as issue 42 found: the demo checkout, the merchants' result
//! pages, payment IDs and framing. (The names it answers to, notifications
//! and where they may go: `shared_sandbox.rs`.)

use crate::support;

use payconf_reference::{
    BACK_OFFICE_PATH, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SIGNING_SECRET, DEFAULT_THREE_DS_CARD,
    DEMO_PATH, ISSUER_PATH,
    notification::{SIGNATURE_HEADER, verify},
};
use reqwest::StatusCode;
use serde_json::json;
use support::{Sandbox, back_office::Browser, merchant_server::MerchantServer, submit_body};

/// The payment token and ID a demo checkout page opens its lightbox with
/// (`axerve.lightBox.open("<id>", "<token>", …)`).
fn demo_payment(html: &str) -> (String, String) {
    let call = "axerve.lightBox.open(";
    let start = html.find(call).expect("the lightbox opened") + call.len();
    let mut values = html[start..].split('"').skip(1).step_by(2);
    let id = values.next().expect("the ID").to_owned();
    let token = values.next().expect("the token").to_owned();
    (token, id)
}

/// `/demo/checkout` made payments for the first configured merchant, with
/// no key and no limit, and handed strangers their tokens. Now its
/// payments are a demo shop's own: not in the merchant's list, never
/// posted to the merchant's server nor signed with its secret; amounts are
/// bounded and the pace is limited.
#[tokio::test]
async fn the_demo_checkout_is_a_demo_of_its_own_and_limited() {
    let sandbox = Sandbox::start().await;
    let demo = |query: &str| sandbox.url(&format!("{DEMO_PATH}{query}"));
    let (status, _, huge) = sandbox
        .get_page(demo("?amount=999999999.99").as_str())
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{huge}");

    let (status, _, page) = sandbox.get_page(demo("").as_str()).await;
    assert_eq!(status, StatusCode::OK);
    let (token, id) = demo_payment(&page);
    // A stranger with the demo's token names a receiver: what arrives is the
    // demo shop's, signed with a secret that is not the merchant's.
    let receiver = MerchantServer::start().await;
    let mut body = submit_body(DEFAULT_FRICTIONLESS_CARD);
    body["shopLogin"] = json!("SANDBOX_DEMO");
    body["responseURLs"] = json!({"serverNotificationURL": receiver.url.as_str()});
    let paid = sandbox.submit_with(Some(&token), &body).await;
    assert_eq!(paid.payload()["transactionResult"], "OK", "{:#}", paid.body);
    let received = receiver.wait_for(1).await;
    assert_eq!(received[0].json()["shopLogin"], "SANDBOX_DEMO");
    assert!(!verify(
        DEFAULT_SIGNING_SECRET,
        received[0].header(SIGNATURE_HEADER),
        &received[0].body
    ));

    // The merchant's own list holds none of the demo's payments.
    let browser = Browser::signed_in(&sandbox).await;
    let list = browser.get(&format!("{BACK_OFFICE_PATH}/payments")).await;
    assert!(!list.html.contains(&id), "{}", list.html);
    let other = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments/{id}"))
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);

    // A burst, then the pace: 429 saying when to come back.
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..25 {
        let response = sandbox.client.get(demo("")).send().await.expect("answered");
        statuses.push(response.status().as_u16());
        if let Some(value) = response.headers().get("retry-after") {
            retry_after = Some(value.to_str().expect("ascii").to_owned());
        }
    }
    let created = statuses.iter().filter(|s| **s == 200).count();
    assert!((19..=21).contains(&created), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429));
    assert_eq!(retry_after.as_deref(), Some("1"));
}

/// `/merchant/{shop}/success` told which shop logins exist while sign-in
/// hides it: the page is now the same whichever login it names, and an
/// address that cannot name a shop is a 404 page (HTML, as the spec
/// declares for a buyer's page) that names nothing it was given.
#[tokio::test]
async fn a_merchant_page_tells_nothing_of_which_shops_exist() {
    let sandbox = Sandbox::start().await;
    let known = sandbox
        .get_page(sandbox.url("/merchant/DEMO_SHOP/success").as_str())
        .await;
    let unknown = sandbox
        .get_page(sandbox.url("/merchant/NOPE/success").as_str())
        .await;
    assert_eq!(known.0, StatusCode::OK);
    assert_eq!((known.0, &known.2), (unknown.0, &unknown.2));
    let failure = sandbox
        .get_page(sandbox.url("/merchant/NOPE/failure").as_str())
        .await;
    assert_eq!(failure.0, StatusCode::OK);
    let odd = sandbox
        .get_page(sandbox.url("/merchant/%3Cb%3E/success").as_str())
        .await;
    let other_odd = sandbox
        .get_page(sandbox.url("/merchant/%C2%B7%14%22/failure").as_str())
        .await;
    assert_eq!(odd.0, StatusCode::NOT_FOUND);
    assert_eq!((odd.0, &odd.2), (other_odd.0, &other_odd.2));
    for (_, headers, body) in [&odd, &other_odd] {
        assert_eq!(
            headers.get("content-type").and_then(|v| v.to_str().ok()),
            Some("text/html; charset=utf-8"),
            "the spec declares the merchant page's 404 as an HTML page"
        );
        assert!(!body.contains("&lt;b&gt;") && !body.contains("<b>"));
    }
}

/// Payment IDs counted up across shops: one shop's IDs told how many
/// payments the others made. They are random now, in the real service's
/// shape (twelve digits; the real service's are 10 to 12).
#[tokio::test]
async fn payment_ids_are_random_in_the_real_services_shape() {
    let sandbox = Sandbox::start().await;
    let mut ids = Vec::new();
    for _ in 0..40 {
        let (_, id) = sandbox.create().await;
        assert_eq!(id.len(), 12, "{id}");
        ids.push(id.parse::<u64>().expect("digits"));
    }
    let next_to_each_other = ids
        .windows(2)
        .filter(|w| w[1].abs_diff(w[0]) < 1000)
        .count();
    assert!(next_to_each_other < 3, "{ids:?}");
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "no ID twice");
}

/// The issuer's page, the demo checkout and the result pages sent no
/// `frame-ancestors`: any site could show them in a frame of its own
/// (clickjacking the buyer's code or a shop's result). Every page says now
/// who may frame it.
#[tokio::test]
async fn every_page_says_who_may_frame_it() {
    let sandbox = Sandbox::start().await;
    let (answer, token, _) = sandbox.pay_with(DEFAULT_THREE_DS_CARD).await;
    let issuer = answer.payload()["userRedirect"]["href"]
        .as_str()
        .expect("the issuer's address")
        .to_owned();
    assert!(issuer.contains(ISSUER_PATH), "{issuer}");
    let pages = [
        issuer,
        sandbox.url(DEMO_PATH).to_string(),
        sandbox.url("/merchant/DEMO_SHOP/success").to_string(),
        sandbox.url("/merchant/DEMO_SHOP/failure").to_string(),
        sandbox
            .url(&format!("{BACK_OFFICE_PATH}/sign-in"))
            .to_string(),
        sandbox
            .url(&format!("{ISSUER_PATH}?a=DEMO_SHOP&b=nope"))
            .to_string(),
        sandbox
            .url(&format!(
                "{}?a=DEMO_SHOP&b={token}",
                payconf_reference::PAGE_PATH
            ))
            .to_string(),
    ];
    for page in pages {
        let (_, headers, _) = sandbox.get_page(&page).await;
        let policy = headers
            .get("content-security-policy")
            .map(|p| p.to_str().expect("ascii").to_owned())
            .unwrap_or_default();
        assert!(policy.contains("frame-ancestors"), "{page}: {policy:?}");
        assert!(!policy.contains("frame-ancestors *"), "{page}: {policy:?}");
    }
}
