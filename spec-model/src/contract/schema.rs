//! OpenAPI 3.0 schemas as JSON Schema (draft 2020-12).
//!
//! OpenAPI 3.0's schema dialect differs from JSON Schema in a few places that
//! change what validates: `nullable: true` widens `type` (and `enum`) to take
//! `null`; `exclusiveMinimum`/`exclusiveMaximum` are booleans beside
//! `minimum`/`maximum`; references point into `#/components/schemas`. The
//! conversion rewrites those and, for the core profile, drops every property
//! marked `x-conformance: reference`.

use jsonschema::{Draft, Registry, Validator};
use serde_json::{Map, Value, json};

use crate::{
    Profile,
    json_ref::{SCHEMAS, schema_name},
};

/// Converts one OpenAPI 3.0 schema (and, recursively, its subschemas).
/// `definitions` is `components/schemas`, used to see whether a referenced
/// schema is reference-profile only.
pub fn openapi_to_json_schema(schema: &Value, definitions: &Value, profile: Profile) -> Value {
    match schema {
        Value::Object(map) => convert_object(map, definitions, profile),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| openapi_to_json_schema(item, definitions, profile))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn convert_object(map: &Map<String, Value>, definitions: &Value, profile: Profile) -> Value {
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "$ref" => {
                let target = value.as_str().unwrap_or_default();
                let rewritten = target
                    .strip_prefix(SCHEMAS)
                    .map(|name| format!("#/$defs/{name}"))
                    .unwrap_or_else(|| target.to_owned());
                out.insert(key.clone(), Value::String(rewritten));
            }
            "properties" => {
                let Some(properties) = value.as_object() else {
                    out.insert(key.clone(), value.clone());
                    continue;
                };
                let kept: Map<String, Value> = properties
                    .iter()
                    .filter(|(_, p)| keeps(p, definitions, profile))
                    .map(|(name, p)| {
                        (
                            name.clone(),
                            openapi_to_json_schema(p, definitions, profile),
                        )
                    })
                    .collect();
                out.insert(key.clone(), Value::Object(kept));
            }
            "required" => {
                let dropped = dropped_properties(map, definitions, profile);
                let kept: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|name| !name.as_str().is_some_and(|n| dropped.contains(&n)))
                    .cloned()
                    .collect();
                out.insert(key.clone(), Value::Array(kept));
            }
            // Subschemas, in all the places OpenAPI 3.0 allows them.
            "items" | "additionalProperties" | "not" | "allOf" | "anyOf" | "oneOf" => {
                out.insert(
                    key.clone(),
                    openapi_to_json_schema(value, definitions, profile),
                );
            }
            // OpenAPI's own keywords with no JSON Schema meaning.
            "nullable" | "example" | "discriminator" | "xml" | "externalDocs" | "deprecated" => {}
            "exclusiveMinimum" | "exclusiveMaximum" => {}
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if map.get(flag) == Some(&Value::Bool(true)) {
            if let Some(limit) = out.remove(bound) {
                out.insert(flag.to_owned(), limit);
            }
        }
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        return make_nullable(out);
    }
    Value::Object(out)
}

/// `nullable: true`: `type` and `enum` widened to take null; a schema
/// without a `type` (a `$ref` or a combination) becomes "this, or null".
fn make_nullable(mut schema: Map<String, Value>) -> Value {
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    match schema.get("type").cloned() {
        Some(Value::String(t)) => {
            schema.insert("type".to_owned(), json!([t, "null"]));
            Value::Object(schema)
        }
        Some(Value::Array(mut types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            schema.insert("type".to_owned(), Value::Array(types));
            Value::Object(schema)
        }
        _ if schema.is_empty() => Value::Object(schema),
        _ => json!({"anyOf": [Value::Object(schema), {"type": "null"}]}),
    }
}

/// Whether a property stays in this profile.
fn keeps(property: &Value, definitions: &Value, profile: Profile) -> bool {
    profile.holds_reference_choices() || !is_reference_only(property, definitions)
}

fn is_reference_only(schema: &Value, definitions: &Value) -> bool {
    let marked = |s: &Value| {
        s.get("x-conformance")
            .and_then(Value::as_str)
            .and_then(Profile::named)
            == Some(Profile::Reference)
    };
    if marked(schema) {
        return true;
    }
    schema_name(schema)
        .and_then(|name| definitions.get(name))
        .is_some_and(marked)
}

fn dropped_properties<'a>(
    map: &'a Map<String, Value>,
    definitions: &Value,
    profile: Profile,
) -> Vec<&'a str> {
    map.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| !keeps(p, definitions, profile))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// Compiles a schema of the spec, with every component schema beside it as
