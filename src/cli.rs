//! The command line: flags are documented where they are defined, and
//! `main` turns every outcome into an exit code.

use std::{net::SocketAddr, path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

use crate::{logging::LogStyle, runner::result::Verdict};

/// Conformance harness for the hosted payment service contract.
#[derive(Debug, Parser)]
#[command(name = "payconf", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a server against the conformance scenarios (the reference
    /// implementation, in-process, when no base URL is given).
    Run(Box<RunArgs>),
    /// Print the test plan of a run, and send nothing: every requirement and
    /// scenario, whether it applies under the target file's declaration and
    /// the selection, and what would make it apply. Takes `run`'s flags.
    Plan(Box<RunArgs>),
    /// Compare two runs' results files (`--results`) requirement by
    /// requirement, print a Markdown summary fit for a pull-request comment,
    /// and exit 1 when a requirement regressed.
    Diff(DiffArgs),
    /// Run the reference implementation as a local payment sandbox.
    Serve(ServeArgs),
    /// Write the service's documentation, generated from the spec and the
    /// features: an HTML site entered at OUT/index.html, and the same as Markdown.
    Docs(DocsArgs),
    /// Measure the reference implementation under load: create and
    /// create+submit throughput and latency, memory per live payment, and
    /// the runner's time and memory.
    Bench(BenchArgs),
    /// The processes `payconf bench` starts; not for users.
    #[command(hide = true)]
    BenchHelper {
        /// Which.
        #[command(subcommand)]
        helper: BenchHelper,
    },
}

/// The processes `payconf bench` starts.
#[derive(Debug, Subcommand)]
pub enum BenchHelper {
    /// The bare hyper server of `--baseline`, answering BODY to every request.
    Baseline {
        /// The answer's body.
        #[arg(long)]
        body: String,
    },
    /// Runs `payconf ARGS` and prints its wall time and peak resident memory.
    Measure {
        /// The measured command's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Flags of `payconf bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Concurrent connections of the load client.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub connections: u64,
    /// Seconds each throughput scenario runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub duration: u64,
    /// Live payments to create for the memory measurement (0: skip it).
    #[arg(long, default_value_t = 1_000_000)]
    pub live_payments: usize,
    /// Measure a running service at this address instead of a `payconf
    /// serve` the benchmark starts.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<url::Url>,
    /// Also measure a bare hyper server answering a create answer's bytes,
    /// taking turns with the service under the same load client, and give
    /// every throughput as a ratio to it.
    #[arg(long)]
    pub baseline: bool,
    /// Rounds the scenarios take turns in (baseline, create, create+submit,
    /// then again), each a share of `--duration`.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Measure the browser driver instead: Chromium's start, and each issuer
    /// scenario against every issuer page style of the reference implementation.
    #[arg(long)]
    pub issuer_pages: bool,
    /// Measure the standard payment page instead: the buyer's journey on the
    /// sandbox's page (form driver and browser) and in its lightbox, opened
    /// from a shop's page of its own.
    #[arg(long, conflicts_with = "issuer_pages")]
    pub payment_pages: bool,
    /// Measure the generated-input check of @robustness instead: this many
    /// generated bodies for create and as many for submit, against an
    /// in-process reference implementation.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub hostile: Option<u64>,
    /// Measure the robustness profile's volleys instead: how close together
    /// 20 requests sent at once reach a server on loopback, over plain
    /// HTTP, TLS with HTTP/1.1 and TLS with HTTP/2, beside requests simply
    /// sent together, ROUNDS volleys of each (30 when not given).
    #[arg(long, value_name = "ROUNDS", num_args = 0..=1, default_missing_value = "30",
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub volley: Option<u64>,
}

/// Arguments of `payconf diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The earlier run's results file.
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The later run's results file.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
}

/// Flags of `payconf docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// The folder to write into; created if missing.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// What to write.
    #[arg(long, value_enum, default_value_t = crate::docs::Format::Both)]
    pub format: crate::docs::Format,
    /// Read the features from this directory instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub features: Option<PathBuf>,
    /// Read the spec from this file instead of the embedded one.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Read the Arazzo workflows from this file instead of the embedded ones.
    #[arg(long, value_name = "FILE")]
    pub workflows: Option<PathBuf>,
}

