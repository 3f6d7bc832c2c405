//! What a run leaves: every scenario's outcome and its failure as data,
//! its steps with the requirements each names, its exchanges, issuer
//! evidence and hostile-input findings, and the counts. It is the runner's
//! base layer: it imports nothing of the runner above it. The [`recorder`]
//! is its only writer; the console, the reports and the waivers read it,
//! and its [`Verdict`] is the run's exit code.

use std::time::Duration;

use payconf_spec::requirements::RequirementId;

mod checked;
mod exchange;
mod failure;
#[cfg(test)]
pub(crate) mod fixtures;
mod hostile;
mod issuer;
mod key;
mod leftovers;
pub mod record;
pub mod recorder;
mod verdict;

pub use checked::CheckedTarget;
pub use exchange::{ExchangeRecord, Timing};
pub use failure::{Failure, Fault};
pub use hostile::HostileFinding;
pub use issuer::{Drove, IssuerEvidence};
pub use key::ScenarioKey;
pub use leftovers::{LeftoverQueue, Leftovers};
pub use record::{FORMAT_VERSION, RequirementVerdict, RunRecord};
pub use verdict::{Grounds, Reason, Verdict};

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepStatus {
    /// It passed.
    Passed,
    /// It failed.
    Failed,
    /// No step definition matched it.
    Undefined,
    /// Not run: an earlier step failed, or the scenario was skipped.
    Skipped,
}

impl StepStatus {
    /// `passed`, `failed`, `undefined` or `skipped`, as Cucumber names them.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Undefined => "undefined",
            Self::Skipped => "skipped",
        }
    }
}

/// One step of a scenario, as run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepResult {
    /// `Given `, `When `, `Then `, `And `…
    pub keyword: String,
    /// The step's text, for matching it to the requirements it names.
    pub text: String,
    /// Its line in the feature file.
    pub line: usize,
    /// How it ended.
    pub status: StepStatus,
    /// How long it took.
    pub duration: Duration,
    /// Why it failed.
    pub message: Option<String>,
    /// The requirements of its scenario it checks (`steps` of the catalogue).
    pub requirements: Vec<RequirementId>,
}

/// How a scenario ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every step passed.
    Passed,
    /// A step failed.
    Failed {
        /// The step, as written (`Then the …`).
        step: String,
        /// Expected, actual, the exchange, the requirements it blames.
        failure: Failure,
    },
    /// Not run, with the reason.
    Skipped(String),
    /// payconf could not judge it (a page it cannot read, a browser that
    /// does not answer): neither a pass nor a failure of the target.
    Error {
        /// The step, as written.
        step: String,
        /// What payconf could not do, and what would let it.
        failure: Failure,
    },
    /// It passed on a later try of `--retries`, after failing or erring
    /// (its earlier tries are the result's `earlier`): a pass, counted
    /// apart, that fails the run with `--flaky-fails`.
    Flaky,
    /// A step failed, but every requirement the scenario checks is waived.
    Waived {
        /// The step, as written.
        step: String,
        /// Expected, actual, the exchange, the requirements it blames.
        failure: Failure,
        /// The waivers in force, described.
        waivers: Vec<String>,
    },
}

impl Outcome {
    /// A step's failure as the scenario's outcome: an error when payconf
    /// could not carry the step out, set aside when the scenario's road is
    /// not there to take (not judged), else a failure of the target.
    pub fn of(step: String, failure: Failure) -> Self {
        if failure.is_not_applicable() {
            Self::Skipped(format!("not judged: {}", failure.expected))
        } else if failure.is_harness() {
            Self::Error { step, failure }
        } else {
            Self::Failed { step, failure }
        }
    }

    /// The failing step and its failure, for a failed, waived or erred scenario.
    pub fn failure(&self) -> Option<(&str, &Failure)> {
        match self {
            Self::Failed { step, failure }
            | Self::Waived { step, failure, .. }
            | Self::Error { step, failure } => Some((step, failure)),
            Self::Passed | Self::Flaky | Self::Skipped(_) => None,
        }
    }

    /// The waivers in force, for a waived scenario.
    pub fn waivers(&self) -> &[String] {
        match self {
            Self::Waived { waivers, .. } => waivers,
            _ => &[],
        }
    }

    /// Why a skipped scenario did not run.
    pub fn skip_reason(&self) -> Option<&str> {
        match self {
            Self::Skipped(reason) => Some(reason),
            _ => None,
        }
    }

