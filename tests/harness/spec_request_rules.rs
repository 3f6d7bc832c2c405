//! The request schemas of `spec/openapi.yaml` against the contract: every
//! rule the contract does not state is marked `x-reference`, and the docs
//! show those rules as the reference profile's.

use crate::support::{contract, find_operation, resolve};
use serde_json::{Value, json};

fn conformance_of(value: &Value) -> Option<&str> {
    value.get("x-conformance").and_then(Value::as_str)
}

/// The rules of the request schemas the contract itself states, each with
/// its sentence. Every other rule of a core request schema is the reference
/// profile's and must be listed in the schema's `x-reference`.
const STATED_RULES: [(&str, &str, &str); 4] = [
    (
        "amount",
        "pattern",
        "Decimal amount written with a dot as separator and two decimals",
    ),
    ("expMonth", "pattern", "Two-digit expiry month"),
    ("expYear", "pattern", "Two-digit expiry year"),
    ("email", "format", "Buyer e-mail address"),
];

/// The rule keywords a schema can carry.
const RULES: [&str; 9] = [
    "required",
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "enum",
    "minItems",
];

/// Walks a request schema: (property name, schema) for it and every
/// schema below it.
fn request_schemas<'a>(name: &str, schema: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    let schema = resolve(schema);
    out.push((name.to_owned(), schema));
    for (child, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        request_schemas(child, property, out);
    }
}

#[test]
fn request_rules_the_contract_leaves_open_are_marked_reference() {
    let mut unmarked = Vec::new();
    let mut stale = Vec::new();
    for operation_id in ["createPayment", "submitPayment"] {
        let (_, operation) = find_operation(operation_id);
        let body = &operation["requestBody"]["content"]["application/json"]["schema"];
        let mut schemas = Vec::new();
        request_schemas(operation_id, body, &mut schemas);
        for (name, schema) in schemas {
            let marked: Vec<&str> = schema
                .get("x-reference")
                .and_then(Value::as_array)
                .map(|rules| rules.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for rule in &marked {
                if schema.get(*rule).is_none() {
                    stale.push(format!("{name}: x-reference names {rule}, which it lacks"));
                }
            }
            if conformance_of(schema) != Some("core") {
                continue;
            }
            for rule in RULES.iter().filter(|rule| schema.get(**rule).is_some()) {
                let stated = STATED_RULES
                    .iter()
                    .any(|(field, stated, _)| *field == name && stated == rule);
                if !stated && !marked.contains(rule) {
                    unmarked.push(format!("{name}.{rule}"));
                }
            }
        }
    }
    assert!(
        unmarked.is_empty(),
        "rules the contract does not state, not in x-reference: {unmarked:?}"
    );
    assert!(stale.is_empty(), "{stale:?}");
}

#[test]
fn the_docs_show_reference_rules_as_such() {
    let rows = payconf::docs::fields::fields(
        contract().document(),
        &json!({"$ref": "#/components/schemas/SubmitPaymentRequest"}),
    );
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("a row for {name}"))
    };
    assert!(row("shopLogin").required && row("shopLogin").required_by_reference);
    assert!(
        row("paymentTypeDetails.creditcard.CVV")
            .format
            .contains("(reference)")
    );
    let month = &row("paymentTypeDetails.creditcard.expMonth").format;
    assert!(
        month.contains("pattern") && !month.contains("(reference)"),
        "{month}"
    );
}
