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

use serde::{Deserialize, Serialize};

use super::{Counts, Drove, Fault, Grounds, HostileFinding, OutcomeKind, Verdict};

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
    pub fn requirement(&self, id: &str) -> RequirementVerdict {
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

/// Everything a run leaves for machines, in the results file's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayconfRecord {
    /// Its version.
    pub version: String,
}

/// The spec a run checked against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecRecord {
    /// Its title.
    pub title: String,
    /// Its version.
    pub version: String,
    /// The SHA-256 of its text.
    pub sha256: String,
}

/// The features a run ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeaturesRecord {
    /// The SHA-256 of their text.
    pub sha256: String,
}

/// The target of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRecord {
    /// Whether it was the embedded reference implementation.
    pub embedded_reference: bool,
    /// The effective declaration, as the target file spells it, secrets
    /// masked and card numbers cut to their first six and last four digits.
    pub configuration: serde_json::Value,
}

/// What a run selected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectionRecord {
    /// The tag expression.
    pub tags: String,
    /// Scenarios the production guard left out, as `file:line  name`.
    pub left_out_by_production_guard: Vec<String>,
}

/// Every scenario of the features, applying or not, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRecord {
    /// How many apply.
    pub applying: usize,
    /// How many there are.
    pub total: usize,
    /// Each, in the features' order.
    pub scenarios: Vec<PlannedRecord>,
}

/// A scenario of the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedRecord {
    /// `file:line`.
    pub location: String,
    /// Its name.
    pub name: String,
    /// `core`, `reference` or `robustness`; none for an untagged scenario.
    pub profile: Option<String>,
    /// The requirements it checks.
    pub requirements: Vec<String>,
    /// Whether it runs.
    pub applies: bool,
    /// Why it does not, and what would make it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applied: Option<NotAppliedRecord>,
}

/// Why a scenario of the plan does not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotAppliedRecord {
    /// `not-selected`, `production-guard` or `declaration`.
    pub kind: String,
    /// What would make it run.
    pub remedy: String,
}

/// Waivers a run judged that were no longer needed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaiverRecord {
    /// Each, described.
    pub no_longer_needed: Vec<String>,
    /// Whether one fails the run (`--strict-waivers`).
    pub strict: bool,
}

/// How a run treated a scenario that failed and passed when tried again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetriesRecord {
    /// `--retries`.
    pub allowed: usize,
    /// `--flaky-fails`.
    pub flaky_fails: bool,
}

/// A run's counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountsRecord {
    /// Its scenarios, by outcome.
    pub scenarios: ScenarioCounts,
    /// Its steps, by how they ended.
    pub steps: StepCounts,
}

/// Scenarios counted by outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioCounts {
    /// All of them.
    pub total: usize,
    /// Passed.
    pub passed: usize,
    /// Passed on a later try.
    pub flaky: usize,
    /// Failed.
    pub failed: usize,
    /// Not run.
    pub skipped: usize,
    /// Failed, and waived.
    pub waived: usize,
    /// Not judged.
    pub errors: usize,
}

impl From<Counts> for ScenarioCounts {
    fn from(counts: Counts) -> Self {
        Self {
            total: counts.total(),
            passed: counts.passed,
            flaky: counts.flaky,
            failed: counts.failed,
            skipped: counts.skipped,
            waived: counts.waived,
            errors: counts.errors,
        }
    }
}

/// Steps counted by how they ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// How a requirement fared in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequirementRecord {
    /// Its id in spec/requirements.yaml, which scenarios' `@req:` tags name.
    pub id: String,
    /// `core`, `reference` or `robustness`.
    pub profile: String,
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioRef {
    /// `file:line`.
    pub location: String,
    /// Its name, as the feature writes it.
    pub name: String,
    /// How it went for the requirement.
    pub outcome: RequirementVerdict,
}

