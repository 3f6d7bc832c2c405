//! The load client: hyper's HTTP/1.1 connections, one task per connection,
//! each sending its next request as soon as the last is answered, for a
//! fixed time; every request's latency is kept.

use super::error::BenchError;
use std::{
    net::SocketAddr,
    sync::{Arc, LazyLock},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, client::conn::http1};
use hyper_util::rt::TokioIo;
use payconf_reference::{DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN};
use tokio::{net::TcpStream, task::JoinSet};

use crate::runner::merchant::{CREATE_PATH, SUBMIT_PATH};

/// Latencies of a scenario's runs and how many they completed.
#[derive(Debug, Default)]
pub(super) struct Samples {
    /// Microseconds, one per request.
    latencies: Vec<u32>,
    /// Completed units (requests or flows).
    units: u64,
    /// Creates answered with a payment token.
    pub created: u64,
    /// Answers that were not what the scenario expects.
    errors: u64,
    /// How long the runs took, together.
    took: Duration,
}

impl Samples {
    /// Units a second.
    pub fn rate(&self) -> f64 {
        self.units as f64 / self.took.as_secs_f64().max(f64::EPSILON)
    }

    /// Adds another run's samples to these.
    pub fn absorb(&mut self, other: Self) {
        self.latencies.extend(other.latencies);
        self.units += other.units;
        self.created += other.created;
        self.errors += other.errors;
        self.took += other.took;
    }

    /// The rate, the count and the latency percentiles of every run.
    pub fn figures(mut self) -> Figures {
        self.latencies.sort_unstable();
        let l = &self.latencies;
        Figures {
            rate: self.rate(),
            requests: l.len(),
            errors: self.errors,
            latency: [50.0, 90.0, 99.0, 99.9, 100.0].map(|p| percentile(l, p)),
        }
    }
}

/// The sandbox's merchant and frictionless card, as every bench request
/// sends them: made once, shared by reference count in the hot loop.
static CREATE_BODY: LazyLock<Bytes> = LazyLock::new(|| {
    Bytes::from(
        serde_json::json!({
            "shopLogin": DEFAULT_SHOP_LOGIN,
            "amount": "10.00",
            "currency": "EUR",
            "shopTransactionID": "bench-1",
        })
        .to_string(),
    )
});
static SUBMIT_BODY: LazyLock<Bytes> = LazyLock::new(|| {
    Bytes::from(
        serde_json::json!({
            "shopLogin": DEFAULT_SHOP_LOGIN,
            "buyer": {"name": "Jane Doe", "email": "jane@mail.example"},
            "paymentTypeDetails": {"creditcard": {
                "number": DEFAULT_FRICTIONLESS_CARD,
                "expMonth": "12", "expYear": "99", "CVV": "123", "DCC": null,
            }},
        })
        .to_string(),
    )
});
static AUTHORIZATION: LazyLock<String> = LazyLock::new(|| format!("apikey {DEFAULT_API_KEY}"));

/// One connection's sender.
pub(super) type Sender = http1::SendRequest<Full<Bytes>>;

pub(super) async fn connect(address: SocketAddr, tls: Option<&Tls>) -> Result<Sender, BenchError> {
    let stream = TcpStream::connect(address)
        .await
        .map_err(BenchError::connection("connecting", address))?;
    let _ = stream.set_nodelay(true);
    let handshake = |e: hyper::Error| BenchError::connection("the HTTP handshake", address)(e);
    let sender = match tls {
        None => {
            let (sender, connection) = http1::handshake(TokioIo::new(stream))
                .await
                .map_err(handshake)?;
            tokio::spawn(connection);
            sender
        }
        Some(tls) => {
            let stream = tls
                .connector
                .connect(tls.name.clone(), stream)
                .await
                .map_err(BenchError::connection("the TLS handshake", address))?;
            let (sender, connection) = http1::handshake(TokioIo::new(stream))
                .await
                .map_err(handshake)?;
            tokio::spawn(connection);
            sender
        }
    };
    Ok(sender)
}

/// How a connection is made over TLS: the connector (trusting the sandbox's
/// CA, offering HTTP/1.1) and the server's name.
#[derive(Clone)]
pub(super) struct Tls {
    pub connector: tokio_rustls::TlsConnector,
    pub name: rustls::pki_types::ServerName<'static>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("name", &self.name).finish()
    }
}

/// Sends one request; returns the answer's body, or `None` on a transport error.
pub(super) async fn send(
    sender: &mut Sender,
    request: Request<Full<Bytes>>,
) -> Option<(u16, Bytes)> {
    sender.ready().await.ok()?;
    let response = sender.send_request(request).await.ok()?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.ok()?.to_bytes();
    Some((status, body))
}

pub(super) fn create_request(host: &str) -> Request<Full<Bytes>> {
    Request::post(CREATE_PATH)
        .header("host", host)
        .header("content-type", "application/json")
        .header("authorization", AUTHORIZATION.as_str())
        .body(Full::new(CREATE_BODY.clone()))
        .expect("a valid request")
}

fn submit_request(host: &str, token: &str) -> Request<Full<Bytes>> {
    Request::post(SUBMIT_PATH)
        .header("host", host)
        .header("content-type", "application/json")
        .header("paymenttoken", token)
        .body(Full::new(SUBMIT_BODY.clone()))
        .expect("a valid request")
}

