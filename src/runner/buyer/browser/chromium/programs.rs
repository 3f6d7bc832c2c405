//! Where Chromium and ChromeDriver are: the target file's settings, then the
//! environment, then `PATH`; and what is said when they are not there.

use std::path::{Path, PathBuf};

use crate::runner::target_file::BrowserSettings;

/// Names Chromium is installed under, tried in order: the whole browser
/// first, then its headless shell. The shell (the same Blink, V8 and
/// network stack without the browser's window layer, Playwright's default
/// for headless runs) takes a third of the CPU to start and about half of a
/// journey's, measured; but four runs at once of every issuer page style
/// left a framed page's screenshot unanswered in 4 of 36 runs with it and
/// in none of 4 with the whole browser, so it is driven where it is named
/// (`acs.browser.chromium`, `PAYCONF_CHROMIUM`) or the only one installed.
const CHROMIUM_NAMES: [&str; 6] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chromium-headless-shell",
    "chrome-headless-shell",
];

/// How to install the browser, for the message that says it is missing.
pub const INSTALL_HINT: &str = "on Debian or Ubuntu: apt-get install chromium chromium-driver";

/// A browser that could not be found or started.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// A program is not installed where payconf looked.
    #[error(
        "acs.driver = \"browser\" needs Chromium and ChromeDriver, and {what} was not found \
         ({looked}). Install them ({INSTALL_HINT}), or name the program with {setting} \
         in the target file or {variable} in the environment"
    )]
    NotFound {
        /// `Chromium` or `ChromeDriver`.
        what: &'static str,
        /// Where payconf looked.
        looked: String,
        /// The target-file setting.
        setting: &'static str,
        /// The environment variable that names it, for the message's remedy.
        variable: &'static str,
    },
    /// A program was found but did not start.
    #[error("the browser did not start: {0}")]
    Start(String),
}

/// The programs to run, found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserPrograms {
    /// Chromium.
    pub chromium: PathBuf,
    /// Which Chromium it is.
    pub kind: ChromiumKind,
    /// ChromeDriver.
    pub chromedriver: PathBuf,
}

/// The two Chromiums ChromeDriver drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChromiumKind {
    /// The whole browser, run `--headless`.
    Browser,
    /// `chromium-headless-shell` (Chrome for Testing's
    /// `chrome-headless-shell`): headless only. Driven, it opens no page of
    /// its own (ChromeDriver waits for one), so it is started with one
    /// (`Chromium::start`).
    HeadlessShell,
}

impl ChromiumKind {
    /// Which Chromium the program at `path` is, by its name.
    pub fn of(path: &Path) -> Self {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.contains("headless-shell") || name.contains("headless_shell") {
            Self::HeadlessShell
        } else {
            Self::Browser
        }
    }
}

/// Finds Chromium and ChromeDriver: settings, then the environment, then `PATH`.
pub fn locate(
    settings: &BrowserSettings,
    env: impl Fn(&str) -> Option<String>,
) -> Result<BrowserPrograms, BrowserError> {
    let path = env("PATH").unwrap_or_default();
    let find = |what: &'static str,
                setting: &'static str,
                variable: &'static str,
                configured: &Option<String>,
                names: &[&str]| {
        let chosen = env(variable)
            .filter(|v| !v.is_empty())
            .or(configured.clone());
        let candidates: Vec<String> = match &chosen {
            Some(name) => vec![name.clone()],
            None => names.iter().map(|n| (*n).to_owned()).collect(),
        };
        for candidate in &candidates {
            if let Some(found) = resolve(candidate, &path) {
                return Ok(found);
            }
        }
        let looked = match chosen {
            Some(name) if name.contains('/') => format!("{name} is not a program"),
            Some(name) => format!("{name} is not on PATH"),
            None => format!("none of {} is on PATH", candidates.join(", ")),
        };
        Err(BrowserError::NotFound {
            what,
            looked,
            setting,
            variable,
        })
    };
    let chromedriver = find(
        "ChromeDriver",
        "acs.browser.chromedriver",
        "PAYCONF_CHROMEDRIVER",
        &settings.chromedriver,
        &["chromedriver"],
    )?;
    let chromium = find(
        "Chromium",
        "acs.browser.chromium",
        "PAYCONF_CHROMIUM",
        &settings.chromium,
        &CHROMIUM_NAMES,
    )?;
    Ok(BrowserPrograms {
        kind: ChromiumKind::of(&chromium),
        chromium,
        chromedriver,
    })
}

