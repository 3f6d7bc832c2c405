//! The server under test and what payconf needs to know about it: where it
//! is, the merchant's credentials, test cards, back-office pages, and how to
//! get through its issuer page.
//!
//! Settings come from a TOML file (`--target`), are overridden by the
//! environment (`PAYCONF_BASE_URL`, `PAYCONF_API_KEY`, `PAYCONF_SHOP_LOGIN`),
//! which is overridden by flags. [`TargetConfig::resolve`] checks them all
//! and names the first one that is missing or invalid.

use std::{collections::BTreeMap, fmt, path::Path, time::Duration};

use payconf_reference::mask_pan;
use serde::Deserialize;
use url::Url;

use crate::redact::{MASK, Redactor};

/// A value that must never be printed: its `Debug` and `Display` are `***`.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the request that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A month or year written as text or as a TOML integer; integers below
/// ten get their leading zero back.
fn two_digits<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Number(u16),
    }
    Ok(match TextOrNumber::deserialize(deserializer)? {
        TextOrNumber::Text(text) => text,
        TextOrNumber::Number(n) => format!("{n:02}"),
    })
}

/// A test card of the target.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCard {
    /// The card number.
    pub number: Secret,
    /// Two-digit expiry month (`exp_month = "05"` or `exp_month = 5`).
    #[serde(deserialize_with = "two_digits")]
    pub exp_month: String,
    /// Expiry year as the target takes it (`"30"` or `30`).
    #[serde(deserialize_with = "two_digits")]
    pub exp_year: String,
    /// Security code.
    pub cvv: Secret,
}

/// The target's test cards.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCards {
    /// A card not enrolled in 3-D Secure.
    pub frictionless: Option<TestCard>,
    /// A card enrolled in 3-D Secure.
    pub three_ds: Option<TestCard>,
    /// A card the issuer declines (reference-profile scenarios).
    pub declined: Option<TestCard>,
}

/// Which environment of the service a target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// The test environment: every scenario may run.
    Sandbox,
    /// The live service: payconf refuses it unless `--allow-production`,
    /// and then runs only `@production-safe` scenarios.
    Production,
}

impl Environment {
    /// `sandbox` or `production`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Production => "production",
        }
    }
}

/// How the buyer gets through the issuer-authentication page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AcsDriver {
    /// Fetch the page, fill its first form from `fields`, submit it, follow redirects.
    #[default]
    Form,
    /// No issuer page can be driven: its scenarios are skipped, with the reason.
    None,
}

/// Issuer-authentication settings.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcsConfig {
    /// The driver.
    #[serde(default)]
    pub driver: AcsDriver,
    /// Values typed into the issuer page's form, by field name.
    #[serde(default)]
    pub fields: BTreeMap<String, Secret>,
}

/// The target file's form: every setting optional until resolved.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetFile {
    base_url: Option<String>,
    environment: Option<Environment>,
    api_key: Option<Secret>,
    shop_login: Option<String>,
    currency: Option<String>,
    amount: Option<String>,
    success_url: Option<String>,
    failure_url: Option<String>,
    token_lifetime_secs: Option<u64>,
    #[serde(default)]
    cards: TestCards,
    #[serde(default)]
    acs: AcsConfig,
}

