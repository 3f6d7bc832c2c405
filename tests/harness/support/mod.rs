//! Shared by the integration tests: the spec as the repository has it, the
//! runner as a subprocess ([`runner`]), evidence bundles ([`bundles`]), a test CA and TLS servers ([`tls`]),
//! the conformant twin and its defects ([`twin`]), the hostile target
//! ([`hostile`]) and the runs against it ([`untrusted`]), issuer journeys
//! built other ways ([`journeys`]) and composed from seeds ([`zoo`]), and a target file
//! for the sandbox's defaults.

pub mod bundles;
pub mod front;
pub mod hostile;
pub mod journeys;
pub mod merchant;
pub mod reports;
pub mod runner;
pub mod tls;
pub mod twin;
pub mod untrusted;
pub mod zoo;

use payconf_spec::card::CardKind;
use std::sync::OnceLock;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN,
    DEFAULT_SIGNING_SECRET, DEFAULT_THREE_DS_CARD,
};
use payconf_spec::contract::Contract;
use serde_json::Value;
use url::Url;

/// The spec, read from the repository file (not the copy compiled into the binary).
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/openapi.yaml");
        Contract::load(std::path::Path::new(path)).expect("spec/openapi.yaml loads")
    })
}

/// The operation with this `operationId` in the spec, and its path.
pub fn find_operation(operation_id: &str) -> (String, &'static Value) {
    for (path, item) in contract().document()["paths"].as_object().expect("paths") {
        for operation in item.as_object().expect("item").values() {
            if operation["operationId"] == operation_id {
                return (path.clone(), operation);
            }
        }
    }
    panic!("no operation {operation_id}");
}

/// A `$ref` within the spec, followed.
pub fn resolve(value: &Value) -> &Value {
    payconf_spec::json_ref::resolve(contract().document(), value)
}

/// A target file for the reference implementation at `base` with its
/// default back-office, `extra` lines at the top and the form driver's code.
pub fn sandbox_target(base: &Url, extra: &str) -> runner::TempFile {
    runner::TempFile::new(
        "target.toml",
        &reference_target_file(base, extra, "fields = { otp = \"123456\" }\n"),
    )
}

/// A target file for a reference implementation with its default back-office
/// at `base`: `head` is added to the top-level settings, `acs` is the body
/// of the `[acs]` table.
pub fn reference_target_file(base: &Url, head: &str, acs: &str) -> String {
    let base = base.as_str().trim_end_matches('/');
    // The sandbox's card for each 3-D Secure outcome, under its target-file name.
    let outcome_cards: String = CardKind::outcomes()
        .map(|kind| {
            format!(
                "[cards.{}]\nnumber = \"{}\"\nexp_month = \"12\"\nexp_year = \"99\"\ncvv = \"123\"\n",
                kind.target_key(),
                payconf_reference::default_card(kind)
            )
        })
    .collect();
    format!(
        r##"base_url = "{base}"
api_key = "{DEFAULT_API_KEY}"
shop_login = "{DEFAULT_SHOP_LOGIN}"
success_url = "{base}/merchant/{DEFAULT_SHOP_LOGIN}/success"
failure_url = "{base}/merchant/{DEFAULT_SHOP_LOGIN}/failure"
{head}
[cards.frictionless]
number = "{DEFAULT_FRICTIONLESS_CARD}"
exp_month = "05"
exp_year = "99"
cvv = "999"
[cards.three_ds]
number = "{DEFAULT_THREE_DS_CARD}"
exp_month = "12"
exp_year = "99"
cvv = "123"
[cards.declined]
number = "{DEFAULT_DECLINED_CARD}"
exp_month = "12"
exp_year = "99"
cvv = "123"
{outcome_cards}[acs]
{acs}
[payment_page]
address = "{base}/pagam/pagam.aspx?a={{shopLogin}}&b={{paymentToken}}"
fields = {{ number = "cardNumber", exp_month = "expMonth", exp_year = "expYear", cvv = "cvv", name = "holder", email = "email" }}
[payment_page.alternative]
choose = "#wallet button"
[payment_page.lightbox]
script = "/pagam/javascript/axerve.js"
[notifications]
signing_secret = "{DEFAULT_SIGNING_SECRET}"
"##
    )
}

/// A shop's checkout that shows the payment page in an overlay: a dialog
/// over the shop's basket (`inset` from the window's edges), the page in a
/// frame from `frame`. The body of a page titled "`shop` checkout".
pub fn overlay_checkout(shop: &str, basket: &str, inset: &str, frame: &str) -> String {
    format!(
        r#"<h1>{shop}</h1><p>Your basket: {basket}</p>
<div role="dialog" aria-label="Payment" style="position:fixed;inset:{inset};background:#fff">
<iframe src="{frame}" title="Payment" style="width:100%;height:100%;border:0"></iframe>
</div>"#
    )
}
