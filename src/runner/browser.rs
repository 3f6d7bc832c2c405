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

/// Starts the browser of the browser driver, once for the run, when a
/// selected scenario drives the buyer with it (through the issuer page, or
/// to the page a redirect address leads to).
pub(super) async fn start_browser(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
    limits: Limits,
    environment: &Environment,
    watch: &mut dyn Watch,
) -> Result<Option<Arc<Chromium>>, NotRun> {
    let needed =
        target.acs.driver == AcsDriver::Browser && selected.iter().any(|s| drives_buyer(&s.tags));
    if !needed {
        return Ok(None);
    }
    let programs = chromium::locate(&target.acs.browser, |name| environment.get(name))?;
    let browser = Chromium::start(
        &programs,
        &target.acs.browser,
        limits.timeout.max(Duration::from_secs(10)),
    )
    .await?;
    watch.notice(&Notice::Browser {
        version: browser.version.to_string(),
        program: programs.chromium.display().to_string(),
        isolation: browser.isolation().said().to_string(),
        memory_mib: browser.memory_limit() / (1024 * 1024),
    });
    Ok(Some(Arc::new(browser)))
}
