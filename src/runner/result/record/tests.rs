//! The record read back and written, against a golden file of format 1.

use super::*;
use crate::runner::result::{Drove, Fault};

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
