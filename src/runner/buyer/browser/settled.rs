//! When a page that stays still is where the buyer lands, and what a page
//! that answered with an HTTP error leaves as evidence.
//!
//! After the buyer answers, a page that has not navigated for [`SETTLE`]
//! is where the buyer lands only on evidence that nothing more will move
//! them: no refresh declared, no script timer due within the journey's
//! bound, no request of a script under way, and none that ended or ran
//! within [`SETTLE`] (what it started may not show yet). Issuer pages often say "please
//! wait" for seconds before they pass the buyer on; the browser follows
//! them, and the journey's bound (`acs.journey_timeout`) ends the wait.
//!
//! The timers and requests are counted by a script the browser runs in
//! every document before the page's own ([`COUNTER`]).

use std::{
    collections::BTreeMap,
    time::{Duration, Instant, SystemTime},
};

use serde_json::{Value, json};
use url::Url;

use super::{BrowserJourney, Look, Progress, SETTLE};
use crate::runner::buyer::{
    Choice,
    browser::chromium::CommandError,
    cannot_judge::{asked_again, no_cancel},
};
use crate::runner::exchange::{Exchange, RecordedRequest, RecordedResponse, Timing, next_id};
use crate::runner::result::Failure;

/// Runs in every document before the page's scripts: counts the timers set
/// and not yet run or cleared (with when each is due), the requests
/// scripts have under way, and when a timer last ran or a request last
/// ended (what it started, a navigation say, may not be logged yet). Kept out of the page's sight as far as it can be
/// (not enumerable); a page that tampers with it only delays its own verdict
/// or hastens a landing that is not the merchant's.
const COUNTER: &str = r#"(() => {
  if (window.__payconfPending) return;
  const w = window, due = new Map();
  let requests = 0, last = 0;
  const st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval;
  const call = (f, args) => {
    last = Date.now();
    return typeof f === 'function' ? f(...args) : (0, eval)(String(f));
  };
  w.setTimeout = function (f, delay, ...args) {
    const id = st.call(w, () => { due.delete(id); call(f, args); }, delay);
    due.set(id, Date.now() + (Number(delay) || 0));
    return id;
  };
  w.clearTimeout = function (id) { due.delete(id); return ct.call(w, id); };
  w.setInterval = function (f, delay, ...args) {
    const every = Number(delay) || 0;
    const id = si.call(w, () => { due.set(id, Date.now() + every); call(f, args); }, delay);
    due.set(id, Date.now() + every);
    return id;
  };
  w.clearInterval = function (id) { due.delete(id); return ci.call(w, id); };
  const fetch = w.fetch;
  if (fetch) {
    w.fetch = function (...args) {
      requests++;
      return fetch.apply(this, args).finally(() => { requests--; last = Date.now(); });
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    requests++;
    this.addEventListener('loadend', () => { requests--; last = Date.now(); }, { once: true });
    return send.apply(this, args);
  };
  Object.defineProperty(w, '__payconfPending', {
    value: () => ({
      next: due.size ? Math.max(0, Math.min(...due.values()) - Date.now()) : null,
      requests,
      since: last ? Date.now() - last : null,
    }),
  });
})();"#;

/// Reads what may still move the buyer on from the top document, and
/// whether it (or a frame of its own origin) shows every configured field.
const PENDING: &str = r#"
const [names] = arguments;
const counted = window.__payconfPending
  ? window.__payconfPending() : { next: null, requests: 0, since: null };
let refresh = null;
for (const meta of document.querySelectorAll('meta[http-equiv]')) {
  if (meta.httpEquiv.toLowerCase() === 'refresh') {
    refresh = parseFloat(meta.content) || 0;
  }
}
const shown = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
const asks = (doc) => {
  if (names.length && names.every((n) => Array.from(doc.getElementsByName(n)).some(shown))) return true;
  for (const frame of doc.querySelectorAll('iframe, frame')) {
    try { if (frame.contentDocument && asks(frame.contentDocument)) return true; } catch (e) {}
  }
  return false;
};
return { next: counted.next, requests: counted.requests, since: counted.since, refresh,
  asking: asks(document) };
"#;

/// What a still page may yet do.
#[derive(Debug, Default)]
pub(super) struct Stillness {
    /// What may still move the buyer on within the journey, in words.
    pub pending: Option<String>,
    /// Whether the page shows every configured field again.
    pub asking: bool,
}

