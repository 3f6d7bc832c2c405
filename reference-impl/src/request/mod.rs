//! Reading an API request's JSON body: media type, size limit, time limit,
//! then typed access to its fields, each refusal naming the field's path.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, header};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde::de::DeserializeSeed;

use crate::{
    error::{ApiError, code},
    json::{Json, Object, Strict},
};

/// The largest request body the service reads.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

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

/// Parses bytes as one JSON object. Syntax errors say where, never what: the
/// body may hold card data. A key given twice in one object is refused:
/// which of the two a reader takes differs between parsers, so a request
/// that could mean two payments means none. Nesting deeper than serde_json's
/// limit (128) is refused too.
pub fn parse_json_object(bytes: &[u8]) -> Result<Object<'_>, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Strict
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        Ok(Json::Object(object)) => Ok(object),
        Ok(_) => Err(ApiError::MalformedJson("expected a JSON object".into())),
        Err(e) => Err(ApiError::MalformedJson(e.to_string())),
    }
}

/// Whether the body is labelled JSON (`application/json`, any parameters).
fn is_json_media_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// A JSON object and the dotted path it sits at, for messages.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a> {
    object: &'a Object<'a>,
    path: &'a str,
}

impl<'a> Fields<'a> {
    /// The top-level object of a request body.
    pub fn root(object: &'a Object<'a>) -> Self {
        Self { object, path: "" }
    }

    /// The dotted path of a field of this object.
    pub fn path_of(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// A string field that must be present; `missing_code` is the envelope
    /// code when it is absent or not a string.
    pub fn required_str(
        &self,
        name: &str,
        missing_code: &'static str,
    ) -> Result<&'a str, ApiError> {
        self.required_str_coded(name, missing_code, missing_code)
    }

    /// A string field that must be present, where the real service answers
    /// a missing field with another code than a value of the wrong type
    /// (`amount`: 1112 missing, 1113 not numeric).
    pub fn required_str_coded(
        &self,
        name: &str,
        missing_code: &'static str,
        wrong_type_code: &'static str,
    ) -> Result<&'a str, ApiError> {
        match self.object.get(name) {
            Some(Json::String(s)) => Ok(s),
            None | Some(Json::Null) => Err(ApiError::field(
                missing_code,
                self.path_of(name),
                "is required",
            )),
            Some(_) => Err(ApiError::field(
                wrong_type_code,
                self.path_of(name),
                "must be a string",
            )),
        }
    }

    /// A string field that may be absent or null.
    pub fn optional_str(&self, name: &str) -> Result<Option<&'a str>, ApiError> {
        match self.object.get(name) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s)),
            Some(_) => Err(ApiError::field(
                code::INVALID_PARAMETER,
                self.path_of(name),
                "must be a string",
            )),
        }
    }

    /// An object field that must be present, its absence answered with
    /// `missing_code`.
    pub fn required_object(
        &self,
        name: &'a str,
        path: &'a str,
        missing_code: &'static str,
    ) -> Result<Fields<'a>, ApiError> {
        self.optional_object(name, path)?
            .ok_or_else(|| ApiError::field(missing_code, path, "is required"))
    }

    /// An object field that may be absent or null. `path` is its dotted path,
    /// given by the caller so it can be a `'static` or borrowed string.
    pub fn optional_object(
        &self,
        name: &'a str,
        path: &'a str,
    ) -> Result<Option<Fields<'a>>, ApiError> {
        match self.object.get(name) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::Object(object)) => Ok(Some(Fields { object, path })),
            Some(_) => Err(ApiError::field(
                code::INVALID_PARAMETER,
                path,
                "must be an object",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_say_where_not_what() {
        let err = parse_json_object(br#"{"number": "4111111111111111""#).expect_err("truncated");
        let text = err.to_string();
        assert!(text.contains("line 1"), "{text}");
        assert!(!text.contains("4111111111111111"), "{text}");
    }

    #[test]
    fn a_json_value_that_is_not_an_object_is_refused() {
        for body in [&b"[]"[..], b"\"x\"", b"12", b"null"] {
            assert!(matches!(
                parse_json_object(body),
                Err(ApiError::MalformedJson(_))
            ));
        }
    }

    #[test]
    fn field_errors_name_the_dotted_path() {
        let object = parse_json_object(br#"{"card": {"number": 4}}"#).expect("object");
        let card = Fields::root(&object)
            .required_object("card", "card", "1105")
            .expect("present");
        let err = card.required_str("number", "1119").expect_err("a number");
        assert_eq!(err.to_string(), "card.number must be a string");
        assert_eq!(err.code(), "1119");
    }

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
