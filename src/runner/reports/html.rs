//! One self-contained HTML page (inline style, no script, no external
//! asset) that leads with what needs looking at: the verdict, and under it
//! each failed, not judged or flaky scenario as a link to its details;
//! then the summary, the requirement coverage matrix (statements' inline
//! code rendered), and every scenario, those that need looking at first
//! and open, with a filter by outcome (radio buttons and CSS), with its
//! steps and exchanges, each with a `curl` that replays
//! it, and for a scenario that did not pass through the issuer page, the
//! pages the driver visited and a screenshot of the last one. Rendered by minijinja with HTML escaping on everything it inserts;
//! prints with every section open.

use minijinja::{Environment, context};
use payconf_spec::features::html_id;
use serde::Serialize;

use super::RenderError;
use crate::runner::outcome::RunOutcome;
use crate::runner::result::{ExchangeRecord, IssuerEvidence, Outcome, ScenarioResult};

const TEMPLATE: &str = include_str!("report.html");

#[derive(Serialize)]
struct StepView {
    keyword: String,
    text: String,
    status: &'static str,
    duration_ms: String,
    message: Option<String>,
}

#[derive(Serialize)]
struct ScenarioView {
    anchor: String,
    location: String,
    feature: String,
    name: String,
    outcome: &'static str,
    requirements: Vec<payconf_spec::requirements::RequirementId>,
    step: Option<String>,
    message: Option<String>,
    /// The message's first line, cut to a line of the page's banner.
    brief: Option<String>,
    reason: Option<String>,
    waivers: Vec<String>,
    observations: Vec<String>,
    measured: Vec<String>,
    steps: Vec<StepView>,
    exchanges: Vec<ExchangeRecord>,
    issuer: Option<IssuerView>,
    duration_ms: String,
    /// Its earlier tries, failed or erred, when `--retries` ran it again.
    earlier: Vec<EarlierView>,
    tries: usize,
}

/// A try that failed or erred and was run again.
#[derive(Serialize)]
struct EarlierView {
    number: usize,
    outcome: &'static str,
    step: String,
    message: String,
    duration_ms: String,
}

/// What the issuer driver saw, shown for a scenario that did not pass.
#[derive(Serialize)]
struct IssuerView {
    driver: &'static str,
    pages: Vec<String>,
    /// The last page as a `data:` URL of a PNG.
    screenshot: Option<String>,
    /// Why there is no screenshot, when the browser left one out.
    screenshot_left_out: Option<String>,
}

impl IssuerView {
    fn of(evidence: &IssuerEvidence) -> Self {
        use base64::Engine as _;
        Self {
            driver: evidence.driver.name(),
            pages: evidence.pages.clone(),
            screenshot: evidence.screenshot.as_ref().map(|png| {
                format!(
                    "data:image/png;base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(png)
                )
            }),
            screenshot_left_out: evidence.screenshot_left_out.clone(),
        }
    }
}

/// Where a scenario of this outcome goes in the page: what needs looking
/// at first (failed, not judged, passed only on a later try), then the
/// rest in the suite's order.
fn attention(outcome: &str) -> u8 {
    match outcome {
        "failed" => 0,
        "error" => 1,
        "flaky" => 2,
        _ => 3,
    }
}

/// A requirement's statement, Markdown as the catalogue writes it (inline
/// code in backticks), as HTML: escaped first, then each pair of
/// backticks a `<code>`. An unpaired backtick stays as it is.
fn inline_markdown(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;");
    let parts: Vec<&str> = escaped.split('`').collect();
    if parts.len() % 2 == 0 {
        return escaped;
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                (*part).to_owned()
            }
        })
        .collect()
}

/// The first line of `message`, at most 160 characters (cut at a word).
fn brief(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    if line.chars().count() <= 160 {
        return line.to_owned();
    }
    let cut: String = line.chars().take(160).collect();
    let at_word = cut.rfind(' ').map_or(cut.as_str(), |space| &cut[..space]);
    format!("{at_word} …")
}

