//! Runs the real `payconf run` binary and reads what it reports.

use payconf_spec::Profile;
use std::{collections::BTreeSet, path::PathBuf, process::Command};

use payconf_spec::features::Features;

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

    /// `file:line` of every scenario payconf could not judge.
    pub fn errors(&self) -> BTreeSet<String> {
        self.scenarios_marked("ERROR")
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
    payconf_run_with(args, &[])
}

/// [`payconf_run`] with these environment variables set.
pub fn payconf_run_with(args: &[&str], env: &[(&str, &str)]) -> RunOutput {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payconf"));
    command.arg("run").args(args);
    for name in [
        "PAYCONF_BASE_URL",
        "PAYCONF_API_KEY",
        "PAYCONF_SHOP_LOGIN",
        "PAYCONF_ACS_DRIVER",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("payconf runs");
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
        // Robustness scenarios check only robustness requirements.
        .filter(|s| s.profile.is_some_and(Profile::binds_every_server))
        .filter(|s| s.requirements().any(|id| id == requirement))
        .map(|s| s.location())
        .collect()
}

/// At most two runs with a browser at once in a test binary: each starts a
/// Chromium, and the machine has two cores.
pub static BROWSER_RUNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Whether Chromium and ChromeDriver are installed for the browser driver.
/// Where they are not, a test of the browser driver prints why it is
/// skipped and returns; in CI (`CI` set) it fails instead: CI installs them
/// and must run those tests.
pub fn browser_or_skip(test: &str) -> bool {
    let settings = payconf::runner::issuer::chromium::BrowserSettings::default();
    match payconf::runner::issuer::chromium::locate(&settings, |name| std::env::var(name).ok()) {
        Ok(_) => true,
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("{test}: CI must run the browser tests, but {why}")
        }
        Err(why) => {
            eprintln!("skipped {test}: {why}");
            false
        }
    }
}
