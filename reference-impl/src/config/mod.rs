//! Back-office configuration: the merchants the service knows, the sandbox's
//! test cards, the simulated issuer, and the service's own limits.
//!
//! [`ReferenceConfig::default`] is a complete sandbox (merchant `DEMO_SHOP`,
//! a test card for each outcome, issuer code `123456`), so the server runs with no file at
//! all; [`ReferenceConfig::from_toml`] reads the same settings from TOML.

mod file;

use std::{collections::BTreeMap, fmt, time::Duration};

use serde::Deserialize;
use url::Url;

use crate::{card::CardNumber, ledger::Settlement};
use payconf_spec::card::CardKind;

/// Shop login of the built-in merchant.
pub const DEFAULT_SHOP_LOGIN: &str = "DEMO_SHOP";
/// API key of the built-in merchant.
pub const DEFAULT_API_KEY: &str = "demo-api-key";
/// Test card that is not enrolled in 3-D Secure: submit authorizes it at once.
pub const DEFAULT_FRICTIONLESS_CARD: &str = "4775718800002026";
/// Test card enrolled in 3-D Secure: submit answers `8006`.
pub const DEFAULT_THREE_DS_CARD: &str = "5412388800004012";
/// Test card the issuer declines.
pub const DEFAULT_DECLINED_CARD: &str = "4000000000000002";
/// Back-office password of the built-in merchant.
pub const DEFAULT_PASSWORD: &str = "demo-password";
/// Secret the built-in merchant's server notifications are signed with.
pub const DEFAULT_SIGNING_SECRET: &str = "demo-signing-secret";
/// One-time code the simulated issuer accepts.
pub const DEFAULT_ISSUER_CODE: &str = "123456";
/// How long a payment token stays usable after create, by default.
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// How a shop settles by default: by itself (unified), this long after the
/// authorization. The real service settles hours later; a sandbox a team
/// tests refunds in, within a minute.
pub const DEFAULT_SETTLEMENT: Settlement = Settlement::Unified {
    delay_ms: DEFAULT_SETTLEMENT_DELAY_SECS * 1000,
};
/// The default settlement's delay, in seconds.
pub const DEFAULT_SETTLEMENT_DELAY_SECS: u64 = 30;
/// The longest a unified shop's settlement may wait: 30 days.
pub const MAX_SETTLEMENT_DELAY_SECS: u64 = 30 * 24 * 3600;

/// Everything the reference service is configured with.
#[derive(Clone, Debug)]
pub struct ReferenceConfig {
    /// Address the service's own pages are reached at, as seen by the buyer's
    /// browser. `None`: `http://` and the listener's address.
    pub public_url: Option<Url>,
    /// Lifetime of a payment token, counted from create.
    pub token_lifetime: Duration,
    /// Shops whose payment tokens live another time than `token_lifetime`,
    /// by shop login. payconf's embedded sandbox gives one shop tokens
    /// that expire within a second, for the expiry scenario, while the
    /// tokens of the shop the other scenarios pay at outlive a buyer's
    /// slowest journey through the payment page.
    pub shop_token_lifetimes: BTreeMap<String, Duration>,
    /// The one-time code the issuer-authentication page accepts.
    pub issuer_code: String,
    /// How the issuer-authentication page is built.
    pub issuer_page: IssuerPage,
    /// Merchants, each with its key and pages.
    pub merchants: Vec<Merchant>,
    /// Test cards and what the sandbox does with each; other cards are declined.
    pub cards: Vec<TestCard>,
    /// Time limits on clients and on shutdown.
    pub limits: ServerLimits,
    /// The data file that keeps profiles, payments and notifications owed
    /// across restarts (`payconf serve --data`); `None`: memory only.
    pub data_file: Option<std::path::PathBuf>,
    /// Loopback and private ranges notifications may go to even when the
    /// sandbox listens beyond loopback (see `outbound`); link-local and
    /// cloud metadata addresses are never allowed.
    pub outbound_allow: Vec<crate::outbound::Cidr>,
    /// Whether `/demo/checkout` is served: `None`, while the sandbox
    /// listens on loopback only.
    pub demo_checkout: Option<bool>,
}

impl ReferenceConfig {
    /// How long the tokens of `shop_login`'s payments live.
    pub fn token_lifetime_of(&self, shop_login: &str) -> Duration {
        self.shop_token_lifetimes
            .get(shop_login)
            .copied()
            .unwrap_or(self.token_lifetime)
    }
}

