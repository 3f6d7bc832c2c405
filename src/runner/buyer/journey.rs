//! What a driver is given and what it brings back. A [`Journey`] describes
//! the buyer's way: where it starts, what the buyer does, the values they
//! type, the merchant's pages that end it, the target's settings, and the
//! run's means to send and to redact. Nothing of the scenario's state: a
//! driver cannot reach into it. A [`Landing`] is where the buyer landed (or
//! why they did not), with the evidence the driver kept and the exchanges
//! it had on the way, which the scenario takes in.

use std::{collections::BTreeMap, time::Duration};

use url::Url;

use crate::runner::{
    exchange::{Exchange, Sender, Trail, target_failure},
    redact::Redactor,
    result::{Failure, IssuerEvidence},
    target_file::{IssuerStep, TargetConfig},
};

/// What the buyer does on a page they answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Types the configured values and confirms.
    Authenticate,
    /// Clicks the control that cancels.
    Cancel,
}

/// Which page of the way the buyer answers: it names the settings that
/// describe it, in what payconf says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The issuer's 3-D Secure page (`[acs]`).
    Issuer,
    /// The service's standard payment page (`[payment_page]`).
    Payment,
    /// The payment page, where the buyer chooses the alternative method
    /// (`payment_page.alternative.choose`).
    MethodChoice,
    /// The alternative method's approval page (`[payment_page.alternative]`).
    MethodApproval,
    /// payconf's own shop page, whose Pay button opens the target's
    /// lightbox (`[payment_page.lightbox]`).
    Shop,
}

impl Page {
    /// The page, in words.
    pub fn name(self) -> &'static str {
        match self {
            Self::Issuer => "the issuer page",
            Self::Payment | Self::MethodChoice => "the payment page",
            Self::MethodApproval => "the alternative method's approval page",
            Self::Shop => "the shop's page (payconf's own, with the lightbox script)",
        }
    }

    /// The setting that says what the buyer types there.
    pub fn fields_setting(self) -> &'static str {
        match self {
            Self::Issuer => "acs.fields",
            Self::Payment => "payment_page.fields",
            Self::MethodChoice => "payment_page.alternative.choose",
            Self::MethodApproval => "payment_page.alternative.fields",
            Self::Shop => crate::runner::target_file::SCRIPT_SETTING,
        }
    }

    /// The setting that describes the page step by step.
    pub fn steps_setting(self) -> &'static str {
        match self {
            Self::Issuer => "[[acs.steps]]",
            Self::Payment => "[[payment_page.steps]]",
            Self::MethodChoice => "payment_page.alternative.choose",
            Self::MethodApproval => "[[payment_page.alternative.steps]]",
            Self::Shop => crate::runner::target_file::SCRIPT_SETTING,
        }
    }
}

/// One page the buyer answers on the way, in the order they reach them.
#[derive(Clone, Copy, Debug)]
pub struct Answer<'a> {
    /// Which page.
    pub page: Page,
    /// What the buyer does there.
    pub choice: Choice,
    /// What the buyer types, by the page's field names (by the names the
    /// steps use, when there are steps).
    pub values: &'a BTreeMap<String, String>,
    /// The explicit steps that describe the page, run instead of guessing;
    /// only a buyer who confirms runs them: cancelling is found on the page.
    pub steps: &'a [IssuerStep],
}

impl Answer<'_> {
    /// The steps this buyer runs.
    pub fn steps(&self) -> &[IssuerStep] {
        match self.choice {
            Choice::Authenticate => self.steps,
            Choice::Cancel => &[],
        }
    }
}

/// The screen the buyer's browser lays the pages out on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Screen {
    /// The browser's own window, a desktop's ([`super::browser::chromium::WINDOW`]).
    #[default]
    Desktop,
    /// A phone's, [`Screen::PHONE_WIDTH`] pixels wide: under the 500 below
    /// which the real service's lightbox opens its page in a window of its
    /// own (`../shared/contract/real-service-frontend.md` §2).
    Phone,
}

impl Screen {
    /// A phone's screen width, in CSS pixels.
    pub const PHONE_WIDTH: u32 = 400;
    /// A phone's screen height, in CSS pixels.
    pub const PHONE_HEIGHT: u32 = 800;
}

/// A buyer's way through the service's pages, as a driver is asked to make it.
#[derive(Clone, Copy, Debug)]
pub struct Journey<'a> {
    /// The address the buyer is sent to first.
    pub start: &'a Url,
    /// The pages the buyer answers, in order: none for a buyer who only
    /// follows where the pages send them (redirects, relay pages, script
    /// navigations) to the page where they stop, which is how a buyer goes
    /// from a service's own result page to the merchant's.
    pub answers: &'a [Answer<'a>],
    /// The merchant's pages: reaching one ends the journey, unfetched.
    pub merchant: &'a [Url],
    /// The screen the browser lays the pages out on (the form driver lays
    /// nothing out).
    pub screen: Screen,
    /// The target's settings: the issuer driver's, the secrets a
    /// screenshot blanks out.
    pub target: &'a TargetConfig,
    /// The run's sender, which the form driver sends through and
    /// whose volley lock the browser shares.
    pub sender: &'a Sender,
    /// Keeps secrets out of what the journey leaves.
    pub redactor: &'a Redactor,
}

impl Journey<'_> {
    /// The journey's bound (`acs.journey_timeout`).
    pub fn bound(&self) -> Duration {
        self.target.acs.journey_bound()
    }

    /// Whether `url` is one of the merchant's pages.
    pub fn is_merchant(&self, url: &Url) -> bool {
        self.merchant.iter().any(|page| same_page(page, url))
    }

    /// A failure of the target, shown with `exchange` (the page where the
    /// buyer stopped, say) when there is one.
    pub fn failure_on(&self, expected: &str, actual: &str, exchange: Option<&Exchange>) -> Failure {
        target_failure(self.redactor, expected, actual, exchange)
    }
}

/// What a driver brings back from a journey.
#[derive(Debug)]
pub struct Landing {
    /// Where the buyer landed, or why they did not.
    pub at: Result<Url, Failure>,
    /// What the driver saw: the pages, a screenshot, which driver it was;
    /// nothing when no driver drove.
    pub evidence: Option<IssuerEvidence>,
    /// The exchanges on the way that the scenario keeps, and the waits.
    pub trail: Trail,
}

/// Whether two addresses are the same page: scheme, host, port and path.
pub fn same_page(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
        && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_page_compares_scheme_host_port_and_path_only() {
        let a = Url::parse("https://shop.example:443/thanks?order=1").expect("url");
        let b = Url::parse("https://shop.example/thanks/").expect("url");
        let c = Url::parse("http://shop.example/thanks").expect("url");
        assert!(same_page(&a, &b));
        assert!(!same_page(&a, &c));
    }
}
