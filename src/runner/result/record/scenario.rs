//! One scenario of a run, as its record holds it: how it ended, why, what
//! it left (the issuer's pages, hostile findings, what it noted, waited for
//! and measured) and its earlier tries.

use payconf_spec::requirements::RequirementId;
use serde::{Deserialize, Serialize};

use crate::runner::result::{Drove, Fault, HostileFinding, OutcomeKind};

/// One scenario of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScenarioRecord {
    /// `file:line`.
    pub location: String,
    /// Its feature's name.
    pub feature: String,
    /// Its name.
    pub name: String,
    /// Its tags, without `@`.
    pub tags: Vec<String>,
    /// The requirements it checks.
    pub requirements: Vec<RequirementId>,
    /// How it ended (its last try).
    pub outcome: OutcomeKind,
    /// How long its last try took.
    pub duration_ms: u64,
    /// The step that failed or erred, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why, as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureRecord>,
    /// The requirements at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_fault: Option<Vec<RequirementId>>,
    /// The driver that drove its buyer through the issuer's pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<Drove>,
    /// The issuer's pages visited, redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer_pages: Option<Vec<String>>,
    /// What its generated hostile bodies found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostile: Option<HostileFinding>,
    /// The waivers in force on its failure, described.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waivers: Vec<String>,
    /// Why it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Violations of requirements it does not check, noted in passing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noted: Vec<String>,
    /// Each time the target asked payconf to wait, and it did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited: Vec<String>,
    /// What it measured of its own sharpness.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<String>,
    /// How many times it ran, when `--retries` ran it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tries: Option<usize>,
    /// Its tries before the last, each failed or erred.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_tries: Vec<EarlierTryRecord>,
}

/// Why a step did not pass, as data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailureRecord {
    /// Whose fault it is.
    pub fault: Fault,
    /// What the step expected of the target; for an error of the harness,
    /// what payconf could not do and what would let it.
    pub expected: String,
    /// What came instead.
    pub actual: Option<String>,
}

/// A try of a scenario that failed or erred and was run again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EarlierTryRecord {
    /// How it ended.
    pub outcome: OutcomeKind,
    /// How long it took.
    pub duration_ms: u64,
    /// The requirements at fault for it.
    pub at_fault: Vec<RequirementId>,
    /// The step that failed or erred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ScenarioRecord {
    /// Whether it failed or payconf could not judge it.
    pub fn failed_or_erred(&self) -> bool {
        matches!(self.outcome, OutcomeKind::Failed | OutcomeKind::Error)
    }

    /// Its feature file: the location without its line.
    pub fn file(&self) -> &str {
        self.location
            .rsplit_once(':')
            .map_or(self.location.as_str(), |(file, _)| file)
    }
}
