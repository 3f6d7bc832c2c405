//! Getting the buyer through the issuer's authentication page (the ACS,
//! access control server, of 3-D Secure), as a browser would. The contract
//! says nothing about how that page is built, so nothing about it may fail
//! a target: only where the buyer lands does.
//!
//! Two drivers stand side by side, chosen by `[acs] driver` in the target
//! file; the same file works for both:
//!
//! - [`form`]: HTTP and a real HTML parser ([`html`], [`controls`],
//!   [`relay`]), no script. Fast, and
//!   enough for pages built of plain forms, several pages and frames.
//! - [`browser`]: a real headless Chromium ([`chromium`]), for pages built
//!   with JavaScript, frames from other origins and script redirects.
//!
//! They share the rules of the way ([`navigation`]: bounds on pages and on
//! time, the merchant's pages where the journey ends, the record of pages
//! visited), the rule for which control the buyer presses ([`words`]) and
//! the explicit steps of the target file ([`steps`]). A driver that
//! cannot read a page ends the scenario as an error of the harness, never
//! as a failure of the target.

pub mod browser;
pub mod chromium;
pub mod controls;
pub mod form;
pub mod html;
pub mod navigation;
pub mod parse;
pub mod relay;
pub mod steps;
pub mod unsure;
pub mod words;

use std::collections::BTreeMap;

use url::Url;

use navigation::merchant_pages;
pub use navigation::same_page;

pub use crate::runner::result::{Drove, IssuerEvidence};
use crate::runner::{
    target_file::AcsDriver,
    world::{Failure, PaymentWorld},
};

/// What the buyer does at the issuer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Types the configured values and confirms.
    Authenticate,
    /// Clicks the control that cancels.
    Cancel,
    /// Answers nothing: follows where the pages send the buyer (redirects,
    /// relay pages, script navigations) to the page where they stop. How a
    /// buyer goes from a service's own result page to the merchant's.
    Follow,
}

/// Drives the buyer from the issuer address to wherever they land.
pub async fn authenticate(
    world: &mut PaymentWorld,
    issuer: Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<Url, Failure> {
    let driver = world.ctx.driver.clone();
    drive(world, &driver, issuer, choice, values).await
}

/// Sends the buyer to an address the service gave and follows where its
/// pages send them, answering nothing, to the page where they stop. A
/// merchant's page ends the way at once, unfetched. The browser follows when
/// the browser driver is chosen; otherwise the form driver, which needs no
/// configuration for this.
pub async fn follow(world: &mut PaymentWorld, address: Url) -> Result<Url, Failure> {
    if merchant_pages(world)
        .iter()
        .any(|page| same_page(page, &address))
    {
        return Ok(address);
    }
    let driver = match &world.ctx.driver {
        Driver::None | Driver::Form => Driver::Form,
        Driver::Browser(chromium) => Driver::Browser(chromium.clone()),
    };
    drive(world, &driver, address, Choice::Follow, &BTreeMap::new()).await
}

/// The run's issuer driver, as the run context holds it. Every use of it
/// is an exhaustive `match`: a new driver does not compile until each
/// place says what it does with it.
#[derive(Clone, Debug)]
pub enum Driver {
    /// `acs.driver = "none"`: the scenarios that need a driver are set
    /// aside before the run, and a step that still asks for one fails
    /// saying so.
    None,
    /// HTTP and a real HTML parser, no script ([`form`]).
    Form,
    /// A headless Chromium, started once for the run ([`browser`]).
    Browser(std::sync::Arc<chromium::Chromium>),
}

impl Driver {
    /// The run's driver: the target's choice, with the browser the run
    /// started for it. The browser is started whenever a selected scenario
    /// drives the buyer, so a browser driver without one drives no buyer;
    /// it stands as the form driver.
    pub fn of(choice: AcsDriver, browser: Option<std::sync::Arc<chromium::Chromium>>) -> Self {
        match (choice, browser) {
            (AcsDriver::None, _) => Self::None,
            (AcsDriver::Browser, Some(chromium)) => Self::Browser(chromium),
            (AcsDriver::Form | AcsDriver::Browser, _) => Self::Form,
        }
    }

    /// The browser, for the browser driver.
    pub fn browser(&self) -> Option<&chromium::Chromium> {
        match self {
            Self::Browser(chromium) => Some(chromium),
            Self::None | Self::Form => None,
        }
    }
}

async fn drive(
    world: &mut PaymentWorld,
    driver: &Driver,
    start: Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<Url, Failure> {
    let steps = match choice {
        Choice::Authenticate => world.target().acs.steps.clone(),
        Choice::Cancel | Choice::Follow => Vec::new(),
    };
    match driver {
        Driver::None => Err(Failure::plain(
            "an issuer-authentication driver (acs.driver is none)",
        )),
        Driver::Browser(chromium) => {
            browser::authenticate(world, chromium, start, choice, values, &steps).await
        }
        Driver::Form => drive_form(world, start, choice, values, &steps).await,
    }
}

/// The form driver's journey, its pages kept as the evidence.
async fn drive_form(
    world: &mut PaymentWorld,
    start: Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
    steps: &[steps::IssuerStep],
) -> Result<Url, Failure> {
    let result = form::authenticate(world, start, choice, values, steps).await;
    let pages = match &result {
        Ok((_, visited)) => visited.pages.clone(),
        Err(_) => Vec::new(),
    };
    world.issuer_evidence = Some(IssuerEvidence {
        driver: Drove::Form,
        pages: pages.iter().map(|p| world.ctx.redactor.text(p)).collect(),
        screenshot: None,
        screenshot_left_out: None,
    });
    result.map(|(landing, _)| landing)
}
