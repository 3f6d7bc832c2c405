//! [`RunRecord`]: what a run leaves for machines, as one serde type. The
//! results file (`--results`) is a record serialised; `payconf diff`,
//! `payconf verify`, `payconf run --rerun-failed` and the tests read it
//! back as a record. Outcomes are enums serialised under the names the
//! results format has always used (format version 1): a file that names an
//! outcome payconf never writes, or lacks a field payconf always writes, is
//! refused with what is wrong, never half-read and never counted.
//!
//! Types below, reading back above.

use std::path::Path;

use payconf_spec::requirements::RequirementId;
use serde::{Deserialize, Serialize};

mod of_run;
mod requirement;
mod scenario;
#[cfg(test)]
mod tests;

pub use of_run::RunFacts;
pub use requirement::{RequirementRecord, RequirementVerdict, ScenarioRef};
pub use scenario::{EarlierTryRecord, FailureRecord, ScenarioRecord};

use super::{Counts, Grounds, OutcomeKind, Verdict};

/// The results format this payconf writes and reads; it changes when a
/// field changes meaning.
pub const FORMAT_VERSION: u32 = 1;
/// The largest results file read: a run of every scenario writes far less.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Why a results file cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// It cannot be read.
    #[error("{path}: cannot be read: {cause}")]
    Read {
        /// The file.
        path: String,
        /// Why (not a `source`: the message says it, once).
        cause: std::io::Error,
    },
    /// It is no results file of payconf's.
    #[error("{path}: not a payconf results file (written by --results): {reason}")]
    NotResults {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl RunRecord {
    /// Reads a results file.
    pub fn load(path: &Path) -> Result<Self, RecordError> {
        let shown = path.display().to_string();
        let read = |cause| RecordError::Read {
            path: shown.clone(),
            cause,
        };
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_BYTES {
            return Err(RecordError::NotResults {
                path: shown,
                reason: format!("{size} bytes, more than a results file holds"),
            });
        }
        let text = std::fs::read(path).map_err(read)?;
        Self::parse(&shown, &text)
    }

    /// Reads the text of a results file named `path`: its format version
    /// first (a file of another version is refused as such), then the record.
    pub fn parse(path: &str, text: &[u8]) -> Result<Self, RecordError> {
        let refused = |reason: String| RecordError::NotResults {
            path: path.to_owned(),
            reason: crate::runner::neutral::inline(&reason).into_owned(),
        };
        let value: serde_json::Value =
            serde_json::from_slice(text).map_err(|e| refused(format!("not JSON ({e})")))?;
        match value.get("format_version") {
            Some(version) if *version == FORMAT_VERSION => {}
            Some(other) => {
                return Err(refused(format!(
                    "results format {other}, and this payconf reads format {FORMAT_VERSION}"
                )));
            }
            None => return Err(refused("no format_version".to_owned())),
        }
        // An outcome payconf never writes is refused by name, never counted.
        let scenarios = value.get("scenarios").and_then(serde_json::Value::as_array);
        for entry in scenarios.into_iter().flatten() {
            let named = entry.get("outcome").and_then(serde_json::Value::as_str);
            if let Some(named) = named.filter(|n| OutcomeKind::named(n).is_none()) {
                let location = entry.get("location").and_then(serde_json::Value::as_str);
                return Err(refused(format!(
                    "the scenario at {} has the outcome {named}, which payconf never writes",
                    location.unwrap_or("(no location)")
                )));
            }
        }
        serde_json::from_value(value).map_err(|e| refused(e.to_string()))
    }

    /// The record as the results file holds it.
    pub fn to_text(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// Whether the scenario at `location` named `name` failed or erred in
    /// this run: by its location, or, when the features moved, by its file
    /// and name.
    pub fn failed_or_erred(&self, location: &str, file: &str, name: &str) -> bool {
        self.scenarios.iter().any(|past| {
            past.failed_or_erred()
                && (past.location == location || (past.file() == file && past.name == name))
        })
    }

    /// Its scenarios counted by outcome, as the run counted them.
    pub fn scenario_counts(&self) -> Counts {
        let mut counts = Counts::default();
        for scenario in &self.scenarios {
            counts.tally(scenario.outcome);
        }
        counts
    }

    /// What besides the scenarios decided its verdict.
    pub fn grounds(&self) -> Grounds {
        Grounds {
            harness_failed: !self.harness_errors.is_empty(),
            stale_waivers: self.waivers.no_longer_needed.len(),
            strict_waivers: self.waivers.strict,
            flaky_fails: self.retries.flaky_fails,
        }
    }

    /// The verdict its scenarios and grounds earn, by the rule the run
    /// itself follows: what its `outcome` must say.
    pub fn earned(&self) -> Verdict {
        Verdict::judge(self.scenario_counts(), self.grounds())
    }

    /// How many scenarios failed or erred.
    pub fn failures(&self) -> usize {
        self.scenarios
            .iter()
            .filter(|s| s.failed_or_erred())
            .count()
    }

    /// A requirement's outcome; `not-run` when the run did not list it.
    pub fn requirement(&self, id: impl AsRef<str>) -> RequirementVerdict {
        let id = id.as_ref();
        self.requirements
            .iter()
            .find(|r| r.id == id)
            .map_or(RequirementVerdict::NotRun, |r| r.outcome)
    }

    /// The scenario at `location`.
    pub fn scenario(&self, location: &str) -> Option<&ScenarioRecord> {
        self.scenarios.iter().find(|s| s.location == location)
    }
}

/// Everything a run leaves for machines, in the results file's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunRecord {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Which payconf ran.
    pub payconf: PayconfRecord,
    /// The spec the run checked against.
    pub spec: SpecRecord,
    /// The features run.
    pub features: FeaturesRecord,
    /// Against what.
    pub target: TargetRecord,
    /// What was selected.
    pub selection: SelectionRecord,
    /// Every scenario, applying or not, and why.
    pub plan: PlanRecord,
    /// The seed of the generated hostile inputs, when the run generated some.
    pub seed: Option<u64>,
    /// When it started, RFC 3339 to the second.
    pub started_at: String,
    /// How long it took.
    pub duration_ms: u64,
    /// Its verdict.
    pub outcome: Verdict,
    /// Its exit code, the verdict's.
    pub exit_code: u8,
    /// Problems of the harness itself that cut the run short.
    pub harness_errors: Vec<String>,
    /// Waivers no longer needed, and whether that fails the run.
    pub waivers: WaiverRecord,
    /// `--retries` and `--flaky-fails`.
    pub retries: RetriesRecord,
    /// The scenarios and steps counted.
    pub counts: CountsRecord,
    /// Every requirement's outcome, in catalogue order.
    pub requirements: Vec<RequirementRecord>,
    /// Every scenario selected, in file and line order.
    pub scenarios: Vec<ScenarioRecord>,
}

/// Which payconf wrote a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PayconfRecord {
    /// Its version.
    pub version: String,
}

