//! What the documentation says, read off the spec: operations with their
//! headers, parameters, fields, examples and error answers. Every `$ref` is
//! followed, so the pages show the shapes, not the spec's plumbing.

use serde::Serialize;
use serde_json::Value;

pub use super::fields::{FieldRow, fields};

/// An example of a request or response.
#[derive(Clone, Debug, Serialize)]
pub struct ExampleDoc {
    /// Its key in the spec, which the page shows as the example's title.
    pub name: String,
    /// Its summary, shown above it.
    pub summary: String,
    /// The value, as pretty JSON or as the text it is.
    pub text: String,
    /// `json` or the media type's word for a code block.
    pub language: String,
}

/// A header or parameter of an operation.
#[derive(Clone, Debug, Serialize)]
pub struct ParameterDoc {
    /// Its name, as a client sends it.
    pub name: String,
    /// `header`, `query`, `path`.
    pub location: String,
    /// Whether it must be sent.
    pub required: bool,
    /// `core` or `reference`.
    pub conformance: String,
    /// What it carries.
    pub description: String,
}

/// A request or response body.
#[derive(Clone, Debug, Serialize)]
pub struct BodyDoc {
    /// Its media type, which chooses the example's highlighting.
    pub media_type: String,
    /// Its fields, flattened to one row per path, for the field table.
    pub fields: Vec<FieldRow>,
    /// Its examples from the spec, shown after the table.
    pub examples: Vec<ExampleDoc>,
}

/// One response of an operation.
#[derive(Clone, Debug, Serialize)]
pub struct ResponseDoc {
    /// `200`, `403`, `default`.
    pub status: String,
    /// What it means.
    pub description: String,
    /// `core` or `reference`.
    pub conformance: String,
    /// Response headers: (name, description).
    pub headers: Vec<(String, String)>,
    /// Its bodies, one per media type.
    pub bodies: Vec<BodyDoc>,
    /// The operations its values lead to (OpenAPI links).
    pub links: Vec<LinkDoc>,
}

/// An OpenAPI link: an operation a response's values lead to.
#[derive(Clone, Debug, Serialize)]
pub struct LinkDoc {
    /// The operation: `submitPayment`.
    pub operation: String,
    /// Why.
    pub description: String,
    /// `core` or `reference`.
    pub conformance: String,
    /// What it fills in: (parameter, expression).
    pub parameters: Vec<(String, String)>,
}

/// The members of `value`'s object `key`, in the spec's order; none when absent.
fn members<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = (&'a String, &'a Value)> {
    value
        .get(key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// A response's links, in the spec's order.
fn links(response: &Value) -> Vec<LinkDoc> {
    members(response, "links")
        .map(|(_, link)| LinkDoc {
            operation: text(link.get("operationId")),
            description: text(link.get("description")),
            conformance: conformance(link),
            parameters: members(link, "parameters")
                .map(|(name, expression)| (name.clone(), text(Some(expression))))
                .collect(),
        })
        .collect()
}

/// An error answer, from the examples of a refusal.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorRow {
    /// HTTP status.
    pub status: String,
    /// `error.code`.
    pub code: String,
    /// `error.description`.
    pub description: String,
}

/// One operation of the spec.
#[derive(Clone, Debug, Serialize)]
pub struct OperationDoc {
    /// `createPayment`.
    pub id: String,
    /// `POST`.
    pub method: String,
    /// `/api/v1/payment/create/`.
    pub path: String,
    /// One line.
    pub summary: String,
    /// Paragraphs.
    pub description: String,
    /// `core` or `reference`.
    pub conformance: String,
    /// Credential headers and parameters.
    pub parameters: Vec<ParameterDoc>,
    /// The request body, when the operation takes one.
    pub request: Option<BodyDoc>,
    /// Every response.
    pub responses: Vec<ResponseDoc>,
    /// Every error answer of the reference profile: status, code, description.
    pub errors: Vec<ErrorRow>,
    /// For a callback, the operation that declares it (`submitPayment`); empty otherwise.
    pub callback_of: String,
}

/// A server of the spec.
#[derive(Clone, Debug, Serialize)]
pub struct ServerDoc {
    /// `sandbox` or `production`.
    pub environment: String,
    /// The URL template, with `{variables}` as the spec writes them.
    pub url: String,
    /// The address the template gives with its defaults, to copy.
    pub default: String,
    /// Its description, which says what the environment is for.
    pub description: String,
}

pub(super) fn text(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_owned()
}

pub(super) fn conformance(value: &Value) -> String {
    text(value.get("x-conformance"))
}

use payconf_spec::json_ref::resolve;

fn examples(document: &Value, media: &Value, media_type: &str) -> Vec<ExampleDoc> {
    let language = if media_type.contains("json") {
        "json"
    } else if media_type.contains("html") {
        "html"
    } else {
        "text"
    };
    let mut found = Vec::new();
    if let Some(map) = media.get("examples").and_then(Value::as_object) {
        for (name, example) in map {
            let example = resolve(document, example);
            found.push(ExampleDoc {
                name: name.clone(),
                summary: text(example.get("summary")),
                text: render_example(example.get("value").unwrap_or(&Value::Null)),
                language: language.to_owned(),
            });
        }
    } else if let Some(value) = media.get("example") {
        found.push(ExampleDoc {
            name: "example".to_owned(),
            summary: String::new(),
            text: render_example(value),
            language: language.to_owned(),
        });
    }
    found
}

/// An example as shown: JSON pretty-printed, text as it is.
pub fn render_example(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

fn bodies(document: &Value, content: Option<&Value>) -> Vec<BodyDoc> {
    content
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(media_type, media)| BodyDoc {
            media_type: media_type.clone(),
            fields: media
                .get("schema")
                .map(|schema| fields(document, schema))
                .unwrap_or_default(),
            examples: examples(document, media, media_type),
        })
        .collect()
}

/// Every operation of the spec, in document order; after each, the
/// callbacks it declares (calls the service makes to the merchant's
/// server), under their address expression.
pub fn operations(document: &Value) -> Vec<OperationDoc> {
    let mut found = Vec::new();
    let schemes = document
        .pointer("/components/securitySchemes")
        .cloned()
        .unwrap_or(Value::Null);
    for (path, item) in members(document, "paths") {
        for method in ["get", "put", "post", "delete", "patch"] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let parent = operation_doc(document, &schemes, path, method, Some(item), operation, "");
            let parent_id = parent.id.clone();
            found.push(parent);
            for (_, callback) in members(operation, "callbacks") {
                for (expression, callback_item) in callback.as_object().into_iter().flatten() {
                    for callback_method in ["get", "put", "post", "delete", "patch"] {
                        if let Some(call) = callback_item.get(callback_method) {
                            found.push(operation_doc(
                                document,
                                &schemes,
                                expression,
                                callback_method,
                                None,
                                call,
                                &parent_id,
                            ));
                        }
                    }
                }
            }
        }
    }
    found
}

