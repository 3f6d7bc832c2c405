//! The headless Chromium the browser driver drives, through ChromeDriver
//! (the W3C WebDriver protocol, with fantoccini as the client).
//!
//! A run starts one browser, before its first scenario, and closes it when
//! it ends, also when it is interrupted. ChromeDriver is started on a free
//! loopback port, taking commands only under a path of 256 random bits (a
//! page on a loopback origin can reach the port, and ChromeDriver accepts
//! every loopback `Origin`), as the leader of a process group that holds
//! every process of the browser ([`processes`]); it starts Chromium over a
//! pipe, so Chromium opens no port and exits with ChromeDriver. Chromium
//! runs in its sandbox, as `nobody` when payconf runs as root, or says why
//! it cannot ([`Isolation`]), with a fresh profile in a temporary folder that
//! is removed once no process of the browser is left. Scenarios that go
//! through the issuer page take turns with the browser, each for the whole
//! scenario ([`Chromium::reserve`]): the wait falls before the scenario
//! creates its payment, so no token ages while its scenario queues. Each
//! journey starts in one window, on a blank page with no cookies and an
//! empty performance log ([`Chromium::turn`]); the windows its pages opened
//! are closed when it ends ([`Turn::one_window`]), and its pages are ended
//! when the browser holds more memory than its bound.
//!
//! Where the programs are: `acs.browser.chromium` and
//! `acs.browser.chromedriver` in the target file, overridden by
//! `PAYCONF_CHROMIUM` and `PAYCONF_CHROMEDRIVER`; a bare name is looked up
//! on `PATH`, and with no setting the usual names are (`chromium`,
//! `chromium-browser`, `google-chrome`, `google-chrome-stable`;
//! `chromedriver`).

use std::{
    path::PathBuf,
    process::Stdio,
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, BufReader},
    process::{Child, Command},
    sync::Mutex,
};

mod command;
mod isolation;
mod processes;
mod programs;
mod turn;

pub use crate::runner::target_file::BrowserSettings;
pub use command::{CommandError, first_line};
pub use isolation::Isolation;
pub use processes::MemoryWatch;
use processes::ProcessGroup;
pub use programs::{BrowserError, BrowserPrograms, ChromiumKind, locate};
pub use turn::{COMMAND_BOUND, Reservation, Turn};

/// The size of every window the browser opens, in CSS pixels: a journey's
/// pages are laid out in it (the whole browser's viewport is a little
/// shorter than its window, the headless shell's the window), and a
/// screenshot is its width and at most four of its heights.
pub const WINDOW: Window = Window {
    width: 1280,
    height: 1024,
};

/// A window's size, in CSS pixels.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub width: u32,
    pub height: u32,
}

/// How long ChromeDriver and the browser have to start, each try.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How often payconf tries to start the browser before it gives up.
const START_ATTEMPTS: usize = 3;

/// A running headless Chromium and the ChromeDriver that drives it.
#[derive(Debug)]
pub struct Chromium {
    client: Client,
    driver: std::sync::Mutex<Option<Child>>,
    /// ChromeDriver's process group: the browser's every process.
    group: Option<ProcessGroup>,
    /// ChromeDriver's loopback port (its commands are under a secret path).
    port: u16,
    profile: PathBuf,
    /// One scenario at a time: a WebDriver session has one current page.
    turn: std::sync::Arc<Mutex<()>>,
    closed: AtomicBool,
    /// Why the browser is no longer used, once it stopped answering.
    stalled: std::sync::Mutex<Option<String>>,
    /// The most memory the browser's processes may hold together, in bytes.
    memory_limit: u64,
    /// How the browser is walled off from the machine.
    isolation: Isolation,
    /// The browser's version, as it reports it.
    pub version: String,
}

impl Chromium {
    /// Starts ChromeDriver on a free loopback port and a browser session.
    ///
    /// Chromium now and then fails its first start on a busy or cold
    /// machine ("session not created"): a start that got as far as
    /// ChromeDriver is tried again from scratch, up to [`START_ATTEMPTS`]
    /// times, and the error names every try's reason. Each way of
    /// [`Isolation`] is tried in turn, the sandbox first.
    pub async fn start(
        programs: &BrowserPrograms,
        settings: &BrowserSettings,
        page_load: Duration,
    ) -> Result<Self, BrowserError> {
        let mut reasons: Vec<String> = Vec::new();
        for mut isolation in Isolation::choices() {
            // Going without the sandbox says what the sandboxed start met.
            if let (Isolation::Unsandboxed(why), Some(met)) = (&mut isolation, reasons.last()) {
                why.push_str(&format!(": {met}"));
            }
            if let Some(why) = isolation.unavailable(&programs.chromium).await {
                reasons.push(why);
                continue;
            }
            for _ in 0..START_ATTEMPTS {
                match Self::start_once(programs, settings, page_load, &isolation).await {
                    Ok(browser) => return Ok(browser),
                    Err(Attempt::Final(error)) => return Err(error),
                    Err(Attempt::Again(reason)) => reasons.push(reason),
                }
            }
        }
        Err(BrowserError::Start(tries_said(&reasons)))
    }