/// The spec a run checked against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SpecRecord {
    /// Its title.
    pub title: String,
    /// Its version.
    pub version: String,
    /// The SHA-256 of its text.
    pub sha256: String,
}

/// The features a run ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeaturesRecord {
    /// The SHA-256 of their text.
    pub sha256: String,
}

/// The target of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetRecord {
    /// Whether it was the embedded reference implementation.
    pub embedded_reference: bool,
    /// The effective declaration, as the target file spells it, secrets
    /// masked and card numbers cut to their first six and last four digits.
    pub configuration: serde_json::Value,
}

impl TargetRecord {
    /// What the run checked, in the words every report uses.
    pub fn checked(&self) -> super::CheckedTarget {
        if self.embedded_reference {
            super::CheckedTarget::Embedded
        } else {
            super::CheckedTarget::Server {
                base_url: self.configuration["base_url"]
                    .as_str()
                    .unwrap_or("a server whose address the record does not keep")
                    .to_owned(),
            }
        }
    }
}

/// What a run selected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectionRecord {
    /// The tag expression.
    pub tags: String,
    /// Scenarios the production guard left out, as `file:line  name`.
    pub left_out_by_production_guard: Vec<String>,
}

/// Every scenario of the features, applying or not, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanRecord {
    /// How many apply.
    pub applying: usize,
    /// How many there are.
    pub total: usize,
    /// Each, in the features' order.
    pub scenarios: Vec<PlannedRecord>,
}

/// A scenario of the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlannedRecord {
    /// `file:line`.
    pub location: String,
    /// Its name.
    pub name: String,
    /// `core`, `reference` or `robustness`; none for an untagged scenario.
    pub profile: Option<payconf_spec::Profile>,
    /// The requirements it checks.
    pub requirements: Vec<RequirementId>,
    /// Whether it runs.
    pub applies: bool,
    /// Why it does not, and what would make it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applied: Option<NotAppliedRecord>,
}

/// Why a scenario of the plan does not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NotAppliedRecord {
    /// `not-selected`, `production-guard` or `declaration`.
    pub kind: String,
    /// What would make it run.
    pub remedy: String,
}

/// Waivers a run judged that were no longer needed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WaiverRecord {
    /// Each, described.
    pub no_longer_needed: Vec<String>,
    /// Whether one fails the run (`--strict-waivers`).
    pub strict: bool,
}

/// How a run treated a scenario that failed and passed when tried again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RetriesRecord {
    /// `--retries`.
    pub allowed: usize,
    /// `--flaky-fails`.
    pub flaky_fails: bool,
}

/// A run's counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CountsRecord {
    /// Its scenarios, by outcome.
    pub scenarios: ScenarioCounts,
    /// Its steps, by how they ended.
    pub steps: StepCounts,
}

/// Scenarios counted by outcome, with their total first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScenarioCounts {
    /// All of them.
    pub total: usize,
    /// Each outcome's count.
    #[serde(flatten)]
    pub by_outcome: Counts,
}

impl From<Counts> for ScenarioCounts {
    fn from(counts: Counts) -> Self {
        Self {
            total: counts.total(),
            by_outcome: counts,
        }
    }
}

/// Steps counted by how they ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepCounts {
    /// All of them.
    pub total: usize,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Not run.
    pub skipped: usize,
}

impl From<Counts> for StepCounts {
    fn from(counts: Counts) -> Self {
        Self {
            total: counts.total(),
            passed: counts.passed,
            failed: counts.failed,
            skipped: counts.skipped,
        }
    }
}

/// Milliseconds, saturated.
pub fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
