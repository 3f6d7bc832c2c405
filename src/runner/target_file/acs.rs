//! How the buyer gets through the issuer's page: the driver, the values it
//! types, explicit steps, and where the browser is.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::steps::IssuerStep;
use super::{Secret, TargetError, target_error};

pub use payconf_spec::driver::AcsDriver;

/// Issuer-authentication settings.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcsConfig {
    /// The driver.
    #[serde(default)]
    pub driver: AcsDriver,
    /// Values typed into the issuer page's form, by field name.
    #[serde(default)]
    pub fields: BTreeMap<String, Secret>,
    /// What a buyer types on the issuer's page to fail its authentication
    /// (`8027`), by field name: for a target whose issuer page fails any
    /// wrong code and that has no card of its own for the outcome
    /// (`cards.authentication_failed`), the road the scenarios of that
    /// outcome take instead (the card enrolled in 3-D Secure, these values
    /// typed).
    #[serde(default)]
    pub failing_fields: BTreeMap<String, Secret>,
    /// Explicit steps for a page no heuristic reads, in order.
    #[serde(default)]
    pub steps: Vec<IssuerStep>,
    /// Where the browser driver's Chromium and ChromeDriver are.
    #[serde(default)]
    pub browser: BrowserSettings,
    /// Other origins of the issuer's pages (`https://acs.example:8443`),
    /// whose answers the reports may quote like the base URL's: an answer
    /// from an address the run was never given is reported by its status,
    /// headers and digest only.
    #[serde(default)]
    pub origins: Vec<String>,
    /// Seconds the buyer's whole way through the issuer's pages may take,
    /// from the issuer address to the landing page, whichever driver walks
    /// it (default [`DEFAULT_JOURNEY_SECS`]). The contract shows no
    /// time-outs, so the bound is generous: a slow bank's pages pass, and
    /// a journey that never ends fails at it. Each request still has its
    /// own `--timeout`.
    #[serde(default)]
    pub journey_timeout: Option<f64>,
}

/// The journey's bound when the target file gives none: a minute, enough
/// for a bank whose pages take seconds each.
pub const DEFAULT_JOURNEY_SECS: f64 = 60.0;

impl AcsConfig {
    /// The bound on one journey through the issuer's pages.
    pub fn journey_bound(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.journey_timeout.unwrap_or(DEFAULT_JOURNEY_SECS))
    }

    /// Checks the bounds the target file sets.
    pub fn check_bounds(&self) -> Result<(), TargetError> {
        if self
            .journey_timeout
            .is_some_and(|secs| !(1.0..=3600.0).contains(&secs))
        {
            return Err(target_error(
                "acs.journey_timeout",
                "must be between 1 and 3600 (seconds the buyer's way through the issuer's \
                 pages may take)",
            ));
        }
        Ok(())
    }

    /// Whether the target file says what the buyer types at the issuer:
    /// field values, or explicit steps.
    pub fn says_what_to_type(&self) -> bool {
        !self.fields.is_empty() || !self.steps.is_empty()
    }
}

/// The issuer driver the flag, else the environment (`PAYCONF_ACS_DRIVER`),
/// chooses over the target's own, if either does.
pub fn driver_override(
    flag: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<AcsDriver>, TargetError> {
    let (setting, name) = match (flag, env("PAYCONF_ACS_DRIVER").filter(|v| !v.is_empty())) {
        (Some(flag), _) => ("--acs-driver", flag.to_owned()),
        (None, Some(var)) => ("PAYCONF_ACS_DRIVER", var),
        (None, None) => return Ok(None),
    };
    AcsDriver::from_name(&name)
        .map(Some)
        .ok_or_else(|| target_error(setting, format!("{name:?} is not form, browser or none")))
}

/// Where the browser and its driver are, and what else Chromium is given.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserSettings {
    /// The Chromium (or Chrome) program: a path, or a name on `PATH`.
    pub chromium: Option<String>,
    /// The ChromeDriver program: a path, or a name on `PATH`.
    pub chromedriver: Option<String>,
    /// More command-line arguments for Chromium.
    #[serde(default)]
    pub args: Vec<String>,
    /// The most memory, in MiB, the browser's processes may hold together
    /// ([`DEFAULT_MEMORY_MB`] when unset): a page over it ends its journey
    /// as an error of the harness.
    pub memory_mb: Option<u64>,
}

/// The browser's memory bound when `acs.browser.memory_mb` is unset: a
/// payment page with its frames needs a few hundred MiB.
pub const DEFAULT_MEMORY_MB: u64 = 2048;

impl BrowserSettings {
    /// The memory bound, in bytes.
    pub fn memory_limit(&self) -> u64 {
        self.memory_mb
            .unwrap_or(DEFAULT_MEMORY_MB)
            .saturating_mul(1024 * 1024)
    }
}
