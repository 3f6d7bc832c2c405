//! A request body's JSON as the service reads it: members of an object in a
//! vector, in the order given, strings borrowed from the body where they
//! hold no escapes, and of numbers only that they are numbers.
//!
//! Request objects have a handful of members, and the service asks each for
//! a few of them by name: a short vector scanned in order costs less than a
//! hashed map (profiled, hashing each key to build and then to query
//! `serde_json`'s map was a fifth of reading a create body). A key given
//! twice is refused while parsing; past [`SCAN_LIMIT`] members an object
//! checks for repeated keys with a hash set, so a hostile body of thousands
//! of keys costs no more than it would with a map.

use std::{borrow::Cow, collections::HashSet};

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Members an object checks for repeated keys by scanning.
const SCAN_LIMIT: usize = 16;

/// A JSON value of a request body.
#[derive(Clone, Debug, PartialEq)]
pub enum Json<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number; the service reads no field as a number.
    Number,
    /// A string.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Json<'a>>),
    /// An object.
    Object(Object<'a>),
}

/// A JSON object's members, in the order given, each key once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Object<'a> {
    /// The value of the member named `name`.
    pub fn get(&self, name: &str) -> Option<&Json<'a>> {
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
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Json<'de>, E> {
        Ok(Json::Number)
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v)))
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut seen: Option<HashSet<String>> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let repeated = match &mut seen {
                Some(seen) => !seen.insert(key.clone().into_owned()),
                None => members.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                return Err(repeated_key(&key));
            }
            if seen.is_none() && members.len() == SCAN_LIMIT {
                let mut keys: HashSet<String> = members
                    .iter()
                    .map(|(k, _)| k.clone().into_owned())
                    .collect();
                keys.insert(key.clone().into_owned());
                seen = Some(keys);
            }
            let value = map.next_value_seed(Strict)?;
            members.push((key, value));
        }
        Ok(Json::Object(Object(members)))
    }
}

/// An object's key, borrowed from the body where it holds no escapes.
#[derive(Clone, Copy)]
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
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

    fn parse(text: &str) -> Result<Json<'_>, serde_json::Error> {
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
        assert_eq!(inner.get("c"), Some(&Json::String("x".into())));
        let escaped = parse(r#"{"a\u0062": "c\nd"}"#).expect("JSON");
        let Json::Object(escaped) = escaped else {
            panic!("an object")
        };
        assert_eq!(escaped.get("ab"), Some(&Json::String("c\nd".into())));
        assert_eq!(object.get("z"), None);
        assert_eq!(
            object
                .0
                .iter()
                .map(|(k, _)| k.as_ref())
                .collect::<Vec<&str>>(),
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
