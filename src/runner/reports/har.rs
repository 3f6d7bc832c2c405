//! HAR 1.2, the HTTP Archive format that browsers' developer tools, proxies
//! and API clients open: every exchange of the run, API calls and issuer
//! pages, with when it was sent and how long it took, redacted like every
//! other report. Each scenario is a page (`pages[]`, its id the scenario's
//! `file:line`); each entry names its page and carries the scenario in
//! `_payconf` (feature, name, location, outcome) and in its `comment`.
//!
//! What HAR cannot know is said so its readers understand it: a request that
//! got no answer has status 0 and the reason in `_error` (as Chromium writes
//! it); sizes of headers are `-1` (not measured); a body cut at the reports'
//! 64 KiB limit says so in its `comment`; pages the browser loaded carry no
//! body (the browser's log has none) and `_payconf.seen_by` `browser`.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use time::OffsetDateTime;
use url::Url;

use super::RenderError;
use crate::runner::outcome::RunOutcome;
use crate::runner::result::{ExchangeRecord, ScenarioResult};

/// The report as text.
pub fn render(inputs: &RunOutcome) -> Result<String, RenderError> {
    let mut pages = Vec::new();
    let mut entries = Vec::new();
    for scenario in inputs.report.sorted() {
        // Every try's exchanges, earlier tries' first (`--retries`).
        let records: Vec<&ExchangeRecord> = scenario.har().collect();
        if scenario.leftovers.har.is_none() {
            continue;
        }
        let page = scenario.location();
        let first = records
            .iter()
            .filter_map(|r| r.timing.map(|t| t.started))
            .min()
            .unwrap_or_else(|| SystemTime::from(inputs.started));
        pages.push(json!({
            "startedDateTime": date_time(first),
            "id": page,
            "title": format!("{}: {}", scenario.feature, scenario.name),
            "pageTimings": {"onContentLoad": -1, "onLoad": -1},
        }));
        entries.extend(records.into_iter().map(|record| entry(record, scenario)));
    }
    let har = json!({
        "log": {
            "version": "1.2",
            "creator": {"name": "payconf", "version": env!("CARGO_PKG_VERSION")},
            "comment": format!(
                "payconf run against {}; every exchange of the run, redacted; each entry's \
                 pageref and _payconf name its scenario",
                inputs.report.target
            ),
            "pages": pages,
            "entries": entries,
        }
    });
    Ok(serde_json::to_string_pretty(&har)?)
}

/// One exchange as a HAR entry.
fn entry(record: &ExchangeRecord, scenario: &ScenarioResult) -> Value {
    let timing = record.timing;
    let (time, wait, receive) = timing.map_or((0.0, 0.0, 0.0), |t| {
        (millis(t.total()), millis(t.wait), millis(t.receive))
    });
    let version = record.version.unwrap_or("HTTP/1.1");
    let request_type = header(&record.request_headers, "content-type").unwrap_or("");
    let response_type = header(&record.response_headers, "content-type").unwrap_or("");
    let mut request = json!({
        "method": record.method,
        "url": record.url,
        "httpVersion": version,
        "cookies": [],
        "headers": name_values(&record.request_headers),
        "queryString": query(&record.url),
        "headersSize": -1,
        "bodySize": record.request_body.as_ref().map_or(0, |b| b.len() as i64),
    });
    if let Some(body) = &record.request_body {
        request["postData"] = json!({"mimeType": request_type, "text": body});
    }
    let mut content = json!({
        "size": record.response_body.as_ref().map_or(0, |b| b.len()),
        "mimeType": response_type,
    });
    if let Some(body) = &record.response_body {
        content["text"] = json!(body);
        if body.ends_with(" bytes in all)") {
            content["comment"] = json!("cut at the reports' 64 KiB limit");
        }
    }
    let mut entry = json!({
        "pageref": scenario.location(),
        "startedDateTime": date_time(timing.map_or(SystemTime::UNIX_EPOCH, |t| t.started)),
        "time": time,
        "request": request,
        "response": {
            "status": record.status.unwrap_or(0),
            "statusText": record.status.map_or("", reason),
            "httpVersion": if record.status.is_some() { version } else { "" },
            "cookies": [],
            "headers": name_values(&record.response_headers),
            "content": content,
            "redirectURL": header(&record.response_headers, "location").unwrap_or(""),
            "headersSize": -1,
            "bodySize": record.response_body.as_ref().map_or(-1, |b| b.len() as i64),
        },
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": wait, "receive": receive, "ssl": -1},
        "comment": format!("{} ({})", scenario.name, scenario.location()),
        "_payconf": {
            "feature": scenario.feature,
            "scenario": scenario.name,
            "location": scenario.location(),
            "outcome": scenario.outcome.name(),
            "seen_by": if record.curl.is_empty() { "browser" } else { "payconf" },
        },
    });
    if let Some(error) = &record.error {
        entry["_error"] = json!(error);
    }
    entry
}

fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// ISO 8601 in UTC with milliseconds, as HAR asks: `2026-11-23T19:45:10.490Z`.
fn date_time(at: SystemTime) -> String {
    OffsetDateTime::from(at)
        .format(time::macros::format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
        ))
        .unwrap_or_default()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn name_values(pairs: &[(String, String)]) -> Vec<Value> {
    pairs
        .iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

/// The query of an address (already redacted) as name/value pairs.
fn query(url: &str) -> Vec<Value> {
    Url::parse(url)
        .map(|url| {
            url.query_pairs()
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect()
        })
        .unwrap_or_default()
}

/// The standard reason phrase of a status, or nothing.
fn reason(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
}
