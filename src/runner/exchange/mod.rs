//! One request to the target and what came back, recorded for checks and
//! for the console and reports, and sent with the run's bounds: a time limit
//! per request and a size limit on what is read.

mod crowded;
mod no_answer;
mod record;
mod sender;
mod trail;
mod volley_lock;

pub use no_answer::NoAnswer;
pub use record::Unreported;
pub use sender::{Sender, Sent};
pub use trail::Trail;
pub use volley_lock::VolleyLock;

pub use crate::runner::result::{ExchangeRecord, Timing};
pub use crate::runner::transport::Limits;

use std::{
    fmt,
    sync::atomic::{AtomicU64, Ordering},
    time::{Instant, SystemTime},
};

use reqwest::{Client, Method};
use url::Url;

use crate::runner::{
    redact::Redactor,
    result::Failure,
    transport::encodings::{ACCEPTED, decode},
};

/// A request as sent.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// Method.
    pub method: Method,
    /// Full address.
    pub url: Url,
    /// Headers payconf set.
    pub headers: Vec<(String, String)>,
    /// Body, when there is one.
    pub body: Option<Vec<u8>>,
}

/// A response as received.
#[derive(Clone, Debug)]
pub struct RecordedResponse {
    /// HTTP status.
    pub status: u16,
    /// The protocol: `HTTP/1.1`, `HTTP/2`.
    pub version: &'static str,
    /// Headers, in order.
    pub headers: Vec<(String, String)>,
    /// Body, its content codings undone, up to the size limit; `headers`
    /// keep the `Content-Encoding` it came in.
    pub body: Vec<u8>,
}

impl RecordedResponse {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A request and its outcome.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// Unique in the run, so an exchange kept twice is reported once.
    pub id: u64,
    /// What was sent.
    pub request: RecordedRequest,
    /// What came back, or why nothing usable did.
    pub response: Result<RecordedResponse, NoAnswer>,
    /// When it was sent, and how long each part took.
    pub timing: Timing,
    /// Why no answer came, when it is payconf's transport (a certificate it
    /// does not trust, a refused client certificate, a name that does not
    /// resolve): the harness's to fix, not the target's.
    pub transport_fault: Option<crate::runner::transport::Fault>,
}

/// The next exchange id.
pub fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl RecordedRequest {
    /// A request without a body.
    pub fn new(method: Method, url: Url) -> Self {
        Self {
            method,
            url,
            headers: Vec::new(),
            body: None,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }

    /// Sends the request within `limits`; never follows a redirect. It asks
    /// for the content codings payconf decodes, as merchants' HTTP clients
    /// do, unless it names its own.
    pub async fn send(self, client: &Client, limits: Limits) -> Exchange {
        let body = self.body.clone().map(reqwest::Body::from);
        self.send_carrying(client, limits, body).await
    }

    /// Sends the request as [`send`](Self::send) does, its body coming from
    /// `body` (which yields the bytes of `self.body`, in its own time: a
    /// volley holds back the last byte until its release).
    pub async fn send_carrying(
        mut self,
        client: &Client,
        limits: Limits,
        body: Option<reqwest::Body>,
    ) -> Exchange {
        if !self
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("accept-encoding"))
        {
            self = self.header("Accept-Encoding", ACCEPTED);
        }
        let started = SystemTime::now();
        let clock = Instant::now();
        let mut headers_at = None;
        let mut transport_fault = None;
        let response = tokio::time::timeout(
            limits.timeout,
            self.perform(
                client,
                body,
                limits.max_body,
                &mut headers_at,
                &mut transport_fault,
            ),
        )
        .await
        .unwrap_or(Err(NoAnswer::Late(limits.timeout)));
        let end = clock.elapsed();
        let wait = headers_at.map_or(end, |at: Instant| at.duration_since(clock));
        Exchange {
            id: next_id(),
            request: self,
            response,
            timing: Timing {
                started,
                wait,
                receive: end.saturating_sub(wait),
            },
            transport_fault,
        }
    }

    async fn perform(
        &self,
        client: &Client,
        body: Option<reqwest::Body>,
        max_body: usize,
        headers_at: &mut Option<Instant>,
        transport_fault: &mut Option<crate::runner::transport::Fault>,
    ) -> Result<RecordedResponse, NoAnswer> {
        let mut builder = client.request(self.method.clone(), self.url.clone());
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if let Some(body) = body {
            builder = builder.body(body);
        }
        let mut response = builder.send().await.map_err(|e| {
            *transport_fault = crate::runner::transport::tls_or_dns_fault(&e);
            NoAnswer::from(&e)
        })?;
        *headers_at = Some(Instant::now());
        let status = response.status().as_u16();
        let version = match response.version() {
            reqwest::Version::HTTP_09 => "HTTP/0.9",
            reqwest::Version::HTTP_10 => "HTTP/1.0",
            reqwest::Version::HTTP_2 => "HTTP/2",
            reqwest::Version::HTTP_3 => "HTTP/3",
            _ => "HTTP/1.1",
        };
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        if response
            .content_length()
            .is_some_and(|n| n > max_body as u64)
        {
            return Err(NoAnswer::DeclaredOver(max_body));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| NoAnswer::from(&e))? {
            if body.len() + chunk.len() > max_body {
                return Err(NoAnswer::Over(max_body));
            }
            body.extend_from_slice(&chunk);
        }
        let coding = headers
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case("content-encoding"))
            .map(|(_, value)| value.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let body = decode(
            (!coding.is_empty()).then_some(coding.as_str()),
            body,
            max_body,
        )?
        .body;
        Ok(RecordedResponse {
            status,
            version,
            headers,
            body,
        })
    }
}

