//! The service's shared state: the back-office configuration, the merchant
//! profiles, where the service's own pages are, and the payment store. Every handler reads it; it knows none of them (as
//! mini-redis keeps its `Db` apart from the commands).

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use url::Url;
use uuid::Uuid;

use crate::{
    call_log::CallLog,
    card_tokens::CardTokens,
    config::ReferenceConfig,
    journal::{DataError, Journal, Restored},
    outbound::Outbound,
    outbox::Notifier,
    profiles::{Profile, Profiles},
    rate_limit::Bucket,
    secrets::KeyHasher,
    sessions::Sessions,
    site::Site,
    store::{PaymentLog, PaymentStore},
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
    /// The names it answers to and its own origin.
    pub site: Site,
    /// Where it may send requests of its own (notifications).
    pub outbound: Arc<Outbound>,
    /// Live payments.
    pub store: PaymentStore,
    /// Server notifications waiting for the delivery task.
    pub notifier: Notifier,
    /// The API calls about each shop's payments and the notifications
    /// sent, as the back-office shows them.
    pub call_log: CallLog,
    /// Who is signed in to the back-office.
    pub sessions: Sessions,
    /// The demo checkout's shop, while the demo is served.
    pub demo_shop: Option<u32>,
    /// How many payments the demo checkout may still create.
    pub demo_limit: Bucket,
    /// Whether the back-office's sign-in page shows the demo sign-in: the
    /// default shop keeps the default password, and the sandbox listens on
    /// this machine alone (never on a network a team shares).
    pub demo_sign_in: bool,
    /// Where changes are written, with a data file.
    pub journal: Option<Arc<Journal>>,
    /// The shops' card tokens.
    pub card_tokens: CardTokens,
}

/// Why the service cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A merchant page does not resolve against the public address.
    #[error("a merchant page does not resolve: {0}")]
    Page(url::ParseError),
    /// The data file cannot be used.
    #[error(transparent)]
    Data(#[from] DataError),
}

impl Service {
    /// A request's JSON body, within the service's limits (media type,
    /// size, the time it may take): see [`crate::request::body`]; kept in
    /// the call's `exchange` for the back-office's log.
    pub async fn json_body(
        &self,
        parts: &http::request::Parts,
        body: hyper::body::Incoming,
        exchange: &mut crate::call_log::Exchange,
    ) -> Result<Bytes, crate::error::ApiError> {
        let body = crate::request::body::read_json_body(
            &parts.headers,
            body,
            self.config.limits.body_read_timeout,
        )
        .await?;
        exchange.request(&body);
        Ok(body)
    }

    /// Builds the service for a configuration, standing at `site`;
    /// with a data file, opens it and puts back what it holds: the saved
    /// profiles, the payments still within their lifetime, and the
    /// notifications still owed (queued again).
    pub fn new(config: ReferenceConfig, site: Site) -> Result<Self, StartError> {
        let public_url = site.public_url.clone();
        let outbound = Arc::new(Outbound::new(
            site.loopback_only(),
            config.outbound_allow.clone(),
        ));
        let mut merchants = config.merchants.clone();
        let demo_served = config.demo_checkout.unwrap_or(site.loopback_only());
        let demo_sign_in = site.loopback_only()
            && merchants.iter().any(|m| {
                m.shop_login == crate::config::DEFAULT_SHOP_LOGIN
                    && m.password.as_deref() == Some(crate::config::DEFAULT_PASSWORD)
            });
        let demo_shop = match merchants
            .iter()
            .position(|m| m.shop_login == crate::config::DEMO_SHOP_LOGIN)
        {
            Some(index) => index,
            None => {
                merchants.push(crate::config::demo_shop());
                merchants.len() - 1
            }
        };
        let demo_shop = u32::try_from(demo_shop).ok().filter(|_| demo_served);
        let opened = config.data_file.as_deref().map(Journal::open).transpose()?;
        let hasher = match &opened {
            Some((_, restored)) => KeyHasher::new(restored.digest_key),
            None => KeyHasher::random(),
        };
        let profiles =
            Profiles::new(merchants, public_url.clone(), hasher).map_err(StartError::Page)?;
        let (journal, restored) = match opened {
            None => (None, Restored::default()),
            Some((connection, mut restored)) => {
                profiles
                    .restore(std::mem::take(&mut restored.profiles))
                    .map_err(StartError::Page)?;
                let journal = Journal::start(connection, profiles.logins());
                for profile in profiles.all() {
                    journal.profile(&profile);
                }
                (Some(journal), restored)
            }
        };
        let store = PaymentStore::journaled(
            config.token_lifetime,
            journal.clone().map(|j| j as Arc<dyn PaymentLog>),
        );
        let notifier = Notifier::default();
        let card_tokens = CardTokens::default();
        put_back(
            restored,
            &profiles,
            &store,
            &notifier,
            &card_tokens,
            journal.is_some(),
        );
        Ok(Self {
            config,
            profiles,
            public_url,
            site,
            outbound,
            store,
            notifier,
            call_log: CallLog::default(),
            sessions: Sessions::default(),
            demo_shop,
            demo_limit: Bucket::new(
                crate::config::DEMO_BURST,
                1.0 / crate::config::DEMO_PACE.as_secs_f64(),
            ),
            journal,
            demo_sign_in,
            card_tokens,
        })
    }

    /// A page of the service's own for a payment: `path` with the shop
    /// login as `a` and the payment token as `b`, as the real service's
    /// pages carry them (`pagam.aspx?a=<shopLogin>&b=<paymentToken>`,
    /// `pagam3d.aspx?a=…&b=…`: docs/real-service.md).
    pub fn own_page(&self, path: &str, shop_login: &str, token: &Uuid) -> Url {
        let mut url = self
            .public_url
            .join(path.trim_start_matches('/'))
            .unwrap_or_else(|_| self.public_url.clone());
        url.query_pairs_mut()
            .append_pair("a", shop_login)
            .append_pair("b", &token.hyphenated().to_string());
        url
    }

    /// The profile of the merchant at an index, as it is now.
    pub fn merchant(&self, index: u32) -> Arc<Profile> {
        self.profiles.get(index)
    }
}

/// Puts back what the data file held: each payment under its shop, each
/// notification still owed queued again; a shop no longer known is
/// skipped with a warning.
fn put_back(
    restored: Restored,
    profiles: &Profiles,
    store: &PaymentStore,
    notifier: &Notifier,
    card_tokens: &CardTokens,
    journaled: bool,
) {
    let (payments, owed) = (restored.payments.len(), restored.notifications.len());
    for mut saved in restored.payments {
        match profiles.find(&saved.shop_login) {
            Some((index, _)) => {
                saved.payment.merchant = index;
                store.restore(saved.token, saved.payment, saved.expires_unix_ms);
            }
            None => tracing::warn!(
                shop = saved.shop_login,
                "a saved payment's shop is unknown; not restored"
            ),
        }
    }
    for (shop_login, mut delivery) in restored.notifications {
        if let Some((index, _)) = profiles.find(&shop_login) {
            delivery.merchant = index;
            notifier.enqueue(delivery);
        }
    }
    let tokens = restored.card_tokens.len();
    for (shop_login, token, card) in restored.card_tokens {
        if let Some((index, _)) = profiles.find(&shop_login) {
            card_tokens.restore(index, token, card);
        }
    }
    if journaled {
        tracing::info!(
            payments,
            notifications = owed,
            card_tokens = tokens,
            "data file read back"
        );
    }
}