/// One operation: `item` is its path item (for the parameters it shares),
/// `callback_of` the operation that declares it as a callback, if any.
fn operation_doc(
    document: &Value,
    schemes: &Value,
    path: &str,
    method: &str,
    item: Option<&Value>,
    operation: &Value,
    callback_of: &str,
) -> OperationDoc {
    let request = operation.get("requestBody").map(|body| {
        let body = resolve(document, body);
        bodies(document, body.get("content"))
            .into_iter()
            .next()
            .unwrap_or(BodyDoc {
                media_type: String::new(),
                fields: Vec::new(),
                examples: Vec::new(),
            })
    });
    let (responses, errors) = responses(document, operation);
    OperationDoc {
        id: text(operation.get("operationId")),
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        summary: text(operation.get("summary")),
        description: text(operation.get("description")),
        conformance: conformance(operation),
        parameters: parameters(document, schemes, item, operation),
        request,
        responses,
        errors,
        callback_of: callback_of.to_owned(),
    }
}

/// An operation's parameters: its credentials first, then the parameters
/// of its path item and its own, each once.
fn parameters(
    document: &Value,
    schemes: &Value,
    item: Option<&Value>,
    operation: &Value,
) -> Vec<ParameterDoc> {
    let mut parameters = Vec::new();
    // Alternatives of security requirements: a scheme is required when
    // every alternative names it, and shown once.
    let alternatives: Vec<Vec<&String>> = operation
        .get("security")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|requirement| {
            requirement
                .as_object()
                .into_iter()
                .flatten()
                .map(|(n, _)| n)
                .collect()
        })
        .collect();
    for name in alternatives.iter().flatten() {
        let Some(scheme) = schemes.get(name.as_str()) else {
            continue;
        };
        let header = text(scheme.get("name"));
        if parameters.iter().any(|p: &ParameterDoc| p.name == header) {
            continue;
        }
        parameters.push(ParameterDoc {
            name: header,
            location: text(scheme.get("in")),
            required: alternatives.iter().all(|names| names.contains(name)),
            conformance: conformance(scheme),
            description: text(scheme.get("description")),
        });
    }
    fn declared(holder: Option<&Value>) -> impl Iterator<Item = &Value> {
        holder
            .and_then(|h| h.get("parameters"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }
    for parameter in declared(item).chain(declared(Some(operation))) {
        let parameter = resolve(document, parameter);
        let (name, location) = (text(parameter.get("name")), text(parameter.get("in")));
        // A credential also declared as a parameter (for generators and
        // links) is shown once, as the credential.
        if parameters
            .iter()
            .any(|p| p.name == name && p.location == location)
        {
            continue;
        }
        parameters.push(ParameterDoc {
            name,
            location,
            required: parameter.get("required").and_then(Value::as_bool) == Some(true),
            conformance: conformance(parameter),
            description: text(parameter.get("description")),
        });
    }
    parameters
}

/// An operation's answers, and the error codes their examples show.
fn responses(document: &Value, operation: &Value) -> (Vec<ResponseDoc>, Vec<ErrorRow>) {
    let mut responses = Vec::new();
    let mut errors = Vec::new();
    for (status, response) in members(operation, "responses") {
        let response = resolve(document, response);
        let response_bodies = bodies(document, response.get("content"));
        let examples = response_bodies.iter().flat_map(|body| &body.examples);
        for value in examples.filter_map(|e| serde_json::from_str::<Value>(&e.text).ok()) {
            let code = text(value.pointer("/error/code"));
            if !code.is_empty() && code != "0" {
                errors.push(ErrorRow {
                    status: status.clone(),
                    code,
                    description: text(value.pointer("/error/description")),
                });
            }
        }
        responses.push(ResponseDoc {
            status: status.clone(),
            description: text(response.get("description")),
            conformance: conformance(response),
            headers: members(response, "headers")
                .map(|(name, header)| {
                    (
                        name.clone(),
                        text(resolve(document, header).get("description")),
                    )
                })
                .collect(),
            bodies: response_bodies,
            links: links(response),
        });
    }
    (responses, errors)
}

/// The spec's servers.
pub fn servers(document: &Value) -> Vec<ServerDoc> {
    document
        .get("servers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|server| {
            let url = text(server.get("url"));
            let mut default = url.clone();
            for (name, variable) in members(server, "variables") {
                default = default.replace(&format!("{{{name}}}"), &text(variable.get("default")));
            }
            ServerDoc {
                environment: text(server.get("x-environment")),
                url,
                default,
                description: text(server.get("description")),
            }
        })
        .collect()
}
