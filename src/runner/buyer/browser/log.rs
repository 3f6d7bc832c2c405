//! What the browser's own log tells a journey: each document request,
//! redirect hops included (the pages visited, the first merchant's page),
//! a page that did not load, a top-level page answering an HTTP error,
//! the documents still under way and a frame that did not load.

use std::{
    collections::{HashMap, HashSet},
    time::Instant,
};

use url::Url;

use super::BrowserJourney;
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
                    let Some(url) = params["request"]["url"]
                        .as_str()
                        .and_then(|u| Url::parse(u).ok())
                    else {
                        continue;
                    };
                    if !matches!(url.scheme(), "http" | "https") {
                        continue;
                    }
                    let top = self.top_frame.is_none()
                        || params["frameId"].as_str() == self.top_frame.as_deref();
                    // What the last scenario's page still logged is not this journey's.
                    if top && !self.started {
                        if params["documentURL"].as_str() != Some(self.issuer.as_str())
                            && url != self.issuer
                        {
                            continue;
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
                Some("Page.frameNavigated") | Some("Page.navigatedWithinDocument") => {
                    self.last_move = Instant::now();
                }
                _ => {}
            }
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
    /// The first frame of the top-level page that did not load.
    pub failed_frame: Option<(Url, FrameFailure)>,
}

/// Why a frame did not load.
#[derive(Debug)]
pub(super) enum FrameFailure {
    /// It answered this HTTP error status.
    Status(u16),
    /// The browser's network error.
    Error(String),
}
