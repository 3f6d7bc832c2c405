//! The browser driver: the buyer in a real headless Chromium ([`Chromium`]).
//!
//! It opens the issuer address and, as the page settles, looks for the
//! configured fields in the page and in every frame of it, however the page
//! was built (plain HTML, a script, an iframe from another origin). Where it
//! finds them it types them and clicks the control that confirms, never one
//! that cancels (or, to cancel, the one that does). A page whose only form
//! holds none of the fields (a channel choice, a "continue") is submitted as
//! it stands. With `[[acs.steps]]` it runs the steps instead of guessing.
//!
//! The browser follows every navigation by itself: redirects, forms a script
//! posts, script redirects, a frame posting to the top; the driver follows
//! the buyer into a window a page opens, and back when it closes
//! ([`windows`]). The driver reads the
//! browser's own log of document requests, so it sees each of them, redirect
//! hops included: the first top-level request for one of the merchant's
//! pages is where the buyer lands, and a top-level page that answers with
//! an HTTP error status fails the journey there. Nothing is done on a page
//! while a document of it (a frame's too) is on its way: what the page
//! shows then is what that document replaces. After the buyer answers, a
//! page that stays still for [`SETTLE`] with nothing pending ([`still`]) is
//! where the buyer lands too. Pages and time (`acs.journey_timeout`) are
//! bounded; the pages visited and a screenshot of the last one (secrets
//! blanked out, [`evidence`]) are kept for the report. Each look at the
//! page, and where the journey stands between looks, is [`look`]; what it
//! does on a page is in [`page`].

mod archive;
pub mod chromium;
mod ends;
mod evidence;
mod log;
mod look;
mod page;
mod settled;
mod windows;

use ends::{Heartbeat, load_failure, over_memory, over_memory_failure};
use log::{FrameFailure, Loading};
use look::Progress;

pub use evidence::{NoScreenshot, blank_out, capture};

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use url::Url;

use self::archive::Archive;
use self::chromium::{COMMAND_BOUND, Chromium, CommandError, Reservation, Turn};
use super::{
    Drove, IssuerEvidence, Journey, Landing,
    navigation::{MAX_PAGES, Visited, error_status, over_bound, too_many_pages},
};
use crate::runner::{exchange::Trail, result::Failure, target_file::TargetConfig};

/// How often the page is looked at.
const POLL: Duration = Duration::from_millis(50);

/// How long a page must stay still (no navigation) to count as settled.
pub const SETTLE: Duration = Duration::from_secs(1);

/// How long a page that shows nothing to do is given to show it (a script
/// may build the form late).
const PATIENCE: Duration = Duration::from_secs(3);

/// How long what an explicit step names is looked for after the page last
/// moved, when the page has nothing pending: a script may draw it late (a
/// lightbox's frame), and a busy machine draws it later still. Only a
/// step that names nothing on the page waits it out, and that step is an
/// error of the target file, not a verdict.
const STEP_PATIENCE: Duration = Duration::from_secs(10);

/// The least time the browser gets to answer one look at the page, whatever
/// `--timeout` says; past it (and [`COMMAND_BOUND`] more) it has stopped
/// answering.
const MIN_ANSWER: Duration = Duration::from_secs(10);

/// How often the browser's memory is measured during a journey.
const MEMORY_CHECK: Duration = Duration::from_millis(250);

