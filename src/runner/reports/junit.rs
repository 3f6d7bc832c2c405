//! JUnit XML: a `testsuite` per feature file, a `testcase` per scenario.
//! A failure carries the failing step as its type, expected and actual as
//! its message, and the whole failure with the exchange as its text; a
//! skipped or waived scenario is `skipped` with the reason. This is the
//! dialect GitHub, GitLab and Jenkins read (the Jenkins/Ant schema), with
//! Maven Surefire's elements for tries run again (`--retries`): a flaky
//! scenario passes with a `flakyFailure` (or `flakyError`) per failed
//! try, and one that failed every try carries a `rerunFailure` (or
//! `rerunError`) per earlier try, as Jenkins and GitLab read them.

use std::collections::BTreeMap;

use quick_xml::{
    Writer,
    events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event},
};

use super::RenderError;
use crate::runner::outcome::RunOutcome;
use crate::runner::result::{EarlierTry, Outcome, ScenarioResult};

/// Text a CI system shows as it reads and XML 1.0 can carry: control
/// characters (which XML forbids and a garbage answer may hold) shown
/// escaped, no line that begins a workflow command
/// ([`crate::runner::neutral`]), and the two non-characters as U+FFFD.
fn clean(text: &str) -> String {
    crate::runner::neutral::block(text)
        .chars()
        .map(|c| match c {
            '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// The report as text.
pub fn render(inputs: &RunOutcome) -> Result<String, RenderError> {
    let mut by_file: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for result in inputs.report.sorted() {
        by_file.entry(&result.file).or_default().push(result);
    }
    let counts = inputs.report.scenario_counts();
    let stamp = inputs.record.started_at.clone();

    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut suites = BytesStart::new("testsuites");
    suites.push_attribute(("name", "payconf"));
    suites.push_attribute(("tests", counts.total().to_string().as_str()));
    suites.push_attribute(("failures", counts.failed.to_string().as_str()));
    suites.push_attribute((
        "errors",
        (inputs.report.harness_errors.len() + counts.errors)
            .to_string()
            .as_str(),
    ));
    suites.push_attribute((
        "skipped",
        (counts.skipped + counts.waived).to_string().as_str(),
    ));
    suites.push_attribute((
        "time",
        seconds(std::time::Duration::from_millis(inputs.record.duration_ms)).as_str(),
    ));
    suites.push_attribute(("timestamp", stamp.as_str()));
    writer.write_event(Event::Start(suites))?;

    for (file, results) in by_file {
        let failures = results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Failed { .. }))
            .count();
        let skipped = results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Skipped(_) | Outcome::Waived { .. }))
            .count();
        let errors = results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Error { .. }))
            .count();
        let time: std::time::Duration = results.iter().map(|r| r.duration).sum();
        let feature = results.first().map_or("", |r| r.feature.as_str());
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", clean(&format!("{feature} ({file})")).as_str()));
        suite.push_attribute(("tests", results.len().to_string().as_str()));
        suite.push_attribute(("failures", failures.to_string().as_str()));
        suite.push_attribute(("errors", errors.to_string().as_str()));
        suite.push_attribute(("skipped", skipped.to_string().as_str()));
        suite.push_attribute(("time", seconds(time).as_str()));
        suite.push_attribute(("timestamp", stamp.as_str()));
        writer.write_event(Event::Start(suite))?;

        writer.write_event(Event::Start(BytesStart::new("properties")))?;
        let target = inputs.report.target.to_string();
        for (name, value) in [
            ("target", target.as_str()),
            ("tags", inputs.record.selection.tags.as_str()),
            ("spec.sha256", inputs.record.spec.sha256.as_str()),
        ] {
            let mut property = BytesStart::new("property");
            property.push_attribute(("name", name));
            property.push_attribute(("value", value));
            writer.write_event(Event::Empty(property))?;
        }
        writer.write_event(Event::End(BytesEnd::new("properties")))?;

        for result in results {
            write_case(&mut writer, file, result)?;
        }
        writer.write_event(Event::End(BytesEnd::new("testsuite")))?;
    }
    writer.write_event(Event::End(BytesEnd::new("testsuites")))?;
    Ok(String::from_utf8(writer.into_inner())?)
}

