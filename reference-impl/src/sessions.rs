//! Who is signed in to the back-office, and the guards on every change.
//!
//! A sign-in opens a session named by a random ID in an `HttpOnly`,
//! `SameSite=Strict` cookie (`Secure` over HTTPS) scoped to the
//! back-office's path; the session holds a random form token that every
//! change must post back, and a change whose `Origin` is another site is
//! refused before it is read (a synchronizer token and an origin check, as
//! OWASP's cross-site request forgery sheet recommends both). A wrong
//! sign-in says only that the shop login or the password is wrong; after
//! [`FREE_FAILURES`] failures for one shop login, each further attempt has
//! to wait twice as long as the one before, whether the login exists or not.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use http::{HeaderMap, header};
use parking_lot::Mutex;
use subtle::ConstantTimeEq;

use crate::{
    config::random_secret, paths::BACK_OFFICE_PATH, profiles::Profiles, secrets::PasswordHash,
    site::Site,
};

/// The session cookie's name.
pub const COOKIE: &str = "backoffice_session";
/// How long a session lasts after sign-in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);
/// Failed sign-ins for one shop login before attempts are slowed.
pub const FREE_FAILURES: u32 = 3;
/// The longest wait between attempts.
const MAX_WAIT: Duration = Duration::from_secs(5 * 60);
/// The most sessions, and the most shop logins with failures, remembered:
/// past it, the oldest go.
const MAX_ENTRIES: usize = 10_000;
/// The most sessions one shop has open at once: a new sign-in past it ends
/// that shop's oldest session, never another shop's.
pub const MAX_SESSIONS_PER_SHOP: usize = 32;

/// A signed-in merchant.
#[derive(Clone, Debug)]
pub struct Session {
    /// The merchant's index.
    pub merchant: u32,
    /// The token every change must post as `csrf`.
    pub form_token: String,
    expires: Instant,
}

/// Failed sign-ins for one shop login.
#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

/// Password checks made at once; the others wait their turn.
pub const CHECKS_AT_ONCE: usize = 2;

/// The back-office's sessions and failed sign-ins.
#[derive(Debug)]
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
    failures: Mutex<HashMap<String, Failures>>,
    checks: tokio::sync::Semaphore,
}

impl Default for Sessions {
    fn default() -> Self {
        Self {
            open: Mutex::default(),
            failures: Mutex::default(),
            checks: tokio::sync::Semaphore::new(CHECKS_AT_ONCE),
        }
    }
}

/// What a sign-in attempt led to.
#[derive(Debug, PartialEq, Eq)]
pub enum SignIn {
    /// Signed in: the new session's ID.
    Opened(String),
    /// The shop login or the password is wrong.
    Refused,
    /// Too many failures: try again after this wait.
    Slowed(Duration),
}

impl Sessions {
    /// Checks a shop login and password against the password's hash (on a
    /// blocking thread, at most [`CHECKS_AT_ONCE`] at a time: a hash takes
    /// tens of milliseconds by design), and opens a session when they match.
    pub async fn sign_in(&self, profiles: &Profiles, shop_login: &str, password: &str) -> SignIn {
        let key: String = shop_login.chars().take(64).collect();
        if let Some(wait) = self.wait_for(&key, Instant::now()) {
            return SignIn::Slowed(wait);
        }
        let found = profiles.find(shop_login);
        let expected = found.as_ref().and_then(|(_, p)| p.password.clone());
        let known = expected.is_some();
        // Checked even for an unknown login, against a hash no password
        // has, so the time taken does not tell a known login from an
        // unknown one.
        let matches = {
            let _turn = self.checks.acquire().await;
            let password = password.to_owned();
            tokio::task::spawn_blocking(move || match expected {
                Some(expected) => expected.hash().verifies(&password),
                None => {
                    // Spends the same time; no password is right.
                    let _ = PasswordHash::nobodys().verifies(&password);
                    false
                }
            })
            .await
            .unwrap_or(false)
        };
        let now = Instant::now();
        match found {
            Some((merchant, _)) if matches && known => {
                self.failures.lock().remove(&key);
                SignIn::Opened(self.open(merchant, now))
            }
            _ => {
                let mut failures = self.failures.lock();
                if failures.len() >= MAX_ENTRIES && !failures.contains_key(&key) {
                    evict_oldest(&mut failures, |f| f.last);
                }
                let entry = failures.entry(key).or_insert(Failures {
                    count: 0,
                    last: now,
                });
                entry.count += 1;
                entry.last = now;
                SignIn::Refused
            }
        }
    }

