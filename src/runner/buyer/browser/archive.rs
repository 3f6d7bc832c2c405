//! The pages the browser loaded in a journey, as exchanges for the HAR file
//! (`--har`): each document request of the journey (redirect hops, frames
//! and the pages scripts moved to included) with its method, address,
//! headers, answer and timings, read from the browser's own log of network
//! events. Bodies are not in that log, so these records have none; they
//! carry no `curl` either, which marks them as seen by the browser.

use std::{
    collections::HashMap,
    time::{Duration, SystemTime},
};

use serde_json::Value;

use crate::runner::{
    exchange::{ExchangeRecord, Timing, next_id},
    redact::Redactor,
};

/// A document request under way.
#[derive(Debug)]
struct Pending {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
    started: SystemTime,
    /// The browser's clock when it was sent, in seconds.
    sent_at: f64,
    /// The answer, when the browser's log holds one (a request cut short has none).
    response: Option<Answer>,
    /// The browser's clock when its body was read.
    finished_at: Option<f64>,
    error: Option<String>,
}

/// A document request's answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    /// As DevTools names it: `http/1.1`, `h2`.
    protocol: String,
    headers: Vec<(String, String)>,
    /// The browser's clock when it came, in seconds.
    at: f64,
}

/// The journey's document requests, by the browser's request id.
#[derive(Debug, Default)]
pub(super) struct Archive {
    pending: HashMap<String, Pending>,
    done: Vec<Pending>,
}

impl Archive {
    /// A document request the journey made (`Network.requestWillBeSent`).
    /// A redirect hop arrives under the id of the request it answers.
    pub(super) fn request(&mut self, params: &Value) {
        let Some(id) = params["requestId"].as_str() else {
            return;
        };
        if let Some(mut previous) = self.pending.remove(id) {
            let redirect = &params["redirectResponse"];
            if redirect.is_object() {
                previous.response = Some(response(redirect, seconds(&params["timestamp"])));
                previous.finished_at = Some(seconds(&params["timestamp"]));
            }
            self.done.push(previous);
        }
        let request = &params["request"];
        let wall = seconds(&params["wallTime"]);
        self.pending.insert(
            id.to_owned(),
            Pending {
                method: request["method"].as_str().unwrap_or("GET").to_owned(),
                url: request["url"].as_str().unwrap_or_default().to_owned(),
                headers: pairs(&request["headers"]),
                body: request["postData"].as_str().map(str::to_owned),
                started: SystemTime::UNIX_EPOCH + Duration::from_secs_f64(wall.max(0.0)),
                sent_at: seconds(&params["timestamp"]),
                response: None,
                finished_at: None,
                error: None,
            },
        );
    }

    /// Any other network event; only those of the journey's requests count.
    pub(super) fn event(&mut self, method: &str, params: &Value) {
        let Some(pending) = params["requestId"]
            .as_str()
            .and_then(|id| self.pending.get_mut(id))
        else {
            return;
        };
        let at = seconds(&params["timestamp"]);
        match method {
            "Network.responseReceived" => {
                pending.response = Some(response(&params["response"], at));
            }
            "Network.loadingFinished" => pending.finished_at = Some(at),
            "Network.loadingFailed" => {
                pending.finished_at = Some(at);
                pending.error = Some(params["errorText"].as_str().unwrap_or("failed").to_owned());
            }
            _ => {}
        }
    }

    /// Every request of the journey, redacted, in the order they were sent.
    pub(super) fn finish(self, redactor: &Redactor) -> Vec<ExchangeRecord> {
        let mut all: Vec<Pending> = self.done;
        all.extend(self.pending.into_values());
        all.sort_by(|a, b| a.sent_at.total_cmp(&b.sent_at));
        all.into_iter().map(|p| record(p, redactor)).collect()
    }
}

fn record(pending: Pending, redactor: &Redactor) -> ExchangeRecord {
    let since = |later: f64, earlier: f64| Duration::from_secs_f64((later - earlier).max(0.0));
    let answered_at = pending.response.as_ref().map(|r| r.at);
    let wait = since(
        answered_at
            .or(pending.finished_at)
            .unwrap_or(pending.sent_at),
        pending.sent_at,
    );
    let receive = match (answered_at, pending.finished_at) {
        (Some(answered), Some(finished)) => since(finished, answered),
        _ => Duration::ZERO,
    };
    let redact = |pairs: &[(String, String)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.clone(), redactor.header(n, v)))
            .collect()
    };
    let (status, version, response_headers) = match &pending.response {
        Some(answer) => (
            Some(answer.status),
            Some(protocol(&answer.protocol)),
            redact(&answer.headers),
        ),
        None => (None, None, Vec::new()),
    };
    let error = match (&pending.error, status) {
        (Some(error), _) => Some(error.clone()),
        (None, None) => Some("the browser logged no answer".to_owned()),
        (None, Some(_)) => None,
    };
    ExchangeRecord {
        method: pending.method,
        url: redactor.text(&pending.url),
        request_headers: redact(&pending.headers),
        request_body: pending.body.map(|b| redactor.body(b.as_bytes())),
        status,
        response_headers,
        response_body: None,
        error,
        curl: String::new(),
        id: next_id(),
        version,
        timing: Some(Timing {
            started: pending.started,
            wait,
            receive,
        }),
    }
}