/// Drives the buyer from the journey's start to wherever they land, in the
/// browser `held` for the scenario (or the next free one); the pages
/// visited and a screenshot are the evidence, and the browser is held
/// again after.
pub async fn authenticate(
    chromium: &Chromium,
    way: Journey<'_>,
    mut trail: Trail,
    held: &mut Option<Reservation>,
) -> Landing {
    let reservation = match held.take() {
        Some(reservation) => reservation,
        None => chromium.reserve().await,
    };
    let turn = match chromium.turn(reservation).await {
        Ok(turn) => turn,
        Err(e) => {
            return Landing {
                at: Err(Failure::harness(format!(
                    "the browser does not answer: {e}"
                ))),
                evidence: None,
                trail,
            };
        }
    };
    // The browser's requests to the target are its own, not payconf's to
    // hold one by one: the journey shares the volley lock for its whole length.
    let _shared = way.sender.volley_lock.share().await;
    let mut journey = BrowserJourney::new(turn, &way, &trail);
    let (result, over_memory) = journey.bounded(chromium, &way).await;
    // The buyer may have landed while a window of the journey's closed (a
    // lightbox's on a phone): the evidence is the window in front.
    if chromium.stalled().is_none() && !over_memory {
        let _ = tokio::time::timeout(COMMAND_BOUND, journey.follow_windows()).await;
    }
    let screenshot = journey.last_look(chromium, way.target, over_memory).await;
    // The windows the journey's pages opened run nothing after it: the
    // journey's own is kept, not one a page opened (which may close itself
    // a moment later, leaving the browser no window).
    if chromium.stalled().is_none()
        && tokio::time::timeout(COMMAND_BOUND, journey.back_to_the_first_window())
            .await
            .is_err()
    {
        chromium.stall("no answer to closing the journey's windows");
    }
    let redactor = way.redactor;
    let evidence = IssuerEvidence {
        driver: Drove::Browser,
        pages: journey
            .visited
            .pages
            .iter()
            .map(|page| redactor.text(page))
            .collect(),
        screenshot: screenshot.as_ref().ok().cloned(),
        screenshot_left_out: screenshot.err().map(|why| redactor.text(&why.to_string())),
    };
    journey.stop_counting().await;
    if let Some(exchange) = journey.page_exchange.take() {
        trail.exchanges.push(exchange);
    }
    if let Some(archive) = journey.archive.take() {
        for record in archive.finish(redactor) {
            trail.unreported.seen(record);
        }
    }
    *held = Some(journey.turn.end());
    Landing {
        at: result,
        evidence: Some(evidence),
        trail,
    }
}

/// One scenario's buyer in the browser.
struct BrowserJourney<'a> {
    turn: Turn<'a>,
    /// The merchant's pages: reaching one ends the journey.
    merchant: Vec<Url>,
    visited: Visited,
    /// The DevTools id of the top-level frame.
    top_frame: Option<String>,
    /// When the page last navigated or payconf last acted.
    last_move: Instant,
    /// Top-level document requests since payconf last acted (opened the
    /// issuer address, submitted a form): past [`MAX_PAGES`], the target
    /// sends the buyer round in circles.
    navigations: usize,
    /// Methods and addresses of the top-level document requests, by request id.
    requests: std::collections::HashMap<String, (reqwest::Method, Url)>,
    /// A top-level page that did not load, and why.
    failed_load: Option<(Url, String)>,
    /// A top-level page that answered with an HTTP error: its request id
    /// and the response as DevTools logged it.
    failed_status: Option<(String, Value)>,
    /// The documents under way, and a frame that did not load.
    loading: Loading,
    /// The exchange of the page where the journey failed, for the report.
    page_exchange: Option<crate::runner::exchange::Exchange>,
    /// The DevTools identifier of the script counting what is pending.
    counter: Option<String>,
    /// When the browser last answered.
    heartbeat: Heartbeat,
    /// The issuer address the journey opens.
    issuer: Url,
    /// Whether the browser has asked for the issuer address yet.
    started: bool,
    /// With `--har`: the journey's document requests, for the HAR file.
    archive: Option<Archive>,
    /// The journey's open windows, the one in front last ([`windows`]).
    windows: Vec<fantoccini::wd::WindowHandle>,
    /// The DevTools ids of the top-level frames of the windows opened.
    window_tops: std::collections::HashSet<String>,
}

