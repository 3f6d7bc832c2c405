//! What a run tells as it goes, besides the outcome it returns: what it
//! aimed at and started ([`Notice`]), each scenario as it finishes, and
//! the end. The run itself prints nothing; whoever calls it watches: the
//! command line's console prints (`payconf run`), a test keeps or ignores.

use std::fmt;

use crate::runner::result::{RunReport, ScenarioResult, recorder::Listener};

/// Watches a run: told of its notices, then (as cucumber's writer's
/// listener, [`Listener`]) of each scenario and of the end.
pub trait Watch: Listener {
    /// What the run aimed at or started, as it happens.
    fn notice(&mut self, notice: &Notice);
    /// The scenarios about to run and those set aside, once those set
    /// aside are told and before the first runs.
    fn starting(&mut self, scenarios: usize);
}

/// Watches nothing: a run whose caller reads only its outcome.
#[derive(Debug, Default)]
pub struct Unwatched;

impl Listener for Unwatched {
    fn scenario(&mut self, _: &ScenarioResult, _: &RunReport) {}
    fn finished(&mut self, _: &RunReport) {}
}

impl Watch for Unwatched {
    fn notice(&mut self, _: &Notice) {}
    fn starting(&mut self, _: usize) {}
}

/// What a run tells before its scenarios: where it aims and what it started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The embedded reference implementation, started at `base_url`.
    Embedded {
        /// Where it listens.
        base_url: String,
    },
    /// The target of the user's, as shown (secrets masked).
    Target(String),
    /// The proxy the target is reached through, described.
    Proxy(String),
    /// A production target: why it is one, and the scenarios left out.
    Production {
        /// Why the target is taken for production.
        why: String,
        /// The scenarios left out, as `file:line  name`.
        left_out: Vec<String>,
    },
    /// A rerun of an earlier run's failures.
    Rerun {
        /// The scenarios run again.
        again: usize,
        /// The earlier run's failed or erred scenarios.
        failures: usize,
        /// The earlier run's results file.
        path: String,
    },
    /// The seed of the generated inputs.
    Seed(u64),
    /// The browser started for the browser driver.
    Browser {
        /// Chromium's version.
        version: String,
        /// The program started.
        program: String,
        /// How it is isolated, in words.
        isolation: String,
        /// Each page's memory bound, in MiB.
        memory_mib: u64,
    },
    /// The listener of the target's notifications, started.
    Notifications {
        /// Where it listens.
        local: String,
        /// The address the target posts to, as shown.
        url: String,
    },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Embedded { base_url } => write!(
                f,
                "target: the reference implementation, in-process at {base_url} (payconf's \
                 own, not your server)"
            ),
            Self::Target(shown) => write!(f, "target: {shown}"),
            Self::Proxy(proxy) => write!(f, "proxy: {proxy}"),
            Self::Production { why, left_out } => {
                write!(
                    f,
                    "production: {why}; only @{} scenarios run",
                    crate::runner::production::PRODUCTION_SAFE
                )?;
                for scenario in left_out {
                    write!(f, "\n  left out (sends card data)  {scenario}")?;
                }
                Ok(())
            }
            Self::Rerun {
                again,
                failures,
                path,
            } => write!(
                f,
                "rerun: {again} of the {failures} scenarios that failed or erred in {path}"
            ),
            Self::Seed(seed) => write!(
                f,
                "seed: {seed} (generated inputs; --seed {seed} replays them)"
            ),
            Self::Browser {
                version,
                program,
                isolation,
                memory_mib,
            } => write!(
                f,
                "browser: Chromium {version} (headless), {program}, {isolation}; pages bounded \
                 to {memory_mib} MiB"
            ),
            Self::Notifications { local, url } => write!(
                f,
                "notifications: payconf listens on {local}; the target posts to {url}"
            ),
        }
    }
}
