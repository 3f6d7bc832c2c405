//! A newcomer's first hour (issue 44): the frictions a first use met, each
//! proven gone by running payconf as a new user does.

use payconf_reference::{ReferenceConfig, RunningServer};

use crate::support::runner::{TempFile, assert_stopped, payconf_run_async, scenarios_where};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/target.toml");

/// The example target file pointed at another server by `--base-url` alone
/// passes every core scenario: the merchant's pages and the payment page
/// are written from the base URL, so they move with it. (Written with the
/// example's host four times, five scenarios failed: the buyer was sent to
/// pages of a server that was not the one under test.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_file_pointed_elsewhere_by_base_url_alone_passes() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a sandbox on a port of its own");
    let output = payconf_run_async(vec![
        "--target".into(),
        EXAMPLE.into(),
        "--base-url".into(),
        server.base_url.to_string(),
    ])
    .await;
    let _ = server.shutdown().await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let core = scenarios_where(|s| s.profile == Some(payconf_spec::Profile::Core));
    assert_eq!(output.passed(), core, "{}", output.stdout);
}

/// Every problem of a target file is named in one refusal, exit 2, before
/// anything is sent: a newcomer's copy of the example with three mistakes
/// learns of all three at once, and the addresses written from the wrong
/// base URL are not named again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_setting_problem_is_named_at_once() {
    let example = std::fs::read_to_string(EXAMPLE).expect("the example");
    let mistaken = example
        .replace(
            "base_url = \"http://127.0.0.1:8080\"",
            "base_url = \"localhost:8080\"",
        )
        .replace("amount = \"1.00\"", "amount = \"1\"")
        .replacen("exp_month = \"05\"", "exp_month = \"5\"", 1);
    let file = TempFile::new("mistaken-target.toml", &mistaken);
    let output = payconf_run_async(vec!["--target".into(), file.0.display().to_string()]).await;
    assert_stopped(
        &output,
        &[
            "3 settings need a change:",
            "base_url: \"localhost:8080\" has no scheme: write it as \"http://localhost:8080\"",
            "amount: must be written like 1.00",
            "cards.frictionless.exp_month",
        ],
    );
    assert!(
        !output.stderr.contains("success_url"),
        "the pages written from base_url follow from its problem:\n{}",
        output.stderr
    );
}

/// A merchant's page on an origin where nothing answers (a file written
/// for another machine) stops the run before any scenario, exit 2, naming
/// the setting: it is not the target's failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_an_origin_that_does_not_answer_is_named_before_any_scenario() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a sandbox on a port of its own");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let example = std::fs::read_to_string(EXAMPLE).expect("the example");
    let elsewhere = example.replace(
        "success_url = \"/merchant/DEMO_SHOP/success\"",
        &format!("success_url = \"http://127.0.0.1:{closed}/merchant/DEMO_SHOP/success\""),
    );
    assert_ne!(elsewhere, example, "the example's success_url");
    let file = TempFile::new("elsewhere-target.toml", &elsewhere);
    let output = payconf_run_async(vec![
        "--target".into(),
        file.0.display().to_string(),
        "--base-url".into(),
        server.base_url.to_string(),
    ])
    .await;
    let _ = server.shutdown().await;
    assert_stopped(
        &output,
        &[&format!(
            "success_url: its origin http://127.0.0.1:{closed} does not answer"
        )],
    );
}
