//! The payment flows as Arazzo workflows (`spec/payment-flows.arazzo.yaml`),
//! read for the documentation: each workflow with its inputs and steps, and
//! for each operation the steps that call it. Reusable parameters
//! (`reference: $components.parameters.…`) and JSON Schema `$ref`s of the
//! inputs are followed, so the pages show what is sent.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::model::text;

/// The workflows compiled into the binary, beside the embedded spec.
pub const EMBEDDED_WORKFLOWS: &str = include_str!("../../spec/payment-flows.arazzo.yaml");

/// The workflow file's name, in `spec/` and in the generated site.
pub const WORKFLOWS_FILE: &str = "payment-flows.arazzo.yaml";

/// The prefix an Arazzo step names its source description's operations with.
const SOURCE_PREFIX: &str = "$sourceDescriptions.";

/// One input of a workflow.
#[derive(Clone, Debug, Serialize)]
pub struct InputDoc {
    /// Its name, as Respect's `--input` takes it.
    pub name: String,
    /// Its default, as JSON text.
    pub default: String,
    /// What it is.
    pub description: String,
}

/// One step of a workflow.
#[derive(Clone, Debug, Serialize)]
pub struct WorkflowStepDoc {
    /// `create`.
    pub id: String,
    /// The operation it calls: `createPayment`.
    pub operation: String,
    /// What it does.
    pub description: String,
    /// The headers and parameters it sends: "header `paymentToken`: `$steps…`".
    pub sends: Vec<String>,
    /// Its success criteria, as written.
    pub criteria: Vec<String>,
}

/// One workflow.
#[derive(Clone, Debug, Serialize)]
pub struct WorkflowDoc {
    /// `frictionlessPayment`.
    pub id: String,
    /// One line.
    pub summary: String,
    /// Paragraphs.
    pub description: String,
    /// Its inputs, with their defaults.
    pub inputs: Vec<InputDoc>,
    /// Its steps, in order.
    pub steps: Vec<WorkflowStepDoc>,
}

/// A workflow's steps that call one operation, for that operation's page.
#[derive(Clone, Debug, Serialize)]
pub struct WorkflowUse {
    /// The workflow's id, which links to its section of the workflows page.
    pub workflow: String,
    /// Its summary, to say what the workflow is for on the operation's page.
    pub summary: String,
    /// The steps that call the operation.
    pub steps: Vec<WorkflowStepDoc>,
}

/// The Arazzo document, as text and as read.
#[derive(Clone, Debug)]
pub struct Workflows {
    text: String,
    workflows: Vec<WorkflowDoc>,
}

/// Why the workflows could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WorkflowsError {
    /// The file could not be read.
    #[error("cannot read workflows {}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not YAML.
    #[error("the workflows are not YAML: {0}")]
    Yaml(#[from] serde_yaml_ng::Error),
    /// Not Arazzo 1.0: its `arazzo` version, or "missing".
    #[error("the workflows are not an Arazzo 1.0 document (arazzo: {0})")]
    NotArazzo(String),
    /// No `workflows` list.
    #[error("the workflows document has no `workflows` list")]
    NoList,
    /// A workflow without its id.
    #[error("a workflow has no workflowId")]
    NoId,
    /// A workflow without steps: its id.
    #[error("workflow `{0}` has no steps")]
    NoSteps(String),
    /// A step without its ids: its workflow's id.
    #[error("workflow `{0}` has a step without a stepId or an operationId")]
    UnnamedStep(String),
}

impl Workflows {
    /// The workflows compiled into the binary.
    pub fn embedded() -> Result<Self, WorkflowsError> {
        Self::from_yaml(EMBEDDED_WORKFLOWS)
    }

    /// Reads an Arazzo file.
    pub fn load(path: &Path) -> Result<Self, WorkflowsError> {
        let text = std::fs::read_to_string(path).map_err(|source| WorkflowsError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_yaml(&text)
    }

    /// Reads an Arazzo 1.0 document.
    pub fn from_yaml(text: &str) -> Result<Self, WorkflowsError> {
        let document: Value = serde_yaml_ng::from_str(text)?;
        let version = text_of(&document, "arazzo");
        if !version.starts_with("1.0.") {
            return Err(WorkflowsError::NotArazzo(if version.is_empty() {
                "missing".to_owned()
            } else {
                version
            }));
        }
        let workflows = document
            .get("workflows")
            .and_then(Value::as_array)
            .ok_or(WorkflowsError::NoList)?
            .iter()
            .map(|workflow| read_workflow(&document, workflow))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            text: text.to_owned(),
            workflows,
        })
    }

    /// The document's text, published beside the pages.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every workflow, in the document's order.
    pub fn all(&self) -> &[WorkflowDoc] {
        &self.workflows
    }

    /// Each workflow that calls `operation`, with the steps that do.
    pub fn using(&self, operation: &str) -> Vec<WorkflowUse> {
        self.workflows
            .iter()
            .filter_map(|workflow| {
                let steps: Vec<WorkflowStepDoc> = workflow
                    .steps
                    .iter()
                    .filter(|step| step.operation == operation)
                    .cloned()
                    .collect();
                (!steps.is_empty()).then(|| WorkflowUse {
                    workflow: workflow.id.clone(),
                    summary: workflow.summary.clone(),
                    steps,
                })
            })
            .collect()
    }

    /// Steps calling an operation not in `operations`: "workflow `w`, step `s`: `op`".
    pub fn unknown_operations(&self, operations: &[&str]) -> Vec<String> {
        self.workflows
            .iter()
            .flat_map(|workflow| {
                workflow
                    .steps
                    .iter()
                    .filter(|step| !operations.contains(&step.operation.as_str()))
                    .map(move |step| {
                        format!(
                            "workflow `{}`, step `{}`: `{}`",
                            workflow.id, step.id, step.operation
                        )
                    })
            })
            .collect()
    }
}

