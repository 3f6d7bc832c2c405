//! How long the target's payment tokens live, for the expiry scenario
//! (`token_lifetime_secs`), and the shop whose tokens live that long.

use std::time::Duration;

use super::Secret;

/// A shop the suite pays at with its own API key.
#[derive(Clone, Debug)]
pub struct ShopKey {
    /// Its shop login.
    pub shop_login: String,
    /// Its API key, a secret.
    pub api_key: Secret,
}

/// How long a payment token lives, counted from create.
#[derive(Clone, Debug)]
pub struct TokenLifetime {
    /// The lifetime.
    pub lifetime: Duration,
    /// The shop whose tokens live that long, when it is not the target's
    /// own (`shop_login`). The embedded sandbox has one: its tokens expire
    /// within a second, so that the expiry scenario waits only that long,
    /// while the tokens of the shop every other scenario pays at outlive a
    /// buyer's slowest journey (a browser on the payment page of a busy
    /// machine). A target file's lifetime is its own shop's.
    pub shop: Option<ShopKey>,
}

impl TokenLifetime {
    /// The lifetime of the tokens of the target's own shop.
    pub fn of_own_shop(lifetime: Duration) -> Self {
        Self {
            lifetime,
            shop: None,
        }
    }
}
