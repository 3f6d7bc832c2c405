//! The whole suite against the reference implementation: embedded (the
//! default of `payconf run`), and as an external target described by a
//! target file, as an implementer would run it.

use crate::support::runner::{
    TempFile, lightbox_scenarios, payconf_run, payconf_run_async, scenarios_where,
};
use payconf::runner::record::OutcomeKind;
use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_SHOP_LOGIN, DEFAULT_SIGNING_SECRET, ReferenceConfig, RunningServer,
};
use payconf_spec::Profile;

/// `file:line` of the scenarios of these profiles.
fn of_profiles(profiles: &[Profile]) -> std::collections::BTreeSet<String> {
    scenarios_where(|s| s.profile.is_some_and(|p| profiles.contains(&p)))
}

#[test]
fn every_scenario_passes_against_the_embedded_reference_implementation() {
    let output = payconf_run(&[]);
    // The main job drives the buyer with the form driver: the lightbox's
    // scenarios, a script, are set aside saying so, and every other passes
    // (issuer_drivers runs the main job with the browser, where they pass).
    let lightbox = lightbox_scenarios();
    assert!(!lightbox.is_empty());
    let expected: std::collections::BTreeSet<String> =
        of_profiles(&[Profile::Core, Profile::Reference])
            .difference(&lightbox)
            .cloned()
            .collect();
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.passed(), expected);
    assert_eq!(output.skipped(), lightbox);
    assert!(
        skipped_lines(&output.stdout)
            .iter()
            .all(|line| line.contains("only the browser driver runs")),
        "{}",
        output.stdout
    );
    let steps = output.results().counts.steps;
    assert_eq!((steps.failed, steps.skipped), (0, 0), "{steps:?}");
    // The summary line, which scripts read, says the same.
    let (passed, skipped) = (expected.len(), lightbox.len());
    let total = passed + skipped;
    assert!(
        output
            .stdout
            .lines()
            .any(|l| l == format!("{total} scenarios ({passed} passed, {skipped} skipped)")),
        "summary of {passed} passed scenarios in:\n{}",
        output.stdout
    );
}

