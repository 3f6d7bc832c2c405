//! The browser of the browser driver, for a run that needs it.

use std::{sync::Arc, time::Duration};

use cucumber::{gherkin::tagexpr::TagOperation, tag::Ext as _};

use super::{ISSUER_TAG, NotRun, Suite};
use crate::{
    exchange::Limits,
    issuer::chromium::{self, Chromium},
    target::{AcsDriver, TargetConfig},
};

/// Starts the browser of the browser driver, once for the run, when a
/// selected scenario goes through the issuer page with it.
pub(super) async fn start_browser(
    suite: &Suite,
    target: &TargetConfig,
    tags: &TagOperation,
    limits: Limits,
) -> Result<Option<Arc<Chromium>>, NotRun> {
    let needed = target.acs.driver == AcsDriver::Browser
        && suite
            .features
            .scenarios()
            .iter()
            .any(|s| tags.eval(s.tags.iter()) && s.tags.iter().any(|t| t == ISSUER_TAG));
    if !needed {
        return Ok(None);
    }
    let programs = chromium::locate(&target.acs.browser, |name| std::env::var(name).ok())
        .map_err(NotRun::from)?;
    let browser = Chromium::start(
        &programs,
        &target.acs.browser,
        limits.timeout.max(Duration::from_secs(10)),
    )
    .await
    .map_err(NotRun::from)?;
    println!(
        "browser: Chromium {} (headless), {}",
        browser.version,
        programs.chromium.display()
    );
    Ok(Some(Arc::new(browser)))
}
