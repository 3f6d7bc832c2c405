//! `spec/openapi.yaml` itself: it loads with the openapiv3 crate, marks every
//! part core or reference, its examples validate against its schemas, it
//! documents every refusal the reference implementation can answer, and the
//! validators built from it reject what the contract rejects.

use std::collections::BTreeSet;

use crate::support::{contract, find_operation, resolve};
use payconf_reference::{ApiError, DEFAULT_FRICTIONLESS_CARD, code, transaction_code};
use payconf_spec::{Profile, contract::compile_schema};
use serde_json::{Value, json};

fn document() -> &'static Value {
    contract().document()
}

#[test]
fn spec_loads_with_openapiv3_and_declares_both_operations_at_the_contracts_paths() {
    let openapi = contract().openapi();
    assert_eq!(openapi.openapi, "3.0.3");
    let operations: Vec<(String, String, String)> = openapi
        .operations()
        .map(|(path, method, op)| {
            (
                path.to_owned(),
                method.to_owned(),
                op.operation_id.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert!(operations.contains(&(
        "/api/v1/payment/create/".into(),
        "post".into(),
        "createPayment".into()
    )));
    assert!(operations.contains(&(
        "/api/v1/payment/submit/".into(),
        "post".into(),
        "submitPayment".into()
    )));
    let schemes = &document()["components"]["securitySchemes"];
    assert_eq!(schemes["apiKey"]["name"], "Authorization");
    assert_eq!(schemes["paymentToken"]["name"], "paymentToken");
    assert_eq!(schemes["paymentToken"]["in"], "header");
}

#[test]
fn servers_name_a_sandbox_and_a_production_environment_with_a_base_address_variable() {
    let servers = document()["servers"].as_array().expect("servers");
    let environments: Vec<&str> = servers
        .iter()
        .filter_map(|s| s["x-environment"].as_str())
        .collect();
    assert_eq!(environments, ["sandbox", "production"]);
    for server in servers {
        let variables = server["variables"].as_object().expect("variables");
        assert_eq!(variables.len(), 1);
        let (name, variable) = variables.iter().next().expect("one variable");
        assert_eq!(server["url"], format!("{{{name}}}"));
        assert!(
            variable["default"]
                .as_str()
                .is_some_and(|d| d.starts_with("https://"))
        );
    }
}

fn conformance_of(value: &Value) -> Option<&str> {
    value.get("x-conformance").and_then(Value::as_str)
}

fn assert_marked(value: &Value, at: &str, missing: &mut Vec<String>) {
    if value.get("$ref").is_none() && !matches!(conformance_of(value), Some("core" | "reference")) {
        missing.push(at.to_owned());
    }
}

fn walk_schema(schema: &Value, at: &str, missing: &mut Vec<String>) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let here = format!("{at}.{name}");
            assert_marked(property, &here, missing);
            walk_schema(property, &here, missing);
        }
    }
    for combinator in ["allOf", "anyOf", "oneOf"] {
        for (i, part) in schema
            .get(combinator)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            walk_schema(part, &format!("{at}.{combinator}[{i}]"), missing);
        }
    }
    if let Some(items) = schema.get("items") {
        walk_schema(items, &format!("{at}[]"), missing);
    }
}

