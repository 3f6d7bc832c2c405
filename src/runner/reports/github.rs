//! A run under GitHub Actions (`GITHUB_ACTIONS=true`): an annotation for
//! each scenario that failed or could not be judged, on its feature file
//! and line (`::error` for the target's failure, `::warning` for what
//! payconf could not judge, `::notice` for a scenario that passed only on
//! a later try), and the job's step summary (`GITHUB_STEP_SUMMARY`): the
//! verdict, the counts, and every requirement that did not pass with its
//! scenarios, as `payconf diff` writes its tables.
//!
//! An annotation's text may hold the target's words. It is made one line
//! first (control characters shown escaped, `##[` defused: `neutral`), then
//! escaped as GitHub's toolkit escapes a command's data (`%`, CR, LF) and
//! properties (`:` and `,` too), so nothing a target sends can end the
//! annotation or start a command of its own.

use std::fmt::Write as _;

use crate::runner::{
    neutral::inline,
    result::{OutcomeKind, RequirementVerdict, RunRecord, record::ScenarioRecord},
};

/// Where the features are, as a repository holds them, for the
/// annotations' `file`.
pub const FEATURES_DIR: &str = "features";

/// The most characters of a failure an annotation carries; the reports
/// have it whole.
const MAX_MESSAGE: usize = 1_000;

/// The annotations of a run, one line each.
pub fn annotations(record: &RunRecord) -> String {
    let mut out = String::new();
    for scenario in &record.scenarios {
        let (command, what) = match scenario.outcome {
            OutcomeKind::Failed => ("error", "FAIL"),
            OutcomeKind::Error => ("warning", "ERROR (payconf could not judge)"),
            OutcomeKind::Flaky => ("notice", "FLAKY (passed on a later try)"),
            OutcomeKind::Passed | OutcomeKind::Skipped | OutcomeKind::Waived => continue,
        };
        let (file, line) = scenario
            .location
            .rsplit_once(':')
            .unwrap_or((scenario.location.as_str(), "1"));
        let requirements = if scenario.requirements.is_empty() {
            String::new()
        } else {
            format!(" {}", scenario.requirements.join(" "))
        };
        let title = format!("{what}{requirements}: {}", scenario.name);
        let _ = writeln!(
            out,
            "::{command} file={},line={},title={}::{}",
            property(&format!("{FEATURES_DIR}/{file}")),
            property(line),
            property(&title),
            data(&message(scenario)),
        );
    }
    out
}

/// What an annotation says of a scenario: the step and why.
fn message(scenario: &ScenarioRecord) -> String {
    let mut text = String::new();
    if let Some(step) = &scenario.step {
        let _ = write!(text, "at \"{step}\": ");
    }
    text.push_str(scenario.message.as_deref().unwrap_or("no message"));
    let text = inline(&text).into_owned();
    match text.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}… (the reports have the rest)", &text[..cut]),
        None => text,
    }
}

/// A command's data, escaped as GitHub's toolkit escapes it.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property, escaped as GitHub's toolkit escapes it.
fn property(text: &str) -> String {
    data(&inline(text)).replace(':', "%3A").replace(',', "%2C")
}

/// The step summary: Markdown.
pub fn summary(record: &RunRecord) -> String {
    let counts = &record.counts.scenarios;
    let mut out = format!(
        "### payconf: {} against {}\n\n{} scenarios: {} passed, {} failed, {} not judged, {} \
         flaky, {} waived, {} skipped.\n",
        record.outcome.name().to_uppercase(),
        cell(&record.target.checked().to_string()),
        counts.total,
        counts.by_outcome.passed,
        counts.by_outcome.failed,
        counts.by_outcome.errors,
        counts.by_outcome.flaky,
        counts.by_outcome.waived,
        counts.by_outcome.skipped,
    );
    let troubled: Vec<_> = record
        .requirements
        .iter()
        .filter(|r| {
            matches!(
                r.outcome,
                RequirementVerdict::Failed | RequirementVerdict::Error
            )
        })
        .collect();
    if troubled.is_empty() {
        out.push_str("\nEvery requirement that ran passed.\n");
        return out;
    }
    out.push_str("\n| requirement | outcome | statement | scenarios |\n|---|---|---|---|\n");
    for requirement in troubled {
        let scenarios: Vec<String> = requirement
            .scenarios
            .iter()
            .filter(|s| {
                matches!(
                    s.outcome,
                    RequirementVerdict::Failed | RequirementVerdict::Error
                )
            })
            .map(|s| format!("`{}` {}", cell(&s.location), cell(&s.name)))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(requirement.id.as_str()),
            requirement.outcome.name(),
            cell(&requirement.summary),
            scenarios.join("<br>"),
        );
    }
    out
}

/// A value in a Markdown table cell: one harmless line, pipes and
/// backticks escaped.
fn cell(text: &str) -> String {
    inline(text)
        .replace('|', "\\|")
        .replace('`', "'")
        .replace('<', "&lt;")
        .chars()
        .take(300)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> RunRecord {
        let text = include_bytes!("../result/record/testdata/results-v1.json");
        RunRecord::parse("results-v1.json", text).expect("the golden record reads")
    }

    #[test]
    fn a_failure_is_one_annotation_on_its_feature_line_and_smuggles_no_command() {
        let mut record = record();
        let scenario = record
            .scenarios
            .iter_mut()
            .find(|s| s.outcome == OutcomeKind::Failed)
            .expect("a failed scenario");
        scenario.message = Some(
            "expected 0\n::set-output name=x::y\r\n##[error]forged 100%, done: yes".to_owned(),
        );
        let location = scenario.location.clone();
        let text = annotations(&record);
        let lines: Vec<&str> = text.lines().collect();
        let failed = record
            .scenarios
            .iter()
            .filter(|s| {
                matches!(
                    s.outcome,
                    OutcomeKind::Failed | OutcomeKind::Error | OutcomeKind::Flaky
                )
            })
            .count();
        assert_eq!(lines.len(), failed, "{text}");
        let (file, line) = location.rsplit_once(':').expect("file:line");
        let ours = lines
            .iter()
            .find(|l| l.contains(&format!("file=features/{file},line={line},")))
            .expect("the failure's annotation");
        assert!(ours.starts_with("::error file="), "{ours}");
        assert!(!ours.contains("\n") && !ours.contains('\r'));
        // The target's line breaks are text: its command is inside this
        // one's data, where GitHub reads no command.
        assert!(
            ours.contains("expected 0\\n::set-output name=x::y\\r\\n"),
            "{ours}"
        );
        assert!(
            ours.contains("#\\x23[error]forged 100%25, done: yes"),
            "{ours}"
        );
        assert!(
            ours.contains("title=FAIL TDS-02 TDS-04%3A An enrolled card"),
            "{ours}"
        );
    }

    #[test]
    fn the_summary_lists_each_requirement_that_did_not_pass() {
        let record = record();
        let text = summary(&record);
        assert!(text.starts_with("### payconf: "), "{text}");
        for requirement in record.requirements.iter().filter(|r| {
            matches!(
                r.outcome,
                RequirementVerdict::Failed | RequirementVerdict::Error
            )
        }) {
            assert!(text.contains(&format!("| {} |", requirement.id)), "{text}");
        }
    }
}
