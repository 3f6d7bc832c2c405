//! The spec for other tools: the Arazzo workflows (`spec/payment-flows.arazzo.yaml`)
//! name the spec as their source `payments`, call only its operations with
//! headers those operations take, default every input to the sandbox's value
//! and ask for no HTTP status (the contract states none); the spec's OpenAPI
//! links lead to operations and parameters that exist; the answers written
//! out for client generators hold exactly what the `allOf` over the envelope
//! held. Redocly Respect runs the workflows against `payconf serve` in CI
//! (`.ci/check-flows`), and `.ci/check-clients` generates the clients.

use crate::support::{contract, find_operation, resolve};
use payconf::docs::workflows::EMBEDDED_WORKFLOWS;
use payconf_reference as reference;
use payconf_spec::{Profile, contract::compile_schema};
use serde_json::{Value, json};

fn workflows() -> Value {
    serde_yaml_ng::from_str(EMBEDDED_WORKFLOWS).expect("the workflows are YAML")
}

/// The operation a step calls, without its `$sourceDescriptions.payments.` prefix.
fn operation_of(step: &Value) -> String {
    let id = step["operationId"]
        .as_str()
        .expect("every step calls an operation");
    id.strip_prefix("$sourceDescriptions.payments.")
        .unwrap_or_else(|| panic!("{id} is not qualified by the source `payments`"))
        .to_owned()
}

/// Every step of every workflow, with its workflow's id.
fn steps(document: &Value) -> Vec<(String, Value)> {
    document["workflows"]
        .as_array()
        .expect("workflows")
        .iter()
        .flat_map(|workflow| {
            let id = workflow["workflowId"].as_str().expect("an id").to_owned();
            workflow["steps"]
                .as_array()
                .expect("steps")
                .iter()
                .map(move |step| (id.clone(), step.clone()))
        })
        .collect()
}

/// The headers an operation takes: its security schemes' and its parameters'.
fn headers_of(operation: &Value) -> Vec<String> {
    let schemes = &contract().document()["components"]["securitySchemes"];
    let security = operation["security"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|requirement| requirement.as_object().into_iter().flatten())
        .map(|(name, _)| schemes[name]["name"].as_str().expect("a header").to_owned());
    let parameters = operation["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(resolve)
        .filter(|p| p["in"] == "header")
        .map(|p| p["name"].as_str().expect("a name").to_owned());
    security.chain(parameters).collect()
}

#[test]
fn the_workflows_name_the_spec_as_their_source_payments() {
    let document = workflows();
    assert_eq!(document["arazzo"], "1.0.1", "Respect reads Arazzo 1.0.1");
    let sources = document["sourceDescriptions"].as_array().expect("sources");
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0]["name"], "payments");
    assert_eq!(sources[0]["type"], "openapi");
    assert_eq!(sources[0]["url"], "./openapi.yaml", "the spec beside it");
}

#[test]
fn every_step_calls_an_operation_of_the_spec_with_headers_it_takes() {
    let document = workflows();
    let components = &document["components"]["parameters"];
    for (workflow, step) in steps(&document) {
        let (_, operation) = find_operation(&operation_of(&step));
        let takes = headers_of(operation);
        for parameter in step["parameters"].as_array().into_iter().flatten() {
            let parameter = match parameter["reference"].as_str() {
                Some(reference) => {
                    &components[reference
                        .strip_prefix("$components.parameters.")
                        .expect("a reusable parameter")]
                }
                None => parameter,
            };
            assert_eq!(parameter["in"], "header", "{workflow}: {parameter}");
            let name = parameter["name"].as_str().expect("a name");
            assert!(
                takes.iter().any(|h| h == name),
                "{workflow}, step {}: {name} is not a header of its operation ({takes:?})",
                step["stepId"]
            );
        }
    }
}

#[test]
fn every_input_defaults_to_the_sandbox_so_respect_needs_only_the_address() {
    let document = workflows();
    let inputs = &document["components"]["inputs"]["payment"]["properties"];
    for workflow in document["workflows"].as_array().expect("workflows") {
        assert_eq!(
            workflow["inputs"]["$ref"], "#/components/inputs/payment",
            "{} takes the shared inputs",
            workflow["workflowId"]
        );
    }
    for (name, input) in inputs.as_object().expect("inputs") {
        assert!(
            input.get("default").is_some(),
            "input {name} has no default"
        );
    }
    for (name, sandbox) in [
        ("apiKey", reference::DEFAULT_API_KEY),
        ("shopLogin", reference::DEFAULT_SHOP_LOGIN),
        ("frictionlessCard", reference::DEFAULT_FRICTIONLESS_CARD),
        ("threeDSecureCard", reference::DEFAULT_THREE_DS_CARD),
    ] {
        assert_eq!(inputs[name]["default"], sandbox, "input {name}");
    }
    for secret in ["apiKey", "securityCode"] {
        assert_eq!(
            inputs[secret]["format"], "password",
            "{secret} is masked by Respect"
        );
    }
}

