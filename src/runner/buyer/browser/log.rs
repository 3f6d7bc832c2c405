//! What the browser's own log tells a journey: each document request,
//! redirect hops included (the pages visited, the first merchant's page),
//! a page that did not load, a top-level page answering an HTTP error,
//! the documents still under way and a frame that did not load.

use std::{
    collections::{HashMap, HashSet},
    time::Instant,
};

use url::Url;

use super::{BrowserJourney, page::entered};
use crate::runner::buyer::{browser::chromium::CommandError, journey::same_page};

impl BrowserJourney<'_> {
    /// Reads the browser's log: the document requests since the last look.
    pub(super) async fn observe(&mut self) -> Result<(), CommandError> {
        for event in self.turn.performance_log().await? {
            let params = &event["params"];
            if let (Some(archive), Some(method)) = (&mut self.archive, event["method"].as_str()) {
                archive.event(method, params);
            }
            match event["method"].as_str() {
                Some("Network.requestWillBeSent") if params["type"] == "Document" => {
                    self.document_requested(params);
                }
                Some("Network.loadingFinished") => {
                    let id = params["requestId"].as_str().unwrap_or_default();
                    self.loading.under_way.remove(id);
                }
                Some("Network.loadingFailed") => {
                    let id = params["requestId"].as_str().unwrap_or_default();
                    self.loading.top.remove(id);
                    self.loading.under_way.remove(id);
                    if params["canceled"] == true {
                        continue;
                    }
                    let error = params["errorText"].as_str().unwrap_or("failed");
                    if let Some((_, url)) = self.requests.get(id) {
                        self.failed_load = Some((url.clone(), error.to_owned()));
                    } else if let Some(url) = self.loading.frames.get(id) {
                        let failed = (url.clone(), FrameFailure::Error(error.to_owned()));
                        self.loading.failed_frame.get_or_insert(failed);
                    }
                }
                Some("Network.responseReceived") if params["type"] == "Document" => {
                    let id = params["requestId"].as_str().unwrap_or_default();
                    self.loading.top.remove(id);
                    self.last_move = Instant::now();
                    let status = params["response"]["status"].as_u64().unwrap_or(0);
                    if status < 400 {
                        continue;
                    }
                    if self.requests.contains_key(id) {
                        self.failed_status
                            .get_or_insert_with(|| (id.to_owned(), params["response"].clone()));
                    } else if let Some(url) = self.loading.frames.get(id) {
                        let status = u16::try_from(status).unwrap_or(u16::MAX);
                        let failed = (url.clone(), FrameFailure::Status(status));
                        self.loading.failed_frame.get_or_insert(failed);
                    }
                }
                Some("Page.frameNavigated") => {
                    self.last_move = Instant::now();
                    if params["frame"]["parentId"].is_null() {
                        self.loading.top_document_replaced();
                    }
                }
                Some("Page.navigatedWithinDocument") => {
                    self.last_move = Instant::now();
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A document request the log shows: the journey's start, the pages
    /// visited (top-level and frames), what is under way.
    fn document_requested(&mut self, params: &serde_json::Value) {
        let Some(url) = params["request"]["url"]
            .as_str()
            .and_then(|u| Url::parse(u).ok())
        else {
            return;
        };
        if !matches!(url.scheme(), "http" | "https") {
            return;
        }
        let top = self.is_top(params["frameId"].as_str());
        // What the last scenario's page still logged is not this journey's.
        if top && !self.started {
            if params["documentURL"].as_str() != Some(self.issuer.as_str()) && url != self.issuer {
                return;
            }
            self.started = true;
        }
        if let Some(archive) = self.archive.as_mut().filter(|_| self.started) {
            archive.request(params);
        }
        if let Some(id) = params["requestId"].as_str() {
            self.loading.under_way.insert(id.to_owned());
            if top {
                self.loading.top.insert(id.to_owned());
                self.loading.failed_frame = None;
            } else {
                self.loading.frames.insert(id.to_owned(), url.clone());
                if let Some(wall) = params["wallTime"].as_f64() {
                    self.loading
                        .requested_at
                        .insert(id.to_owned(), wall * 1000.0);
                }
            }
        }
        if top {
            self.navigations += 1;
            self.visited.page(&url);
            if let Some(id) = params["requestId"].as_str() {
                let method = params["request"]["method"]
                    .as_str()
                    .and_then(|m| reqwest::Method::from_bytes(m.as_bytes()).ok())
                    .unwrap_or(reqwest::Method::GET);
                self.requests.insert(id.to_owned(), (method, url));
            }
        } else {
            self.visited.frame(&url);
        }
        self.last_move = Instant::now();
    }

    /// Frame documents the log shows under way that their frames already
    /// hold, loaded whole, are under way no more: a frame of another
    /// origin runs in a process of its own, whose end of a load may never
    /// reach the top page's log. Each frame of the page (four deep) is
    /// looked into; the browser is left on the top-level document.
    pub(super) async fn close_loaded_frames(&mut self) -> Result<(), CommandError> {
        let pending: Vec<(String, Url, f64)> = self
            .loading
            .under_way
            .iter()
            .filter_map(|id| {
                let url = self.loading.frames.get(id)?.clone();
                let at = self.loading.requested_at.get(id).copied().unwrap_or(0.0);
                Some((id.clone(), url, at))
            })
            .collect();
        if pending.is_empty() || pending.len() < self.loading.under_way.len() {
            // Nothing of a frame's, or a top-level document still coming.
            return Ok(());
        }
        self.turn.top_frame().await?;
        let mut loaded = Vec::new();
        let walked = Box::pin(self.loaded_frames(0, &mut loaded)).await;
        self.turn.top_frame().await?;
        walked?;
        for (id, url, requested_at) in pending {
            // The frame's document began after the request was sent (its
            // navigation starts a moment before the request, hence the
            // slack): not the document the request replaces at one address.
            let loaded = loaded.iter().any(|(frame, began)| {
                same_document(frame, &url) && *began >= requested_at - NAVIGATION_SLACK_MS
            });
            if loaded {
                self.loading.under_way.remove(&id);
            }
        }
        Ok(())
    }

    /// The documents the current one's frames hold whole
    /// (`document.readyState` complete), and their frames', `depth` deep:
    /// each's address and when its navigation began (milliseconds since
    /// the epoch, `performance.timeOrigin`).
    async fn loaded_frames(
        &self,
        depth: usize,
        loaded: &mut Vec<(Url, f64)>,
    ) -> Result<(), CommandError> {
        if depth >= 4 {
            return Ok(());
        }
        let client = self.turn.client;
        for frame in client
            .find_all(fantoccini::Locator::Css("iframe, frame"))
            .await?
        {
            if !entered(client, &frame, depth).await? {
                continue;
            }
            let state = client
                .execute(
                    "return [document.readyState, location.href, performance.timeOrigin]",
                    Vec::new(),
                )
                .await?;
            if state[0] == "complete" {
                if let (Some(url), Some(began)) = (
                    state[1].as_str().and_then(|u| Url::parse(u).ok()),
                    state[2].as_f64(),
                ) {
                    loaded.push((url, began));
                }
            }
            Box::pin(self.loaded_frames(depth + 1, loaded)).await?;
            client.enter_parent_frame().await?;
        }
        Ok(())
    }

    /// The first merchant's page the top-level page was sent to, if any.
    pub(super) fn landing(&self) -> Option<Url> {
        self.visited
            .pages
            .iter()
            .filter(|p| !p.starts_with("(frame)"))
            .filter_map(|p| Url::parse(p).ok())
            .find(|url| self.merchant.iter().any(|m| same_page(m, url)))
    }
}

/// How long before its request a document's navigation may begin.
const NAVIGATION_SLACK_MS: f64 = 1000.0;

/// Whether a frame's document at `held` is the one requested at
/// `requested`: the same address, its fragment aside (a redirect the log
/// did not show leaves the request's address behind, and the frame is then
/// looked at again on the next look).
fn same_document(held: &Url, requested: &Url) -> bool {
    let strip = |url: &Url| {
        let mut url = url.clone();
        url.set_fragment(None);
        url
    };
    strip(held) == strip(requested)
}

/// The documents the log shows under way, and the frames of the page.
#[derive(Debug, Default)]
pub(super) struct Loading {
    /// Top-level document requests not yet answered: the target is still
    /// answering, the buyer is not stuck.
    pub top: HashSet<String>,
    /// Documents, top-level or of a frame, requested and not yet loaded
    /// whole: until they are, what the page shows is the document they
    /// replace (a frame's card form after its pay was pressed, say).
    pub under_way: HashSet<String>,
    /// The addresses of the frames' document requests, by request id.
    frames: HashMap<String, Url>,
    /// When each frame's document request was sent, in milliseconds since
    /// the epoch (the log's `wallTime`).
    requested_at: HashMap<String, f64>,
    /// The first frame of the top-level page that did not load.
    pub failed_frame: Option<(Url, FrameFailure)>,
}

impl Loading {
    /// A new top-level document: the frames of the one it replaces are
    /// gone, and what they were loading with them (a frame of another
    /// origin may never log the end of a load the new page cut short).
    /// Its own frames are requested after it commits, so every frame's
    /// request known now was the old document's.
    fn top_document_replaced(&mut self) {
        for id in self.frames.keys() {
            self.under_way.remove(id);
        }
        self.frames.clear();
        self.requested_at.clear();
    }
}

/// Why a frame did not load.
#[derive(Debug)]
pub(super) enum FrameFailure {
    /// It answered this HTTP error status.
    Status(u16),
    /// The browser's network error.
    Error(String),
}
