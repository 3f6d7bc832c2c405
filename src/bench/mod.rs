//! `payconf bench`: the reference implementation and the runner, measured
//! as users run them.
//!
//! Throughput and latency: the load client ([`load`]) runs each scenario
//! for a fixed time against `payconf serve` started with its defaults in a
//! process of its own ([`processes`]), its log lines written to a file, or
//! against a running service at `--base-url`. With `--baseline` it also
//! measures a bare hyper server answering a create answer's exact bytes
//! ([`baseline`]), the machine's own limit, taking turns with the service
//! in rounds, and reports every throughput as a ratio to it. After the load, the started `payconf serve` is stopped
//! with SIGTERM and its log is counted: a line for every payment created.
//!
//! Then memory ([`memory`]): the resident memory a live payment costs, and
//! the latency of creates while expired payments are swept; and the runner
//! ([`suite`]): a whole `payconf run` and a robustness run, each timed with
//! its peak resident memory.
//!
//! `payconf bench --issuer-pages` measures the browser driver instead
//! ([`issuer_pages`](mod@issuer_pages)), `payconf bench --payment-pages` the buyer's
//! journey on the standard payment page ([`payment_pages`](mod@payment_pages)),
//! `payconf bench --hostile N` the generated-input
//! check ([`hostile`](mod@hostile)), `payconf bench --volley` how close together a
//! volley's requests reach a server ([`volley`](mod@volley)), and `payconf bench
//! --evidence` what an evidence bundle costs to write and to verify ([`evidence`](mod@evidence)).

mod baseline;
mod error;
mod evidence;
mod hostile;
mod issuer_pages;
mod load;
mod memory;
pub mod payment_pages;
mod processes;
mod suite;
mod tls;
mod volley;

pub use baseline::serve_baseline;
pub use error::BenchError;
pub use evidence::evidence;
pub use hostile::hostile;
pub use issuer_pages::issuer_pages;
pub use payment_pages::payment_pages;
pub use processes::measure_child;
pub use volley::volley;

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use load::{Scenario, run_scenario};
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
    /// Measure the bare hyper baseline too and give ratios to it.
    pub baseline: bool,
    /// Turns each scenario's time is split into.
    pub rounds: usize,
}

/// A second of creates, to open the connections and warm the allocator;
/// returns the payments created.
async fn warm_up(target: &Target, connections: usize) -> Result<u64, BenchError> {
    let samples = run_scenario(
        target.address,
        &target.host,
        target.tls.as_ref(),
        Scenario::Create,
        connections,
        Duration::from_secs(1),
    )
    .await?;
    Ok(samples.created)
}

/// Where the load goes: a server's socket address, and the `Host` header
/// for it.
struct Target {
    address: SocketAddr,
    host: Arc<str>,
    /// Over TLS, how.
    tls: Option<load::Tls>,
}

impl Target {
    fn of(url: &Url) -> Result<Self, BenchError> {
        let address = *url
            .socket_addrs(|| None)
            .map_err(BenchError::connection("finding the address", url))?
            .first()
            .ok_or_else(|| BenchError::connection("finding the address", url)("none"))?;
        let host = Arc::from(address.to_string().as_str());
        Ok(Self {
            address,
            host,
            tls: None,
        })
    }

    async fn run(
        &self,
        scenario: Scenario,
        options: &BenchOptions,
    ) -> Result<load::Samples, BenchError> {
        let round = options.duration / u32::try_from(options.rounds).unwrap_or(1).max(1);
        run_scenario(
            self.address,
            &self.host,
            self.tls.as_ref(),
            scenario,
            options.connections,
            round,
        )
        .await
    }
}

