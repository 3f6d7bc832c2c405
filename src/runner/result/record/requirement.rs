//! How a requirement fared in a run: its record, the scenarios that
//! checked it, and the verdicts a requirement can have.

use payconf_spec::requirements::RequirementId;
use serde::{Deserialize, Serialize};

use crate::runner::result::OutcomeKind;

/// How a requirement fared in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequirementRecord {
    /// Its id in spec/requirements.yaml, which scenarios' `@req:` tags name.
    pub id: RequirementId,
    /// `core`, `reference` or `robustness`.
    pub profile: payconf_spec::Profile,
    /// Its statement, so a report reads without the catalogue beside it.
    pub summary: String,
    /// The worst of its scenarios' verdicts for it.
    pub outcome: RequirementVerdict,
    /// The scenarios that checked it, each with its verdict for it.
    pub scenarios: Vec<ScenarioRef>,
    /// Its waivers, described.
    pub waivers: Vec<String>,
}

/// A scenario named with a requirement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScenarioRef {
    /// `file:line`.
    pub location: String,
    /// Its name, as the feature writes it.
    pub name: String,
    /// How it went for the requirement.
    pub outcome: RequirementVerdict,
}

/// How a requirement went in a scenario, or in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RequirementVerdict {
    /// Its steps passed.
    Passed,
    /// Its steps passed on a later try.
    Flaky,
    /// A check of it failed.
    Failed,
    /// A check of it failed, and is waived.
    Waived,
    /// payconf could not judge it.
    Error,
    /// Its scenario failed on another requirement before its steps.
    NotReached,
    /// Its scenario did not run.
    Skipped,
    /// No selected scenario checks it.
    NotRun,
}

impl RequirementVerdict {
    /// Every verdict, worst first: a run's verdict for a requirement is the
    /// first of these its scenarios give (a waived failure is worse than a
    /// flaky pass; a scenario that did not reach it, better than a pass
    /// elsewhere cannot outweigh).
    pub const WORST_FIRST: [Self; 8] = [
        Self::Failed,
        Self::Error,
        Self::Waived,
        Self::Flaky,
        Self::Passed,
        Self::NotReached,
        Self::Skipped,
        Self::NotRun,
    ];

    /// Its name in the results file and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Flaky => "flaky",
            Self::Failed => "failed",
            Self::Waived => "waived",
            Self::Error => "error",
            Self::NotReached => "not-reached",
            Self::Skipped => "skipped",
            Self::NotRun => "not-run",
        }
    }

    /// A requirement's verdict in a run, from its scenarios' verdicts for
    /// it: the worst of them, `not-run` when no scenario checks it.
    pub fn worst(verdicts: &[Self]) -> Self {
        Self::WORST_FIRST
            .into_iter()
            .find(|v| verdicts.contains(v))
            .unwrap_or(Self::NotRun)
    }
}

impl From<OutcomeKind> for RequirementVerdict {
    fn from(kind: OutcomeKind) -> Self {
        match kind {
            OutcomeKind::Passed => Self::Passed,
            OutcomeKind::Flaky => Self::Flaky,
            OutcomeKind::Failed => Self::Failed,
            OutcomeKind::Skipped => Self::Skipped,
            OutcomeKind::Waived => Self::Waived,
            OutcomeKind::Error => Self::Error,
        }
    }
}
