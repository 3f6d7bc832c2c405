//! Flaky is not failed, and a double charge is never flaky: with
//! `--retries`, a scenario that failed and then passed is FLAKY, counted
//! apart in the console, the results and JUnit (Surefire's `flakyFailure`),
//! and fails the run only with `--flaky-fails`; a `@robustness` scenario
//! is never run again.
//!
//! The twin's intermittent defects show on the payments created second,
//! fourth, sixth… (the run's check of its credentials creates the first):
//! a scenario that creates one payment, run alone, fails its first try and
//! passes its second.

use payconf::runner::record::{OutcomeKind, RequirementVerdict, ScenarioRecord, Verdict};
use quick_xml::{Reader, events::Event};

use crate::support::{
    runner::{Folder, RunOutput, TempFile, payconf_run_async},
    twin::{Defect, TwinService},
};

/// The one scenario that checks CREATE-01: it creates one payment.
const CREATE_01: &str = "create.feature:8";
/// The one scenario that checks ROB-01: it creates one payment and submits
/// it many times at once.
const ROB_01: &str = "robustness.feature:11";

/// A run of the intermittent twin: one scenario at a time, `tags`, `extra`.
async fn run_intermittent(defect: Defect, tags: &str, extra: &[&str]) -> RunOutput {
    let twin = TwinService::start_intermittent(defect).await;
    let target = TempFile::new("twin-target.toml", &twin.target_toml());
    let mut args = vec![
        "--target".to_owned(),
        target.0.display().to_string(),
        "--tags".to_owned(),
        tags.to_owned(),
        "--concurrency".to_owned(),
        "1".to_owned(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    payconf_run_async(args).await
}

fn scenario<'a>(output: &'a RunOutput, location: &str) -> &'a ScenarioRecord {
    output
        .scenarios()
        .iter()
        .find(|s| s.location == location)
        .unwrap_or_else(|| panic!("{location} ran:\n{}", output.stdout))
}

