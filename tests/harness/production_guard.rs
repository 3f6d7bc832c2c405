//! Running the suite against a live production service by accident is
//! impossible: payconf refuses before sending anything, unless told
//! `--allow-production`, and then runs only the scenarios that send no card
//! data, saying which it left out.

use payconf::runner::PRODUCTION_SAFE;

use std::collections::BTreeSet;

use crate::support::{
    runner::{TempFile, payconf_run_async, scenarios_where},
    twin::TwinService,
};
use payconf_spec::{Profile, features::Features};
use wiremock::{Mock, MockServer, ResponseTemplate, matchers::any};

fn production_target(base: &str) -> String {
    format!(
        "base_url = \"{base}\"\nenvironment = \"production\"\napi_key = \"k\"\nshop_login = \"s\"\n\
         [cards.frictionless]\nnumber = \"4111111111111111\"\nexp_month = \"01\"\nexp_year = \"39\"\ncvv = \"1\"\n\
         [cards.three_ds]\nnumber = \"5555555555554444\"\nexp_month = \"01\"\nexp_year = \"39\"\ncvv = \"1\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_declared_production_is_refused_before_any_request() {
    let server = MockServer::start().await;
    // Production must receive nothing at all: an expectation of no request,
    // whatever it is, checked when the run is over.
    Mock::given(any())
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .named("any request to production")
        .mount(&server)
        .await;
    let target = TempFile::new("target.toml", &production_target(&server.uri()));

    let output = payconf_run_async(vec!["--target".into(), target.0.display().to_string()]).await;

    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stderr.contains("--allow-production"),
        "{}",
        output.stderr
    );
    server.verify().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_specs_production_address_is_recognised_without_a_declaration() {
    let text = production_target("https://payment-service.example")
        .replace("environment = \"production\"\n", "");
    let target = TempFile::new("target.toml", &text);

    let output = payconf_run_async(vec!["--target".into(), target.0.display().to_string()]).await;

    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stderr.contains("is the spec's production server"),
        "{}",
        output.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_production_runs_only_scenarios_that_send_no_card_data() {
    let twin = TwinService::start(None).await;
    let text = twin
        .target_toml()
        .replacen('\n', "\nenvironment = \"production\"\n", 1);
    let target = TempFile::new("target.toml", &text);

    let output = payconf_run_async(vec![
        "--target".into(),
        target.0.display().to_string(),
        "--allow-production".into(),
    ])
    .await;

    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let safe_core =
        scenarios_where(|s| s.profile == Some(Profile::Core) && s.has_tag(PRODUCTION_SAFE));
    assert!(!safe_core.is_empty());
    assert_eq!(output.passed(), safe_core);
    // Left out, and said so: every other core scenario, by location and name.
    let left_out: BTreeSet<String> = Features::embedded()
        .expect("features")
        .scenarios()
        .into_iter()
        .filter(|s| s.profile == Some(Profile::Core) && !s.has_tag(PRODUCTION_SAFE))
        .map(|s| format!("{}  {}", s.location(), s.name))
        .collect();
    assert!(!left_out.is_empty());
    let reported: BTreeSet<String> = output
        .results()
        .selection
        .left_out_by_production_guard
        .iter()
        .cloned()
        .collect();
    assert_eq!(reported, left_out);
    for scenario in &left_out {
        assert!(
            output
                .stdout
                .contains(&format!("left out (sends card data)  {scenario}")),
            "{scenario}: {}",
            output.stdout
        );
    }
    let requests = twin
        .service()
        .received_requests()
        .await
        .expect("recording is on");
    assert!(
        requests.iter().all(|r| !r.url.path().contains("submit")),
        "card data was sent to production"
    );
}