/// `payment/detail` of a payment by its ID, with the API key.
fn detail_request(host: &str, payment_id: &str) -> Request<Full<Bytes>> {
    Request::get(format!("/api/v1/payment/detail/{payment_id}"))
        .header("host", host)
        .header("authorization", AUTHORIZATION.as_str())
        .body(Full::new(Bytes::new()))
        .expect("a valid request")
}

/// The token of a create answer, found without parsing the whole body.
fn token_of(body: &[u8]) -> Option<&str> {
    const KEY: &[u8] = br#""paymentToken":""#;
    let at = body.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    std::str::from_utf8(body.get(at..at + 36)?).ok()
}

/// The `paymentID` of a create answer, found the same way: its digits.
fn payment_id_of(body: &[u8]) -> Option<String> {
    const KEY: &[u8] = br#""paymentID":""#;
    let at = body.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let digits: Vec<u8> = body
        .get(at..)?
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then(|| String::from_utf8(digits).ok())?
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scenario {
    /// Creates only: a request a unit.
    Create,
    /// A create, then a submit with its token: two requests a unit.
    Flow,
    /// A create, a submit, then `payment/detail` of the payment by its ID,
    /// as a merchant confirms an outcome: three requests a unit.
    Confirmed,
}

async fn connection_loop(
    address: SocketAddr,
    host: Arc<str>,
    tls: Option<Tls>,
    scenario: Scenario,
    until: Instant,
) -> Result<Samples, BenchError> {
    let mut sender = connect(address, tls.as_ref()).await?;
    let mut samples = Samples::default();
    while Instant::now() < until {
        let started = Instant::now();
        let Some((status, body)) = send(&mut sender, create_request(&host)).await else {
            samples.errors += 1;
            sender = connect(address, tls.as_ref()).await?;
            continue;
        };
        samples.latencies.push(micros(started.elapsed()));
        let token = token_of(&body).filter(|_| status == 200);
        let Some(token) = token else {
            samples.errors += 1;
            continue;
        };
        samples.created += 1;
        let payment_id = payment_id_of(&body);
        if matches!(scenario, Scenario::Flow | Scenario::Confirmed) {
            let request = submit_request(&host, token);
            match answered_ok(&mut sender, request, &mut samples).await {
                Answered::Ok => {}
                Answered::Wrong => continue,
                Answered::Gone => {
                    sender = connect(address, tls.as_ref()).await?;
                    continue;
                }
            }
        }
        if scenario == Scenario::Confirmed {
            let Some(id) = payment_id else {
                samples.errors += 1;
                continue;
            };
            match answered_ok(&mut sender, detail_request(&host, &id), &mut samples).await {
                Answered::Ok => {}
                Answered::Wrong => continue,
                Answered::Gone => {
                    sender = connect(address, tls.as_ref()).await?;
                    continue;
                }
            }
        }
        samples.units += 1;
    }
    Ok(samples)
}

/// How a request that must answer 200 with `"OK"` went.
enum Answered {
    Ok,
    /// Another answer: an error.
    Wrong,
    /// No answer: an error, and the connection is gone.
    Gone,
}

/// Sends a request that must answer 200 with `"OK"`, timing it.
async fn answered_ok(
    sender: &mut Sender,
    request: Request<Full<Bytes>>,
    samples: &mut Samples,
) -> Answered {
    let started = Instant::now();
    let answer = send(sender, request).await;
    samples.latencies.push(micros(started.elapsed()));
    match answer {
        Some((200, body)) if body.windows(4).any(|w| w == br#""OK""#) => Answered::Ok,
        Some(_) => {
            samples.errors += 1;
            Answered::Wrong
        }
        None => {
            samples.errors += 1;
            Answered::Gone
        }
    }
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// What a scenario measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Figures {
    /// Units (requests or flows) a second.
    pub rate: f64,
    /// Requests sent.
    pub requests: usize,
    /// Answers that were not what the scenario expects.
    pub errors: u64,
    /// Latency percentiles in milliseconds: p50, p90, p99, p99.9, max.
    pub latency: [f64; 5],
}

impl Figures {
    /// The figures as a line: rate, ratio, requests, latency, errors.
    pub fn line(&self, name: &str, unit: &str, ratio: &str) -> String {
        let [p50, p90, p99, p999, max] = self.latency;
        format!(
            "{name:<16} {:>8.0} {:<7} {ratio:<22} requests {:>9}   latency ms: p50 {p50:.3}  p90 {p90:.3}  p99 {p99:.3}  p99.9 {p999:.3}  max {max:.3}   errors {}",
            self.rate,
            format!("{unit}/s"),
            self.requests,
            self.errors,
        )
    }
}

/// Runs a scenario on `connections` connections for `duration`.
pub(super) async fn run_scenario(
    address: SocketAddr,
    host: &Arc<str>,
    tls: Option<&Tls>,
    scenario: Scenario,
    connections: usize,
    duration: Duration,
) -> Result<Samples, BenchError> {
    let started = Instant::now();
    let until = started + duration;
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        tasks.spawn(connection_loop(
            address,
            Arc::clone(host),
            tls.cloned(),
            scenario,
            until,
        ));
    }
    let mut all = Samples::default();
    while let Some(result) = tasks.join_next().await {
        all.absorb(result??);
    }
    all.took = started.elapsed();
    Ok(all)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    f64::from(sorted[rank.min(sorted.len() - 1)]) / 1000.0
}