/// A path (with a `/`) as it is, or a name looked up on `PATH`; only a file counts.
fn resolve(name: &str, path: &str) -> Option<PathBuf> {
    let is_program = |p: &Path| p.is_file();
    if name.contains('/') {
        let p = PathBuf::from(name);
        return is_program(&p).then_some(p);
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|p| is_program(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_browser_names_what_to_install_and_where_to_set_it() {
        let err = locate(&BrowserSettings::default(), |name| {
            (name == "PATH").then(|| "/nonexistent".to_owned())
        })
        .expect_err("nothing on PATH");
        let message = err.to_string();
        assert!(message.contains("ChromeDriver was not found"), "{message}");
        assert!(
            message.contains("apt-get install chromium chromium-driver"),
            "{message}"
        );
        assert!(message.contains("PAYCONF_CHROMEDRIVER"), "{message}");
    }

    #[test]
    fn the_environment_wins_over_the_target_file() {
        let settings = BrowserSettings {
            chromedriver: Some("/bin/sh".to_owned()),
            chromium: Some("/nonexistent/chromium".to_owned()),
            args: Vec::new(),
            memory_mb: None,
        };
        let err = locate(&settings, |name| {
            (name == "PAYCONF_CHROMEDRIVER").then(|| "/nonexistent/chromedriver".to_owned())
        })
        .expect_err("the environment's chromedriver does not exist");
        assert!(
            err.to_string()
                .contains("/nonexistent/chromedriver is not a program"),
            "{err}"
        );
        let found = locate(
            &BrowserSettings {
                chromium: Some("/bin/sh".to_owned()),
                ..settings
            },
            |_| None,
        )
        .expect("both are files");
        assert_eq!(found.chromedriver, PathBuf::from("/bin/sh"));
        assert_eq!(found.kind, ChromiumKind::Browser);
    }

    #[test]
    fn the_headless_shell_is_found_after_the_whole_browser_and_known_by_its_name() {
        let dir = std::env::temp_dir().join(format!("payconf-programs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        for name in ["chromedriver", "chromium", "chromium-headless-shell"] {
            std::fs::write(dir.join(name), "").expect("a program");
        }
        let path = dir.display().to_string();
        let on_path = |name: &str| (name == "PATH").then(|| path.clone());
        let found = locate(&BrowserSettings::default(), on_path).expect("all three are there");
        assert_eq!(found.chromium, dir.join("chromium"));
        assert_eq!(found.kind, ChromiumKind::Browser);
        std::fs::remove_file(dir.join("chromium")).expect("removed");
        let found = locate(&BrowserSettings::default(), on_path).expect("the shell is there");
        assert_eq!(found.chromium, dir.join("chromium-headless-shell"));
        assert_eq!(found.kind, ChromiumKind::HeadlessShell);
        let _ = std::fs::remove_dir_all(&dir);
        for (name, kind) in [
            (
                "/opt/chrome-headless-shell-linux64/chrome-headless-shell",
                ChromiumKind::HeadlessShell,
            ),
            (
                "/usr/lib/chromium/chromium-headless-shell",
                ChromiumKind::HeadlessShell,
            ),
            ("/usr/bin/google-chrome-stable", ChromiumKind::Browser),
        ] {
            assert_eq!(ChromiumKind::of(Path::new(name)), kind, "{name}");
        }
    }
}
