//! Between releases: `payconf diff` tells what regressed from one run's
//! results to another's (exit 1 when anything did), and `payconf run
//! --rerun-failed` runs again only what failed or erred in a run.

use std::{collections::BTreeSet, process::Command};

use crate::support::{
    runner::{RunOutput, TempFile, payconf_run_async},
    twin::{Defect, TwinService},
};

/// The twin (with a defect, or not) run with its results written to `results`.
async fn run_twin(defect: Option<Defect>, results: &TempFile, extra: &[&str]) -> RunOutput {
    let twin = TwinService::start(defect).await;
    let target = TempFile::new("twin-target.toml", &twin.target_toml());
    let mut args = vec![
        "--target".to_owned(),
        target.0.display().to_string(),
        "--results".to_owned(),
        results.0.display().to_string(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    payconf_run_async(args).await
}

fn diff(old: &TempFile, new: &TempFile) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["diff"])
        .arg(&old.0)
        .arg(&new.0)
        .output()
        .expect("payconf runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn results_file(name: &str) -> TempFile {
    TempFile(std::env::temp_dir().join(format!("payconf-{name}-{}.json", uuid::Uuid::new_v4())))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_finds_the_regression_between_the_twin_and_a_defect_and_the_rerun_runs_only_it() {
    let (good, bad) = (results_file("good"), results_file("bad"));
    let (conformant, broken) = tokio::join!(
        run_twin(None, &good, &[]),
        run_twin(Some(Defect::PaymentIdAsNumber), &bad, &[])
    );
    assert_eq!(conformant.code, Some(0), "{}", conformant.stdout);
    assert_eq!(broken.code, Some(1), "{}", broken.stdout);

    let (code, summary, stderr) = diff(&good, &bad);
    assert_eq!(code, Some(1), "{summary}\n{stderr}");
    assert!(
        summary.starts_with("### payconf diff: 1 regressed"),
        "{summary}"
    );
    assert!(
        summary.contains("| CREATE-03 | passed | failed | **regressed** |"),
        "{summary}"
    );
    let (code, summary, _) = diff(&bad, &good);
    assert_eq!(code, Some(0), "{summary}");
    assert!(
        summary.contains("| CREATE-03 | failed | passed | fixed |"),
        "{summary}"
    );
    let (code, summary, _) = diff(&good, &good);
    assert_eq!(code, Some(0), "{summary}");
    assert!(
        summary.contains("No requirement's outcome changed"),
        "{summary}"
    );

    // Only what failed runs again: against the broken twin it fails again,
    // against the fixed one it passes.
    let failed: BTreeSet<String> = broken.failed();
    let (again, fixed) = (results_file("again"), results_file("fixed"));
    let bad_path = bad.0.display().to_string();
    let rerun = ["--rerun-failed", bad_path.as_str()];
    let (still_broken, now_fixed) = tokio::join!(
        run_twin(Some(Defect::PaymentIdAsNumber), &again, &rerun),
        run_twin(None, &fixed, &rerun)
    );
    assert_eq!(still_broken.code, Some(1), "{}", still_broken.stdout);
    assert_eq!(still_broken.failed(), failed, "{}", still_broken.stdout);
    assert!(
        still_broken.stdout.contains(&format!(
            "rerun: {} of the {} scenarios that failed or erred in {bad_path}",
            failed.len(),
            failed.len()
        )),
        "{}",
        still_broken.stdout
    );
    assert_eq!(now_fixed.code, Some(0), "{}", now_fixed.stdout);
    assert_eq!(now_fixed.passed(), failed, "{}", now_fixed.stdout);

    // Nothing failed: nothing to run again, and that passes.
    let nothing = results_file("nothing");
    let good_path = good.0.display().to_string();
    let output = run_twin(None, &nothing, &["--rerun-failed", &good_path]).await;
    assert_eq!(output.code, Some(0), "{}", output.stdout);
    assert!(
        output.stdout.contains("nothing to run again"),
        "{}",
        output.stdout
    );
}

#[test]
fn what_is_not_a_results_file_stops_diff_and_rerun_with_exit_2() {
    let text = TempFile::new("not-results.json", "{\"hello\": 1}");
    let cut = TempFile::new("cut.json", "{\"format_version\": 1, \"outcome\": \"pass");
    let missing = TempFile(std::env::temp_dir().join("payconf-no-such-results.json"));
    for (old, says) in [
        (
            &text,
            "not a payconf results file (written by --results): no format_version",
        ),
        (
            &cut,
            "not a payconf results file (written by --results): not JSON",
        ),
        (
            &missing,
            "cannot be read: No such file or directory (os error 2)\n",
        ),
    ] {
        let (code, stdout, stderr) = diff(old, &text);
        assert_eq!(code, Some(2), "{stdout}\n{stderr}");
        assert!(stderr.contains(says), "{says:?} not in {stderr}");
        let output =
            crate::support::runner::payconf_run(&["--rerun-failed", &old.0.display().to_string()]);
        assert_eq!(output.code, Some(2), "{}", output.stdout);
        assert!(
            output.stderr.contains(says),
            "{says:?} not in {}",
            output.stderr
        );
        assert!(!output.stderr.contains("Some("), "{}", output.stderr);
    }
}