    async fn start_once(
        programs: &BrowserPrograms,
        settings: &BrowserSettings,
        page_load: Duration,
        isolation: &Isolation,
    ) -> Result<Self, Attempt> {
        let start = |e: &dyn std::fmt::Display| Attempt::Again(e.to_string());
        let profile = std::env::temp_dir().join(format!(
            "payconf-chromium-{}",
            uuid::Uuid::new_v4().simple()
        ));
        // Every command goes under an unguessable path: ChromeDriver answers
        // any request whose Origin is a loopback address, and a target on
        // localhost serves its pages from one. Without the path a page (or
        // another local process) finds the port and gets "unhandled request".
        let control = format!(
            "/payconf-{}{}/",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let mut command = driver_command(programs, &control);
        isolation.prepare(&mut command, &profile).map_err(|e| {
            Attempt::Final(BrowserError::Start(format!(
                "cannot prepare the browser's folder {}: {e}",
                profile.display()
            )))
        })?;
        let binary = match programs.kind {
            ChromiumKind::Browser => programs.chromium.clone(),
            ChromiumKind::HeadlessShell => shell_launcher(&programs.chromium, &profile, isolation)
                .map_err(|e| {
                    let _ = std::fs::remove_dir_all(&profile);
                    Attempt::Final(BrowserError::Start(e))
                })?,
        };
        let mut driver = command.spawn().map_err(|e| {
            let _ = std::fs::remove_dir_all(&profile);
            Attempt::Final(BrowserError::Start(format!(
                "cannot run {}: {e}",
                programs.chromedriver.display()
            )))
        })?;
        let group = driver.id().and_then(ProcessGroup::led_by);
        let stdout = driver.stdout.take().expect("stdout was piped");
        let capabilities = capabilities(&binary, settings, page_load, isolation, &profile);
        let started = session(programs, stdout, &control, capabilities);
        let (client, port) = match started.await {
            Ok(started) => started,
            Err(reason) => {
                end_processes(&mut driver, group).await;
                let _ = std::fs::remove_dir_all(&profile);
                return Err(start(&reason));
            }
        };
        let version = client
            .capabilities()
            .and_then(|c| c.get("browserVersion"))
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned();
        Ok(Self {
            client,
            driver: std::sync::Mutex::new(Some(driver)),
            group,
            port,
            profile,
            turn: std::sync::Arc::new(Mutex::new(())),
            closed: AtomicBool::new(false),
            stalled: std::sync::Mutex::new(None),
            memory_limit: settings.memory_limit(),
            isolation: isolation.clone(),
            version,
        })
    }

    /// Records that the browser stopped answering: a WebDriver command left
    /// unanswered holds up every command after it, so no later journey is
    /// tried with it.
    pub fn stall(&self, what: &str) {
        let mut stalled = self.stalled.lock().unwrap_or_else(|e| e.into_inner());
        stalled.get_or_insert_with(|| what.to_owned());
    }

    /// Why the browser is no longer used, if it stalled.
    pub fn stalled(&self) -> Option<String> {
        self.stalled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits until the browser is free and holds it for one scenario.
    pub async fn reserve(&self) -> Reservation {
        Reservation {
            _guard: std::sync::Arc::clone(&self.turn).lock_owned().await,
        }
    }

    /// Uses the browser under a reservation, reset: a blank page, no
    /// cookies, an empty performance log.
    pub async fn turn(&self, reservation: Reservation) -> Result<Turn<'_>, CommandError> {
        if let Some(why) = self.stalled() {
            return Err(CommandError::Stalled(why));
        }
        let turn = Turn {
            client: &self.client,
            reservation,
        };
        // A browser short of CPU answers late now and then: tried again,
        // each try bounded; only a browser that never answers is given up.
        let mut attempt = 1;
        loop {
            let reset = tokio::time::timeout(COMMAND_BOUND, turn.reset())
                .await
                .map_err(|_| None)
                .and_then(|reset| reset.map_err(Some));
            match reset {
                Ok(()) => return Ok(turn),
                Err(_) if attempt < RESET_ATTEMPTS => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(Some(e)) => return Err(e),
                Err(None) => {
                    let unanswered = CommandError::Unanswered {
                        what: "resetting the page",
                        tries: RESET_ATTEMPTS,
                        seconds: COMMAND_BOUND.as_secs(),
                    };
                    self.stall(&unanswered.to_string());
                    return Err(unanswered);
                }
            }
        }
    }

    /// Ends the session, then every process of the browser, and only when
    /// none is left removes the profile (a browser still shutting down
    /// recreates files in it); safe to call more than once.
    pub async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if self.stalled().is_none() {
            let _ = tokio::time::timeout(Duration::from_secs(5), self.client.clone().close()).await;
        }
        let driver = self.driver.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut driver) = driver {
            end_processes(&mut driver, self.group).await;
        }
        remove_profile(&self.profile).await;
    }

    /// Where ChromeDriver listens, without the secret path under which it
    /// takes commands: the port a page or another process could find.
    pub fn driver_port(&self) -> u16 {
        self.port
    }

    /// How the browser is walled off from the machine, in words.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// The most memory the browser's processes may hold together.
    pub fn memory_limit(&self) -> u64 {
        self.memory_limit
    }

    /// A watch on the browser's memory, where the machine lets it be
    /// measured.
    pub fn memory_watch(&self) -> Option<MemoryWatch> {
        let group = self.group?;
        group.resident_bytes()?;
        Some(MemoryWatch::new(group, self.memory_limit))
    }

    /// The profile folder, while the browser runs.
    pub fn profile(&self) -> &std::path::Path {
        &self.profile
    }
}

