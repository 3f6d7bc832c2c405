//! What an API request says, read and validated: its JSON body parsed as
//! one object (strictly: a key given twice is refused), typed access to
//! its fields with each refusal naming the field's path, and the create
//! and submit bodies' validation. Nothing here serves or stores: the
//! request is read off its connection by [`body`] (the server's), and the
//! fuzz targets call the rest without a server.

#[cfg(feature = "server")]
pub mod body;
pub mod create;
pub mod response_urls;
pub mod submit;

use serde::de::DeserializeSeed;

use crate::{
    error::{ApiError, code},
    json::{Json, Object, Strict},
};

/// The largest request body the service reads.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

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

    /// A field's value, as the body has it.
    pub fn get(&self, name: &str) -> Option<&'a Json<'a>> {
        self.object.get(name)
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
}
