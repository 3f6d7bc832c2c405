//! A run's record made from what the run produced and what it was run
//! with ([`RunFacts`]): its identity, its verdict, every requirement's
//! outcome (judged step by step) and every scenario's entry. Made once, by
//! the run; the reports render it.

use std::time::Duration;

use payconf_spec::{contract::Contract, features::Features, requirements::Requirements};
use time::OffsetDateTime;

use super::{
    CountsRecord, EarlierTryRecord, FailureRecord, FeaturesRecord, PayconfRecord, PlanRecord,
    RequirementRecord, RequirementVerdict, RetriesRecord, RunRecord, ScenarioRecord, ScenarioRef,
    SelectionRecord, SpecRecord, TargetRecord, WaiverRecord, millis,
};
use crate::runner::{
    result::{FORMAT_VERSION, RunReport, ScenarioResult, Verdict},
    waivers::Waivers,
};

/// What a run's record is made from: what the run produced and what it was
/// run with.
#[derive(Debug)]
pub struct RunFacts<'a> {
    /// What the run produced.
    pub report: &'a RunReport,
    /// The requirements catalogue.
    pub requirements: &'a Requirements,
    /// The features run, for each scenario's steps as written.
    pub features: &'a Features,
    /// The spec, whose title, version and digest every report records.
    pub contract: &'a Contract,
    /// The target's effective configuration, as reports show it (secrets
    /// masked: `TargetConfig::summary`).
    pub target: serde_json::Value,
    /// The tag expression that selected the scenarios.
    pub tags: String,
    /// The plan: every scenario, applying under the declaration or not,
    /// and why, as the record holds it.
    pub plan: PlanRecord,
    /// Scenarios the production guard left out, as `file:line  name`.
    pub left_out: Vec<String>,
    /// The waivers the run was judged with.
    pub waivers: &'a Waivers,
    /// The seed of the generated hostile inputs, when the run generated some.
    pub seed: Option<u64>,
    /// When the run started.
    pub started: OffsetDateTime,
    /// How long it took.
    pub duration: Duration,
}

impl RunRecord {
    /// The record of the run `inputs` describe.
    pub fn of(inputs: &RunFacts<'_>) -> Self {
        let report = inputs.report;
        let verdict = Verdict::of(report);
        Self {
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
                configuration: inputs.target.clone(),
            },
            selection: SelectionRecord {
                tags: inputs.tags.clone(),
                left_out_by_production_guard: inputs.left_out.clone(),
            },
            plan: inputs.plan.clone(),
            seed: inputs.seed,
            started_at: timestamp(inputs.started),
            duration_ms: millis(inputs.duration),
            outcome: verdict,
            exit_code: verdict.exit_code(),
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
            scenarios: report.sorted().into_iter().map(scenario).collect(),
        }
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
        requirements: r.requirements().collect(),
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

/// Every requirement's outcome, in catalogue order.
fn requirement_outcomes(inputs: &RunFacts<'_>) -> Vec<RequirementRecord> {
    let all = inputs.report.sorted();
    inputs
        .requirements
        .all()
        .iter()
        .map(|requirement| {
            let results: Vec<&ScenarioResult> = all
                .iter()
                .copied()
                .filter(|r| r.checks(&requirement.id))
                .collect();
            // Judged step by step: a scenario that failed on another
            // requirement's step counts for this one as its steps went.
            let verdicts: Vec<RequirementVerdict> = results
                .iter()
                .map(|r| r.verdict_for(&requirement.id))
                .collect();
            RequirementRecord {
                id: requirement.id.clone(),
                profile: requirement.profile,
                summary: requirement.summary.clone(),
                outcome: RequirementVerdict::worst(&verdicts),
                scenarios: results
                    .iter()
                    .zip(&verdicts)
                    .map(|(r, verdict)| ScenarioRef {
                        location: r.location(),
                        name: r.name.clone(),
                        outcome: *verdict,
                    })
                    .collect(),
                waivers: inputs
                    .waivers
                    .of(&requirement.id)
                    .map(|w| w.describe())
                    .collect(),
            }
        })
        .collect()
}

/// RFC 3339, to the second.
fn timestamp(at: OffsetDateTime) -> String {
    at.replace_nanosecond(0)
        .unwrap_or(at)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
