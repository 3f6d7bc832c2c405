//! The cucumber run of the selected scenarios: which scenarios run and
//! which are set aside (with the reason), the run context every scenario
//! sees, the hooks that prepare each scenario's world and collect what it
//! leaves behind, and the console that prints each result as it comes.

use std::{
    collections::HashSet,
    io::IsTerminal,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use cucumber::{World as _, gherkin::tagexpr::TagOperation, tag::Ext as _};
use payconf_spec::features::{ScenarioEntry, effective_tags, file_name};

use super::{NotRun, Preparsed, Suite, unmet_need};
use crate::runner::{
    console::ConsoleWriter,
    exchange::Limits,
    issuer::chromium::Chromium,
    result::{Outcome, RunReport, ScenarioResult},
    target::TargetConfig,
    waivers::Waivers,
    world::{PaymentWorld, RunContext, with_context},
};

/// How a run goes about its scenarios.
#[derive(Clone, Copy, Debug)]
pub(super) struct Knobs {
    /// Scenarios at the same time.
    pub(super) concurrency: usize,
    /// The seed of generated hostile inputs.
    pub(super) seed: u64,
    /// Whether every exchange is kept for `--har`.
    pub(super) har: bool,
    /// `--rate`.
    pub(super) rate: Option<f64>,
}

pub(super) async fn execute(
    suite: Suite,
    target: TargetConfig,
    tags: &TagOperation,
    limits: Limits,
    knobs: Knobs,
    waivers: Waivers,
    browser: Option<Arc<Chromium>>,
) -> Result<RunReport, NotRun> {
    let (concurrency, seed) = (knobs.concurrency, knobs.seed);
    let report = Arc::new(Mutex::new(RunReport::default()));
    let mut console = ConsoleWriter::new(Arc::clone(&report), Box::new(std::io::stdout()))
        .with_waivers(waivers)
        .with_requirements(suite.requirements.clone());

    let mut selected: HashSet<(String, usize)> = HashSet::new();
    let mut set_aside: Vec<ScenarioResult> = Vec::new();
    for scenario in suite.features.scenarios() {
        if !tags.eval(scenario.tags.iter()) {
            continue;
        }
        match unmet_need(&target, &scenario.tags) {
            Some(reason) => set_aside.push(skipped(scenario, reason)),
            None => {
                selected.insert((scenario.file, scenario.line));
            }
        }
    }
    if selected.is_empty() && set_aside.is_empty() {
        return Err(NotRun("no scenario matches the tag expression".to_owned()));
    }
    for result in &set_aside {
        console.print_result(result);
    }
    if std::io::stdout().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb") {
        console = console.with_progress(selected.len() + set_aside.len());
    }
    report
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .scenarios
        .extend(set_aside);

    let client = crate::runner::transport::client(&target, limits).map_err(NotRun)?;
    let target_driver = target.acs.driver;
    let context = Arc::new(RunContext {
        redactor: target.redactor(),
        target,
        client,
        limits,
        contract: suite.contract,
        requirements: suite.requirements,
        driver: crate::runner::issuer::Driver::of(target_driver, browser),
        seed,
        har: knobs.har,
        pace: Arc::new(crate::runner::exchange::Pace::new(knobs.rate)),
        floor: crate::runner::exchange::Floor::default(),
    });

    let cucumber = PaymentWorld::cucumber::<PathBuf>()
        .max_concurrent_scenarios(concurrency)
        .before(|feature, rule, scenario, world| {
            let tags = effective_tags(feature, rule, scenario);
            Box::pin(async move { world.configure(&tags).await })
        })
        .after({
            let report = Arc::clone(&report);
            move |feature, _, scenario, _, world| {
                let key = (file_name(feature), scenario.position.line);
                let (observations, waited, measured, exchanges, issuer, har) = world
                    .map(|w| {
                        // The browser is free for the next scenario.
                        w.browser_reservation = None;
                        let redactor = &w.ctx.redactor;
                        let exchanges = w.exchanges.iter().map(|e| e.record(redactor)).collect();
                        let har = w.ctx.har.then(|| w.unreported.all(redactor, &w.exchanges));
                        (
                            std::mem::take(&mut w.observations),
                            std::mem::take(&mut w.waited),
                            std::mem::take(&mut w.measured),
                            exchanges,
                            w.issuer_evidence.take(),
                            har,
                        )
                    })
                    .unwrap_or_default();
                let mut report = report.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(har) = har {
                    report.har.push((key.clone(), har));
                }
                if !observations.is_empty() {
                    report.observations.push((key.clone(), observations));
                }
                if !waited.is_empty() {
                    report.waited.push((key.clone(), waited));
                }
                if !measured.is_empty() {
                    report.measured.push((key.clone(), measured));
                }
                if let Some(issuer) = issuer {
                    report.issuer_evidence.push((key.clone(), issuer));
                }
                report.evidence.push((key, exchanges));
                Box::pin(async {})
            }
        })
        .with_parser(Preparsed(suite.features))
        .with_writer(cucumber::writer::Normalize::new(console))
        .fail_on_skipped()
        .with_default_cli();
    with_context(
        context,
        cucumber.filter_run((), move |feature, _, scenario| {
            selected.contains(&(file_name(feature), scenario.position.line))
        }),
    )
    .await;
    let report = report.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(report)
}

fn skipped(scenario: ScenarioEntry, reason: String) -> ScenarioResult {
    ScenarioResult {
        file: scenario.file,
        line: scenario.line,
        feature: scenario.feature,
        name: scenario.name,
        tags: scenario.tags,
        outcome: Outcome::Skipped(reason),
        observations: Vec::new(),
        waited: Vec::new(),
        measured: Vec::new(),
        steps: Vec::new(),
        exchanges: Vec::new(),
        issuer: None,
        blamed: Vec::new(),
        duration: std::time::Duration::ZERO,
    }
}
