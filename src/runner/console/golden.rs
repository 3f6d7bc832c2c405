//! The console's golden tests, as cucumber-rs keeps its writers' output: a
//! run written as a [`RunReport`] literal (a scenario of every outcome, an
//! earlier try, what a scenario notes, waits and measures, a harness
//! error, a waiver no longer needed) is printed, and the text compared
//! with `testdata/`, byte for byte. The console is the only code whose
//! words a test reads; everything else is tested on the record.
//!
//! A change to what the console says is made on purpose: run
//! `PAYCONF_BLESS=1 cargo test -p payconf --lib console::golden` and read
//! the difference in `git diff` before committing it.

use std::{path::PathBuf, time::Duration};

use super::lines::{Ending, result_line, result_lines, summary_lines};
use crate::runner::result::{
    Counts, EarlierTry, Failure, Leftovers, Outcome, RunReport, ScenarioResult, Verdict,
};

/// `testdata/NAME`, compared with `printed`; written instead with
/// `PAYCONF_BLESS=1`.
fn golden(name: &str, printed: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/runner/console/testdata")
        .join(name);
    if std::env::var_os("PAYCONF_BLESS").is_some() {
        std::fs::write(&path, printed).expect("testdata is writable");
        return;
    }
    let kept = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (PAYCONF_BLESS=1 writes it)", path.display()));
    if kept != printed {
        let first = kept
            .lines()
            .zip(printed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| kept.lines().count().min(printed.lines().count()));
        panic!(
            "the console no longer prints {} (first difference at line {}):\n--- kept\n{kept}\n--- printed\n{printed}",
            path.display(),
            first + 1
        );
    }
}

fn scenario(line: usize, name: &str, outcome: Outcome) -> ScenarioResult {
    ScenarioResult {
        file: "payment.feature".to_owned(),
        line,
        feature: "Payment".to_owned(),
        name: name.to_owned(),
        tags: vec!["core".to_owned()],
        outcome,
        steps: Vec::new(),
        leftovers: Leftovers::default(),
        blamed: Vec::new(),
        duration: Duration::from_millis(120),
        earlier: Vec::new(),
    }
}

/// A target's failure on an exchange, as the steps make them.
fn refused() -> Failure {
    Failure::target(
        "error.code \"0\" and a paymentToken",
        "error.code \"1105\" (\"shopLogin\" is missing)",
    )
    .on("POST http://127.0.0.1:8080/api/v1/payment/create/\n  -> 422, 71 bytes, 3 ms")
    .blaming(vec!["CREATE-01".to_owned()])
}

/// One run with a scenario of every outcome.
fn every_outcome() -> RunReport {
    let mut passed = scenario(
        7,
        "A create with the merchant's key returns a payment token",
        Outcome::Passed,
    );
    passed.leftovers.observations =
        vec!["SPEC-01: the answer's payload.paymentID is a number, not a string".to_owned()];
    passed.leftovers.waited = vec!["429 Too Many Requests, Retry-After 1: waited 1.0 s".to_owned()];

    let mut flaky = scenario(
        14,
        "The buyer is redirected to the success page",
        Outcome::Flaky,
    );
    flaky.earlier = vec![EarlierTry {
        outcome: Outcome::Error {
            step: "When the buyer completes the issuer authentication".to_owned(),
            failure: Failure::harness(
                "the browser stopped answering: no answer within 20 s\nsee the screenshot",
            ),
        },
        blamed: Vec::new(),
        duration: Duration::from_secs(20),
        leftovers: Leftovers::default(),
    }];

    let mut failed = scenario(
        21,
        "A create without shopLogin is refused with the envelope",
        Outcome::Failed {
            step: "Then the answer is processed".to_owned(),
            failure: refused(),
        },
    );
    failed.blamed = vec!["CREATE-01".to_owned()];
    failed.leftovers.measured =
        vec!["10 volleys of 20 submits of one token: spread 0.4 ms at the most".to_owned()];

    let waived = scenario(
        28,
        "The payment token works once",
        Outcome::Waived {
            step: "Then the second submit is refused".to_owned(),
            failure: Failure::target("a refusal", "error.code \"0\""),
            waivers: vec!["SUBMIT-02 until 2027-01-31: known, ticket PAY-12".to_owned()],
        },
    );

    let error = scenario(
        35,
        "An enrolled card goes through the issuer's page",
        Outcome::Error {
            step: "When the buyer completes the issuer authentication".to_owned(),
            failure: Failure::harness(
                "payconf could not get the buyer through the issuer's page: it shows none of \
                 the fields acs.fields names (otp)",
            ),
        },
    );

    let skipped = scenario(
        42,
        "A payment is refunded in parts",
        Outcome::Skipped("the target declares no [lifecycle]".to_owned()),
    );

    RunReport {
        scenarios: vec![passed, flaky, failed, waived, error, skipped],
        steps: Counts {
            passed: 20,
            failed: 2,
            skipped: 3,
            ..Counts::default()
        },
        harness_errors: vec!["the notification listener stopped: address in use".to_owned()],
        features: 1,
        stale_waivers: vec!["ENV-01 until 2027-03-01".to_owned()],
        strict_waivers: false,
        retries: 1,
        flaky_fails: false,
    }
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