    /// Which of the six outcomes it is.
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Self::Passed => OutcomeKind::Passed,
            Self::Flaky => OutcomeKind::Flaky,
            Self::Failed { .. } => OutcomeKind::Failed,
            Self::Skipped(_) => OutcomeKind::Skipped,
            Self::Waived { .. } => OutcomeKind::Waived,
            Self::Error { .. } => OutcomeKind::Error,
        }
    }

    /// `passed`, `flaky`, `failed`, `skipped`, `waived` or `error`.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

/// A scenario's outcome without what goes with it: what a results file
/// names, and counts count.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    /// Every step passed.
    Passed,
    /// Passed on a later try.
    Flaky,
    /// A step failed.
    Failed,
    /// Not run.
    Skipped,
    /// Failed, and waived.
    Waived,
    /// Not judged.
    Error,
}

impl OutcomeKind {
    /// Every kind, in the order the counts list them.
    pub const ALL: [Self; 6] = [
        Self::Passed,
        Self::Flaky,
        Self::Failed,
        Self::Skipped,
        Self::Waived,
        Self::Error,
    ];

    /// Its name in the results file and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Flaky => "flaky",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Waived => "waived",
            Self::Error => "error",
        }
    }

    /// The kind a results file names; `None` for a name payconf never writes.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// One scenario's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioResult {
    /// Feature file name.
    pub file: String,
    /// Scenario line.
    pub line: usize,
    /// Feature name.
    pub feature: String,
    /// Scenario name.
    pub name: String,
    /// Its tags, without `@`.
    pub tags: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Its steps, background first.
    pub steps: Vec<StepResult>,
    /// What it left besides its steps: exchanges, observations, waits,
    /// measurements, issuer evidence, hostile findings.
    pub leftovers: Leftovers,
    /// The requirements at fault, when it failed, was waived or erred: those
    /// a spec violation blamed, or else those the failing step names, or
    /// else every requirement it checks.
    pub blamed: Vec<RequirementId>,
    /// How long it took (its last try).
    pub duration: Duration,
    /// Its earlier tries, each failed or erred, when `--retries` ran it
    /// again; this result is its last try.
    pub earlier: Vec<EarlierTry>,
}

/// A try of a scenario that failed or erred and was run again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierTry {
    /// How it ended: failed, erred, or failed under a waiver.
    pub outcome: Outcome,
    /// The requirements at fault for it.
    pub blamed: Vec<RequirementId>,
    /// How long it took.
    pub duration: Duration,
    /// Its exchanges and evidence, with new payments of its own.
    pub leftovers: Leftovers,
}

impl ScenarioResult {
    /// A scenario that did not run, and why; `entry` names it.
    pub fn skipped(entry: payconf_spec::features::ScenarioEntry, reason: String) -> Self {
        Self {
            file: entry.file,
            line: entry.line,
            feature: entry.feature,
            name: entry.name,
            tags: entry.tags,
            outcome: Outcome::Skipped(reason),
            steps: Vec::new(),
            leftovers: Leftovers::default(),
            blamed: Vec::new(),
            duration: Duration::ZERO,
            earlier: Vec::new(),
        }
    }

    /// Its tries as a later try's earlier ones: those before it, then it.
    pub fn into_earlier(mut self) -> Vec<EarlierTry> {
        let mut earlier = std::mem::take(&mut self.earlier);
        earlier.push(EarlierTry {
            outcome: self.outcome,
            blamed: self.blamed,
            duration: self.duration,
            leftovers: self.leftovers,
        });
        earlier
    }

    /// How many times it ran: its earlier tries and the last.
    pub fn tries(&self) -> usize {
        self.earlier.len() + 1
    }

    /// Every exchange it kept for the HAR, its earlier tries' first.
    pub fn har(&self) -> impl Iterator<Item = &ExchangeRecord> {
        self.earlier
            .iter()
            .map(|try_| &try_.leftovers)
            .chain(std::iter::once(&self.leftovers))
            .filter_map(|leftovers| leftovers.har.as_deref())
            .flatten()
    }

    /// Which scenario it is.
    pub fn key(&self) -> ScenarioKey {
        ScenarioKey::new(self.file.clone(), self.line)
    }

    /// `file:line`.
    pub fn location(&self) -> String {
        self.key().to_string()
    }