/// `$defs`. To compile many schemas of one spec, convert its components
/// once: [`Components::compile`].
pub fn compile_schema(
    schema: &Value,
    definitions: &Value,
    profile: Profile,
) -> Result<Validator, SchemaError> {
    Components::new(definitions, profile)?.compile(schema)
}

/// Where the converted components are, for the schemas compiled against
/// them.
const COMPONENTS: &str = "urn:payconf:components";

/// A spec's component schemas (`components/schemas`) converted once for a
/// profile, to compile each schema of the spec against: the spec's answers
/// are about a hundred schemas, and each refers to the components. They are
/// checked against JSON Schema's meta-schema once, here, and held in a
/// registry each compiled schema refers into, so compiling an answer's
/// schema converts and checks that schema alone.
#[derive(Debug)]
pub struct Components<'a> {
    definitions: &'a Value,
    registry: Registry<'static>,
    profile: Profile,
}

impl<'a> Components<'a> {
    /// Converts `definitions` (`components/schemas`) for `profile`.
    pub fn new(definitions: &'a Value, profile: Profile) -> Result<Self, SchemaError> {
        let converted: Map<String, Value> = definitions
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, s)| {
                (
                    name.clone(),
                    openapi_to_json_schema(s, definitions, profile),
                )
            })
            .collect();
        let document = json!({"$schema": DIALECT, "$defs": converted});
        jsonschema::meta::validate(&document).map_err(|e| SchemaError::Invalid(e.to_string()))?;
        let registry = Registry::new()
            .draft(Draft::Draft202012)
            .add(COMPONENTS, Draft::Draft202012.create_resource(document))
            .and_then(jsonschema::RegistryBuilder::prepare)
            .map_err(|e| SchemaError::Invalid(e.to_string()))?;
        Ok(Self {
            definitions,
            registry,
            profile,
        })
    }

    /// The profile these components were converted for.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Compiles one schema of the spec against the converted components.
    pub fn compile(&self, schema: &Value) -> Result<Validator, SchemaError> {
        let mut root = openapi_to_json_schema(schema, self.definitions, self.profile);
        refer_to_components(&mut root);
        let Value::Object(mut root) = root else {
            return Err(SchemaError::NotObject(root));
        };
        root.insert("$schema".to_owned(), json!(DIALECT));
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .with_registry(&self.registry)
            .build(&Value::Object(root))
            .map_err(|e| SchemaError::Invalid(e.to_string()))
    }
}

/// The JSON Schema dialect the conversion writes.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A compiled schema's references to components (`#/$defs/Name`, as the
/// conversion writes them) made to point into the components' registry.
fn refer_to_components(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(target) if key == "$ref" => {
                        if target.starts_with("#/$defs/") {
                            target.insert_str(0, COMPONENTS);
                        }
                    }
                    other => refer_to_components(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(refer_to_components),
        _ => {}
    }
}

