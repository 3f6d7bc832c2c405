//! Reading an API request's body off its connection: the media type, the
//! size limit and the time limit, a refused body drained so the refusal
//! can be read.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, header};
use http_body_util::BodyExt;
use hyper::body::Incoming;

use super::MAX_BODY_BYTES;
use crate::error::ApiError;

/// How much of a refused body is still read, and thrown away, before the
/// refusal is sent: a client still writing its body when the server closes
/// the connection gets a reset instead of the answer (over TLS above all),
/// so a refusal is only readable once the body is in. Bodies declared larger
/// are refused at once.
const DRAIN_LIMIT: u64 = 1024 * 1024;

/// Checks the media type and reads the body, within `timeout`, as one JSON object.
pub async fn read_json_body(
    headers: &HeaderMap,
    body: Incoming,
    timeout: Duration,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = ApiError::PayloadTooLarge {
        limit: MAX_BODY_BYTES,
    };
    if !is_json_media_type(headers) {
        drain(body, declared, timeout).await;
        return Err(ApiError::UnsupportedMediaType);
    }
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        drain(body, declared, timeout).await;
        return Err(too_large);
    }
    let mut body = body;
    let read = async {
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            // The client went away or broke the framing: nobody is left to
            // read an answer, but it is still a well-formed refusal.
            let frame =
                frame.map_err(|_| ApiError::MalformedJson("the body could not be read".into()))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if bytes.len() + data.len() > MAX_BODY_BYTES {
                return Ok(None);
            }
            bytes.extend_from_slice(&data);
        }
        Ok::<_, ApiError>(Some(Bytes::from(bytes)))
    };
    let outcome = tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| ApiError::BodyTimeout {
            seconds: timeout.as_secs(),
        })?;
    match outcome? {
        Some(bytes) => Ok(bytes),
        None => {
            drain(body, None, timeout).await;
            Err(too_large)
        }
    }
}

/// Reads what is left of a refused body, up to [`DRAIN_LIMIT`] and
/// `timeout`, and throws it away.
async fn drain(mut body: Incoming, declared: Option<u64>, timeout: Duration) {
    if declared.is_some_and(|n| n > DRAIN_LIMIT) {
        return;
    }
    let read = async {
        let mut seen = 0u64;
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                seen += data.len() as u64;
                if seen > DRAIN_LIMIT {
                    break;
                }
            }
        }
    };
    let _ = tokio::time::timeout(timeout, read).await;
}

/// Whether the body is labelled JSON (`application/json`, any parameters).
fn is_json_media_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_type_parameters_and_case_are_accepted() {
        let mut headers = HeaderMap::new();
        for value in ["application/json", "Application/JSON; charset=utf-8"] {
            headers.insert(header::CONTENT_TYPE, value.parse().expect("header"));
            assert!(is_json_media_type(&headers), "{value}");
        }
        for value in ["text/plain", "application/jsonx", "text/json"] {
            headers.insert(header::CONTENT_TYPE, value.parse().expect("header"));
            assert!(!is_json_media_type(&headers), "{value}");
        }
    }
}
