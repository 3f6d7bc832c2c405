//! `payconf run` in front of servers that break the contract on purpose
//! (wiremock), and of a conformant one with choices of its own: each broken
//! server makes the run exit 1, failing exactly the scenarios that check the
//! requirement it breaks; a run that cannot be carried out exits 2.

mod support;

use std::time::{Duration, Instant};

use support::{
    fake_service::{Defect, FakeService},
    runner::{RunOutput, TempFile, core_scenarios_checking, payconf_run, payconf_run_async},
};

async fn run_against(defect: Defect, extra: &[&str]) -> RunOutput {
    let service = FakeService::start(defect).await;
    let target = TempFile::new("target.toml", &service.target_toml());
    let mut args = vec!["--target".to_owned(), target.0.display().to_string()];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    payconf_run_async(args).await
}

async fn assert_caught(defect: Defect, requirement: &str) {
    let output = run_against(defect, &[]).await;
    assert_eq!(
        output.code,
        Some(1),
        "{defect:?}:\n{}\n{}",
        output.stdout,
        output.stderr
    );
    let expected = core_scenarios_checking(requirement);
    assert!(!expected.is_empty(), "{requirement} has core scenarios");
    assert_eq!(
        output.failed(),
        expected,
        "{defect:?} should fail exactly the scenarios of {requirement}:\n{}",
        output.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conformant_server_with_its_own_choices_passes_core() {
    let output = run_against(Defect::None, &[]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert!(output.failed().is_empty());
    assert!(output.stdout.contains("scenarios ("), "{}", output.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_numeric_payment_id_fails_the_create_scenario() {
    assert_caught(Defect::NumericPaymentId, "CREATE-03").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_without_the_envelope_fail_the_envelope_scenarios() {
    assert_caught(Defect::RefusalWithoutEnvelope, "ENV-01").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relative_redirect_address_fails_the_submit_scenario() {
    assert_caught(Defect::RelativeRedirect, "SUBMIT-04").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_payments_id_in_submit_fails_the_scenarios_checking_it() {
    assert_caught(Defect::SubmitAnswersAnotherPaymentId, "SUBMIT-03").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_page_landing_elsewhere_fails_the_authentication_scenario() {
    assert_caught(Defect::IssuerLandsElsewhere, "TDS-04").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_fails_within_the_timeout_and_the_run_goes_on() {
    let started = Instant::now();
    let output = run_against(Defect::Hangs, &["--timeout", "1"]).await;
    assert_eq!(output.code, Some(1), "{}\n{}", output.stdout, output.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
    assert!(output.stdout.contains("timed out"), "{}", output.stdout);
    assert!(
        !output.passed().is_empty(),
        "scenarios that need no create still ran:\n{}",
        output.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json_fails_with_a_clear_message() {
    let output = run_against(Defect::GarbageBody, &[]).await;
    assert_eq!(output.code, Some(1), "{}\n{}", output.stdout, output.stderr);
    assert!(output.stdout.contains("not JSON"), "{}", output.stdout);
}

#[test]
fn an_unreachable_target_exits_2_before_running_anything() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let service_toml = "api_key = \"k\"\nshop_login = \"s\"\n[cards.frictionless]\nnumber = \"4111111111111111\"\nexp_month = \"01\"\nexp_year = \"39\"\ncvv = \"1\"\n[cards.three_ds]\nnumber = \"5555555555554444\"\nexp_month = \"01\"\nexp_year = \"39\"\ncvv = \"1\"\n";
    let target = TempFile::new("target.toml", service_toml);
    let output = payconf_run(&[
        "--target",
        &target.0.display().to_string(),
        "--base-url",
        &format!("http://127.0.0.1:{port}"),
    ]);
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stderr.contains("target unreachable"),
        "{}",
        output.stderr
    );
    assert!(output.passed().is_empty() && output.failed().is_empty());
}

#[test]
fn a_missing_setting_exits_2_naming_it() {
    let output = payconf_run(&["--base-url", "http://127.0.0.1:9"]);
    assert_eq!(output.code, Some(2));
    assert!(output.stderr.contains("api_key"), "{}", output.stderr);
}

#[test]
fn an_invalid_tag_expression_exits_2() {
    let output = payconf_run(&["--tags", "@core and or"]);
    assert_eq!(output.code, Some(2), "{}", output.stdout);
    assert!(output.stderr.contains("--tags"), "{}", output.stderr);
}

#[test]
fn list_prints_every_requirement_with_its_scenarios_and_runs_nothing() {
    let output = payconf_run(&["--list"]);
    assert_eq!(output.code, Some(0));
    assert!(output.stdout.contains("TDS-04 (core)"), "{}", output.stdout);
    assert!(
        output.stdout.contains("three_d_secure.feature:"),
        "{}",
        output.stdout
    );
    assert!(
        !output.stdout.contains("(no scenario)"),
        "{}",
        output.stdout
    );
    assert!(!output.stdout.contains("[Summary]"));
}
