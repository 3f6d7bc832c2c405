//! A value that must never be printed, and every secret of a target.

use std::fmt;

use serde::Deserialize;

/// A value that must never be printed: its `Debug` and `Display` are `***`.
#[derive(Clone, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
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

impl super::TargetConfig {
    /// The secrets shown as `***` wherever they appear: the API keys (the
    /// target's, its other shops'), the issuer form's values and the base URL's credentials, as written and
    /// decoded. (Card numbers are shown masked, by [`super::TargetConfig::card_numbers`];
    /// security codes are masked where they stand, by the names of their
    /// fields and the words written before them.)
    pub fn secrets(&self) -> Vec<String> {
        let mut secrets = vec![self.api_key.expose().to_owned()];
        secrets.extend(self.acs.fields.values().map(|v| v.expose().to_owned()));
        secrets.extend(
            self.acs
                .failing_fields
                .values()
                .map(|v| v.expose().to_owned()),
        );
        let alternative = self.payment_page.iter().flat_map(|page| &page.alternative);
        secrets.extend(
            alternative
                .flat_map(|method| method.fields.values())
                .map(|v| v.expose().to_owned()),
        );
        let signing = self.notifications.iter().flat_map(|n| &n.signing_secret);
        secrets.extend(signing.map(|s| s.expose().to_owned()));
        let shops = self.lifecycle.iter().flat_map(|l| &l.shops);
        secrets.extend(
            shops
                .filter_map(|shop| shop.api_key.as_ref())
                .map(|k| k.expose().to_owned()),
        );
        let expiring = self.token_lifetime.iter().flat_map(|t| &t.shop);
        secrets.extend(expiring.map(|shop| shop.api_key.expose().to_owned()));
        for credential in [
            self.base_url.username(),
            self.base_url.password().unwrap_or(""),
        ] {
            secrets.push(credential.to_owned());
            let decoded = url::form_urlencoded::parse(format!("c={credential}").as_bytes())
                .next()
                .map(|(_, value)| value.into_owned());
            secrets.extend(decoded);
        }
        secrets.retain(|s| !s.is_empty());
        secrets.dedup();
        secrets
    }
}
