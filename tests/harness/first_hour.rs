//! A newcomer's first hour (issue 44): the frictions a first use met, each
//! proven gone by running payconf as a new user does.

use payconf_reference::{ReferenceConfig, RunningServer};

use payconf::runner::record::OutcomeKind;

use crate::support::{
    runner::{
        TempFile, assert_stopped, core_scenarios_checking, payconf_run_async, scenarios_where,
    },
    tls::{TestCa, VALID, server_tls},
};

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

/// A wrong issuer code in the target file: the buyer lands on the failure
/// page right after payconf typed it. The scenario fails at the step that
/// drove the journey (never shown passed before a failure after it), with
/// a message that says the values were typed right before and names
/// `acs.fields`, and never shows the code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_issuer_code_fails_at_the_journey_naming_acs_fields() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a sandbox on a port of its own");
    let example = std::fs::read_to_string(EXAMPLE).expect("the example");
    let wrong = example.replace(
        "fields = { otp = \"123456\" }",
        "fields = { otp = \"987650\" }",
    );
    assert_ne!(wrong, example, "the example's issuer code");
    let file = TempFile::new("wrong-code-target.toml", &wrong);
    let output = payconf_run_async(vec![
        "--target".into(),
        file.0.display().to_string(),
        "--base-url".into(),
        server.base_url.to_string(),
        "--tags".into(),
        "@core and @issuer and not @payment-page".into(),
    ])
    .await;
    let _ = server.shutdown().await;
    assert_eq!(output.code, Some(1), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(
        output.failed(),
        core_scenarios_checking("TDS-04")
            .into_iter()
            .filter(|s| !s.starts_with("payment_page"))
            .collect(),
        "{}",
        output.stdout
    );
    let journey = output
        .scenarios()
        .iter()
        .find(|s| s.outcome == OutcomeKind::Failed)
        .expect("the failed journey");
    assert!(
        journey
            .step
            .as_deref()
            .is_some_and(|step| step.contains("the buyer completes the issuer authentication")),
        "failed at the journey's step: {journey:#?}"
    );
    let message = journey.message.as_deref().unwrap_or_default();
    assert!(
        message.contains("right after payconf typed the values acs.fields gives (otp)")
            && message.contains("set them in acs.fields"),
        "{message}"
    );
    assert!(
        !output.stdout.contains("987650") && !message.contains("987650"),
        "the code is a secret:\n{}",
        output.stdout
    );
}

/// The usual ways of not reaching a server are each said once, in words,
/// with a `fix:` line: nothing listening at the port, `https://` to a port
/// that speaks plain HTTP, `http://` to one that speaks HTTPS. (They were
/// "tcp connect error: Connection refused (os error 111): error sending
/// request ... Connection refused (os error 111)" and "invalid HTTP version
/// parsed".)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_be_reached_is_said_once_in_words_with_a_fix() {
    let run = |base: String| {
        payconf_run_async(vec![
            "--target".into(),
            EXAMPLE.into(),
            "--base-url".into(),
            base,
        ])
    };
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let down = run(format!("http://127.0.0.1:{closed}")).await;
    assert_stopped(
        &down,
        &[
            &format!("nothing answers at 127.0.0.1:{closed}: the connection was refused"),
            "fix: start the server there",
        ],
    );
    assert_eq!(
        down.stderr.to_lowercase().matches("refused").count(),
        1,
        "said once:\n{}",
        down.stderr
    );

    let plain = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a plain sandbox");
    let port = plain.base_url.port().expect("a port");
    let tls_to_plain = run(format!("https://127.0.0.1:{port}")).await;
    let _ = plain.shutdown().await;
    assert_stopped(
        &tls_to_plain,
        &[
            &format!("127.0.0.1:{port} does not speak TLS"),
            &format!("fix: write base_url with http: http://127.0.0.1:{port}"),
        ],
    );

    let ca = TestCa::new("first hour CA");
    let (cert, key) = ca.certificate(&["127.0.0.1"], VALID);
    let tls = RunningServer::start_tls(ReferenceConfig::default(), server_tls(&cert, &key, None))
        .await
        .expect("an HTTPS sandbox");
    let port = tls.base_url.port().expect("a port");
    let plain_to_tls = run(format!("http://127.0.0.1:{port}")).await;
    let _ = tls.shutdown().await;
    assert_stopped(
        &plain_to_tls,
        &[
            &format!("127.0.0.1:{port} does not answer plain HTTP"),
            &format!("fix: write base_url with https: https://127.0.0.1:{port}"),
        ],
    );
}

