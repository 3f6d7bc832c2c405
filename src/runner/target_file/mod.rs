//! The server under test and what payconf needs to know about it: where it
//! is, the merchant's credentials, test cards, back-office pages, and how to
//! get through its issuer page.
//!
//! Settings come from a TOML file (`--target`), are overridden by the
//! environment (`PAYCONF_BASE_URL`, `PAYCONF_API_KEY`, `PAYCONF_SHOP_LOGIN`),
//! which is overridden by flags; clap reads the variables as the flags'
//! stand-ins (`env`), and `PAYCONF_ACS_DRIVER` is read here, so that a bad
//! value names the variable. [`TargetFile::resolve`] checks them all
//! and names every one that is missing or invalid ([`problems`]); the
//! target's addresses may be written from its base URL ([`address`]).

use std::{path::Path, time::Duration};

use payconf_spec::card::CardKind;
use serde::Deserialize;
use url::Url;

use crate::runner::redact::Redactor;

mod acs;
mod address;
mod aim;
mod cards;
mod lifecycle;
mod lightbox;
mod notifications;
mod payment_page;
mod problems;
mod robustness;
mod sandbox;
mod secret;
mod steps;
mod summary;
#[cfg(test)]
pub(crate) mod tests;
mod tls;
mod token_lifetime;

pub use acs::{AcsConfig, AcsDriver, BrowserSettings, driver_override};
use address::{http_url, page_url};
pub use aim::{Aim, AimError, Naming, aim};
pub use cards::{TestCard, TestCards};
pub use lifecycle::{
    LifecycleFile, LifecycleOperation, LifecycleSettings, LifecycleShop, SECOND_SHOP_KEY_VARIABLE,
    SettlementMode,
};
pub use lightbox::{Lightbox, LightboxFile, SCRIPT_SETTING};
pub use notifications::{NotificationSettings, NotificationsFile, SECRET_VARIABLE};
pub use payment_page::{Alternative, CardField, PaymentPage, PaymentPageFile, PaymentRefs};
pub use problems::TargetError;
use problems::{Problems, target_error};
pub use robustness::RobustnessSettings;
pub use sandbox::{
    EMBEDDED_SETTLEMENT_DELAY, EMBEDDED_TOKEN_LIFETIME, EXPIRING_SHOP, EXPIRING_SHOP_KEY,
    SEPARATED_SHOP, SEPARATED_SHOP_KEY, reference_defaults,
};
pub use secret::Secret;
pub use steps::{IssuerStep, StepAction, StepValue};
pub use tls::{TlsFile, TlsSettings, TransportOverrides};
pub use token_lifetime::{ShopKey, TokenLifetime};

/// Which environment of the service a target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
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

