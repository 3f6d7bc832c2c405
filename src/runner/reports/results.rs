//! The results file: the run's [`RunRecord`] serialised. Which payconf and
//! which spec (version and SHA-256), against what (the effective target,
//! redacted: the implementer's declaration), what was selected and left
//! out, the plan (every scenario, applying or not, and why), the counts,
//! and the outcome of every requirement and every scenario.

use super::{RenderError, ReportInputs, RunFacts, requirement_outcomes, sorted, timestamp};

use crate::runner::result::{
    FORMAT_VERSION, RunRecord, ScenarioResult,
    record::{
        CountsRecord, EarlierTryRecord, FailureRecord, FeaturesRecord, PayconfRecord,
        RetriesRecord, ScenarioRecord, SelectionRecord, SpecRecord, TargetRecord, WaiverRecord,
        millis,
    },
};

/// The report as text.
pub fn render(inputs: &ReportInputs<'_>) -> Result<String, RenderError> {
    Ok(inputs.record.to_text()?)
}

/// The record of the run `inputs` describe.
pub fn record(inputs: &RunFacts<'_>) -> RunRecord {
    let report = inputs.report;
    RunRecord {
        format_version: FORMAT_VERSION,
        payconf: PayconfRecord {
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        spec: SpecRecord {
            title: inputs.contract.title().to_owned(),
            version: inputs.contract.version().to_owned(),
            sha256: inputs.contract.sha256().to_owned(),
        },
        features: FeaturesRecord {
            sha256: inputs.features.sha256().to_owned(),
        },
        target: TargetRecord {
            embedded_reference: inputs.report.target.is_embedded(),
            configuration: inputs.target.summary(),
        },
        selection: SelectionRecord {
            tags: inputs.tags.clone(),
            left_out_by_production_guard: inputs.left_out.clone(),
        },
        plan: inputs.plan.clone(),
        seed: inputs.seed,
        started_at: timestamp(inputs.started),
        duration_ms: millis(inputs.duration),
        outcome: inputs.verdict,
        exit_code: inputs.verdict.exit_code(),
        harness_errors: report.harness_errors.clone(),
        waivers: WaiverRecord {
            no_longer_needed: report.stale_waivers.clone(),
            strict: report.strict_waivers,
        },
        retries: RetriesRecord {
            allowed: report.retries,
            flaky_fails: report.flaky_fails,
        },
        counts: CountsRecord {
            scenarios: report.scenario_counts().into(),
            steps: report.steps.into(),
        },
        requirements: requirement_outcomes(inputs),
        scenarios: sorted(report).into_iter().map(scenario).collect(),
    }
}

/// One scenario's entry.
fn scenario(r: &ScenarioResult) -> ScenarioRecord {
    let failed = r.outcome.failure();
    let issuer = r.leftovers.issuer.as_ref();
    let earlier = &r.earlier;
    ScenarioRecord {
        location: r.location(),
        feature: r.feature.clone(),
        name: r.name.clone(),
        tags: r.tags.clone(),
        requirements: r.requirements().map(str::to_owned).collect(),
        outcome: r.outcome.kind(),
        duration_ms: millis(r.duration),
        step: failed.map(|(step, _)| step.to_owned()),
        message: failed.map(|(_, failure)| failure.to_string()),
        failure: failed.map(|(_, failure)| FailureRecord {
            fault: failure.fault,
            expected: failure.expected.clone(),
            actual: failure.actual.clone(),
        }),
        at_fault: failed.map(|_| r.blamed.clone()),
        driver: issuer.map(|i| i.driver),
        issuer_pages: issuer.map(|i| i.pages.clone()),
        hostile: r.leftovers.hostile.clone(),
        waivers: r.outcome.waivers().to_vec(),
        reason: r.outcome.skip_reason().map(str::to_owned),
        noted: r.leftovers.observations.clone(),
        waited: r.leftovers.waited.clone(),
        measured: r.leftovers.measured.clone(),
        tries: (!earlier.is_empty()).then(|| r.tries()),
        earlier_tries: earlier
            .iter()
            .map(|try_| {
                let failed = try_.outcome.failure();
                EarlierTryRecord {
                    outcome: try_.outcome.kind(),
                    duration_ms: millis(try_.duration),
                    at_fault: try_.blamed.clone(),
                    step: failed.map(|(step, _)| step.to_owned()),
                    message: failed.map(|(_, failure)| failure.to_string()),
                }
            })
            .collect(),
    }
}