/// How a requirement went in a scenario, or in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// One scenario of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    pub requirements: Vec<String>,
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
    pub at_fault: Option<Vec<String>>,
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlierTryRecord {
    /// How it ended.
    pub outcome: OutcomeKind,
    /// How long it took.
    pub duration_ms: u64,
    /// The requirements at fault for it.
    pub at_fault: Vec<String>,
    /// The step that failed or erred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Milliseconds, saturated.
pub fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A results file of format 1 with every field payconf writes, each
    /// optional one present on some scenario: the format, pinned.
    const GOLDEN: &str = include_str!("testdata/results-v1.json");

    fn golden() -> RunRecord {
        RunRecord::parse("results.json", GOLDEN.as_bytes()).expect("the golden file reads")
    }

    #[test]
    fn a_record_reads_back_and_writes_the_same_bytes() {
        let record = golden();
        assert_eq!(record.to_text().expect("serialises"), GOLDEN);
        let failed = record.scenario("three_ds.feature:30").expect("listed");
        assert_eq!(failed.outcome, OutcomeKind::Failed);
        assert_eq!(failed.driver, Some(Drove::Form));
        assert_eq!(
            failed.failure.as_ref().map(|f| f.fault),
            Some(Fault::Target)
        );
        assert_eq!(failed.earlier_tries[0].outcome, OutcomeKind::Error);
        assert_eq!(record.requirement("TDS-02"), RequirementVerdict::NotReached);
        assert_eq!(record.requirement("NOPE-01"), RequirementVerdict::NotRun);
        assert_eq!(record.outcome, Verdict::Failed);
    }

    #[test]
    fn failed_or_erred_scenarios_are_found_by_location_or_by_file_and_name() {
        let record = golden();
        assert_eq!(record.failures(), 1);
        let name = "An enrolled card is authenticated";
        assert!(record.failed_or_erred("three_ds.feature:30", "three_ds.feature", "x"));
        assert!(record.failed_or_erred("three_ds.feature:41", "three_ds.feature", name));
        assert!(!record.failed_or_erred("other.feature:30", "other.feature", name));
        assert!(!record.failed_or_erred(
            "notifications.feature:12",
            "notifications.feature",
            "A notification is signed"
        ));
    }

    #[test]
    fn the_verdict_a_record_earns_follows_the_run_s_rule() {
        let mut record = golden();
        assert_eq!(record.earned(), Verdict::Failed);
        record.scenarios[1].outcome = OutcomeKind::Flaky;
        assert_eq!(record.earned(), Verdict::Passed);
        record.retries.flaky_fails = true;
        assert_eq!(record.earned(), Verdict::Failed);
        record.retries.flaky_fails = false;
        record.waivers.strict = true;
        assert_eq!(
            record.earned(),
            Verdict::Failed,
            "a waiver no longer needed"
        );
        record.waivers.strict = false;
        record.scenarios[1].outcome = OutcomeKind::Error;
        assert_eq!(record.earned(), Verdict::NotRun);
        record.harness_errors.push("the browser died".to_owned());
        record.scenarios[1].outcome = OutcomeKind::Failed;
        assert_eq!(record.earned(), Verdict::NotRun, "a run cut short");
    }

    #[test]
    fn outcomes_keep_the_names_of_format_1() {
        let names = |json: String| json.trim_matches('"').to_owned();
        for kind in OutcomeKind::ALL {
            let text = serde_json::to_string(&kind).expect("serialises");
            assert_eq!(names(text), kind.name());
        }
        for verdict in RequirementVerdict::WORST_FIRST {
            let text = serde_json::to_string(&verdict).expect("serialises");
            assert_eq!(names(text), verdict.name());
        }
        for verdict in [Verdict::Passed, Verdict::Failed, Verdict::NotRun] {
            let text = serde_json::to_string(&verdict).expect("serialises");
            assert_eq!(names(text), verdict.name());
        }
    }

    #[test]
    fn a_requirement_s_verdict_is_the_worst_of_its_scenarios() {
        use RequirementVerdict::*;
        assert_eq!(RequirementVerdict::worst(&[]), NotRun);
        assert_eq!(RequirementVerdict::worst(&[Passed, Waived]), Waived);
        assert_eq!(RequirementVerdict::worst(&[Flaky, Waived]), Waived);
        assert_eq!(RequirementVerdict::worst(&[Passed, NotReached]), Passed);
        assert_eq!(
            RequirementVerdict::worst(&[Skipped, NotReached]),
            NotReached
        );
        assert_eq!(RequirementVerdict::worst(&[Skipped]), Skipped);
        assert_eq!(RequirementVerdict::worst(&[Error, Failed, Passed]), Failed);
    }

    #[test]
    fn what_is_not_a_results_file_is_refused_saying_why() {
        let without = |pointer: &str, field: &str| {
            let mut value: serde_json::Value = serde_json::from_str(GOLDEN).expect("JSON");
            value
                .pointer_mut(pointer)
                .and_then(serde_json::Value::as_object_mut)
                .expect("an object")
                .remove(field);
            value.to_string()
        };
        for (text, says) in [
            (String::new(), "not JSON".to_owned()),
            ("[1, 2]".to_owned(), "no format_version".to_owned()),
            (
                r#"{"format_version": 2}"#.to_owned(),
                "results format 2, and this payconf reads format 1".to_owned(),
            ),
            (
                without("", "requirements"),
                "missing field `requirements`".to_owned(),
            ),
            (
                without("/requirements/0", "id"),
                "missing field `id`".to_owned(),
            ),
            (
                GOLDEN.replacen(r#""outcome": "skipped","#, r#""outcome": "fail3d","#, 1),
                "the scenario at notifications.feature:12 has the outcome fail3d, which payconf never writes"
                    .to_owned(),
            ),
            (
                GOLDEN.replacen(r#""outcome": "failed","#, r#""outcome": "failing","#, 1),
                "unknown variant `failing`".to_owned(),
            ),
            (GOLDEN[..GOLDEN.len() / 2].to_owned(), "not JSON".to_owned()),
        ] {
            let error = RunRecord::parse("f.json", text.as_bytes()).expect_err(&says);
            let said = error.to_string();
            assert!(
                said.starts_with("f.json: not a payconf results file"),
                "{said}"
            );
            assert!(said.contains(&says), "{said}");
        }
    }

    #[test]
    fn a_file_s_words_cannot_command_the_terminal() {
        let text = GOLDEN.replacen(
            r#""outcome": "skipped","#,
            "\"outcome\": \"\\u001b[2Jx\",",
            1,
        );
        let said = RunRecord::parse("f.json", text.as_bytes())
            .expect_err("refused")
            .to_string();
        assert!(!said.contains('\u{1b}'), "{said}");
    }
}
