//! The test plan: the target file as the implementer's declaration, and
//! for every scenario whether it applies and what would make it apply;
//! printed by `payconf plan` (and `run --list` with a target) without
//! sending anything, and recorded in every run's results.

use crate::support::{
    reference_target_file,
    runner::{TempFile, payconf_run, payconf_run_async, scenarios_where},
};
use payconf::runner::record::OutcomeKind;
use payconf_spec::Profile;

/// A declaration of a server on a closed port: no declined card, no
/// payment page, no notifications, no issuer driver.
fn sparse_declaration() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let base = url::Url::parse(&format!("http://{closed}/")).expect("a URL");
    let full = reference_target_file(&base, "", "driver = \"none\"");
    let cut = full.find("[cards.declined]").expect("a declined card");
    let after = full[cut..].find("[acs]").expect("[acs]") + cut;
    let page = full.find("[payment_page]").expect("a payment page");
    format!("{}{}", &full[..cut], &full[after..page])
}

#[test]
fn the_plan_names_what_applies_and_the_setting_that_would_make_the_rest_apply() {
    let file = TempFile::new("sparse.toml", &sparse_declaration());
    let path = file.0.display().to_string();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["plan", "--target", &path])
        .output()
        .expect("payconf runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Nothing is sent: the server's port is closed, and the plan is printed.
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let core = scenarios_where(|s| s.profile == Some(Profile::Core));
    let header = stdout
        .lines()
        .find(|l| l.starts_with("plan for "))
        .expect("a header");
    assert!(header.contains(&path), "{header}");
    for words in [
        "selection: --tags @core",
        "TDS-04 (core) does not apply",
        "acs.driver is none",
        "the target declares no [payment_page]",
        "the opt-in robustness profile: select it with --tags @robustness",
        "the reference profile's choices: select them with --tags @reference",
        "what would make the others apply:",
    ] {
        assert!(stdout.contains(words), "{words:?} not in:\n{stdout}");
    }
    let applying: usize = header
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(applying > 0 && applying < core.len(), "{header}");

    // `run --list` with the same target prints the same plan.
    let listed = payconf_run(&["--list", "--target", &path]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert_eq!(listed.stdout, stdout, "run --list --target is the plan");
}

#[test]
fn with_notifications_and_reference_selected_the_plan_widens() {
    let text = sparse_declaration().replace(
        "driver = \"none\"",
        "driver = \"form\"\nfields = { otp = \"123456\" }",
    ) + "[notifications]\n";
    let file = TempFile::new("notifying.toml", &text);
    let path = file.0.display().to_string();
    let output = payconf_run(&["--list", "--target", &path, "--tags", "@notification"]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    assert!(
        output.stdout.contains("REF-NOTIFY-01 (reference) applies:"),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains("REF-NOTIFY-03 (reference) does not apply")
            && output
                .stdout
                .contains("names no notifications.signing_secret"),
        "{}",
        output.stdout
    );
}

/// Every run records the plan beside the declaration: each scenario, and
/// for those that did not run, why and what would make them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_results_record_the_plan() {
    let server =
        payconf_reference::RunningServer::start(payconf_reference::ReferenceConfig::default())
            .await
            .expect("server");
    let text = reference_target_file(&server.base_url, "", "driver = \"none\"");
    let file = TempFile::new("target.toml", &text);
    let output = payconf_run_async(vec!["--target".into(), file.0.display().to_string()]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let results = output.results();
    let plan = &results.plan;
    let scenarios = &plan.scenarios;
    assert_eq!(scenarios.len(), scenarios_where(|_| true).len());
    let applying = scenarios.iter().filter(|s| s.applies).count();
    assert_eq!(plan.applying, applying);
    assert_eq!(applying, output.passed().len(), "what applies is what ran");
    let set_aside: Vec<_> = scenarios
        .iter()
        .filter_map(|s| s.not_applied.as_ref())
        .filter(|why| why.kind == "declaration")
        .collect();
    assert_eq!(
        set_aside.len(),
        output.scenarios_with_outcome(OutcomeKind::Skipped).len()
    );
    assert!(
        set_aside.iter().all(|why| !why.remedy.is_empty()),
        "{set_aside:#?}"
    );
    assert_eq!(results.target.configuration["api_key"], "***");
}