/// A misspelt tag beside a known one (`@core or @refrence`) would run
/// `@core` alone and pass: the expression is checked whole, and the run
/// stops before anything starts, exit 2, naming the tag and the nearest
/// known one.
#[test]
fn a_misspelt_tag_beside_a_known_one_stops_the_run_naming_it() {
    for (expression, unknown, nearest) in [
        ("@core or @refrence", "@refrence", "@reference"),
        ("@core and not @isuer", "@isuer", "@issuer"),
        ("@cor", "@cor", "@core"),
    ] {
        let output = crate::support::runner::payconf_run(&["--tags", expression]);
        assert_stopped(
            &output,
            &[
                &format!("--tags \"{expression}\" names {unknown} (did you mean {nearest}"),
                "which no scenario carries",
            ],
        );
        assert!(
            !output.stdout.contains("target:"),
            "nothing started:\n{}",
            output.stdout
        );
    }
}

/// A tag expression of known tags that matches nothing (`@core and
/// @robustness`: no scenario is both) stops the run before anything
/// starts, exit 2, listing the tags there are.
#[test]
fn a_tag_expression_matching_nothing_lists_the_tags_there_are() {
    let output = crate::support::runner::payconf_run(&["--tags", "@core and @robustness"]);
    assert_stopped(
        &output,
        &[
            "no scenario matches the tag expression @core and @robustness; the tags there are: ",
            "@core, ",
            "@robustness",
            "@req:<ID> for each requirement",
        ],
    );
    assert!(
        !output.stderr.contains("@req:TDS-04"),
        "the requirements' tags are summed up, not listed:\n{}",
        output.stderr
    );
}

/// The help names each flag's variable, and never shows its value (it
/// showed `[env: PAYCONF_BASE_URL=]`, and a set variable's value).
#[test]
fn the_help_names_the_variables_and_shows_none_of_their_values() {
    for (command, names) in [
        (
            "run",
            &["PAYCONF_BASE_URL", "PAYCONF_API_KEY", "PAYCONF_TLS_CA_FILE"][..],
        ),
        ("verify", &["PAYCONF_VERIFY_KEY"][..]),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
            .args([command, "--help"])
            .env("PAYCONF_BASE_URL", "http://secret-host.example:1234")
            .env("PAYCONF_VERIFY_KEY", "/secret-folder/signer.pub")
            .output()
            .expect("payconf runs");
        let help = String::from_utf8_lossy(&output.stdout).replace('\n', " ");
        let help: String = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for name in names {
            assert!(help.contains(&format!("[env: {name}]")), "{name}: {help}");
        }
        assert!(!help.contains("=]") && !help.contains("secret-"), "{help}");
    }
}

/// Where a command writes is a position or `--out`, the same way in every
/// command that writes: `payconf docs OUT` and `payconf keygen PREFIX` were
/// refused (they wanted `--out`); both at once are refused, exit 2.
#[test]
fn where_a_command_writes_is_a_position_or_out_alike() {
    let folder = crate::support::runner::Folder::new("first-hour-out");
    let payconf = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
            .args(args)
            .env_remove("PAYCONF_SIGNING_KEY")
            .output()
            .expect("payconf runs")
    };
    let site = folder.join("site");
    let docs = payconf(&[
        "docs",
        site.to_str().expect("UTF-8"),
        "--format",
        "markdown",
    ]);
    assert!(docs.status.success(), "{docs:?}");
    assert!(site.join("index.md").is_file());
    let prefix = folder.join("vendor");
    let keygen = payconf(&["keygen", prefix.to_str().expect("UTF-8")]);
    assert!(keygen.status.success(), "{keygen:?}");
    assert!(folder.join("vendor.key").is_file() && folder.join("vendor.pub").is_file());
    let both = payconf(&["docs", "a", "--out", "b"]);
    assert_eq!(both.status.code(), Some(2), "{both:?}");
    for (how, dir) in [("position", "schemas-a"), ("--out", "schemas-b")] {
        let out = folder.join(dir);
        let out = out.to_str().expect("UTF-8");
        let schemas = if how == "--out" {
            payconf(&["schemas", "--out", out])
        } else {
            payconf(&["schemas", out])
        };
        assert!(schemas.status.success(), "{how}: {schemas:?}");
        assert!(
            folder.join(dir).join("target-file.schema.json").is_file(),
            "{how}"
        );
    }
    let both = payconf(&["schemas", "a", "--out", "b"]);
    assert_eq!(both.status.code(), Some(2), "{both:?}");
}