/// A failure of the target: what was expected, what came (redacted), shown
/// with the exchange it rests on when there is one.
pub fn target_failure(
    redactor: &Redactor,
    expected: &str,
    actual: &str,
    exchange: Option<&Exchange>,
) -> Failure {
    let failure = Failure::target(expected, redactor.text(actual));
    match exchange {
        Some(exchange) => failure.on(exchange.display(redactor)),
        None => failure,
    }
}

impl Exchange {
    /// The exchange for a person to read, secrets redacted.
    pub fn display<'a>(&'a self, redactor: &'a Redactor) -> impl fmt::Display + 'a {
        ShownExchange {
            exchange: self,
            redactor,
        }
    }
}

struct ShownExchange<'a> {
    exchange: &'a Exchange,
    redactor: &'a Redactor,
}

/// How much of a body the console shows.
const SHOWN_BODY: usize = 2000;

/// A body as the console shows it: on one line, at most [`SHOWN_BODY`]
/// bytes, nothing in it a terminal or a CI log would obey.
fn shorten(text: String) -> String {
    crate::runner::neutral::inline(&truncate(text, SHOWN_BODY)).into_owned()
}

/// `text` cut to at most `limit` bytes on a character boundary, saying how long it was.
fn truncate(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}

impl fmt::Display for ShownExchange<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let request = &self.exchange.request;
        let r = self.redactor;
        writeln!(
            f,
            "request:  {} {}",
            request.method,
            r.text(request.url.as_str())
        )?;
        for (name, value) in &request.headers {
            writeln!(f, "          {name}: {}", r.header(name, value))?;
        }
        if let Some(body) = &request.body {
            writeln!(f, "          {}", shorten(r.body(body)))?;
        }
        match &self.exchange.response {
            Ok(response) => {
                writeln!(f, "response: {}", response.status)?;
                for (name, value) in &response.headers {
                    if matches!(name.as_str(), "content-type" | "location" | "allow") {
                        writeln!(f, "          {name}: {}", r.header(name, value))?;
                    }
                }
                write!(
                    f,
                    "          {}",
                    shorten(r.answer_body(&request.url, &response.body))
                )
            }
            Err(reason) => write!(
                f,
                "response: none ({})",
                crate::runner::neutral::inline(&r.text(&reason.to_string()))
            ),
        }
    }
}