/// How long the server waits for clients, and for requests in flight when
/// it stops. Not part of the back-office file: the defaults are the
/// reference profile's; tests shorten them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Time a client has to send its request line and headers; a slower one
    /// is disconnected.
    pub header_read_timeout: Duration,
    /// Time a client has to send its body; a slower one gets 408.
    pub body_read_timeout: Duration,
    /// Time shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
    /// Time a merchant's server has to answer a notification.
    pub notification_timeout: Duration,
    /// Wait before a failed notification's second attempt; each later
    /// wait is three times the one before.
    pub notification_first_retry: Duration,
    /// How long a notification is retried, counted from its first attempt.
    pub notification_window: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            notification_timeout: Duration::from_secs(10),
            notification_first_retry: Duration::from_secs(2),
            notification_window: Duration::from_secs(10 * 60),
        }
    }
}

/// A merchant profile from the back-office.
#[derive(Clone)]
pub struct Merchant {
    /// Shop identifier the merchant sends as `shopLogin`.
    pub shop_login: String,
    /// Secret sent as `Authorization: apikey <key>` on create.
    pub api_key: String,
    /// Page the buyer lands on after a successful payment: an absolute URL, or
    /// a path on the service's own public address.
    pub success_url: String,
    /// Page the buyer lands on after a failed or cancelled payment.
    pub failure_url: String,
    /// Where the service posts each payment's outcome (the merchant's
    /// server), unless a submit names another; `None`: nowhere.
    pub notification_url: Option<Url>,
    /// The secret the server notifications are signed with (HMAC-SHA256).
    pub signing_secret: String,
    /// The back-office password; `None`: the shop cannot sign in.
    pub password: Option<String>,
    /// How its authorised payments are settled: by the service after a
    /// delay (unified), or by the merchant's capture (separated).
    pub settlement: Settlement,
}

impl fmt::Debug for Merchant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Merchant")
            .field("shop_login", &self.shop_login)
            .field("api_key", &"***")
            .field("success_url", &self.success_url)
            .field("failure_url", &self.failure_url)
            .field(
                "notification_url",
                &self.notification_url.as_ref().map(Url::as_str),
            )
            .field("signing_secret", &"***")
            .field("password", &"***")
            .field("settlement", &self.settlement)
            .finish()
    }
}

/// A sandbox test card.
#[derive(Clone, Debug)]
pub struct TestCard {
    /// The card number (its `Debug` shows only the first six and last four digits).
    pub number: CardNumber,
    /// What the sandbox does when this card is submitted.
    pub behaviour: CardKind,
}

/// The sandbox's test card of `kind`.
pub fn default_card(kind: CardKind) -> &'static str {
    match kind {
        CardKind::NotEnrolled => DEFAULT_FRICTIONLESS_CARD,
        CardKind::FrictionlessAuthenticated => "4000000000000200",
        CardKind::Challenge => DEFAULT_THREE_DS_CARD,
        CardKind::AuthenticationFailed => "4000000000080277",
        CardKind::IssuerRejected => "4000000000080285",
        CardKind::AcsTechnicalProblem => "4000000000080293",
        CardKind::AcsTimeout => "4000000000080384",
        CardKind::InsufficientCredit => "4000000000002511",
        CardKind::CardExpired => "4000000000004335",
        CardKind::Declined => DEFAULT_DECLINED_CARD,
    }
}

/// Why a configuration could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read configuration file {path}: {source}")]
    Read {
        /// The path as given, so the message names what the operator typed.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown or mistyped settings.
    #[error("invalid configuration: {0}")]
    Toml(#[from] toml::de::Error),
    /// A setting has a value the service cannot use.
    #[error("invalid configuration: {setting}: {reason}")]
    Invalid {
        /// Dotted name of the setting.
        setting: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// How the simulated issuer builds its authentication page. Real issuers'
/// pages (3-D Secure access control servers) come in all these shapes; the
/// contract says nothing about the page, so a conformance harness must get
/// a buyer through each of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssuerPage {
    /// One plain HTML form for the code, and a second form that cancels.
    #[default]
    Form,
    /// No form in the HTML: a script builds it, Cancel first, and submits
    /// it when the buyer clicks Confirm.
    Scripted,
    /// The form inside an iframe, posting to the page that frames it.
    Framed,
    /// A channel choice (SMS, e-mail, app) first, then one form whose first
    /// button cancels and whose second confirms.
    TwoStep,
}

impl IssuerPage {
    /// The name the configuration file uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Form => "form",
            Self::Scripted => "scripted",
            Self::Framed => "framed",
            Self::TwoStep => "two-step",
        }
    }

    /// Every style, in the order the documentation lists them.
    pub const ALL: [Self; 4] = [Self::Form, Self::Scripted, Self::Framed, Self::TwoStep];
}