/// The target file's form: every setting optional until resolved.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetFile {
    /// The service's base address (`http://` or `https://`); the API is
    /// under `/api/v1/`. `PAYCONF_BASE_URL` and `--base-url` override it.
    base_url: Option<String>,
    /// `sandbox` (the default) or `production`, which payconf refuses
    /// unless `--allow-production`.
    environment: Option<Environment>,
    /// The merchant's key: `Authorization: apikey <api_key>`. Keep real keys
    /// out of files: `PAYCONF_API_KEY` or `--api-key`.
    api_key: Option<Secret>,
    /// The merchant's shop login.
    shop_login: Option<String>,
    /// The payments' currency (ISO 4217), `EUR` by default.
    currency: Option<String>,
    /// The payments' amount, `1.00` by default.
    amount: Option<String>,
    /// The merchant's success page: a path from `base_url`'s origin
    /// (`/merchant/SHOP/success`), `{base_url}/...`, or an absolute URL.
    success_url: Option<String>,
    /// The merchant's failure page, written as `success_url` is.
    failure_url: Option<String>,
    /// How long a payment token of `shop_login` lives: the token-expiry
    /// scenario creates a payment there and waits this long before paying.
    token_lifetime_secs: Option<u64>,
    /// Whether submit also sends `Authorization: apikey <api_key>` (default
    /// true).
    submit_authorization: Option<bool>,
    /// Whether the create and submit paths end with a slash (default true,
    /// as the contract writes them; the real service's clients call both).
    trailing_slash: Option<bool>,
    /// The buyer's name in every submit.
    buyer_name: Option<String>,
    /// The buyer's e-mail address in every submit.
    buyer_email: Option<String>,
    /// What every `shopTransactionID` begins with (at most 32 characters;
    /// `payconf-` by default).
    transaction_prefix: Option<String>,
    /// The target's test cards.
    #[serde(default)]
    cards: TestCards,
    /// How the buyer gets through the issuer's page.
    #[serde(default)]
    acs: AcsConfig,
    /// The standard payment page (the lightbox), if the server has one.
    payment_page: Option<PaymentPageFile>,
    /// Where payconf listens for the server's notifications.
    notifications: Option<NotificationsFile>,
    /// The payment's life after submit: detail, capture, cancel, refund.
    lifecycle: Option<LifecycleFile>,
    /// `PAYCONF_SECOND_SHOP_API_KEY`, once the overrides are applied.
    #[serde(skip)]
    second_shop_api_key: Option<String>,
    /// The opt-in robustness profile's settings.
    #[serde(default)]
    robustness: RobustnessSettings,
    /// A private CA to trust, a client certificate for mutual TLS.
    #[serde(default)]
    tls: TlsFile,
    /// The proxy every request but to loopback goes through (default: the
    /// environment's, as curl reads it).
    proxy: Option<String>,
}

