//! The back-office configuration file: TOML, every setting optional,
//! each refusal naming its setting.

use std::{fmt, path::Path, time::Duration};

use serde::Deserialize;
use url::Url;

use payconf_spec::card::CardKind;

use super::{ConfigError, IssuerPage, Merchant, ReferenceConfig, TestCard};
use crate::{card::CardNumber, ledger::Settlement};

/// The TOML form of [`ReferenceConfig`]: every setting optional, defaults filled in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    public_url: Option<String>,
    token_lifetime_secs: Option<u64>,
    issuer_code: Option<String>,
    issuer_page: Option<IssuerPage>,
    merchants: Option<Vec<MerchantEntry>>,
    cards: Option<Vec<CardEntry>>,
    /// Loopback and private ranges (CIDR) notifications may go to when the
    /// sandbox listens beyond loopback.
    outbound_allow: Option<Vec<String>>,
    /// Serve `/demo/checkout` (by default, only while listening on loopback).
    demo_checkout: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MerchantEntry {
    shop_login: String,
    api_key: String,
    success_url: Option<String>,
    failure_url: Option<String>,
    notification_url: Option<String>,
    signing_secret: Option<String>,
    password: Option<String>,
    /// `unified` (the default) or `separated`.
    settlement: Option<String>,
    /// For `unified`: from the authorization to the settlement.
    settlement_delay_secs: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CardEntry {
    number: String,
    behaviour: CardKind,
}

impl ReferenceConfig {
    /// Reads a TOML configuration file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_toml(&text)
    }

    /// Parses a TOML configuration; settings it leaves out keep their defaults.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let file: ConfigFile = toml::from_str(text)?;
        let mut config = Self::default();
        if let Some(url) = file.public_url {
            let parsed = Url::parse(&url).map_err(|e| invalid("public_url", e))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(invalid("public_url", "must be an http or https URL"));
            }
            config.public_url = Some(parsed);
        }
        if let Some(secs) = file.token_lifetime_secs {
            if secs == 0 {
                return Err(invalid("token_lifetime_secs", "must be at least 1"));
            }
            config.token_lifetime = Duration::from_secs(secs);
        }
        if let Some(code) = file.issuer_code {
            if code.is_empty() || code.len() > 32 {
                return Err(invalid("issuer_code", "must be 1 to 32 characters"));
            }
            config.issuer_code = code;
        }
        if let Some(style) = file.issuer_page {
            config.issuer_page = style;
        }
        if let Some(entries) = file.merchants {
            config.merchants = entries
                .into_iter()
                .enumerate()
                .map(|(i, entry)| merchant_from_entry(i, entry))
                .collect::<Result<_, _>>()?;
        }
        if let Some(entries) = file.cards {
            config.cards = entries
                .into_iter()
                .enumerate()
                .map(|(i, entry)| {
                    let number = CardNumber::parse(&entry.number)
                        .map_err(|e| invalid(&format!("cards[{i}].number"), e.to_string()))?;
                    Ok(TestCard {
                        number,
                        behaviour: entry.behaviour,
                    })
                })
                .collect::<Result<_, ConfigError>>()?;
        }
        for (i, range) in file.outbound_allow.unwrap_or_default().iter().enumerate() {
            let cidr = range
                .parse()
                .map_err(|reason| invalid(&format!("outbound_allow[{i}]"), reason))?;
            config.outbound_allow.push(cidr);
        }
        config.demo_checkout = file.demo_checkout;
        config.validate()?;
        Ok(config)
    }

    /// Checks the settings that hold across entries.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.merchants.is_empty() {
            return Err(invalid("merchants", "at least one merchant is needed"));
        }
        for (i, merchant) in self.merchants.iter().enumerate() {
            let clash = self.merchants[..i]
                .iter()
                .any(|m| m.shop_login == merchant.shop_login || m.api_key == merchant.api_key);
            if clash {
                return Err(invalid(
                    &format!("merchants[{i}]"),
                    "shop_login and api_key must be unique",
                ));
            }
        }
        for (i, card) in self.cards.iter().enumerate() {
            if self.cards[..i].iter().any(|c| c.number == card.number) {
                return Err(invalid(&format!("cards[{i}].number"), "listed twice"));
            }
        }
        Ok(())
    }

    /// The merchant a shop login names.
    pub fn merchant(&self, shop_login: &str) -> Option<&Merchant> {
        self.merchants.iter().find(|m| m.shop_login == shop_login)
    }

    /// What the sandbox does with a card; `None` for a card it does not know.
    pub fn card_kind(&self, number: &CardNumber) -> Option<CardKind> {
        self.cards
            .iter()
            .find(|c| &c.number == number)
            .map(|c| c.behaviour)
    }
}

