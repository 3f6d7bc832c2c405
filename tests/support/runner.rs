//! Runs the real `payconf run` binary and reads what it reports.

use std::{collections::BTreeSet, path::PathBuf, process::Command};

use payconf::features::Features;

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct RunOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl RunOutput {
    /// `file:line` of every failed scenario.
    pub fn failed(&self) -> BTreeSet<String> {
        self.scenarios_marked("FAIL")
    }

    /// `file:line` of every passed scenario.
    pub fn passed(&self) -> BTreeSet<String> {
        self.scenarios_marked("ok")
    }

    fn scenarios_marked(&self, mark: &str) -> BTreeSet<String> {
        self.stdout
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some(mark))
                    .then(|| words.next().map(str::to_owned))
                    .flatten()
            })
            .collect()
    }
}

/// A temporary file that is removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(name: &str, contents: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "payconf-{}-{}-{name}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::write(&path, contents).expect("temp file written");
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `payconf run` with these arguments, without the caller's PAYCONF_* variables.
pub fn payconf_run(args: &[&str]) -> RunOutput {
    let output = Command::new(env!("CARGO_BIN_EXE_payconf"))
        .arg("run")
        .args(args)
        .env_remove("PAYCONF_BASE_URL")
        .env_remove("PAYCONF_API_KEY")
        .env_remove("PAYCONF_SHOP_LOGIN")
        .output()
        .expect("payconf runs");
    RunOutput {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `payconf run` in a blocking thread, so a test's own servers keep serving.
pub async fn payconf_run_async(args: Vec<String>) -> RunOutput {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        payconf_run(&args)
    })
    .await
    .expect("the run thread finishes")
}

/// `file:line` of the scenarios selected by `@core` that check `requirement`.
pub fn core_scenarios_checking(requirement: &str) -> BTreeSet<String> {
    Features::embedded()
        .expect("features parse")
        .scenarios()
        .into_iter()
        .filter(|s| s.tags.iter().any(|t| t == "core"))
        .filter(|s| s.requirements().any(|id| id == requirement))
        .map(|s| s.location())
        .collect()
}
