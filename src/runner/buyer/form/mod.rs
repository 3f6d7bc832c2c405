//! The form driver: the buyer's browser without script. It opens the issuer
//! address without following redirects automatically, reads each page with
//! a real HTML parser ([`html`]) and does what a buyer does:
//!
//! - on a page that only relays the buyer (a refresh, a form of hidden
//!   fields a script posts on load) it follows the relay;
//! - on the page whose form holds the configured fields it types them and
//!   confirms with the control that does not cancel (or, to cancel, clicks
//!   the one that does);
//! - on a page whose only form holds none of them (a channel choice, a
//!   "continue") it submits that form as it stands, and on a page that
//!   shows its content in a frame it opens the frame;
//! - once every page is answered, a page whose only form asks nothing and
//!   has a control that confirms (a review step's "Confirm and pay") is
//!   confirmed, never gone back from: the rule of the controls
//!   ([`super::control_rule`]) holds on every page of the way;
//! - with `[[acs.steps]]`, it runs the steps instead of guessing.
//!
//! Redirects are followed by hand and cookies the pages set are sent back.
//! Where the buyer stops is the landing page: the merchant's page as soon
//! as a redirect points at it (it is not fetched: it belongs to the
//! merchant), or else the first page that asks nothing more and runs no
//! script. A page that needs a script to go on (or, after the answer, a
//! page whose scripts may send the buyer on) ends the scenario as an error
//! of the harness that names the browser driver, never as a failure of the
//! target.

use std::collections::{BTreeMap, VecDeque};

use reqwest::{
    Method,
    cookie::{CookieStore, Jar},
};
use scraper::Html;
use url::Url;

pub mod controls;
pub mod html;
pub mod parse;
pub mod relay;
pub mod served_page;
pub mod served_steps;

use self::{
    html::{PageAction, Unreadable},
    relay::Relay,
};
use super::{
    Choice, Drove, IssuerEvidence, Journey, Landing, Page,
    cannot_judge::{asked_again, no_cancel, no_form, too_many_walks, unclear, unnamed_fields},
    navigation::{MAX_PAGES, MAX_WALKS, Visited, needs_browser, too_many_pages},
};
use crate::runner::{
    exchange::{RecordedRequest, Trail},
    result::Failure,
    target_file::{IssuerStep, StepAction, StepValue},
};

/// What a browser asks for when it opens a page.
pub const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// Drives the buyer from the journey's start to wherever they land, within
/// the journey's bound (`acs.journey_timeout`); the pages visited are the
/// evidence.
pub async fn authenticate(journey: Journey<'_>, trail: Trail) -> Landing {
    let mut buyer = Buyer::new(trail);
    let walked = tokio::time::timeout(journey.bound(), walk(&journey, &mut buyer)).await;
    let at = match walked {
        Ok(walked) => walked,
        Err(_) => Err(super::navigation::over_bound(
            &journey,
            buyer.visited.pages.last().map(String::as_str),
            "still on their way",
            buyer.trail.last(),
        )),
    };
    let pages = match &at {
        Ok(_) => buyer.visited.pages.as_slice(),
        Err(_) => &[],
    };
    Landing {
        evidence: Some(IssuerEvidence {
            driver: Drove::Form,
            pages: pages.iter().map(|p| journey.redactor.text(p)).collect(),
            screenshot: None,
            screenshot_left_out: None,
        }),
        at,
        trail: buyer.trail,
    }
}