/// The HTML report of a failing run, in Chromium, leads with its failures:
/// in the first screen, under the verdict, a link to each failed scenario,
/// which opens on its details; the filter shows only what needs looking
/// at; a requirement's inline code is rendered, never shown as backticks.
/// (The first failure was about 1,800 px down, its details at 10,700 px.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_leads_with_its_failures_in_the_first_screen() {
    let test = "the_report_leads_with_its_failures_in_the_first_screen";
    if !crate::support::runner::browser_or_skip(test) {
        return;
    }
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a sandbox");
    let example = std::fs::read_to_string(EXAMPLE).expect("the example");
    let wrong = example.replace(
        "fields = { otp = \"123456\" }",
        "fields = { otp = \"987650\" }",
    );
    let file = TempFile::new("report-target.toml", &wrong);
    let folder = crate::support::runner::Folder::new("first-hour-report");
    let html = folder.join("report.html");
    let output = payconf_run_async(vec![
        "--target".into(),
        file.0.display().to_string(),
        "--base-url".into(),
        server.base_url.to_string(),
        "--html".into(),
        html.display().to_string(),
    ])
    .await;
    let _ = server.shutdown().await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);
    let failed = output.failed().len();
    assert!(failed >= 1);

    let page = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .insert_header("content-type", "text/html; charset=utf-8")
                .set_body_bytes(std::fs::read(&html).expect("the report")),
        )
        .mount(&page)
        .await;
    let chromium = crate::support::runner::start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let client = turn.client;
    client
        .goto(&format!("{}/report.html", page.uri()))
        .await
        .expect("the report loads");
    let read = |script: &'static str| async move {
        client
            .execute(script, Vec::new())
            .await
            .expect("the page answers")
    };
    let links = read(
        "return [...document.querySelectorAll('nav.attention a')].map(a => \
         ({href: a.getAttribute('href'), bottom: a.getBoundingClientRect().bottom}))",
    )
    .await;
    let links = links.as_array().expect("links").clone();
    assert_eq!(links.len(), failed, "a link per failed scenario: {links:?}");
    let height = read("return window.innerHeight")
        .await
        .as_f64()
        .expect("a height");
    assert!(
        links
            .iter()
            .all(|l| l["bottom"].as_f64().is_some_and(|b| b < height)),
        "every link in the first screen ({height} px): {links:?}"
    );
    let first = links[0]["href"].as_str().expect("an anchor").to_owned();
    let opened = client
        .execute(
            "const a = document.querySelector('nav.attention a'); a.click(); \
             const d = document.querySelector(a.getAttribute('href')); \
             const top = d.getBoundingClientRect().top; \
             return {open: d.open, outcome: d.className, top: top, height: window.innerHeight}",
            Vec::new(),
        )
        .await
        .expect("the link answers");
    assert_eq!(opened["open"], true, "{first}: {opened}");
    assert_eq!(opened["outcome"], "outcome-failed", "{opened}");
    assert!(
        // At the top, give or take the sub-pixel a scroll lands on.
        opened["top"]
            .as_f64()
            .is_some_and(|t| (-1.0..height).contains(&t)),
        "{first} scrolled into view: {opened}"
    );
    let shown = read(
        "document.getElementById('show-looking').click(); \
         return [...document.querySelectorAll('.scenario-list details')] \
         .filter(d => getComputedStyle(d).display !== 'none').length",
    )
    .await;
    assert_eq!(
        shown.as_u64(),
        Some(failed as u64),
        "the filter shows the failures alone"
    );
    let backticks = read(
        "return [...document.querySelectorAll('#requirements td')] \
         .some(td => td.textContent.includes('`'))",
    )
    .await;
    assert_eq!(backticks, false, "inline code rendered");
    drop(turn);
    chromium.close().await;
}

/// The README orients a newcomer in its first screens: the real service it
/// models, by name; whom each part is for and where each starts; the two
/// commands; a status that is a short list; under 200 lines, the rest in
/// docs/.
#[test]
fn the_readme_orients_a_newcomer() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("the README");
    assert!(
        readme.lines().count() < 200,
        "{} lines",
        readme.lines().count()
    );
    let first_screen: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    for said in [
        "Axerve",
        "GestPay",
        "a payment provider's implementer",
        "a merchant's team",
        "a CI pipeline's owner",
    ] {
        assert!(first_screen.contains(said), "{said:?} in the first screen");
    }
    for command in ["cargo run --release -- run", "cargo test"] {
        assert!(readme.contains(command), "{command}");
    }
    let status = readme.split("## Status").nth(1).expect("a status section");
    let bullets = status.lines().filter(|l| l.starts_with("- ")).count();
    let longest = status
        .split("\n- ")
        .map(|item| item.split_whitespace().count())
        .max()
        .unwrap_or(0);
    assert!(
        (3..=10).contains(&bullets) && longest <= 45,
        "a short list: {bullets} items, the longest {longest} words"
    );
}