/// Kills ChromeDriver and every process of its group, and reaps it.
async fn end_processes(driver: &mut Child, group: Option<ProcessGroup>) {
    let _ = driver.start_kill();
    match group {
        Some(group) => {
            let (_, ended) = tokio::join!(
                tokio::time::timeout(PROCESSES_BOUND, driver.wait()),
                group.end(PROCESSES_BOUND)
            );
            if !ended {
                tracing::warn!(
                    "a process of the browser outlived {} s after it was killed",
                    PROCESSES_BOUND.as_secs()
                );
            }
        }
        None => {
            let _ = tokio::time::timeout(PROCESSES_BOUND, driver.wait()).await;
        }
    }
}

/// Removes the profile folder, again while something (a process the kill
/// has not reached yet) puts files back.
async fn remove_profile(profile: &std::path::Path) {
    for _ in 0..20 {
        match std::fs::remove_dir_all(profile) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => return,
        }
    }
    tracing::warn!(
        "the browser's folder {} could not be removed",
        profile.display()
    );
}

/// How long the browser's processes have to end once killed.
const PROCESSES_BOUND: Duration = Duration::from_secs(10);

/// ChromeDriver on a free loopback port, every command under `control`,
/// the leader of a process group of its own (the browser is every process
/// in it), ended when dropped.
fn driver_command(programs: &BrowserPrograms, control: &str) -> Command {
    let mut command = Command::new(&programs.chromedriver);
    command
        .arg("--port=0")
        .arg(format!("--url-base={control}"))
        // Loopback peers only (ChromeDriver's default, said outright).
        .arg("--allowed-ips=")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        // The leader of a group of its own: the browser is every process in it.
        .process_group(0)
        .kill_on_drop(true);
    command
}

/// The browser session ChromeDriver opens once it says its port (each
/// within [`START_TIMEOUT`]), with the port; else why not.
async fn session(
    programs: &BrowserPrograms,
    stdout: tokio::process::ChildStdout,
    control: &str,
    capabilities: serde_json::Map<String, Value>,
) -> Result<(Client, u16), String> {
    let port = tokio::time::timeout(START_TIMEOUT, driver_port(stdout))
        .await
        .map_err(|_| {
            format!(
                "{} did not say which port it listens on within {} s",
                programs.chromedriver.display(),
                START_TIMEOUT.as_secs()
            )
        })?
        .map_err(|unlistening| unlistening.to_string())?;
    let address = format!("http://127.0.0.1:{port}{control}");
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(capabilities);
    match tokio::time::timeout(START_TIMEOUT, builder.connect(&address)).await {
        Ok(Ok(client)) => Ok((client, port)),
        Ok(Err(e)) => Err(format!(
            "{} did not start {}: {}",
            programs.chromedriver.display(),
            programs.chromium.display(),
            first_line(&e.to_string())
        )),
        Err(_) => Err(format!(
            "no browser session within {} s",
            START_TIMEOUT.as_secs()
        )),
    }
}

