//! The `[notifications]` section of a target file: where payconf listens
//! for the target's server notifications, the address the target posts
//! them to, the shop's signing secret, and how long payconf waits.
//!
//! The section opts in to the `@notification` scenarios: without it they
//! are set aside, as the target may be unable to reach payconf at all.

use std::{net::SocketAddr, time::Duration};

use serde::Deserialize;
use url::Url;

use super::{Secret, TargetError, http_url, target_error};

/// How long a notification may take to arrive, unless the target file says.
pub const DEFAULT_WITHIN: Duration = Duration::from_secs(10);
/// How long a refused notification may take to be posted again, unless the
/// target file says: the reference profile retries after 2 seconds, a
/// service may wait longer.
pub const DEFAULT_RETRY_WITHIN: Duration = Duration::from_secs(30);
/// The variable that gives the shop's signing secret outside the file.
pub const SECRET_VARIABLE: &str = "PAYCONF_NOTIFICATION_SECRET";

/// `[notifications]` as written.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationsFile {
    listen: Option<String>,
    url: Option<String>,
    signing_secret: Option<Secret>,
    within_secs: Option<u64>,
    retry_within_secs: Option<u64>,
}

/// Where and how payconf hears the target's notifications.
#[derive(Clone, Debug)]
pub struct NotificationSettings {
    /// The address payconf's listener binds (`listen`): port 0 takes a free one.
    pub listen: SocketAddr,
    /// The address the target posts to (`url`), when it differs from the
    /// listener's own (behind NAT, from a container); `None`: the
    /// listener's address as bound.
    pub url: Option<Url>,
    /// The shop's signing secret, to verify signatures (`@signature`).
    pub signing_secret: Option<Secret>,
    /// How long after the payment's outcome its notification may arrive.
    pub within: Duration,
    /// How long after a refused delivery it may be posted again.
    pub retry_within: Duration,
    /// How long after an outcome's first notification payconf looks for a
    /// second event of it: [`SECOND_LOOK`], shorter for the embedded
    /// sandbox, which is known to notify at once.
    pub second_look: Duration,
}

/// How long after an outcome's first notification payconf looks for a
/// second event of the same outcome.
pub const SECOND_LOOK: Duration = Duration::from_secs(1);

impl NotificationsFile {
    /// The secret from `PAYCONF_NOTIFICATION_SECRET` (set and not empty)
    /// over the file's.
    pub fn with_secret(mut self, secret: Option<String>) -> Self {
        if let Some(secret) = secret {
            self.signing_secret = Some(Secret::new(secret));
        }
        self
    }

    /// Checks every setting.
    pub fn resolve(self) -> Result<NotificationSettings, TargetError> {
        let listen = self.listen.as_deref().unwrap_or("127.0.0.1:0");
        let listen: SocketAddr = listen.parse().map_err(|_| {
            target_error(
                "notifications.listen",
                format!("{listen:?} is not an IP address and port, like 127.0.0.1:8089"),
            )
        })?;
        let url = self
            .url
            .map(|url| http_url("notifications.url", &url))
            .transpose()?;
        if let Some(url) = &url {
            if url.query().is_some() || url.fragment().is_some() {
                return Err(target_error(
                    "notifications.url",
                    "must have no query or fragment: payconf adds a path of its own to it",
                ));
            }
            if listen.port() == 0 {
                return Err(target_error(
                    "notifications.listen",
                    "needs a port of its own when notifications.url is given: with port 0 \
                     payconf would listen on a port the url cannot name",
                ));
            }
        } else if listen.ip().is_unspecified() {
            return Err(target_error(
                "notifications.url",
                format!(
                    "missing: payconf listens on every interface ({listen}), so it cannot \
                     tell which address the target reaches it at"
                ),
            ));
        }
        if self
            .signing_secret
            .as_ref()
            .is_some_and(|s| s.expose().is_empty())
        {
            return Err(target_error(
                "notifications.signing_secret",
                "must not be empty",
            ));
        }
        let seconds = |name: &str, value: Option<u64>, default: Duration| match value {
            None => Ok(default),
            Some(secs @ 1..=3_600) => Ok(Duration::from_secs(secs)),
            Some(other) => Err(target_error(
                &format!("notifications.{name}"),
                format!("must be 1 to 3600 (seconds), not {other}"),
            )),
        };
        Ok(NotificationSettings {
            listen,
            url,
            signing_secret: self.signing_secret,
            within: seconds("within_secs", self.within_secs, DEFAULT_WITHIN)?,
            retry_within: seconds(
                "retry_within_secs",
                self.retry_within_secs,
                DEFAULT_RETRY_WITHIN,
            )?,
            second_look: SECOND_LOOK,
        })
    }
}

impl NotificationSettings {
    /// The settings of the embedded sandbox: a free loopback port, the
    /// sandbox's own signing secret, and a second look of 200 ms (as its
    /// tokens expire fast for the expiry scenario, its waits are short).
    pub fn sandbox(secret: &str) -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            url: None,
            signing_secret: Some(Secret::new(secret)),
            within: DEFAULT_WITHIN,
            retry_within: DEFAULT_RETRY_WITHIN,
            second_look: Duration::from_millis(200),
        }
    }
}
