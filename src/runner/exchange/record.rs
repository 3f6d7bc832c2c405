//! An exchange made into what the reports keep ([`ExchangeRecord`],
//! redacted, with a `curl` command that replays it), and the exchanges kept
//! only for the HAR file ([`Unreported`]).

use std::sync::{Arc, Mutex};

use super::{Exchange, truncate};
use crate::runner::{redact::Redactor, result::ExchangeRecord};

/// How much of a body the reports keep.
const REPORTED_BODY: usize = 64 * 1024;

fn clip(text: String) -> String {
    truncate(text, REPORTED_BODY)
}

/// `'text'` for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Exchange {
    /// The exchange as the reports keep it.
    pub fn record(&self, redactor: &Redactor) -> ExchangeRecord {
        let request = &self.request;
        let request_headers: Vec<(String, String)> = request
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), redactor.header(n, v)))
            .collect();
        let shown_body = request.body.as_ref().map(|b| redactor.body(b));
        let url = redactor.text(request.url.as_str());

        let mut curl = format!("curl -i -X {} {}", request.method, shell_quote(&url));
        for (name, value) in &request.headers {
            let shown = match name.to_ascii_lowercase().as_str() {
                "authorization" => match value.split_once(' ') {
                    Some((scheme, _)) => format!("\"{name}: {scheme} $PAYCONF_API_KEY\""),
                    None => format!("\"{name}: $PAYCONF_API_KEY\""),
                },
                "paymenttoken" => format!("\"{name}: $PAYMENT_TOKEN\""),
                // curl asks for the codings it decodes, and decodes them.
                "accept-encoding" => {
                    curl.push_str(" --compressed");
                    continue;
                }
                _ => shell_quote(&format!("{name}: {}", redactor.header(name, value))),
            };
            curl.push_str(&format!(" -H {shown}"));
        }
        if let Some(body) = &shown_body {
            curl.push_str(&format!(" --data-raw {}", shell_quote(body)));
        }
        let request_body = shown_body.map(clip);

        let (status, response_headers, response_body, error) = match &self.response {
            Ok(response) => (
                Some(response.status),
                response
                    .headers
                    .iter()
                    .map(|(n, v)| (n.clone(), redactor.header(n, v)))
                    .collect(),
                Some(clip(redactor.answer_body(&request.url, &response.body))),
                None,
            ),
            Err(reason) => (
                None,
                Vec::new(),
                None,
                Some(redactor.text(&reason.to_string())),
            ),
        };
        ExchangeRecord {
            method: request.method.to_string(),
            url,
            request_headers,
            request_body,
            status,
            response_headers,
            response_body,
            error,
            curl,
            id: self.id,
            version: self.response.as_ref().ok().map(|r| r.version),
            timing: Some(self.timing),
        }
    }
}

/// With `--har`, the exchanges a scenario sent or saw but does not keep in
/// its report (volleys, generated bodies, pages the browser loaded),
/// redacted; without, nothing is kept.
#[derive(Clone, Debug, Default)]
pub struct Unreported(Option<Arc<Mutex<Vec<ExchangeRecord>>>>);

impl Unreported {
    /// Keeps records when `keep`, else nothing.
    pub fn new(keep: bool) -> Self {
        Self(keep.then(Default::default))
    }

    /// Keeps exchanges sent, redacted.
    pub fn sent<'a>(&self, redactor: &Redactor, exchanges: impl IntoIterator<Item = &'a Exchange>) {
        if let Some(kept) = &self.0 {
            let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(exchanges.into_iter().map(|e| e.record(redactor)));
        }
    }

    /// Keeps a record already redacted.
    pub fn seen(&self, record: ExchangeRecord) {
        if let Some(kept) = &self.0 {
            kept.lock().unwrap_or_else(|e| e.into_inner()).push(record);
        }
    }

    /// Whether it keeps records (`--har`).
    pub fn keeps(&self) -> bool {
        self.0.is_some()
    }

    /// The reported records and the kept ones, each once, in the order they
    /// were sent; none when nothing is kept.
    pub fn all(&self, reported: &[ExchangeRecord]) -> Option<Vec<ExchangeRecord>> {
        let kept = self.0.as_ref()?;
        let mut records = reported.to_vec();
        records.append(&mut kept.lock().unwrap_or_else(|e| e.into_inner()));
        records.sort_by_key(|r| (r.timing.map(|t| t.started), r.id));
        records.dedup_by_key(|r| r.id);
        Some(records)
    }
}