impl Default for ReferenceConfig {
    fn default() -> Self {
        let card = |number: &str, behaviour| TestCard {
            number: CardNumber::parse(number).expect("built-in test cards are valid"),
            behaviour,
        };
        Self {
            public_url: None,
            token_lifetime: DEFAULT_TOKEN_LIFETIME,
            shop_token_lifetimes: BTreeMap::new(),
            issuer_code: DEFAULT_ISSUER_CODE.to_owned(),
            issuer_page: IssuerPage::default(),
            merchants: vec![Merchant {
                shop_login: DEFAULT_SHOP_LOGIN.to_owned(),
                api_key: DEFAULT_API_KEY.to_owned(),
                success_url: format!("/merchant/{DEFAULT_SHOP_LOGIN}/success"),
                failure_url: format!("/merchant/{DEFAULT_SHOP_LOGIN}/failure"),
                notification_url: None,
                signing_secret: DEFAULT_SIGNING_SECRET.to_owned(),
                password: Some(DEFAULT_PASSWORD.to_owned()),
                settlement: DEFAULT_SETTLEMENT,
            }],
            limits: ServerLimits::default(),
            data_file: None,
            outbound_allow: Vec::new(),
            demo_checkout: None,
            cards: CardKind::ALL
                .into_iter()
                .map(|behaviour| card(default_card(behaviour), behaviour))
                .collect(),
        }
    }
}

/// The demo checkout's shop login.
pub const DEMO_SHOP_LOGIN: &str = "SANDBOX_DEMO";
/// Demo checkout payments made at once before [`DEMO_PACE`] applies.
pub const DEMO_BURST: u32 = 20;
/// One demo checkout payment per this, past the burst.
pub const DEMO_PACE: Duration = Duration::from_secs(1);

/// The demo checkout's shop (`/demo/checkout`), unless one is configured
/// under [`DEMO_SHOP_LOGIN`]: nobody signs in to it, nothing is posted for
/// it, and its key and signing secret are random and never shown.
pub fn demo_shop() -> Merchant {
    Merchant {
        shop_login: DEMO_SHOP_LOGIN.to_owned(),
        api_key: random_secret(),
        success_url: format!("/merchant/{DEMO_SHOP_LOGIN}/success"),
        failure_url: format!("/merchant/{DEMO_SHOP_LOGIN}/failure"),
        notification_url: None,
        signing_secret: random_secret(),
        password: None,
        settlement: DEFAULT_SETTLEMENT,
    }
}

/// The longest address the back-office keeps.
pub const MAX_ADDRESS_LEN: usize = 2048;

/// An address the service calls or sends a buyer to from the back-office:
/// an absolute `http` or `https` URL with a host, of at most
/// [`MAX_ADDRESS_LEN`] characters.
pub fn absolute_address(text: &str) -> Result<Url, &'static str> {
    const REASON: &str =
        "must be an absolute http or https address, such as https://shop.example/paid";
    if text.len() > MAX_ADDRESS_LEN {
        return Err("must be at most 2048 characters");
    }
    match Url::parse(text.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Ok(url),
        _ => Err(REASON),
    }
}

/// A signing secret: 16 to 128 printable ASCII characters, no spaces.
pub fn check_signing_secret(secret: &str) -> Result<(), &'static str> {
    let printable = secret.bytes().all(|b| b.is_ascii_graphic());
    if (16..=128).contains(&secret.len()) && printable {
        Ok(())
    } else {
        Err("must be 16 to 128 printable characters, without spaces")
    }
}

/// A fresh random secret, for a signing secret or an API key: two random
/// (v4) UUIDs in hexadecimal, 244 random bits from the system's generator.
pub fn random_secret() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}
