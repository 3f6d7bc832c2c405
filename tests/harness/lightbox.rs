//! The lightbox as a merchant pastes it: the snippet of `docs/sandbox.md`,
//! word for word, in a shop's page of its own on another origin, opened in
//! Chromium and paid with the sandbox's test cards through the payment
//! page in the overlay (3-D Secure inside it), the buyer sent on to the
//! back-office success page by the snippet's script. The run is payconf's
//! own, with the shop's page declared as the target's payment page and
//! explicit steps for it: the buyer clicks the shop's Pay button first.

use payconf::bench::payment_pages::LIGHTBOX_STEPS;
use payconf_reference::{ReferenceConfig, RunningServer};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate, matchers::any};

use crate::support::runner::{TempFile, payconf_run_async, scenarios_where};

/// The snippet `docs/sandbox.md` tells merchants to paste, as written there.
fn documented_snippet() -> String {
    let docs = include_str!("../../docs/sandbox.md");
    let section = &docs[docs
        .find("**The lightbox.**")
        .expect("the lightbox section")..];
    let start = section.find("```html\n").expect("an html block") + "```html\n".len();
    let end = start + section[start..].find("\n```").expect("the block's end");
    section[start..end].to_owned()
}

/// The shop's checkout page: the snippet pasted, with the sandbox's address
/// and the payment's token and ID as the merchant's server fills them in.
struct ShopPage {
    snippet: String,
    sandbox: String,
}

impl Respond for ShopPage {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let query = |name: &str| {
            request
                .url
                .query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default()
        };
        // The merchant's server writes values it got from create: a UUID
        // and digits, nothing to escape.
        let (token, id) = (query("token"), query("id"));
        assert!(
            token.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
                && id.chars().all(|c| c.is_ascii_digit()),
            "a token and an ID as create answers them"
        );
        let snippet = self
            .snippet
            .replace("http://127.0.0.1:8080", &self.sandbox)
            .replace("<TOKEN>", &token)
            .replace("<ID>", &id);
        let html = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>My shop</title>\
             </head><body><h1>My shop</h1><p>Basket: 1.00 EUR</p>\n{snippet}\n</body></html>"
        );
        ResponseTemplate::new(200).set_body_raw(html, "text/html; charset=utf-8")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_snippet_pasted_into_a_shop_page_pays_in_chromium() {
    if !crate::support::runner::browser_or_skip(
        "the_documented_snippet_pasted_into_a_shop_page_pays_in_chromium",
    ) {
        return;
    }
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("the sandbox");
    let sandbox = server.base_url.as_str().trim_end_matches('/').to_owned();
    let shop = MockServer::start().await;
    Mock::given(any())
        .respond_with(ShopPage {
            snippet: documented_snippet(),
            sandbox,
        })
        .mount(&shop)
        .await;
    let file = crate::support::reference_target_file(
        &server.base_url,
        "",
        "driver = \"browser\"\nfields = { otp = \"123456\" }",
    );
    let declared = file.find("[payment_page]").expect("the sandbox's page");
    let target = format!(
        "{}[payment_page]\naddress = \"{}/checkout?token={{paymentToken}}&id={{paymentID}}\"\n{LIGHTBOX_STEPS}",
        &file[..declared],
        shop.uri()
    );
    let target = TempFile::new("lightbox-target.toml", &target);
    let output = payconf_run_async(vec![
        "--target".into(),
        target.0.display().to_string(),
        "--tags".into(),
        "@payment-page and @core and not @alternative-method".into(),
    ])
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let paid = scenarios_where(|s| {
        s.location().starts_with("payment_page.feature")
            && s.profile == Some(payconf_spec::Profile::Core)
            && !s.has_tag("alternative-method")
    });
    assert_eq!(
        paid.len(),
        2,
        "a card paid at once, and one through 3-D Secure"
    );
    assert_eq!(output.passed(), paid, "{}", output.stdout);
    assert_eq!(
        output.drivers(),
        std::collections::BTreeSet::from(["browser".to_owned()])
    );
}

/// The lightbox's scenarios on the sandbox, with the browser: payconf's
/// shop page includes the sandbox's script as shops do, and every one
/// passes by its own road (the overlay, the issuer inside it, no
/// callback, a phone's window, the empty token, the declined card).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lightbox_scenarios_pass_on_the_sandbox_from_payconfs_shop_page() {
    if !crate::support::runner::browser_or_skip(
        "the_lightbox_scenarios_pass_on_the_sandbox_from_payconfs_shop_page",
    ) {
        return;
    }
    let output = payconf_run_async(vec![
        "--acs-driver".into(),
        "browser".into(),
        "--tags".into(),
        "@lightbox".into(),
    ])
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let lightbox = crate::support::runner::lightbox_scenarios();
    assert_eq!(lightbox.len(), 6);
    assert_eq!(output.passed(), lightbox, "{}", output.stdout);
    assert_eq!(
        output.drivers(),
        std::collections::BTreeSet::from(["browser".to_owned()])
    );
}
