//! A run to test what renders a run from: a literal [`RunReport`] with a
//! scenario of every outcome (an earlier try, notes, waits, measurements,
//! a harness error, a waiver no longer needed), for the console's and the
//! reports' golden tests, and the comparison those tests make.

use std::{path::PathBuf, time::Duration};

use payconf_spec::requirements::RequirementId;

use super::{
    Counts, EarlierTry, Failure, Leftovers, Outcome, RunReport, ScenarioResult, StepResult,
    StepStatus,
};

/// A scenario of `payment.feature` at `line`, tagged `@core`, that ended so.
pub fn scenario(line: usize, name: &str, outcome: Outcome) -> ScenarioResult {
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

/// A step of a scenario, as the recorder keeps it.
fn step(
    keyword: &str,
    text: &str,
    line: usize,
    status: StepStatus,
    message: Option<String>,
) -> StepResult {
    StepResult {
        keyword: keyword.to_owned(),
        text: text.to_owned(),
        line,
        status,
        duration: Duration::from_millis(12),
        message,
        requirements: Vec::new(),
    }
}

/// A target's failure on an exchange, as the steps make them.
pub fn refused() -> Failure {
    Failure::target(
        "error.code \"0\" and a paymentToken",
        "error.code \"1105\" (\"shopLogin\" is missing)",
    )
    .on("POST http://127.0.0.1:8080/api/v1/payment/create/\n  -> 422, 71 bytes, 3 ms")
    .blaming(vec![RequirementId::fixed("CREATE-01")])
}

/// One run with a scenario of every outcome.
pub fn every_outcome() -> RunReport {
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
    failed.blamed = vec![RequirementId::fixed("CREATE-01")];
    failed.steps = vec![
        step(
            "When ",
            "the merchant creates a payment without shopLogin",
            22,
            StepStatus::Passed,
            None,
        ),
        step(
            "Then ",
            "the answer is processed",
            23,
            StepStatus::Failed,
            Some(refused().to_string()),
        ),
    ];
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
        // As the golden record (`record/testdata/results-v1.json`) says.
        target: super::CheckedTarget::Embedded,
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

/// `FOLDER/NAME` under the crate, compared with `printed` byte for byte;
/// written instead with `PAYCONF_BLESS=1`, for a change made on purpose
/// (then read `git diff`).
pub fn assert_golden(folder: &str, name: &str, printed: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
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
            "{} is no longer what is printed (first difference at line {}):\n--- kept\n{kept}\n--- printed\n{printed}",
            path.display(),
            first + 1
        );
    }
}
