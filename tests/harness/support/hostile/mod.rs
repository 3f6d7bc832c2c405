//! A hostile target: the reference implementation behind a front that
//! carries one attack at a time ([`Attack`]), each a switch. Everything else
//! the front passes through, so the target conforms but for its attack, and
//! a test can tell what the attack changed.
//!
//! The attacks are those a server payconf does not control can make: take
//! over the browser through ChromeDriver, write escape sequences and CI
//! workflow commands into the log, stall the parser with a page nested
//! without end, send the buyer to a private address and hope its answer is
//! published, echo the secrets it was sent in other encodings, eat the
//! browser's memory, hang the browser, and keep windows alive after their
//! journey. Every listener is on loopback.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Instant,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming};
use payconf_reference::{ReferenceConfig, RunningServer};
use serde_json::Value;
use url::Url;

pub(crate) use super::front::{Answer, respond};
use super::front::{Behind, Front, forward};

pub mod attacks;
pub mod loopback;

use attacks::{LOG_INJECTION, MEMORY_HOG, POPUP, Sent, echo, takeover_script};
use loopback::serve_metadata;

/// One attack of the hostile target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attack {
    /// The issuer page's script POSTs new WebDriver sessions, as
    /// `text/plain` (no CORS preflight), to every port ChromeDriver listens
    /// on (read from `/proc`: what a scan of loopback finds), with a
    /// Chromium flag that runs a shell command touching `marker`. The form
    /// shows once every attempt is done, and its confirming click opens a
    /// popup that pings the front for as long as it lives.
    BrowserTakeover { marker: PathBuf },
    /// Create answers a body that is not JSON, full of escape sequences, a
    /// bare `\r` before a forged verdict, and CI workflow commands; its
    /// media type carries one too.
    LogInjection,
    /// The issuer page is about 1 MB of unclosed `<div>`.
    EndlessNesting,
    /// The issuer page redirects to another loopback address standing in
    /// for a cloud metadata service, which answers credentials.
    PrivateAddress,
    /// Submit's answer echoes the API key, the card number and the CVV it
    /// was sent, re-encoded: URL-encoded, hexadecimal, as HTML character
    /// references, base64, in a Basic credential,
    /// grouped with spaces and dashes, after the words and under the keys
    /// people use for a CVV, in a header named for it.
    EncodedEcho,
    /// The issuer page's script allocates memory without yielding until
    /// something stops it.
    MemoryHog,
    /// The issuer page's script never yields.
    Stall,
}

/// What the credentials of the stand-in metadata service are.
pub const PLANTED_CREDENTIAL: &str = "AKIAPLANTEDMETADATA7Q";

/// What the front saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// What the takeover script reported of its attempts.
    pub reports: Mutex<Vec<String>>,
    /// Pings of popups: (the journey that opened it, when).
    pub pings: Mutex<Vec<(String, Instant)>>,
    /// When each journey's issuer page was served, by journey.
    pub issuer_pages: Mutex<Vec<(String, Instant)>>,
}

/// The hostile target, running.
pub struct HostileTarget {
    /// Where payconf is pointed.
    pub base: Url,
    /// What the front saw.
    pub seen: Arc<Seen>,
    _reference: RunningServer,
}

struct AttackFront {
    attack: Attack,
    reference: Url,
    metadata: Option<Url>,
    client: reqwest::Client,
    seen: Arc<Seen>,
}

impl HostileTarget {
    /// Starts the reference implementation behind a front carrying `attack`.
    pub async fn start(attack: Attack) -> Self {
        Self::start_with(attack, ReferenceConfig::default()).await
    }