#[test]
fn every_operation_response_schema_and_property_is_marked_core_or_reference() {
    let mut missing = Vec::new();
    for (path, item) in document()["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let at = format!("{method} {path}");
            assert_marked(operation, &at, &mut missing);
            if let Some(body) = operation.get("requestBody") {
                assert_marked(body, &format!("{at} requestBody"), &mut missing);
            }
            for (status, response) in operation["responses"].as_object().expect("responses") {
                assert_marked(response, &format!("{at} {status}"), &mut missing);
            }
            for parameter in operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                assert_marked(parameter, &format!("{at} parameter"), &mut missing);
            }
        }
    }
    let components = &document()["components"];
    for section in ["schemas", "responses", "securitySchemes", "parameters"] {
        for (name, item) in components[section].as_object().expect(section) {
            let at = format!("{section}.{name}");
            assert_marked(item, &at, &mut missing);
            if section == "schemas" {
                walk_schema(item, &at, &mut missing);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not marked with x-conformance: {missing:#?}"
    );
}

#[test]
fn the_contracts_own_operations_and_success_answers_are_core() {
    for operation in ["createPayment", "submitPayment"] {
        let (path, op) = find_operation(operation);
        assert_eq!(conformance_of(op), Some("core"), "{path}");
        assert_eq!(conformance_of(&op["responses"]["200"]), Some("core"));
        assert_eq!(
            conformance_of(&op["responses"]["default"]),
            None,
            "default is a $ref"
        );
        for status in ["400", "403"] {
            assert_eq!(
                conformance_of(&op["responses"][status]),
                Some("reference"),
                "{operation} {status}"
            );
        }
    }
}

/// (operationId, status, example name, example value) of every JSON answer example.
/// The operation IDs of the API (every path under `/api/v1/`): the
/// contract's two and the reference profile's operations after submit.
fn api_operations() -> Vec<String> {
    let mut ids = Vec::new();
    for (path, item) in document()["paths"].as_object().expect("paths") {
        if !path.starts_with("/api/v1/") {
            continue;
        }
        for operation in item.as_object().expect("item").values() {
            if let Some(id) = operation["operationId"].as_str() {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

fn response_examples() -> Vec<(String, String, String, Value)> {
    let mut examples = Vec::new();
    for operation_id in api_operations() {
        let (_, operation) = find_operation(&operation_id);
        for (status, response) in operation["responses"].as_object().expect("responses") {
            let response = resolve(response);
            let Some(named) = response.pointer("/content/application~1json/examples") else {
                continue;
            };
            for (name, example) in named.as_object().expect("examples") {
                examples.push((
                    operation_id.clone(),
                    status.clone(),
                    name.clone(),
                    example["value"].clone(),
                ));
            }
        }
    }
    examples
}

#[test]
fn every_request_and_response_has_an_example() {
    let operations = api_operations();
    assert!(operations.len() >= 8, "{operations:?}");
    for operation_id in operations {
        let (_, operation) = find_operation(&operation_id);
        assert!(
            operation.get("requestBody").is_none()
                || operation
                    .pointer("/requestBody/content/application~1json/examples")
                    .is_some(),
            "{operation_id} request"
        );
        for (status, response) in operation["responses"].as_object().expect("responses") {
            if status == "default" {
                continue; // the contract's catch-all: any envelope
            }
            let response = resolve(response);
            assert!(
                response
                    .pointer("/content/application~1json/examples")
                    .is_some(),
                "{operation_id} {status} has no example"
            );
        }
    }
}

#[test]
fn every_response_example_validates_against_its_schema_in_both_profiles() {
    let examples = response_examples();
    assert!(examples.len() > 30, "{} examples", examples.len());
    for (operation_id, status, name, value) in examples {
        let status_code: u16 = status.parse().expect("numeric status");
        for profile in [Profile::Core, Profile::Reference] {
            if let Err(v) = contract().check_response(&operation_id, status_code, &value, profile) {
                panic!("{operation_id} {status} example {name} ({profile:?}): {v}");
            }
        }
    }
}

#[test]
fn every_request_example_validates_against_its_schema() {
    let definitions = &document()["components"]["schemas"];
    for operation_id in api_operations() {
        let (_, operation) = find_operation(&operation_id);
        if operation.get("requestBody").is_none() {
            continue;
        }
        let content = &operation["requestBody"]["content"]["application/json"];
        let validator = compile_schema(&content["schema"], definitions, Profile::Reference)
            .expect("request schema compiles");
        for (name, example) in content["examples"].as_object().expect("examples") {
            let errors: Vec<String> = validator
                .iter_errors(&example["value"])
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{operation_id} example {name}: {errors:?}"
            );
        }
    }
}

#[test]
fn the_8006_answer_is_an_example() {
    let found = response_examples()
        .into_iter()
        .any(|(op, status, _, value)| {
            op == "submitPayment"
                && status == "200"
                && value["payload"]["transactionErrorCode"] == "8006"
                && value["payload"]["transactionResult"] == ""
                && value["error"]["code"] == "0"
        });
    assert!(found);
}

/// Every refusal the reference implementation can answer. The match keeps the
/// list whole: a new variant of `ApiError` does not compile here until listed.
fn every_refusal() -> Vec<ApiError> {
    let field_codes = [
        code::INVALID_PARAMETER,
        code::INVALID_CURRENCY,
        code::AMOUNT_NOT_NUMERIC,
        code::AMOUNT_DECIMALS,
        code::AMOUNT_SEPARATOR,
        code::AMOUNT_MISSING,
        code::SHOP_TRANSACTION_ID_MISSING,
        code::SHOP_TRANSACTION_ID_TOO_LONG,
        code::CARD_NOT_NUMERIC,
        code::CARD_DATA_INCOMPLETE,
        code::CARD_DATA_MISSING,
        code::INVALID_EMAIL,
        code::CARD_LENGTH,
        code::CARD_CHECK_DIGIT,
        code::EXPIRY_MONTH,
        code::EXPIRY_YEAR,
        code::CARD_EXPIRED,
        code::AMOUNT_TOO_SMALL,
        code::AMOUNT_TOO_LARGE,
        code::CVV,
        code::SHOP_TRANSACTION_ID,
        code::WRONG_PAYMENT_ID,
    ];
    let mut all: Vec<ApiError> = field_codes
        .into_iter()
        .map(|code| ApiError::field(code, "field", "reason"))
        .collect();
    all.extend([
        ApiError::MalformedJson("x".into()),
        ApiError::MissingApiKey,
        ApiError::InvalidApiKey,
        ApiError::MissingPaymentToken,
        ApiError::InvalidPaymentToken,
        ApiError::ExpiredPaymentToken,
        ApiError::TokenReadsSpent(5),
        ApiError::ShopNotRecognized("x"),
        ApiError::AlreadyProcessed,
        ApiError::NoTransactionId,
        ApiError::TransactionNotFound,
        ApiError::TransactionAmbiguous,
        ApiError::UnsupportedMediaType,
        ApiError::PayloadTooLarge { limit: 1 },
        ApiError::BodyTimeout { seconds: 10 },
        ApiError::HeadersTooLarge { limit: 1 },
        ApiError::NotFound,
        ApiError::UnknownHost,
        ApiError::MethodNotAllowed { allow: "POST" },
        ApiError::Internal,
    ]);
    for error in &all {
        match error {
            ApiError::InvalidField { .. }
            | ApiError::MalformedJson(_)
            | ApiError::MissingApiKey
            | ApiError::InvalidApiKey
            | ApiError::MissingPaymentToken
            | ApiError::InvalidPaymentToken
            | ApiError::ExpiredPaymentToken
            | ApiError::TokenReadsSpent(_)
            | ApiError::ShopNotRecognized(_)
            | ApiError::AlreadyProcessed
            | ApiError::NoTransactionId
            | ApiError::TransactionNotFound
            | ApiError::TransactionAmbiguous
            | ApiError::UnsupportedMediaType
            | ApiError::PayloadTooLarge { .. }
            | ApiError::BodyTimeout { .. }
            | ApiError::HeadersTooLarge { .. }
            | ApiError::NotFound
            | ApiError::UnknownHost
            | ApiError::MethodNotAllowed { .. }
            | ApiError::Internal => {}
        }
    }
    all
}

#[test]
fn every_refusal_of_the_reference_implementation_is_documented_with_its_status_and_code() {
    let documented: BTreeSet<(String, String)> = response_examples()
        .into_iter()
        .map(|(_, status, _, value)| {
            (
                status,
                value["error"]["code"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    for error in every_refusal() {
        let key = (error.status().as_u16().to_string(), error.code().to_owned());
        assert!(
            documented.contains(&key),
            "{error:?} answers {key:?}, which the spec does not document"
        );
    }
    let outcomes = [
        payconf_reference::outcomes::AUTHENTICATION_FAILED,
        payconf_reference::outcomes::ISSUER_REJECTED,
        payconf_reference::outcomes::ACS_TECHNICAL_PROBLEM,
        payconf_reference::outcomes::ACS_TIMEOUT,
        payconf_reference::outcomes::ABANDONED,
        payconf_reference::outcomes::INSUFFICIENT_CREDIT,
        payconf_reference::outcomes::CARD_EXPIRED,
    ]
    .map(|decline| decline.code);
    for transaction in [
        transaction_code::AUTHENTICATION_REQUIRED,
        transaction_code::DECLINED,
        transaction_code::UNKNOWN_CARD,
    ]
    .into_iter()
    .chain(outcomes)
    {
        let key = ("200".to_owned(), "0".to_owned());
        assert!(documented.contains(&key));
        assert!(
            response_examples()
                .iter()
                .any(|(_, _, _, v)| v["payload"]["transactionErrorCode"] == transaction),
            "transaction code {transaction} has no example"
        );
    }
}

fn created(payload: Value) -> Value {
    json!({"error": {"code": "0", "description": "request correctly processed"}, "payload": payload})
}

#[test]
fn core_rejects_a_numeric_payment_id_and_a_token_that_is_not_a_uuid() {
    let body =
        created(json!({"paymentToken": "nope", "paymentID": 123, "userRedirect": {"href": null}}));
    let violations = contract()
        .check_response("createPayment", 200, &body, Profile::Core)
        .expect_err("breaks the contract");
    let at: Vec<(&str, &str)> = violations
        .0
        .iter()
        .map(|v| (v.instance_path.as_str(), v.keyword.as_str()))
        .collect();
    assert!(at.contains(&("/payload/paymentID", "type")), "{violations}");
    assert!(
        at.contains(&("/payload/paymentToken", "format")),
        "{violations}"
    );
}

#[test]
fn core_rejects_an_answer_without_the_envelope_whatever_its_status() {
    for status in [200, 400, 503] {
        let violations = contract()
            .check_response(
                "submitPayment",
                status,
                &json!({"message": "bad"}),
                Profile::Core,
            )
            .expect_err("no envelope");
        assert_eq!(violations.0[0].keyword, "required", "{violations}");
    }
}

#[test]
fn core_accepts_other_statuses_codes_and_extra_fields_the_contract_leaves_open() {
    let refusal = json!({"error": {"code": "E42", "description": "nope"}, "extra": true});
    contract()
        .check_response("createPayment", 422, &refusal, Profile::Core)
        .expect("any status and code");
    let submit = json!({
        "error": {"code": "0", "description": "ok"},
        "payload": {
            "transactionType": "submit", "transactionResult": "OK", "paymentID": "1234567890123",
            "userRedirect": {"href": "https://shop.example/ok"}, "currency": 978, "vendorField": [1]
        }
    });
    contract()
        .check_response("submitPayment", 200, &submit, Profile::Core)
        .expect("reference-only fields are not the contract's");
    let reference = contract()
        .check_response("submitPayment", 200, &submit, Profile::Reference)
        .expect_err("the reference profile's currency is a string");
    assert!(
        reference
            .0
            .iter()
            .any(|v| v.instance_path == "/payload/currency"),
        "{reference}"
    );
}

#[test]
fn reference_rejects_a_status_the_spec_does_not_declare() {
    let refusal = json!({"error": {"code": "1105", "description": "x"}, "payload": {}});
    let violations = contract()
        .check_response("createPayment", 422, &refusal, Profile::Reference)
        .expect_err("422 is not the reference profile's");
    assert!(
        violations.to_string().contains("422 is not declared"),
        "{violations}"
    );
}

#[test]
fn violations_never_echo_the_offending_value() {
    let body = created(
        json!({"paymentToken": DEFAULT_FRICTIONLESS_CARD, "paymentID": "x", "userRedirect": {"href": null}}),
    );
    let violations = contract()
        .check_response("createPayment", 200, &body, Profile::Core)
        .expect_err("breaks the contract");
    assert!(
        !violations.to_string().contains(DEFAULT_FRICTIONLESS_CARD),
        "{violations}"
    );
}
