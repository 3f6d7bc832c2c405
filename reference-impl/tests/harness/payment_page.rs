//! The standard payment page over real sockets: paying by card with and
//! without 3-D Secure, a declined card, the card form refused field by
//! field, the alternative method approved and declined, one payment process
//! per transaction (the page and `payment/submit`, two presses at once),
//! and the lightbox's result page (no card data in the log: `payment_page_log.rs`).

use crate::support;

use std::sync::Arc;

use payconf_reference::{
    DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_ISSUER_CODE, DEFAULT_SHOP_LOGIN,
    DEFAULT_THREE_DS_CARD, FRAMED_PATH, PAGE_PATH,
};
use reqwest::{StatusCode, header::HeaderMap};
use scraper::{ElementRef, Html, Selector};
use support::{Sandbox, submit_body};
use url::Url;

/// The card as the buyer types it, in groups.
const TYPED_CARD: &str = "4775 7188 0000 2026";

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a selector")
}

/// The payment page's address for a payment: the hosted page's
/// (`pagam.aspx?a=&b=`), or, for a shop page's lightbox (`origin`, the shop
/// page's), the framed page's with the real service's four parameters.
fn page_address(sandbox: &Sandbox, token: &str, id: &str, origin: Option<&str>) -> Url {
    if origin.is_some() {
        let mut url = sandbox.url(FRAMED_PATH);
        url.query_pairs_mut()
            .append_pair("paymentID", id)
            .append_pair("paymentToken", token)
            .append_pair("shopLogin", DEFAULT_SHOP_LOGIN)
            .append_pair("lightBox", "true");
        return url;
    }
    let mut url = sandbox.url(PAGE_PATH);
    url.query_pairs_mut()
        .append_pair("a", DEFAULT_SHOP_LOGIN)
        .append_pair("b", token);
    url
}

/// A page as a browser opens it from a shop page of `origin` (its
/// `Referer`, as the lightbox's frame sends it), or typed in (`None`).
async fn open_page(
    sandbox: &Sandbox,
    page: &Url,
    origin: Option<&str>,
) -> (StatusCode, HeaderMap, String) {
    let mut request = sandbox.client.get(page.clone());
    if let Some(origin) = origin {
        request = request.header("Referer", format!("{origin}/checkout"));
    }
    let response = request.send().await.expect("the page is answered");
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.text().await.expect("a body"))
}

/// The card fields, filled with a card.
fn card_fields(number: &str) -> Vec<(&'static str, String)> {
    vec![
        ("cardNumber", number.to_owned()),
        ("expMonth", "05".to_owned()),
        ("expYear", "99".to_owned()),
        ("cvv", "999".to_owned()),
        ("holder", "Ada Buyer".to_owned()),
        ("email", "ada@example.com".to_owned()),
    ]
}

/// A page's form: its action and what a browser sends for it with `fields`
/// typed in and the submit button `button` (name, value) pressed.
struct Filled {
    action: Url,
    body: String,
}

fn fill(
    page: &Url,
    html: &str,
    form_css: &str,
    fields: &[(&str, String)],
    button: (&str, &str),
) -> Filled {
    let document = Html::parse_document(html);
    let form = document
        .select(&selector(form_css))
        .next()
        .unwrap_or_else(|| panic!("the page has {form_css}:\n{html}"));
    assert!(
        form.value()
            .attr("method")
            .is_some_and(|m| m.eq_ignore_ascii_case("post")),
        "the form posts"
    );
    let action = page
        .join(form.value().attr("action").unwrap_or(""))
        .expect("the action resolves");
    let mut pairs: Vec<(String, String)> = hidden(form);
    for (name, value) in fields {
        assert!(
            form.select(&selector(&format!("input[name={name}]")))
                .next()
                .is_some(),
            "the form has a field {name}"
        );
        pairs.push(((*name).to_owned(), value.clone()));
    }
    assert!(
        form.select(&selector(&format!(
            "button[name={}][value={}]",
            button.0, button.1
        )))
        .next()
        .is_some(),
        "the form has the button {button:?}"
    );
    pairs.push((button.0.to_owned(), button.1.to_owned()));
    Filled {
        action,
        body: url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish(),
    }
}

