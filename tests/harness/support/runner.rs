//! Runs `payconf run`, as the real binary or as a library call in the
//! test's process, and reads what it reports.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use payconf::runner::{
    chromium::Chromium,
    record::{HostileFinding, OutcomeKind, RunRecord, ScenarioRecord},
};
use payconf_spec::{
    Profile,
    features::{Features, ScenarioEntry},
};

/// What a run printed, the results report it wrote, and how it ended.
#[derive(Debug)]
pub struct RunOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The `--results` record, read back typed, when the run got far
    /// enough to write it: what the tests judge outcomes by (the console is
    /// for people).
    pub results: Option<RunRecord>,
}

impl RunOutput {
    /// Asserts the run ended with the exit `code`; else shows `what` and
    /// all it printed.
    pub fn assert_exit(&self, code: i32, what: &str) {
        assert_eq!(
            self.code,
            Some(code),
            "{what}:\n{}\n{}",
            self.stdout,
            self.stderr
        );
    }

    /// `file:line` of every failed scenario.
    pub fn failed(&self) -> BTreeSet<String> {
        self.scenarios_with_outcome(OutcomeKind::Failed)
    }

    /// `file:line` of every passed scenario.
    pub fn passed(&self) -> BTreeSet<String> {
        self.scenarios_with_outcome(OutcomeKind::Passed)
    }

    /// `file:line` of every scenario set aside, or not judged.
    pub fn skipped(&self) -> BTreeSet<String> {
        self.scenarios_with_outcome(OutcomeKind::Skipped)
    }

    /// `file:line` of every scenario payconf could not judge.
    pub fn errors(&self) -> BTreeSet<String> {
        self.scenarios_with_outcome(OutcomeKind::Error)
    }

    /// `file:line` of every scenario with this outcome in the results.
    pub fn scenarios_with_outcome(&self, outcome: OutcomeKind) -> BTreeSet<String> {
        let Some(results) = &self.results else {
            return BTreeSet::new();
        };
        results
            .scenarios
            .iter()
            .filter(|s| s.outcome == outcome)
            .map(|s| s.location.clone())
            .collect()
    }

    /// Every scenario entry of the results report.
    pub fn scenarios(&self) -> &[ScenarioRecord] {
        &self.results().scenarios
    }

    /// The issuer drivers that drove a buyer in this run, as the results
    /// name them (`form`, `browser`).
    pub fn drivers(&self) -> BTreeSet<String> {
        self.scenarios()
            .iter()
            .filter_map(|s| s.driver.map(|d| d.name().to_owned()))
            .collect()
    }

    /// Whether a scenario's failure or error, as the results report it,
    /// says `words`.
    pub fn says(&self, words: &str) -> bool {
        self.scenarios()
            .iter()
            .filter_map(|s| s.message.as_deref())
            .any(|message| message.contains(words))
    }

    /// What the run said, for a wrong run's message: its exit code, what
    /// it printed, and the end of its errors.
    pub fn said(&self) -> String {
        format!(
            "exit {:?}\n{}\n{}",
            self.code,
            self.stdout,
            &self.stderr[self.stderr.len().saturating_sub(3000)..]
        )
    }