/// Each testcase's name and the names of the elements right inside it, in order.
fn testcases(xml: &str) -> Vec<(String, Vec<String>)> {
    let mut reader = Reader::from_str(xml);
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    // Depth below the open testcase: 0 is the testcase's own children.
    let mut depth: Option<usize> = None;
    loop {
        let event = reader.read_event().expect("the JUnit file is XML");
        let name = |element: &quick_xml::events::BytesStart<'_>| {
            String::from_utf8_lossy(element.name().as_ref()).into_owned()
        };
        match (&event, depth) {
            (Event::Start(element) | Event::Empty(element), None)
                if element.name().as_ref() == b"testcase" =>
            {
                let case = element
                    .try_get_attribute("name")
                    .expect("attributes read")
                    .map(|a| String::from_utf8_lossy(&a.value).into_owned())
                    .unwrap_or_default();
                cases.push((case, Vec::new()));
                if matches!(event, Event::Start(_)) {
                    depth = Some(0);
                }
            }
            (Event::Start(element) | Event::Empty(element), Some(d)) => {
                if d == 0 {
                    if let Some((_, children)) = cases.last_mut() {
                        children.push(name(element));
                    }
                }
                if matches!(event, Event::Start(_)) {
                    depth = Some(d + 1);
                }
            }
            (Event::End(_), Some(0)) => depth = None,
            (Event::End(_), Some(d)) => depth = Some(d - 1),
            (Event::Eof, _) => break,
            _ => {}
        }
    }
    cases
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defect_failing_one_try_in_two_is_flaky_with_retries_and_fails_without() {
    let junit = TempFile(std::env::temp_dir().join(format!(
        "payconf-flaky-{}.xml",
        uuid::Uuid::new_v4().simple()
    )));
    let junit_path = junit.0.display().to_string();
    let retrying = ["--retries", "2", "--junit", junit_path.as_str()];
    let (retried, strict, once) = tokio::join!(
        run_intermittent(Defect::CreateDescriptionEmpty, "@req:CREATE-01", &retrying),
        run_intermittent(
            Defect::CreateDescriptionEmpty,
            "@req:CREATE-01",
            &["--retries", "2", "--flaky-fails"]
        ),
        run_intermittent(Defect::CreateDescriptionEmpty, "@req:CREATE-01", &[]),
    );

    // Failed once, passed on the second try: flaky, and the run passes.
    assert_eq!(
        retried.code,
        Some(0),
        "{}\n{}",
        retried.stdout,
        retried.stderr
    );
    let entry = scenario(&retried, CREATE_01);
    assert_eq!(entry.outcome, OutcomeKind::Flaky, "{entry:?}");
    assert_eq!(entry.tries, Some(2), "{entry:?}");
    let earlier = &entry.earlier_tries;
    assert_eq!(earlier.len(), 1, "{entry:?}");
    assert_eq!(earlier[0].outcome, OutcomeKind::Failed);
    assert_eq!(earlier[0].at_fault, ["CREATE-01"]);
    let results = retried.results();
    assert_eq!(results.counts.scenarios.by_outcome.flaky, 1);
    assert_eq!(results.counts.scenarios.by_outcome.failed, 0);
    assert_eq!(results.retries.allowed, 2);
    assert_eq!(results.requirement("CREATE-01"), RequirementVerdict::Flaky);
    assert_eq!(
        earlier[0].step.as_deref(),
        Some("Then the request is correctly processed"),
        "{entry:?}"
    );
    assert!(
        retried
            .stdout
            .contains("every selected scenario passed but 1 flaky (exit code 0)"),
        "{}",
        retried.stdout
    );

    // JUnit: the testcase passed, with a flakyFailure for the failed try.
    let xml = std::fs::read_to_string(&junit.0).expect("the JUnit file was written");
    let cases = testcases(&xml);
    let (_, children) = cases
        .iter()
        .find(|(name, _)| {
            name == "An accepted create returns a token, an identifier and no redirect yet"
        })
        .expect("the testcase");
    assert_eq!(children, &["flakyFailure", "system-out"], "{xml}");
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(
        xml.contains("<stackTrace>step: Then the request is correctly processed"),
        "{xml}"
    );
    // Kept for the standard readers CI runs on it (.ci/check-reports).
    let kept = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("flaky-junit.xml");
    std::fs::write(&kept, &xml).expect("the JUnit file is kept for .ci/check-reports");

    // --flaky-fails: the same run fails.
    assert_eq!(strict.code, Some(1), "{}", strict.stdout);
    assert_eq!(scenario(&strict, CREATE_01).outcome, OutcomeKind::Flaky);
    let judged = strict.results();
    assert_eq!((judged.outcome, judged.exit_code), (Verdict::Failed, 1));
    assert!(judged.retries.flaky_fails);
    assert_eq!(judged.counts.scenarios.by_outcome.flaky, 1);
    assert_eq!(judged.counts.scenarios.by_outcome.failed, 0);

    // Without --retries, the first try is the verdict.
    assert_eq!(once.code, Some(1), "{}", once.stdout);
    let entry = scenario(&once, CREATE_01);
    assert_eq!(entry.outcome, OutcomeKind::Failed, "{entry:?}");
    assert!(entry.tries.is_none(), "{entry:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_failing_every_try_fails_with_its_reruns_in_junit() {
    let junit = TempFile(std::env::temp_dir().join(format!(
        "payconf-rerun-{}.xml",
        uuid::Uuid::new_v4().simple()
    )));
    let twin = TwinService::start(Some(Defect::CreateDescriptionEmpty)).await;
    let target = TempFile::new("twin-target.toml", &twin.target_toml());
    let output = payconf_run_async(
        [
            "--target",
            &target.0.display().to_string(),
            "--tags",
            "@req:CREATE-01",
            "--retries",
            "2",
            "--junit",
            &junit.0.display().to_string(),
        ]
        .map(str::to_owned)
        .to_vec(),
    )
    .await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);
    let entry = scenario(&output, CREATE_01);
    assert_eq!(entry.outcome, OutcomeKind::Failed, "{entry:?}");
    assert_eq!(entry.tries, Some(3), "{entry:?}");
    assert_eq!(output.results().counts.scenarios.by_outcome.flaky, 0);
    assert_eq!(entry.earlier_tries.len(), 2, "{entry:?}");
    assert!(
        entry
            .earlier_tries
            .iter()
            .all(|t| t.outcome == OutcomeKind::Failed && t.step.is_some()),
        "{entry:?}"
    );
    let xml = std::fs::read_to_string(&junit.0).expect("the JUnit file was written");
    let cases = testcases(&xml);
    assert_eq!(
        cases[0].1,
        ["failure", "rerunFailure", "rerunFailure", "system-out"],
        "{xml}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_robustness_race_is_never_flaky() {
    // Intermittent: a second try would pass, and a run that tried again
    // would call a double charge flaky.
    let output = run_intermittent(
        Defect::ConcurrentSubmitsPayTwice,
        "@robustness and @req:ROB-01",
        &["--retries", "3"],
    )
    .await;
    assert_eq!(output.code, Some(1), "{}\n{}", output.stdout, output.stderr);
    let entry = scenario(&output, ROB_01);
    assert_eq!(entry.outcome, OutcomeKind::Failed, "{entry:?}");
    assert!(entry.tries.is_none(), "run once only: {entry:?}");
    assert_eq!(output.results().counts.scenarios.by_outcome.flaky, 0);
}

#[test]
fn a_try_cucumber_does_not_run_again_is_the_scenario_s_last() {
    // A step nothing matches is payconf's own fault (an error), and
    // cucumber runs such a scenario once whatever --retries says (it skips
    // the step; only the writer in front makes that a failure): the try
    // held for a retry that never comes is recorded when the run ends.
    let dir = Folder::new("undefined");
    std::fs::write(
        dir.join("create.feature"),
        "@create\nFeature: Create a payment\n\n  @core @req:CREATE-01\n  \
         Scenario: A step nothing matches\n    When the merchant creates a payment\n    \
         Then nothing in payconf matches this step\n",
    )
    .expect("written");
    let output = crate::support::runner::payconf_run(&[
        "--features",
        dir.0.to_str().expect("UTF-8"),
        "--retries",
        "2",
    ]);
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    let entry = scenario(&output, "create.feature:5");
    assert_eq!(entry.outcome, OutcomeKind::Error, "{entry:?}");
    assert!(entry.tries.is_none(), "ran once: {entry:?}");
    assert_eq!(output.results().counts.scenarios.total, 1);
    assert!(
        entry
            .message
            .as_deref()
            .is_some_and(|m| m.contains("Step doesn't match any function")),
        "{entry:?}"
    );
}
