//! `$ref` within one document, as OpenAPI and Arazzo write it
//! (`#/components/schemas/Envelope`): the one resolver the contract, the
//! docs and the workflows use.

use serde_json::Value;

/// How many references in a row are followed before giving up: a chain
/// longer than this is a cycle in all but name.
const MAX_HOPS: usize = 32;

/// Follows `value`'s `$ref` (and the target's, and so on) within
/// `document`. A value without `$ref`, or whose reference does not resolve
/// inside the document, is returned as it is.
pub fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    let mut current = value;
    for _ in 0..MAX_HOPS {
        let Some(target) = current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| document.pointer(pointer))
        else {
            return current;
        };
        current = target;
    }
    current
}

/// The component name a `$ref` to `#/components/schemas/NAME` points at.
pub fn schema_name(value: &Value) -> Option<&str> {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix(SCHEMAS))
}

/// Where OpenAPI keeps its reusable schemas.
pub const SCHEMAS: &str = "#/components/schemas/";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_are_followed_to_their_end() {
        let document = json!({"components": {"schemas": {
            "A": {"$ref": "#/components/schemas/B"},
            "B": {"type": "string"},
        }}});
        let value = json!({"$ref": "#/components/schemas/A"});
        assert_eq!(resolve(&document, &value), &json!({"type": "string"}));
        assert_eq!(schema_name(&value), Some("A"));
    }

    #[test]
    fn an_unresolved_or_cyclic_reference_stops_without_panicking() {
        let document = json!({"components": {"schemas": {
            "Loop": {"$ref": "#/components/schemas/Loop"},
        }}});
        let missing = json!({"$ref": "#/components/schemas/Missing"});
        assert_eq!(resolve(&document, &missing), &missing);
        let cyclic = json!({"$ref": "#/components/schemas/Loop"});
        assert!(resolve(&document, &cyclic).get("$ref").is_some());
    }
}
