//! Each API operation's request as people send it: a `curl` command and a
//! call of the Python client openapi-python-client generates from the spec
//! (package `payments_client`, as `.ci/check-clients` makes it). Both are
//! written from the spec (the operation's path, method, credential, header
//! and path parameters, and its request example), read what changes from
//! the environment (`BASE_URL`, `API_KEY`, `SHOP_LOGIN`, `PAYMENT_TOKEN`,
//! `PAYMENT_ID`, `CARD_TOKEN`) and are run against the sandbox by the tests (curl) and by
//! `.ci/check-clients` (Python), so they cannot drift from what works.

use serde::Serialize;
use serde_json::Value;

/// An operation's samples.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Samples {
    /// A shell command.
    pub curl: String,
    /// A Python script on the generated client.
    pub python: String,
    /// The environment variables they read, in the order given.
    pub variables: Vec<&'static str>,
}

/// Where a value comes from the environment: the request's fields that
/// name the shop and the payment (a create's `shopTransactionID` is the
/// new payment's own, and stays as the example has it).
const FROM_ENVIRONMENT: [(&str, &str); 3] = [
    ("shopLogin", "SHOP_LOGIN"),
    ("paymentID", "PAYMENT_ID"),
    ("shopTransactionID", "SHOP_TRANSACTION_ID"),
];

/// Marks a string that is an environment variable's value.
const ENV: &str = "\u{0}env:";

/// The samples of the operation at `path` and `method`, for API calls
/// (paths under `/api/`); `None` for the buyer's pages and callbacks.
pub fn samples(document: &Value, path: &str, method: &str, operation: &Value) -> Option<Samples> {
    if !path.starts_with("/api/") {
        return None;
    }
    let id = operation.get("operationId")?.as_str()?;
    let tag = operation.pointer("/tags/0")?.as_str()?;
    let schemes = credentials(document, operation);
    let parameters = parameters(document, operation);
    let (model, body) = match request_example(document, operation, id != "createPayment") {
        Some((model, body)) => (Some(model), Some(body)),
        None => (None, None),
    };
    let mut variables = vec!["BASE_URL"];
    let mut used = |name: &'static str| {
        if !variables.contains(&name) {
            variables.push(name);
        }
    };
    let url_path = parameters.iter().fold(path.to_owned(), |path, p| match p {
        Parameter::Path { name, variable } => {
            used(variable);
            path.replace(&format!("{{{name}}}"), &format!("${variable}"))
        }
        Parameter::Fixed { name, value } => path.replace(&format!("{{{name}}}"), value),
        Parameter::Header { .. } => path,
    });
    let mut curl = vec![if method == "get" {
        format!("curl -sS \"$BASE_URL{url_path}\"")
    } else {
        format!(
            "curl -sS -X {} \"$BASE_URL{url_path}\"",
            method.to_ascii_uppercase()
        )
    }];
    if schemes.api_key {
        used("API_KEY");
        curl.push("  -H \"Authorization: apikey $API_KEY\"".to_owned());
    }
    for parameter in &parameters {
        if let Parameter::Header { name, variable } = parameter {
            used(variable);
            curl.push(format!("  -H \"{name}: ${variable}\""));
        }
    }
    if let Some(body) = &body {
        for (_, variable) in FROM_ENVIRONMENT {
            if text_names(body, variable) {
                used(variable);
            }
        }
        curl.push("  -H \"Content-Type: application/json\"".to_owned());
        // An unquoted heredoc, so that the variables expand: only when the
        // example holds nothing else the shell would expand.
        curl.push(if shell_safe(body) {
            "  --data @- <<EOF".to_owned()
        } else {
            "  --data @- <<'EOF'".to_owned()
        });
    }
    let mut curl = curl.join(" \\\n");
    if let Some(body) = &body {
        curl.push('\n');
        curl.push_str(&json_with_variables(body));
        curl.push_str("\nEOF");
    }
    let python = python(
        id,
        tag,
        &schemes,
        &parameters,
        model.as_deref(),
        body.as_ref(),
    );
    Some(Samples {
        curl,
        python,
        variables,
    })
}