    /// The wait still owed before `key` may try again, if any.
    fn wait_for(&self, key: &str, now: Instant) -> Option<Duration> {
        let failures = self.failures.lock();
        let entry = failures.get(key)?;
        let owed = wait_after(entry.count);
        let waited = now.saturating_duration_since(entry.last);
        (waited < owed).then(|| owed - waited)
    }

    fn open(&self, merchant: u32, now: Instant) -> String {
        let id = random_secret();
        let mut open = self.open.lock();
        open.retain(|_, s| s.expires > now);
        let of_this_shop = open.values().filter(|s| s.merchant == merchant).count();
        if of_this_shop >= MAX_SESSIONS_PER_SHOP {
            let oldest = open
                .iter()
                .filter(|(_, s)| s.merchant == merchant)
                .min_by_key(|(_, s)| s.expires)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                open.remove(&oldest);
            }
        } else if open.len() >= MAX_ENTRIES {
            evict_oldest(&mut open, |s| s.expires);
        }
        open.insert(
            id.clone(),
            Session {
                merchant,
                form_token: random_secret(),
                expires: now + SESSION_LIFETIME,
            },
        );
        id
    }

    /// The session a request's cookie names, while it lasts.
    pub fn of(&self, headers: &HeaderMap) -> Option<(String, Session)> {
        let id = cookie(headers, COOKIE)?;
        let open = self.open.lock();
        let session = open.get(id).filter(|s| s.expires > Instant::now())?;
        Some((id.to_owned(), session.clone()))
    }

    /// Ends a session.
    pub fn close(&self, id: &str) {
        self.open.lock().remove(id);
    }
}

/// The wait owed after `failures` failed sign-ins: none for the first
/// [`FREE_FAILURES`], then one second, doubling each time, at most five
/// minutes.
pub fn wait_after(failures: u32) -> Duration {
    match failures.checked_sub(FREE_FAILURES) {
        None => Duration::ZERO,
        Some(over) => Duration::from_secs(1u64 << over.min(16)).min(MAX_WAIT),
    }
}

fn evict_oldest<V>(map: &mut HashMap<String, V>, age: impl Fn(&V) -> Instant) {
    if let Some(oldest) = map
        .iter()
        .min_by_key(|(_, v)| age(v))
        .map(|(k, _)| k.clone())
    {
        map.remove(&oldest);
    }
}

/// A cookie's value from a request's `Cookie` headers.
fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

/// The `Set-Cookie` value that opens a session (`id`) or, with `None`,
/// ends it in the browser; `Secure` when the back-office is served over
/// HTTPS (`https`).
pub fn set_cookie(https: bool, id: Option<&str>) -> String {
    let secure = if https { "; Secure" } else { "" };
    match id {
        Some(id) => format!(
            "{COOKIE}={id}; Path={BACK_OFFICE_PATH}; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
            SESSION_LIFETIME.as_secs()
        ),
        None => format!(
            "{COOKIE}=; Path={BACK_OFFICE_PATH}; HttpOnly; SameSite=Strict; Max-Age=0{secure}"
        ),
    }
}

/// Whether a change comes from the back-office's own pages: its `Origin`
/// is the sandbox's own (see [`Site::is_own_origin`]: never compared with
/// the request's `Host`, which a rebinding page chooses), or, without one
/// (or with the opaque `null` a browser sends under some referrer
/// policies), its `Sec-Fetch-Site` is not another site's.
pub fn same_origin<B>(request: &http::Request<B>, site: &Site) -> bool {
    let headers = request.headers();
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""));
    if let Some(origin) = origin.filter(|o| *o != "null") {
        return site.is_own_origin(origin, crate::site::Reached::of(request));
    }
    !matches!(
        headers
            .get("sec-fetch-site")
            .map(http::HeaderValue::as_bytes),
        Some(b"cross-site" | b"same-site")
    )
}

