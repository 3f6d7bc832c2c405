//! `payconf bench` as a user runs it, briefly: it starts `payconf serve` and
//! the baseline in processes of their own, gives every throughput a ratio,
//! counts the log after SIGTERM, and measures the runner. Nothing here is
//! timed; the figures themselves are the benchmark's to report.

use std::process::Command;

/// Runs `payconf bench` with `args` as a user would, without the variables
/// that change what it logs or how it drives the issuer page; what it
/// printed, once it succeeded.
fn bench(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_payconf"))
        .arg("bench")
        .args(args)
        .env_remove("PAYCONF_LOG")
        .env_remove("PAYCONF_ACS_DRIVER")
        .output()
        .expect("payconf bench runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    stdout
}

#[test]
#[ignore = "full tier: the bench"]
fn bench_with_a_baseline_reports_ratios_the_log_and_the_runner() {
    let stdout = bench(&[
        "--baseline",
        "--duration",
        "1",
        "--rounds",
        "1",
        "--connections",
        "4",
        "--live-payments",
        "0",
    ]);
    let line = |start: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start:?}:\n{stdout}"))
    };
    assert!(line("target: payconf serve at http://127.0.0.1:").contains("default configuration"));
    assert!(line("baseline: a bare hyper server at http://127.0.0.1:").contains("bytes"));
    assert!(line("baseline ").contains("1.00x"), "{stdout}");
    for scenario in ["create ", "create+submit "] {
        let figures = line(scenario);
        assert!(figures.contains("x ("), "a ratio with its range: {figures}");
        assert!(figures.contains("errors 0"), "{figures}");
    }
    assert!(line("with --data: payconf serve at http://127.0.0.1:").contains("SQLite"));
    let with_data = line("create --data ");
    assert!(
        with_data.contains("x (") && with_data.contains("of in-memory"),
        "{with_data}"
    );
    assert!(with_data.contains("errors 0"), "{with_data}");
    assert!(line("log ").contains("none lost"), "{stdout}");
    assert!(line("payconf run  ").contains("passed"), "{stdout}");
    assert!(
        line("payconf run --tags @robustness").contains("MiB peak resident"),
        "{stdout}"
    );
}

/// `payconf bench --payment-pages` passes each style's page scenarios and
/// prints a row for each: the sandbox's full page with either driver, and
/// its lightbox opened from a shop's page. The times are the benchmark's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the bench"]
async fn bench_payment_pages_measures_each_style_of_page() {
    if !crate::support::runner::browser_or_skip("bench_payment_pages_measures_each_style_of_page") {
        return;
    }
    let stdout = tokio::task::spawn_blocking(|| bench(&["--payment-pages"]))
        .await
        .expect("the bench finishes");
    for (style, scenarios) in [
        ("full page form ", 3),
        ("full page browser ", 3),
        ("lightbox  browser ", 2),
    ] {
        let row = stdout
            .lines()
            .find(|line| line.starts_with(style))
            .unwrap_or_else(|| panic!("no row for {style:?}:\n{stdout}"));
        assert!(
            row.contains(&format!(" {scenarios} page scenarios: "))
                && row.contains(" ms the slowest"),
            "{row}"
        );
    }
}

/// `payconf bench --bundles 1` runs the embedded suite with and without a
/// bundle, verifies the bundle, and prints a row for each and the bundle's
/// size. The times are the benchmark's.
#[test]
#[ignore = "full tier: the bench"]
fn bench_bundles_measures_writing_and_verifying_a_bundle() {
    let stdout = bench(&["--bundles", "1"]);
    for row in [
        "payconf run  ",
        "payconf run --evidence ",
        "payconf verify --key ",
    ] {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(row))
            .unwrap_or_else(|| panic!("no row for {row:?}:\n{stdout}"));
        assert!(
            line.contains(" ms wall ") && line.contains(" MiB peak resident"),
            "{line}"
        );
    }
    let size = stdout
        .lines()
        .find_map(|line| line.strip_prefix("bundle: "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|bytes| bytes.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no bundle size:\n{stdout}"));
    assert!(size > 10_000, "{stdout}");
}

/// `payconf bench --hostile N` runs ROB-04's two scenarios with N generated
/// bodies each, reads their times from the run's record, and prints a row
/// for each.
#[test]
#[ignore = "full tier: the bench"]
fn bench_hostile_measures_both_generated_input_scenarios() {
    let stdout = bench(&["--hostile", "5"]);
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("requests/s") && l.contains(" ms  Generated hostile bodies"))
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "a row for create and one for submit:\n{stdout}"
    );
}