#[test]
fn no_criterion_asks_for_an_http_status_the_contract_does_not_state() {
    for (workflow, step) in steps(&workflows()) {
        for criterion in step["successCriteria"].as_array().expect("criteria") {
            let text = criterion.to_string();
            assert!(
                !text.contains("$statusCode"),
                "{workflow}, step {}: {text}",
                step["stepId"]
            );
        }
    }
}

/// An operation's parameters, its path's included, as `in.name`.
fn parameters_of(operation_id: &str) -> Vec<String> {
    let (path, operation) = find_operation(operation_id);
    let item = &contract().document()["paths"][path.as_str()];
    item["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(operation["parameters"].as_array().into_iter().flatten())
        .map(resolve)
        .map(|p| {
            format!(
                "{}.{}",
                p["in"].as_str().unwrap_or(""),
                p["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn the_specs_links_lead_to_operations_and_parameters_that_exist() {
    let mut links = 0;
    for (path, item) in contract().document()["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("operations") {
            for (status, response) in operation["responses"].as_object().into_iter().flatten() {
                for (name, link) in resolve(response)["links"].as_object().into_iter().flatten() {
                    links += 1;
                    let at = format!("{method} {path} {status} link {name}");
                    let target = link["operationId"].as_str().expect("an operationId");
                    let takes = parameters_of(target);
                    for (parameter, expression) in
                        link["parameters"].as_object().expect("parameters")
                    {
                        assert!(
                            takes.contains(parameter),
                            "{at}: {target} takes no {parameter} ({takes:?})"
                        );
                        assert!(
                            expression.as_str().is_some_and(|e| e.starts_with('$')),
                            "{at}: {parameter} is not a runtime expression"
                        );
                    }
                }
            }
        }
    }
    assert_eq!(
        links, 4,
        "create -> submit; submit -> the issuer, success and failure pages"
    );
}

/// Answers to judge: the spec's example of the operation's 200 and mutations
/// of it that each rule of the envelope or the payload turns on.
fn answers_around(example: &Value) -> Vec<Value> {
    let mut answers = vec![example.clone(), json!(null), json!([]), json!({})];
    let mut edit = |f: &dyn Fn(&mut Value)| {
        let mut answer = example.clone();
        f(&mut answer);
        answers.push(answer);
    };
    edit(&|a| a["payload"] = json!(null));
    edit(&|a| a["payload"] = json!({}));
    edit(&|a| a["payload"] = json!([]));
    edit(&|a| a["payload"]["extra"] = json!({"any": 1}));
    edit(&|a| a["extra"] = json!(true));
    edit(&|a| a["error"]["code"] = json!(0));
    edit(&|a| a["error"] = json!(null));
    edit(&|a| drop(a.as_object_mut().map(|o| o.remove("payload"))));
    edit(&|a| drop(a.as_object_mut().map(|o| o.remove("error"))));
    edit(&|a| a["payload"]["userRedirect"] = json!({}));
    edit(&|a| a["payload"]["paymentID"] = json!(12));
    for field in [
        "paymentToken",
        "paymentID",
        "transactionType",
        "transactionResult",
        "userRedirect",
    ] {
        let field = field.to_owned();
        edit(&move |a| drop(a["payload"].as_object_mut().map(|o| o.remove(&field))));
    }
    answers
}

#[test]
fn the_answers_written_out_for_generators_hold_exactly_what_the_allof_held() {
    let definitions = &contract().document()["components"]["schemas"];
    for (operation, answer, payload) in [
        (
            "createPayment",
            "CreatePaymentResponse",
            "CreatePaymentPayload",
        ),
        (
            "submitPayment",
            "SubmitPaymentResponse",
            "SubmitPaymentPayload",
        ),
    ] {
        let written = json!({"$ref": format!("#/components/schemas/{answer}")});
        let as_allof = json!({"allOf": [
            {"$ref": "#/components/schemas/Envelope"},
            {"type": "object", "properties": {"payload": {"$ref": format!("#/components/schemas/{payload}")}}},
        ]});
        let (_, spec_operation) = find_operation(operation);
        let examples =
            &spec_operation["responses"]["200"]["content"]["application/json"]["examples"];
        let (_, example) = examples
            .as_object()
            .expect("examples")
            .iter()
            .next()
            .expect("one");
        let answers = answers_around(&example["value"]);
        for profile in [Profile::Core, Profile::Reference] {
            let written = compile_schema(&written, definitions, profile).expect("compiles");
            let as_allof = compile_schema(&as_allof, definitions, profile).expect("compiles");
            let verdicts: Vec<bool> = answers.iter().map(|a| written.is_valid(a)).collect();
            for (answer, verdict) in answers.iter().zip(&verdicts) {
                assert_eq!(
                    *verdict,
                    as_allof.is_valid(answer),
                    "{operation}: the two forms disagree on {answer}"
                );
            }
            assert!(
                verdicts.contains(&true) && verdicts.contains(&false),
                "{operation}: {verdicts:?}"
            );
        }
    }
}