async fn walk(journey: &Journey<'_>, buyer: &mut Buyer) -> Result<Url, Failure> {
    let answers = journey.answers;
    // The page the buyer answers next: past the last, they have answered all.
    let mut stage = 0;
    let mut steps: VecDeque<IssuerStep> = stage_steps(journey, stage);
    let mut request = RecordedRequest::new(Method::GET, journey.start.clone());
    let mut walks = 0;
    loop {
        let (page, body) = match buyer.follow(journey, request).await? {
            Stop::Landed(url) => return Ok(url),
            Stop::Page(url, body) => (url, body),
        };
        // Read off the runtime, within the time an exchange has.
        let reading = Reading {
            body,
            page: page.clone(),
            next: answers.get(stage).map(Owned::of),
            last: stage
                .checked_sub(1)
                .and_then(|last| answers.get(last))
                .map(Owned::of),
            steps: std::mem::take(&mut steps),
        };
        let (next, rest) =
            parse::off_runtime(journey.sender.limits.timeout, move || reading.read())
                .await
                .map_err(|why| needs_browser(&page, &why))?;
        steps = rest;
        let next = match next {
            Ok(next) => next,
            Err(Unread::NoForm) => {
                return Err(no_form(journey, stage, &page, buyer.trail.last()));
            }
            Err(Unread::Failure(failure)) => return Err(failure),
        };
        if let Next::Frame(frame) = &next {
            buyer.visited.frame(&frame.url);
        }
        request = match next {
            Next::Landed => return Ok(page),
            Next::Relay(request) => {
                buyer.hop(journey)?;
                request
            }
            Next::Walk(request) | Next::Frame(request) => {
                buyer.hops = 0;
                walks += 1;
                if walks > MAX_WALKS {
                    let answering = answers.get(stage).map_or(Page::Issuer, |a| a.page);
                    return Err(too_many_walks(answering, &page));
                }
                request
            }
            Next::Answer(request) => {
                buyer.hops = 0;
                walks = 0;
                stage += 1;
                steps = stage_steps(journey, stage);
                request
            }
        };
    }
}

/// The explicit steps of the page the buyer answers at `stage`.
fn stage_steps(journey: &Journey<'_>, stage: usize) -> VecDeque<IssuerStep> {
    journey
        .answers
        .get(stage)
        .map(|answer| answer.steps().iter().cloned().collect())
        .unwrap_or_default()
}

/// A page to read, with what the journey knows when it reads it: all
/// owned, so that it is read on a thread of its own.
struct Reading {
    body: String,
    page: Url,
    /// The page the buyer answers next; none once they have answered all.
    next: Option<Owned>,
    /// The page the buyer answered last, if any.
    last: Option<Owned>,
    /// Explicit steps not yet run; those the page runs are taken off.
    steps: VecDeque<IssuerStep>,
}

/// An [`super::Answer`] without its steps, owned.
struct Owned {
    page: Page,
    choice: Choice,
    values: BTreeMap<String, String>,
}

impl Owned {
    fn of(answer: &super::Answer<'_>) -> Self {
        Self {
            page: answer.page,
            choice: answer.choice,
            values: answer.values.clone(),
        }
    }
}

/// Why a page leads nowhere.
enum Unread {
    /// No form to fill: said with the exchange, which the journey holds.
    NoForm,
    /// Any other reason, said.
    Failure(Failure),
}

impl Reading {
    /// What the buyer does next on the page, and the steps left.
    fn read(mut self) -> (Result<Next, Unread>, VecDeque<IssuerStep>) {
        let next = self.next();
        (next, self.steps)
    }