fn hidden(form: ElementRef<'_>) -> Vec<(String, String)> {
    form.select(&selector("input[type=hidden]"))
        .filter_map(|input| {
            Some((
                input.value().attr("name")?.to_owned(),
                input.value().attr("value").unwrap_or("").to_owned(),
            ))
        })
        .collect()
}

/// Posts a filled form: the status, `Location` and body.
async fn post(sandbox: &Sandbox, filled: &Filled) -> (StatusCode, Option<String>, String) {
    let (status, headers, body) = post_answer(sandbox, filled).await;
    let location = headers
        .get("location")
        .map(|l| l.to_str().expect("ascii").to_owned());
    (status, location, body)
}

/// A filled form posted: the answer's status, headers and body.
async fn post_answer(sandbox: &Sandbox, filled: &Filled) -> (StatusCode, HeaderMap, String) {
    let response = sandbox
        .client
        .post(filled.action.clone())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(filled.body.clone())
        .send()
        .await
        .expect("the form is answered");
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.text().await.expect("a body"))
}

/// The card form of a payment's page, as the buyer fills it in.
async fn card_form(sandbox: &Sandbox, page: &Url, fields: &[(&str, String)]) -> Filled {
    framed_card_form(sandbox, page, None, fields).await
}

/// The card form of a payment's page opened from a shop page of `origin`.
async fn framed_card_form(
    sandbox: &Sandbox,
    page: &Url,
    origin: Option<&str>,
    fields: &[(&str, String)],
) -> Filled {
    let (status, _, html) = open_page(sandbox, page, origin).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    fill(page, &html, "form#card", fields, ("method", "card"))
}

/// Opens the page for a new payment and pays it with `fields`.
async fn pay_on_page(
    sandbox: &Sandbox,
    fields: &[(&str, String)],
) -> (String, String, (StatusCode, Option<String>, String)) {
    let (token, id) = sandbox.create().await;
    let page = page_address(sandbox, &token, &id, None);
    let (status, headers, html) = sandbox.get_page(page.as_str()).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors"),
        "the page may be framed by a shop's lightbox"
    );
    let filled = fill(&page, &html, "form#card", fields, ("method", "card"));
    let answer = post(sandbox, &filled).await;
    (token, id, answer)
}

fn success_page(sandbox: &Sandbox) -> String {
    sandbox
        .url(&format!("/merchant/{DEFAULT_SHOP_LOGIN}/success"))
        .to_string()
}

fn failure_page(sandbox: &Sandbox) -> String {
    sandbox
        .url(&format!("/merchant/{DEFAULT_SHOP_LOGIN}/failure"))
        .to_string()
}

fn has_no_form(html: &str) -> bool {
    Html::parse_document(html)
        .select(&selector("form"))
        .next()
        .is_none()
}

#[tokio::test]
async fn a_card_not_enrolled_paid_on_the_page_lands_on_the_success_page_without_submit() {
    let sandbox = Sandbox::start().await;
    let (token, id, (status, location, _)) = pay_on_page(&sandbox, &card_fields(TYPED_CARD)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(success_page(&sandbox).as_str())
    );

    // One payment process per transaction: the merchant's submit executes nothing.
    let refused = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    refused.assert_refused(400, "1137", "already processed");

    // The page of a paid payment says so, with no form to pay.
    let page = page_address(&sandbox, &token, &id, None);
    let (status, _, html) = sandbox.get_page(page.as_str()).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(html.contains("already been made"), "{html}");
    assert!(has_no_form(&html), "{html}");
}

#[tokio::test]
async fn an_enrolled_card_goes_through_the_issuer_page_and_lands_on_the_success_page() {
    let sandbox = Sandbox::start().await;
    let (_, _, (status, location, _)) =
        pay_on_page(&sandbox, &card_fields(DEFAULT_THREE_DS_CARD)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let issuer = Url::parse(&location.expect("a Location")).expect("an address");
    assert_eq!(issuer.path(), payconf_reference::ISSUER_PATH);
    let (status, _, html) = sandbox.get_page(issuer.as_str()).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let filled = fill(
        &issuer,
        &html,
        "form#authenticate",
        &[("otp", DEFAULT_ISSUER_CODE.to_owned())],
        ("action", "authenticate"),
    );
    let (status, location, _) = post(&sandbox, &filled).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(success_page(&sandbox).as_str())
    );
}

