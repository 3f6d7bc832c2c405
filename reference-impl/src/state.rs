//! The service's shared state: the back-office configuration, the merchant
//! profiles, where the service's own pages are, and the payment store. Every handler reads it; it knows none of them (as
//! mini-redis keeps its `Db` apart from the commands).

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use url::Url;
use uuid::Uuid;

use crate::{
    backoffice::Sessions,
    config::ReferenceConfig,
    notify::Notifier,
    profiles::{Profile, Profiles},
    store::PaymentStore,
};

/// A response body: the whole answer in memory, as every answer here is small.
pub type Body = Full<Bytes>;

/// Everything a request handler can see.
#[derive(Debug)]
pub struct Service {
    /// The back-office configuration as the service started with it (its
    /// merchants as they were then: [`Self::profiles`] has them as they are).
    pub config: ReferenceConfig,
    /// The merchant profiles, as the back-office keeps them.
    pub profiles: Profiles,
    /// Where the service's own pages are, as the buyer's browser sees them.
    pub public_url: Url,
    /// Live payments.
    pub store: PaymentStore,
    /// Server notifications waiting for the delivery task.
    pub notifier: Notifier,
    /// Who is signed in to the back-office.
    pub sessions: Sessions,
}

impl Service {
    /// Builds the service for a configuration, reached at `public_url`.
    pub fn new(config: ReferenceConfig, public_url: Url) -> Result<Self, url::ParseError> {
        let profiles = Profiles::new(config.merchants.clone(), public_url.clone())?;
        let store = PaymentStore::new(config.token_lifetime);
        Ok(Self {
            config,
            profiles,
            public_url,
            store,
            notifier: Notifier::default(),
            sessions: Sessions::default(),
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

    /// The profile of the merchant at an index, as it is now.
    pub fn merchant(&self, index: u32) -> Arc<Profile> {
        self.profiles.get(index)
    }
}