    fn next(&mut self) -> Result<Next, Unread> {
        let page = &self.page;
        let document =
            parse::document(&self.body).map_err(|why| Unread::Failure(needs_browser(page, why)))?;
        let relay = relay::relay_in(&document, page).filter(|relay| match (relay, &self.next) {
            // Before the buyer answers a page, a form naming one of its
            // fields, or any form when the buyer cancels, is the page's own.
            (Relay::Refresh(_), _) | (_, None) => true,
            (Relay::Form(form), Some(next)) => {
                next.choice == Choice::Authenticate
                    && !next.values.is_empty()
                    && !next
                        .values
                        .keys()
                        .any(|name| form.fields.iter().any(|(n, _)| n == name))
            }
        });
        if let Some(relay) = relay {
            return Ok(Next::Relay(match relay {
                Relay::Refresh(address) => RecordedRequest::new(Method::GET, address),
                Relay::Form(form) => form.request(),
            }));
        }
        if let Some(last) = &self.last {
            if last.choice == Choice::Authenticate && html::asks_again(&document, &last.values) {
                return Err(Unread::Failure(asked_again(last.page, page, &last.values)));
            }
        }
        let Some(next) = &self.next else {
            // A page that asks nothing and goes on by a control that
            // confirms (a review's "Confirm and pay"), never one that
            // goes back, cancels or returns to the shop: the buyer presses it.
            match html::go_on(&document, page) {
                Ok(Some(form)) => return Ok(Next::Walk(form.request())),
                Ok(None) => {}
                Err(why) => {
                    return Err(Unread::Failure(needs_browser(
                        page,
                        format!("the page's only form goes on, but {why}"),
                    )));
                }
            }
            if html::runs_scripts(&document) {
                // A script may send the buyer on from here: only a browser knows.
                return Err(Unread::Failure(needs_browser(
                    page,
                    "after the buyer's answer this page runs scripts, which may send the \
                     buyer on to another page",
                )));
            }
            return Ok(Next::Landed);
        };
        let (values, choice) = (&next.values, next.choice);
        if !self.steps.is_empty() {
            return run_steps(&document, page, &mut self.steps, values).map_err(Unread::Failure);
        }
        match html::page_action(&document, page, choice, values) {
            Ok(PageAction::Answer(form)) => Ok(Next::Answer(form.request())),
            Ok(PageAction::Walk(form)) => Ok(Next::Walk(form.request())),
            Ok(PageAction::Frame(url)) => Ok(Next::Frame(RecordedRequest::new(Method::GET, url))),
            Err(Unreadable::NeedsScript) => Err(Unread::Failure(needs_browser(
                page,
                "the page runs scripts and has no form to use without them",
            ))),
            Err(Unreadable::FormNeedsScript(why)) => Err(Unread::Failure(needs_browser(page, why))),
            Err(Unreadable::NoForm) => Err(Unread::NoForm),
            Err(Unreadable::NoCancel) => Err(Unread::Failure(no_cancel(next.page, page))),
            Err(Unreadable::Unclear(why)) => Err(Unread::Failure(unclear(next.page, page, &why))),
            Err(Unreadable::UnnamedFields(asked)) => Err(Unread::Failure(unnamed_fields(
                next.page, page, &asked, values,
            ))),
        }
    }
}

/// What the driver does after a page.
enum Next {
    /// The buyer stays on the page: it is where they land.
    Landed,
    /// The page passes the buyer on by itself.
    Relay(RecordedRequest),
    /// payconf moves on by itself (a lone form, a step's click).
    Walk(RecordedRequest),
    /// payconf opens the frame the page shows its content in.
    Frame(RecordedRequest),
    /// The buyer's answer to the issuer.
    Answer(RecordedRequest),
}

/// Runs the steps that apply to this page, up to the one that moves the
/// buyer on (a click), and returns that move.
fn run_steps(
    document: &Html,
    page: &Url,
    steps: &mut VecDeque<IssuerStep>,
    values: &BTreeMap<String, String>,
) -> Result<Next, Failure> {
    let mut typed = BTreeMap::new();
    while let Some(step) = steps.front() {
        if !step.applies_to(page) {
            return Err(step_error(
                step,
                page,
                "this page does not match its page pattern, and the form driver cannot wait for another",
            ));
        }
        let Some(step) = steps.pop_front() else {
            break;
        };
        let step = &step;
        match &step.action {
            StepAction::Wait(css) => {
                let selector =
                    scraper::Selector::parse(css).map_err(|e| step_error(step, page, e))?;
                if document.select(&selector).next().is_none() {
                    return Err(step_error(
                        step,
                        page,
                        "the page as served does not show it",
                    ));
                }
            }
            StepAction::Type { selector, value } => {
                let name = served_steps::control_name(document, selector)
                    .map_err(|why| step_error(step, page, why))?;
                let value = match value {
                    StepValue::Field(field) => values.get(field).cloned().unwrap_or_default(),
                    StepValue::Text(text) => text.clone(),
                };
                typed.insert(name, value);
            }
            StepAction::Click(css) => {
                let clicked = served_steps::click(document, page, css, &typed)
                    .map_err(|why| step_error(step, page, why))?;
                // The click that ends the page's steps is the buyer's answer.
                return Ok(if steps.is_empty() {
                    Next::Answer(clicked.request())
                } else {
                    Next::Walk(clicked.request())
                });
            }
        }
    }
    Err(Failure::harness(format!(
        "payconf ran every explicit step on {page} but none clicked: the last step must \
         click what sends the buyer's answer"
    )))
}