/// Why a schema of the spec does not compile.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The schema is not a JSON object.
    #[error("a schema must be an object, found {0}")]
    NotObject(Value),
    /// The JSON Schema it becomes is not valid: the validator's words.
    #[error("{0}")]
    Invalid(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_defs() -> Value {
        json!({})
    }

    #[test]
    fn nullable_widens_type_and_enum() {
        let converted = openapi_to_json_schema(
            &json!({"type": "string", "enum": ["a"], "nullable": true}),
            &no_defs(),
            Profile::Reference,
        );
        assert_eq!(
            converted,
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
    }

    #[test]
    fn nullable_reference_becomes_this_or_null() {
        let converted = openapi_to_json_schema(
            &json!({"allOf": [{"$ref": "#/components/schemas/X"}], "nullable": true}),
            &no_defs(),
            Profile::Reference,
        );
        assert_eq!(
            converted,
            json!({"anyOf": [{"allOf": [{"$ref": "#/$defs/X"}]}, {"type": "null"}]})
        );
    }

    #[test]
    fn without_nullable_null_is_refused() {
        let validator = compile_schema(&json!({"type": "string"}), &no_defs(), Profile::Core)
            .expect("compiles");
        assert!(!validator.is_valid(&Value::Null));
    }

    #[test]
    fn boolean_exclusive_bounds_become_numeric() {
        let converted = openapi_to_json_schema(
            &json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 5, "exclusiveMaximum": false}),
            &no_defs(),
            Profile::Reference,
        );
        assert_eq!(
            converted,
            json!({"type": "number", "exclusiveMinimum": 0, "maximum": 5})
        );
    }

    #[test]
    fn core_drops_reference_properties_and_their_required_entries() {
        let defs = json!({"Urls": {"type": "object", "x-conformance": "reference"}});
        let schema = json!({
            "type": "object",
            "required": ["a", "b", "urls"],
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "string", "x-conformance": "reference"},
                "urls": {"$ref": "#/components/schemas/Urls"}
            }
        });
        let core = openapi_to_json_schema(&schema, &defs, Profile::Core);
        assert_eq!(core["required"], json!(["a"]));
        assert_eq!(core["properties"].as_object().map(Map::len), Some(1));
        let reference = openapi_to_json_schema(&schema, &defs, Profile::Reference);
        assert_eq!(reference["required"], json!(["a", "b", "urls"]));
    }

    #[test]
    fn references_reach_the_components_at_every_depth() {
        let defs = json!({
            "Id": {"type": "string", "minLength": 2},
            "Item": {"type": "object", "required": ["id"], "properties": {"id": {"$ref": "#/components/schemas/Id"}}},
        });
        let components = Components::new(&defs, Profile::Core).expect("components");
        let list = components
            .compile(&json!({"type": "array", "items": {"$ref": "#/components/schemas/Item"}}))
            .expect("compiles");
        assert!(list.is_valid(&json!([{"id": "ab"}])));
        assert!(
            !list.is_valid(&json!([{"id": "a"}])),
            "Id's bound, two references down"
        );
        assert!(!list.is_valid(&json!([{}])), "Item's required property");
        let item = components
            .compile(&json!({"$ref": "#/components/schemas/Item"}))
            .expect("a reference alone compiles");
        assert!(!item.is_valid(&json!({"id": 7})));
    }

    #[test]
    fn a_component_that_is_no_json_schema_is_refused_where_it_is_converted() {
        let defs = json!({"Id": {"type": "strnig"}});
        let error = Components::new(&defs, Profile::Core).expect_err("refused");
        assert!(error.to_string().contains("strnig"), "{error}");
        let error = compile_schema(&json!({"type": "objcet"}), &no_defs(), Profile::Core)
            .expect_err("an answer's schema is checked too");
        assert!(error.to_string().contains("objcet"), "{error}");
    }

    #[test]
    fn a_reference_to_no_component_is_refused() {
        let defs = no_defs();
        let components = Components::new(&defs, Profile::Core).expect("components");
        assert!(
            components
                .compile(&json!({"$ref": "#/components/schemas/Missing"}))
                .is_err()
        );
    }
}
