//! The target of `payconf run` with no target file: the embedded sandbox
//! (the reference implementation) with its built-in defaults, its
//! back-office pages, its payment page, its notifications and the
//! payment's life after submit declared: `DEMO_SHOP` settles by itself,
//! and a second shop of the embedded sandbox's own ([`SEPARATED_SHOP`])
//! waits for the merchant's capture; a third ([`EXPIRING_SHOP`]) is the
//! one whose tokens expire within a second, for the expiry scenario.

use std::{collections::BTreeMap, time::Duration};

use url::Url;

use super::{
    AcsConfig, AcsDriver, Alternative, BrowserSettings, CardField, DEFAULT_BUYER_EMAIL,
    DEFAULT_BUYER_NAME, DEFAULT_TRANSACTION_PREFIX, Environment, LifecycleOperation,
    LifecycleSettings, LifecycleShop, Lightbox, NotificationSettings, PaymentPage,
    RobustnessSettings, Secret, SettlementMode, ShopKey, TargetConfig, TestCard, TestCards,
    TlsSettings, TokenLifetime,
};

/// The embedded sandbox's second shop, which settles when the merchant
/// captures (the real service's "separated").
pub const SEPARATED_SHOP: &str = "SEPARATED_SHOP";
/// Its API key.
pub const SEPARATED_SHOP_KEY: &str = "separated-api-key";
/// The embedded sandbox's shop whose payment tokens expire after
/// [`EMBEDDED_TOKEN_LIFETIME`]: the expiry scenario pays there.
pub const EXPIRING_SHOP: &str = "EXPIRING_SHOP";
/// Its API key.
pub const EXPIRING_SHOP_KEY: &str = "expiring-api-key";
/// The lifetime of [`EXPIRING_SHOP`]'s tokens, short so that the expiry
/// scenario waits only that long (and 100 ms more). The tokens of
/// `DEMO_SHOP`, where every other scenario pays, live the reference
/// implementation's default (15 minutes): a buyer's way through the
/// payment page in a browser, on a machine whose cores are all busy, took
/// over a second, and a run whose every token lived a second failed the
/// payment page's scenarios with the browser driver.
pub const EMBEDDED_TOKEN_LIFETIME: Duration = Duration::from_secs(1);
/// How long after the authorization the embedded sandbox's `DEMO_SHOP`
/// settles by itself.
pub const EMBEDDED_SETTLEMENT_DELAY: Duration = Duration::from_millis(500);

/// The target for the reference implementation's built-in defaults at `base_url`.
pub fn reference_defaults(base_url: Url) -> TargetConfig {
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
    TargetConfig {
        success_url: Some(page("success")),
        failure_url: Some(page("failure")),
        base_url: base_url.clone(),
        environment: Some(Environment::Sandbox),
        api_key: Secret::new(reference::DEFAULT_API_KEY),
        shop_login: reference::DEFAULT_SHOP_LOGIN.to_owned(),
        currency: "EUR".to_owned(),
        amount: "1.00".to_owned(),
        token_lifetime: Some(TokenLifetime {
            lifetime: EMBEDDED_TOKEN_LIFETIME,
            shop: Some(ShopKey {
                shop_login: EXPIRING_SHOP.to_owned(),
                api_key: Secret::new(EXPIRING_SHOP_KEY),
            }),
        }),
        submit_authorization: true,
        trailing_slash: true,
        buyer_name: DEFAULT_BUYER_NAME.to_owned(),
        buyer_email: DEFAULT_BUYER_EMAIL.to_owned(),
        transaction_prefix: DEFAULT_TRANSACTION_PREFIX.to_owned(),
        cards: sandbox_cards(card),
        acs: AcsConfig {
            driver: AcsDriver::Form,
            fields: BTreeMap::from([(
                "otp".to_owned(),
                Secret::new(reference::DEFAULT_ISSUER_CODE),
            )]),
            failing_fields: BTreeMap::new(),
            steps: Vec::new(),
            browser: BrowserSettings::default(),
            origins: Vec::new(),
            journey_timeout: None,
        },
        payment_page: Some(payment_page(&base_url)),
        notifications: Some(NotificationSettings::sandbox(
            reference::DEFAULT_SIGNING_SECRET,
        )),
        lifecycle: Some(LifecycleSettings {
            operations: LifecycleOperation::ALL.into_iter().collect(),
            shops: vec![
                LifecycleShop {
                    shop_login: reference::DEFAULT_SHOP_LOGIN.to_owned(),
                    api_key: None,
                    settlement: SettlementMode::Unified,
                },
                LifecycleShop {
                    shop_login: SEPARATED_SHOP.to_owned(),
                    api_key: Some(Secret::new(SEPARATED_SHOP_KEY)),
                    settlement: SettlementMode::Separated,
                },
            ],
            settles_within: Duration::from_secs(10),
            trailing_slash: None,
        }),
        robustness: RobustnessSettings::default(),
        tls: TlsSettings::default(),
        proxy: None,
        proxy_variables: Default::default(),
    }
}

/// The sandbox's own page under `base_url`, with its card inputs and
/// its wallet and its lightbox script, as `payconf run` declares it for the embedded sandbox.
fn payment_page(base_url: &Url) -> PaymentPage {
    use payconf_reference as reference;
    let mut address = base_url.clone();
    address.set_path(reference::PAGE_PATH);
    address.set_query(None);
    let fields = [
        (CardField::Number, "cardNumber"),
        (CardField::ExpMonth, "expMonth"),
        (CardField::ExpYear, "expYear"),
        (CardField::Cvv, "cvv"),
        (CardField::Name, "holder"),
        (CardField::Email, "email"),
    ];
    PaymentPage {
        address: format!("{address}?a={{shopLogin}}&b={{paymentToken}}"),
        fields: fields
            .into_iter()
            .map(|(field, input)| (field, input.to_owned()))
            .collect(),
        steps: Vec::new(),
        alternative: Some(Alternative {
            choose: "#wallet button".to_owned(),
            fields: BTreeMap::new(),
            steps: Vec::new(),
        }),
        lightbox: Some(Lightbox {
            script: base_url
                .join(reference::SCRIPT_PATH)
                .expect("a path joins any http base URL"),
        }),
    }
}

/// The sandbox's test cards, each under its name in a target file.
fn sandbox_cards(card: impl Fn(&str) -> TestCard) -> TestCards {
    use payconf_spec::card::CardKind as B;
    let of = |kind: B| Some(card(payconf_reference::default_card(kind)));
    TestCards {
        frictionless: of(B::NotEnrolled),
        three_ds: of(B::Challenge),
        declined: of(B::Declined),
        frictionless_authenticated: of(B::FrictionlessAuthenticated),
        authentication_failed: of(B::AuthenticationFailed),
        issuer_rejected: of(B::IssuerRejected),
        acs_technical_problem: of(B::AcsTechnicalProblem),
        acs_timeout: of(B::AcsTimeout),
        insufficient_credit: of(B::InsufficientCredit),
        card_expired: of(B::CardExpired),
    }
}
