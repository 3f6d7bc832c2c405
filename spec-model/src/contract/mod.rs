//! The contract as data: `spec/openapi.yaml`, loaded with the `openapiv3`
//! crate, and every JSON answer's schema compiled into a JSON Schema
//! validator.
//!
//! Two profiles read the same spec. [`Profile::Reference`] holds an answer to
//! the response the spec declares for its HTTP status, schemas as written.
//! [`Profile::Core`] holds it only to what the contract states: the envelope
//! on every answer, whatever its status, and the operation's success payload
//! when `error.code` is `"0"`, with every property marked
//! `x-conformance: reference` left out. [`schema`] converts OpenAPI 3.0
//! schemas to JSON Schema; [`Violation`] reports a failed check without
//! echoing the value that failed it.

mod schema;
mod violation;

use std::{collections::HashMap, path::Path};

use jsonschema::Validator;
use openapiv3::OpenAPI;
use serde_json::Value;
use url::Url;

use crate::{Profile, json_ref::resolve};

pub use schema::{Components, SchemaError, compile_schema, openapi_to_json_schema};
pub use violation::{Violation, Violations};

/// The spec compiled into the binary, so an installed payconf works anywhere.
pub const EMBEDDED_SPEC: &str = include_str!("../../../spec/openapi.yaml");

/// Why a spec could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    /// The file could not be read.
    #[error("cannot read spec {path}: {source}")]
    Read {
        /// The path as given, so the message names what the user typed.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The YAML is not an OpenAPI 3.0 document.
    #[error("spec is not an OpenAPI 3.0 document: {0}")]
    Parse(#[from] serde_yaml_ng::Error),
    /// The document lacks something payconf needs, or a schema does not compile.
    #[error("spec is unusable: {0}")]
    Invalid(String),
    /// A response schema does not compile.
    #[error("spec is unusable: {at}: {source}")]
    Schema {
        /// Which schema: the envelope, or an operation's answer.
        at: String,
        /// Why it does not compile.
        source: SchemaError,
    },
}

/// The key of a compiled response schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ResponseKey {
    operation_id: String,
    /// `"200"`, `"default"`, …, as the spec writes it.
    status: String,
    profile: Profile,
}

/// The loaded spec and its compiled response validators.
#[derive(Debug)]
pub struct Contract {
    openapi: OpenAPI,
    /// The raw document, for the parts `openapiv3` does not model (`x-` keys).
    document: Value,
    /// The envelope every answer carries, held to the contract's own shape.
    core_envelope: Validator,
    validators: HashMap<ResponseKey, Validator>,
    /// The JSON body of each callback the spec declares, by the callback
    /// operation's `operationId` (reference profile).
    callback_bodies: HashMap<String, Validator>,
    /// The document's text, as read.
    text: String,
    /// SHA-256 of the document's text, in hex.
    sha256: String,
}

impl Contract {
    /// The spec compiled into the binary.
    pub fn embedded() -> Result<Self, ContractError> {
        Self::from_yaml(EMBEDDED_SPEC)
    }

    /// The embedded spec's [`Contract::sha256`], without compiling it.
    pub fn embedded_sha256() -> String {
        crate::digest::sha256_hex(EMBEDDED_SPEC.as_bytes())
    }

