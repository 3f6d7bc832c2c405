//! The reports `payconf run` writes: all four in one run, each parsing as
//! its consumers expect, the HTML self-contained with every internal link
//! resolving; a failure carried into each; waivers judged by date.

use std::{collections::BTreeSet, path::Path};

use crate::support::{
    reports::{ReportDir, assert_self_contained, cucumber_scenarios, junit_cases, junit_errors},
    runner::{RunOutput, TempFile, lightbox_scenarios, payconf_run, payconf_run_async},
    twin::{Defect, IssuerStyle, TwinService},
};
use payconf::runner::record::{
    OutcomeKind, RequirementRecord, RequirementVerdict, RunRecord, ScenarioRecord, Verdict,
};
use sha2::{Digest, Sha256};

#[test]
fn one_run_writes_all_four_reports_and_each_parses() {
    let dir = ReportDir::new();
    let args = dir.args();
    let output = payconf_run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let ran = output.passed().len();
    // The lightbox's scenarios, a script, are set aside by the main job's
    // form driver: JUnit lists them, skipped, and nothing else ran them.
    let set_aside = output.skipped().len();
    assert_eq!(set_aside, lightbox_scenarios().len());

    let (cases, failures) = junit_cases(&dir.read("junit.xml"));
    assert_eq!(cases, ran + set_aside);
    assert!(failures.is_empty());

    let scenarios = cucumber_scenarios(&dir.read("cucumber.json"));
    assert_eq!(scenarios.len(), ran + set_aside);
    let (passed, others): (Vec<_>, Vec<_>) = scenarios
        .iter()
        .partition(|(_, steps)| !steps.is_empty() && steps.iter().all(|s| s == "passed"));
    assert_eq!(passed.len(), ran);
    assert!(
        others
            .iter()
            .all(|(_, steps)| steps.iter().all(|s| s == "skipped")),
        "{others:?}"
    );

    let results = dir.record();
    assert_eq!(results.exit_code, 0);
    assert_eq!(results.counts.scenarios.by_outcome.passed, ran);
    let spec =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/openapi.yaml")).expect("spec");
    let sha: String = Sha256::digest(&spec)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(results.spec.sha256, sha);
    assert_eq!(results.payconf.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(results.target.configuration["api_key"], "***");
    // The robustness profile is opt-in: not selected, not run.
    let (robustness, others): (Vec<&RequirementRecord>, Vec<&RequirementRecord>) = results
        .requirements
        .iter()
        .partition(|r| r.profile == payconf_spec::Profile::Robustness);
    assert!(!robustness.is_empty());
    assert!(
        robustness
            .iter()
            .all(|r| r.outcome == RequirementVerdict::NotRun),
        "{robustness:?}"
    );
    let (lightbox, others): (Vec<&RequirementRecord>, Vec<&RequirementRecord>) = others
        .into_iter()
        .partition(|r| r.id.to_string().starts_with("REF-LIGHT-"));
    assert!(
        !lightbox.is_empty()
            && lightbox
                .iter()
                .all(|r| r.outcome == RequirementVerdict::Skipped),
        "{lightbox:?}"
    );
    assert!(
        others
            .iter()
            .all(|r| r.outcome == RequirementVerdict::Passed),
        "{others:?}"
    );

    let html = dir.read("report.html");
    assert_self_contained(&html);
    assert!(html.contains("curl -i -X POST"));
}

async fn run_twin(defect: Option<Defect>, extra: Vec<String>) -> RunOutput {
    let twin = TwinService::start(defect).await;
    let target = TempFile::new("twin-target.toml", &twin.target_toml());
    let mut args = vec!["--target".to_owned(), target.0.display().to_string()];
    args.extend(extra);
    payconf_run_async(args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_reaches_every_report_with_expected_and_actual() {
    let dir = ReportDir::new();
    let output = run_twin(Some(Defect::PaymentIdAsNumber), dir.args()).await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);

    let (_, failures) = junit_cases(&dir.read("junit.xml"));
    assert_eq!(failures.len(), 1, "{failures:?}");
    let (step, message) = &failures[0];
    assert!(
        step.starts_with("When the merchant creates a payment"),
        "{step}"
    );
    assert!(
        message.contains("expected:") && message.contains("actual:"),
        "{message}"
    );
    assert!(message.contains("CREATE-03"), "{message}");

    let scenarios = cucumber_scenarios(&dir.read("cucumber.json"));
    let failed: Vec<_> = scenarios
        .iter()
        .filter(|(_, s)| s.iter().any(|s| s == "failed"))
        .collect();
    assert_eq!(failed.len(), 1);

    let results = dir.record();
    assert_eq!(results.outcome, Verdict::Failed);
    assert_eq!(requirement_outcome(&results, "CREATE-03"), "failed");
    assert_eq!(requirement_outcome(&results, "TDS-04"), "passed");
    assert_eq!(requirement_outcome(&results, "REF-AUTH-01"), "not-run");
    assert_self_contained(&dir.read("report.html"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_payconf_cannot_judge_is_an_error_in_every_report_not_a_failure() {
    let dir = ReportDir::new();
    let twin = TwinService::start_styled(None, IssuerStyle::Scripted).await;
    let target = TempFile::new("twin-target.toml", &twin.target_toml());
    let mut args = vec!["--target".to_owned(), target.0.display().to_string()];
    args.extend(dir.args());
    let output = payconf_run_async(args).await;
    assert_eq!(output.code, Some(2), "{}", output.stdout);

    let junit = dir.read("junit.xml");
    let (_, failures) = junit_cases(&junit);
    assert!(failures.is_empty(), "{failures:?}");
    // The two journeys through the scripted issuer page: from submit's
    // answer, and from the payment page.
    let errors = junit_errors(&junit);
    assert_eq!(errors.len(), 2, "{errors:?}");
    for (kind, message) in &errors {
        assert_eq!(kind, "harness");
        assert!(message.contains("acs.driver"), "{message}");
    }

    let scenarios = cucumber_scenarios(&dir.read("cucumber.json"));
    assert!(
        scenarios
            .iter()
            .all(|(_, s)| !s.iter().any(|s| s == "failed"))
    );
    let pending: Vec<_> = scenarios
        .iter()
        .filter(|(_, s)| s.iter().any(|s| s == "pending"))
        .collect();
    assert_eq!(pending.len(), 2, "{scenarios:?}");

    let results = dir.record();
    assert_eq!(results.exit_code, 2);
    assert_eq!(results.counts.scenarios.by_outcome.errors, 2);
    assert_eq!(results.counts.scenarios.by_outcome.failed, 0);
    for id in ["TDS-04", "PAGE-02"] {
        assert_eq!(requirement_outcome(&results, id), "error", "{id}");
    }

    let html = dir.read("report.html");
    assert_self_contained(&html);
    assert!(html.contains("2 not judged (error of the harness)"));
}

/// A waivers file with one waiver.
fn waiver(requirement: &str, expires: &str) -> TempFile {
    TempFile::new(
        "waivers.toml",
        &format!(
            "[[waivers]]\nrequirement = \"{requirement}\"\nreason = \"IDs become strings in 4.2\"\nexpires = \"{expires}\"\n"
        ),
    )
}

/// A requirement's outcome in the results report, by its name.
fn requirement_outcome(results: &RunRecord, id: &str) -> &'static str {
    results
        .requirements
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} in the results"))
        .outcome
        .name()
}

/// The twin with a defect, judged with these waivers.
async fn run_twin_waived(defect: Defect, waivers: &TempFile) -> RunOutput {
    run_twin(
        Some(defect),
        vec!["--waivers".to_owned(), waivers.0.display().to_string()],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waived_failure_is_reported_as_waived_and_passes_the_run() {
    let waivers = waiver("CREATE-03", "2999-12-31");
    let dir = ReportDir::new();
    let mut extra = vec!["--waivers".to_owned(), waivers.0.display().to_string()];
    extra.extend(dir.args());
    let output = run_twin(Some(Defect::PaymentIdAsNumber), extra).await;

    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let results = dir.record();
    assert_eq!(results.counts.scenarios.by_outcome.waived, 1);
    assert_eq!(requirement_outcome(&results, "CREATE-03"), "waived");
    let waived = scenarios_with_outcome(&results, OutcomeKind::Waived);
    assert_eq!(waived.len(), 1, "{results:#?}");
    assert_eq!(at_fault(waived[0]), ["CREATE-03"]);
    assert_eq!(
        strings(&waived[0].waivers),
        ["CREATE-03 until 2999-12-31: IDs become strings in 4.2"]
    );
    // The console says the same, in words.
    assert!(
        output
            .stdout
            .contains("waived: CREATE-03 until 2999-12-31: IDs become strings in 4.2"),
        "{}",
        output.stdout
    );
    assert!(
        dir.read("junit.xml")
            .contains("<skipped message=\"waived: CREATE-03")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_waiver_fails_the_run_saying_so() {
    let waivers = waiver("CREATE-03", "2020-01-31");
    let output = run_twin_waived(Defect::PaymentIdAsNumber, &waivers).await;

    assert_eq!(output.code, Some(1), "{}", output.stdout);
    let results = output.results();
    assert_eq!(requirement_outcome(results, "CREATE-03"), "failed");
    let failed = scenarios_with_outcome(results, OutcomeKind::Failed);
    assert!(!failed.is_empty(), "{results:#?}");
    for scenario in &failed {
        assert_eq!(at_fault(scenario), ["CREATE-03"], "{scenario:#?}");
    }
    assert!(
        output.says("waiver expired: CREATE-03 was waived until 2020-01-31"),
        "{}",
        output.messages()
    );
}

/// A waiver whose requirement passes is said to be no longer needed, and
/// with `--strict-waivers` fails the run; one still covering a failure is
/// neither.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiver_no_longer_needed_is_said_and_fails_a_strict_run() {
    let waivers = waiver("CREATE-03", "2999-12-31");
    let described = "CREATE-03 until 2999-12-31: IDs become strings in 4.2";
    let args = |strict: bool| {
        let mut args = vec!["--waivers".to_owned(), waivers.0.display().to_string()];
        if strict {
            args.push("--strict-waivers".to_owned());
        }
        args
    };
    let (lenient, strict, still_needed) = tokio::join!(
        run_twin(None, args(false)),
        run_twin(None, args(true)),
        run_twin(Some(Defect::PaymentIdAsNumber), args(true)),
    );

    assert_eq!(lenient.code, Some(0), "{}", lenient.stdout);
    let results = lenient.results();
    assert_eq!(results.outcome, Verdict::Passed);
    assert_eq!(strings(&results.waivers.no_longer_needed), [described]);
    assert!(!results.waivers.strict);

    assert_eq!(strict.code, Some(1), "{}", strict.stdout);
    let judged = strict.results();
    assert_eq!((judged.outcome, judged.exit_code), (Verdict::Failed, 1));
    assert!(judged.waivers.strict);
    assert_eq!(strings(&judged.waivers.no_longer_needed), [described]);
    assert_eq!(judged.counts.scenarios.by_outcome.failed, 0);

    assert_eq!(still_needed.code, Some(0), "{}", still_needed.stdout);
    assert!(
        strings(&still_needed.results().waivers.no_longer_needed).is_empty(),
        "{}",
        still_needed.stdout
    );
}

/// The scenarios of a results report with this outcome, by location, and
/// what each says: its requirements, the ones at fault, its waivers.
fn scenarios_with_outcome(results: &RunRecord, outcome: OutcomeKind) -> Vec<&ScenarioRecord> {
    results
        .scenarios
        .iter()
        .filter(|s| s.outcome == outcome)
        .collect()
}

fn strings<T: AsRef<str>>(list: &[T]) -> Vec<&str> {
    list.iter().map(AsRef::as_ref).collect()
}

fn at_fault(scenario: &ScenarioRecord) -> Vec<&str> {
    strings(scenario.at_fault.as_deref().unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiver_of_the_requirement_at_fault_clears_the_run_and_one_of_another_does_not() {
    // The relative redirect fails the step that names SUBMIT-04, in a
    // scenario that also checks SUBMIT-01..03: SUBMIT-04 alone is at fault.
    let blamed = "SUBMIT-04";
    let other = "SUBMIT-01";
    let run = |waived: &'static str| async move {
        let waivers = waiver(waived, "2999-01-01");
        let dir = ReportDir::new();
        let mut extra = vec!["--waivers".to_owned(), waivers.0.display().to_string()];
        extra.extend(dir.args());
        let output = run_twin(Some(Defect::SuccessRedirectRelative), extra).await;
        let results = dir.record();
        (output, results)
    };

    // Waived where the fault is: the run passes, the failing scenarios are
    // waived under that waiver, and nothing failed.
    let (output, results) = run(blamed).await;
    assert_eq!(output.code, Some(0), "{}", output.stdout);
    assert_eq!(results.outcome, Verdict::Passed);
    assert_eq!(requirement_outcome(&results, blamed), "waived");
    let waived = scenarios_with_outcome(&results, OutcomeKind::Waived);
    assert!(!waived.is_empty(), "no scenario waived: {results:#?}");
    assert!(scenarios_with_outcome(&results, OutcomeKind::Failed).is_empty());
    for scenario in &waived {
        assert_eq!(at_fault(scenario), [blamed], "{scenario:#?}");
        let waivers = strings(&scenario.waivers);
        assert!(
            waivers.len() == 1 && waivers[0].contains(blamed),
            "{scenario:#?}"
        );
    }
    let waived_locations: BTreeSet<&str> = waived.iter().map(|s| s.location.as_str()).collect();

    // Waived elsewhere: the same scenarios fail, on the requirement at
    // fault, and the waived requirement is not shown as waived.
    let (output, results) = run(other).await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);
    assert_eq!(results.outcome, Verdict::Failed);
    assert_eq!(requirement_outcome(&results, blamed), "failed");
    assert_ne!(requirement_outcome(&results, other), "waived");
    assert!(scenarios_with_outcome(&results, OutcomeKind::Waived).is_empty());
    let failed = scenarios_with_outcome(&results, OutcomeKind::Failed);
    let failed_locations: BTreeSet<&str> = failed.iter().map(|s| s.location.as_str()).collect();
    assert_eq!(failed_locations, waived_locations);
    for scenario in &failed {
        assert_eq!(at_fault(scenario), [blamed], "{scenario:#?}");
        assert!(
            strings(&scenario.requirements).contains(&other),
            "{scenario:#?}"
        );
    }
}

/// An enrolled card answered without "8006": the step that names TDS-01
/// fails; SUBMIT-01's step passed before it; TDS-02's and TDS-03's came
/// after it. Every report says so, requirement by requirement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirement_verdicts_follow_the_steps_that_name_them() {
    let dir = ReportDir::new();
    let output = run_twin(Some(Defect::EnrolledCardWithout8006), dir.args()).await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);

    let results = dir.record();
    assert_eq!(requirement_outcome(&results, "TDS-01"), "failed");
    assert_eq!(requirement_outcome(&results, "TDS-02"), "not-reached");
    assert_eq!(requirement_outcome(&results, "TDS-03"), "not-reached");
    assert_eq!(requirement_outcome(&results, "SUBMIT-01"), "passed");
    let failed = scenarios_with_outcome(&results, OutcomeKind::Failed);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(at_fault(failed[0]), ["TDS-01"]);

    let junit = dir.read("junit.xml");
    assert!(junit.contains("TDS-01 (failed)"), "{junit}");
    assert!(junit.contains("SUBMIT-01 (passed)"), "{junit}");
    assert!(junit.contains("TDS-02 (not reached)"), "{junit}");
    let html = dir.read("report.html");
    assert!(html.contains("not-reached"), "the matrix shows it");
}

#[test]
fn bad_report_paths_and_waivers_stop_the_run_before_it_starts() {
    let missing_folder = payconf_run(&["--html", "/nonexistent-folder/report.html"]);
    assert_eq!(missing_folder.code, Some(2));
    assert!(
        missing_folder.stderr.contains("--html"),
        "{}",
        missing_folder.stderr
    );
    assert!(missing_folder.passed().is_empty());

    let waivers = TempFile::new(
        "waivers.toml",
        "[[waivers]]\nrequirement = \"NOPE-9\"\nreason = \"r\"\nexpires = \"2999-01-01\"\n",
    );
    let unknown = payconf_run(&["--waivers", &waivers.0.display().to_string()]);
    assert_eq!(unknown.code, Some(2));
    assert!(unknown.stderr.contains("NOPE-9"), "{}", unknown.stderr);
    assert!(!Path::new("/nonexistent-folder").exists());
}