/// The program ChromeDriver starts for the headless shell, in the
/// browser's own folder: the shell with ChromeDriver's arguments and a
/// blank page last. Driven by a debugger, the shell opens no page unless
/// told one, and ChromeDriver waits for a page to attach to; its arguments
/// are all switches (it puts `--` before any word it is given), so the page
/// can only be added by the program it starts. `exec`: no process of its
/// own is left between ChromeDriver and the shell.
fn shell_launcher(
    shell: &std::path::Path,
    profile: &std::path::Path,
    isolation: &Isolation,
) -> Result<std::path::PathBuf, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if mounted_noexec(profile) {
        return Err(format!(
            "the headless shell ({}) is started by a launcher in {}, and that folder's file \
             system runs no programs (mounted noexec): set TMPDIR to a folder that can, or \
             name the whole browser with acs.browser.chromium or PAYCONF_CHROMIUM",
            shell.display(),
            profile.display()
        ));
    }
    let launcher = profile.join("payconf-headless-shell");
    let quoted = format!("'{}'", shell.display().to_string().replace('\'', r"'\''"));
    let script = format!("#!/bin/sh\nexec {quoted} \"$@\" about:blank\n");
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .open(&launcher)
        .and_then(|mut file| file.write_all(script.as_bytes()));
    let cannot = |e: &dyn std::fmt::Display| {
        format!(
            "cannot write the headless shell's launcher {}: {e}",
            launcher.display()
        )
    };
    written.map_err(|e| cannot(&e))?;
    if let Isolation::SandboxedAs(account) = isolation {
        std::os::unix::fs::chown(&launcher, Some(account.uid), Some(account.gid))
            .map_err(|e| cannot(&e))?;
    }
    Ok(launcher)
}

/// Whether the file system holding `path` refuses to run programs.
fn mounted_noexec(path: &std::path::Path) -> bool {
    use nix::sys::statvfs::{FsFlags, statvfs};
    statvfs(path).is_ok_and(|stats| stats.flags().contains(FsFlags::ST_NOEXEC))
}

/// What payconf asks of ChromeDriver for a session.
fn capabilities(
    binary: &std::path::Path,
    settings: &BrowserSettings,
    page_load: Duration,
    isolation: &Isolation,
    profile: &std::path::Path,
) -> serde_json::Map<String, Value> {
    let mut args = vec![
        "--headless".to_owned(),
        "--disable-gpu".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-quic".to_owned(),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--password-store=basic".to_owned(),
        format!("--window-size={},{}", WINDOW.width, WINDOW.height),
        // Scenarios run at once, each journey in a window of its own, and
        // only one window is in front: a page in a window behind it would
        // have its timers slowed to once a second and its renderer put in
        // the background, so how fast a script builds a form (a lightbox's
        // overlay, a challenge drawn after the page loads) would depend on
        // which window had the focus. Every window runs as the one in front.
        "--disable-background-timer-throttling".to_owned(),
        "--disable-backgrounding-occluded-windows".to_owned(),
        "--disable-renderer-backgrounding".to_owned(),
        // Chromium exits when ChromeDriver does, and opens no port.
        "--remote-debugging-pipe".to_owned(),
        format!("--user-data-dir={}", profile.display()),
    ];
    args.extend(isolation.chromium_args());
    args.extend(settings.args.iter().cloned());
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": binary,
            "args": args,
            // ChromeDriver turns the popup blocker off by default: a page
            // opens windows only on a click.
            "excludeSwitches": ["disable-popup-blocking"],
        }),
    );
    capabilities.insert(
        "goog:loggingPrefs".to_owned(),
        json!({"performance": "ALL"}),
    );
    capabilities.insert("unhandledPromptBehavior".to_owned(), json!("accept"));
    // Commands never wait on a navigation: the driver watches pages load.
    capabilities.insert("pageLoadStrategy".to_owned(), json!("none"));
    capabilities.insert(
        "timeouts".to_owned(),
        json!({
            "implicit": 0,
            "pageLoad": u64::try_from(page_load.as_millis()).unwrap_or(u64::MAX),
            "script": 5_000,
        }),
    );
    capabilities
}

/// How one try at starting the browser failed.
enum Attempt {
    /// Worth another try, for this reason.
    Again(String),
    /// Not worth another: the programs cannot run at all.
    Final(BrowserError),
}