/// Settings given as flags, or as their PAYCONF_* variables (clap reads a
/// variable when its flag is absent): they win over the target file.
#[derive(Clone, Debug, Default)]
pub struct TargetOverrides {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--shop-login`.
    pub shop_login: Option<String>,
    /// `--acs-driver`, else `PAYCONF_ACS_DRIVER` (see [`driver_override`]).
    pub acs_driver: Option<AcsDriver>,
    /// `--tls-ca-file`, `--tls-client-cert`, `--tls-client-key`, `--proxy`.
    pub transport: TransportOverrides,
    /// `PAYCONF_NOTIFICATION_SECRET`: the shop's signing secret, over
    /// `notifications.signing_secret` (a variable only: a secret on the
    /// command line is seen by every user of the machine).
    pub notification_secret: Option<String>,
    /// `PAYCONF_SECOND_SHOP_API_KEY`: the key of `[lifecycle.second_shop]`,
    /// over the file's (a variable only, as every secret).
    pub second_shop_api_key: Option<String>,
}

/// The buyer's name submits carry, unless the target names another.
pub const DEFAULT_BUYER_NAME: &str = "Jane Doe";
/// The buyer's e-mail address submits carry, unless the target names another.
pub const DEFAULT_BUYER_EMAIL: &str = "jane.doe@payconf.example";
/// What the suite's `shopTransactionID`s begin with, unless the target says otherwise.
pub const DEFAULT_TRANSACTION_PREFIX: &str = "payconf-";

/// A complete, checked target.
#[derive(Clone, Debug)]
pub struct TargetConfig {
    /// The service's base address; the API paths are under it.
    pub base_url: Url,
    /// The environment the target file declares, if it does.
    pub environment: Option<Environment>,
    /// The merchant's API key, a secret: never printed, masked in every report.
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
    pub token_lifetime: Option<TokenLifetime>,
    /// Whether submit also carries `Authorization: apikey <key>`, as the
    /// merchant's server, which holds the key, can send it (default: yes).
    pub submit_authorization: bool,
    /// Whether `payment/create/` and `payment/submit/` are called with their
    /// trailing slash, as the contract writes them (default), or without:
    /// the real service's clients call both (docs/real-service.md).
    pub trailing_slash: bool,
    /// The buyer's name in submits.
    pub buyer_name: String,
    /// The buyer's e-mail address in submits: a server may refuse the
    /// reserved example domains, so it can be set.
    pub buyer_email: String,
    /// What every `shopTransactionID` the suite sends begins with.
    pub transaction_prefix: String,
    /// Test cards.
    pub cards: TestCards,
    /// Issuer-authentication settings.
    pub acs: AcsConfig,
    /// The standard payment page, when the target declares one.
    pub payment_page: Option<PaymentPage>,
    /// Where payconf hears the target's server notifications, when the
    /// target file opts in to them (`[notifications]`).
    pub notifications: Option<NotificationSettings>,
    /// The operations after submit the target offers and how its shops
    /// settle, when the target file opts in to them (`[lifecycle]`).
    pub lifecycle: Option<LifecycleSettings>,
    /// How hard the `@robustness` scenarios press.
    pub robustness: RobustnessSettings,
    /// CAs to trust and a client certificate, read from their files.
    pub tls: TlsSettings,
    /// The proxy every request to the target goes through (never for a
    /// loopback address); `None`: the environment's, as curl reads it.
    pub proxy: Option<Url>,
    /// The environment's variables the proxy rules read, by name, as the
    /// run was given them (`RunOptions::environment`); empty: none set.
    pub proxy_variables: std::collections::BTreeMap<String, String>,
}

impl TargetFile {
    /// Reads a target file.
    pub fn load(path: &Path) -> Result<Self, TargetError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            target_error("--target", format!("cannot read {}: {e}", path.display()))
        })?;
        let file: Self = toml::from_str(&text)
            .map_err(|e| target_error(&format!("--target {}", path.display()), e))?;
        let folder = path.parent().unwrap_or(Path::new("."));
        Ok(Self {
            tls: file.tls.clone().relative_to(folder),
            ..file
        })
    }

    /// The target a run is given: its file (`--target`), if any, with the
    /// flags and variables over it.
    pub fn of_run(path: Option<&Path>, flags: &TargetOverrides) -> Result<Self, TargetError> {
        let file = match path {
            Some(path) => Self::load(path)?,
            None => Self::default(),
        };
        Ok(file.overridden(flags))
    }

    /// Applies the flags over the file. A flag not given takes its
    /// PAYCONF_* variable (clap's `env`), so the order is flag, then
    /// environment, then file.
    pub fn overridden(mut self, flags: &TargetOverrides) -> Self {
        let pick = |flag: &Option<String>, file: Option<String>| flag.clone().or(file);
        self.base_url = pick(&flags.base_url, self.base_url.take());
        self.api_key = pick(
            &flags.api_key,
            self.api_key.take().map(|s| s.expose().to_owned()),
        )
        .map(Secret::new);
        self.shop_login = pick(&flags.shop_login, self.shop_login.take());
        self.tls = std::mem::take(&mut self.tls).overridden(&flags.transport);
        self.proxy = flags.transport.proxy.clone().or(self.proxy.take());
        if let Some(notifications) = self.notifications.take() {
            self.notifications = Some(notifications.with_secret(flags.notification_secret.clone()));
        }
        self.second_shop_api_key = flags.second_shop_api_key.clone();
        self
    }

    /// Whether a base URL was given anywhere.
    pub fn has_base_url(&self) -> bool {
        self.base_url.is_some()
    }

    /// Checks every setting and builds the target; a target with problems
    /// is refused naming every one.
    pub fn resolve(self) -> Result<TargetConfig, TargetError> {
        let mut problems = Problems::default();
        let (base_url, api_key, shop_login) =
            required_settings(self.base_url, self.api_key, self.shop_login, &mut problems);
        let currency = self.currency.unwrap_or_else(|| "EUR".to_owned());
        let amount = self.amount.unwrap_or_else(|| "1.00".to_owned());
        check_money(&currency, &amount, &mut problems);
        let base = base_url.as_ref();
        let success_url = self
            .success_url
            .and_then(|u| problems.check(page_url("success_url", &u, base)));
        let failure_url = self
            .failure_url
            .and_then(|u| problems.check(page_url("failure_url", &u, base)));
        if self.token_lifetime_secs == Some(0) {
            problems.note(Err(target_error(
                "token_lifetime_secs",
                "must be at least 1",
            )));
        }
        let token_lifetime = self
            .token_lifetime_secs
            .map(|secs| TokenLifetime::of_own_shop(Duration::from_secs(secs)));
        problems.note(self.cards.check());
        check_buyer(
            self.buyer_name.as_deref(),
            self.buyer_email.as_deref(),
            self.transaction_prefix.as_deref(),
            &mut problems,
        );
        problems.note(self.robustness.check());
        check_acs(&self.acs, &mut problems);
        let payment_page = self
            .payment_page
            .and_then(|page| problems.check(page.resolve(base)));
        let notifications = self
            .notifications
            .and_then(|section| problems.check(section.resolve()));
        let second_key = self.second_shop_api_key;
        let lifecycle = match (self.lifecycle, &shop_login) {
            (Some(section), Some(shop_login)) => {
                problems.check(section.resolve(shop_login, second_key))
            }
            _ => None,
        };
        let tls = problems.check(self.tls.check());
        let proxy = problems.check(tls::proxy_url(self.proxy));
        let (Some(base_url), Some(api_key), Some(shop_login), Some(tls), Some(proxy)) =
            (base_url, api_key, shop_login, tls, proxy)
        else {
            return Err(problems
                .finish()
                .expect_err("a setting with no value has its problem noted"));
        };
        problems.finish()?;
        Ok(TargetConfig {
            tls,
            proxy,
            proxy_variables: Default::default(),
            base_url,
            environment: self.environment,
            api_key,
            shop_login,
            currency,
            amount,
            success_url,
            failure_url,
            token_lifetime,
            submit_authorization: self.submit_authorization.unwrap_or(true),
            trailing_slash: self.trailing_slash.unwrap_or(true),
            buyer_name: self
                .buyer_name
                .unwrap_or_else(|| DEFAULT_BUYER_NAME.to_owned()),
            buyer_email: self
                .buyer_email
                .unwrap_or_else(|| DEFAULT_BUYER_EMAIL.to_owned()),
            transaction_prefix: self
                .transaction_prefix
                .unwrap_or_else(|| DEFAULT_TRANSACTION_PREFIX.to_owned()),
            cards: self.cards,
            acs: self.acs,
            payment_page,
            notifications,
            lifecycle,
            robustness: self.robustness,
        })
    }
}

/// The settings every target needs (its base URL, the API key and the
/// shop login), each checked; `None` where one is missing or wrong, its
/// problem noted.
fn required_settings(
    base_url: Option<String>,
    api_key: Option<Secret>,
    shop_login: Option<String>,
    problems: &mut Problems,
) -> (Option<Url>, Option<Secret>, Option<String>) {
    let base_url = problems.check(
        required(base_url, "base_url", "PAYCONF_BASE_URL or --base-url")
            .and_then(|u| address::base_url(&u)),
    );
    let api_key = problems.check(required(
        api_key.filter(|k| !k.expose().is_empty()),
        "api_key",
        "PAYCONF_API_KEY or --api-key",
    ));
    let shop_login = problems.check(required(
        shop_login.filter(|s| !s.is_empty()),
        "shop_login",
        "PAYCONF_SHOP_LOGIN or --shop-login",
    ));
    (base_url, api_key, shop_login)
}

/// The buyer's name and e-mail address, when given, are not blank, and
/// the transaction prefix is short and printable.
fn check_buyer(
    name: Option<&str>,
    email: Option<&str>,
    prefix: Option<&str>,
    problems: &mut Problems,
) {
    for (setting, value) in [("buyer_name", name), ("buyer_email", email)] {
        if value.is_some_and(|v| v.trim().is_empty()) {
            problems.note(Err(target_error(setting, "must not be empty")));
        }
    }
    if prefix.is_some_and(|p| p.chars().count() > 32 || p.chars().any(char::is_control)) {
        problems.note(Err(target_error(
            "transaction_prefix",
            "must be at most 32 characters, none of them control characters",
        )));
    }
}

/// A setting every target needs, or the problem of its absence, naming
/// where it can be `given`.
fn required<T>(value: Option<T>, setting: &str, given: &str) -> Result<T, TargetError> {
    value.ok_or_else(|| target_error(setting, format!("missing (target file, {given})")))
}

/// The currency is a three-letter code, the amount written like `1.00`.
fn check_money(currency: &str, amount: &str, problems: &mut Problems) {
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_alphabetic()) {
        problems.note(Err(target_error("currency", "must be a three-letter code")));
    }
    let well_formed = amount.split_once('.').is_some_and(|(u, d)| {
        !u.is_empty() && d.len() == 2 && u.bytes().chain(d.bytes()).all(|b| b.is_ascii_digit())
    });
    if !well_formed {
        problems.note(Err(target_error("amount", "must be written like 1.00")));
    }
}

/// `[acs]`: every step's field one of `acs.fields`, every origin an http(s)
/// address, the bounds and the browser's memory within reason.
fn check_acs(acs: &AcsConfig, problems: &mut Problems) {
    for (i, step) in acs.steps.iter().enumerate() {
        if let Some(field) = step.field() {
            if !acs.fields.contains_key(field) {
                problems.note(Err(target_error(
                    &format!("acs.steps[{i}].field"),
                    format!("{field:?} is not a name in acs.fields"),
                )));
            }
        }
    }
    for (i, origin) in acs.origins.iter().enumerate() {
        problems.check(http_url(&format!("acs.origins[{i}]"), origin));
    }
    problems.note(acs.check_bounds());
    if acs.browser.memory_mb.is_some_and(|mb| mb < 64) {
        problems.note(Err(target_error(
            "acs.browser.memory_mb",
            "must be at least 64 (MiB): a browser needs that much to show any page",
        )));
    }
}

impl TargetConfig {
    /// An API path under the base address (which may itself carry a path).
    pub fn api_url(&self, path: &str) -> Url {
        let mut url = self.base_url.clone();
        let base = url.path().trim_end_matches('/').to_owned();
        url.set_path(&format!("{base}{path}"));
        url.set_query(None);
        url
    }

    /// `path` (written with its slash, as the contract writes it) under the
    /// base address, without the slash when the target says so
    /// (`trailing_slash`).
    pub fn operation_url(&self, path: &str) -> Url {
        if self.trailing_slash {
            self.api_url(path)
        } else {
            self.api_url(path.trim_end_matches('/'))
        }
    }

    /// The origins the run was given: the base URL's, the merchant's pages',
    /// the issuer's named in `acs.origins` and the payment page's. Only their answers' bodies
    /// are quoted in what payconf prints and writes.
    pub fn given_origins(&self) -> Vec<url::Origin> {
        let named = self
            .acs
            .origins
            .iter()
            .filter_map(|origin| Url::parse(origin).ok());
        [
            Some(&self.base_url),
            self.success_url.as_ref(),
            self.failure_url.as_ref(),
        ]
        .into_iter()
        .flatten()
        .cloned()
        .chain(named)
        .map(|url| url.origin())
        .chain(self.payment_page.iter().filter_map(PaymentPage::origin))
        .chain(
            self.payment_page
                .iter()
                .filter_map(|page| page.lightbox.as_ref())
                .map(|lightbox| lightbox.script.origin()),
        )
        .collect()
    }

    /// The base URL as payconf shows it: credentials in it (`user:pass@`)
    /// masked.
    pub fn shown_base_url(&self) -> String {
        crate::runner::redact::shown_url(&self.base_url)
    }

    /// Every test card, by its kind.
    pub fn cards(&self) -> impl Iterator<Item = (CardKind, &TestCard)> {
        self.cards.all()
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
        let redactor = Redactor::new(self.secrets()).publishing(self.given_origins());
        for number in self.card_numbers() {
            redactor.add_card_number(&number);
        }
        redactor
    }
}