#[tokio::test]
async fn a_declined_card_lands_on_the_failure_page() {
    let sandbox = Sandbox::start().await;
    let (_, _, (status, location, _)) =
        pay_on_page(&sandbox, &card_fields(DEFAULT_DECLINED_CARD)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(failure_page(&sandbox).as_str())
    );
}

#[tokio::test]
async fn a_card_the_page_refuses_is_shown_beside_its_field_the_rest_kept_and_nothing_charged() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let page = page_address(&sandbox, &token, &id, None);
    for (field, bad, said) in [
        ("cardNumber", "4775718800002027", "not a valid card number"),
        ("expYear", "20", "has expired"),
        ("cvv", "", "security code"),
    ] {
        let mut fields = card_fields(TYPED_CARD);
        for pair in &mut fields {
            if pair.0 == field {
                pair.1 = bad.to_owned();
            }
        }
        let filled = card_form(&sandbox, &page, &fields).await;
        let (status, location, html) = post(&sandbox, &filled).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{field}");
        assert_eq!(location, None);
        let document = Html::parse_document(&html);
        let error = document
            .select(&selector(&format!("#{field}-error")))
            .next()
            .unwrap_or_else(|| panic!("an error beside {field}:\n{html}"));
        assert!(
            error.text().collect::<String>().contains(said),
            "{field}: {html}"
        );
        let described = document
            .select(&selector(&format!("input#{field}")))
            .next()
            .and_then(|input| input.value().attr("aria-describedby"));
        assert_eq!(described, Some(format!("{field}-error").as_str()));
        for (other, value) in fields.iter().filter(|(name, _)| *name != field) {
            let kept = document
                .select(&selector(&format!("input[name={other}]")))
                .next()
                .and_then(|input| input.value().attr("value"));
            // The card's number and security code are typed again: never
            // sent back (the number shows masked, as a placeholder).
            let expected = match *other {
                "cardNumber" | "cvv" => "",
                _ => value.as_str(),
            };
            assert_eq!(kept, Some(expected), "{other}");
        }
        // The typed card is a test card, which the page's table of test
        // cards lists: its number is left out here, and checked below.
        assert_holds_no_card_secret(&html, &fields, &[&token, &id, "4775718800002026"]);
        // Only the field at fault is marked.
        assert_eq!(
            document.select(&selector("p.error[id]")).count(),
            1,
            "{html}"
        );
    }
    // Nothing was charged: the payment is still waiting, and pays.
    let filled = card_form(&sandbox, &page, &card_fields(TYPED_CARD)).await;
    let (status, location, _) = post(&sandbox, &filled).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(success_page(&sandbox).as_str())
    );
}

/// A refused card form's answer holds neither the security code nor the
/// whole card number, in any spelling (`known`: the payment's own token
/// and ID, which may hold the same digits by chance, are left out first).
fn assert_holds_no_card_secret(answer: &str, fields: &[(&str, String)], known: &[&str]) {
    let mut answer = answer.to_owned();
    for value in known {
        answer = answer.replace(value, "");
    }
    let typed = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    };
    let number = typed("cardNumber");
    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    for secret in [typed("cvv"), number, digits.as_str()] {
        if secret.len() >= 3 {
            assert!(!answer.contains(secret), "{secret} is sent back:\n{answer}");
        }
    }
}

