//! The features as documentation: every scenario, readable, with the
//! operation it exercises, its profile and the requirements it checks.

use cucumber::gherkin::Step;
use serde::Serialize;

use payconf_spec::{
    Profile,
    features::{
        Features, effective_tags, file_name, html_id, location, other_tags, requirement_ids,
        scenarios_with_rules,
    },
};

use crate::runner::{
    CARD_DATA_DEFINITIONS, ISSUER_TAG, LIFECYCLE_TAG, OFF_OPERATION_DEFINITIONS, PAYMENT_PAGE_TAG,
    definition_file,
};

/// One step, as written.
#[derive(Clone, Debug, Serialize)]
pub struct StepDoc {
    /// `Given`, `When`, `Then`, `And`.
    pub keyword: String,
    /// The step's text, as the feature writes it.
    pub text: String,
    /// Its doc string (a body sent as written), shown as a code block.
    pub docstring: Option<String>,
    /// Its data table, shown as a table.
    pub table: Option<Vec<Vec<String>>>,
}

/// One scenario (an outline once, with its examples).
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioDoc {
    /// Its HTML id: `s-create-8`.
    pub anchor: String,
    /// `create.feature`.
    pub file: String,
    /// Its line in the file, for the `file:line` that reports use too.
    pub line: usize,
    /// The feature's name, the heading it is listed under.
    pub feature: String,
    /// Its name, as the feature writes it.
    pub name: String,
    /// `core`, `reference` or `robustness`.
    pub profile: &'static str,
    /// The requirement ids it checks.
    pub requirements: Vec<payconf_spec::requirements::RequirementId>,
    /// Its other tags (area, needs), without `@`.
    pub tags: Vec<String>,
    /// The feature's background steps, run before it.
    pub background: Vec<StepDoc>,
    /// Its own steps, after the background's.
    pub steps: Vec<StepDoc>,
    /// Its examples tables (header row first), for an outline.
    pub examples: Vec<Vec<Vec<String>>>,
    /// The operation it exercises, or `None` for requests of any kind.
    pub operation: Option<String>,
}

fn step_doc(step: &Step) -> StepDoc {
    StepDoc {
        keyword: step.keyword.trim().to_owned(),
        text: step.value.clone(),
        docstring: step.docstring.as_ref().map(|d| d.trim().to_owned()),
        table: step.table.as_ref().map(|t| t.rows.clone()),
    }
}

/// The operation a scenario exercises, from its tags and the definitions
/// of its steps, the furthest along the payment's way: a scenario on the
/// standard payment page (`@payment-page`) is the page's; one of the
/// payment's life after submit (`@lifecycle`) is its furthest operation's
/// (refund, cancel, capture, else the detail); one tagged
/// `@issuer` (it drives the buyer through the issuer's page, and needs a
/// driver for it) is the issuer authentication's; one
/// with a step whose definition sends card data is submit's; one whose
/// requests are only to paths outside the operations is none's; the rest
/// are create's. A reworded step has no definition and fails the suite's
/// checks; it cannot move a scenario silently.
fn operation_of(tags: &[String], steps: &[&Step]) -> Option<String> {
    let defined_in = |files: &[&str]| {
        steps
            .iter()
            .any(|step| definition_file(step).is_some_and(|file| files.contains(&file)))
    };
    let tagged = |name: &str| tags.iter().any(|tag| tag == name);
    let operation = if tagged(LIFECYCLE_TAG) {
        // The payment's life after submit: its furthest operation.
        if tagged("refund") {
            "refundPayment"
        } else if tagged("cancel") {
            "cancelPayment"
        } else if tagged("capture") {
            "capturePayment"
        } else {
            "getPaymentDetail"
        }
    } else if tags.iter().any(|tag| tag == PAYMENT_PAGE_TAG) {
        "payOnPaymentPage"
    } else if tags.iter().any(|tag| tag == ISSUER_TAG) {
        "completeIssuerAuthentication"
    } else if defined_in(&CARD_DATA_DEFINITIONS) {
        "submitPayment"
    } else if defined_in(&OFF_OPERATION_DEFINITIONS) {
        return None;
    } else {
        "createPayment"
    };
    Some(operation.to_owned())
}

/// Every scenario of the features, in file order.
pub fn scenarios(features: &Features) -> Vec<ScenarioDoc> {
    let mut found = Vec::new();
    for feature in features.as_written() {
        let file = file_name(feature);
        let background: Vec<StepDoc> = feature
            .background
            .iter()
            .flat_map(|b| b.steps.iter().map(step_doc))
            .collect();
        for (rule, scenario) in scenarios_with_rules(feature) {
            let tags = effective_tags(feature, rule, scenario);
            let steps: Vec<StepDoc> = scenario.steps.iter().map(step_doc).collect();
            let all: Vec<&Step> = feature
                .background
                .iter()
                .flat_map(|b| &b.steps)
                .chain(&scenario.steps)
                .collect();
            found.push(ScenarioDoc {
                anchor: html_id(&location(&file, scenario.position.line)),
                file: file.clone(),
                line: scenario.position.line,
                feature: feature.name.clone(),
                name: scenario.name.clone(),
                // Every scenario has one profile tag (the suite's checks
                // refuse it otherwise); core is what an untagged one would be.
                profile: Profile::of_tags(&tags).unwrap_or(Profile::Core).name(),
                requirements: requirement_ids(&tags).collect(),
                tags: other_tags(&tags).map(str::to_owned).collect(),
                background: background.clone(),
                steps,
                examples: scenario
                    .examples
                    .iter()
                    .filter_map(|e| e.table.as_ref().map(|t| t.rows.clone()))
                    .collect(),
                operation: operation_of(&tags, &all),
            });
        }
    }
    found
}