fn response(response: &Value, at: f64) -> Answer {
    Answer {
        status: response["status"]
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0),
        protocol: response["protocol"].as_str().unwrap_or_default().to_owned(),
        headers: pairs(&response["headers"]),
        at,
    }
}

/// The protocol as HAR writes it.
fn protocol(devtools: &str) -> &'static str {
    match devtools.to_ascii_lowercase().as_str() {
        "h2" | "http/2" | "http/2.0" => "HTTP/2",
        "h3" | "http/3" => "HTTP/3",
        "http/1.0" => "HTTP/1.0",
        _ => "HTTP/1.1",
    }
}

fn seconds(value: &Value) -> f64 {
    value.as_f64().unwrap_or(0.0)
}

/// DevTools headers (an object) as ordered pairs; a header sent several
/// times arrives joined by newlines.
fn pairs(headers: &Value) -> Vec<(String, String)> {
    headers
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(name, value)| {
            value
                .as_str()
                .unwrap_or_default()
                .split('\n')
                .map(|v| (name.clone(), v.to_owned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_redirect_hop_and_its_target_are_two_records_with_their_answers() {
        let mut archive = Archive::default();
        archive.request(&json!({
            "requestId": "1", "wallTime": 1_800_000_000.0, "timestamp": 10.0,
            "request": {"method": "POST", "url": "http://issuer.test/acs?paymentToken=1f6c3e5a-8b2d-4c7e-9a41-2d5b7e9f0c13",
                        "headers": {"Content-Type": "application/x-www-form-urlencoded"}, "postData": "otp=123456"},
        }));
        archive.request(&json!({
            "requestId": "1", "wallTime": 1_800_000_000.25, "timestamp": 10.25,
            "redirectResponse": {"status": 303, "protocol": "http/1.1", "headers": {"Location": "http://shop.test/ok"}},
            "request": {"method": "GET", "url": "http://shop.test/ok", "headers": {}},
        }));
        archive.event("Network.responseReceived", &json!({
            "requestId": "1", "timestamp": 10.5,
            "response": {"status": 200, "protocol": "h2", "headers": {"Content-Type": "text/html"}},
        }));
        archive.event(
            "Network.loadingFinished",
            &json!({"requestId": "1", "timestamp": 10.75}),
        );
        archive.event(
            "Network.responseReceived",
            &json!({"requestId": "other", "timestamp": 11.0}),
        );
        let redactor = Redactor::default();
        redactor.add_payment_token("1f6c3e5a-8b2d-4c7e-9a41-2d5b7e9f0c13");
        let records = archive.finish(&redactor);
        assert_eq!(records.len(), 2);
        let (hop, page) = (&records[0], &records[1]);
        assert_eq!((hop.method.as_str(), hop.status), ("POST", Some(303)));
        assert!(
            !hop.url.contains("1f6c3e5a-8b2d-4c7e-9a41-2d5b7e9f0c13"),
            "{}",
            hop.url
        );
        assert_eq!(hop.timing.map(|t| t.wait), Some(Duration::from_millis(250)));
        assert_eq!((page.status, page.version), (Some(200), Some("HTTP/2")));
        assert_eq!(
            page.timing.map(|t| t.receive),
            Some(Duration::from_millis(250))
        );
        assert!(page.curl.is_empty() && page.response_body.is_none());
    }

    #[test]
    fn a_request_without_an_answer_says_so() {
        let mut archive = Archive::default();
        archive.request(&json!({"requestId": "7", "wallTime": 1.0, "timestamp": 1.0,
                                "request": {"method": "GET", "url": "https://issuer.test/"}}));
        archive.event("Network.loadingFailed", &json!({"requestId": "7", "timestamp": 2.0,
                                                       "errorText": "net::ERR_CERT_AUTHORITY_INVALID"}));
        let records = archive.finish(&Redactor::default());
        assert_eq!(records[0].status, None);
        assert_eq!(
            records[0].error.as_deref(),
            Some("net::ERR_CERT_AUTHORITY_INVALID")
        );
    }
}
