//! The target's standard payment page, when it declares one: where it is
//! (an address built from the payment), which of its inputs takes each
//! card field, explicit steps for a page no heuristic reads, and an
//! alternative payment method the buyer can choose there.
//!
//! ```toml
//! [payment_page]
//! address = "https://pay.example/page?token={paymentToken}&id={paymentID}&shop={shopLogin}"
//! fields = { number = "cardNumber", exp_month = "expMonth", exp_year = "expYear", cvv = "cvv", name = "holder", email = "email" }
//! [payment_page.lightbox]
//! script = "/pagam/javascript/axerve.js"   # the script a shop's page includes
//! [payment_page.alternative]
//! choose = "#wallet button"        # what the buyer clicks on the page to pay that way
//! # fields = { pin = "1234" }      # values typed on the method's approval page, by input name
//! ```
//!
//! The contract gives the page no address, so nothing of it is checked
//! unless the target file declares it.

use std::{collections::BTreeMap, fmt};

use serde::Deserialize;
use url::Url;

use super::{Lightbox, LightboxFile, Secret, TargetError, steps::IssuerStep, target_error};

/// The placeholders an address may hold, each replaced by the payment's value.
pub const PLACEHOLDERS: [&str; 3] = ["{paymentToken}", "{paymentID}", "{shopLogin}"];

/// A card field the page asks for, as `payment_page.fields` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CardField {
    /// The card number.
    Number,
    /// The expiry month, two digits.
    ExpMonth,
    /// The expiry year, two digits.
    ExpYear,
    /// The expiry in one field, `MM/YY`.
    Expiry,
    /// The security code.
    Cvv,
    /// The card holder's name (the target's `buyer_name`).
    Name,
    /// The buyer's e-mail address (the target's `buyer_email`).
    Email,
}

impl CardField {
    /// Every field, in the order a page asks for them.
    pub const ALL: [Self; 7] = [
        Self::Number,
        Self::ExpMonth,
        Self::ExpYear,
        Self::Expiry,
        Self::Cvv,
        Self::Name,
        Self::Email,
    ];

    /// The name the target file uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Number => "number",
            Self::ExpMonth => "exp_month",
            Self::ExpYear => "exp_year",
            Self::Expiry => "expiry",
            Self::Cvv => "cvv",
            Self::Name => "name",
            Self::Email => "email",
        }
    }

    /// The field of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|field| field.name() == name)
    }

    /// Whether its value is secret (the number is shown masked instead).
    pub fn is_secret(self) -> bool {
        self == Self::Cvv
    }
}

impl fmt::Display for CardField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `[payment_page]` as the target file writes it.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaymentPageFile {
    address: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, String>,
    #[serde(default)]
    steps: Vec<IssuerStep>,
    alternative: Option<AlternativeFile>,
    lightbox: Option<LightboxFile>,
}

/// `[payment_page.alternative]` as the target file writes it.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct AlternativeFile {
    choose: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, Secret>,
    #[serde(default)]
    steps: Vec<IssuerStep>,
}

/// The target's payment page, checked.
#[derive(Clone, Debug)]
pub struct PaymentPage {
    /// The address, its placeholders not yet replaced.
    pub address: String,
    /// The page's input name for each card field it asks for.
    pub fields: BTreeMap<CardField, String>,
    /// Explicit steps, in order; a `type` step's `field` names a card field.
    pub steps: Vec<IssuerStep>,
    /// The alternative payment method, when the target declares one.
    pub alternative: Option<Alternative>,
    /// The script a shop's page opens the page with, when the target
    /// declares it (`[payment_page.lightbox]`).
    pub lightbox: Option<Lightbox>,
}

/// An alternative payment method of the page.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The CSS selector of what the buyer clicks on the page to pay that way.
    pub choose: String,
    /// Values typed on the method's approval page, by input name: secrets.
    pub fields: BTreeMap<String, Secret>,
    /// Explicit steps on the approval page, in order.
    pub steps: Vec<IssuerStep>,
}

/// What the address's placeholders stand for, for one payment.
#[derive(Clone, Copy, Debug)]
pub struct PaymentRefs<'a> {
    /// The payment token create returned.
    pub token: &'a str,
    /// The payment ID create returned.
    pub payment_id: &'a str,
    /// The merchant's shop login.
    pub shop_login: &'a str,
}

impl PaymentPage {
    /// The page's address for one payment, each placeholder replaced by
    /// its value, percent-encoded.
    pub fn address_for(&self, refs: PaymentRefs<'_>) -> Result<Url, url::ParseError> {
        let address = self
            .address
            .replace("{paymentToken}", &encoded(refs.token))
            .replace("{paymentID}", &encoded(refs.payment_id))
            .replace("{shopLogin}", &encoded(refs.shop_login));
        Url::parse(&address)
    }

