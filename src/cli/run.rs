//! `payconf run`'s flags (which `payconf plan` takes too), and the run's
//! options made of them: a flag, or else its `PAYCONF_*` variable, over the
//! target file; the report files each format's flag names.

use std::path::PathBuf;

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
    #[arg(long, value_name = "KEY", env = "PAYCONF_API_KEY")]
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
    #[arg(long, value_name = "URL", env = "PAYCONF_PROXY")]
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
    #[arg(long, value_name = "SECS", default_value_t = crate::runner::options::DEFAULT_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout: u64,
    /// Scenarios run at the same time.
    #[arg(long, value_name = "N", default_value_t = crate::runner::options::DEFAULT_CONCURRENCY, value_parser = clap::value_parser!(u64).range(1..=256))]
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
    /// Run a scenario that failed or erred again, with new payments, up to
    /// N more times; one that then passes is FLAKY, counted apart. A
    /// `@robustness` scenario is never run again: a race that pays twice one
    /// time in three is a defect, not noise.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=10))]
    pub retries: u64,
    /// Fail the run when a scenario passed only on a later try (`--retries`).
    #[arg(long)]
    pub flaky_fails: bool,
    /// Write the run's evidence bundle here: every report, the HAR, the
    /// screenshots, the redacted target, the plan, the spec's and features'
    /// SHA-256, and a manifest of every file's SHA-256 signed with Ed25519
    /// (`payconf verify` checks it offline).
    #[arg(long, value_name = "FILE")]
    pub evidence: Option<PathBuf>,
    /// The Ed25519 private key (PKCS#8 PEM, from `payconf keygen`) that
    /// signs `--evidence`; else the PEM in PAYCONF_SIGNING_KEY.
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
    /// Run only the scenarios that failed or erred in this earlier run's
    /// results file (`--results`), matched by location, or by file and name
    /// when the features moved.
    #[arg(long, value_name = "RESULTS")]
    pub rerun_failed: Option<PathBuf>,
    /// Run against a production target, and then only the
    /// `@production-safe` scenarios (no card data sent).
    #[arg(long)]
    pub allow_production: bool,
    /// Run against payconf's own embedded reference implementation, by
    /// name. Without it, the embedded implementation runs only when no
    /// setting names a target: a target file, or a target's flag or
    /// PAYCONF_* variable (set even when empty) without a base URL stops the
    /// run (exit code 2) rather than check payconf's own sandbox in its place.
    #[arg(long)]
    pub embedded: bool,
    /// Serve the embedded reference implementation over HTTPS (HTTP/2 by
    /// ALPN), with a certificate made for this run by a CA only this run
    /// trusts; without a base URL only. It asks for the embedded target by
    /// name, as --embedded does.
    #[arg(long)]
    pub embedded_tls: bool,
}

/// The target's settings that a flag or a `PAYCONF_*` variable gives:
/// each, given, names a target. `PAYCONF_ACS_DRIVER` is not among them: it
/// says how the buyer is driven, the embedded target's buyer too.
const TARGET_SETTINGS: [(Option<&str>, &str); 9] = [
    (Some("--base-url"), "PAYCONF_BASE_URL"),
    (Some("--api-key"), "PAYCONF_API_KEY"),
    (Some("--shop-login"), "PAYCONF_SHOP_LOGIN"),
    (Some("--tls-ca-file"), "PAYCONF_TLS_CA_FILE"),
    (Some("--tls-client-cert"), "PAYCONF_TLS_CLIENT_CERT"),
    (Some("--tls-client-key"), "PAYCONF_TLS_CLIENT_KEY"),
    (Some("--proxy"), "PAYCONF_PROXY"),
    (None, crate::runner::target_file::SECRET_VARIABLE),
    (None, crate::runner::target_file::SECOND_SHOP_KEY_VARIABLE),
];

