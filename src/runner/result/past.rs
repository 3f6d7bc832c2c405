//! An earlier run's results file (`--results`), read back: the outcome of
//! each requirement and each scenario, and what the run was of (payconf,
//! the spec). `payconf diff` compares two; `payconf run --rerun-failed`
//! runs again what failed or erred in one. A file that is not such a
//! results file is refused with what is wrong, never half-read.

use std::{collections::BTreeMap, path::Path};

use serde_json::Value;

use super::{Counts, Grounds, OutcomeKind, Verdict};

/// The results format this payconf writes and reads; it changes when a
/// field changes meaning.
pub const FORMAT_VERSION: u32 = 1;
/// The largest results file read: a run of every scenario writes far less.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// An earlier run, as its results file says.
#[derive(Clone, Debug)]
pub struct PastRun {
    /// The file, as given.
    pub path: String,
    /// The run's outcome: `passed`, `failed`, `not-run`.
    pub outcome: String,
    /// Which payconf wrote it.
    pub payconf: String,
    /// The spec's title and version, and its SHA-256.
    pub spec: (String, String),
    /// Each requirement's outcome, by id.
    pub requirements: BTreeMap<String, String>,
    /// Each scenario, in the file's order.
    pub scenarios: Vec<PastScenario>,
    /// What besides the scenarios decided its verdict.
    pub grounds: Grounds,
    /// Its exit code, as written.
    pub exit_code: u64,
}

/// One scenario of an earlier run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PastScenario {
    /// `file:line`.
    pub location: String,
    /// Its name.
    pub name: String,
    /// How it ended.
    pub outcome: OutcomeKind,
}

impl PastScenario {
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

/// Why a results file cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum PastError {
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

impl PastRun {
    /// Reads a results file.
    pub fn load(path: &Path) -> Result<Self, PastError> {
        let shown = path.display().to_string();
        let read = |cause| PastError::Read {
            path: shown.clone(),
            cause,
        };
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_BYTES {
            return Err(PastError::NotResults {
                path: shown,
                reason: format!("{size} bytes, more than a results file holds"),
            });
        }
        let text = std::fs::read(path).map_err(read)?;
        Self::parse(&shown, &text)
    }