/// Runs the benchmark and prints its figures.
pub async fn bench(options: BenchOptions) -> Result<(), BenchError> {
    println!(
        "payconf bench: {} connections, {} s a scenario in {} rounds; {} CPUs",
        options.connections,
        options.duration.as_secs(),
        options.rounds,
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
///
/// The scenarios take turns in rounds (baseline, create, create+submit,
/// then again), so that a machine whose speed drifts, as a shared virtual
/// machine's does, slows all of them alike; each ratio is the median of
/// its rounds' ratios.
async fn throughput(options: &BenchOptions) -> Result<(), BenchError> {
    let scratch = Scratch::new()?;
    let log = scratch.0.join("serve.log");
    let (served, url) = match &options.base_url {
        Some(url) => {
            println!("target: {url}");
            (None, url.clone())
        }
        None => {
            // The defaults a user gets: no PAYCONF_LOG, so a line a payment.
            let args = ["serve", "--addr", "127.0.0.1:0"];
            let server = ServerProcess::start(&args, &["PAYCONF_LOG"], Some(&log)).await?;
            println!(
                "target: payconf serve at {}, default configuration (log level info, written to a file)",
                server.url
            );
            let url = server.url.clone();
            (Some(server), url)
        }
    };
    let target = Target::of(&url)?;
    let baseline = match options.baseline {
        true => Some(start_baseline(&target).await?),
        false => None,
    };
    // The same sandbox keeping everything in a data file, beside it.
    let with_data = match served {
        Some(_) => {
            let file = scratch.0.join("bench.db");
            let file = file.to_string_lossy();
            let args = ["serve", "--addr", "127.0.0.1:0", "--data", file.as_ref()];
            let server = ServerProcess::start(&args, &["PAYCONF_LOG"], None).await?;
            println!(
                "with --data: payconf serve at {}, every payment committed to an SQLite file before its answer",
                server.url
            );
            let at = Target::of(&server.url)?;
            Some((server, at))
        }
        None => None,
    };
    let measured = rounds(&target, baseline.as_ref(), with_data.as_ref(), options).await;
    if let Some((server, _)) = baseline {
        server.stop().await?;
    }
    if let Some((server, _)) = with_data {
        server.stop().await?;
    }
    let mut created = measured?;
    if served.is_some() {
        created += tls::create_over_tls(&target, options, &scratch.0).await?;
    }
    if let Some(server) = served {
        server.stop().await?;
        println!("{}", log_count(&log, created)?);
    }
    Ok(())
}

/// Measures the rounds and prints the figures; returns the payments
/// created (in memory: those `log_count` counts).
async fn rounds(
    target: &Target,
    baseline: Option<&(ServerProcess, Target)>,
    with_data: Option<&(ServerProcess, Target)>,
    options: &BenchOptions,
) -> Result<u64, BenchError> {
    let mut created = warm_up(target, options.connections).await?;
    if let Some((_, limit)) = baseline {
        warm_up(limit, options.connections).await?;
    }
    if let Some((_, data)) = with_data {
        warm_up(data, options.connections).await?;
    }
    let mut data_create = load::Samples::default();
    let mut data_ratios = Vec::new();
    let mut limit = load::Samples::default();
    let mut create = load::Samples::default();
    let mut flows = load::Samples::default();
    let mut confirmed = load::Samples::default();
    let mut data_confirmed = load::Samples::default();
    let mut ratios = (Vec::new(), Vec::new());
    for _ in 0..options.rounds {
        let limit_rate = match baseline {
            Some((_, at)) => {
                let round = at.run(Scenario::Create, options).await?;
                let rate = round.rate();
                limit.absorb(round);
                Some(rate)
            }
            None => None,
        };
        let round_create = target.run(Scenario::Create, options).await?;
        if let Some((_, data)) = with_data {
            let round = data.run(Scenario::Create, options).await?;
            data_ratios.push(round.rate() / round_create.rate().max(f64::EPSILON));
            data_create.absorb(round);
        }
        let round_flows = target.run(Scenario::Flow, options).await?;
        confirmed.absorb(target.run(Scenario::Confirmed, options).await?);
        if let Some((_, data)) = with_data {
            data_confirmed.absorb(data.run(Scenario::Confirmed, options).await?);
        }
        if let Some(rate) = limit_rate {
            ratios.0.push(round_create.rate() / rate);
            ratios.1.push(round_flows.rate() / rate);
        }
        create.absorb(round_create);
        flows.absorb(round_flows);
    }
    created += create.created + flows.created + confirmed.created;
    if baseline.is_some() {
        println!("{}", limit.figures().line("baseline", "req", "   1.00x"));
    }
    println!(
        "{}",
        create
            .figures()
            .line("create", "req", &ratio_said(&mut ratios.0))
    );
    println!(
        "{}",
        flows
            .figures()
            .line("create+submit", "flows", &ratio_said(&mut ratios.1))
    );
    println!(
        "{}",
        confirmed
            .figures()
            .line("+detail", "flows", "  (create, submit, detail)")
    );
    if with_data.is_some() {
        let said = format!("{} of in-memory", ratio_said(&mut data_ratios).trim_start());
        println!(
            "{}",
            data_create.figures().line("create --data", "req", &said)
        );
        println!(
            "{}",
            data_confirmed
                .figures()
                .line("+detail --data", "flows", "  (create, submit, detail)")
        );
    }
    Ok(created)
}

/// `0.82x baseline (0.78–0.85)`: the median of the rounds' ratios and
/// their range; nothing without a baseline.
fn ratio_said(ratios: &mut [f64]) -> String {
    if ratios.is_empty() {
        return String::new();
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    format!(
        "{median:>7.3}x ({:.2}\u{2013}{:.2})",
        ratios[0],
        ratios[ratios.len() - 1]
    )
}

/// Starts the bare hyper server, answering the target's own create answer.
async fn start_baseline(target: &Target) -> Result<(ServerProcess, Target), BenchError> {
    let mut sender = load::connect(target.address, None).await?;
    let (_, answer) = load::send(&mut sender, load::create_request(&target.host))
        .await
        .ok_or_else(|| BenchError::measured("the target did not answer a create"))?;
    drop(sender);
    let body = String::from_utf8(answer.to_vec())
        .map_err(|_| BenchError::measured("the create answer is not UTF-8"))?;
    let args = ["bench-helper", "baseline", "--body", &body];
    let server = ServerProcess::start(&args, &[], None).await?;
    println!(
        "baseline: a bare hyper server at {} answering a create answer's {} bytes, in a process of its own",
        server.url,
        body.len()
    );
    let at = Target::of(&server.url)?;
    Ok((server, at))
}

/// Counts the "payment created" lines `payconf serve` logged, against the
/// creates it answered with a token.
fn log_count(log: &Path, created: u64) -> Result<String, BenchError> {
    let text = std::fs::read_to_string(log).map_err(BenchError::file(log))?;
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
    fn new() -> Result<Self, BenchError> {
        let path =
            std::env::temp_dir().join(format!("payconf-bench-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path).map_err(BenchError::file(&path))?;
        Ok(Self(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
