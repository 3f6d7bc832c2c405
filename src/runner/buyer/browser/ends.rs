//! How a browser journey ends without a landing that payconf can judge: a
//! page that did not load, pages over the browser's memory bound, or a
//! browser that stopped answering ([`Heartbeat`]).

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use url::Url;

/// When the browser last answered a look at the page. A slow bank's pages
/// keep the journey going for as long as `acs.journey_timeout` allows; a
/// browser that answers nothing (a page whose script never yields blocks
/// every command) is let go much sooner.
#[derive(Clone, Debug)]
pub(super) struct Heartbeat(Arc<Mutex<Instant>>);

impl Heartbeat {
    pub(super) fn new() -> Self {
        Self(Arc::new(Mutex::new(Instant::now())))
    }

    /// The browser answered.
    pub(super) fn beat(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// Resolves once the browser has not answered for `bound`.
    pub(super) async fn silent_for(&self, bound: Duration) {
        loop {
            let since = self.0.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
            if since >= bound {
                return;
            }
            tokio::time::sleep((bound - since).min(Duration::from_millis(250))).await;
        }
    }
}

use crate::runner::{buyer::Journey, result::Failure};

/// What the browser's pages held when they went over its bound; never, when
/// the machine does not tell.
pub(super) async fn over_memory(watch: &mut Option<tokio::task::JoinHandle<Option<u64>>>) -> u64 {
    if let Some(Ok(Some(used))) = match watch {
        Some(watch) => Some(watch.await),
        None => None,
    } {
        return used;
    }
    std::future::pending().await
}

/// The error of a journey whose pages went over the browser's memory bound:
/// the contract bounds nothing of a page, so it is not the target's failure.
pub(super) fn over_memory_failure(used: u64, limit: u64) -> Failure {
    Failure::harness(format!(
        "the browser's pages held {} MiB, over its bound of {} MiB, so payconf ended them; \
         raise acs.browser.memory_mb in the target file if the issuer's pages need more",
        used / (1024 * 1024),
        limit / (1024 * 1024)
    ))
}

/// A page that did not load: the target's failure, unless the browser
/// would not trust its certificate, which payconf cannot judge.
pub(super) fn load_failure(journey: &Journey<'_>, page: &Url, error: &str) -> Failure {
    if untrusted_connection(error) {
        return Failure::harness(format!(
            "the browser does not trust the connection to {page} ({error}): payconf cannot \
             judge a page it cannot open. Give Chromium the certificate authority of the \
             target (for instance in the system's trust store), or its flags with \
             acs.browser.args"
        ));
    }
    journey.failure_on(
        "the page to load in the browser",
        &format!("{page}: {error}"),
        None,
    )
}

/// Whether Chromium's network error says it does not trust the connection
/// (a certificate), or lacks what the server asks of it (a client
/// certificate): settings of the run. Other TLS failures
/// (`ERR_SSL_PROTOCOL_ERROR`: a server that speaks plain HTTP on an https
/// address) are the target's.
fn untrusted_connection(error: &str) -> bool {
    error.starts_with("net::ERR_CERT")
        || error.starts_with("net::ERR_SSL_CLIENT_AUTH")
        || error.starts_with("net::ERR_BAD_SSL_CLIENT_AUTH")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_the_browser_does_not_trust_is_not_a_failure_to_load() {
        for error in [
            "net::ERR_CERT_AUTHORITY_INVALID",
            "net::ERR_CERT_COMMON_NAME_INVALID",
            "net::ERR_SSL_CLIENT_AUTH_CERT_NEEDED",
        ] {
            assert!(untrusted_connection(error), "{error}");
        }
        for error in [
            "net::ERR_CONNECTION_RESET",
            "net::ERR_NAME_NOT_RESOLVED",
            "net::ERR_SSL_PROTOCOL_ERROR",
        ] {
            assert!(!untrusted_connection(error), "{error}");
        }
    }
}