/// The attack: a card refused for its expiry, typed with a security code
/// and a number, answers a page (and a page read again) that shows
/// neither; the number only masked.
#[tokio::test]
async fn a_refused_card_form_never_sends_the_security_code_or_the_number_back() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let page = page_address(&sandbox, &token, &id, None);
    // Not one of the sandbox's test cards, which its page lists.
    let mut fields = card_fields("4111 1111 1111 1111");
    for pair in &mut fields {
        match pair.0 {
            "cvv" => pair.1 = "8642".to_owned(),
            "expYear" => pair.1 = "20".to_owned(),
            _ => {}
        }
    }
    let filled = card_form(&sandbox, &page, &fields).await;
    let (status, headers, html) = post_answer(&sandbox, &filled).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_holds_no_card_secret(&format!("{headers:?}"), &fields, &[&token, &id]);
    assert_holds_no_card_secret(&html, &fields, &[&token, &id]);
    assert!(html.contains(r#"placeholder="411111******1111""#), "{html}");
    let (_, again_headers, again) = sandbox.get_page(page.as_str()).await;
    assert_holds_no_card_secret(&again, &fields, &[&token, &id]);
    assert_holds_no_card_secret(&format!("{again_headers:?}"), &fields, &[&token, &id]);
}

#[tokio::test]
async fn a_token_the_service_does_not_hold_or_of_another_payment_shows_no_form() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    for page in [
        page_address(&sandbox, "4f8e2b63-8d2a-4a8f-9c5e-0b7f1f9d2a11", &id, None),
        page_address(&sandbox, &token, "1", Some("https://shop.example")),
        page_address(&sandbox, "not-a-token", &id, None),
        page_address(&sandbox, "not-a-token", &id, Some("https://shop.example")),
    ] {
        let (status, _, html) = sandbox.get_page(page.as_str()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{page}");
        assert!(html.contains("Payment not found"), "{html}");
        assert!(has_no_form(&html), "{html}");
    }
}

#[tokio::test]
async fn the_alternative_method_approved_or_declined_needs_no_submit() {
    let sandbox = Sandbox::start().await;
    for (decision, landing) in [
        ("approve", success_page(&sandbox)),
        ("decline", failure_page(&sandbox)),
    ] {
        let (token, id) = sandbox.create().await;
        let page = page_address(&sandbox, &token, &id, None);
        let (_, _, html) = sandbox.get_page(page.as_str()).await;
        let chosen = fill(&page, &html, "form#wallet", &[], ("method", "wallet"));
        let (status, location, _) = post(&sandbox, &chosen).await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        let approval = Url::parse(&location.expect("a Location")).expect("an address");
        assert_eq!(approval.path(), payconf_reference::WALLET_PATH);

        // While the buyer is at the wallet, the merchant's submit executes nothing.
        sandbox
            .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
            .await
            .assert_refused(400, "1137", "already processed");

        let (status, _, html) = sandbox.get_page(approval.as_str()).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        let decided = fill(
            &approval,
            &html,
            "form#approval",
            &[],
            ("decision", decision),
        );
        let (status, location, _) = post(&sandbox, &decided).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{decision}");
        assert_eq!(
            landed(&location).as_deref(),
            Some(landing.as_str()),
            "{decision}"
        );
        // Decided once.
        let (status, _, html) = post(&sandbox, &decided).await;
        assert_eq!(status, StatusCode::CONFLICT, "{decision}: {html}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_presses_of_pay_at_once_execute_one_payment() {
    let sandbox = Arc::new(Sandbox::start().await);
    for _ in 0..20 {
        let (token, id) = sandbox.create().await;
        let page = page_address(&sandbox, &token, &id, None);
        let filled = Arc::new(card_form(&sandbox, &page, &card_fields(TYPED_CARD)).await);
        let presses: Vec<_> = (0..2)
            .map(|_| {
                let (sandbox, filled) = (Arc::clone(&sandbox), Arc::clone(&filled));
                tokio::spawn(async move { post(&sandbox, &filled).await })
            })
            .collect();
        let mut statuses = Vec::new();
        for press in presses {
            statuses.push(press.await.expect("a press").0);
        }
        statuses.sort();
        assert_eq!(statuses, [StatusCode::SEE_OTHER, StatusCode::CONFLICT]);
    }
}

/// The pages where a buyer presses pay (the card form, the wallet's
/// approval) are framed by the shop page whose lightbox opened them and by
/// no other site (clickjacking): by none at all when the buyer came
/// without a lightbox.
#[tokio::test]
async fn the_pages_a_buyer_pays_on_are_framed_only_by_the_shop_page_that_opened_them() {
    let sandbox = Sandbox::start().await;
    let ancestors = |headers: &HeaderMap| {
        let policy = headers["content-security-policy"].to_str().expect("ascii");
        policy
            .split(';')
            .map(str::trim)
            .find_map(|d| d.strip_prefix("frame-ancestors "))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no frame-ancestors in {policy}"))
    };
    for (origin, framed_by) in [
        (Some("https://shop.example"), "https://shop.example"),
        (None, "'none'"),
    ] {
        let (token, id) = sandbox.create().await;
        let page = page_address(&sandbox, &token, &id, origin);
        let (status, headers, html) = open_page(&sandbox, &page, origin).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert_eq!(ancestors(&headers), framed_by, "the card form");
        let chosen = fill(&page, &html, "form#wallet", &[], ("method", "wallet"));
        let (status, location, _) = post(&sandbox, &chosen).await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        let approval = location.expect("a Location");
        let (status, headers, html) = sandbox.get_page(&approval).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert_eq!(ancestors(&headers), framed_by, "the wallet's approval");
    }
}

/// The shop page that first opens a payment in its lightbox keeps it: a
/// page of another site that learnt the token (the framing origin once came
/// from a parameter its holder chose) can neither frame the card form nor be
/// told the outcome; the origin comes from the browser (`Referer`), never
/// from the address or the form.
#[tokio::test]
async fn the_shop_page_that_first_opens_a_payment_in_its_lightbox_keeps_it() {
    let sandbox = Sandbox::start().await;
    const SHOP: &str = "https://shop.example";
    let (token, id) = sandbox.create().await;
    let page = page_address(&sandbox, &token, &id, Some(SHOP));
    let policy = |headers: &HeaderMap| {
        headers["content-security-policy"]
            .to_str()
            .expect("ascii")
            .to_owned()
    };
    let (status, headers, _) = open_page(&sandbox, &page, Some(SHOP)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(policy(&headers).ends_with(&format!("frame-ancestors {SHOP}")));
    let mut forged = page.clone();
    forged
        .query_pairs_mut()
        .append_pair("origin", "https://evil.example");
    for (address, from) in [
        (&page, Some("https://evil.example")),
        (&forged, Some("https://evil.example")),
        (&page, None),
    ] {
        let (status, headers, _) = open_page(&sandbox, address, from).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            policy(&headers).ends_with(&format!("frame-ancestors {SHOP}")),
            "{from:?}: {}",
            policy(&headers)
        );
    }
    // A framed page opened without a Referer, first: framed by no page.
    let (token, id) = sandbox.create().await;
    let page = page_address(&sandbox, &token, &id, Some(SHOP));
    let (_, headers, _) = open_page(&sandbox, &page, None).await;
    assert!(policy(&headers).ends_with("frame-ancestors 'none'"));
}

/// Pay-by-link's address is the framed page's with `lightbox=false` (the
/// real service writes it in lower case there): a page of its own, framed by
/// no page; the hosted page's `paymentType` shows that method alone.
#[tokio::test]
async fn pay_by_link_is_a_page_of_its_own_and_payment_type_preselects_the_method() {
    let sandbox = Sandbox::start().await;
    let (token, id) = sandbox.create().await;
    let mut link = sandbox.url(FRAMED_PATH);
    link.query_pairs_mut()
        .append_pair("paymentID", &id)
        .append_pair("paymentToken", &token)
        .append_pair("shopLogin", DEFAULT_SHOP_LOGIN)
        .append_pair("lightbox", "false");
    let (status, headers, html) = open_page(&sandbox, &link, Some("https://shop.example")).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .expect("ascii")
            .ends_with("frame-ancestors 'none'")
    );
    let filled = fill(
        &link,
        &html,
        "form#card",
        &card_fields(TYPED_CARD),
        ("method", "card"),
    );
    assert_eq!(
        filled.action.path(),
        PAGE_PATH,
        "the form posts to the hosted page"
    );
    assert!(!filled.body.contains("lightBox"), "{}", filled.body);
    let (status, location, _) = post(&sandbox, &filled).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(success_page(&sandbox).as_str())
    );

    let (token, _) = sandbox.create().await;
    for (payment_type, card, wallet) in [
        ("CREDITCARD", true, false),
        ("WALLET", false, true),
        ("PAYPAL", true, true),
    ] {
        let mut page = sandbox.url(PAGE_PATH);
        page.query_pairs_mut()
            .append_pair("a", DEFAULT_SHOP_LOGIN)
            .append_pair("b", &token)
            .append_pair("paymentType", payment_type);
        let (status, _, html) = sandbox.get_page(page.as_str()).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        let document = Html::parse_document(&html);
        let has = |css: &str| document.select(&selector(css)).next().is_some();
        assert_eq!(
            (has("form#card"), has("form#wallet")),
            (card, wallet),
            "{payment_type}"
        );
    }
}

#[tokio::test]
async fn a_payment_paid_in_the_lightbox_ends_on_the_result_page_that_tells_the_shop_only() {
    let sandbox = Sandbox::start().await;
    const SHOP_ORIGIN: &str = "http://shop.example:8080";
    let (token, id) = sandbox.create().await;
    let page = page_address(&sandbox, &token, &id, Some(SHOP_ORIGIN));
    let filled =
        framed_card_form(&sandbox, &page, Some(SHOP_ORIGIN), &card_fields(TYPED_CARD)).await;
    assert!(filled.body.contains("lightBox=true"), "{}", filled.body);
    assert!(
        !filled.body.contains("shop.example"),
        "the shop's origin is the payment's, not the form's: {}",
        filled.body
    );
    let (status, location, _) = post(&sandbox, &filled).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let result = Url::parse(&location.expect("a Location")).expect("an address");
    assert_eq!(result.path(), payconf_reference::RESULT_PATH);
    let (status, headers, html) = sandbox.get_page(result.as_str()).await;
    assert_eq!(status, StatusCode::OK);
    let policy = headers["content-security-policy"].to_str().expect("ascii");
    assert!(
        policy.contains(&format!("frame-ancestors {SHOP_ORIGIN}")),
        "{policy}"
    );
    assert!(
        html.contains(&format!(r#", "{SHOP_ORIGIN}");"#)),
        "the outcome goes to the shop's origin only: {html}"
    );
    assert!(html.contains(r#""status":"OK""#), "{html}");
    assert!(html.contains(r#""transactionResult":"OK""#), "{html}");
    assert!(html.contains(&success_page(&sandbox)), "{html}");
    assert!(
        html.contains(&format!(
            r#""responseURL":"{}?a={DEFAULT_SHOP_LOGIN}&b={token}""#,
            success_page(&sandbox)
        )),
        "the buyer's return address, with the shop and the token: {html}"
    );

    // Paid as a page of its own, the payment ends on the merchant's page.
    let (_, _, (status, location, _)) = pay_on_page(&sandbox, &card_fields(TYPED_CARD)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        landed(&location).as_deref(),
        Some(success_page(&sandbox).as_str())
    );
}

#[tokio::test]
async fn the_lightbox_script_and_the_demo_checkout_are_served() {
    let sandbox = Sandbox::start().await;
    let (status, headers, script) = sandbox
        .get_page(sandbox.url(payconf_reference::SCRIPT_PATH).as_str())
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/javascript")
    );
    assert!(
        script.contains(&format!("{:?}", sandbox.url(FRAMED_PATH).as_str())),
        "{script}"
    );
    assert!(
        script.contains("event.origin !== service"),
        "messages from the service only"
    );
    for api in [
        "window.axerve = axerve",
        "lightBox.open = open",
        "'1134'",
        "'9991'",
        "'9992'",
    ] {
        assert!(script.contains(api), "{api} in {script}");
    }
    // Written as shops write it, whatever the case.
    let (status, _, same) = sandbox
        .get_page(sandbox.url("/pagam/JavaScript/Axerve.js").as_str())
        .await;
    assert_eq!((status, same.len()), (StatusCode::OK, script.len()));

    let (status, _, html) = sandbox
        .get_page(sandbox.url(payconf_reference::DEMO_PATH).as_str())
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("axerve.lightBox.open("), "{html}");
    assert!(html.contains("axerve.lightBox.shop = "), "{html}");
    let (status, _, _) = sandbox
        .get_page(
            sandbox
                .url(&format!("{}?amount=ten", payconf_reference::DEMO_PATH))
                .as_str(),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// Where a page's answer sends the buyer, without the service's parameters
/// (`a`, the shop; `b`, the payment's token), which every return carries.
fn landed(location: &Option<String>) -> Option<String> {
    location
        .as_deref()
        .map(|l| support::page_of(l, DEFAULT_SHOP_LOGIN))
}
