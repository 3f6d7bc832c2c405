//! The console's golden tests, as cucumber-rs keeps its writers' output: a
//! run written as a [`RunReport`] literal (a scenario of every outcome, an
//! earlier try, what a scenario notes, waits and measures, a harness
//! error, a waiver no longer needed) is printed, and the text compared
//! with `testdata/`, byte for byte. The console's words are read by these
//! tests only; the harness's tests judge a run on its record.
//!
//! A change to what the console says is made on purpose: run
//! `PAYCONF_BLESS=1 cargo test -p payconf --lib console::golden` and read
//! the difference in `git diff` before committing it.

use super::lines::{Ending, result_line, result_lines, summary_lines};
use crate::runner::result::{
    CheckedTarget, Failure, Outcome, RunReport, ScenarioResult, Verdict,
    fixtures::{assert_golden, every_outcome, refused, scenario},
};

/// `testdata/NAME`, compared with what was printed.
fn golden(name: &str, printed: &str) {
    assert_golden("src/runner/console/testdata", name, printed);
}

fn printed(report: &RunReport) -> String {
    let mut lines: Vec<String> = report.scenarios.iter().flat_map(result_lines).collect();
    lines.extend(summary_lines(report));
    lines.join("\n") + "\n"
}

#[test]
fn a_run_with_a_scenario_of_every_outcome_prints_as_kept() {
    golden("every_outcome.txt", &printed(&every_outcome()));
}

/// Every way a run ends, its last line: each verdict's reason, as the
/// verdict gives it, and the endings of a run that did not finish.
#[test]
fn every_ending_prints_as_kept() {
    let with = |scenarios: Vec<ScenarioResult>, change: fn(&mut RunReport)| {
        let mut report = RunReport {
            target: CheckedTarget::Server {
                base_url: "https://psp.example/".to_owned(),
            },
            scenarios,
            features: 1,
            ..RunReport::default()
        };
        change(&mut report);
        report
    };
    let of = |outcomes: &[Outcome]| {
        outcomes
            .iter()
            .enumerate()
            .map(|(i, outcome)| scenario(i + 1, "a scenario", outcome.clone()))
            .collect::<Vec<_>>()
    };
    let failed = Outcome::Failed {
        step: "Then".to_owned(),
        failure: refused(),
    };
    let error = Outcome::Error {
        step: "When".to_owned(),
        failure: Failure::harness("a page payconf cannot read"),
    };
    let waived = Outcome::Waived {
        step: "Then".to_owned(),
        failure: refused(),
        waivers: vec!["CREATE-01".to_owned()],
    };
    let skipped = Outcome::Skipped("not declared".to_owned());
    let runs = [
        ("all passed", with(of(&[Outcome::Passed]), |_| {})),
        (
            "all passed, the embedded reference implementation",
            with(of(&[Outcome::Passed]), |r| {
                r.target = CheckedTarget::Embedded
            }),
        ),
        (
            "passed, but",
            with(
                of(&[Outcome::Passed, Outcome::Flaky, skipped.clone(), waived]),
                |r| r.stale_waivers = vec!["ENV-01".to_owned()],
            ),
        ),
        (
            "failed",
            with(of(&[Outcome::Passed, failed, error.clone()]), |_| {}),
        ),
        ("unjudged", with(of(&[Outcome::Passed, error]), |_| {})),
        (
            "flaky fails",
            with(of(&[Outcome::Flaky]), |r| r.flaky_fails = true),
        ),
        (
            "strict waivers",
            with(of(&[Outcome::Passed]), |r| {
                r.strict_waivers = true;
                r.stale_waivers = vec!["ENV-01".to_owned(), "ENV-02".to_owned()];
            }),
        ),
        (
            "harness failed",
            with(of(&[Outcome::Passed]), |r| {
                r.harness_errors = vec!["a hook failed".to_owned()]
            }),
        ),
    ];
    let mut out = String::new();
    for (what, report) in &runs {
        let line = result_line(Ending::Judged(report));
        let code = Verdict::of(report).exit_code();
        assert!(
            line.ends_with(&format!("(exit code {code})")),
            "{what}: the line says the verdict's exit code, {code}: {line}"
        );
        out.push_str(&format!("{what}:\n{line}\n"));
    }
    for (what, ending) in [
        ("nothing to rerun", Ending::NothingToRerun),
        ("report unwritten", Ending::ReportUnwritten),
        ("bundle unwritten", Ending::BundleUnwritten),
        ("not run", Ending::NotRun),
    ] {
        out.push_str(&format!("{what}:\n{}\n", result_line(ending)));
    }
    golden("endings.txt", &out);
}
