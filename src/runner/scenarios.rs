//! The cucumber run of the selected scenarios: which scenarios run and
//! which are set aside (with the reason), the run context every scenario
//! sees, the hooks that prepare each scenario's world and collect what it
//! leaves behind, and the run's watch, told of each result as it comes.

use std::{
    collections::HashSet,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use cucumber::World as _;
use payconf_spec::features::{effective_tags, file_name};

use super::{
    not_run::NotRun,
    plan::Plan,
    suite::{Preparsed, Suite},
};
use crate::runner::{
    buyer::browser::chromium::Chromium,
    exchange::{Limits, Sender},
    notifications::Listener,
    result::{
        CheckedTarget, LeftoverQueue, RunReport, ScenarioKey, ScenarioResult, recorder::Recorder,
    },
    target_file::TargetConfig,
    waivers::Waivers,
    watch::Watch,
    world::{PaymentWorld, RunContext, with_context},
};

/// How a run goes about its scenarios.
#[derive(Clone, Debug)]
pub(super) struct Execution {
    /// What the run checks, as its reports name it.
    pub(super) checked: CheckedTarget,
    /// Scenarios at the same time.
    pub(super) concurrency: usize,
    /// The seed of generated hostile inputs.
    pub(super) seed: u64,
    /// Whether every exchange is kept for `--har`.
    pub(super) har: bool,
    /// `--rate`.
    pub(super) rate: Option<f64>,
    /// `--strict-waivers`.
    pub(super) strict_waivers: bool,
    /// `--retries`.
    pub(super) retries: usize,
    /// `--flaky-fails`.
    pub(super) flaky_fails: bool,
    /// The waivers the run is judged with.
    pub(super) waivers: Waivers,
}

/// What the run started for its scenarios besides the target.
#[derive(Clone, Debug, Default)]
pub(super) struct ScenarioServices {
    /// The browser, when a selected scenario drives one.
    pub(super) browser: Option<Arc<Chromium>>,
    /// The listener of the target's notifications, when a selected scenario listens.
    pub(super) notifications: Option<Arc<Listener>>,
    /// The shop's page, when a selected scenario opens the lightbox.
    pub(super) shop_page: Option<Arc<crate::runner::shop_page::ShopPage>>,
}

/// How often a failed or erred scenario runs again: `--retries` times, but
/// never a `@robustness` one, whose single failure is the finding (a race
/// that pays twice one time in three is a defect, not noise).
fn retry(
    retries: usize,
    feature: &cucumber::gherkin::Feature,
    rule: Option<&cucumber::gherkin::Rule>,
    scenario: &cucumber::gherkin::Scenario,
) -> Option<cucumber::runner::basic::RetryOptions> {
    let robustness = effective_tags(feature, rule, scenario)
        .iter()
        .any(|tag| tag == payconf_spec::Profile::Robustness.name());
    (retries > 0 && !robustness).then(|| cucumber::runner::basic::RetryOptions {
        retries: cucumber::event::Retries::initial(retries),
        after: None,
    })
}

/// The scenarios the plan sets aside, each in the report as skipped with
/// its reason and told to `watch`; then how many the run holds in all.
fn set_aside(plan: &Plan, report: &Mutex<RunReport>, watch: &mut dyn Watch, selected: usize) {
    let mut report = report.lock().unwrap_or_else(|e| e.into_inner());
    for (scenario, reason) in plan.set_aside() {
        report
            .scenarios
            .push(ScenarioResult::skipped(scenario.clone(), reason.to_owned()));
        if let Some(result) = report.scenarios.last() {
            watch.scenario(result, &report);
        }
    }
    watch.starting(selected + report.scenarios.len());
}

pub(super) async fn execute(
    suite: Suite,
    target: TargetConfig,
    plan: &Plan,
    limits: Limits,
    execution: Execution,
    services: ScenarioServices,
    mut watch: Box<dyn Watch>,
) -> Result<RunReport, NotRun> {
    let (concurrency, seed, retries) = (execution.concurrency, execution.seed, execution.retries);
    let report = Arc::new(Mutex::new(RunReport {
        target: execution.checked,
        retries: execution.retries,
        flaky_fails: execution.flaky_fails,
        ..RunReport::default()
    }));
    let selected: HashSet<ScenarioKey> = plan
        .applying()
        .map(|scenario| ScenarioKey::new(scenario.file.clone(), scenario.line))
        .collect();
    set_aside(plan, &report, watch.as_mut(), selected.len());

    let client = crate::runner::transport::client(&target, limits)?;
    let alone = crate::runner::transport::alone_client(&target, limits)?;
    let target_driver = target.acs.driver;
    let context = Arc::new(RunContext {
        redactor: target.redactor(),
        target,
        sender: Sender::new(client, alone, limits, execution.rate),
        contract: suite.contract,
        requirements: suite.requirements,
        driver: crate::runner::buyer::Driver::of(target_driver, services.browser),
        seed,
        har: execution.har,
        notifications: services.notifications,
        shop_page: services.shop_page,
    });

    let leftovers_queue = LeftoverQueue::default();
    let recorder = Recorder::new(Arc::clone(&report), leftovers_queue.clone())
        .with_waivers(execution.waivers, execution.strict_waivers)
        .with_requirements(context.requirements.clone())
        .with_listener(watch);
    let cucumber = PaymentWorld::cucumber::<PathBuf>()
        .max_concurrent_scenarios(concurrency)
        .retry_options(move |feature, rule, scenario, _| retry(retries, feature, rule, scenario))
        .before(|feature, rule, scenario, world| {
            crate::runner::world::scenario_starts();
            let tags = effective_tags(feature, rule, scenario);
            Box::pin(async move { world.configure(&tags).await })
        })
        .after(move |feature, _, scenario, _, world| {
            if let Some(world) = world {
                let key = ScenarioKey::new(file_name(feature), scenario.position.line);
                leftovers_queue.hand(key, world.leave());
            }
            Box::pin(async {})
        })
        .with_parser(Preparsed(suite.features))
        .with_writer(cucumber::writer::Normalize::new(recorder))
        .fail_on_skipped()
        .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default());
    with_context(
        context,
        cucumber.filter_run((), move |feature, _, scenario| {
            selected.contains(&ScenarioKey::new(
                file_name(feature),
                scenario.position.line,
            ))
        }),
    )
    .await;
    let report = report.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(report)
}
