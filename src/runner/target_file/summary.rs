//! The effective target as reports show it.

use payconf_spec::card::mask_pan;

use super::{Environment, PaymentPage, TargetConfig, TestCard};
use crate::runner::redact::{MASK, shown_url};

impl TargetConfig {
    /// The effective configuration as reports show it: keys, codes and CVVs
    /// masked, card numbers as their first six and last four digits.
    pub fn summary(&self) -> serde_json::Value {
        let cards: serde_json::Map<String, serde_json::Value> = self
            .cards()
            .map(|(name, card)| (name.target_key().to_owned(), card.summary()))
            .collect();
        let fields: serde_json::Map<String, serde_json::Value> = self
            .acs
            .fields
            .keys()
            .map(|name| (name.clone(), serde_json::Value::String(MASK.to_owned())))
            .collect();
        serde_json::json!({
            "base_url": self.shown_base_url(),
            "environment": self.environment.map(Environment::name),
            "api_key": MASK,
            "shop_login": self.shop_login,
            "currency": self.currency,
            "amount": self.amount,
            "success_url": self.success_url.as_ref().map(shown_url),
            "failure_url": self.failure_url.as_ref().map(shown_url),
            "token_lifetime_secs": self.token_lifetime.as_ref().map(|t| t.lifetime.as_secs_f64()),
            "token_lifetime_shop": self
                .token_lifetime
                .as_ref()
                .and_then(|t| t.shop.as_ref())
                .map(|shop| shop.shop_login.as_str()),
            "submit_authorization": self.submit_authorization,
            "trailing_slash": self.trailing_slash,
            "buyer_name": self.buyer_name,
            "buyer_email": self.buyer_email,
            "transaction_prefix": self.transaction_prefix,
            "cards": cards,
            "acs": {
                "driver": self.acs.driver.name(),
                "fields": fields,
                "steps": self.acs.steps.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "journey_timeout_secs": self.acs.journey_bound().as_secs_f64(),
            },
            "payment_page": self.payment_page.as_ref().map(PaymentPage::summary),
            "notifications": self.notifications.as_ref().map(|n| serde_json::json!({
                "listen": n.listen.to_string(),
                "url": n.url.as_ref().map(shown_url),
                "signing_secret": n.signing_secret.as_ref().map(|_| MASK),
                "within_secs": n.within.as_secs(),
                "retry_within_secs": n.retry_within.as_secs(),
            })),
            "lifecycle": self.lifecycle.as_ref().map(|l| serde_json::json!({
                "operations": l.operations.iter().map(|o| o.name()).collect::<Vec<_>>(),
                "shops": l.shops.iter().map(|shop| serde_json::json!({
                    "shop_login": shop.shop_login,
                    "api_key": shop.api_key.as_ref().map(|_| MASK),
                    "settlement": shop.settlement.name(),
                })).collect::<Vec<_>>(),
                "settles_within_secs": l.settles_within.as_secs(),
            })),
            "tls": {
                "ca_file": self.tls.ca_source,
                "client_cert": self.tls.client_source,
            },
            "proxy": self.proxy.as_ref().map(shown_url),
            "robustness": {
                "concurrent_submits": self.robustness.concurrent_submits,
                "volleys": self.robustness.volleys,
                "parallel_flows": self.robustness.parallel_flows,
                "hostile_requests": self.robustness.hostile_requests,
            },
        })
    }
}

impl PaymentPage {
    /// The payment page as reports show it: the alternative method's
    /// values masked.
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "address": self.address,
            "fields": self
                .fields
                .iter()
                .map(|(field, input)| (field.name().to_owned(), serde_json::json!(input)))
                .collect::<serde_json::Map<_, _>>(),
            "steps": self.steps.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "lightbox": self.lightbox.as_ref().map(|lightbox| serde_json::json!({
                "script": shown_url(&lightbox.script),
            })),
            "alternative": self.alternative.as_ref().map(|method| serde_json::json!({
                "choose": method.choose,
                "fields": method
                    .fields
                    .keys()
                    .map(|name| (name.clone(), serde_json::json!(MASK)))
                    .collect::<serde_json::Map<_, _>>(),
                "steps": method.steps.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })),
        })
    }
}

impl TestCard {
    /// A test card as reports show it: the number as its first six and
    /// last four digits, the CVV masked.
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "number": mask_pan(self.number.expose()),
            "exp_month": self.exp_month,
            "exp_year": self.exp_year,
            "cvv": MASK,
        })
    }
}