/// Settings given on the command line, which win over everything else.
#[derive(Clone, Debug, Default)]
pub struct TargetOverrides {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--shop-login`.
    pub shop_login: Option<String>,
}

/// A complete, checked target.
#[derive(Clone, Debug)]
pub struct TargetConfig {
    /// The service's base address; the API paths are under it.
    pub base_url: Url,
    /// The environment the target file declares, if it does.
    pub environment: Option<Environment>,
    /// The merchant's API key.
    pub api_key: Secret,
    /// The merchant's shop login.
    pub shop_login: String,
    /// Currency of the payments the suite creates.
    pub currency: String,
    /// Amount of the payments the suite creates.
    pub amount: String,
    /// The back-office success page, when the target names it.
    pub success_url: Option<Url>,
    /// The back-office failure page, when the target names it.
    pub failure_url: Option<Url>,
    /// Token lifetime, for the expiry scenario.
    pub token_lifetime: Option<Duration>,
    /// Test cards.
    pub cards: TestCards,
    /// Issuer-authentication settings.
    pub acs: AcsConfig,
}

/// A setting that is missing or invalid.
#[derive(Debug, thiserror::Error)]
#[error("{setting}: {reason}")]
pub struct TargetError {
    /// Name of the setting, as the user writes it.
    pub setting: String,
    /// What is wrong.
    pub reason: String,
}

fn target_error(setting: &str, reason: impl fmt::Display) -> TargetError {
    TargetError {
        setting: setting.to_owned(),
        reason: reason.to_string(),
    }
}

impl TargetFile {
    /// Reads a target file.
    pub fn load(path: &Path) -> Result<Self, TargetError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            target_error("--target", format!("cannot read {}: {e}", path.display()))
        })?;
        toml::from_str(&text).map_err(|e| target_error(&format!("--target {}", path.display()), e))
    }

    /// Applies the environment, then the flags, over the file.
    pub fn overridden(
        mut self,
        env: impl Fn(&str) -> Option<String>,
        flags: &TargetOverrides,
    ) -> Self {
        let pick = |flag: &Option<String>, var: &str, file: Option<String>| {
            flag.clone()
                .or_else(|| env(var).filter(|v| !v.is_empty()))
                .or(file)
        };
        self.base_url = pick(&flags.base_url, "PAYCONF_BASE_URL", self.base_url.take());
        self.api_key = pick(
            &flags.api_key,
            "PAYCONF_API_KEY",
            self.api_key.take().map(|s| s.0),
        )
        .map(Secret);
        self.shop_login = pick(
            &flags.shop_login,
            "PAYCONF_SHOP_LOGIN",
            self.shop_login.take(),
        );
        self
    }

    /// Whether a base URL was given anywhere.
    pub fn has_base_url(&self) -> bool {
        self.base_url.is_some()
    }

    /// Checks every setting and builds the target.
    pub fn resolve(self) -> Result<TargetConfig, TargetError> {
        let base_url = self.base_url.ok_or_else(|| {
            target_error(
                "base_url",
                "missing (target file, PAYCONF_BASE_URL or --base-url)",
            )
        })?;
        let base_url = http_url("base_url", &base_url)?;
        let api_key = self.api_key.filter(|k| !k.0.is_empty()).ok_or_else(|| {
            target_error(
                "api_key",
                "missing (target file, PAYCONF_API_KEY or --api-key)",
            )
        })?;
        let shop_login = self.shop_login.filter(|s| !s.is_empty()).ok_or_else(|| {
            target_error(
                "shop_login",
                "missing (target file, PAYCONF_SHOP_LOGIN or --shop-login)",
            )
        })?;
        let currency = self.currency.unwrap_or_else(|| "EUR".to_owned());
        if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(target_error("currency", "must be a three-letter code"));
        }
        let amount = self.amount.unwrap_or_else(|| "1.00".to_owned());
        let well_formed = amount.split_once('.').is_some_and(|(u, d)| {
            !u.is_empty() && d.len() == 2 && u.bytes().chain(d.bytes()).all(|b| b.is_ascii_digit())
        });
        if !well_formed {
            return Err(target_error("amount", "must be written like 1.00"));
        }
        let success_url = self
            .success_url
            .map(|u| http_url("success_url", &u))
            .transpose()?;
        let failure_url = self
            .failure_url
            .map(|u| http_url("failure_url", &u))
            .transpose()?;
        let token_lifetime = match self.token_lifetime_secs {
            Some(0) => return Err(target_error("token_lifetime_secs", "must be at least 1")),
            other => other.map(Duration::from_secs),
        };
        for (name, card) in [
            ("frictionless", &self.cards.frictionless),
            ("three_ds", &self.cards.three_ds),
            ("declined", &self.cards.declined),
        ] {
            if let Some(card) = card {
                check_card(name, card)?;
            }
        }
        if self.cards.frictionless.is_none() {
            return Err(target_error(
                "cards.frictionless",
                "missing: a card not enrolled in 3-D Secure",
            ));
        }
        if self.cards.three_ds.is_none() {
            return Err(target_error(
                "cards.three_ds",
                "missing: a card enrolled in 3-D Secure",
            ));
        }
        Ok(TargetConfig {
            base_url,
            environment: self.environment,
            api_key,
            shop_login,
            currency,
            amount,
            success_url,
            failure_url,
            token_lifetime,
            cards: self.cards,
            acs: self.acs,
        })
    }
}

fn check_card(name: &str, card: &TestCard) -> Result<(), TargetError> {
    let setting = |field: &str| format!("cards.{name}.{field}");
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(card.number.expose()) {
        return Err(target_error(&setting("number"), "must be digits only"));
    }
    if card.exp_month.len() != 2 || !digits(&card.exp_month) {
        return Err(target_error(&setting("exp_month"), "must be two digits"));
    }
    if card.exp_year.len() != 2 || !digits(&card.exp_year) {
        return Err(target_error(&setting("exp_year"), "must be two digits"));
    }
    Ok(())
}

/// An absolute http(s) URL.
fn http_url(setting: &str, value: &str) -> Result<Url, TargetError> {
    let url = Url::parse(value).map_err(|e| target_error(setting, format!("{e}: {value:?}")))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(target_error(
            setting,
            "must be an absolute http or https URL",
        ));
    }
    Ok(url)
}

impl TargetConfig {
    /// The target for the reference implementation's built-in defaults at `base_url`.
    pub fn reference_defaults(base_url: Url, token_lifetime: Duration) -> Self {
        use payconf_reference as reference;
        let card = |number: &str| TestCard {
            number: Secret::new(number),
            exp_month: "12".to_owned(),
            exp_year: "99".to_owned(),
            cvv: Secret::new("123"),
        };
        let page = |outcome: &str| {
            base_url
                .join(&format!(
                    "/merchant/{}/{outcome}",
                    reference::DEFAULT_SHOP_LOGIN
                ))
                .expect("a path joins any http base URL")
        };
        Self {
            success_url: Some(page("success")),
            failure_url: Some(page("failure")),
            base_url: base_url.clone(),
            environment: Some(Environment::Sandbox),
            api_key: Secret::new(reference::DEFAULT_API_KEY),
            shop_login: reference::DEFAULT_SHOP_LOGIN.to_owned(),
            currency: "EUR".to_owned(),
            amount: "1.00".to_owned(),
            token_lifetime: Some(token_lifetime),
            cards: TestCards {
                frictionless: Some(card(reference::DEFAULT_FRICTIONLESS_CARD)),
                three_ds: Some(card(reference::DEFAULT_THREE_DS_CARD)),
                declined: Some(card(reference::DEFAULT_DECLINED_CARD)),
            },
            acs: AcsConfig {
                driver: AcsDriver::Form,
                fields: BTreeMap::from([(
                    "otp".to_owned(),
                    Secret::new(reference::DEFAULT_ISSUER_CODE),
                )]),
            },
        }
    }

    /// An API path under the base address (which may itself carry a path).
    pub fn api_url(&self, path: &str) -> Url {
        let mut url = self.base_url.clone();
        let base = url.path().trim_end_matches('/').to_owned();
        url.set_path(&format!("{base}{path}"));
        url.set_query(None);
        url
    }

    /// The secrets shown as `***` wherever they appear: the API key and the
    /// issuer form's values. (Card numbers are shown masked, by
    /// [`Self::card_numbers`]; security codes are too short to mask by value
    /// and are masked where they stand, in the `CVV` field.)
    pub fn secrets(&self) -> Vec<String> {
        let mut secrets = vec![self.api_key.expose().to_owned()];
        secrets.extend(self.acs.fields.values().map(|v| v.expose().to_owned()));
        secrets.retain(|s| !s.is_empty());
        secrets
    }

    /// Every test card, by its name in the target file.
    pub fn cards(&self) -> impl Iterator<Item = (&'static str, &TestCard)> {
        [
            ("frictionless", &self.cards.frictionless),
            ("three_ds", &self.cards.three_ds),
            ("declined", &self.cards.declined),
        ]
        .into_iter()
        .filter_map(|(name, card)| card.as_ref().map(|card| (name, card)))
    }

    /// The card numbers of the test cards, shown as first six and last four digits.
    pub fn card_numbers(&self) -> Vec<String> {
        self.cards()
            .map(|(_, card)| card.number.expose().to_owned())
            .collect()
    }

    /// The redactor for this target: its secrets masked, its card numbers
    /// shown as their first six and last four digits.
    pub fn redactor(&self) -> Redactor {
        let redactor = Redactor::new(self.secrets());
        for number in self.card_numbers() {
            redactor.add_card_number(&number);
        }
        redactor
    }

    /// The effective configuration as reports show it: keys, codes and CVVs
    /// masked, card numbers as their first six and last four digits.
    pub fn summary(&self) -> serde_json::Value {
        let cards: serde_json::Map<String, serde_json::Value> = self
            .cards()
            .map(|(name, card)| {
                (
                    name.to_owned(),
                    serde_json::json!({
                        "number": mask_pan(card.number.expose()),
                        "exp_month": card.exp_month,
                        "exp_year": card.exp_year,
                        "cvv": MASK,
                    }),
                )
            })
            .collect();
        let fields: serde_json::Map<String, serde_json::Value> = self
            .acs
            .fields
            .keys()
            .map(|name| (name.clone(), serde_json::Value::String(MASK.to_owned())))
            .collect();
        serde_json::json!({
            "base_url": self.base_url.as_str(),
            "environment": self.environment.map(Environment::name),
            "api_key": MASK,
            "shop_login": self.shop_login,
            "currency": self.currency,
            "amount": self.amount,
            "success_url": self.success_url.as_ref().map(Url::as_str),
            "failure_url": self.failure_url.as_ref().map(Url::as_str),
            "token_lifetime_secs": self.token_lifetime.map(|d| d.as_secs()),
            "cards": cards,
            "acs": {
                "driver": match self.acs.driver {
                    AcsDriver::Form => "form",
                    AcsDriver::None => "none",
                },
                "fields": fields,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPLETE: &str = r#"
        base_url = "https://sandbox.example/pay"
        api_key = "file-key"
        shop_login = "SHOP"
        [cards.frictionless]
        number = "4775718800002026"
        exp_month = "05"
        exp_year = "30"
        cvv = "999"
        [cards.three_ds]
        number = "5412388800004012"
        exp_month = "12"
        exp_year = "30"
        cvv = "123"
        [acs]
        driver = "form"
        fields = { otp = "123456" }
    "#;

    fn file(text: &str) -> TargetFile {
        toml::from_str(text).expect("valid TOML")
    }

    #[test]
    fn flags_win_over_the_environment_which_wins_over_the_file() {
        let env = |name: &str| {
            (name == "PAYCONF_API_KEY" || name == "PAYCONF_SHOP_LOGIN")
                .then(|| format!("env-{name}"))
        };
        let flags = TargetOverrides {
            shop_login: Some("FLAG_SHOP".into()),
            ..TargetOverrides::default()
        };
        let target = file(COMPLETE)
            .overridden(env, &flags)
            .resolve()
            .expect("complete");
        assert_eq!(target.api_key.expose(), "env-PAYCONF_API_KEY");
        assert_eq!(target.shop_login, "FLAG_SHOP");
        assert_eq!(target.base_url.as_str(), "https://sandbox.example/pay");
        assert_eq!(target.currency, "EUR");
        assert_eq!(target.acs.driver, AcsDriver::Form);
    }

    #[test]
    fn expiry_written_as_integers_reads_as_two_digits() {
        let text = COMPLETE
            .replace(r#"exp_month = "05""#, "exp_month = 5")
            .replace(r#"exp_year = "30""#, "exp_year = 30");
        let target = file(&text).resolve().expect("complete");
        let card = target
            .cards
            .frictionless
            .as_ref()
            .expect("a frictionless card");
        assert_eq!(
            (card.exp_month.as_str(), card.exp_year.as_str()),
            ("05", "30")
        );
    }

    #[test]
    fn api_paths_go_under_a_base_address_with_a_path() {
        let target = file(COMPLETE).resolve().expect("complete");
        assert_eq!(
            target.api_url("/api/v1/payment/create/").as_str(),
            "https://sandbox.example/pay/api/v1/payment/create/"
        );
    }

    fn refusal(text: &str) -> String {
        file(text).resolve().expect_err("incomplete").setting
    }

    #[test]
    fn missing_and_invalid_settings_are_named() {
        assert_eq!(refusal(""), "base_url");
        assert_eq!(refusal("base_url = \"sandbox.example\""), "base_url");
        assert_eq!(refusal("base_url = \"ftp://sandbox.example\""), "base_url");
        let without = |key: &str| COMPLETE.replace(&format!("{key} ="), &format!("# {key} ="));
        assert_eq!(refusal(&without("api_key")), "api_key");
        assert_eq!(refusal(&without("shop_login")), "shop_login");
        assert_eq!(
            refusal(&COMPLETE.replace("exp_month = \"05\"", "exp_month = \"5\"")),
            "cards.frictionless.exp_month"
        );
        let relative_page = COMPLETE.replace(
            "shop_login = \"SHOP\"",
            "shop_login = \"SHOP\"\nsuccess_url = \"/thanks\"",
        );
        assert_eq!(refusal(&relative_page), "success_url");
    }

    #[test]
    fn unknown_settings_are_refused() {
        let err = TargetFile::load(Path::new("/nonexistent/target.toml")).expect_err("no file");
        assert_eq!(err.setting, "--target");
        assert!(toml::from_str::<TargetFile>("base_ur = \"x\"").is_err());
    }

    #[test]
    fn debug_output_hides_keys_cards_and_codes() {
        let target = file(COMPLETE).resolve().expect("complete");
        let shown = format!("{target:?}");
        let cvvs = target.cards().map(|(_, card)| card.cvv.expose().to_owned());
        for secret in target
            .secrets()
            .into_iter()
            .chain(target.card_numbers())
            .chain(cvvs)
        {
            assert!(!shown.contains(&secret), "{secret} in {shown}");
        }
    }
}