    /// Reads the text of a results file named `path`.
    pub fn parse(path: &str, text: &[u8]) -> Result<Self, PastError> {
        let refused = |reason: String| PastError::NotResults {
            path: path.to_owned(),
            reason,
        };
        let value: Value =
            serde_json::from_slice(text).map_err(|e| refused(format!("not JSON ({e})")))?;
        match value.get("format_version").and_then(Value::as_u64) {
            Some(version) if version == u64::from(FORMAT_VERSION) => {}
            Some(other) => {
                return Err(refused(format!(
                    "results format {other}, and this payconf reads format {FORMAT_VERSION}"
                )));
            }
            None => return Err(refused("no format_version".to_owned())),
        }
        let text_at = |pointer: &str| -> Result<String, PastError> {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| refused(format!("no text at {pointer}")))
        };
        let list = |name: &str| -> Result<&Vec<Value>, PastError> {
            value
                .get(name)
                .and_then(Value::as_array)
                .ok_or_else(|| refused(format!("no list of {name}")))
        };
        let field = |entry: &Value, name: &str, what: &str| -> Result<String, PastError> {
            entry
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| refused(format!("a {what} without its {name}")))
        };
        let mut requirements = BTreeMap::new();
        for entry in list("requirements")? {
            requirements.insert(
                field(entry, "id", "requirement")?,
                field(entry, "outcome", "requirement")?,
            );
        }
        let scenarios = list("scenarios")?
            .iter()
            .map(|entry| {
                let location = field(entry, "location", "scenario")?;
                let named = field(entry, "outcome", "scenario")?;
                // An outcome payconf never writes is refused, never counted.
                let outcome = OutcomeKind::named(&named).ok_or_else(|| {
                    refused(format!(
                        "the scenario at {} has the outcome {}, which payconf never writes",
                        crate::runner::neutral::inline(&location),
                        crate::runner::neutral::inline(&named),
                    ))
                })?;
                Ok(PastScenario {
                    location,
                    name: field(entry, "name", "scenario")?,
                    outcome,
                })
            })
            .collect::<Result<Vec<_>, PastError>>()?;
        let flag = |pointer: &str| value.pointer(pointer).and_then(Value::as_bool) == Some(true);
        let listed = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_array)
                .is_some_and(|list| !list.is_empty())
        };
        let grounds = Grounds {
            harness_failed: listed("/harness_errors"),
            stale_waivers: value
                .pointer("/waivers/no_longer_needed")
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
            strict_waivers: flag("/waivers/strict"),
            flaky_fails: flag("/retries/flaky_fails"),
        };
        Ok(Self {
            path: path.to_owned(),
            grounds,
            exit_code: value
                .get("exit_code")
                .and_then(Value::as_u64)
                .ok_or_else(|| refused("no exit_code".to_owned()))?,
            outcome: text_at("/outcome")?,
            payconf: text_at("/payconf/version")?,
            spec: (
                format!("{} {}", text_at("/spec/title")?, text_at("/spec/version")?),
                text_at("/spec/sha256")?,
            ),
            requirements,
            scenarios,
        })
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
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for scenario in &self.scenarios {
            counts.tally(scenario.outcome);
        }
        counts
    }

    /// The verdict its scenarios and grounds earn, by the rule the run
    /// itself follows: what a results file's `outcome` must say.
    pub fn earned(&self) -> Verdict {
        Verdict::judge(self.counts(), self.grounds)
    }

    /// How many scenarios failed or erred.
    pub fn failures(&self) -> usize {
        self.scenarios
            .iter()
            .filter(|s| s.failed_or_erred())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESULTS: &str = r#"{"format_version": 1, "outcome": "failed", "exit_code": 1,
        "payconf": {"version": "0.1.0"},
        "spec": {"title": "Payments", "version": "1.0.0", "sha256": "ab"},
        "requirements": [{"id": "CREATE-03", "outcome": "failed"}, {"id": "ENV-01", "outcome": "passed"}],
        "scenarios": [{"location": "create.feature:8", "name": "A create", "outcome": "failed"},
                      {"location": "envelope.feature:9", "name": "Envelope", "outcome": "passed"}]}"#;

    #[test]
    fn a_results_file_reads_back() {
        let past = PastRun::parse("old.json", RESULTS.as_bytes()).expect("reads");
        assert_eq!(past.requirements["CREATE-03"], "failed");
        assert_eq!(past.failures(), 1);
        assert!(past.failed_or_erred("create.feature:8", "create.feature", "x"));
        assert!(past.failed_or_erred("create.feature:12", "create.feature", "A create"));
        assert!(!past.failed_or_erred("envelope.feature:9", "envelope.feature", "Envelope"));
        assert_eq!(past.earned(), Verdict::Failed);
    }

    #[test]
    fn the_verdict_a_results_file_earns_follows_the_run_s_rule() {
        let earned = |text: &str| {
            PastRun::parse("f.json", text.as_bytes())
                .expect("reads")
                .earned()
        };
        let passing = RESULTS.replace(r#""outcome": "failed"}"#, r#""outcome": "flaky"}"#);
        assert_eq!(earned(&passing), Verdict::Passed);
        let flaky_fails = passing.replacen('{', r#"{"retries": {"flaky_fails": true},"#, 1);
        assert_eq!(earned(&flaky_fails), Verdict::Failed);
        let strict = passing.replacen(
            '{',
            r#"{"waivers": {"strict": true, "no_longer_needed": ["SUBMIT-05"]},"#,
            1,
        );
        assert_eq!(earned(&strict), Verdict::Failed);
        let cut_short = passing.replacen('{', r#"{"harness_errors": ["the browser died"],"#, 1);
        assert_eq!(earned(&cut_short), Verdict::NotRun);
    }

    #[test]
    fn what_is_not_a_results_file_is_refused_saying_why() {
        for (text, says) in [
            ("", "not JSON"),
            ("[1, 2]", "no format_version"),
            (r#"{"format_version": 2}"#, "results format 2"),
            (r#"{"format_version": 1}"#, "no list of requirements"),
            (
                &RESULTS.replace(r#""id": "ENV-01", "#, ""),
                "a requirement without its id",
            ),
            (
                &RESULTS.replace(r#""outcome": "passed"}]}"#, r#""outcome": "fail3d"}]}"#),
                "the scenario at envelope.feature:9 has the outcome fail3d, which payconf never writes",
            ),
            (&RESULTS[..RESULTS.len() / 2], "not JSON"),
        ] {
            let error = PastRun::parse("f.json", text.as_bytes()).expect_err(text);
            let said = error.to_string();
            assert!(
                said.starts_with("f.json: not a payconf results file"),
                "{said}"
            );
            assert!(said.contains(says), "{said}");
        }
    }
}