    /// The origin of the page, whose answers the reports may quote.
    pub fn origin(&self) -> Option<url::Origin> {
        self.sample_address().map(|url| url.origin())
    }

    /// The page's address for a payment that stands for any.
    pub fn sample_address(&self) -> Option<Url> {
        self.address_for(SAMPLE).ok()
    }
}

/// Values that stand for a payment's when an address is checked.
const SAMPLE: PaymentRefs<'static> = PaymentRefs {
    token: "00000000-0000-0000-0000-000000000000",
    payment_id: "0",
    shop_login: "SHOP",
};

/// A value as it goes into an address: everything but the unreserved
/// characters percent-encoded, so that it is one query value or one path
/// segment.
fn encoded(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl PaymentPageFile {
    /// Checks the section and builds the page; its address may be written
    /// from `base`, the target's base URL ([`super::address`]).
    pub fn resolve(self, base: Option<&Url>) -> Result<PaymentPage, TargetError> {
        let address = self.address.ok_or_else(|| {
            target_error(
                "payment_page.address",
                "missing: the page's address, with {paymentToken} or {paymentID} where the \
                 payment goes",
            )
        })?;
        let address = super::address::on_base("payment_page.address", &address, base)?;
        check_address(&address)?;
        let mut fields = BTreeMap::new();
        for (name, input) in self.fields {
            let setting = format!("payment_page.fields.{name}");
            let field = CardField::from_name(&name).ok_or_else(|| {
                target_error(
                    &setting,
                    format!(
                        "is not a card field: the fields are {}",
                        CardField::ALL.map(CardField::name).join(", ")
                    ),
                )
            })?;
            if input.trim().is_empty() {
                return Err(target_error(&setting, "must name the page's input"));
            }
            fields.insert(field, input);
        }
        if self.steps.is_empty() {
            let has = |field| fields.contains_key(&field);
            if !has(CardField::Number) {
                return Err(target_error(
                    "payment_page.fields.number",
                    "missing: the input the card number is typed into (or describe the page \
                     with [[payment_page.steps]])",
                ));
            }
            let split = has(CardField::ExpMonth) && has(CardField::ExpYear);
            if !(has(CardField::Expiry) || split) {
                return Err(target_error(
                    "payment_page.fields",
                    "names no expiry: give exp_month and exp_year, or expiry for one MM/YY \
                     input",
                ));
            }
        }
        let steps = in_section(
            self.steps,
            "payment_page.steps",
            "payment_page.fields",
            |f| CardField::from_name(f).is_some(),
        )?;
        let alternative = self.alternative.map(AlternativeFile::resolve).transpose()?;
        let lightbox = self
            .lightbox
            .map(|lightbox| lightbox.resolve(base))
            .transpose()?;
        Ok(PaymentPage {
            address,
            fields,
            steps,
            alternative,
            lightbox,
        })
    }
}

impl AlternativeFile {
    fn resolve(self) -> Result<Alternative, TargetError> {
        let choose = self.choose.ok_or_else(|| {
            target_error(
                "payment_page.alternative.choose",
                "missing: the CSS selector of what the buyer clicks to pay with the method",
            )
        })?;
        if let Err(e) = scraper::Selector::parse(&choose) {
            return Err(target_error(
                "payment_page.alternative.choose",
                format!("{choose:?} is not a CSS selector: {e}"),
            ));
        }
        let fields = self.fields;
        let steps = in_section(
            self.steps,
            "payment_page.alternative.steps",
            "payment_page.alternative.fields",
            |name| fields.contains_key(name),
        )?;
        Ok(Alternative {
            choose,
            fields,
            steps,
        })
    }
}

/// The steps of a section, each `type` step's field checked against the
/// section's fields and shown as theirs.
fn in_section(
    steps: Vec<IssuerStep>,
    setting: &str,
    fields: &'static str,
    known: impl Fn(&str) -> bool,
) -> Result<Vec<IssuerStep>, TargetError> {
    steps
        .into_iter()
        .enumerate()
        .map(|(i, step)| match step.field() {
            Some(field) if !known(field) => Err(target_error(
                &format!("{setting}[{i}].field"),
                format!("{field:?} is not a name in {fields}"),
            )),
            _ => Ok(step.typing_from(fields)),
        })
        .collect()
}

/// Checks an address: http(s) once its placeholders are replaced, naming
/// the payment, no placeholder payconf does not know.
fn check_address(address: &str) -> Result<(), TargetError> {
    let setting = "payment_page.address";
    let mut rest = address;
    while let Some(start) = rest.find('{') {
        let end = rest[start..].find('}').map(|end| start + end + 1);
        let placeholder = &rest[start..end.unwrap_or(rest.len())];
        if !PLACEHOLDERS.contains(&placeholder) {
            return Err(target_error(
                setting,
                format!(
                    "{placeholder:?} is not a placeholder payconf fills: use {}",
                    PLACEHOLDERS.join(", ")
                ),
            ));
        }
        rest = &rest[end.unwrap_or(rest.len())..];
    }
    if !address.contains("{paymentToken}") && !address.contains("{paymentID}") {
        return Err(target_error(
            setting,
            "names no payment: put {paymentToken} or {paymentID} where the page takes it",
        ));
    }
    let page = PaymentPage {
        address: address.to_owned(),
        fields: BTreeMap::new(),
        steps: Vec::new(),
        alternative: None,
        lightbox: None,
    };
    match page.address_for(SAMPLE) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Ok(()),
        Ok(_) => Err(target_error(
            setting,
            "must be an absolute http or https URL",
        )),
        Err(e) => Err(target_error(setting, format!("{e}: {address:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(text: &str) -> Result<PaymentPage, String> {
        #[derive(Deserialize, schemars::JsonSchema)]
        struct File {
            payment_page: PaymentPageFile,
        }
        toml::from_str::<File>(text)
            .map_err(|e| e.to_string())?
            .payment_page
            .resolve(None)
            .map_err(|e| e.to_string())
    }

    const FIELDS: &str = r#"fields = { number = "cardNumber", exp_month = "expMonth", exp_year = "expYear", cvv = "cvv" }"#;

    #[test]
    fn the_address_is_filled_with_the_payment_percent_encoded() {
        let page = resolve(&format!(
            "[payment_page]\naddress = \"https://pay.example/p/{{paymentID}}?t={{paymentToken}}&s={{shopLogin}}\"\n{FIELDS}"
        ))
        .expect("valid");
        let url = page
            .address_for(PaymentRefs {
                token: "a b&c",
                payment_id: "42",
                shop_login: "SHOP/1",
            })
            .expect("url");
        assert_eq!(
            url.as_str(),
            "https://pay.example/p/42?t=a%20b%26c&s=SHOP%2F1"
        );
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        assert_eq!(pairs[0], ("t".to_owned(), "a b&c".to_owned()));
        assert_eq!(page.fields[&CardField::Number], "cardNumber");
    }

    #[test]
    fn each_wrong_setting_is_named_with_what_to_write() {
        for (bad, said) in [
            (format!("[payment_page]\n{FIELDS}"), "payment_page.address: missing"),
            (
                format!("[payment_page]\naddress = \"https://pay.example/\"\n{FIELDS}"),
                "names no payment",
            ),
            (
                format!("[payment_page]\naddress = \"https://p.example/{{token}}\"\n{FIELDS}"),
                "\"{token}\" is not a placeholder",
            ),
            (
                format!("[payment_page]\naddress = \"ftp://p.example/{{paymentID}}\"\n{FIELDS}"),
                "absolute http or https",
            ),
            (
                "[payment_page]\naddress = \"https://p.example/{paymentID}\"\nfields = { pan = \"x\" }"
                    .to_owned(),
                "payment_page.fields.pan: is not a card field",
            ),
            (
                "[payment_page]\naddress = \"https://p.example/{paymentID}\"\nfields = { number = \"n\" }"
                    .to_owned(),
                "names no expiry",
            ),
            (
                "[payment_page]\naddress = \"https://p.example/{paymentID}\"\nfields = { cvv = \"c\" }"
                    .to_owned(),
                "payment_page.fields.number: missing",
            ),
            (
                "[payment_page]\naddress = \"https://p.example/{paymentID}\"\n[[payment_page.steps]]\ntype = \"#n\"\nfield = \"otp\""
                    .to_owned(),
                "payment_page.steps[0].field: \"otp\" is not a name in payment_page.fields",
            ),
            (
                format!("[payment_page]\naddress = \"https://p.example/{{paymentID}}\"\n{FIELDS}\n[payment_page.alternative]\nchoose = \"a[\""),
                "payment_page.alternative.choose: \"a[\" is not a CSS selector",
            ),
            (
                format!("[payment_page]\naddress = \"https://p.example/{{paymentID}}\"\n{FIELDS}\n[payment_page.alternative]\nfields = {{ pin = \"1\" }}"),
                "payment_page.alternative.choose: missing",
            ),
        ] {
            let error = resolve(&bad).map(drop).expect_err(&bad);
            assert!(error.contains(said), "{bad}: {error}");
        }
    }

    #[test]
    fn steps_alone_describe_a_page_and_type_card_fields() {
        let page = resolve(
            "[payment_page]\naddress = \"https://p.example/{paymentID}\"\n[[payment_page.steps]]\ntype = \"#pan\"\nfield = \"number\"\n[[payment_page.steps]]\nclick = \"#pay\"",
        )
        .expect("valid");
        assert_eq!(
            page.steps[0].to_string(),
            "type payment_page.fields.number into #pan"
        );
    }
}