    /// Reads a spec file.
    pub fn load(path: &Path) -> Result<Self, ContractError> {
        let text = std::fs::read_to_string(path).map_err(|source| ContractError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_yaml(&text)
    }

    /// Parses a spec and compiles the schema of every JSON answer it declares.
    pub fn from_yaml(text: &str) -> Result<Self, ContractError> {
        let openapi: OpenAPI = serde_yaml_ng::from_str(text)?;
        if !openapi.openapi.starts_with("3.0.") {
            return Err(ContractError::Invalid(format!(
                "openapi version {} (3.0.x expected)",
                openapi.openapi
            )));
        }
        let document: Value = serde_yaml_ng::from_str(text)?;
        let definitions = document
            .pointer("/components/schemas")
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default()));
        // Robustness holds answers to the core view: two views in all.
        let components = |profile| {
            Components::new(&definitions, profile).map_err(|source| ContractError::Schema {
                at: "components/schemas".to_owned(),
                source,
            })
        };
        let views = [components(Profile::Core)?, components(Profile::Reference)?];
        let [core, reference] = &views;
        let core_envelope = core
            .compile(&serde_json::json!({"$ref": "#/components/schemas/Envelope"}))
            .map_err(|source| ContractError::Schema {
                at: "the Envelope schema".to_owned(),
                source,
            })?;
        let mut validators = HashMap::new();
        for (path, method, operation) in openapi.operations() {
            let operation_id = operation.operation_id.clone().ok_or_else(|| {
                ContractError::Invalid(format!("{method} {path} has no operationId"))
            })?;
            let pointer = format!(
                "/paths/{}/{method}/responses",
                path.replace('~', "~0").replace('/', "~1")
            );
            let Some(responses) = document.pointer(&pointer).and_then(Value::as_object) else {
                continue;
            };
            for (status, response) in responses {
                let response = resolve(&document, response);
                let Some(json_schema) = response
                    .pointer("/content/application~1json/schema")
                    .filter(|_| response.get("content").is_some())
                else {
                    continue;
                };
                for components in &views {
                    let validator = components.compile(json_schema).map_err(|source| {
                        ContractError::Schema {
                            at: format!("{operation_id} {status}"),
                            source,
                        }
                    })?;
                    validators.insert(
                        ResponseKey {
                            operation_id: operation_id.clone(),
                            status: status.clone(),
                            profile: components.profile(),
                        },
                        validator,
                    );
                }
            }
        }
        let callback_bodies = callback_bodies(&document, reference)?;
        let sha256 = crate::digest::sha256_hex(text.as_bytes());
        Ok(Self {
            openapi,
            document,
            core_envelope,
            validators,
            callback_bodies,
            text: text.to_owned(),
            sha256,
        })
    }

    /// The spec's text, as read: what the documentation publishes.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// SHA-256 of the spec's text, in hex: which spec a report was made with.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The addresses of the servers the spec marks `x-environment:
    /// production`, their variables set to their defaults and to each of
    /// their `enum` values.
    pub fn production_addresses(&self) -> Vec<Url> {
        let mut addresses = Vec::new();
        for server in &self.openapi.servers {
            if server
                .extensions
                .get("x-environment")
                .and_then(Value::as_str)
                != Some("production")
            {
                continue;
            }
            let mut candidates = vec![server.url.clone()];
            for (name, variable) in server.variables.iter().flatten() {
                let values: Vec<&String> = std::iter::once(&variable.default)
                    .chain(&variable.enumeration)
                    .collect();
                candidates = candidates
                    .iter()
                    .flat_map(|url| {
                        values
                            .iter()
                            .map(move |value| url.replace(&format!("{{{name}}}"), value))
                    })
                    .collect();
            }
            addresses.extend(candidates.iter().filter_map(|c| Url::parse(c).ok()));
        }
        addresses
    }

    /// The parsed OpenAPI document.
    pub fn openapi(&self) -> &OpenAPI {
        &self.openapi
    }

    /// The raw document as JSON, `x-` extensions included.
    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The spec's title (`info.title`).
    pub fn title(&self) -> &str {
        &self.openapi.info.title
    }

    /// The spec's version (`info.version`).
    pub fn version(&self) -> &str {
        &self.openapi.info.version
    }

    /// Checks a JSON answer to an operation.
    ///
    /// Core (and robustness): the envelope, and when `error.code` is `"0"` the operation's
    /// success schema without reference-profile properties, whatever the HTTP
    /// status. Reference: the schema the spec declares for this status (or
    /// its `default`); a status the spec does not declare is a violation.
    pub fn check_response(
        &self,
        operation_id: &str,
        status: u16,
        body: &Value,
        profile: Profile,
    ) -> Result<(), Violations> {
        if !profile.holds_reference_choices() {
            violation::check(&self.core_envelope, body)?;
            let processed = body.pointer("/error/code").and_then(Value::as_str) == Some("0");
            if processed {
                let validator = self
                    .validator(operation_id, "200", Profile::Core)
                    .ok_or_else(|| self.undeclared(operation_id, "200"))?;
                violation::check(validator, body)?;
            }
            return Ok(());
        }
        // `default` is the contract's catch-all; the reference profile
        // declares every status it uses, so only an exact match counts.
        let status = status.to_string();
        let validator = self
            .validator(operation_id, &status, Profile::Reference)
            .ok_or_else(|| self.undeclared(operation_id, &status))?;
        violation::check(validator, body)
    }

    /// Checks the JSON body of a callback the service makes (a server
    /// notification, `notifyPaymentOutcome`) against the schema the spec
    /// declares for it.
    pub fn check_callback(&self, operation_id: &str, body: &Value) -> Result<(), Violations> {
        let validator = self.callback_bodies.get(operation_id).ok_or_else(|| {
            Violations::single(Violation {
                instance_path: String::new(),
                field: String::new(),
                keyword: "callback".to_owned(),
                message: format!("the spec declares no callback {operation_id}"),
            })
        })?;
        violation::check(validator, body)
    }

    /// The HTTP statuses the spec declares for an operation's answers.
    pub fn declared_statuses(&self, operation_id: &str) -> Vec<String> {
        let mut statuses: Vec<String> = self
            .validators
            .keys()
            .filter(|k| {
                k.operation_id == operation_id
                    && k.profile == Profile::Reference
                    && k.status != "default"
            })
            .map(|k| k.status.clone())
            .collect();
        statuses.sort();
        statuses
    }

    fn validator(&self, operation_id: &str, status: &str, profile: Profile) -> Option<&Validator> {
        self.validators.get(&ResponseKey {
            operation_id: operation_id.to_owned(),
            status: status.to_owned(),
            profile,
        })
    }

    fn undeclared(&self, operation_id: &str, status: &str) -> Violations {
        let declared = self.declared_statuses(operation_id);
        Violations::single(Violation {
            instance_path: String::new(),
            field: String::new(),
            keyword: "status".to_owned(),
            message: if declared.is_empty() {
                format!("the spec declares no JSON answer for operation {operation_id}")
            } else {
                format!(
                    "HTTP status {status} is not declared for {operation_id} (declared: {})",
                    declared.join(", ")
                )
            },
        })
    }
}

/// The request body schema of every callback operation, compiled.
fn callback_bodies(
    document: &Value,
    reference: &Components<'_>,
) -> Result<HashMap<String, Validator>, ContractError> {
    let mut bodies = HashMap::new();
    let operations = document
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| item.values());
    for operation in operations {
        let callbacks = operation
            .get("callbacks")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|c| c.values())
            .filter_map(Value::as_object)
            .flat_map(|expressions| expressions.values())
            .filter_map(Value::as_object)
            .flat_map(|item| item.values());
        for callback in callbacks {
            let (Some(id), Some(schema)) = (
                callback.get("operationId").and_then(Value::as_str),
                callback.pointer("/requestBody/content/application~1json/schema"),
            ) else {
                continue;
            };
            let validator = reference
                .compile(schema)
                .map_err(|source| ContractError::Schema {
                    at: format!("the {id} callback's body"),
                    source,
                })?;
            bodies.insert(id.to_owned(), validator);
        }
    }
    Ok(bodies)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_spec_s_digest_uncompiled_is_the_compiled_one() {
        let contract = super::Contract::embedded().expect("the spec loads");
        assert_eq!(super::Contract::embedded_sha256(), contract.sha256());
        assert_eq!(contract.sha256().len(), 64);
    }
}