    /// Every failure and error message of the results, for an assertion's text.
    pub fn messages(&self) -> String {
        self.scenarios()
            .iter()
            .filter_map(|s| {
                let message = s.message.as_deref()?;
                Some(format!("{}: {message}", s.location))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The seed of the run's generated inputs, when it generated some.
    pub fn seed(&self) -> Option<u64> {
        self.results().seed
    }

    /// What the generated hostile bodies found, scenario by scenario.
    pub fn hostile_findings(&self) -> Vec<&HostileFinding> {
        self.scenarios()
            .iter()
            .filter_map(|s| s.hostile.as_ref())
            .collect()
    }

    /// The results report, which a run that got under way always writes.
    pub fn results(&self) -> &RunRecord {
        self.results
            .as_ref()
            .unwrap_or_else(|| panic!("the run wrote no results\n{}\n{}", self.stdout, self.stderr))
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

/// A folder of the test's own, removed when dropped.
pub struct Folder(pub PathBuf);

impl Folder {
    /// A new folder under the system's temporary one, named after `name`.
    pub fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("payconf-{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&path).expect("a folder");
        Self(path)
    }

    /// A path in it.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `payconf run` with these arguments, without the caller's PAYCONF_* variables.
pub fn payconf_run(args: &[&str]) -> RunOutput {
    payconf_run_with(args, &[])
}

/// [`payconf_run`] with these environment variables set. The run writes a
/// results report (to a temporary file unless the arguments name one),
/// which [`RunOutput`] reads.
pub fn payconf_run_with(args: &[&str], env: &[(&str, &str)]) -> RunOutput {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payconf"));
    command.arg("run").args(args);
    let named = args
        .iter()
        .position(|a| *a == "--results")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let own = TempFile(std::env::temp_dir().join(format!(
        "payconf-results-{}.json",
        uuid::Uuid::new_v4().simple()
    )));
    let results_path = named.unwrap_or_else(|| {
        // `--list` runs nothing and takes no report flags.
        if !args.contains(&"--list") {
            command.arg("--results").arg(&own.0);
        }
        own.0.clone()
    });
    // Every setting the runner reads from the environment, so that the
    // caller's own cannot change a test's run.
    for name in [
        "PAYCONF_BASE_URL",
        "PAYCONF_API_KEY",
        "PAYCONF_SHOP_LOGIN",
        "PAYCONF_ACS_DRIVER",
        "PAYCONF_TLS_CA_FILE",
        "PAYCONF_TLS_CLIENT_CERT",
        "PAYCONF_TLS_CLIENT_KEY",
        "PAYCONF_PROXY",
        "PAYCONF_NOTIFICATION_SECRET",
        "PAYCONF_SECOND_SHOP_API_KEY",
        "PAYCONF_SIGNING_KEY",
        // A test run under GitHub Actions neither annotates the job nor
        // writes its summary: the tests that want them set them.
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("payconf runs");
    let results = results_path.exists().then(|| {
        RunRecord::load(&results_path).unwrap_or_else(|e| panic!("the results read back: {e}"))
    });
    RunOutput {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        results,
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

/// `file:line` of the embedded scenarios that satisfy `keep`: the catalogue
/// says which scenarios a run must pass or fail, so no test writes them in.
pub fn scenarios_where(keep: impl Fn(&ScenarioEntry) -> bool) -> BTreeSet<String> {
    Features::embedded()
        .expect("features parse")
        .scenarios()
        .into_iter()
        .filter(|s| keep(s))
        .map(|s| s.location())
        .collect()
}

/// `file:line` of the lightbox's scenarios: a script, which only the
/// browser driver runs, so a run with the form driver sets them aside.
pub fn lightbox_scenarios() -> BTreeSet<String> {
    scenarios_where(|s| s.has_tag("lightbox"))
}

/// `file:line` of the scenarios selected by `@core` that check `requirement`.
pub fn core_scenarios_checking(requirement: &str) -> BTreeSet<String> {
    // Robustness scenarios check only robustness requirements.
    scenarios_where(|s| s.profile.is_some_and(Profile::binds_every_server) && s.checks(requirement))
}

/// Runs `runs` with at most `n` at once, and gives their outputs in the
/// order they finish: a test's own bound on the runs it starts together
/// (each a `payconf run`, a browser run a Chromium too). Between tests, the
/// test runner schedules (`.config/nextest.toml`).
pub async fn at_once<T, F>(n: usize, runs: impl IntoIterator<Item = F>) -> Vec<T>
where
    F: std::future::Future<Output = T>,
{
    use futures_util::StreamExt as _;
    futures_util::stream::iter(runs)
        .buffer_unordered(n)
        .collect()
        .await
}

/// Whether Chromium and ChromeDriver are installed for the browser driver.
/// Where they are not, a test of the browser driver prints why it is
/// skipped and returns; in CI (`CI` set) it fails instead: CI installs them
/// and must run those tests.
pub fn browser_or_skip(test: &str) -> bool {
    browser_programs_or_skip(test, None).is_some()
}

/// The browser's programs, as a run finds them, with `chromium` (when
/// given) named in place of what PATH and `PAYCONF_CHROMIUM` say; `None`
/// when one is missing, after saying so (in CI a test panics instead).
pub fn browser_programs_or_skip(
    test: &str,
    chromium: Option<&str>,
) -> Option<payconf::runner::chromium::BrowserPrograms> {
    let settings = payconf::runner::chromium::BrowserSettings {
        chromium: chromium.map(str::to_owned),
        ..Default::default()
    };
    let env = |name: &str| {
        (chromium.is_none() || name != "PAYCONF_CHROMIUM")
            .then(|| std::env::var(name).ok())
            .flatten()
    };
    match payconf::runner::chromium::locate(&settings, env) {
        Ok(programs) => Some(programs),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("{test}: CI must run the browser tests, but {why}")
        }
        Err(why) => {
            eprintln!("skipped {test}: {why}");
            None
        }
    }
}

/// The run judged nothing against the target: exit code 2, no scenario
/// failed, exactly one an error, which says `words`.
pub fn assert_one_error_saying(output: &RunOutput, words: &str) {
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(output.failed().is_empty(), "{}", output.stdout);
    assert_eq!(output.errors().len(), 1, "{}", output.stdout);
    assert!(
        output.says(words),
        "{words:?} not in:\n{}",
        output.messages()
    );
}

/// The run stopped with exit code 2 before any scenario, saying each of
/// `says` on stderr in words, with no Rust `Debug` text.
pub fn assert_stopped(output: &RunOutput, says: &[&str]) {
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    for words in says {
        assert!(
            output.stderr.contains(words),
            "{words:?} not in:\n{}",
            output.stderr
        );
    }
    assert!(
        !output.stdout.contains("scenarios ("),
        "no scenario ran:\n{}",
        output.stdout
    );
    for debug in ["Some(", "Custom {", "kind:"] {
        assert!(
            !output.stderr.contains(debug),
            "Debug text in:\n{}",
            output.stderr
        );
    }
}

/// Runs the scenarios `tags` selects against the target file `target` as a
/// library call in this process, the journeys in `browser` when one is
/// lent ([`InProcess`]).
pub async fn run_in_process(target: &Path, tags: &str, browser: Lent) -> RunOutput {
    InProcess {
        target,
        tags: Some(tags),
        timeout: None,
        browser,
    }
    .run()
    .await
}

/// A run as a library call in this process ([`payconf::runner::run`]):
/// what a test that makes many runs shares, where each `payconf run` would
/// start a process and a Chromium of its own. What the command would print
/// is kept as its standard output, and its exit code is the command's; the
/// run reads this process's variables as the command would (where the
/// browser is, the proxy's).
pub struct InProcess<'a> {
    /// `--target FILE`.
    pub target: &'a Path,
    /// `--tags EXPR`; the command's default (`@core` against a target)
    /// without.
    pub tags: Option<&'a str>,
    /// `--timeout`; the command's default without.
    pub timeout: Option<Duration>,
    /// The browser the run's journeys take their turns in, left running;
    /// a Chromium of the run's own without.
    pub browser: Lent,
}

impl InProcess<'_> {
    /// The run, as the command would have ended it.
    pub async fn run(self) -> RunOutput {
        use payconf::runner::{self, Ran, RunOptions, Scope, Sending, TargetChoice};
        let options = RunOptions {
            scope: Scope {
                tags: self.tags.map(str::to_owned),
                ..Scope::default()
            },
            target: TargetChoice {
                file: Some(self.target.to_path_buf()),
                ..TargetChoice::default()
            },
            sending: Sending {
                timeout: self.timeout.unwrap_or(Sending::default().timeout),
                ..Sending::default()
            },
            environment: runner::options::Environment::of_process(),
            browser: self.browser,
            ..RunOptions::default()
        };
        let printed = Printed::default();
        let ran = async {
            let suite = runner::Suite::load(&options)?;
            let console = runner::Console::new(Box::new(printed.clone())).live(false);
            runner::run(&options, suite, Box::new(console), std::future::pending()).await
        }
        .await;
        let (code, results, stderr) = match ran {
            Ok(Ran::Judged(outcome)) => (
                outcome.verdict().exit_code(),
                Some(outcome.record),
                String::new(),
            ),
            Ok(Ran::NothingToRerun) => (0, None, String::new()),
            Err(error) => (2, None, format!("payconf: {error}\n")),
        };
        RunOutput {
            code: Some(i32::from(code)),
            stdout: printed.text(),
            stderr,
            results,
        }
    }
}

/// The browser a run would start, with the default settings.
pub async fn start_chromium() -> Chromium {
    use payconf::runner::chromium::{BrowserSettings, locate};
    let settings = BrowserSettings::default();
    let programs = locate(&settings, |name| std::env::var(name).ok()).expect("browser found");
    Chromium::start(&programs, &settings, Duration::from_secs(10))
        .await
        .expect("the browser starts")
}

/// The browser a run is lent, if any: its journeys take their turns in it.
pub type Lent = Option<Arc<Chromium>>;

/// The browsers a test lends its browser runs, handed out in turn: a
/// Chromium started for each run cost a CPU-second and a half, and a run's
/// journeys take their turns in the one it is lent as they would in its
/// own. One for each browser run the test makes at once.
pub struct LentBrowsers {
    browsers: Vec<Arc<Chromium>>,
    handed: AtomicUsize,
}

impl LentBrowsers {
    /// `n` browsers, or none where `available` is false (the browser is
    /// not installed, and the test judges the form driver alone).
    pub async fn start(n: usize, available: bool) -> Self {
        let mut browsers = Vec::new();
        if available {
            for _ in 0..n {
                browsers.push(Arc::new(start_chromium().await));
            }
        }
        Self {
            browsers,
            handed: AtomicUsize::new(0),
        }
    }

    /// The next browser in turn; none if none was started.
    pub fn next(&self) -> Lent {
        let handed = self.handed.fetch_add(1, Ordering::Relaxed);
        let chosen = self.browsers.get(handed % self.browsers.len().max(1))?;
        Some(Arc::clone(chosen))
    }

    /// Closes every browser: each run lent one has ended by now.
    pub async fn close(self) {
        for browser in &self.browsers {
            browser.close().await;
        }
    }
}

/// What a run in this process printed: the console's output, kept.
#[derive(Clone, Default)]
struct Printed(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Printed {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("the printed text")).into_owned()
    }
}

impl std::io::Write for Printed {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("the printed text")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