impl<'a> BrowserJourney<'a> {
    /// The journey `way` starts in `turn`, nothing seen yet; its pages
    /// archived when the trail keeps what it does not report.
    fn new(turn: Turn<'a>, way: &Journey<'_>, trail: &Trail) -> Self {
        Self {
            turn,
            merchant: way.merchant.to_vec(),
            visited: Visited::default(),
            top_frame: None,
            last_move: Instant::now(),
            navigations: 0,
            requests: std::collections::HashMap::new(),
            failed_load: None,
            failed_status: None,
            loading: Loading::default(),
            page_exchange: None,
            counter: None,
            heartbeat: Heartbeat::new(),
            issuer: way.start.clone(),
            started: false,
            archive: trail.unreported.keeps().then(Archive::default),
            windows: Vec::new(),
            window_tops: std::collections::HashSet::new(),
        }
    }

    /// The screenshot at the journey's end, unless the browser stalled or
    /// went over its memory, or it took longer than a command may (then
    /// the browser is taken to have stalled).
    async fn last_look(
        &self,
        chromium: &Chromium,
        target: &TargetConfig,
        over_memory: bool,
    ) -> Result<Vec<u8>, NoScreenshot> {
        if chromium.stalled().is_some() || over_memory {
            Err(if over_memory {
                NoScreenshot::OverMemory
            } else {
                NoScreenshot::Stalled
            })
        } else {
            tokio::time::timeout(COMMAND_BOUND, self.screenshot(target))
                .await
                .unwrap_or_else(|_| {
                    chromium.stall("no screenshot within its bound");
                    Err(NoScreenshot::Late)
                })
        }
    }
}

/// What a look at the page came to.
enum Look {
    /// Nothing decided yet.
    Continue,
    /// The buyer stays on this page, after answering.
    Landed(Url),
    /// payconf cannot go on.
    Unreadable(Failure),
    /// The page stays still, a frame of it having failed to load.
    FrameFailed(Url, FrameFailure),
}

/// Whether an explicit step ran.
enum StepDone {
    Done,
    /// Not yet, and why: an error once the page has settled.
    NotYet(&'static str),
}

/// What payconf did on a page.
enum Acted {
    /// Typed the fields and confirmed, or cancelled.
    Answered,
    /// Submitted a form that holds none of the fields.
    Walked,
    /// Nothing to do yet.
    Nothing,
    /// payconf cannot tell which control answers: why, in words.
    Unclear(String),
    /// The page asks to type into fields the target file does not name.
    UnnamedFields(Vec<String>),
}

impl BrowserJourney<'_> {
    /// Runs the journey within its bounds: every command bounded together,
    /// the browser's memory watched beside it, and its heartbeat. A browser
    /// that stops answering (a machine short of CPU, a renderer that
    /// hangs) ends the journey as an error of the harness and is used no
    /// more in this run; over the memory bound, the journey ends at once.
    /// Whether it ended over the memory bound comes beside its result.
    async fn bounded(
        &mut self,
        chromium: &Chromium,
        way: &Journey<'_>,
    ) -> (Result<Url, Failure>, bool) {
        let bound = way.bound() + COMMAND_BOUND;
        let answer_bound = way.sender.limits.timeout.max(MIN_ANSWER) + COMMAND_BOUND;
        let heartbeat = self.heartbeat.clone();
        // The memory is watched beside the journey, not between its
        // commands: a page that allocates without yielding holds every
        // command up.
        let mut watch = chromium
            .memory_watch()
            .map(|watch| tokio::spawn(watch.until_over(MEMORY_CHECK)));
        let stopped = |bound: Duration| {
            let why = format!("no answer within {} s", bound.as_secs());
            chromium.stall(&why);
            Failure::harness(format!(
                "the browser stopped answering: {why}; payconf judges nothing more with it \
                 in this run"
            ))
        };
        let run = tokio::time::timeout(bound, self.run(way));
        let ended = tokio::select! {
            result = run => (result.unwrap_or_else(|_| Err(stopped(bound))), false),
            used = over_memory(&mut watch) => (
                Err(over_memory_failure(used, chromium.memory_limit())),
                true,
            ),
            () = heartbeat.silent_for(answer_bound) => (Err(stopped(answer_bound)), false),
        };
        if let Some(watch) = watch {
            watch.abort();
        }
        ended
    }