    /// [`Self::start`] with the reference implementation configured so.
    pub async fn start_with(attack: Attack, config: ReferenceConfig) -> Self {
        let behind = Behind::start(config).await;
        let base = behind.base.clone();
        let metadata = match attack {
            Attack::PrivateAddress => Some(serve_metadata().await),
            _ => None,
        };
        let seen = Arc::new(Seen::default());
        let front = Arc::new(AttackFront {
            attack,
            reference: behind.inner.clone(),
            metadata,
            client: super::front::client(),
            seen: Arc::clone(&seen),
        });
        Self {
            base,
            seen,
            _reference: behind.serve(front),
        }
    }
}

impl Front for AttackFront {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or("").to_owned();
        let journey = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("b="))
            .unwrap_or("")
            .to_owned();
        match (&self.attack, path.as_str()) {
            (_, "/hostile/report") => {
                let body = request.into_body().collect().await.map(|b| b.to_bytes());
                let text = String::from_utf8_lossy(&body.unwrap_or_default()).into_owned();
                self.seen.reports.lock().expect("lock").push(text);
                return respond(204, &[], "");
            }
            (_, "/hostile/popup") => return respond(200, &[("content-type", "text/html")], POPUP),
            (_, "/hostile/alive") => {
                self.seen
                    .pings
                    .lock()
                    .expect("lock")
                    .push((query.clone(), Instant::now()));
                return respond(204, &[], "");
            }
            (Attack::LogInjection, "/api/v1/payment/create/") => {
                return respond(
                    200,
                    &[(
                        "content-type",
                        "text/plain; note=##[error]forged-media-type",
                    )],
                    LOG_INJECTION,
                );
            }
            (Attack::EndlessNesting, "/pagam/pagam3d.aspx") => {
                let mut page = String::from("<!doctype html><html><body>");
                while page.len() < 1_040_000 {
                    page.push_str("<div>");
                }
                return respond(200, &[("content-type", "text/html")], page);
            }
            (Attack::PrivateAddress, "/pagam/pagam3d.aspx") => {
                let metadata = self.metadata.as_ref().expect("started with the attack");
                let to = metadata
                    .join("latest/meta-data/iam/security-credentials/payconf")
                    .expect("url");
                return respond(302, &[("location", to.as_str())], "");
            }
            _ => {}
        }
        let sent = self.forward(request).await;
        match (&self.attack, path.as_str()) {
            (
                Attack::BrowserTakeover { .. } | Attack::MemoryHog | Attack::Stall,
                "/pagam/pagam3d.aspx",
            ) if !journey.is_empty() && !query.contains("view=") => {
                self.seen
                    .issuer_pages
                    .lock()
                    .expect("lock")
                    .push((journey.clone(), Instant::now()));
                self.with_script(sent.1, &journey)
            }
            (Attack::EncodedEcho, "/api/v1/payment/submit/") => echo(sent),
            _ => sent.1,
        }
    }
}

impl AttackFront {
    /// Passes the request to the reference implementation; keeps what it
    /// was sent for the attacks that echo it.
    async fn forward(&self, request: Request<Incoming>) -> (Sent, Answer) {
        let (parts, body) = super::front::read(request).await;
        let sent = Sent {
            authorization: parts
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let dropped = ["content-security-policy"];
        let answer = forward(&self.client, &self.reference, &parts, body, &dropped).await;
        (sent, answer.answer())
    }

    /// The issuer page with the attack's script in it.
    fn with_script(&self, page: Answer, journey: &str) -> Answer {
        let (parts, body) = page.into_parts();
        let html = futures_util::FutureExt::now_or_never(body.collect())
            .and_then(Result::ok)
            .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
            .unwrap_or_default();
        let script = match &self.attack {
            Attack::BrowserTakeover { marker } => takeover_script(marker, journey),
            Attack::MemoryHog => MEMORY_HOG.to_owned(),
            Attack::Stall => "<script>for (;;) {}</script>".to_owned(),
            _ => String::new(),
        };
        let html = match html.rfind("</body>") {
            Some(at) => format!("{}{script}{}", &html[..at], &html[at..]),
            None => format!("{html}{script}"),
        };
        Response::from_parts(parts, Full::new(Bytes::from(html)))
    }
}