/// The settings of `args` that name a target: a variable set in the
/// environment (`variable`), even to nothing, or else its flag given.
fn namings(
    args: &RunArgs,
    variable: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<crate::runner::target_file::Naming> {
    use crate::runner::target_file::Naming;
    let flag_given = |flag: &str| match flag {
        "--base-url" => args.base_url.is_some(),
        "--api-key" => args.api_key.is_some(),
        "--shop-login" => args.shop_login.is_some(),
        "--tls-ca-file" => args.tls_ca_file.is_some(),
        "--tls-client-cert" => args.tls_client_cert.is_some(),
        "--tls-client-key" => args.tls_client_key.is_some(),
        "--proxy" => args.proxy.is_some(),
        _ => false,
    };
    TARGET_SETTINGS
        .into_iter()
        .filter_map(|(flag, name)| match (variable(name), flag) {
            (Some(value), _) => Some(Naming::Variable {
                name,
                empty: value.is_empty(),
            }),
            (None, Some(flag)) if flag_given(flag) => Some(Naming::Flag(flag)),
            (None, _) => None,
        })
        .collect()
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

/// The options of `payconf run`, or of `payconf plan` (`plan`): the plan of
/// that run, nothing sent.
///
/// The command line reads the environment; the run reads only its options.
/// A driver neither `form`, `browser` nor `none` stops it here, naming the
/// flag or the variable that gave it.
pub(super) fn run_options(
    args: Box<RunArgs>,
    plan: bool,
) -> Result<crate::runner::RunOptions, crate::runner::NotRun> {
    let mut args = *args;
    let reports = report_files(&mut args);
    let named_by = namings(&args, |name| std::env::var_os(name));
    use crate::runner::{
        Judging, Mode, Outputs, RunOptions, Scope, Sending, target_file::driver_override,
    };
    let environment = crate::runner::options::Environment::of_process();
    let acs_driver = driver_override(args.acs_driver.as_deref(), |name| environment.get(name))?;
    let target = target_choice(&mut args, acs_driver, named_by, &environment);
    Ok(RunOptions {
        mode: if plan {
            Mode::Plan
        } else if args.list {
            Mode::List
        } else {
            Mode::Run
        },
        scope: Scope {
            tags: args.tags,
            features_dir: args.features,
            spec: args.spec,
            rerun_failed: args.rerun_failed,
            allow_production: args.allow_production,
        },
        target,
        sending: Sending {
            timeout: std::time::Duration::from_secs(args.timeout),
            concurrency: usize::try_from(args.concurrency).unwrap_or(1),
            rate: args.rate,
            seed: args.seed,
        },
        judging: Judging {
            waivers: args.waivers,
            strict_waivers: args.strict_waivers,
            retries: usize::try_from(args.retries).unwrap_or(0),
            flaky_fails: args.flaky_fails,
        },
        outputs: Outputs {
            reports,
            evidence: given_path(args.evidence),
            signing_key: given_path(args.signing_key),
            signing_key_pem: given(
                environment.get(crate::runner::bundle::keys::SIGNING_KEY_VARIABLE),
            ),
            github: crate::runner::options::GitHubActions::from_environment(|name| {
                environment.get(name)
            }),
        },
        environment,
        browser: None,
    })
}

/// The target the run is aimed at: the target file, what the flags and
/// their variables say over it, and the embedded sandbox when it is named.
fn target_choice(
    args: &mut RunArgs,
    acs_driver: Option<crate::runner::target_file::AcsDriver>,
    named_by: Vec<crate::runner::target_file::Naming>,
    environment: &crate::runner::options::Environment,
) -> crate::runner::TargetChoice {
    use crate::runner::{
        TargetChoice,
        embedded::Transport,
        target_file::{
            SECOND_SHOP_KEY_VARIABLE, SECRET_VARIABLE, TargetOverrides, TransportOverrides,
        },
    };
    TargetChoice {
        file: args.target.take(),
        // A flag, or else its PAYCONF_* variable (clap's `env`), overrides
        // the target file; a variable set but empty counts as unset.
        overrides: TargetOverrides {
            base_url: given(args.base_url.take()),
            api_key: given(args.api_key.take()),
            shop_login: given(args.shop_login.take()),
            acs_driver,
            transport: TransportOverrides {
                ca_file: given_path(args.tls_ca_file.take()),
                client_cert: given_path(args.tls_client_cert.take()),
                client_key: given_path(args.tls_client_key.take()),
                proxy: given(args.proxy.take()),
            },
            notification_secret: given(environment.get(SECRET_VARIABLE)),
            second_shop_api_key: given(environment.get(SECOND_SHOP_KEY_VARIABLE)),
        },
        named_by,
        by_name: args.embedded || args.embedded_tls,
        embedded: if args.embedded_tls {
            Transport::Https
        } else {
            Transport::Http
        },
    }
}

/// A `--rate` that is no number of requests a second payconf sends at.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0:?} is not a number of requests a second between 0 and 100000 (0.5 is one request \
     every two seconds)"
)]
pub struct NotARate(String);

/// `--rate`: a number of requests a second, above zero.
fn rate(text: &str) -> Result<f64, NotARate> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 && rate <= 100_000.0 => Ok(rate),
        _ => Err(NotARate(text.to_owned())),
    }
}