/// Flags of `payconf run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Target file (TOML): base URL, credentials, test cards, pages, issuer fields.
    #[arg(long, value_name = "FILE")]
    pub target: Option<PathBuf>,
    /// Base address of the server under test, over the target file's.
    #[arg(long, value_name = "URL", env = "PAYCONF_BASE_URL")]
    pub base_url: Option<String>,
    /// The merchant's API key, over the target file's.
    #[arg(
        long,
        value_name = "KEY",
        env = "PAYCONF_API_KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,
    /// The merchant's shop login, over the target file's.
    #[arg(long, value_name = "LOGIN", env = "PAYCONF_SHOP_LOGIN")]
    pub shop_login: Option<String>,
    /// The issuer-authentication driver, over the target file's `acs.driver`
    /// (also `PAYCONF_ACS_DRIVER`): `form`, `browser` (headless Chromium) or `none`.
    #[arg(long, value_name = "DRIVER")]
    pub acs_driver: Option<String>,
    /// PEM bundle of CA certificates to trust besides the system's, for a
    /// target whose certificate a private CA signed; over the file's
    /// `tls.ca_file`.
    #[arg(long, value_name = "FILE", env = "PAYCONF_TLS_CA_FILE")]
    pub tls_ca_file: Option<PathBuf>,
    /// Client certificate (PEM) for a target that asks for one (mutual
    /// TLS); over the file's `tls.client_cert`.
    #[arg(long, value_name = "FILE", env = "PAYCONF_TLS_CLIENT_CERT")]
    pub tls_client_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM); over the file's
    /// `tls.client_key`.
    #[arg(long, value_name = "FILE", env = "PAYCONF_TLS_CLIENT_KEY")]
    pub tls_client_key: Option<PathBuf>,
    /// The proxy to reach the target through (http:// or https://), over
    /// the file's `proxy`; without one, HTTPS_PROXY, HTTP_PROXY and
    /// NO_PROXY are read as curl reads them. Loopback addresses are never
    /// proxied.
    #[arg(
        long,
        value_name = "URL",
        env = "PAYCONF_PROXY",
        hide_env_values = true
    )]
    pub proxy: Option<String>,
    /// Cucumber tag expression selecting scenarios. Default: `@core` against a
    /// target, `@core or @reference` against the embedded reference implementation.
    #[arg(long, value_name = "EXPR")]
    pub tags: Option<String>,
    /// Read the features from this directory instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub features: Option<PathBuf>,
    /// Read the spec from this file instead of the embedded one.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Seconds each request may take, from sending to the last byte.
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout: u64,
    /// Scenarios run at the same time.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// At most N requests a second to the target over the whole run, for a
    /// target whose rate limit is known (fractions allowed: 0.5 is one
    /// request every two seconds). Without it payconf sends at once, and
    /// waits out a 429 or 503 that carries Retry-After.
    #[arg(long, value_name = "N", value_parser = rate)]
    pub rate: Option<f64>,
    /// Seed of the hostile inputs the @robustness scenarios generate. Every
    /// run that generates them prints its seed; give it here to replay a
    /// finding exactly.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Print every requirement with the scenarios that check it, and run
    /// nothing; with a target file or a base URL, the run's plan (as
    /// `payconf plan`).
    #[arg(long)]
    pub list: bool,
    /// Write JUnit XML here: one testcase per scenario (GitHub, GitLab, Jenkins).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the standard Cucumber JSON format here.
    #[arg(long, value_name = "FILE")]
    pub cucumber_json: Option<PathBuf>,
    /// Write a self-contained HTML report here: coverage matrix, steps,
    /// every exchange with a `curl` that replays it.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write a JSON summary here: versions, spec SHA-256, target, counts,
    /// every requirement's outcome.
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Write every exchange of the run here as HAR 1.2 (API calls and issuer
    /// pages, with timings, redacted), each entry tagged with its scenario:
    /// opens in browsers' developer tools, proxies and API clients.
    #[arg(long, value_name = "FILE")]
    pub har: Option<PathBuf>,
    /// Waivers (TOML): requirement ids whose failures are accepted until a
    /// date, with the reason.
    #[arg(long, value_name = "FILE")]
    pub waivers: Option<PathBuf>,
    /// Fail the run when a waiver in force is no longer needed: its
    /// requirement passed (as the OpenID conformance suite's CI fails on an
    /// expected failure that stopped happening).
    #[arg(long)]
    pub strict_waivers: bool,
    /// Run only the scenarios that failed or erred in this earlier run's
    /// results file (`--results`), matched by location, or by file and name
    /// when the features moved.
    #[arg(long, value_name = "RESULTS")]
    pub rerun_failed: Option<PathBuf>,
    /// Run against a production target, and then only the
    /// `@production-safe` scenarios (no card data sent).
    #[arg(long)]
    pub allow_production: bool,
    /// Serve the embedded reference implementation over HTTPS (HTTP/2 by
    /// ALPN), with a certificate made for this run by a CA only this run
    /// trusts; without a base URL only.
    #[arg(long)]
    pub embedded_tls: bool,
}