/// One scenario's `testcase`: its verdict's element (none for a pass),
/// its tries, and the requirements it checks.
fn write_case(
    writer: &mut Writer<Vec<u8>>,
    file: &str,
    result: &ScenarioResult,
) -> Result<(), RenderError> {
    let mut case = BytesStart::new("testcase");
    case.push_attribute(("name", clean(&result.name).as_str()));
    case.push_attribute(("classname", file));
    case.push_attribute(("file", format!("features/{file}").as_str()));
    case.push_attribute(("line", result.line.to_string().as_str()));
    case.push_attribute(("time", seconds(result.duration).as_str()));
    let text = failure_text(&result.outcome);
    let verdict = match &result.outcome {
        Outcome::Passed => {
            writer.write_event(Event::Empty(case))?;
            return Ok(());
        }
        // A pass, with the tries that were not (Surefire's flaky test).
        Outcome::Flaky => None,
        Outcome::Failed { failure, .. } => Some(("failure", failure.headline(), text)),
        Outcome::Skipped(reason) => Some(("skipped", reason.clone(), String::new())),
        // JUnit's own word for a test that could not be carried out.
        Outcome::Error { failure, .. } => Some(("error", failure.headline(), text)),
        Outcome::Waived { waivers, .. } => {
            Some(("skipped", format!("waived: {}", waivers.join("; ")), text))
        }
    };
    writer.write_event(Event::Start(case))?;
    if let Some((kind, message, text)) = verdict {
        let mut element = BytesStart::new(kind);
        element.push_attribute(("message", clean(&message).as_str()));
        match &result.outcome {
            Outcome::Failed { step, .. } => {
                element.push_attribute(("type", clean(step).as_str()));
            }
            Outcome::Error { .. } => element.push_attribute(("type", "harness")),
            _ => {}
        }
        if text.is_empty() {
            writer.write_event(Event::Empty(element))?;
        } else {
            writer.write_event(Event::Start(element))?;
            writer.write_event(Event::Text(BytesText::new(&clean(&text))))?;
            writer.write_event(Event::End(BytesEnd::new(kind)))?;
        }
    }
    let reruns = if result.outcome == Outcome::Flaky {
        "flaky"
    } else {
        "rerun"
    };
    write_tries(writer, result, reruns)?;
    if result.requirements().next().is_some() {
        writer.write_event(Event::Start(BytesStart::new("system-out")))?;
        writer.write_event(Event::Text(BytesText::new(&checks_line(result))))?;
        writer.write_event(Event::End(BytesEnd::new("system-out")))?;
    }
    writer.write_event(Event::End(BytesEnd::new("testcase")))?;
    Ok(())
}

/// A failed, waived or erred outcome's failing step and whole failure, as
/// an element's text; nothing for the others.
fn failure_text(outcome: &Outcome) -> String {
    outcome
        .failure()
        .map(|(step, failure)| format!("step: {step}\n{failure}"))
        .unwrap_or_default()
}

/// A scenario's earlier tries as Surefire writes reruns: `{prefix}Failure`
/// or `{prefix}Error` each, its headline and failing step as attributes,
/// the whole failure as its `stackTrace`.
fn write_tries(
    writer: &mut Writer<Vec<u8>>,
    result: &ScenarioResult,
    prefix: &str,
) -> Result<(), RenderError> {
    for (i, EarlierTry { outcome, .. }) in result.earlier.iter().enumerate() {
        let Some((step, failure)) = outcome.failure() else {
            continue;
        };
        let kind = match outcome {
            Outcome::Error { .. } => format!("{prefix}Error"),
            _ => format!("{prefix}Failure"),
        };
        let mut element = BytesStart::new(kind.as_str());
        let headline = format!(
            "try {} of {}: {}",
            i + 1,
            result.tries(),
            failure.headline()
        );
        element.push_attribute(("message", clean(&headline).as_str()));
        element.push_attribute(("type", clean(step).as_str()));
        writer.write_event(Event::Start(element))?;
        writer.write_event(Event::Start(BytesStart::new("stackTrace")))?;
        let text = failure_text(outcome);
        writer.write_event(Event::Text(BytesText::new(&clean(&text))))?;
        writer.write_event(Event::End(BytesEnd::new("stackTrace")))?;
        writer.write_event(Event::End(BytesEnd::new(kind.as_str())))?;
    }
    Ok(())
}

/// The requirements a testcase checks; for one that did not pass, each with
/// how it went: `checks: TDS-01 (failed), SUBMIT-01 (passed), TDS-02 (not reached)`.
fn checks_line(result: &crate::runner::result::ScenarioResult) -> String {
    let shown: Vec<String> = result
        .requirements()
        .map(|id| match result.outcome {
            Outcome::Passed | Outcome::Flaky | Outcome::Skipped(_) => id.to_string(),
            _ => format!(
                "{id} ({})",
                result.verdict_for(&id).name().replace('-', " ")
            ),
        })
        .collect();
    format!("checks: {}", shown.join(", "))
}
