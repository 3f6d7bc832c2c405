//! The merchant back-office over real sockets, read with an HTML parser:
//! sign-in and its session cookie, the guards on every change, the profile
//! and the API key, and the payments with their timelines.

use crate::support;

use payconf_reference::{
    BACK_OFFICE_PATH, CONFORMANCE_PREFIX, DEFAULT_API_KEY, DEFAULT_DECLINED_CARD,
    DEFAULT_FRICTIONLESS_CARD, DEFAULT_PASSWORD, DEFAULT_SHOP_LOGIN, DEFAULT_THREE_DS_CARD,
    ReferenceConfig,
};
use reqwest::StatusCode;
use support::{
    Sandbox,
    back_office::{Browser, anonymous, borrowed, profile_form, sign_in},
    create_body,
    merchant_server::MerchantServer,
};

#[tokio::test]
async fn sign_in_opens_an_http_only_same_site_session_and_a_wrong_one_says_nothing_more() {
    let sandbox = Sandbox::start().await;
    let unsigned = anonymous(&sandbox, &format!("{BACK_OFFICE_PATH}/payments")).await;
    assert_eq!(unsigned.status, StatusCode::SEE_OTHER);
    assert_eq!(unsigned.location.as_deref(), Some("/backoffice/sign-in"));

    let wrong_password = sign_in(&sandbox, DEFAULT_SHOP_LOGIN, "wrong").await;
    let wrong_login = sign_in(&sandbox, "NO_SUCH_SHOP", DEFAULT_PASSWORD).await;
    for refused in [&wrong_password, &wrong_login] {
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
        assert!(refused.set_cookie.is_none());
        assert_eq!(
            refused.text("[role=alert]"),
            ["The shop login or the password is wrong."]
        );
    }

    let opened = sign_in(&sandbox, DEFAULT_SHOP_LOGIN, DEFAULT_PASSWORD).await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER);
    let cookie = opened.set_cookie.expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/backoffice"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
}