    async fn run(&mut self, way: &Journey<'_>) -> Result<Url, Failure> {
        let bound = way.bound();
        let deadline = Instant::now() + bound;
        let browser = |e: CommandError| Failure::harness(format!("the browser failed: {e}"));
        self.count_pending().await.map_err(browser)?;
        let frame_tree = self
            .turn
            .cdp("Page.getFrameTree", json!({}))
            .await
            .map_err(browser)?;
        self.top_frame = frame_tree["frameTree"]["frame"]["id"]
            .as_str()
            .map(str::to_owned);
        self.first_window(way.screen).await.map_err(browser)?;
        // The page loads on its own: the driver never waits on a navigation
        // (pageLoadStrategy none), so a page that never stops moving cannot
        // hold it up.
        self.turn
            .client
            .goto(way.start.as_str())
            .await
            .map_err(|e| browser(e.into()))?;
        let mut state = Progress {
            answers: way.answers,
            stage: 0,
            steps: way
                .answers
                .first()
                .map(|answer| answer.steps().iter().collect())
                .unwrap_or_default(),
            walks: 0,
            url: way.start.clone(),
        };
        self.last_move = Instant::now();
        loop {
            self.observe().await.map_err(browser)?;
            self.heartbeat.beat();
            if let Some(landing) = self.landing() {
                return Ok(landing);
            }
            if let Some((page, error)) = self.failed_load.take() {
                return Err(load_failure(way, &page, &error));
            }
            if let Some((id, response)) = self.failed_status.take() {
                let Some(request) = self.requests.get(&id).cloned() else {
                    continue;
                };
                let status = response["status"].as_u64().unwrap_or_default();
                let exchange = self
                    .page_exchange(&id, &request, &response, way.sender.limits.max_body)
                    .await;
                let failure = error_status(
                    way,
                    &request.1,
                    u16::try_from(status).unwrap_or_default(),
                    Some(&exchange),
                );
                self.page_exchange = Some(exchange);
                return Err(failure);
            }
            if self.navigations > MAX_PAGES {
                return Err(too_many_pages(way, None));
            }
            if Instant::now() > deadline {
                return Err(self.past_the_bound(way, &state, bound));
            }
            // A page being replaced answers with errors: looked at again.
            match self.look(&mut state, deadline).await {
                Ok(Look::Continue) | Err(_) => {}
                Ok(Look::Landed(url)) => return Ok(url),
                Ok(Look::Unreadable(failure)) => return Err(failure),
                Ok(Look::FrameFailed(frame, FrameFailure::Status(status))) => {
                    return Err(error_status(way, &frame, status, None));
                }
                Ok(Look::FrameFailed(frame, FrameFailure::Error(error))) => {
                    return Err(load_failure(way, &frame, &error));
                }
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The journey past its bound: the target's failure when payconf had
    /// answered every page it asked for, or the page was still loading or
    /// moving; payconf's own error when a settled page was one it could
    /// not get the buyer through.
    fn past_the_bound(&self, way: &Journey<'_>, state: &Progress<'_>, bound: Duration) -> Failure {
        let url = &state.url;
        let still = self.last_move.elapsed() >= SETTLE;
        if state.answered() || !still {
            return over_bound(
                way,
                Some(url.as_str()),
                if still {
                    "keeping the buyer waiting"
                } else {
                    "still loading or moving"
                },
                None,
            );
        }
        let answering = state.answering();
        Failure::harness(format!(
            "payconf could not get the buyer through {} within the journey's bound \
             (acs.journey_timeout, {} s); the browser is at {url}. See the \
             screenshot: name the page's fields in {}, or describe the page with {}",
            answering.name(),
            bound.as_secs_f64(),
            answering.fields_setting(),
            answering.steps_setting(),
        ))
    }

    async fn current_url(&self) -> Result<Url, CommandError> {
        self.turn.top_frame().await?;
        Ok(self.turn.client.current_url().await?)
    }

    async fn ready(&self) -> Result<bool, CommandError> {
        let state = self
            .turn
            .client
            .execute("return document.readyState", Vec::new())
            .await?;
        Ok(state == "complete")
    }
}