/// Flags of `payconf serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Back-office configuration (TOML); built-in defaults without it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serve HTTPS with this certificate (PEM, its chain after it): HTTP/2
    /// and HTTP/1.1 by ALPN, and the pages' addresses `https://`. Needs
    /// --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Keep profiles, payments and notifications owed in this SQLite file
    /// (created when missing), so a restart loses nothing; memory only
    /// without it.
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
}

/// `payconf serve`'s options, from its flags.
fn serve_options(args: ServeArgs) -> crate::serve::ServeOptions {
    let tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(crate::serve::TlsFiles { cert, key }),
        // clap requires each with the other.
        _ => None,
    };
    crate::serve::ServeOptions {
        addr: args.addr,
        config: args.config,
        tls,
        data: args.data,
    }
}

/// Runs a parsed command line and returns the process's exit code.
pub fn main(cli: Cli) -> ExitCode {
    // Held to the end: dropping it writes the lines still queued.
    let _logging = crate::logging::init(match cli.command {
        Command::Serve(_) => LogStyle::Service,
        _ => LogStyle::Command,
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("payconf: cannot start the async runtime: {error}");
            return Verdict::NotRun.into();
        }
    };
    let is_run = matches!(cli.command, Command::Run(_));
    let result = match cli.command {
        Command::Run(args) => runtime
            .block_on(crate::runner::run(run_options(args)))
            .map_err(anyhow::Error::from),
        Command::Plan(args) => {
            let options = crate::runner::RunOptions {
                plan: true,
                ..run_options(args)
            };
            runtime
                .block_on(crate::runner::run(options))
                .map_err(anyhow::Error::from)
        }
        Command::Serve(args) => runtime
            .block_on(crate::serve::serve(serve_options(args)))
            .map_err(anyhow::Error::from),
        Command::Docs(args) => docs(&args),
        Command::Diff(args) => crate::diff::diff(&args.old, &args.new).map_err(anyhow::Error::from),
        Command::Bench(args) if args.hostile.is_some() => runtime
            .block_on(crate::bench::hostile(
                usize::try_from(args.hostile.unwrap_or(1)).unwrap_or(1),
            ))
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
        Command::Bench(args) if args.volley.is_some() => runtime
            .block_on(crate::bench::volley(
                usize::try_from(args.volley.unwrap_or(30)).unwrap_or(30),
            ))
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
        Command::Bench(args) if args.issuer_pages => runtime
            .block_on(crate::bench::issuer_pages())
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
        Command::Bench(args) if args.payment_pages => runtime
            .block_on(crate::bench::payment_pages())
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
        Command::Bench(args) => runtime
            .block_on(crate::bench::bench(crate::bench::BenchOptions {
                connections: usize::try_from(args.connections).unwrap_or(64),
                duration: std::time::Duration::from_secs(args.duration),
                live_payments: args.live_payments,
                base_url: args.base_url,
                baseline: args.baseline,
                rounds: usize::try_from(args.rounds).unwrap_or(5),
            }))
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
        Command::BenchHelper {
            helper: BenchHelper::Baseline { body },
        } => runtime
            .block_on(crate::bench::serve_baseline(body))
            .map(|()| ExitCode::SUCCESS),
        Command::BenchHelper {
            helper: BenchHelper::Measure { args },
        } => crate::bench::measure_child(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!(
                "payconf: {}",
                crate::runner::neutral::block(&format!("{error:#}"))
            );
            if is_run {
                eprintln!(
                    "result: NOT RUN, nothing was checked (exit code {})",
                    Verdict::NotRun.exit_code()
                );
            }
            // Usage, configuration, an unreachable target: nothing was
            // judged, so no command's failure is the target's.
            Verdict::NotRun.into()
        }
    }
}

