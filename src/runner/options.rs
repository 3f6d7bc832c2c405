//! What `payconf run` (and `payconf plan`) is told: [`RunOptions`], what
//! it does with them ([`Mode`]), and the scenarios it selects when told
//! no tags.

use std::{path::PathBuf, time::Duration};

use payconf_spec::Profile;

use crate::runner::{reports::ReportFiles, target_file::TargetOverrides};

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

/// Everything `payconf run` takes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `--target FILE`.
    pub target_file: Option<PathBuf>,
    /// `--base-url`, `--api-key`, `--shop-login`.
    pub overrides: TargetOverrides,
    /// `--tags EXPR`.
    pub tags: Option<String>,
    /// `--features DIR`.
    pub features_dir: Option<PathBuf>,
    /// `--spec FILE`.
    pub spec: Option<PathBuf>,
    /// `--timeout SECS`.
    pub timeout: Duration,
    /// `--concurrency N`.
    pub concurrency: usize,
    /// `--rate N`: requests a second at most, over the run.
    pub rate: Option<f64>,
    /// `--seed N`: the seed of generated hostile inputs; random when absent.
    pub seed: Option<u64>,
    /// What the command does: run, list, or print the plan.
    pub mode: Mode,
    /// `--junit`, `--cucumber-json`, `--html`, `--results`.
    pub reports: ReportFiles,
    /// `--waivers FILE`.
    pub waivers: Option<PathBuf>,
    /// `--strict-waivers`: a waiver no longer needed fails the run.
    pub strict_waivers: bool,
    /// `--retries N`: a failed or erred scenario run again up to N times,
    /// but never a `@robustness` one.
    pub retries: usize,
    /// `--flaky-fails`: a scenario that passed only on a later try fails the run.
    pub flaky_fails: bool,
    /// `--evidence FILE`: the run's signed evidence bundle.
    pub evidence: Option<PathBuf>,
    /// `--signing-key FILE`: the key that signs the bundle.
    pub signing_key: Option<PathBuf>,
    /// `PAYCONF_SIGNING_KEY`: the key's PEM, when no file is given.
    pub signing_key_pem: Option<String>,
    /// `--rerun-failed FILE`: only what failed or erred in that results file.
    pub rerun_failed: Option<PathBuf>,
    /// `--allow-production`.
    pub allow_production: bool,
    /// `--embedded-tls`: the embedded target over HTTPS.
    pub embedded_tls: bool,
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

/// The tag of the scenario that waits for a token to expire.
pub const TOKEN_LIFETIME_TAG: &str = "token-lifetime";