fn merchant_from_entry(i: usize, entry: MerchantEntry) -> Result<Merchant, ConfigError> {
    let setting = |name: &str| format!("merchants[{i}].{name}");
    let login_ok = !entry.shop_login.is_empty()
        && entry.shop_login.len() <= 64
        && entry
            .shop_login
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !login_ok {
        return Err(invalid(
            &setting("shop_login"),
            "must be 1 to 64 letters, digits, '_' or '-'",
        ));
    }
    if entry.api_key.is_empty() {
        return Err(invalid(&setting("api_key"), "must not be empty"));
    }
    let page = |name: &str, value: Option<String>, default: &str| {
        let value = value.unwrap_or_else(|| format!("/merchant/{}/{default}", entry.shop_login));
        check_page_address(&value).map_err(|reason| invalid(&setting(name), reason))?;
        Ok::<_, ConfigError>(value)
    };
    let success_url = page("success_url", entry.success_url, "success")?;
    let failure_url = page("failure_url", entry.failure_url, "failure")?;
    let notification_url = entry
        .notification_url
        .map(|text| {
            super::absolute_address(&text)
                .map_err(|reason| invalid(&setting("notification_url"), reason))
        })
        .transpose()?;
    let signing_secret = match entry.signing_secret {
        Some(secret) => {
            super::check_signing_secret(&secret)
                .map_err(|reason| invalid(&setting("signing_secret"), reason))?;
            secret
        }
        None => super::random_secret(),
    };
    if entry.password.as_deref() == Some("") {
        return Err(invalid(&setting("password"), "must not be empty"));
    }
    let settlement = match (entry.settlement.as_deref(), entry.settlement_delay_secs) {
        (None | Some("unified"), None) => super::DEFAULT_SETTLEMENT,
        (None | Some("unified"), Some(secs)) if secs <= super::MAX_SETTLEMENT_DELAY_SECS => {
            Settlement::Unified {
                delay_ms: secs * 1000,
            }
        }
        (None | Some("unified"), Some(_)) => {
            return Err(invalid(
                &setting("settlement_delay_secs"),
                "must be at most 2592000 (30 days)",
            ));
        }
        (Some("separated"), None) => Settlement::Separated,
        (Some("separated"), Some(_)) => {
            return Err(invalid(
                &setting("settlement_delay_secs"),
                "applies to settlement = \"unified\" only",
            ));
        }
        (Some(_), _) => {
            return Err(invalid(
                &setting("settlement"),
                "must be \"unified\" or \"separated\"",
            ));
        }
    };
    Ok(Merchant {
        shop_login: entry.shop_login,
        api_key: entry.api_key,
        success_url,
        failure_url,
        notification_url,
        signing_secret,
        password: entry.password,
        settlement,
    })
}

/// A merchant page is an absolute http(s) URL or a path on the service itself.
fn check_page_address(value: &str) -> Result<(), PageAddressError> {
    if value.starts_with('/') && !value.starts_with("//") {
        return Ok(());
    }
    match Url::parse(value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(()),
        Ok(_) => Err(PageAddressError::Scheme),
        Err(e) => Err(PageAddressError::Unparsed(e)),
    }
}

/// Why a merchant page's address is not one.
#[derive(Debug, thiserror::Error)]
enum PageAddressError {
    /// An absolute URL of another scheme.
    #[error("must be an http or https URL, or a path starting with '/'")]
    Scheme,
    /// Neither a path nor a URL.
    #[error("{0}")]
    Unparsed(url::ParseError),
}