fn millis(d: std::time::Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

impl ScenarioView {
    /// The view of one scenario's result.
    fn of(r: &ScenarioResult) -> Self {
        let failure = r.outcome.failure();
        ScenarioView {
            anchor: html_id(&r.location()),
            location: r.location(),
            feature: r.feature.clone(),
            name: r.name.clone(),
            outcome: r.outcome.name(),
            requirements: r.requirements().collect(),
            step: failure.map(|(step, _)| step.to_owned()),
            message: failure.map(|(_, failure)| failure.to_string()),
            brief: failure.map(|(_, failure)| brief(&failure.to_string())),
            reason: r.outcome.skip_reason().map(str::to_owned),
            waivers: r.outcome.waivers().to_vec(),
            observations: r.leftovers.observations.clone(),
            measured: r.leftovers.measured.clone(),
            steps: r
                .steps
                .iter()
                .map(|s| StepView {
                    keyword: s.keyword.trim().to_owned(),
                    text: s.text.clone(),
                    status: s.status.name(),
                    duration_ms: millis(s.duration),
                    message: s.message.clone(),
                })
                .collect(),
            exchanges: r.leftovers.exchanges.clone(),
            // Kept for what needs explaining: a pass needs no screenshot.
            issuer: r
                .leftovers
                .issuer
                .as_ref()
                .filter(|_| {
                    matches!(
                        r.outcome,
                        Outcome::Failed { .. } | Outcome::Error { .. } | Outcome::Waived { .. }
                    )
                })
                .map(IssuerView::of),
            duration_ms: millis(r.duration),
            earlier: r
                .earlier
                .iter()
                .enumerate()
                .filter_map(|(i, earlier)| {
                    let (step, failure) = earlier.outcome.failure()?;
                    Some(EarlierView {
                        number: i + 1,
                        outcome: earlier.outcome.name(),
                        step: step.to_owned(),
                        message: failure.to_string(),
                        duration_ms: millis(earlier.duration),
                    })
                })
                .collect(),
            tries: r.tries(),
        }
    }
}

/// The report as text.
pub fn render(inputs: &RunOutcome) -> Result<String, RenderError> {
    let mut scenarios: Vec<ScenarioView> = inputs
        .report
        .sorted()
        .into_iter()
        .map(ScenarioView::of)
        .collect();
    scenarios.sort_by_key(|s| attention(s.outcome));
    let record = &inputs.record;
    let requirements = &record.requirements;
    let counts = inputs.report.scenario_counts();
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    env.add_filter("anchor", |location: String| html_id(&location));
    env.add_filter("markdown", |text: String| {
        minijinja::Value::from_safe_string(inline_markdown(&text))
    });
    let template = env.get_template("report.html")?;
    template
        .render(context! {
            version => env!("CARGO_PKG_VERSION"),
            spec_title => record.spec.title,
            spec_version => record.spec.version,
            spec_sha256 => record.spec.sha256,
            target => record.target.configuration,
            embedded => record.target.embedded_reference,
            checked => record.target.checked().to_string(),
            tags => record.selection.tags,
            left_out => record.selection.left_out_by_production_guard,
            started => record.started_at,
            duration_s => format!("{:.2}", std::time::Duration::from_millis(record.duration_ms).as_secs_f64()),
            outcome => record.outcome.name(),
            exit_code => record.exit_code,
            harness_errors => inputs.report.harness_errors,
            counts => context! {
                total => counts.total(), passed => counts.passed, flaky => counts.flaky,
                failed => counts.failed,
                skipped => counts.skipped, waived => counts.waived, errors => counts.errors,
            },
            requirements => requirements,
            scenarios => scenarios,
        })
        .map_err(RenderError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statements_backticks_are_code_and_everything_else_is_text() {
        assert_eq!(
            inline_markdown("`error.code` is \"0\" <b>"),
            "<code>error.code</code> is &quot;0&quot; &lt;b&gt;"
        );
        assert_eq!(inline_markdown("a ` alone"), "a ` alone");
        assert_eq!(inline_markdown("`<script>`"), "<code>&lt;script&gt;</code>");
    }

    #[test]
    fn the_banners_line_is_the_messages_first_cut_at_a_word() {
        assert_eq!(brief("expected: x\nactual: y"), "expected: x");
        let long = "word ".repeat(50);
        let cut = brief(&long);
        assert!(cut.ends_with(" …") && cut.chars().count() <= 162, "{cut}");
    }

    #[test]
    fn what_needs_looking_at_comes_first() {
        let mut outcomes = vec!["passed", "flaky", "skipped", "error", "failed", "waived"];
        outcomes.sort_by_key(|o| attention(o));
        assert_eq!(
            outcomes,
            ["failed", "error", "flaky", "passed", "skipped", "waived"]
        );
    }
}
