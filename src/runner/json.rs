//! Reading a target's JSON answers as deep as they are valid.
//!
//! serde_json refuses JSON nested past 128 levels by default, to keep its
//! recursion off the end of the stack. A lenient server echoes what it is
//! sent, and the robustness profile sends values nested up to 10,000 deep:
//! its answer is valid JSON all the same, and "does not parse as JSON" would
//! blame the target for payconf's limit.
//!
//! So payconf reads every valid answer within the size limit, whatever its
//! depth. Its first [`KEPT_LEVELS`] levels become a [`Value`] as usual;
//! anything nested deeper is still read to its end and checked as JSON
//! (serde_json skips a value with a loop, not recursion, so depth costs no
//! stack), and is kept as a stand-in of the same kind: an array stays an
//! array and an object an object, each holding a note that says what was
//! there. The value payconf keeps is therefore never deeper than about
//! [`KEPT_LEVELS`], and everything done with it later (schema validation,
//! redaction, serialising it into a report, dropping it) is as safe as
//! with any small answer.
//!
//! No verdict rests on what was not kept: every check reads fixed places
//! (`/error/code`, `/payload/paymentID`) or validates against the spec,
//! whose schemas end far above [`KEPT_LEVELS`] (a test holds the spec's
//! whole document, references followed, under it). A node one level past
//! the schemas is judged by its kind alone, which the stand-in keeps.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The levels of an answer kept as they are; deeper values are read
/// through and kept as stand-ins. Under serde_json's own limit (128), so
/// its recursion check never fires.
pub const KEPT_LEVELS: usize = 100;

/// What a stand-in holds in place of what it stands for.
pub const NOT_KEPT: &str = "(nested deeper than 100 levels: read and valid, not kept)";

/// Bytes that are not JSON, with serde_json's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotJson(pub String);

impl std::fmt::Display for NotJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses `bytes` as one JSON value, of any depth (see the module's guide).
pub fn parse(bytes: &[u8]) -> Result<Value, NotJson> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = Levels(KEPT_LEVELS)
        .deserialize(&mut deserializer)
        .map_err(|e| NotJson(e.to_string()))?;
    deserializer.end().map_err(|e| NotJson(e.to_string()))?;
    Ok(value)
}

/// Parses `bytes`, `None` when they are not JSON.
pub fn parse_ok(bytes: &[u8]) -> Option<Value> {
    parse(bytes).ok()
}

/// A value with this many levels left to keep.
#[derive(Clone, Copy)]
struct Levels(usize);

impl<'de> DeserializeSeed<'de> for Levels {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Levels {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Some(below) = self.0.checked_sub(1) else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Value::Array(vec![Value::from(NOT_KEPT)]));
        };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Levels(below))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(below) = self.0.checked_sub(1) else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            let mut note = Map::new();
            note.insert("…".to_owned(), Value::from(NOT_KEPT));
            return Ok(Value::Object(note));
        };
        let mut entries = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Levels(below))?;
            entries.insert(key, value);
        }
        Ok(Value::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
        format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
    }

    /// The depth of a value: a scalar is 1.
    fn depth(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
            _ => 1,
        }
    }

    #[test]
    fn answers_within_the_kept_levels_read_as_serde_json_reads_them() {
        for text in [
            r#"{"error":{"code":"0","description":"ok"},"payload":{"n":[1,-2,3.5,true,null]}}"#,
            r#"[{"a":{"b":[[["x"]]]}}]"#,
            r#"{"dup":1,"dup":2}"#,
            "18446744073709551615",
            "\"\\u00e9\"",
        ] {
            let expected: Value = serde_json::from_str(text).expect("valid");
            assert_eq!(parse(text.as_bytes()), Ok(expected), "{text}");
        }
        let at_the_limit = nested(KEPT_LEVELS - 1, "[", "]", "7");
        assert_eq!(
            parse(at_the_limit.as_bytes()),
            Ok(serde_json::from_str(&at_the_limit).expect("valid"))
        );
    }

    #[test]
    fn an_envelope_around_a_value_nested_past_serde_jsons_limit_is_read() {
        // The case of the issue: an echoed shopTransactionID 126 arrays deep,
        // which serde_json alone refuses.
        let echoed = nested(126, "[", "]", "\"x\"");
        let body = format!(
            r#"{{"error":{{"code":"1","description":"bad"}},"payload":{{"shopTransactionID":{echoed}}}}}"#
        );
        assert!(serde_json::from_str::<Value>(&body).is_err());
        let value = parse(body.as_bytes()).expect("valid JSON, read");
        assert_eq!(value.pointer("/error/code"), Some(&Value::from("1")));
        assert!(value.pointer("/payload/shopTransactionID/0/0").is_some());
        assert_eq!(depth(&value), KEPT_LEVELS + 2);
    }

    #[test]
    fn a_megabyte_of_nesting_is_read_without_recursion_and_kept_shallow() {
        for (open, close, inner) in [("[", "]", "1"), (r#"{"k":"#, "}", "null")] {
            let body = nested(500_000 / open.len(), open, close, inner);
            let value = parse(body.as_bytes()).expect("valid JSON, read");
            assert_eq!(depth(&value), KEPT_LEVELS + 2, "{open}");
            let shown = value.to_string();
            assert!(shown.contains(NOT_KEPT), "{open}");
        }
    }

    #[test]
    fn stand_ins_keep_the_kind_of_what_they_stand_for() {
        let arrays = parse(nested(KEPT_LEVELS + 5, "[", "]", "").as_bytes()).expect("valid");
        let mut node = &arrays;
        for _ in 0..KEPT_LEVELS {
            node = &node[0];
        }
        assert_eq!(node, &Value::Array(vec![Value::from(NOT_KEPT)]));
        let objects =
            parse(nested(KEPT_LEVELS + 5, r#"{"k":"#, "}", "1").as_bytes()).expect("valid");
        let mut node = &objects;
        for _ in 0..KEPT_LEVELS {
            node = &node["k"];
        }
        assert!(node.is_object());
    }

    #[test]
    fn bytes_that_are_not_json_are_said_so_however_deep_the_fault() {
        for bad in [
            nested(300, "[", "]", "1").replace("]]]]", "]]]}"),
            format!("{}1", "[".repeat(200_000)),
            nested(200, "[", "]", "tru"),
            nested(150, r#"{"k":"#, "}", "1").replacen(r#"{"k":"#, r#"{k:"#, 120),
            "{} trailing".to_owned(),
            String::new(),
        ] {
            assert!(
                parse(bad.as_bytes()).is_err(),
                "{}",
                &bad[..bad.len().min(40)]
            );
        }
    }

    #[test]
    fn the_specs_schemas_end_far_above_the_kept_levels() {
        let document: Value =
            serde_yaml_ng::from_str(payconf_spec::contract::EMBEDDED_SPEC).expect("the spec");
        fn resolved_depth(document: &Value, value: &Value, hops: usize) -> usize {
            let value = payconf_spec::json_ref::resolve(document, value);
            let into = |v: &Value| {
                if v.get("$ref").is_some() && hops < 8 {
                    resolved_depth(document, v, hops + 1)
                } else {
                    resolved_depth(document, v, hops)
                }
            };
            match value {
                Value::Array(items) => 1 + items.iter().map(into).max().unwrap_or(0),
                Value::Object(map) => 1 + map.values().map(into).max().unwrap_or(0),
                _ => 1,
            }
        }
        let deepest = resolved_depth(&document, &document, 0);
        assert!(
            deepest * 2 < KEPT_LEVELS,
            "the spec, references followed, is {deepest} levels deep"
        );
    }
}