fn step_error(step: &IssuerStep, page: &Url, why: impl std::fmt::Display) -> Failure {
    needs_browser(page, format!("the step \"{step}\" cannot run: {why}"))
}

/// Where following a request's redirects stopped.
enum Stop {
    /// A redirect pointed at one of the merchant's pages.
    Landed(Url),
    /// An answer that is not a redirect: its address and body.
    Page(Url, String),
}

/// A buyer's browser on its way through the issuer's pages: the hops taken,
/// the cookies the pages set, the pages seen, the exchanges had.
struct Buyer {
    /// Redirects and relays followed so far.
    hops: usize,
    /// Cookies set by the pages, sent back where they belong.
    cookies: Jar,
    /// Every page requested, for the report.
    visited: Visited,
    /// The journey's exchanges.
    trail: Trail,
}

impl Buyer {
    fn new(trail: Trail) -> Self {
        Self {
            hops: 0,
            cookies: Jar::default(),
            visited: Visited::default(),
            trail,
        }
    }

    /// Counts one more hop; fails past [`MAX_PAGES`].
    fn hop(&mut self, journey: &Journey<'_>) -> Result<(), Failure> {
        self.hops += 1;
        if self.hops > MAX_PAGES {
            return Err(too_many_pages(journey, self.trail.last()));
        }
        Ok(())
    }

    /// Sends a request with the journey's cookies and keeps those it sets.
    async fn send(
        &mut self,
        journey: &Journey<'_>,
        mut request: RecordedRequest,
    ) -> Result<usize, Failure> {
        request.headers.retain(|(name, _)| {
            !name.eq_ignore_ascii_case("cookie") && !name.eq_ignore_ascii_case("accept")
        });
        request = request.header("Accept", BROWSER_ACCEPT);
        if let Some(cookies) = self.cookies.cookies(&request.url) {
            if let Ok(cookies) = cookies.to_str() {
                request = request.header("Cookie", cookies);
            }
        }
        let url = request.url.clone();
        self.visited.page(&url);
        let index = self
            .trail
            .exchange(journey.sender, journey.redactor, request)
            .await?;
        let response = self.trail.exchanges[index]
            .response
            .as_ref()
            .expect("exchange() returned Ok only for a response");
        for (name, value) in &response.headers {
            if name.eq_ignore_ascii_case("set-cookie") {
                self.cookies.add_cookie_str(value, &url);
            }
        }
        Ok(index)
    }

    /// Follows a request's redirects to the first page that is not one, or
    /// to the merchant's page a redirect points at.
    async fn follow(
        &mut self,
        journey: &Journey<'_>,
        mut request: RecordedRequest,
    ) -> Result<Stop, Failure> {
        loop {
            let url = request.url.clone();
            let index = self.send(journey, request.clone()).await?;
            let response = self.trail.exchanges[index]
                .response
                .as_ref()
                .expect("exchange() returned Ok only for a response");
            let status = response.status;
            if status >= 400 {
                return Err(super::navigation::error_status(
                    journey,
                    &url,
                    status,
                    self.trail.last(),
                ));
            }
            if !(300..400).contains(&status) || status == 304 {
                let body = String::from_utf8_lossy(&response.body).into_owned();
                return Ok(Stop::Page(url, body));
            }
            let location = response.header("location").map(str::to_owned);
            let Some(location) = location else {
                return Err(journey.failure_on(
                    "a Location header on a redirect",
                    &format!("HTTP {status} without one"),
                    self.trail.last(),
                ));
            };
            let next = url.join(&location).map_err(|e| {
                journey.failure_on(
                    "a redirect to a valid address",
                    &format!("{location:?}: {e}"),
                    self.trail.last(),
                )
            })?;
            self.hop(journey)?;
            if journey.is_merchant(&next) {
                self.visited.page(&next);
                return Ok(Stop::Landed(next));
            }
            // 307 and 308 repeat the request; the others turn it into a GET.
            request = if matches!(status, 307 | 308) {
                RecordedRequest {
                    url: next,
                    ..request
                }
            } else {
                RecordedRequest::new(Method::GET, next)
            };
        }
    }
}
