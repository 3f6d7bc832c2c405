//! The JSON summary of a run, for machines: which payconf and which spec
//! (version and SHA-256), against what (the effective target, redacted:
//! the implementer's declaration), what was selected and left out, the
//! plan (every scenario, applying or not, and why), the counts, and the outcome of every
//! requirement and every scenario.

use serde_json::json;

use super::{RenderError, ReportInputs, requirement_outcomes, sorted, timestamp};

use crate::runner::result::past::FORMAT_VERSION;

/// The report as text.
pub fn render(inputs: &ReportInputs<'_>) -> Result<String, RenderError> {
    let scenarios = inputs.report.scenario_counts();
    let steps = inputs.report.steps;
    let scenario_list: Vec<_> = sorted(inputs.report)
        .into_iter()
        .map(|r| {
            let mut entry = json!({
                "location": r.location(),
                "feature": r.feature,
                "name": r.name,
                "tags": r.tags,
                "requirements": r.requirements().collect::<Vec<_>>(),
                "outcome": r.outcome.name(),
                "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            });
            if let Some((step, failure)) = r.outcome.failure() {
                entry["step"] = json!(step);
                entry["message"] = json!(failure.to_string());
                entry["failure"] = json!({
                    "fault": failure.fault.name(),
                    "expected": failure.expected,
                    "actual": failure.actual,
                });
                entry["at_fault"] = json!(r.blamed);
            }
            if let Some(issuer) = &r.leftovers.issuer {
                entry["driver"] = json!(issuer.driver.name());
                entry["issuer_pages"] = json!(issuer.pages);
            }
            if let Some(hostile) = &r.leftovers.hostile {
                entry["hostile"] = json!(hostile);
            }
            if !r.outcome.waivers().is_empty() {
                entry["waivers"] = json!(r.outcome.waivers());
            }
            if let Some(reason) = r.outcome.skip_reason() {
                entry["reason"] = json!(reason);
            }
            if !r.leftovers.observations.is_empty() {
                entry["noted"] = json!(r.leftovers.observations);
            }
            if !r.leftovers.waited.is_empty() {
                entry["waited"] = json!(r.leftovers.waited);
            }
            if !r.leftovers.measured.is_empty() {
                entry["measured"] = json!(r.leftovers.measured);
            }
            if !r.earlier.is_empty() {
                entry["tries"] = json!(r.tries());
                entry["earlier_tries"] = r
                    .earlier
                    .iter()
                    .map(|earlier| {
                        let mut try_ = json!({
                            "outcome": earlier.outcome.name(),
                            "duration_ms": u64::try_from(earlier.duration.as_millis()).unwrap_or(u64::MAX),
                            "at_fault": earlier.blamed,
                        });
                        if let Some((step, failure)) = earlier.outcome.failure() {
                            try_["step"] = json!(step);
                            try_["message"] = json!(failure.to_string());
                        }
                        try_
                    })
                    .collect();
            }
            entry
        })
        .collect();
    let results = json!({
        "format_version": FORMAT_VERSION,
        "payconf": {"version": env!("CARGO_PKG_VERSION")},
        "spec": {
            "title": inputs.contract.title(),
            "version": inputs.contract.version(),
            "sha256": inputs.contract.sha256(),
        },
        "features": {"sha256": inputs.features.sha256()},
        "target": {
            "embedded_reference": inputs.embedded,
            "configuration": inputs.target.summary(),
        },
        "selection": {
            "tags": inputs.tags,
            "left_out_by_production_guard": inputs.left_out,
        },
        "plan": inputs.plan.to_json(),
        "seed": inputs.seed,
        "started_at": timestamp(inputs.started),
        "duration_ms": u64::try_from(inputs.duration.as_millis()).unwrap_or(u64::MAX),
        "outcome": inputs.verdict.name(),
        "exit_code": inputs.verdict.exit_code(),
        "harness_errors": inputs.report.harness_errors,
        "waivers": {
            "no_longer_needed": inputs.report.stale_waivers,
            "strict": inputs.report.strict_waivers,
        },
        "retries": {
            "allowed": inputs.report.retries,
            "flaky_fails": inputs.report.flaky_fails,
        },
        "counts": {
            "scenarios": {
                "total": scenarios.total(), "passed": scenarios.passed,
                "flaky": scenarios.flaky, "failed": scenarios.failed,
                "skipped": scenarios.skipped, "waived": scenarios.waived,
                "errors": scenarios.errors,
            },
            "steps": {
                "total": steps.total(), "passed": steps.passed, "failed": steps.failed,
                "skipped": steps.skipped,
            },
        },
        "requirements": requirement_outcomes(inputs),
        "scenarios": scenario_list,
    });
    Ok(serde_json::to_string_pretty(&results)?)
}