/// The credentials the operation's first security requirement asks for.
struct Credentials {
    api_key: bool,
}

fn credentials(document: &Value, operation: &Value) -> Credentials {
    let first = operation
        .get("security")
        .or_else(|| document.get("security"))
        .and_then(|s| s.get(0));
    Credentials {
        api_key: first.is_some_and(|r| r.get("apiKey").is_some()),
    }
}

enum Parameter {
    Path {
        name: String,
        variable: &'static str,
    },
    Header {
        name: String,
        variable: &'static str,
    },
    /// A path parameter no variable gives: its example, as written.
    Fixed { name: String, value: String },
}

/// The operation's path and header parameters, each with the variable
/// that gives it.
fn parameters(document: &Value, operation: &Value) -> Vec<Parameter> {
    operation
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let p = resolve(document, p);
            let name = p.get("name")?.as_str()?.to_owned();
            let variable = match name.as_str() {
                "paymentID" => "PAYMENT_ID",
                "paymentToken" => "PAYMENT_TOKEN",
                "shopLogin" => "SHOP_LOGIN",
                "token" => "CARD_TOKEN",
                _ => {
                    let example = p
                        .get("example")
                        .or_else(|| p.get("schema")?.get("example"))?;
                    let value = example.as_str()?.to_owned();
                    return (p.get("in")?.as_str()? == "path")
                        .then_some(Parameter::Fixed { name, value });
                }
            };
            match p.get("in")?.as_str()? {
                "path" => Some(Parameter::Path { name, variable }),
                "header" => Some(Parameter::Header { name, variable }),
                _ => None,
            }
        })
        .collect()
}

fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => document
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(value),
        None => value,
    }
}

/// The request body's schema name and its example (`minimal` when there
/// is one, else the first), the shop and payment taken from the environment.
fn request_example(
    document: &Value,
    operation: &Value,
    names_a_payment: bool,
) -> Option<(String, Value)> {
    let content = operation.pointer("/requestBody/content/application~1json")?;
    let model = content
        .pointer("/schema/$ref")?
        .as_str()?
        .rsplit('/')
        .next()?
        .to_owned();
    let examples = content.get("examples")?.as_object()?;
    let example = examples
        .get("minimal")
        .or_else(|| examples.values().next())?;
    let mut value = resolve(document, example).get("value")?.clone();
    if let Some(fields) = value.as_object_mut() {
        for (field, variable) in FROM_ENVIRONMENT {
            if field == "shopTransactionID" && !names_a_payment {
                continue;
            }
            if let Some(slot) = fields.get_mut(field) {
                *slot = Value::String(format!("{ENV}{variable}"));
            }
        }
    }
    Some((model, value))
}

/// Whether the example holds no `$`, backquote or backslash.
fn shell_safe(body: &Value) -> bool {
    !body
        .to_string()
        .replace("\\u0000env:", "")
        .contains(['$', '`', '\\'])
}

fn text_names(body: &Value, variable: &str) -> bool {
    body.to_string().contains(&format!("env:{variable}"))
}

/// The body as JSON, a variable as `"$NAME"` (for an unquoted heredoc).
fn json_with_variables(body: &Value) -> String {
    let mut text = serde_json::to_string_pretty(body).unwrap_or_default();
    for (_, variable) in FROM_ENVIRONMENT {
        text = text.replace(
            &format!("\"\\u0000env:{variable}\""),
            &format!("\"${variable}\""),
        );
    }
    text
}

