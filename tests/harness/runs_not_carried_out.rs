//! How `payconf run` ends when it cannot be carried out (exit 2, with the
//! cause: an unreachable target, a missing setting, an invalid tag
//! expression), and what `--list` shows. Servers broken on purpose (the
//! defect catalogue against the conformant twin) are in defect_catalogue.rs.

use crate::support::runner::{TempFile, assert_stopped, payconf_run, payconf_run_with};
use payconf::runner::record::Fault;

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
    assert!(
        output.stderr.contains("result: NOT RUN"),
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

/// The issuer driver is read by the command line, flag over variable: a
/// name that is no driver stops the run before anything is sent, naming
/// where it came from; an empty variable counts as unset.
#[test]
fn an_unknown_issuer_driver_exits_2_naming_the_flag_or_the_variable() {
    let output = payconf_run(&["--acs-driver", "selenium"]);
    assert_stopped(
        &output,
        &["--acs-driver", "\"selenium\" is not form, browser or none"],
    );
    let output = payconf_run_with(&[], &[("PAYCONF_ACS_DRIVER", "selenium")]);
    assert_stopped(
        &output,
        &["PAYCONF_ACS_DRIVER", "is not form, browser or none"],
    );
    let output = payconf_run_with(
        &["--acs-driver", "form", "--tags", "@req:AUTH-01"],
        &[("PAYCONF_ACS_DRIVER", "selenium")],
    );
    assert_eq!(output.code, Some(0), "the flag wins: {}", output.stderr);
    let output = payconf_run_with(&["--tags", "@req:AUTH-01"], &[("PAYCONF_ACS_DRIVER", "")]);
    assert_eq!(output.code, Some(0), "empty is unset: {}", output.stderr);
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
    assert!(
        output
            .stdout
            .contains("    defect issuer-lands-elsewhere: "),
        "{}",
        output.stdout
    );
    assert!(
        !output.stdout.contains("(no defect proves"),
        "{}",
        output.stdout
    );
    assert!(!output.stdout.contains("[Summary]"));
}

/// Where the base URL comes from, seen in the unreachable target's message:
/// the flag over `PAYCONF_BASE_URL`, the variable over the target file, an
/// empty variable as if unset.
#[test]
fn a_flag_wins_over_its_variable_which_wins_over_the_target_file() {
    let from_file = url::Url::parse("http://127.0.0.1:9/from-file").expect("URL");
    let target = TempFile::new(
        "precedence.toml",
        &crate::support::reference_target_file(&from_file, "", ""),
    );
    let path = target.0.display().to_string();
    let names = |output: &crate::support::runner::RunOutput| {
        ["from-flag", "from-env", "from-file"]
            .into_iter()
            .filter(|source| output.stderr.contains(source))
            .collect::<Vec<_>>()
    };
    let env = [("PAYCONF_BASE_URL", "http://127.0.0.1:9/from-env")];
    let flag = [
        "--target",
        &path,
        "--base-url",
        "http://127.0.0.1:9/from-flag",
    ];
    let output = payconf_run_with(&flag, &env);
    assert_eq!(output.code, Some(2), "{}", output.stderr);
    assert_eq!(names(&output), ["from-flag"], "{}", output.stderr);
    let output = payconf_run_with(&["--target", &path], &env);
    assert_eq!(names(&output), ["from-env"], "{}", output.stderr);
    let output = payconf_run_with(&["--target", &path], &[("PAYCONF_BASE_URL", "")]);
    assert_eq!(names(&output), ["from-file"], "{}", output.stderr);
}

/// docs/ci.md's own target file (read from the page, as a reader copies
/// it) has no base URL: CI gives it as a secret. Where the secret is empty
/// (a fork's pull request), the run stops naming `base_url` and its three
/// sources; it never checks payconf's own sandbox in the target's place.
#[test]
fn the_ci_pages_target_file_with_its_secrets_empty_stops_naming_base_url() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ci.md"))
        .expect("docs/ci.md");
    let start = page
        .find("# ci/payconf-target.toml\n")
        .expect("docs/ci.md shows ci/payconf-target.toml");
    let example = &page[start..page[start..].find("```").expect("its block ends") + start];
    assert!(!example.contains("base_url"), "{example}");
    let target = TempFile::new("payconf-target.toml", example);
    let path = target.0.display().to_string();
    let secrets = [
        ("PAYCONF_BASE_URL", ""),
        ("PAYCONF_API_KEY", ""),
        ("PAYCONF_SHOP_LOGIN", ""),
    ];
    let output = payconf_run_with(&["--target", &path, "--tags", "@core"], &secrets);
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stderr.contains("base_url: missing")
            && output
                .stderr
                .contains("base_url in the target file, PAYCONF_BASE_URL or --base-url")
            && output.stderr.contains("PAYCONF_BASE_URL (set, but empty)"),
        "{}",
        output.stderr
    );
    assert!(!output.stdout.contains("[Summary]"), "{}", output.stdout);
    assert!(output.passed().is_empty() && output.failed().is_empty());
    // The same variable empty with no file at all names a target too.
    let output = payconf_run_with(&["--tags", "@core"], &secrets[..1]);
    assert_eq!(output.code, Some(2), "{}", output.stderr);
    assert!(
        output.stderr.contains("base_url: missing"),
        "{}",
        output.stderr
    );
    // payconf plan says the same, sending nothing.
    let plan = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["plan", "--target", &path])
        .env("PAYCONF_BASE_URL", "")
        .env_remove("PAYCONF_API_KEY")
        .env_remove("PAYCONF_SHOP_LOGIN")
        .output()
        .expect("payconf plan runs");
    assert_eq!(plan.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&plan.stderr).contains("base_url: missing"));
}

/// The embedded reference implementation, asked for by name, runs beside a
/// variable set empty, and its last line never calls it the user's server.
#[test]
fn embedded_by_name_runs_and_is_never_called_your_server() {
    let output = payconf_run_with(
        &["--embedded", "--tags", "@req:CREATE-01"],
        &[("PAYCONF_BASE_URL", "")],
    );
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let last = output.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("result: PASSED against the embedded reference implementation")
            && last.contains("not your server"),
        "{last}"
    );
    assert!(output.results().target.embedded_reference);
}

/// A target that still answers `429` after payconf has waited as often as
/// it will is limiting payconf's pace, not breaking the contract (which
/// shows no rate limits): every scenario it stops is payconf's ERROR,
/// naming `--rate`, never the target's FAIL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_past_payconfs_patience_is_an_error_naming_rate() {
    use wiremock::{Mock, MockServer, ResponseTemplate, matchers::any};

    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "0")
                .set_body_raw(
                    r#"{"error":{"code":"429","description":"slow down"},"payload":{}}"#,
                    "application/json",
                ),
        )
        .mount(&server)
        .await;
    let base = url::Url::parse(&server.uri()).expect("address");
    let target = TempFile::new(
        "limited-target.toml",
        &crate::support::reference_target_file(&base, "", "driver = \"none\""),
    );
    let output = crate::support::runner::payconf_run_async(vec![
        "--target".to_owned(),
        target.0.display().to_string(),
        "--tags".to_owned(),
        "@req:AUTH-01 or @req:AUTH-02".to_owned(),
    ])
    .await;
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(output.failed().is_empty(), "{}", output.messages());
    assert!(!output.errors().is_empty(), "{}", output.stdout);
    assert!(output.says("--rate"), "{}", output.messages());
    for scenario in output.scenarios() {
        assert_eq!(
            scenario.failure.as_ref().map(|f| f.fault),
            Some(Fault::Harness),
            "{scenario:#?}"
        );
    }
}
