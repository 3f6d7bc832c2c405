//! What `payconf run` (and `payconf plan`) is told: [`RunOptions`], what
//! it does with them ([`Mode`]), and the scenarios it selects when told
//! no tags.

use std::{path::PathBuf, time::Duration};

use payconf_spec::Profile;

use crate::runner::{
    embedded::Transport,
    reports::ReportFiles,
    target_file::{self, Aim, AimError, Naming, TargetOverrides},
};

/// What a `payconf run` does with its options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Runs the scenarios.
    #[default]
    Run,
    /// `--list`: with a target, the plan; without, every requirement.
    List,
    /// `payconf plan`: the plan of the run the options describe, nothing sent.
    Plan,
}

/// Everything `payconf run` takes, by concern: what it does with it, what
/// to run, against what, how to send, how to judge and what to write.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// What the command does: run, list, or print the plan.
    pub mode: Mode,
    /// What to run.
    pub scope: Scope,
    /// Against what.
    pub target: TargetChoice,
    /// How requests go out.
    pub sending: Sending,
    /// How the run is judged.
    pub judging: Judging,
    /// What the run writes besides the console.
    pub outputs: Outputs,
    /// The variables of the environment the run reads, taken once by the
    /// command line: the run itself reads none.
    pub environment: Environment,
    /// A browser the caller lends the run (a library caller's, shared by
    /// the runs it makes one after another, as the tests' zoos do): the
    /// browser driver's journeys take their turns in it instead of in a
    /// browser of the run's own, and it is left running when the run ends.
    /// It is as it was started: the target file's `[acs.browser]` settings
    /// do not change it. The command line lends none.
    pub browser: Option<std::sync::Arc<crate::runner::buyer::browser::chromium::Chromium>>,
}

/// The variables of a run's environment: `PATH` and the browser's
/// variables (where Chromium and ChromeDriver are), the proxy variables
/// (as curl reads them). Shown by name only: a value may be a secret.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Environment(std::collections::BTreeMap<String, String>);

impl Environment {
    /// This process's variables (those of UTF-8 names and values).
    pub fn of_process() -> Self {
        Self(
            std::env::vars_os()
                .filter_map(|(name, value)| {
                    Some((name.into_string().ok()?, value.into_string().ok()?))
                })
                .collect(),
        )
    }

    /// The variables of these `names` that are set.
    pub fn only(&self, names: &[&str]) -> std::collections::BTreeMap<String, String> {
        names
            .iter()
            .filter_map(|name| Some(((*name).to_owned(), self.get(name)?)))
            .collect()
    }

    /// The value of the variable `name`, if set.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// What to run: the scenarios, and the spec they are judged by.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// `--tags EXPR`.
    pub tags: Option<String>,
    /// `--features DIR`.
    pub features_dir: Option<PathBuf>,
    /// `--spec FILE`.
    pub spec: Option<PathBuf>,
    /// `--rerun-failed FILE`: only what failed or erred in that results file.
    pub rerun_failed: Option<PathBuf>,
    /// `--allow-production`.
    pub allow_production: bool,
}

/// Against what: a target file and the flags over it, or the embedded
/// reference implementation when nothing names a target or it is asked
/// for by name.
#[derive(Clone, Debug, Default)]
pub struct TargetChoice {
    /// `--target FILE`.
    pub file: Option<PathBuf>,
    /// `--base-url`, `--api-key`, `--shop-login`, ...
    pub overrides: TargetOverrides,
    /// The flags and `PAYCONF_*` variables of the target's that were given
    /// (a variable set even when empty): each names a target.
    pub named_by: Vec<Naming>,
    /// `--embedded` (or `--embedded-tls`): the embedded reference
    /// implementation, asked for by name.
    pub by_name: bool,
    /// `--embedded-tls`: how the embedded target listens.
    pub embedded: Transport,
}

impl TargetChoice {
    /// Whether a target is given (a file or a base URL), so that the
    /// embedded reference implementation is not started.
    pub fn given(&self) -> bool {
        self.file.is_some() || self.overrides.base_url.is_some()
    }

    /// What the run is aimed at: the target named, or the embedded
    /// reference implementation when none is (or it is asked for by name).
    pub fn aim(&self) -> Result<Aim, AimError> {
        target_file::aim(
            self.file.as_deref(),
            &self.overrides,
            &self.named_by,
            self.by_name,
        )
    }
}

/// `--timeout` when not given: each request's bound, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;
/// `--concurrency` when not given: scenarios at the same time.
pub const DEFAULT_CONCURRENCY: u64 = 16;

/// How requests go out; by default as `payconf run` sends when given no
/// flag.
#[derive(Clone, Debug)]
pub struct Sending {
    /// `--timeout SECS`.
    pub timeout: Duration,
    /// `--concurrency N`.
    pub concurrency: usize,
    /// `--rate N`: requests a second at most, over the run.
    pub rate: Option<f64>,
    /// `--seed N`: the seed of generated hostile inputs; random when absent.
    pub seed: Option<u64>,
}

impl Default for Sending {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            concurrency: usize::try_from(DEFAULT_CONCURRENCY).unwrap_or(1),
            rate: None,
            seed: None,
        }
    }
}

/// How the run is judged.
#[derive(Clone, Debug, Default)]
pub struct Judging {
    /// `--waivers FILE`.
    pub waivers: Option<PathBuf>,
    /// `--strict-waivers`: a waiver no longer needed fails the run.
    pub strict_waivers: bool,
    /// `--retries N`: a failed or erred scenario run again up to N times,
    /// but never a `@robustness` one.
    pub retries: usize,
    /// `--flaky-fails`: a scenario that passed only on a later try fails the run.
    pub flaky_fails: bool,
}

/// What the run writes besides the console.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `--junit`, `--cucumber-json`, `--html`, `--results`, `--har`.
    pub reports: ReportFiles,
    /// `--evidence FILE`: the run's signed evidence bundle.
    pub evidence: Option<PathBuf>,
    /// `--signing-key FILE`: the key that signs the bundle.
    pub signing_key: Option<PathBuf>,
    /// `PAYCONF_SIGNING_KEY`: the key's PEM, when no file is given.
    pub signing_key_pem: Option<String>,
    /// Under GitHub Actions: annotations and the step summary.
    pub github: Option<GitHubActions>,
}

/// A run under GitHub Actions (`GITHUB_ACTIONS=true`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitHubActions {
    /// `GITHUB_STEP_SUMMARY`: the file the job's summary is appended to.
    pub summary: Option<PathBuf>,
}

impl GitHubActions {
    /// The run's GitHub Actions, from the variables GitHub sets.
    pub fn from_environment(variable: impl Fn(&str) -> Option<String>) -> Option<Self> {
        (variable("GITHUB_ACTIONS").as_deref() == Some("true")).then(|| Self {
            summary: variable("GITHUB_STEP_SUMMARY")
                .filter(|path| !path.is_empty())
                .map(PathBuf::from),
        })
    }
}

/// The scenarios a run selects without `--tags`: what the contract states,
/// against a target; the reference profile's choices too, against the
/// embedded reference implementation, which makes them.
pub fn default_tags(embedded: bool) -> String {
    if embedded {
        format!("{} or {}", Profile::Core.tag(), Profile::Reference.tag())
    } else {
        Profile::Core.tag().to_owned()
    }
}
