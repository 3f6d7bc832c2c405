//! Field tables, read off a schema: every property depth first, with its
//! type, its rules (format, pattern, bounds) and whether it must be present,
//! each marked with the profile it belongs to. A schema's `x-reference`
//! lists the rules of its own that are the reference profile's choice where
//! the contract is silent (`required`, `maxLength`, `pattern`, ...); those
//! show as "(reference)".

use serde::Serialize;
use serde_json::{Map, Value};

use payconf_spec::json_ref::resolve;

use super::model::{conformance, text};

/// One row of a field table.
#[derive(Clone, Debug, Serialize)]
pub struct FieldRow {
    /// Dotted name: `payload.userRedirect.href`, `items[]`.
    pub name: String,
    /// JSON type, with `nullable` when it may be null.
    pub kind: String,
    /// `format`, `pattern`, bounds and allowed values, as text.
    pub format: String,
    /// Whether the field must be present.
    pub required: bool,
    /// Whether that it must be present is the reference profile's rule.
    pub required_by_reference: bool,
    /// `core` (the contract states it) or `reference`.
    pub conformance: String,
    /// Its description, from the property or else its schema.
    pub description: String,
}

/// The fields of a schema, depth first, with dotted names.
pub fn fields(document: &Value, schema: &Value) -> Vec<FieldRow> {
    let mut rows = Vec::new();
    collect_fields(document, schema, "", "", &mut rows);
    rows
}

/// A schema with its `allOf` parts merged: properties, required names.
pub(super) fn merged(document: &Value, schema: &Value) -> (Map<String, Value>, Vec<String>) {
    let schema = resolve(document, schema);
    let mut properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (more, also) = merged(document, part);
        for (name, property) in more {
            properties.entry(name).or_insert(property);
        }
        required.extend(also);
    }
    (properties, required)
}

/// The rules of a schema's own that are the reference profile's: its
/// `x-reference` list.
pub fn reference_rules(schema: &Value) -> Vec<&str> {
    schema
        .get("x-reference")
        .and_then(Value::as_array)
        .map(|rules| rules.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn describe_format(schema: &Value) -> String {
    let reference = reference_rules(schema);
    let mut parts = Vec::new();
    let mut push = |key: &str, part: String| {
        if reference.contains(&key) {
            parts.push(format!("{part} (reference)"));
        } else {
            parts.push(part);
        }
    };
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        push("format", format.to_owned());
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        push("pattern", format!("pattern `{pattern}`"));
    }
    for (key, word) in [
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minimum", "min"),
        ("maximum", "max"),
        ("maxProperties", "max properties"),
    ] {
        if let Some(bound) = schema.get(key) {
            push(key, format!("{word} {bound}"));
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = values.iter().map(Value::to_string).collect();
        push("enum", format!("one of {}", shown.join(", ")));
    }
    parts.join("; ")
}

fn collect_fields(
    document: &Value,
    schema: &Value,
    prefix: &str,
    inherited: &str,
    rows: &mut Vec<FieldRow>,
) {
    let (properties, required) = merged(document, schema);
    let required_by_reference = reference_rules(resolve(document, schema)).contains(&"required");
    let own = conformance(resolve(document, schema));
    let inherited = if own.is_empty() {
        inherited
    } else {
        own.as_str()
    };
    for (name, property) in properties {
        let resolved = resolve(document, &property);
        let (merged_properties, _) = merged(document, &property);
        let kind = resolved
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(if merged_properties.is_empty() {
                "any"
            } else {
                "object"
            })
            .to_owned();
        let nullable = resolved.get("nullable").and_then(Value::as_bool) == Some(true);
        let mut description = text(property.get("description"));
        if description.is_empty() {
            description = text(resolved.get("description"));
        }
        let mut row_conformance = conformance(&property);
        if row_conformance.is_empty() {
            row_conformance = conformance(resolved);
        }
        if row_conformance.is_empty() {
            row_conformance = inherited.to_owned();
        }
        let full = format!("{prefix}{name}");
        rows.push(FieldRow {
            name: full.clone(),
            kind: if nullable {
                format!("{kind}, nullable")
            } else {
                kind.clone()
            },
            format: describe_format(resolved),
            required: required.contains(&name),
            required_by_reference,
            conformance: row_conformance.clone(),
            description: description.split_whitespace().collect::<Vec<_>>().join(" "),
        });
        if !merged_properties.is_empty() {
            collect_fields(
                document,
                &property,
                &format!("{full}."),
                &row_conformance,
                rows,
            );
        }
        if kind == "array" {
            if let Some(items) = resolved.get("items") {
                collect_fields(
                    document,
                    items,
                    &format!("{full}[]."),
                    &row_conformance,
                    rows,
                );
            }
        }
    }
}