/// Whether a posted form token is the session's (in constant time).
pub fn token_matches(session: &Session, posted: Option<&str>) -> bool {
    posted.is_some_and(|posted| bool::from(session.form_token.as_bytes().ct_eq(posted.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DEFAULT_PASSWORD, DEFAULT_SHOP_LOGIN, ReferenceConfig};

    fn service() -> Profiles {
        Profiles::new(
            ReferenceConfig::default().merchants,
            url::Url::parse("http://127.0.0.1:1/").expect("valid"),
            crate::secrets::KeyHasher::random(),
        )
        .expect("valid")
    }

    #[tokio::test]
    async fn the_right_password_opens_a_session_and_a_wrong_one_does_not() {
        let service = service();
        let sessions = Sessions::default();
        assert_eq!(
            sessions
                .sign_in(&service, DEFAULT_SHOP_LOGIN, "wrong")
                .await,
            SignIn::Refused
        );
        assert_eq!(
            sessions
                .sign_in(&service, "NO_SUCH_SHOP", DEFAULT_PASSWORD)
                .await,
            SignIn::Refused
        );
        let SignIn::Opened(id) = sessions
            .sign_in(&service, DEFAULT_SHOP_LOGIN, DEFAULT_PASSWORD)
            .await
        else {
            panic!("the default shop's sign-in is refused");
        };
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            format!("other=1; {COOKIE}={id}").parse().expect("valid"),
        );
        assert_eq!(sessions.of(&headers).map(|(_, s)| s.merchant), Some(0));
        sessions.close(&id);
        assert!(sessions.of(&headers).is_none());
    }

    #[tokio::test]
    async fn repeated_failures_are_slowed_for_known_and_unknown_logins_alike() {
        let service = service();
        let sessions = Sessions::default();
        for login in [DEFAULT_SHOP_LOGIN, "NO_SUCH_SHOP"] {
            for _ in 0..FREE_FAILURES {
                assert_eq!(
                    sessions.sign_in(&service, login, "wrong").await,
                    SignIn::Refused
                );
            }
            // Even the right password waits its turn.
            assert!(matches!(
                sessions.sign_in(&service, login, DEFAULT_PASSWORD).await,
                SignIn::Slowed(wait) if wait <= Duration::from_secs(1) && wait > Duration::ZERO
            ));
        }
    }

    #[test]
    fn one_shops_many_sessions_end_its_own_oldest_only() {
        // The sessions a sign-in opens, without the password's check (a
        // sign-in's own test is above).
        let sessions = Sessions::default();
        let others = sessions.open(1, Instant::now());
        let mine: Vec<String> = (0..MAX_SESSIONS_PER_SHOP + 8)
            .map(|_| sessions.open(0, Instant::now()))
            .collect();
        let open = sessions.open.lock();
        assert!(open.contains_key(&others), "another shop's session is kept");
        assert_eq!(open.len(), MAX_SESSIONS_PER_SHOP + 1);
        assert!(
            open.contains_key(mine.last().expect("one")),
            "the newest is kept"
        );
        assert!(!open.contains_key(&mine[0]), "the oldest went");
    }

    #[test]
    fn the_wait_doubles_and_is_capped() {
        assert_eq!(wait_after(FREE_FAILURES - 1), Duration::ZERO);
        assert_eq!(wait_after(FREE_FAILURES), Duration::from_secs(1));
        assert_eq!(wait_after(FREE_FAILURES + 3), Duration::from_secs(8));
        assert_eq!(wait_after(1000), MAX_WAIT);
    }

    #[test]
    fn a_change_from_another_site_is_refused() {
        let site = Site::new(
            ([127, 0, 0, 1], 8080).into(),
            false,
            url::Url::parse("http://127.0.0.1:8080/").expect("valid"),
        );
        let same_origin = |request: &http::Request<()>| same_origin(request, &site);
        let headers = |pairs: &[(&str, &str)]| {
            let mut request = http::Request::new(());
            for (name, value) in pairs {
                request.headers_mut().insert(
                    header::HeaderName::from_bytes(name.as_bytes()).expect("valid"),
                    value.parse().expect("valid"),
                );
            }
            request
        };
        assert!(same_origin(&headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080")
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://evil.example")
        ])));
        // DNS rebinding: the page's name is in both, and is not the sandbox's.
        assert!(!same_origin(&headers(&[
            ("host", "rebound.example:8080"),
            ("origin", "http://rebound.example:8080")
        ])));
        assert!(!same_origin(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(!same_origin(&headers(&[
            ("origin", "null"),
            ("sec-fetch-site", "cross-site")
        ])));
        assert!(same_origin(&headers(&[
            ("origin", "null"),
            ("sec-fetch-site", "same-origin")
        ])));
        assert!(same_origin(&headers(&[])));
    }
}
