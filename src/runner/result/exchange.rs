//! An exchange with the target as a result keeps it: every part redacted,
//! with when it was sent and how long its parts took.

use std::time::{Duration, SystemTime};

/// An exchange as the reports show it: every part redacted, with a `curl`
/// command that replays the request. Nothing secret is left in it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExchangeRecord {
    /// Method.
    pub method: String,
    /// Address, redacted.
    pub url: String,
    /// Request headers, redacted.
    pub request_headers: Vec<(String, String)>,
    /// Request body, redacted.
    pub request_body: Option<String>,
    /// HTTP status, when an answer came.
    pub status: Option<u16>,
    /// Response headers, redacted.
    pub response_headers: Vec<(String, String)>,
    /// Response body, redacted, up to 64 KiB.
    pub response_body: Option<String>,
    /// Why no usable answer came.
    pub error: Option<String>,
    /// A `curl` command that sends the request again, with the API key and
    /// the payment token read from `$PAYCONF_API_KEY` and `$PAYMENT_TOKEN`.
    pub curl: String,
    /// The exchange's id in the run.
    #[serde(skip)]
    pub id: u64,
    /// The answer's protocol, when one came.
    #[serde(skip)]
    pub version: Option<&'static str>,
    /// When it was sent, and how long its parts took.
    #[serde(skip)]
    pub timing: Option<Timing>,
}

/// When an exchange was sent and how long its parts took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// When the request was sent.
    pub started: SystemTime,
    /// From sending to the answer's headers (connecting and sending included).
    pub wait: Duration,
    /// Reading the answer's body.
    pub receive: Duration,
}

impl Timing {
    /// The whole exchange.
    pub fn total(&self) -> Duration {
        self.wait + self.receive
    }
}
