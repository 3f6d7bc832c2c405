//! The rules both drivers follow on the way from the issuer address to the
//! page the buyer lands on: how far they go, which pages are the
//! merchant's, and what they record for a person to read afterwards.

use url::Url;

use super::Journey;
use crate::runner::{exchange::Exchange, result::Failure};

/// The most navigations (HTTP redirects, relay pages, script navigations)
/// from one action of the buyer (opening the issuer address, submitting a
/// form) to the next page that asks something, or to the landing page: 20,
/// as many redirects as browsers follow (Chromium, Firefox). Past it the
/// target is sending the buyer round in circles: a failure of the target.
pub const MAX_PAGES: usize = 20;

/// The most pages payconf moves on by itself before the buyer answers (a
/// lone form submitted as it stands, a frame opened). Past it payconf has
/// not found where to answer: an error of the harness.
pub const MAX_WALKS: usize = 5;

/// The failure of a target whose pages never stop moving the buyer on,
/// shown with the last page's exchange when the driver has it.
pub fn too_many_pages(journey: &Journey<'_>, page: Option<&Exchange>) -> Failure {
    journey.failure_on(
        &format!("the buyer to land within {MAX_PAGES} redirects of each step"),
        "the redirects go on",
        page,
    )
}

/// The failure of a journey that reached its bound (`acs.journey_timeout`):
/// the contract shows no time-out, and this one is generous, so the target
/// kept the buyer too long. `last` is the last page, `state` what it was doing.
pub fn over_bound(
    journey: &Journey<'_>,
    last: Option<&str>,
    state: &str,
    page: Option<&Exchange>,
) -> Failure {
    let bound = journey.bound();
    journey.failure_on(
        &format!(
            "the buyer to land within the journey's bound (acs.journey_timeout, {} s)",
            bound.as_secs_f64()
        ),
        &format!(
            "the buyer had not landed after {} s: the issuer's pages were {state}{}",
            bound.as_secs_f64(),
            last.map(|page| format!(", at {page}")).unwrap_or_default()
        ),
        page,
    )
}

/// The failure of a page of the journey that answered with an HTTP error:
/// a page of the target's that the buyer cannot use.
pub fn error_status(
    journey: &Journey<'_>,
    page: &Url,
    status: u16,
    exchange: Option<&Exchange>,
) -> Failure {
    journey.failure_on(
        "the issuer's pages to open for the buyer (no HTTP error status)",
        &format!("HTTP {status} from {page}"),
        exchange,
    )
}

/// The error of a form driver that met a page only a browser can use.
pub fn needs_browser(page: &Url, why: impl std::fmt::Display) -> Failure {
    Failure::harness(format!(
        "payconf could not get the buyer through the page at {page}: {why}. \
         The form driver runs no script; set acs.driver = \"browser\" in the target \
         file (or --acs-driver browser) to drive the page in headless Chromium, or \
         describe the page with [[acs.steps]]"
    ))
}

/// The pages a journey went through, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visited {
    /// Each page's address, in order; frames are marked `(frame)`.
    pub pages: Vec<String>,
}

impl Visited {
    /// Records a page.
    pub fn page(&mut self, url: &Url) {
        self.pages.push(url.to_string());
    }

    /// Records a page shown in a frame.
    pub fn frame(&mut self, url: &Url) {
        self.pages.push(format!("(frame) {url}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needing_a_browser_is_an_error_of_the_harness_that_names_the_browser_driver() {
        let page = Url::parse("https://acs.example/c").expect("url");
        let failure = needs_browser(&page, "the page builds its form with a script");
        assert!(failure.is_harness());
        assert!(
            failure.to_string().contains("driver = \"browser\""),
            "{failure}"
        );
        assert!(
            failure.to_string().contains("https://acs.example/c"),
            "{failure}"
        );
    }
}