    /// The requirement ids it checks.
    pub fn requirements(&self) -> impl Iterator<Item = RequirementId> {
        payconf_spec::features::requirement_ids(&self.tags)
    }

    /// Whether it checks the requirement `id` (one of its `@req:` tags).
    pub fn checks(&self, id: impl AsRef<str>) -> bool {
        payconf_spec::features::names_requirement(&self.tags, id.as_ref())
    }

    /// How one requirement it checks fared in it: the scenario's outcome for
    /// the requirements at fault; for the others of a scenario that did not
    /// pass, `passed` when a step that names the requirement passed, or else
    /// `not-reached` (its steps came after the failure); a flaky scenario's
    /// are all `flaky`.
    pub fn verdict_for(&self, requirement: &RequirementId) -> RequirementVerdict {
        match self.outcome {
            Outcome::Passed | Outcome::Flaky | Outcome::Skipped(_) => self.outcome.kind().into(),
            _ if self.blamed.iter().any(|id| id == requirement) => self.outcome.kind().into(),
            _ if self.steps.iter().any(|step| {
                step.status == StepStatus::Passed
                    && step.requirements.iter().any(|id| id == requirement)
            }) =>
            {
                RequirementVerdict::Passed
            }
            _ => RequirementVerdict::NotReached,
        }
    }
}

/// Counts of a run.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Passed on a later try, after failing or erring.
    pub flaky: usize,
    /// Failed.
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Failed, but waived.
    pub waived: usize,
    /// Not judged: payconf could not carry them out.
    pub errors: usize,
}

impl Counts {
    /// One scenario more, of `outcome`.
    pub fn tally(&mut self, outcome: OutcomeKind) {
        match outcome {
            OutcomeKind::Passed => self.passed += 1,
            OutcomeKind::Flaky => self.flaky += 1,
            OutcomeKind::Failed => self.failed += 1,
            OutcomeKind::Skipped => self.skipped += 1,
            OutcomeKind::Waived => self.waived += 1,
            OutcomeKind::Error => self.errors += 1,
        }
    }

    /// All scenarios counted.
    pub fn total(self) -> usize {
        self.passed + self.flaky + self.failed + self.skipped + self.waived + self.errors
    }
}

/// Everything the run produced, shared between the writer and the caller.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// What the run checked: a server, or the embedded reference implementation.
    pub target: CheckedTarget,
    /// Scenario results, in the order they finished.
    pub scenarios: Vec<ScenarioResult>,
    /// Step counts.
    pub steps: Counts,
    /// Problems of the harness itself (unparsable features, failed hooks).
    pub harness_errors: Vec<String>,
    /// Number of features run.
    pub features: usize,
    /// Waivers in force whose requirement passed, as described.
    pub stale_waivers: Vec<String>,
    /// Whether a waiver no longer needed fails the run (`--strict-waivers`).
    pub strict_waivers: bool,
    /// How many times a failed or erred scenario may run again (`--retries`).
    pub retries: usize,
    /// Whether a flaky scenario fails the run (`--flaky-fails`).
    pub flaky_fails: bool,
}

impl RunReport {
    /// The scenarios in file and line order (they finish in any order).
    pub fn sorted(&self) -> Vec<&ScenarioResult> {
        let mut results: Vec<&ScenarioResult> = self.scenarios.iter().collect();
        results.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        results
    }

    /// Scenario counts.
    pub fn scenario_counts(&self) -> Counts {
        let mut counts = Counts::default();
        for result in &self.scenarios {
            counts.tally(result.outcome.kind());
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_is_tallied_under_its_own_count() {
        let failure = || Failure::plain("an answer");
        let outcomes = [
            Outcome::Passed,
            Outcome::Flaky,
            Outcome::Failed {
                step: "Then".to_owned(),
                failure: failure(),
            },
            Outcome::Skipped("set aside".to_owned()),
            Outcome::Error {
                step: "When".to_owned(),
                failure: Failure::harness("no browser"),
            },
            Outcome::Waived {
                step: "Then".to_owned(),
                failure: failure(),
                waivers: Vec::new(),
            },
        ];
        let mut counts = Counts::default();
        for outcome in &outcomes {
            counts.tally(outcome.kind());
        }
        assert_eq!(
            counts,
            Counts {
                passed: 1,
                flaky: 1,
                failed: 1,
                skipped: 1,
                waived: 1,
                errors: 1,
            }
        );
    }
}
