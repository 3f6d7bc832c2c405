//! The service's shared state: the back-office configuration, each
//! merchant's pages resolved, where the service's own pages are, and the
//! payment store. Every handler reads it; it knows none of them (as
//! mini-redis keeps its `Db` apart from the commands).

use bytes::Bytes;
use http_body_util::Full;
use url::Url;
use uuid::Uuid;

use crate::{
    config::{Merchant, ReferenceConfig},
    store::PaymentStore,
};

/// A response body: the whole answer in memory, as every answer here is small.
pub type Body = Full<Bytes>;

/// Everything a request handler can see.
#[derive(Debug)]
pub struct Service {
    /// The back-office configuration.
    pub config: ReferenceConfig,
    /// Absolute success and failure pages of each merchant, in configuration order.
    pub merchant_pages: Vec<MerchantPages>,
    /// Where the service's own pages are, as the buyer's browser sees them.
    pub public_url: Url,
    /// Live payments.
    pub store: PaymentStore,
}

/// A merchant's pages, resolved to absolute addresses.
#[derive(Clone, Debug)]
pub struct MerchantPages {
    /// Where the buyer lands after a successful payment.
    pub success: Url,
    /// Where the buyer lands after a failed or cancelled payment.
    pub failure: Url,
}

impl Service {
    /// Builds the service for a configuration, reached at `public_url`.
    pub fn new(config: ReferenceConfig, public_url: Url) -> Result<Self, url::ParseError> {
        let merchant_pages = config
            .merchants
            .iter()
            .map(|m| {
                Ok(MerchantPages {
                    success: public_url.join(&m.success_url)?,
                    failure: public_url.join(&m.failure_url)?,
                })
            })
            .collect::<Result<_, url::ParseError>>()?;
        let store = PaymentStore::new(config.token_lifetime);
        Ok(Self {
            config,
            merchant_pages,
            public_url,
            store,
        })
    }

    /// A page of the service's own for a payment: `path` with the shop
    /// login and the payment token as query parameters, as the real
    /// service's issuer address carries them.
    pub fn own_page(&self, path: &str, shop_login: &str, token: &Uuid) -> Url {
        let mut url = self
            .public_url
            .join(path.trim_start_matches('/'))
            .unwrap_or_else(|_| self.public_url.clone());
        url.query_pairs_mut()
            .append_pair("shopLogin", shop_login)
            .append_pair("paymentToken", &token.hyphenated().to_string());
        url
    }

    /// The merchant at an index of the configuration, with its pages.
    pub fn merchant(&self, index: u32) -> (&Merchant, &MerchantPages) {
        let i = index as usize;
        (&self.config.merchants[i], &self.merchant_pages[i])
    }
}