#[tokio::test]
async fn repeated_failed_sign_ins_are_slowed() {
    let sandbox = Sandbox::start().await;
    for _ in 0..3 {
        assert_eq!(
            sign_in(&sandbox, DEFAULT_SHOP_LOGIN, "guess").await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    let slowed = sign_in(&sandbox, DEFAULT_SHOP_LOGIN, DEFAULT_PASSWORD).await;
    assert_eq!(slowed.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(slowed.set_cookie.is_none());
}

#[tokio::test]
async fn payments_are_listed_newest_first_filterable_with_masked_cards() {
    let sandbox = Sandbox::start().await;
    let (_, _, paid) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let (_, _, declined) = sandbox.pay_with(DEFAULT_DECLINED_CARD).await;
    let (_, _, waiting) = sandbox.pay_with(DEFAULT_THREE_DS_CARD).await;
    let browser = Browser::signed_in(&sandbox).await;

    let all = browser.get("/backoffice/payments").await;
    assert_eq!(all.status, StatusCode::OK);
    let ids = all.text("tbody tr td:nth-child(2)");
    assert_eq!(ids, [waiting, declined, paid.clone()], "newest first");
    let outcomes = all.text("tbody tr td:nth-child(7)");
    assert_eq!(
        outcomes,
        ["waiting for issuer authentication", "declined", "paid"]
    );
    assert_eq!(
        all.text("tbody tr td:nth-child(6)"),
        ["541238******4012", "400000******0002", "477571******2026"]
    );
    for number in [
        DEFAULT_FRICTIONLESS_CARD,
        DEFAULT_DECLINED_CARD,
        DEFAULT_THREE_DS_CARD,
        DEFAULT_API_KEY,
    ] {
        assert!(!all.html.contains(number), "{number} shown unmasked");
    }

    let only_paid = browser.get("/backoffice/payments?state=paid").await;
    assert_eq!(only_paid.text("tbody tr td:nth-child(2)"), [paid]);
    let unknown = browser.get("/backoffice/payments?state=lost").await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_payments_timeline_shows_its_submits_redirect_and_notification_attempts() {
    let merchant = MerchantServer::answering(&[500]).await;
    let mut config = ReferenceConfig::default();
    config.merchants[0].notification_url = Some(merchant.url.clone());
    config.limits.notification_first_retry = std::time::Duration::from_millis(20);
    let sandbox = Sandbox::start_with(config).await;
    let (_, token, id) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    // A second submit of the same token is refused, and shown.
    sandbox
        .submit_with(
            Some(&token),
            &support::submit_body(DEFAULT_FRICTIONLESS_CARD),
        )
        .await;
    merchant.wait_for(2).await;
    let browser = Browser::signed_in(&sandbox).await;
    // The second attempt's answer is recorded once the merchant answers it.
    let steps = browser.timeline_until(&id, "HTTP 200 (delivered)").await;
    let expected = [
        "created by payment/create.",
        "card 477571******2026 submitted by payment/submit: authorized (OK).",
        "the buyer was sent to",
        "a payment/submit was refused with error code",
        "attempt 1, posted to",
        "attempt 2, posted to",
    ];
    for (step, wanted) in expected.iter().enumerate() {
        assert!(
            steps.iter().any(|s| s.contains(wanted)),
            "step {step}, {wanted:?}, not in the timeline: {steps:#?}"
        );
    }
    assert!(
        steps.iter().any(|s| s.contains("HTTP 500 (not delivered)")),
        "{steps:#?}"
    );
    assert!(
        steps.iter().any(|s| s.contains("HTTP 200 (delivered)")),
        "{steps:#?}"
    );
    let other = browser.get("/backoffice/payments/1").await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

/// The test cards' page, behind the sign-in: every card of the table, the
/// same the documentation and the payment page show.
#[tokio::test]
async fn the_test_cards_page_lists_every_card_for_a_signed_in_merchant() {
    let sandbox = Sandbox::start().await;
    let anonymous = sandbox
        .client
        .get(sandbox.url("/backoffice/test-cards"))
        .send()
        .await
        .expect("answered");
    assert_eq!(anonymous.status(), StatusCode::SEE_OTHER);
    let browser = Browser::signed_in(&sandbox).await;
    let page = browser.get("/backoffice/test-cards").await;
    assert_eq!(page.status, StatusCode::OK);
    let cards = page.text("table.cards td code");
    for row in payconf_reference::test_cards::table(&payconf_reference::ReferenceConfig::default())
    {
        assert!(cards.contains(&row.number), "{} in {cards:?}", row.number);
    }
    assert!(page.text("nav a").iter().any(|a| a == "Test cards"));
}

#[tokio::test]
async fn a_change_without_the_form_token_or_from_another_site_is_refused() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    let changed = profile_form(&profile, &[("successUrl", "https://attacker.example/")]);
    let mut without_token = changed.clone();
    without_token.retain(|(n, _)| n != "csrf");
    let refused = browser
        .post("/backoffice/profile", &borrowed(&without_token))
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let cross_site = browser
        .post_from(
            "/backoffice/profile",
            &borrowed(&changed),
            Some("https://attacker.example"),
        )
        .await;
    assert_eq!(cross_site.status, StatusCode::FORBIDDEN);
    let after = browser.get("/backoffice/profile").await;
    assert_eq!(
        after.attr("input[name=successUrl]", "value"),
        profile.attr("input[name=successUrl]", "value"),
        "nothing changed"
    );
}

#[tokio::test]
async fn a_relative_address_is_refused_naming_the_field_and_the_profile_keeps_its_values() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    for (name, label, value) in [
        ("successUrl", "Success page", "shop.example/paid"),
        ("failureUrl", "Failure page", "/failed"),
        (
            "notificationUrl",
            "Notification address",
            "ftp://shop.example/n",
        ),
        ("signingSecret", "Notification signing secret", "short"),
    ] {
        let pairs = profile_form(
            &profile,
            &[
                ("successUrl", "https://shop.example/new-success"),
                (name, value),
            ],
        );
        let refused = browser.post("/backoffice/profile", &borrowed(&pairs)).await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{name}");
        let alert = refused.text("[role=alert]").join(" ");
        assert!(alert.starts_with(label), "{alert}");
        assert_eq!(
            refused
                .attr(&format!("input[name={name}]"), "aria-invalid")
                .as_deref(),
            Some("true")
        );
        let kept = browser.get("/backoffice/profile").await;
        assert_eq!(
            kept.attr("input[name=successUrl]", "value"),
            profile.attr("input[name=successUrl]", "value"),
            "{name}: the valid change beside it was not made either"
        );
    }
}

#[tokio::test]
async fn a_changed_success_page_is_where_the_next_paid_buyer_goes() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    let pairs = profile_form(&profile, &[("successUrl", "https://shop.example/thanks")]);
    let saved = browser.post("/backoffice/profile", &borrowed(&pairs)).await;
    assert_eq!(saved.status, StatusCode::OK);
    assert_eq!(saved.text("[role=status]"), ["The profile was saved."]);
    let (answer, token, _) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    // The page, with the service's parameters: the shop and the payment.
    assert_eq!(
        answer.payload()["userRedirect"]["href"],
        format!("https://shop.example/thanks?a={DEFAULT_SHOP_LOGIN}&b={token}").as_str()
    );
}

#[tokio::test]
async fn a_rotated_api_key_replaces_the_old_one_at_once_and_is_shown_only_once() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    assert!(!profile.html.contains(DEFAULT_API_KEY), "the key is masked");
    assert_eq!(profile.text("dd code"), ["••••••••-key"]);
    let rotated = browser
        .post("/backoffice/api-key", &[("csrf", &profile.form_token())])
        .await;
    assert_eq!(rotated.status, StatusCode::OK);
    let new_key = rotated.text("#new-key").concat();
    assert!(new_key.starts_with("sk_sandbox_"), "{new_key}");

    sandbox
        .create_with(Some(DEFAULT_API_KEY), &create_body())
        .await
        .assert_refused(403, "1166", "invalid API key");
    let created = sandbox.create_with(Some(&new_key), &create_body()).await;
    assert_eq!(created.code(), "0");

    let later = browser.get("/backoffice/profile").await;
    assert!(!later.html.contains(&new_key), "shown once, then masked");
    assert!(
        later
            .text("dd code")
            .concat()
            .ends_with(&new_key[new_key.len() - 4..])
    );
}

#[tokio::test]
async fn sign_out_ends_the_session() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let payments = browser.get("/backoffice/payments").await;
    let out = browser
        .post("/backoffice/sign-out", &[("csrf", &payments.form_token())])
        .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(
        out.set_cookie
            .expect("the cookie is cleared")
            .contains("Max-Age=0")
    );
    let after = browser.get("/backoffice/payments").await;
    assert_eq!(after.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn what_a_merchant_sent_is_shown_as_text_never_as_markup() {
    let sandbox = Sandbox::start().await;
    let hostile = "<img src=x onerror=alert(1)>";
    let created = sandbox
        .create_with(
            Some(DEFAULT_API_KEY),
            &support::with(create_body(), "/shopTransactionID", hostile.into()),
        )
        .await;
    assert_eq!(created.code(), "0");
    let id = created.payload()["paymentID"]
        .as_str()
        .expect("an ID")
        .to_owned();
    let browser = Browser::signed_in(&sandbox).await;
    for page in [
        browser.get("/backoffice/payments").await,
        browser.get(&format!("/backoffice/payments/{id}")).await,
    ] {
        assert!(!page.html.contains("<img"), "{}", page.html);
        assert!(page.text("img").is_empty());
        assert!(
            page.text("main").concat().contains(hostile),
            "shown as typed"
        );
    }
}

/// A shop that settles separately captures, cancels and refunds from a
/// payment's page: each button as the API's operation does, as a
/// back-office event (`BOF`), under the form token and from the
/// back-office's own origin only; what the payment does not allow is
/// refused with the real service's code, and nothing changes.
#[tokio::test]
async fn a_payments_page_captures_cancels_and_refunds_under_the_form_token() {
    let mut config = payconf_reference::ReferenceConfig::default();
    config.merchants[0].settlement = payconf_reference::Settlement::Separated;
    let sandbox = Sandbox::start_with(config).await;
    let browser = Browser::signed_in(&sandbox).await;
    let (_, _, captured) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let page = browser
        .get(&format!("/backoffice/payments/{captured}"))
        .await;
    assert_eq!(
        page.attr("form[action$='/capture'] input[name=amount]", "value")
            .as_deref(),
        Some("10.00"),
        "the capture button offers the authorised amount"
    );
    let token = page.form_token();
    let shown = version(&page);
    let capture = format!("/backoffice/payments/{captured}/capture");
    let forged = browser
        .post_from(
            &capture,
            &[("csrf", &token), ("version", &shown), ("amount", "10.00")],
            Some("https://attacker.example"),
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let too_much = browser
        .post(
            &capture,
            &[("csrf", &token), ("version", &shown), ("amount", "10.01")],
        )
        .await;
    assert_eq!(too_much.status, StatusCode::CONFLICT, "{}", too_much.html);
    assert!(too_much.html.contains("8014"), "{}", too_much.html);
    let done = browser
        .post(
            &capture,
            &[
                ("csrf", &token),
                ("version", &version(&too_much)),
                ("amount", "6.00"),
            ],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.html);
    assert!(
        done.text("[role=status]")
            .iter()
            .any(|t| t.contains("Captured 6.00")),
        "{}",
        done.html
    );
    assert!(
        done.attr("form[action$='/capture']", "action").is_none(),
        "captured once only"
    );
    assert_eq!(
        done.attr("form[action$='/refund'] input[name=amount]", "value")
            .as_deref(),
        Some("6.00"),
        "the refund button offers what was settled"
    );
    let refund = format!("/backoffice/payments/{captured}/refund");
    let refund_form = [
        ("csrf", token.clone()),
        ("version", version(&done)),
        ("amount", "2.50".to_owned()),
    ];
    let refund_form: Vec<(&str, &str)> =
        refund_form.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let refunded = browser.post(&refund, &refund_form).await;
    assert!(refunded.html.contains("Refunded 2.50"), "{}", refunded.html);
    // The same form sent again (a replay, a second click, the back
    // button) refunds nothing more.
    let replayed = browser.post(&refund, &refund_form).await;
    assert_eq!(replayed.status, StatusCode::CONFLICT, "{}", replayed.html);
    assert!(
        replayed.html.contains("changed since this form was shown"),
        "{}",
        replayed.html
    );
    assert_eq!(
        replayed.text(".money li code"),
        ["AUT", "MOV", "STO"],
        "refunded once: {}",
        replayed.html
    );
    let over = browser
        .post(
            &refund,
            &[
                ("csrf", &token),
                ("version", &version(&refunded)),
                ("amount", "3.51"),
            ],
        )
        .await;
    assert!(over.html.contains("2014"), "{}", over.html);
    let events = over.text(".money li code");
    assert_eq!(events, ["AUT", "MOV", "STO"], "{}", over.html);
    assert!(over.html.contains("(BOF)"), "{}", over.html);

    let (_, _, cancelled) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let cancel = format!("/backoffice/payments/{cancelled}/cancel");
    let without_token = browser.post(&cancel, &[]).await;
    assert_eq!(without_token.status, StatusCode::FORBIDDEN);
    let shown = version(
        &browser
            .get(&format!("/backoffice/payments/{cancelled}"))
            .await,
    );
    let done = browser
        .post(&cancel, &[("csrf", &token), ("version", &shown)])
        .await;
    assert!(
        done.html.contains("The payment was cancelled"),
        "{}",
        done.html
    );
    assert!(done.attr("form[action$='/refund']", "action").is_none());
    // Cancelled already, and no button left: a cancel at the money's
    // version as it now stands (its events, counted) is refused with the
    // service's code; the same form sent again, and a form without its
    // version, change nothing either.
    let now_at = done.text(".money li code").len().to_string();
    let again = browser
        .post(&cancel, &[("csrf", &token), ("version", &now_at)])
        .await;
    assert!(again.html.contains("2017"), "{}", again.html);
    let replayed = browser
        .post(&cancel, &[("csrf", &token), ("version", &shown)])
        .await;
    assert_eq!(replayed.status, StatusCode::CONFLICT, "{}", replayed.html);
    assert!(
        replayed.html.contains("changed since this form was shown"),
        "{}",
        replayed.html
    );
    let unversioned = browser.post(&cancel, &[("csrf", &token)]).await;
    assert_eq!(
        unversioned.status,
        StatusCode::CONFLICT,
        "{}",
        unversioned.html
    );
}

/// The money's version a payment's page shows its buttons at.
fn version(page: &support::back_office::Page) -> String {
    page.attr("form input[name=version]", "value")
        .unwrap_or_else(|| "no form".to_owned())
}

/// The profile's settlement mode is the shop's: switched to separated, its
/// next payment waits for a capture; a delay that is not a number of
/// seconds is refused, naming it, and nothing changes.
#[tokio::test]
async fn the_settlement_mode_is_changed_in_the_profile_for_the_next_payments() {
    let sandbox = Sandbox::start().await;
    let browser = Browser::signed_in(&sandbox).await;
    let profile = browser.get("/backoffice/profile").await;
    assert_eq!(
        profile
            .attr("select[name=settlement] option[selected]", "value")
            .as_deref(),
        Some("unified")
    );
    let mut form = profile_form(&profile, &[]);
    form.push(("settlement".to_owned(), "unified".to_owned()));
    form.push(("settlementDelaySecs".to_owned(), "soon".to_owned()));
    let refused = browser.post("/backoffice/profile", &borrowed(&form)).await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.html
    );
    assert!(
        refused.html.contains("Unified settlement delay"),
        "{}",
        refused.html
    );

    let mut form = profile_form(&profile, &[]);
    form.push(("settlement".to_owned(), "separated".to_owned()));
    form.push(("settlementDelaySecs".to_owned(), "30".to_owned()));
    let saved = browser.post("/backoffice/profile", &borrowed(&form)).await;
    assert_eq!(saved.status, StatusCode::OK, "{}", saved.html);
    assert_eq!(
        saved
            .attr("select[name=settlement] option[selected]", "value")
            .as_deref(),
        Some("separated")
    );
    let (_, _, paid) = sandbox.pay_with(DEFAULT_FRICTIONLESS_CARD).await;
    let page = browser.get(&format!("/backoffice/payments/{paid}")).await;
    assert!(
        page.attr("form[action$='/capture']", "action").is_some(),
        "{}",
        page.html
    );
}

/// Every page of the back-office says it is a sandbox in test mode, from
/// the sign-in page on: no payment there moves money.
#[tokio::test]
async fn every_back_office_page_says_it_is_in_test_mode() {
    let sandbox = Sandbox::start().await;
    let sign_in_page = anonymous(&sandbox, &format!("{BACK_OFFICE_PATH}/sign-in")).await;
    let browser = Browser::signed_in(&sandbox).await;
    let payments = browser.get(&format!("{BACK_OFFICE_PATH}/payments")).await;
    for page in [&sign_in_page, &payments] {
        let banner = page.text("#test-mode");
        assert_eq!(banner.len(), 1, "{banner:?}");
        assert!(banner[0].starts_with("Test mode: a sandbox."), "{banner:?}");
    }
}

/// The payments come a page of 50 at a time, newest first, with links to
/// the older and newer pages, and are found by payment ID or by part of
/// the shop transaction ID; a page or a search that cannot be is refused
/// with words, never an error page of the server.
#[tokio::test]
async fn the_payments_come_a_page_at_a_time_and_are_found_by_id_or_reference() {
    let sandbox = Sandbox::start().await;
    let mut ids = Vec::new();
    for n in 0..60 {
        let mut body = create_body();
        body["shopTransactionID"] = format!("order-{n:03}").into();
        let answer = sandbox.create_with(Some(DEFAULT_API_KEY), &body).await;
        assert_eq!(answer.code(), "0", "{:#}", answer.body);
        ids.push(
            answer.payload()["paymentID"]
                .as_str()
                .expect("an ID")
                .to_owned(),
        );
    }
    let browser = Browser::signed_in(&sandbox).await;
    let first = browser.get(&format!("{BACK_OFFICE_PATH}/payments")).await;
    let rows = first.text("tbody tr");
    assert_eq!(rows.len(), 50);
    assert!(rows[0].contains("order-059"), "newest first: {}", rows[0]);
    assert!(first.text("caption")[0].contains("Payments 1 to 50 of 60."));
    assert_eq!(first.text("a[rel=next]"), ["Older payments"]);
    assert!(first.text("a[rel=prev]").is_empty());
    let second = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments?page=2"))
        .await;
    let rows = second.text("tbody tr");
    assert_eq!(rows.len(), 10);
    assert!(rows[9].contains("order-000"), "{}", rows[9]);
    assert_eq!(second.text("a[rel=prev]"), ["Newer payments"]);

    let by_reference = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments?q=order-01"))
        .await;
    assert_eq!(
        by_reference.text("tbody tr").len(),
        10,
        "order-010 to order-019"
    );
    let by_id = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments?q={}", ids[7]))
        .await;
    let found = by_id.text("tbody tr");
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("order-007"), "{found:?}");
    let nothing = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments?q=no-such-order"))
        .await;
    assert!(nothing.text("tbody tr").is_empty());
    assert_eq!(nothing.status, StatusCode::OK);
    for refused in ["page=0", "page=abc", &format!("q={}", "x".repeat(65))] {
        let page = browser
            .get(&format!("{BACK_OFFICE_PATH}/payments?{refused}"))
            .await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{refused}");
        assert_eq!(page.text(".problem").len(), 1, "{refused}");
    }
}

/// The payments of payconf's conformance runs (their shop transaction IDs
/// begin `payconf-`) are told apart from the shop's own: a filter shows
/// either, or both.
#[tokio::test]
async fn conformance_runs_payments_are_told_apart_from_the_shops_own() {
    let sandbox = Sandbox::start().await;
    for reference in ["order-1", "order-2", &format!("{CONFORMANCE_PREFIX}a1b2")] {
        let mut body = create_body();
        body["shopTransactionID"] = reference.into();
        let answer = sandbox.create_with(Some(DEFAULT_API_KEY), &body).await;
        assert_eq!(answer.code(), "0", "{:#}", answer.body);
    }
    let browser = Browser::signed_in(&sandbox).await;
    let count = |source: &'static str| {
        let browser = &browser;
        async move {
            browser
                .get(&format!("{BACK_OFFICE_PATH}/payments?source={source}"))
                .await
                .text("tbody tr")
                .len()
        }
    };
    assert_eq!(count("").await, 3);
    assert_eq!(count("own").await, 2);
    assert_eq!(count("conformance").await, 1);
    let unknown = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments?source=theirs"))
        .await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
}