fn text_of(value: &Value, key: &str) -> String {
    text(value.get(key))
}

/// Follows an Arazzo reusable object (`reference: $components.parameters.apiKey`).
fn follow_reusable<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    value
        .get("reference")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("$components."))
        .and_then(|path| document.pointer(&format!("/components/{}", path.replace('.', "/"))))
        .unwrap_or(value)
}

fn read_workflow(document: &Value, workflow: &Value) -> Result<WorkflowDoc, WorkflowsError> {
    let id = text_of(workflow, "workflowId");
    if id.is_empty() {
        return Err(WorkflowsError::NoId);
    }
    let inputs = workflow
        .get("inputs")
        .map(|schema| payconf_spec::json_ref::resolve(document, schema))
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, property)| InputDoc {
            name: name.clone(),
            default: property
                .get("default")
                .map(Value::to_string)
                .unwrap_or_default(),
            description: text_of(property, "description"),
        })
        .collect();
    let steps = workflow
        .get("steps")
        .and_then(Value::as_array)
        .ok_or_else(|| WorkflowsError::NoSteps(id.clone()))?
        .iter()
        .map(|step| read_step(document, &id, step))
        .collect::<Result<_, _>>()?;
    Ok(WorkflowDoc {
        summary: text_of(workflow, "summary"),
        description: text_of(workflow, "description"),
        id,
        inputs,
        steps,
    })
}

fn read_step(
    document: &Value,
    workflow: &str,
    step: &Value,
) -> Result<WorkflowStepDoc, WorkflowsError> {
    let id = text_of(step, "stepId");
    let operation = text_of(step, "operationId");
    // `$sourceDescriptions.payments.createPayment` or plain `createPayment`.
    let operation = match operation.strip_prefix(SOURCE_PREFIX) {
        Some(qualified) => qualified
            .split_once('.')
            .map(|(_, name)| name.to_owned())
            .unwrap_or_default(),
        None => operation,
    };
    if id.is_empty() || operation.is_empty() {
        return Err(WorkflowsError::UnnamedStep(workflow.to_owned()));
    }
    let sends = step
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|parameter| {
            let parameter = follow_reusable(document, parameter);
            let value = match parameter.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            format!(
                "{} `{}`: `{value}`",
                text_of(parameter, "in"),
                text_of(parameter, "name")
            )
        })
        .collect();
    let criteria = step
        .get("successCriteria")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|criterion| {
            let condition = text_of(criterion, "condition");
            match criterion.get("context").and_then(Value::as_str) {
                Some(context) => format!("`{context}` matches `{condition}`"),
                None => format!("`{condition}`"),
            }
        })
        .collect();
    Ok(WorkflowStepDoc {
        description: text_of(step, "description"),
        id,
        operation,
        sends,
        criteria,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_workflows_read_with_their_shared_steps_and_inputs() {
        let workflows = Workflows::embedded().expect("the embedded workflows read");
        let ids: Vec<&str> = workflows.all().iter().map(|w| w.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "frictionlessPayment",
                "threeDSecurePayment",
                "unknownTokenRefused"
            ]
        );
        for workflow in workflows.all() {
            // The create step is written once and aliased (a YAML anchor).
            assert_eq!(workflow.steps[0].operation, "createPayment");
            assert!(
                workflow.steps[0]
                    .sends
                    .contains(&"header `Authorization`: `apikey {$inputs.apiKey}`".to_owned()),
                "{:?}",
                workflow.steps[0].sends
            );
            assert!(workflow.inputs.iter().any(|i| i.name == "shopLogin"));
        }
        let submits = workflows.using("submitPayment");
        assert_eq!(submits.len(), 3);
        assert_eq!(submits[2].steps.len(), 2, "the unknown token, then its own");
    }

    #[test]
    fn a_document_that_is_not_arazzo_is_refused_with_its_reason() {
        let error = Workflows::from_yaml("openapi: 3.0.3\n")
            .expect_err("not Arazzo")
            .to_string();
        assert!(error.contains("arazzo: missing"), "{error}");
        let error = Workflows::from_yaml("arazzo: 1.0.1\nworkflows:\n  - summary: x\n")
            .expect_err("no id")
            .to_string();
        assert!(error.contains("no workflowId"), "{error}");
        let error = Workflows::from_yaml(": [")
            .expect_err("not YAML")
            .to_string();
        assert!(error.contains("not YAML"), "{error}");
    }

    #[test]
    fn steps_naming_operations_the_spec_lacks_are_listed() {
        let workflows = Workflows::from_yaml(
            "arazzo: 1.0.1\nworkflows:\n  - workflowId: w\n    steps:\n      - stepId: s\n        operationId: $sourceDescriptions.payments.refundPayment\n",
        )
        .expect("reads");
        assert_eq!(
            workflows.unknown_operations(&["createPayment"]),
            ["workflow `w`, step `s`: `refundPayment`"]
        );
        assert!(workflows.unknown_operations(&["refundPayment"]).is_empty());
    }
}