impl BrowserJourney<'_> {
    /// Has the browser run [`COUNTER`] in every document from now on.
    pub(super) async fn count_pending(&mut self) -> Result<(), CommandError> {
        let added = self
            .turn
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": COUNTER}),
            )
            .await?;
        self.counter = added["identifier"].as_str().map(str::to_owned);
        Ok(())
    }

    /// Stops running [`COUNTER`] in new documents (the tab serves other
    /// journeys after this one).
    pub(super) async fn stop_counting(&mut self) {
        if let Some(identifier) = self.counter.take() {
            let _ = self
                .turn
                .cdp_within(
                    "Page.removeScriptToEvaluateOnNewDocument",
                    json!({"identifier": identifier}),
                )
                .await;
        }
    }

    /// What the top document may still do, judged against the time left.
    pub(super) async fn stillness(
        &self,
        values: &BTreeMap<String, String>,
        left: Duration,
    ) -> Result<Stillness, CommandError> {
        self.turn.top_frame().await?;
        let names: Vec<&String> = values.keys().collect();
        let read = self
            .turn
            .client
            .execute(PENDING, vec![json!(names)])
            .await?;
        let left_ms = left.as_secs_f64() * 1000.0;
        let pending = if let Some(refresh) = read["refresh"].as_f64() {
            Some(format!("declares a refresh after {refresh} s"))
        } else if read["requests"].as_u64().unwrap_or(0) > 0 {
            Some("has a script's request under way".to_owned())
        } else if read["since"]
            .as_f64()
            .is_some_and(|since| since < SETTLE.as_secs_f64() * 1000.0)
        {
            Some("ran a script timer or request a moment ago".to_owned())
        } else {
            read["next"]
                .as_f64()
                .filter(|next| *next <= left_ms)
                .map(|next| format!("has a script timer due in {:.1} s", next / 1000.0))
        };
        Ok(Stillness {
            pending,
            asking: read["asking"] == true,
        })
    }

    /// Whether the page may yet show what a step names: a script's
    /// request, timer or refresh pending within the journey's bound.
    pub(super) async fn still_busy(
        &self,
        values: &BTreeMap<String, String>,
        deadline: Instant,
    ) -> Result<bool, CommandError> {
        Ok(self
            .stillness(values, left(deadline))
            .await?
            .pending
            .is_some())
    }

    /// A page that has shown nothing to do for [`super::PATIENCE`] before
    /// the buyer answered: still waited on while the target is answering
    /// a document or the page has a refresh, a timer or a request pending
    /// (the journey's bound ends the wait); the target's failure when a
    /// frame of it did not load; else an error that names the settings.
    pub(super) async fn stuck(
        &mut self,
        state: &Progress<'_>,
        deadline: Instant,
    ) -> Result<Look, CommandError> {
        if !self.loading.top.is_empty() {
            return Ok(Look::Continue);
        }
        if let Some((frame, why)) = self.loading.failed_frame.take() {
            return Ok(Look::FrameFailed(frame, why));
        }
        let url = &state.url;
        let none = BTreeMap::new();
        let values = state.next().map_or(&none, |next| next.values);
        // The page the buyer answered before may be asking again: its
        // values were not accepted.
        let last = state
            .last()
            .filter(|last| last.choice == Choice::Authenticate);
        let still = self
            .stillness(last.map_or(values, |last| last.values), left(deadline))
            .await?;
        // What was read is this page's only if the browser has not moved
        // on meanwhile (a refresh or timer firing between the looks).
        if still.pending.is_some() || self.current_url().await? != *url {
            return Ok(Look::Continue);
        }
        if let Some(last) = last.filter(|_| still.asking) {
            return Ok(Look::Unreadable(asked_again(last.page, url, last.values)));
        }
        let answering = state.answering();
        // A buyer who is to cancel, on a still page with no control that
        // cancels: the scenario's road is not there, and it is not judged.
        if state
            .next()
            .is_some_and(|next| next.choice == Choice::Cancel)
        {
            return Ok(Look::Unreadable(no_cancel(answering, url)));
        }
        Ok(Look::Unreadable(Failure::harness(format!(
            "payconf could not get the buyer through {} at {url}: it shows none of the \
             fields {} names ({}) and nothing that leads on, {} s after it last moved. See \
             the screenshot: name the page's fields in {}, or describe the page with {}",
            answering.name(),
            answering.fields_setting(),
            values.keys().cloned().collect::<Vec<_>>().join(", "),
            super::PATIENCE.as_secs(),
            answering.fields_setting(),
            answering.steps_setting(),
        ))))
    }

    /// The exchange of a top-level page that answered `status`, as the
    /// browser's log and DevTools give it, for the report.
    pub(super) async fn page_exchange(
        &self,
        request_id: &str,
        (method, url): &(reqwest::Method, Url),
        response: &Value,
        max_body: usize,
    ) -> Exchange {
        let body = self
            .turn
            .cdp_within("Network.getResponseBody", json!({"requestId": request_id}))
            .await
            .map(|got| {
                let body = got["body"].as_str().unwrap_or_default();
                let mut bytes = if got["base64Encoded"] == true {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD
                        .decode(body)
                        .unwrap_or_default()
                } else {
                    body.as_bytes().to_vec()
                };
                bytes.truncate(max_body);
                bytes
            })
            .unwrap_or_default();
        let headers = response["headers"]
            .as_object()
            .map(|headers| {
                headers
                    .iter()
                    .map(|(name, value)| {
                        (
                            name.to_ascii_lowercase(),
                            value.as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let status = response["status"]
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or_default();
        Exchange {
            id: next_id(),
            request: RecordedRequest::new(method.clone(), url.clone()),
            response: Ok(RecordedResponse {
                status,
                version: "HTTP/1.1",
                headers,
                body,
            }),
            timing: Timing {
                started: SystemTime::now(),
                wait: Duration::ZERO,
                receive: Duration::ZERO,
            },
            transport_fault: None,
        }
    }
}

/// When a journey's time is up.
pub(super) fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}
