//! `payconf bench`: the reference implementation under load, measured.
//!
//! A load client on hyper's HTTP/1.1 connections (one task per connection,
//! each sending its next request as soon as the last is answered) runs each
//! scenario for a fixed time against the reference implementation, started
//! in-process or reached at `--base-url` (`payconf serve` in another
//! process). It reports throughput and latency percentiles of every request,
//! then fills the service with live payments and reports the resident memory
//! each costs, and the latency of requests while expired ones are swept.
//!
//! `payconf bench --issuer-pages` measures the browser driver instead
//! ([`issuer_pages`]): how long Chromium takes to start, and each issuer
//! scenario against every issuer page style of the reference implementation.

mod hostile;
mod issuer_pages;

pub use hostile::hostile;
pub use issuer_pages::issuer_pages;

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, client::conn::http1};
use hyper_util::rt::TokioIo;
use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::{net::TcpStream, task::JoinSet};
use url::Url;

/// What a bench run does.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Concurrent connections.
    pub connections: usize,
    /// How long each throughput scenario runs.
    pub duration: Duration,
    /// Live payments for the memory measurement; 0 skips it.
    pub live_payments: usize,
    /// A running service to measure; `None` starts the reference implementation in-process.
    pub base_url: Option<Url>,
}

/// Latencies of one scenario and how many it completed.
#[derive(Debug, Default)]
struct Samples {
    /// Microseconds, one per request.
    latencies: Vec<u32>,
    /// Completed units (requests or flows).
    units: u64,
    /// Answers that were not what the scenario expects.
    errors: u64,
}

const CREATE_PATH: &str = "/api/v1/payment/create/";
const SUBMIT_PATH: &str = "/api/v1/payment/submit/";
const CREATE_BODY: &str =
    r#"{"shopLogin":"DEMO_SHOP","amount":"10.00","currency":"EUR","shopTransactionID":"bench-1"}"#;
const SUBMIT_BODY: &str = r#"{"shopLogin":"DEMO_SHOP","buyer":{"name":"Jane Doe","email":"jane@mail.example"},"paymentTypeDetails":{"creditcard":{"number":"4775718800002026","expMonth":"12","expYear":"99","CVV":"123","DCC":null}}}"#;

/// One connection's sender.
type Sender = http1::SendRequest<Full<Bytes>>;

async fn connect(address: SocketAddr) -> Result<Sender, String> {
    let stream = TcpStream::connect(address)
        .await
        .map_err(|e| format!("cannot connect to {address}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {address}: {e}"))?;
    tokio::spawn(connection);
    Ok(sender)
}

/// Sends one request; returns the answer's body, or `None` on a transport error.
async fn send(sender: &mut Sender, request: Request<Full<Bytes>>) -> Option<(u16, Bytes)> {
    sender.ready().await.ok()?;
    let response = sender.send_request(request).await.ok()?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.ok()?.to_bytes();
    Some((status, body))
}

fn create_request(host: &str) -> Request<Full<Bytes>> {
    Request::post(CREATE_PATH)
        .header("host", host)
        .header("content-type", "application/json")
        .header("authorization", "apikey demo-api-key")
        .body(Full::new(Bytes::from_static(CREATE_BODY.as_bytes())))
        .expect("a valid request")
}

fn submit_request(host: &str, token: &str) -> Request<Full<Bytes>> {
    Request::post(SUBMIT_PATH)
        .header("host", host)
        .header("content-type", "application/json")
        .header("paymenttoken", token)
        .body(Full::new(Bytes::from_static(SUBMIT_BODY.as_bytes())))
        .expect("a valid request")
}

/// The token of a create answer, found without parsing the whole body.
fn token_of(body: &[u8]) -> Option<&str> {
    const KEY: &[u8] = br#""paymentToken":""#;
    let at = body.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    std::str::from_utf8(body.get(at..at + 36)?).ok()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Create,
    Flow,
}