fn python(
    id: &str,
    tag: &str,
    credentials: &Credentials,
    parameters: &[Parameter],
    model: Option<&str>,
    body: Option<&Value>,
) -> String {
    let function = snake(id);
    let mut lines = vec![
        "import os".to_owned(),
        String::new(),
        format!(
            "from payments_client import {}",
            if credentials.api_key {
                "AuthenticatedClient"
            } else {
                "Client"
            }
        ),
        format!("from payments_client.api.{} import {function}", snake(tag)),
    ];
    if let Some(model) = model {
        lines.push(format!("from payments_client.models import {model}"));
    }
    lines.push(String::new());
    lines.push(if credentials.api_key {
        "client = AuthenticatedClient(\n    base_url=os.environ[\"BASE_URL\"], token=os.environ[\"API_KEY\"], prefix=\"apikey\"\n)".to_owned()
    } else {
        "client = Client(base_url=os.environ[\"BASE_URL\"])".to_owned()
    });
    let mut arguments = vec!["client=client".to_owned()];
    for parameter in parameters {
        match parameter {
            Parameter::Path { name, variable } | Parameter::Header { name, variable } => {
                arguments.push(format!("{}=os.environ[\"{variable}\"]", snake(name)));
            }
            Parameter::Fixed { name, value } => {
                let value = serde_json::to_string(value).unwrap_or_default();
                arguments.push(format!("{}={value}", snake(name)));
            }
        }
    }
    if let (Some(model), Some(body)) = (model, body) {
        lines.push(format!(
            "body = {model}.from_dict({})",
            python_literal(body, 0)
        ));
        arguments.push("body=body".to_owned());
    }
    lines.push(format!(
        "answer = {function}.sync(\n    {},\n)",
        arguments.join(",\n    ")
    ));
    lines.push("print(answer.to_dict() if answer is not None else \"an answer the spec does not document\")".to_owned());
    lines.join("\n")
}

/// A JSON value as a Python literal; a variable as `os.environ["NAME"]`.
fn python_literal(value: &Value, depth: usize) -> String {
    let indent = "    ".repeat(depth + 1);
    let close = "    ".repeat(depth);
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => match s.strip_prefix(ENV) {
            Some(variable) => format!("os.environ[\"{variable}\"]"),
            None => serde_json::to_string(s).unwrap_or_default(),
        },
        Value::Array(items) if items.is_empty() => "[]".to_owned(),
        Value::Array(items) => format!(
            "[\n{}\n{close}]",
            items
                .iter()
                .map(|i| format!("{indent}{},", python_literal(i, depth + 1)))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        Value::Object(fields) if fields.is_empty() => "{}".to_owned(),
        Value::Object(fields) => format!(
            "{{\n{}\n{close}}}",
            fields
                .iter()
                .map(|(k, v)| format!(
                    "{indent}{}: {},",
                    serde_json::to_string(k).unwrap_or_default(),
                    python_literal(v, depth + 1)
                ))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

/// `createPayment` → `create_payment`, `paymentID` → `payment_id`,
/// `Payment management` → `payment_management`: as openapi-python-client
/// names modules, functions and arguments.
fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' || c == '-' {
            out.push('_');
            continue;
        }
        if c.is_uppercase() {
            let previous = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let starts_word = previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (previous.is_some_and(char::is_uppercase)
                    && next.is_some_and(|n| n.is_lowercase()));
            if starts_word && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_snake_cased_as_the_generator_does() {
        assert_eq!(snake("createPayment"), "create_payment");
        assert_eq!(snake("paymentID"), "payment_id");
        assert_eq!(snake("paymentToken"), "payment_token");
        assert_eq!(snake("Payment management"), "payment_management");
        assert_eq!(snake("Payments"), "payments");
    }

    #[test]
    fn python_literals_are_python() {
        let value = serde_json::json!({"a": [true, null, 1.5], "b": "x\"y", "c": format!("{ENV}SHOP_LOGIN")});
        assert_eq!(
            python_literal(&value, 0),
            "{\n    \"a\": [\n        True,\n        None,\n        1.5,\n    ],\n    \"b\": \"x\\\"y\",\n    \"c\": os.environ[\"SHOP_LOGIN\"],\n}"
        );
    }
}
