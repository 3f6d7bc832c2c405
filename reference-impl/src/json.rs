//! A request body's JSON as the service reads it: members of an object in a
//! vector, in the order given, and of numbers only that they are numbers.
//!
//! Request objects have a handful of members, and the service asks each for
//! a few of them by name: a short vector scanned in order costs less than a
//! hashed map (profiled, hashing each key to build and then to query
//! `serde_json`'s map was a fifth of reading a create body). A key given
//! twice is refused while parsing; past [`SCAN_LIMIT`] members an object
//! checks for repeated keys with a hash set, so a hostile body of thousands
//! of keys costs no more than it would with a map.

use std::collections::HashSet;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Members an object checks for repeated keys by scanning.
const SCAN_LIMIT: usize = 16;

/// A JSON value of a request body.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number; the service reads no field as a number.
    Number,
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object.
    Object(Object),
}

/// A JSON object's members, in the order given, each key once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object(Vec<(String, Json)>);

impl Object {
    /// The value of the member named `name`.
    pub fn get(&self, name: &str) -> Option<&Json> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }
}

/// Parses one value, refusing an object that gives a key twice.
#[derive(Clone, Copy)]
pub struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Json, E> {
        Ok(Json::Number)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Json, E> {
        Ok(Json::Number)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Json, E> {
        Ok(Json::Number)
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut seen: Option<HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            let repeated = match &mut seen {
                Some(seen) => !seen.insert(key.clone()),
                None => members.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                return Err(repeated_key(&key));
            }
            if seen.is_none() && members.len() == SCAN_LIMIT {
                let mut keys: HashSet<String> = members.iter().map(|(k, _)| k.clone()).collect();
                keys.insert(key.clone());
                seen = Some(keys);
            }
            let value = map.next_value_seed(Strict)?;
            members.push((key, value));
        }
        Ok(Json::Object(Object(members)))
    }
}

/// Names the key when it looks like a field name, not when it could be
/// anything the client sent.
fn repeated_key<E: serde::de::Error>(key: &str) -> E {
    let field_name = key.len() <= 64 && key.chars().all(|c| c.is_ascii_alphabetic() || c == '_');
    if field_name {
        E::custom(format_args!("the key {key:?} is given twice"))
    } else {
        E::custom("a key is given twice")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Json, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        Strict.deserialize(&mut deserializer)
    }

    #[test]
    fn values_keep_their_kind_and_objects_their_order() {
        let json = parse(r#"{"b": [1, -2, 3.5, true, null], "a": {"c": "x"}}"#).expect("JSON");
        let Json::Object(object) = json else {
            panic!("an object")
        };
        assert_eq!(
            object.get("b"),
            Some(&Json::Array(vec![
                Json::Number,
                Json::Number,
                Json::Number,
                Json::Bool(true),
                Json::Null
            ]))
        );
        let Some(Json::Object(inner)) = object.get("a") else {
            panic!("an object")
        };
        assert_eq!(inner.get("c"), Some(&Json::String("x".to_owned())));
        assert_eq!(object.get("z"), None);
        assert_eq!(
            object.0.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
    }

    #[test]
    fn a_key_given_twice_is_refused_in_small_and_large_objects() {
        for members in [2, SCAN_LIMIT, SCAN_LIMIT + 1, 500] {
            let mut text: Vec<String> = (0..members).map(|i| format!("\"k{i}\": {i}")).collect();
            assert!(
                parse(&format!("{{{}}}", text.join(","))).is_ok(),
                "{members} distinct keys"
            );
            text.push("\"k1\": 0".to_owned());
            let error = parse(&format!("{{{}}}", text.join(","))).expect_err("a repeated key");
            assert!(
                error.to_string().contains("a key is given twice"),
                "{error}"
            );
        }
        let error = parse(r#"{"amount": "1", "amount": "2"}"#).expect_err("a repeated key");
        assert!(
            error
                .to_string()
                .contains("the key \"amount\" is given twice"),
            "{error}"
        );
    }
}
