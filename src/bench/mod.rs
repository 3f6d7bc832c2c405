//! `payconf bench`: the reference implementation and the runner, measured
//! as users run them.
//!
//! Throughput and latency: the load client ([`load`]) runs each scenario
//! for a fixed time against `payconf serve` started with its defaults in a
//! process of its own ([`processes`]), its log lines written to a file, or
//! against a running service at `--base-url`. With `--baseline` it first
//! measures a bare hyper server answering a create answer's exact bytes
//! ([`baseline`]), the machine's own limit, and reports every throughput
//! as a ratio to it. After the load, the started `payconf serve` is stopped
//! with SIGTERM and its log is counted: a line for every payment created.
//!
//! Then memory ([`memory`]): the resident memory a live payment costs, and
//! the latency of creates while expired payments are swept; and the runner
//! ([`suite`]): a whole `payconf run` and a robustness run, each timed with
//! its peak resident memory.
//!
//! `payconf bench --issuer-pages` measures the browser driver instead
//! ([`issuer_pages`]), and `payconf bench --hostile N` the generated-input
//! check ([`hostile`]).

mod baseline;
mod hostile;
mod issuer_pages;
mod load;
mod memory;
mod processes;
mod suite;

pub use baseline::serve_baseline;
pub use hostile::hostile;
pub use issuer_pages::issuer_pages;
pub use processes::measure_child;

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use load::{Figures, Scenario, run_scenario};
use processes::ServerProcess;
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
    /// A running service to measure; `None` starts `payconf serve`.
    pub base_url: Option<Url>,
    /// Measure the bare hyper baseline first and give ratios to it.
    pub baseline: bool,
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

/// A second of creates, to open the connections and warm the allocator.
async fn warm_up(address: SocketAddr, host: &Arc<str>, connections: usize) -> Result<u64, String> {
    let figures = run_scenario(
        address,
        host,
        Scenario::Create,
        connections,
        Duration::from_secs(1),
    )
    .await?;
    Ok(figures.created)
}

/// Runs the benchmark and prints its figures.
pub async fn bench(options: BenchOptions) -> Result<(), String> {
    println!(
        "payconf bench: {} connections, {} s a scenario; {} CPUs",
        options.connections,
        options.duration.as_secs(),
        std::thread::available_parallelism().map_or(1, usize::from),
    );
    if options.live_payments > 0 && options.base_url.is_none() {
        memory::live_payments(options.live_payments, options.connections).await?;
    }
    throughput(&options).await?;
    if options.live_payments > 0 && options.base_url.is_none() {
        memory::sweeping(options.live_payments, options.connections).await?;
    }
    if options.base_url.is_none() {
        suite::suite()?;
    }
    Ok(())
}

/// The service under load, beside the baseline when asked for.
async fn throughput(options: &BenchOptions) -> Result<(), String> {
    let scratch = Scratch::new()?;
    let log = scratch.0.join("serve.log");
    let (served, url) = match &options.base_url {
        Some(url) => {
            println!("target: {url}");
            (None, url.clone())
        }
        None => {
            // The defaults a user gets: no PAYCONF_LOG, so a line a payment.
            let server = ServerProcess::start(
                &["serve", "--addr", "127.0.0.1:0"],
                &["PAYCONF_LOG"],
                Some(&log),
            )
            .await?;
            println!(
                "target: payconf serve at {}, default configuration (log level info, written to a file)",
                server.url
            );
            let url = server.url.clone();
            (Some(server), url)
        }
    };
    let (address, host) = target_of(&url)?;
    let limit = match options.baseline {
        true => Some(baseline(address, &host, options).await?),
        false => None,
    };
    // Units a second over the baseline's requests a second: a flow, two
    // requests, at 0.5x would answer its requests as fast as the baseline.
    let ratio = |figures: &Figures| limit.map(|limit| figures.rate / limit);
    let mut created = warm_up(address, &host, options.connections).await?;
    let create = run_scenario(
        address,
        &host,
        Scenario::Create,
        options.connections,
        options.duration,
    )
    .await?;
    println!("{}", create.line("create", "req", ratio(&create)));
    let flows = run_scenario(
        address,
        &host,
        Scenario::Flow,
        options.connections,
        options.duration,
    )
    .await?;
    println!("{}", flows.line("create+submit", "flows", ratio(&flows)));
    created += create.created + flows.created;
    if let Some(server) = served {
        server.stop().await?;
        println!("{}", log_count(&log, created)?);
    }
    Ok(())
}

/// The bare hyper server's create-shaped throughput: its requests a second.
async fn baseline(
    address: SocketAddr,
    host: &Arc<str>,
    options: &BenchOptions,
) -> Result<f64, String> {
    let mut sender = load::connect(address).await?;
    let (_, answer) = load::send(&mut sender, load::create_request(host))
        .await
        .ok_or("the target did not answer a create")?;
    drop(sender);
    let body = String::from_utf8(answer.to_vec()).map_err(|_| "the create answer is not UTF-8")?;
    let server =
        ServerProcess::start(&["bench-helper", "baseline", "--body", &body], &[], None).await?;
    println!(
        "baseline: a bare hyper server at {} answering a create answer's {} bytes, in a process of its own",
        server.url,
        body.len()
    );
    let (address, host) = target_of(&server.url)?;
    warm_up(address, &host, options.connections).await?;
    let figures = run_scenario(
        address,
        &host,
        Scenario::Create,
        options.connections,
        options.duration,
    )
    .await;
    server.stop().await?;
    let figures = figures?;
    println!("{}", figures.line("baseline", "req", Some(1.0)));
    Ok(figures.rate)
}

/// Counts the "payment created" lines `payconf serve` logged, against the
/// creates it answered with a token.
fn log_count(log: &Path, created: u64) -> Result<String, String> {
    let text = std::fs::read_to_string(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let lines = text
        .lines()
        .filter(|l| l.contains("payment created"))
        .count() as u64;
    let verdict = if lines >= created {
        "none lost".to_owned()
    } else {
        format!("{} LOST", created.saturating_sub(lines))
    };
    Ok(format!(
        "log              {lines} \"payment created\" lines for {created} payments created, {verdict} (read after SIGTERM)"
    ))
}

/// A folder of the benchmark's own, removed when it ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self, String> {
        let path =
            std::env::temp_dir().join(format!("payconf-bench-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Self(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