fn reference_target(server: &RunningServer, token_lifetime: Option<u64>) -> String {
    let lifetime = token_lifetime
        .map(|s| format!("token_lifetime_secs = {s}"))
        .unwrap_or_default();
    crate::support::reference_target_file(
        &server.base_url,
        &lifetime,
        "driver = \"form\"\nfields = { otp = \"123456\" }",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_passes_against_the_reference_implementation_as_an_external_target() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("server");
    let target = TempFile::new("target.toml", &reference_target(&server, None));
    let output = payconf_run_async(vec!["--target".into(), target.0.display().to_string()]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.passed(), of_profiles(&[Profile::Core]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_scenarios_pass_against_an_external_reference_with_its_token_lifetime() {
    // The sandbox's shop settles by itself a second after each payment, and
    // a second shop waits for the merchant's capture: the lifecycle's
    // scenarios of both ways run, as an implementer declares them.
    let config = ReferenceConfig::from_toml(&format!(
        r#"token_lifetime_secs = 1
[[merchants]]
shop_login = "{DEFAULT_SHOP_LOGIN}"
api_key = "{DEFAULT_API_KEY}"
signing_secret = "{DEFAULT_SIGNING_SECRET}"
settlement_delay_secs = 1
[[merchants]]
shop_login = "WAREHOUSE"
api_key = "warehouse-key"
settlement = "separated"
"#
    ))
    .expect("config");
    let server = RunningServer::start(config).await.expect("server");
    let lifecycle = "[lifecycle]\noperations = [\"detail\", \"capture\", \"cancel\", \"refund\", \"tokens\", \"methods\"]\n\
                     settlement = \"unified\"\nsettles_within_secs = 10\n\
                     [lifecycle.second_shop]\nshop_login = \"WAREHOUSE\"\napi_key = \"warehouse-key\"\n";
    let target = TempFile::new(
        "target.toml",
        &format!("{}{lifecycle}", reference_target(&server, Some(1))),
    );
    let output = payconf_run_async(vec![
        "--target".into(),
        target.0.display().to_string(),
        "--tags".into(),
        "@reference".into(),
    ])
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let lightbox = lightbox_scenarios();
    let reference: std::collections::BTreeSet<String> = of_profiles(&[Profile::Reference])
        .difference(&lightbox)
        .cloned()
        .collect();
    assert_eq!(output.passed(), reference);
    assert_eq!(output.skipped(), lightbox, "the form driver runs no script");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scenarios_the_target_cannot_support_are_skipped_with_the_reason() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("server");
    let text = reference_target(&server, None)
        .replace("driver = \"form\"", "driver = \"none\"")
        .replace("fields = { otp = \"123456\" }\n", "");
    let target = TempFile::new("target.toml", &text);
    let output = payconf_run_async(vec!["--target".into(), target.0.display().to_string()]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let skipped = skipped_lines(&output.stdout);
    // The issuer's scenario, and the payment page's: no buyer's page can be driven.
    let driven = 1 + core_of_feature("payment_page.feature");
    assert_eq!(skipped.len(), driven, "{}", output.stdout);
    for line in &skipped {
        assert!(
            (line.contains("three_d_secure.feature") || line.contains("payment_page.feature"))
                && line.contains("acs.driver is none"),
            "{line}"
        );
    }
    let results = output.results();
    assert_eq!(results.counts.scenarios.by_outcome.skipped, driven);
    let skipped = output.scenarios_with_outcome(OutcomeKind::Skipped);
    assert_eq!(skipped.len(), driven, "{results:#?}");

    // A target that declares no payment page: its scenarios set aside, saying why.
    let text = reference_target(&server, None);
    let text = &text[..text.find("[payment_page]").expect("the page is declared")];
    let target = TempFile::new("target.toml", text);
    let output = payconf_run_async(vec!["--target".into(), target.0.display().to_string()]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let skipped = skipped_lines(&output.stdout);
    assert_eq!(
        skipped.len(),
        core_of_feature("payment_page.feature"),
        "{}",
        output.stdout
    );
    assert!(
        skipped
            .iter()
            .all(|line| line.contains("payment_page.feature")
                && line.contains("declares no [payment_page]")),
        "{}",
        output.stdout
    );
}

/// The console's lines of skipped scenarios.
fn skipped_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("skip"))
        .collect()
}

/// How many core scenarios `feature` holds.
fn core_of_feature(feature: &str) -> usize {
    of_profiles(&[Profile::Core])
        .iter()
        .filter(|scenario| scenario.starts_with(feature))
        .count()
}

/// The reference implementation survives the opt-in robustness profile: one
/// execution per token under concurrent and repeated submits, isolation of
/// parallel payments, and the envelope on every generated hostile body; the
/// run prints the seed its bodies follow from.
#[test]
fn the_reference_implementation_passes_the_robustness_profile() {
    let output = payconf_run(&["--tags", "@robustness", "--seed", "7"]);
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.seed(), Some(7), "{}", output.stdout);
    assert_eq!(output.passed(), of_profiles(&[Profile::Robustness]));
}

/// The payment's life after submit is opted in to: without `[lifecycle]`
/// its scenarios are set aside saying so, and with one shop only those of
/// the other way of settling are, naming the setting that brings them in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_scenarios_the_target_does_not_declare_are_skipped_naming_the_setting() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("server");
    let lifecycle = scenarios_where(|s| s.tags.iter().any(|t| t == "lifecycle"));
    let run = |text: String| async move {
        let target = TempFile::new("target.toml", &text);
        payconf_run_async(vec![
            "--target".into(),
            target.0.display().to_string(),
            "--tags".into(),
            "@lifecycle and @separated".into(),
        ])
        .await
    };
    let output = run(reference_target(&server, None)).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let skipped = skipped_lines(&output.stdout);
    let separated = scenarios_where(|s| s.tags.iter().any(|t| t == "separated"));
    assert_eq!(skipped.len(), separated.len(), "{}", output.stdout);
    assert!(separated.is_subset(&lifecycle));
    assert!(
        skipped
            .iter()
            .all(|l| l.contains("declares no [lifecycle]")),
        "{}",
        output.stdout
    );

    let unified_only = format!(
        "{}[lifecycle]\nsettlement = \"unified\"\n",
        reference_target(&server, None)
    );
    let output = run(unified_only).await;
    let skipped = skipped_lines(&output.stdout);
    assert_eq!(skipped.len(), separated.len(), "{}", output.stdout);
    assert!(
        skipped
            .iter()
            .all(|l| l.contains("[lifecycle.second_shop]") && l.contains("separated")),
        "{}",
        output.stdout
    );
}
