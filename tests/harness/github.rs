//! payconf where CI runs: the GitHub Action's script run with the variables
//! GitHub sets, against a server that fails a scenario: payconf writes an
//! annotation on the feature file and line, the step summary lists the
//! failed requirement, the outputs and the reports are there, and the step
//! ends with payconf's exit code. The action's and the GitLab component's
//! inputs are the ones their steps use.

use std::{collections::BTreeSet, path::Path};

use payconf_reference::{ReferenceConfig, RunningServer};

use crate::support::runner::{Folder, TempFile};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[tokio::test(flavor = "multi_thread")]
async fn the_actions_script_annotates_summarises_and_gates_on_the_verdict() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("a sandbox");
    let example =
        std::fs::read_to_string(Path::new(ROOT).join("examples/target.toml")).expect("the example");
    let wrong = example.replace(
        "fields = { otp = \"123456\" }",
        "fields = { otp = \"987650\" }",
    );
    assert_ne!(wrong, example);
    let target = TempFile::new("action-target.toml", &wrong);
    let folder = Folder::new("github-action");
    let (summary, outputs, reports) = (
        folder.join("summary.md"),
        folder.join("outputs.txt"),
        folder.join("reports"),
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_payconf"))
        .parent()
        .expect("the binary's folder")
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = tokio::process::Command::new(Path::new(ROOT).join("action/run.sh"))
        .current_dir(&folder.0)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("INPUT_TARGET", &target.0)
        .env("INPUT_TAGS", "@req:TDS-04")
        .env("INPUT_REPORTS", &reports)
        .env("INPUT_ARGS", format!("--base-url {}", server.base_url))
        .output()
        .await
        .expect("the script runs");
    let _ = server.shutdown().await;
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(
        ran.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );

    let commands: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("::"))
        .collect();
    assert!(!commands.is_empty(), "no annotation:\n{stdout}");
    for command in &commands {
        assert!(
            command.starts_with("::error file=features/three_d_secure.feature,line=")
                && command.contains("title=FAIL")
                && command.contains("TDS-04"),
            "{command}"
        );
    }
    assert!(!stdout.contains("987650"), "the issuer code is a secret");

    let summary = std::fs::read_to_string(&summary).expect("the step summary");
    assert!(summary.starts_with("### payconf: FAILED"), "{summary}");
    assert!(summary.contains("| TDS-04 | failed |"), "{summary}");
    let outputs = std::fs::read_to_string(&outputs).expect("the outputs");
    assert!(
        outputs.contains("verdict=failed\n") && outputs.contains("exit-code=1\n"),
        "{outputs}"
    );
    for report in ["junit.xml", "report.html", "results.json", "cucumber.json"] {
        assert!(reports.join(report).is_file(), "{report} not written");
    }
}

#[test]
fn outside_github_actions_payconf_writes_no_annotation() {
    let ran = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["run", "--tags", "@req:TDS-04"])
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("payconf runs");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(ran.status.code(), Some(0), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("::")), "{stdout}");
}

/// `inputs.NAME` (or `$[[ inputs.NAME ]]`) named in `text`.
fn used_inputs(text: &str, open: &str) -> BTreeSet<String> {
    text.match_indices(open)
        .map(|(at, _)| {
            text[at + open.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn the_action_and_the_component_declare_every_input_their_steps_use() {
    let action = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).expect("action.yml");
    let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&action).expect("YAML");
    assert_eq!(parsed["runs"]["using"].as_str(), Some("composite"));
    let declared: BTreeSet<String> = parsed["inputs"]
        .as_mapping()
        .expect("inputs")
        .keys()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    let used = used_inputs(&action, "inputs.");
    assert!(!used.is_empty());
    assert!(
        used.is_subset(&declared),
        "{used:?} not all in {declared:?}"
    );
    for step in parsed["runs"]["steps"].as_sequence().expect("steps") {
        if let Some(run) = step["run"].as_str() {
            let script = run
                .trim_matches(['\'', '"'])
                .replace("$GITHUB_ACTION_PATH/", "");
            assert!(
                Path::new(ROOT).join(&script).is_file(),
                "{script} is not in the repository"
            );
        }
    }

    let component = std::fs::read_to_string(Path::new(ROOT).join("templates/payconf.yml"))
        .expect("the component");
    let (header, job) = component.split_once("\n---\n").expect("spec, then the job");
    let spec: serde_yaml_ng::Value = serde_yaml_ng::from_str(header).expect("the spec");
    let declared: BTreeSet<String> = spec["spec"]["inputs"]
        .as_mapping()
        .expect("inputs")
        .keys()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    let used = used_inputs(job, "$[[ inputs.");
    assert!(
        used.is_subset(&declared),
        "{used:?} not all in {declared:?}"
    );
    let job: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&job.replace("$[[", "x").replace("]]", "x")).expect("the job");
    assert!(
        job["payconf"]["artifacts"]["reports"]["junit"].is_string(),
        "GitLab reads the JUnit report"
    );
}