/// `payconf docs`: builds the site and says where it went.
fn docs(args: &DocsArgs) -> anyhow::Result<ExitCode> {
    let contract = match &args.spec {
        Some(path) => payconf_spec::contract::Contract::load(path)?,
        None => payconf_spec::contract::Contract::embedded()?,
    };
    let features = match &args.features {
        Some(dir) => payconf_spec::features::Features::load_dir(dir)?,
        None => payconf_spec::features::Features::embedded()?,
    };
    let requirements = payconf_spec::requirements::Requirements::embedded()?;
    let workflows = match &args.workflows {
        Some(path) => crate::docs::workflows::Workflows::load(path),
        None => crate::docs::workflows::Workflows::embedded(),
    }?;
    let site = crate::docs::Site::build(&contract, &features, &requirements, &workflows)?;
    let written = site.write(&args.out, args.format)?;
    let entry = args
        .out
        .join(if args.format == crate::docs::Format::Markdown {
            "index.md"
        } else {
            "index.html"
        });
    println!("{} files written; open {}", written.len(), entry.display());
    Ok(ExitCode::SUCCESS)
}

/// A setting given as a flag or variable, unless empty.
fn given(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// [`given`] for a path.
fn given_path(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|p| !p.as_os_str().is_empty())
}

/// The report files the flags ask for, each format's flag found by an
/// exhaustive match: a new format does not compile until it has its flag.
fn report_files(args: &mut RunArgs) -> crate::runner::reports::ReportFiles {
    use crate::runner::reports::Format;
    Format::ALL
        .into_iter()
        .filter_map(|format| {
            let file = match format {
                Format::Junit => args.junit.take(),
                Format::CucumberJson => args.cucumber_json.take(),
                Format::Html => args.html.take(),
                Format::Results => args.results.take(),
                Format::Har => args.har.take(),
            };
            file.map(|file| (format, file))
        })
        .collect()
}

fn run_options(args: Box<RunArgs>) -> crate::runner::RunOptions {
    let mut args = *args;
    let reports = report_files(&mut args);
    crate::runner::RunOptions {
        target_file: args.target,
        // A flag, or else its PAYCONF_* variable (clap's `env`), overrides
        // the target file; a variable set but empty counts as unset.
        overrides: crate::runner::target_file::TargetOverrides {
            base_url: given(args.base_url),
            api_key: given(args.api_key),
            shop_login: given(args.shop_login),
            acs_driver: args.acs_driver,
            transport: crate::runner::target_file::TransportOverrides {
                ca_file: given_path(args.tls_ca_file),
                client_cert: given_path(args.tls_client_cert),
                client_key: given_path(args.tls_client_key),
                proxy: given(args.proxy),
            },
            notification_secret: std::env::var(crate::runner::target_file::SECRET_VARIABLE).ok(),
        },
        tags: args.tags,
        features_dir: args.features,
        spec: args.spec,
        timeout: std::time::Duration::from_secs(args.timeout),
        concurrency: usize::try_from(args.concurrency).unwrap_or(16),
        rate: args.rate,
        seed: args.seed,
        list: args.list,
        plan: false,
        reports,
        waivers: args.waivers,
        strict_waivers: args.strict_waivers,
        rerun_failed: args.rerun_failed,
        allow_production: args.allow_production,
        embedded_tls: args.embedded_tls,
    }
}

/// `--rate`: a number of requests a second, above zero.
fn rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 && rate <= 100_000.0 => Ok(rate),
        _ => Err(format!(
            "{text:?} is not a number of requests a second between 0 and 100000 (0.5 is one \
             request every two seconds)"
        )),
    }
}