/// Every try's reason, once each, in the order they came.
fn tries_said(reasons: &[String]) -> String {
    let mut said: Vec<&str> = Vec::new();
    for reason in reasons {
        if !said.contains(&reason.as_str()) {
            said.push(reason);
        }
    }
    format!("{} tries, {}", reasons.len(), said.join("; then "))
}

/// Reads ChromeDriver's first lines until it names its port, then keeps
/// reading its output so that it never blocks on a full pipe.
async fn driver_port(stdout: tokio::process::ChildStdout) -> Result<u16, Unlistening> {
    let mut lines = BufReader::new(stdout).lines();
    while let Some(line) = lines.next_line().await? {
        if let Some(rest) = line.split("started successfully on port ").nth(1) {
            let Ok(port) = rest.trim().trim_end_matches('.').parse() else {
                return Err(Unlistening::Unread(line));
            };
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Ok(port);
        }
    }
    Err(Unlistening::Exited)
}

/// Why ChromeDriver named no port to send commands to.
#[derive(Debug, thiserror::Error)]
enum Unlistening {
    /// Its output could not be read.
    #[error("ChromeDriver's output could not be read: {0}")]
    Output(#[from] std::io::Error),
    /// It named a port payconf could not read.
    #[error("ChromeDriver said {0:?}")]
    Unread(String),
    /// It ended before it named one.
    #[error("ChromeDriver exited before it listened")]
    Exited,
}

/// How often a journey tries to reset the browser before it gives up.
const RESET_ATTEMPTS: u32 = 3;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::{Isolation, mounted_noexec, shell_launcher};

    /// Where the inner half of the noexec test finds its folder.
    const NOEXEC_FOLDER: &str = "PAYCONF_TEST_NOEXEC_FOLDER";

    const SHELL: &str = "/usr/bin/chromium-headless-shell";

    fn folder(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("payconf-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a folder");
        folder
    }

    /// In a folder that runs programs, the launcher is written, the
    /// account's alone, and starts the shell on the blank page.
    #[test]
    fn the_launcher_starts_the_shell_on_the_blank_page() {
        use std::os::unix::fs::PermissionsExt;
        let folder = folder("launcher");
        assert!(!mounted_noexec(&folder));
        let launcher =
            shell_launcher(Path::new(SHELL), &folder, &Isolation::Sandboxed).expect("a launcher");
        let script = std::fs::read_to_string(&launcher).expect("the launcher");
        let mode = std::fs::metadata(&launcher)
            .expect("its mode")
            .permissions()
            .mode();
        std::fs::remove_dir_all(&folder).ok();
        assert_eq!(
            script,
            format!("#!/bin/sh\nexec '{SHELL}' \"$@\" about:blank\n")
        );
        assert_eq!(mode & 0o777, 0o700);
    }

    /// The launcher's folder on a file system mounted noexec: refused by
    /// name, with the remedy, and nothing written. The test runs itself
    /// again in a user and mount namespace of its own (`unshare -rm`) with
    /// a tmpfs mounted noexec on the folder, where the inner half checks.
    #[test]
    fn a_launcher_folder_that_runs_no_programs_is_refused_with_the_remedy() {
        if let Some(folder) = std::env::var_os(NOEXEC_FOLDER) {
            let folder = PathBuf::from(folder);
            assert!(mounted_noexec(&folder), "the folder is mounted noexec");
            let refused = shell_launcher(Path::new(SHELL), &folder, &Isolation::Sandboxed)
                .expect_err("refused");
            assert!(
                refused.contains("mounted noexec")
                    && refused.contains("set TMPDIR")
                    && refused.contains(SHELL),
                "{refused}"
            );
            assert!(!folder.join("payconf-headless-shell").exists());
            return;
        }
        let folder = folder("noexec");
        let test = "runner::buyer::browser::chromium::tests::a_launcher_folder_that_runs_no_programs_is_refused_with_the_remedy";
        let ran = Command::new("unshare")
            .args(["-rm", "sh", "-c"])
            .arg(r#"mount -t tmpfs -o noexec payconf "$1" && exec "$2" --exact "$3" --nocapture"#)
            .arg("sh")
            .arg(&folder)
            .arg(std::env::current_exe().expect("this test binary"))
            .arg(test)
            .env(NOEXEC_FOLDER, &folder)
            .output()
            .expect("unshare runs");
        std::fs::remove_dir_all(&folder).ok();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        );
        assert!(
            ran.status.success() && said.contains("1 passed"),
            "the inner half: {said}"
        );
    }
}