async fn connection_loop(
    address: SocketAddr,
    host: Arc<str>,
    scenario: Scenario,
    until: Instant,
) -> Result<Samples, String> {
    let mut sender = connect(address).await?;
    let mut samples = Samples::default();
    while Instant::now() < until {
        let started = Instant::now();
        let Some((status, body)) = send(&mut sender, create_request(&host)).await else {
            samples.errors += 1;
            sender = connect(address).await?;
            continue;
        };
        samples.latencies.push(micros(started.elapsed()));
        let token = token_of(&body).filter(|_| status == 200);
        let Some(token) = token else {
            samples.errors += 1;
            continue;
        };
        if scenario == Scenario::Flow {
            let started = Instant::now();
            let answer = send(&mut sender, submit_request(&host, token)).await;
            samples.latencies.push(micros(started.elapsed()));
            match answer {
                Some((200, body)) if body.windows(4).any(|w| w == br#""OK""#) => {}
                Some(_) => {
                    samples.errors += 1;
                    continue;
                }
                None => {
                    samples.errors += 1;
                    sender = connect(address).await?;
                    continue;
                }
            }
        }
        samples.units += 1;
    }
    Ok(samples)
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

async fn run_scenario(
    address: SocketAddr,
    host: &Arc<str>,
    scenario: Scenario,
    connections: usize,
    duration: Duration,
) -> Result<(Samples, Duration), String> {
    let started = Instant::now();
    let until = started + duration;
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        tasks.spawn(connection_loop(address, Arc::clone(host), scenario, until));
    }
    let mut all = Samples::default();
    while let Some(result) = tasks.join_next().await {
        let samples = result.map_err(|e| format!("a load task failed: {e}"))??;
        all.latencies.extend(samples.latencies);
        all.units += samples.units;
        all.errors += samples.errors;
    }
    Ok((all, started.elapsed()))
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    f64::from(sorted[rank.min(sorted.len() - 1)]) / 1000.0
}

fn report(name: &str, unit: &str, samples: &mut Samples, took: Duration) {
    samples.latencies.sort_unstable();
    let l = &samples.latencies;
    println!(
        "{name:<16} {:>10.0} {unit}/s   requests {:>9}   latency ms: p50 {:.3}  p90 {:.3}  p99 {:.3}  p99.9 {:.3}  max {:.3}   errors {}",
        samples.units as f64 / took.as_secs_f64(),
        l.len(),
        percentile(l, 50.0),
        percentile(l, 90.0),
        percentile(l, 99.0),
        percentile(l, 99.9),
        percentile(l, 100.0),
        samples.errors,
    );
}

/// Resident memory of this process, in bytes (Linux).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Creates `count` payments as fast as `connections` connections allow.
async fn fill(
    address: SocketAddr,
    host: &Arc<str>,
    count: usize,
    connections: usize,
) -> Result<u64, String> {
    let per = count.div_ceil(connections);
    let mut tasks = JoinSet::new();
    for i in 0..connections {
        let host = Arc::clone(host);
        let n = per.min(count.saturating_sub(i * per));
        tasks.spawn(async move {
            let mut sender = connect(address).await?;
            let mut made = 0_u64;
            for _ in 0..n {
                if let Some((200, _)) = send(&mut sender, create_request(&host)).await {
                    made += 1;
                }
            }
            Ok::<_, String>(made)
        });
    }
    let mut made = 0;
    while let Some(result) = tasks.join_next().await {
        made += result.map_err(|e| format!("a fill task failed: {e}"))??;
    }
    Ok(made)
}

/// Starts the reference implementation in-process with this token lifetime.
async fn start_reference(
    lifetime: Duration,
) -> Result<(RunningServer, SocketAddr, Arc<str>), String> {
    let config = ReferenceConfig {
        token_lifetime: lifetime,
        ..ReferenceConfig::default()
    };
    let server = RunningServer::start(config)
        .await
        .map_err(|e| format!("cannot start the reference implementation: {e}"))?;
    let (address, host) = target_of(&server.base_url)?;
    Ok((server, address, host))
}

/// The socket address of a base URL, and the `Host` header for it.
fn target_of(url: &Url) -> Result<(SocketAddr, Arc<str>), String> {
    let address = *url
        .socket_addrs(|| None)
        .map_err(|e| format!("{url}: {e}"))?
        .first()
        .ok_or_else(|| format!("{url}: no address"))?;
    Ok((address, Arc::from(address.to_string().as_str())))
}

/// Runs the benchmark and prints its figures.
pub async fn bench(options: BenchOptions) -> Result<(), String> {
    println!(
        "payconf bench: {} connections, {} s a scenario, against {}; {} CPUs",
        options.connections,
        options.duration.as_secs(),
        options.base_url.as_ref().map_or_else(
            || "the reference implementation in-process".to_owned(),
            Url::to_string
        ),
        std::thread::available_parallelism().map_or(1, usize::from),
    );

    // Memory first, in a process that has served nothing yet, so the
    // allocator's footprint from other runs does not count.
    if options.live_payments > 0 && options.base_url.is_none() {
        let (server, address, host) = start_reference(Duration::from_secs(3600)).await?;
        let before = resident_bytes().unwrap_or(0);
        let started = Instant::now();
        let made = fill(address, &host, options.live_payments, options.connections).await?;
        let took = started.elapsed();
        let after = resident_bytes().unwrap_or(0);
        println!(
            "live payments    {made} created in {:.1} s; resident memory {:.0} MiB, {:.0} MiB of it for the payments: {:.0} bytes a live payment",
            took.as_secs_f64(),
            after as f64 / 1_048_576.0,
            after.saturating_sub(before) as f64 / 1_048_576.0,
            after.saturating_sub(before) as f64 / made.max(1) as f64,
        );
        let _ = server.shutdown().await;
    }

    let (embedded, address, host) = match &options.base_url {
        Some(url) => {
            let (address, host) = target_of(url)?;
            (None, address, host)
        }
        None => {
            let (server, address, host) = start_reference(Duration::from_secs(900)).await?;
            (Some(server), address, host)
        }
    };
    // Warm up connections and allocator.
    run_scenario(
        address,
        &host,
        Scenario::Create,
        options.connections,
        Duration::from_secs(1),
    )
    .await?;
    let (mut samples, took) = run_scenario(
        address,
        &host,
        Scenario::Create,
        options.connections,
        options.duration,
    )
    .await?;
    report("create", "req", &mut samples, took);
    let (mut samples, took) = run_scenario(
        address,
        &host,
        Scenario::Flow,
        options.connections,
        options.duration,
    )
    .await?;
    report("create+submit", "flows", &mut samples, took);
    if let Some(server) = embedded {
        let _ = server.shutdown().await;
    }

    // Expiry under load: payments that expire while creates go on are
    // swept shard by shard; the creates' latency shows whether service paused.
    if options.live_payments > 0 && options.base_url.is_none() {
        let lifetime = Duration::from_secs(8);
        let (server, address, host) = start_reference(lifetime).await?;
        let expiring = options.live_payments.min(400_000);
        let made = fill(address, &host, expiring, options.connections).await?;
        let window = lifetime + Duration::from_secs(6);
        let (mut samples, took) = run_scenario(
            address,
            &host,
            Scenario::Create,
            options.connections,
            window,
        )
        .await?;
        print!("while sweeping {made} expired payments: ");
        report("create", "req", &mut samples, took);
        let _ = server.shutdown().await;
    }
    Ok(())
}