fn invalid(setting: &str, reason: impl fmt::Display) -> ConfigError {
    ConfigError::Invalid {
        setting: setting.to_owned(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{
        DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_ISSUER_CODE,
        DEFAULT_SHOP_LOGIN, DEFAULT_THREE_DS_CARD, DEFAULT_TOKEN_LIFETIME, default_card,
    };

    /// The sandbox's card of every kind is a card number: digits of a
    /// card's length and a right check digit.
    #[test]
    fn the_sandbox_card_of_every_kind_passes_the_luhn_check() {
        for kind in CardKind::ALL {
            let pan = default_card(kind);
            assert!(CardNumber::parse(pan).is_ok(), "{}: {pan}", kind.name());
        }
    }

    #[test]
    fn a_shop_s_own_token_lifetime_is_its_and_no_other_shop_s() {
        let mut config = ReferenceConfig::default();
        config
            .shop_token_lifetimes
            .insert("EXPIRING".to_owned(), std::time::Duration::from_secs(1));
        assert_eq!(
            config.token_lifetime_of("EXPIRING"),
            std::time::Duration::from_secs(1)
        );
        assert_eq!(
            config.token_lifetime_of(DEFAULT_SHOP_LOGIN),
            DEFAULT_TOKEN_LIFETIME
        );
    }

    #[test]
    fn an_empty_file_gives_the_built_in_sandbox() {
        let config = ReferenceConfig::from_toml("").expect("empty is valid");
        assert_eq!(config.merchants.len(), 1);
        assert_eq!(config.merchants[0].shop_login, DEFAULT_SHOP_LOGIN);
        assert_eq!(config.issuer_code, DEFAULT_ISSUER_CODE);
        assert_eq!(config.token_lifetime, DEFAULT_TOKEN_LIFETIME);
        let behaviour = |pan| config.card_kind(&CardNumber::parse(pan).expect("valid"));
        assert_eq!(
            behaviour(DEFAULT_FRICTIONLESS_CARD),
            Some(CardKind::NotEnrolled)
        );
        assert_eq!(behaviour(DEFAULT_THREE_DS_CARD), Some(CardKind::Challenge));
        assert_eq!(behaviour(DEFAULT_DECLINED_CARD), Some(CardKind::Declined));
        assert_eq!(behaviour("4242424242424242"), None);
    }

    #[test]
    fn the_outcomes_are_read_by_name_and_the_old_names_still_read() {
        let config = ReferenceConfig::from_toml(
            "[[cards]]\nnumber = \"4775718800002026\"\nbehaviour = \"frictionless\"\n\
             [[cards]]\nnumber = \"5412388800004012\"\nbehaviour = \"three_ds\"\n\
             [[cards]]\nnumber = \"4000000000080384\"\nbehaviour = \"acs_timeout\"\n",
        )
        .expect("valid");
        let behaviours: Vec<_> = config.cards.iter().map(|c| c.behaviour).collect();
        assert_eq!(
            behaviours,
            [
                CardKind::NotEnrolled,
                CardKind::Challenge,
                CardKind::AcsTimeout
            ]
        );
        for behaviour in CardKind::ALL {
            let text = format!(
                "[[cards]]\nnumber = \"{}\"\nbehaviour = \"{}\"\n",
                default_card(behaviour),
                behaviour.name()
            );
            let read = ReferenceConfig::from_toml(&text).expect("valid");
            assert_eq!(read.cards[0].behaviour, behaviour, "{}", behaviour.name());
        }
    }

    #[test]
    fn a_merchant_without_pages_gets_the_services_own() {
        let config =
            ReferenceConfig::from_toml("[[merchants]]\nshop_login = \"ACME\"\napi_key = \"k\"\n")
                .expect("valid");
        assert_eq!(config.merchants[0].success_url, "/merchant/ACME/success");
        assert_eq!(config.merchants[0].failure_url, "/merchant/ACME/failure");
    }

    fn refusal(text: &str) -> String {
        ReferenceConfig::from_toml(text)
            .expect_err("invalid")
            .to_string()
    }

    #[test]
    fn bad_settings_are_refused_naming_them() {
        assert!(refusal("token_lifetime_secs = 0").contains("token_lifetime_secs"));
        assert!(refusal("public_url = \"ftp://x\"").contains("public_url"));
        assert!(refusal("issuer_code = \"\"").contains("issuer_code"));
        assert!(refusal("merchants = []").contains("merchants"));
        assert!(
            refusal("[[merchants]]\nshop_login = \"A\"\napi_key = \"k\"\nsuccess_url = \"shop.example/ok\"")
                .contains("merchants[0].success_url")
        );
        assert!(
            refusal("[[cards]]\nnumber = \"4775718800002027\"\nbehaviour = \"declined\"")
                .contains("cards[0].number")
        );
        assert!(
            refusal("[[merchants]]\nshop_login = \"A\"\napi_key = \"k\"\n[[merchants]]\nshop_login = \"B\"\napi_key = \"k\"")
                .contains("unique")
        );
    }

    #[test]
    fn unknown_settings_and_behaviours_are_refused() {
        assert!(refusal("token_lifetime = 5").contains("token_lifetime"));
        assert!(
            refusal("[[cards]]\nnumber = \"4111111111111111\"\nbehaviour = \"maybe\"")
                .contains("maybe")
        );
    }

    #[test]
    fn issuer_page_styles_read_by_name_and_default_to_form() {
        assert_eq!(ReferenceConfig::default().issuer_page, IssuerPage::Form);
        for style in IssuerPage::ALL {
            let config = ReferenceConfig::from_toml(&format!("issuer_page = \"{}\"", style.name()))
                .expect("a known style");
            assert_eq!(config.issuer_page, style);
        }
        assert!(refusal("issuer_page = \"popup\"").contains("popup"));
    }

    #[test]
    fn merchant_debug_hides_the_api_key() {
        let config = ReferenceConfig::default();
        let shown = format!("{config:?}");
        assert!(!shown.contains(DEFAULT_API_KEY), "{shown}");
        assert!(!shown.contains(DEFAULT_FRICTIONLESS_CARD), "{shown}");
    }
}
