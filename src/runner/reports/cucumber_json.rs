//! The standard Cucumber JSON format (as cucumber-jvm, cucumber-js and
//! cucumber-ruby write it): an array of features, each with its scenarios
//! as `elements` of type `scenario`, each with its steps and their
//! `result` (`status`, `duration` in nanoseconds, `error_message`).
//! Waived scenarios keep their failed step: the format has no waiver; the
//! exit code and the other reports say it was waived. A step payconf could
//! not carry out (an error of the harness) is `pending`, the format's word
//! for a step that did not run to a verdict, so that no consumer counts it
//! as a failure of the target.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::RenderError;
use crate::runner::outcome::RunOutcome;
use crate::runner::result::{Outcome, ScenarioResult};

/// An id as Cucumber writes them: lower case, words joined by `-`.
fn slug(text: &str) -> String {
    let mut id = String::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !id.is_empty() {
            id.push('-');
        }
        id.push_str(&word.to_lowercase());
    }
    id
}

fn tags(names: &[String], line: usize) -> Value {
    Value::Array(
        names
            .iter()
            .map(|t| json!({"name": format!("@{t}"), "line": line}))
            .collect(),
    )
}

fn element(result: &ScenarioResult, feature_id: &str) -> Value {
    let steps: Vec<Value> = if result.steps.is_empty() {
        Vec::new()
    } else {
        result
            .steps
            .iter()
            .map(|step| {
                let unjudged = matches!(result.outcome, Outcome::Error { .. })
                    && step.status == crate::runner::result::StepStatus::Failed;
                let status = if unjudged {
                    "pending"
                } else {
                    step.status.name()
                };
                let mut outcome = json!({
                    "status": status,
                    "duration": u64::try_from(step.duration.as_nanos()).unwrap_or(u64::MAX),
                });
                if let Some(message) = &step.message {
                    outcome["error_message"] = json!(message);
                }
                json!({
                    "keyword": step.keyword,
                    "name": step.text,
                    "line": step.line,
                    "match": {"location": format!("features/{}:{}", result.file, step.line)},
                    "result": outcome,
                })
            })
            .collect()
    };
    let mut element = json!({
        "id": format!("{feature_id};{}", slug(&result.name)),
        "keyword": "Scenario",
        "name": result.name,
        "description": "",
        "line": result.line,
        "type": "scenario",
        "tags": tags(&result.tags, result.line.saturating_sub(1)),
        "steps": steps,
    });
    if let Outcome::Skipped(reason) = &result.outcome {
        // Nothing ran: the reason stands as the description.
        element["description"] = json!(format!("skipped: {reason}"));
    }
    element
}

/// The report as text.
pub fn render(inputs: &RunOutcome) -> Result<String, RenderError> {
    let mut by_file: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for result in inputs.report.sorted() {
        by_file.entry(&result.file).or_default().push(result);
    }
    let features: Vec<Value> = by_file
        .into_iter()
        .map(|(file, results)| {
            let source = inputs
                .features
                .features()
                .iter()
                .find(|f| payconf_spec::features::file_name(f) == file);
            let name = results.first().map_or("", |r| r.feature.as_str());
            let id = slug(name);
            json!({
                "uri": format!("features/{file}"),
                "id": id,
                "keyword": "Feature",
                "name": name,
                "description": source.and_then(|f| f.description.clone()).unwrap_or_default(),
                "line": source.map_or(1, |f| f.position.line),
                "tags": tags(&source.map(|f| f.tags.clone()).unwrap_or_default(), 1),
                "elements": results.iter().map(|r| element(r, &id)).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(serde_json::to_string_pretty(&features)?)
}
