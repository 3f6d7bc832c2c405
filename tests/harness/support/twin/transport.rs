//! The twin's transport variations: a rate limit with `Retry-After`, and
//! answers compressed whatever the request accepts.

use std::time::Duration;

use wiremock::ResponseTemplate;

use super::{JSON, Twin, Variation, answer};

impl Twin {
    /// A JSON answer, compressed in the variation that always compresses.
    pub(super) fn json(&self, status: u16, body: String) -> ResponseTemplate {
        if self.variation != Some(Variation::GzipAlways) {
            return answer(status, JSON, body);
        }
        use std::io::Write as _;
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(body.as_bytes()).expect("gzip");
        answer(status, JSON, gzip.finish().expect("gzip")).insert_header("Content-Encoding", "gzip")
    }

    /// Whether this API request is over the rate-limited variation's 20 a second.
    pub(super) fn over_rate(&self) -> bool {
        if self.variation != Some(Variation::RateLimited) {
            return false;
        }
        let now = std::time::Instant::now();
        let mut recent = self.state.recent_requests.lock().expect("lock");
        while recent
            .front()
            .is_some_and(|at| now.duration_since(*at) > Duration::from_secs(1))
        {
            recent.pop_front();
        }
        if recent.len() >= 20 {
            return true;
        }
        recent.push_back(now);
        false
    }
}
