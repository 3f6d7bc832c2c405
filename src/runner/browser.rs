//! The browser of the browser driver, for a run that needs it.

use std::{sync::Arc, time::Duration};

use payconf_spec::features::ScenarioEntry;

use super::{needs::drives_buyer, not_run::NotRun};
use crate::runner::{
    buyer::browser::chromium::{self, Chromium},
    exchange::Limits,
    options::Environment,
    target_file::{AcsDriver, TargetConfig},
    watch::{Notice, Watch},
};

/// The browser of the browser driver, when a selected scenario drives the
/// buyer with it (through the issuer page, or to the page a redirect
/// address leads to): the one the caller `lent`, or one started for the
/// run, once.
pub(super) async fn start_browser(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
    limits: Limits,
    environment: &Environment,
    lent: Option<&Arc<Chromium>>,
    watch: &mut dyn Watch,
) -> Result<Option<RunBrowser>, NotRun> {
    let needed =
        target.acs.driver == AcsDriver::Browser && selected.iter().any(|s| drives_buyer(&s.tags));
    if !needed {
        return Ok(None);
    }
    let (browser, program, lent) = match lent {
        Some(browser) => (Arc::clone(browser), "lent by the caller".to_owned(), true),
        None => {
            let programs = chromium::locate(&target.acs.browser, |name| environment.get(name))?;
            let browser = Chromium::start(
                &programs,
                &target.acs.browser,
                limits.timeout.max(Duration::from_secs(10)),
            )
            .await?;
            (
                Arc::new(browser),
                programs.chromium.display().to_string(),
                false,
            )
        }
    };
    watch.notice(&Notice::Browser {
        version: browser.version.to_string(),
        program,
        isolation: browser.isolation().said().to_string(),
        memory_mib: browser.memory_limit() / (1024 * 1024),
    });
    Ok(Some(RunBrowser { browser, lent }))
}

/// The browser a run's journeys take their turns in, and whether the
/// caller lent it (then the run leaves it running).
pub(super) struct RunBrowser {
    pub browser: Arc<Chromium>,
    pub lent: bool,
}
