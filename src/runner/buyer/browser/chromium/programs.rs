//! Where Chromium and ChromeDriver are: the target file's settings, then the
//! environment, then `PATH`; and what is said when they are not there.

use std::path::{Path, PathBuf};

use crate::runner::target_file::BrowserSettings;

/// Names Chromium is installed under, tried in order.
const CHROMIUM_NAMES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
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
    /// ChromeDriver.
    pub chromedriver: PathBuf,
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
    Ok(BrowserPrograms {
        chromedriver: find(
            "ChromeDriver",
            "acs.browser.chromedriver",
            "PAYCONF_CHROMEDRIVER",
            &settings.chromedriver,
            &["chromedriver"],
        )?,
        chromium: find(
            "Chromium",
            "acs.browser.chromium",
            "PAYCONF_CHROMIUM",
            &settings.chromium,
            &CHROMIUM_NAMES,
        )?,
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
    }
}
