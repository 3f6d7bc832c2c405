//! The buyer's journeys, as a browser would make them: through the payment
//! page, the issuer's authentication page (the ACS, access control server,
//! of 3-D Secure) and an alternative method's pages. The contract says
//! nothing about how those pages are built, so nothing about them may fail
//! a target: only where the buyer lands does.
//!
//! Two drivers stand side by side, chosen by `[acs] driver` in the target
//! file; the same file works for both:
//!
//! - [`form`]: HTTP and a real HTML parser ([`form::html`],
//!   [`form::controls`], [`form::relay`]), no script. Fast, and
//!   enough for pages built of plain forms, several pages and frames.
//! - [`browser`]: a real headless Chromium ([`browser::chromium`]), for pages built
//!   with JavaScript, frames from other origins and script redirects.
//!
//! They share the rules of the way ([`navigation`]: bounds on pages and on
//! time, the merchant's pages where the journey ends, the record of pages
//! visited), the rule for which control the buyer presses ([`control_rule`]) and
//! the explicit steps of the target file (`[[acs.steps]]`). Each driver is
//! given a [`Journey`] (the way described, and the run's means to send and
//! redact, never the scenario's state) and brings back a [`Landing`] with
//! its evidence ([`journey`]). A driver that cannot read a page ends the
//! scenario as an error of the harness, never as a failure of the target.

pub mod browser;
pub mod cannot_judge;
pub mod control_rule;
pub mod form;
pub mod journey;
pub mod navigation;

use std::sync::Arc;

pub use journey::{Answer, Choice, Journey, Landing, Page, Screen, same_page};

pub use crate::runner::result::{Drove, IssuerEvidence};
use crate::runner::{exchange::Trail, result::Failure, target_file::AcsDriver};

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
    Browser(Arc<browser::chromium::Chromium>),
}

impl Driver {
    /// The run's driver: the target's choice, with the browser the run
    /// started for it. The browser is started whenever a selected scenario
    /// drives the buyer, so a browser driver without one drives no buyer;
    /// it stands as the form driver.
    pub fn of(choice: AcsDriver, browser: Option<Arc<browser::chromium::Chromium>>) -> Self {
        match (choice, browser) {
            (AcsDriver::None, _) => Self::None,
            (AcsDriver::Browser, Some(chromium)) => Self::Browser(chromium),
            (AcsDriver::Form | AcsDriver::Browser, _) => Self::Form,
        }
    }

    /// The browser, for the browser driver.
    pub fn browser(&self) -> Option<&browser::chromium::Chromium> {
        match self {
            Self::Browser(chromium) => Some(chromium),
            Self::None | Self::Form => None,
        }
    }

    /// The driver that follows where pages send a buyer who answers
    /// nothing: the browser when it is the run's driver, else the form
    /// driver, which needs no configuration for this.
    pub fn follower(&self) -> Self {
        match self {
            Self::None | Self::Form => Self::Form,
            Self::Browser(chromium) => Self::Browser(Arc::clone(chromium)),
        }
    }

    /// Makes `journey`, keeping its exchanges in `trail` (a trail beside
    /// the scenario's). The browser driver takes the browser `held` for
    /// the scenario, or waits for it, and leaves it held there after.
    pub async fn drive(
        &self,
        journey: Journey<'_>,
        trail: Trail,
        held: &mut Option<browser::chromium::Reservation>,
    ) -> Landing {
        match self {
            Self::None => Landing {
                at: Err(Failure::plain(
                    "an issuer-authentication driver (acs.driver is none)",
                )),
                evidence: None,
                trail,
            },
            Self::Browser(chromium) => browser::authenticate(chromium, journey, trail, held).await,
            Self::Form => form::authenticate(journey, trail).await,
        }
    }
}
