//! From cucumber's events to the result model: each scenario's steps as
//! they run, the requirements each names, its first failure and who is at
//! fault for it, judged by the waivers, kept in the shared [`RunReport`]
//! when it finishes. With `--retries`, a try that failed or erred and will
//! run again is held, not recorded: the scenario's result is its last try,
//! carrying the earlier ones, and `flaky` when the last passed. The
//! recorder is cucumber's writer and the only writer of the result; a
//! [`Listener`] (the console) is told of each scenario as it is recorded
//! and of the run's end, and reads what it needs.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use cucumber::{
    Event, Writer,
    event::{Cucumber, Feature, Retries, Rule, Scenario, Step, StepError},
    gherkin, parser,
};
use payconf_spec::{
    features::file_name,
    requirements::{RequirementId, Requirements},
};

use super::{
    Counts, Failure, LeftoverQueue, Outcome, RunReport, ScenarioKey, ScenarioResult, StepResult,
    StepStatus,
};
use crate::runner::waivers::{Decision, Waiver, Waivers, format_date};

/// A scenario's world, as the recorder reads it when a step fails.
pub trait Settles {
    /// The failure the failing step settled, if it settled one; none when
    /// it panicked.
    fn settled(&self) -> Option<&Failure>;
}

/// Told of the run as it is recorded: the console.
pub trait Listener: Send {
    /// A scenario finished with `result`, already in `report`.
    fn scenario(&mut self, result: &ScenarioResult, report: &RunReport);
    /// The run is over.
    fn finished(&mut self, report: &RunReport);
}

/// Records a run's events into its [`RunReport`].
pub struct Recorder {
    report: Arc<Mutex<RunReport>>,
    /// Where the `after` hook leaves each scenario's leftovers.
    leftovers_queue: LeftoverQueue,
    /// Each scenario under way.
    running: HashMap<ScenarioKey, Running>,
    /// Each scenario's latest try that failed or erred and will run again,
    /// carrying the tries before it.
    held: HashMap<ScenarioKey, ScenarioResult>,
    /// Waivers that turn failures into waived ones.
    waivers: Waivers,
    strict_waivers: bool,
    /// The catalogue, for the requirements each step names.
    requirements: Requirements,
    /// When the event being handled happened.
    now: SystemTime,
    /// Told of each result.
    listener: Option<Box<dyn Listener>>,
}

/// A scenario under way: its steps, when it and its current step started,
/// and its first failure so far.
struct Running {
    started: SystemTime,
    step_started: SystemTime,
    steps: Vec<StepResult>,
    /// Its first failure, if any.
    outcome: Outcome,
    /// The requirements the failing step names.
    named: Vec<RequirementId>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder filling `report`, taking each scenario's leftovers from `leftovers_queue`.
    pub fn new(report: Arc<Mutex<RunReport>>, leftovers_queue: LeftoverQueue) -> Self {
        Self {
            report,
            leftovers_queue,
            running: HashMap::new(),
            held: HashMap::new(),
            waivers: Waivers::none(),
            strict_waivers: false,
            requirements: Requirements::none(),
            now: SystemTime::now(),
            listener: None,
        }
    }

    /// Attributes steps to the requirements of this catalogue.
    pub fn with_requirements(mut self, requirements: Requirements) -> Self {
        self.requirements = requirements;
        self
    }

    /// Judges failures with these waivers; with `strict`, a waiver no
    /// longer needed fails the run.
    pub fn with_waivers(mut self, waivers: Waivers, strict: bool) -> Self {
        self.strict_waivers = strict;
        self.waivers = waivers;
        self
    }

    /// Tells `listener` of each result and of the run's end.
    pub fn with_listener(mut self, listener: Box<dyn Listener>) -> Self {
        self.listener = Some(listener);
        self
    }

    /// Records one of cucumber's events.
    pub fn record<W: Settles>(&mut self, event: parser::Result<Event<Cucumber<W>>>) {
        if let Ok(event) = &event {
            // When the event happened: the normalizing writer in front of
            // this one delivers events late and in bursts.
            self.now = event.at;
        }
        let finished = match event.map(Event::into_inner) {
            Err(error) => {
                self.report().harness_errors.push(error.to_string());
                None
            }
            Ok(Cucumber::Feature(_, Feature::Started)) => {
                self.report().features += 1;
                None
            }
            Ok(Cucumber::Feature(feature, Feature::Scenario(scenario, event))) => {
                self.on_scenario(&feature, None, &scenario, event.event, event.retries)
            }
            Ok(Cucumber::Feature(
                feature,
                Feature::Rule(rule, Rule::Scenario(scenario, event)),
            )) => self.on_scenario(&feature, Some(&rule), &scenario, event.event, event.retries),
            Ok(Cucumber::Finished) => {
                for result in self.settle_unretried() {
                    self.report().scenarios.push(result.clone());
                    let report = self.report.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(listener) = &mut self.listener {
                        listener.scenario(&result, &report);
                    }
                }
                let mut report = self.report.lock().unwrap_or_else(|e| e.into_inner());
                report.stale_waivers = no_longer_needed(&self.waivers, &report);
                report.strict_waivers = self.strict_waivers;
                if let Some(listener) = &mut self.listener {
                    listener.finished(&report);
                }
                None
            }
            Ok(_) => None,
        };
        if let Some(result) = finished {
            let report = self.report.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(listener) = &mut self.listener {
                listener.scenario(&result, &report);
            }
        }
    }

    /// The report as recorded so far.
    pub fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The requirements at fault for a scenario's failure: those the
    /// failing check blamed, or else those the failing step names, or else
    /// every requirement the scenario checks.
    fn at_fault(
        tags: &[String],
        blamed: &[RequirementId],
        named: &[RequirementId],
    ) -> Vec<RequirementId> {
        let checked: Vec<RequirementId> = payconf_spec::features::requirement_ids(tags).collect();
        let within =
            |ids: &[RequirementId]| !ids.is_empty() && ids.iter().all(|id| checked.contains(id));
        if within(blamed) {
            blamed.to_vec()
        } else if within(named) {
            named.to_vec()
        } else {
            checked
        }
    }

    /// Follows one scenario's event; when it finishes, its result is kept
    /// in the report and given back.
    fn on_scenario<W: Settles>(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: Scenario<W>,
        retries: Option<Retries>,
    ) -> Option<ScenarioResult> {
        let key = ScenarioKey::new(file_name(feature), scenario.position.line);
        match event {
            Scenario::Started => {
                let running = self.start(feature, rule, scenario);
                self.running.insert(key, running);
            }
            Scenario::Step(step, event) | Scenario::Background(step, event) => {
                self.on_step(&key, &step, event);
            }
            Scenario::Hook(_, cucumber::event::Hook::Failed(_, info)) => {
                let message = panic_message(&info);
                self.report()
                    .harness_errors
                    .push(format!("{}: hook failed: {message}", key.file));
                if let Some(running) = self.running.get_mut(&key) {
                    running.outcome = Outcome::of("(hook)".to_owned(), Failure::harness(message));
                }
            }
            Scenario::Finished => {
                let mut result = self.finish(key.clone(), feature, rule, scenario);
                if let Some(held) = self.held.remove(&key) {
                    result.earlier = held.into_earlier();
                }
                let retried =
                    retries.is_some_and(|r| r.left > 0) && result.outcome.failure().is_some();
                if retried {
                    self.held.insert(key, result);
                    return None;
                }
                let result = self.settle(result);
                self.report().scenarios.push(result.clone());
                return Some(result);
            }
            _ => {}
        }
        None
    }

    /// A scenario starting: its steps, background first, each with the
    /// requirements it names, all skipped until they run.
    fn start(
        &self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
    ) -> Running {
        let tags = payconf_spec::features::effective_tags(feature, rule, scenario);
        let checked: Vec<RequirementId> = payconf_spec::features::requirement_ids(&tags).collect();
        let background = feature
            .background
            .iter()
            .chain(rule.and_then(|r| r.background.as_ref()))
            .flat_map(|b| b.steps.iter());
        let steps = background
            .chain(scenario.steps.iter())
            .map(|step| StepResult {
                keyword: step.keyword.clone(),
                text: step.value.clone(),
                line: step.position.line,
                status: StepStatus::Skipped,
                duration: Duration::ZERO,
                message: None,
                requirements: self.requirements.named_by(&step.value, &checked),
            })
            .collect();
        Running {
            started: self.now,
            step_started: self.now,
            steps,
            outcome: Outcome::Passed,
            named: Vec::new(),
        }
    }

    /// One step's event: its status and time, the step counts, and the
    /// scenario's first failure.
    fn on_step<W: Settles>(&mut self, key: &ScenarioKey, step: &gherkin::Step, event: Step<W>) {
        let (status, failure) = match event {
            Step::Started => {
                if let Some(running) = self.running.get_mut(key) {
                    running.step_started = self.now;
                }
                return;
            }
            Step::Passed(..) => (StepStatus::Passed, None),
            Step::Skipped => (
                StepStatus::Undefined,
                Some(Failure::plain("no step definition matches this step")),
            ),
            Step::Failed(_, _, world, error) => {
                // A step that settled no failure panicked: payconf's own
                // fault, which judges nothing of the target.
                let failure = world
                    .as_deref()
                    .and_then(Settles::settled)
                    .cloned()
                    .unwrap_or_else(|| {
                        Failure::harness(format!(
                            "payconf failed in this step (a fault of payconf's own, to report): {}",
                            step_error_message(&error)
                        ))
                    });
                (StepStatus::Failed, Some(failure))
            }
        };
        let Some(running) = self.running.get_mut(key) else {
            return;
        };
        let line = step.position.line;
        let duration = self
            .now
            .duration_since(running.step_started)
            .unwrap_or_default();
        let slot = running
            .steps
            .iter_mut()
            .find(|s| s.line == line && s.status == StepStatus::Skipped);
        if let Some(result) = slot {
            result.duration = duration;
            result.status = status;
            result.message = failure.as_ref().map(Failure::to_string);
        }
        if let Some(failure) = failure {
            if running.outcome == Outcome::Passed {
                running.named = running
                    .steps
                    .iter()
                    .find(|s| s.line == line)
                    .map(|s| s.requirements.clone())
                    .unwrap_or_default();
                running.outcome = Outcome::of(format!("{}{}", step.keyword, step.value), failure);
            }
        }
    }

    /// The scenarios whose last try was held for a retry that never came
    /// (cucumber runs again only what failed, not a step nothing matched),
    /// each settled on that try.
    fn settle_unretried(&mut self) -> Vec<ScenarioResult> {
        let held: Vec<ScenarioResult> = self.held.drain().map(|(_, result)| result).collect();
        held.into_iter().map(|result| self.settle(result)).collect()
    }

    /// A scenario's last try (carrying its earlier ones) as its result:
    /// `flaky` when it passed after them, its steps counted.
    fn settle(&mut self, mut result: ScenarioResult) -> ScenarioResult {
        if result.outcome == Outcome::Passed && !result.earlier.is_empty() {
            result.outcome = Outcome::Flaky;
        }
        count_steps(&mut self.report().steps, &result.steps);
        result
    }

    /// A try's end: its result, with what it left behind and the
    /// waivers' judgement.
    fn finish(
        &mut self,
        key: ScenarioKey,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
    ) -> ScenarioResult {
        let leftovers = self.leftovers_queue.take(&key);
        let (outcome, named, steps, duration) = match self.running.remove(&key) {
            Some(running) => {
                let took = self.now.duration_since(running.started).unwrap_or_default();
                (running.outcome, running.named, running.steps, took)
            }
            None => (Outcome::Passed, Vec::new(), Vec::new(), Duration::ZERO),
        };
        let tags = payconf_spec::features::effective_tags(feature, rule, scenario);
        let blamed = match outcome.failure() {
            None => Vec::new(),
            Some((_, failure)) => Self::at_fault(&tags, &failure.requirements, &named),
        };
        let outcome = judged(&self.waivers, outcome, &blamed);
        ScenarioResult {
            file: key.file,
            line: key.line,
            feature: feature.name.clone(),
            name: scenario.name.clone(),
            tags,
            outcome,
            steps,
            leftovers,
            blamed,
            duration,
            earlier: Vec::new(),
        }
    }
}

/// A scenario's steps counted as cucumber counts them: a step no
/// definition matches as skipped, a step after a failure not at all.
fn count_steps(counts: &mut Counts, steps: &[StepResult]) {
    for step in steps {
        match step.status {
            StepStatus::Passed => counts.passed += 1,
            StepStatus::Undefined => counts.skipped += 1,
            StepStatus::Failed => counts.failed += 1,
            StepStatus::Skipped => {}
        }
    }
}

impl<W> Writer<W> for Recorder
where
    W: cucumber::World + Settles,
{
    type Cli = cucumber::cli::Empty;

    async fn handle_event(&mut self, event: parser::Result<Event<Cucumber<W>>>, _: &Self::Cli) {
        self.record(event);
    }
}

fn panic_message(info: &cucumber::event::Info) -> String {
    info.downcast_ref::<String>()
        .cloned()
        .or_else(|| info.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a step panicked".to_owned())
}

fn step_error_message(error: &StepError) -> String {
    match error {
        StepError::Panic(info) => panic_message(info),
        other => other.to_string(),
    }
}

/// The waivers in force whose requirement passed in this run, described:
/// a scenario checking it passed its checks, and none failed, erred or was
/// waived on it. They no longer waive anything, and a waiver nobody
/// removes would hide the next regression of its requirement.
fn no_longer_needed(waivers: &Waivers, report: &RunReport) -> Vec<String> {
    waivers
        .in_force()
        .into_iter()
        .filter(|waiver| {
            let verdicts: Vec<super::RequirementVerdict> = report
                .scenarios
                .iter()
                .filter(|r| r.checks(&waiver.requirement))
                .map(|r| r.verdict_for(&waiver.requirement))
                .collect();
            super::RequirementVerdict::worst(&verdicts) == super::RequirementVerdict::Passed
        })
        .map(Waiver::describe)
        .collect()
}

/// A failure, as the waivers see it: waived when every requirement at
/// fault is.
fn judged(waivers: &Waivers, outcome: Outcome, blamed: &[RequirementId]) -> Outcome {
    let Outcome::Failed { step, failure } = outcome else {
        return outcome;
    };
    match waivers.decide(blamed) {
        Decision::Waived(waivers) => Outcome::Waived {
            step,
            failure,
            waivers: waivers.iter().map(Waiver::describe).collect(),
        },
        Decision::Fails(expired) => {
            let mut failure = failure;
            failure.notes.extend(expired.iter().map(|waiver| {
                format!(
                    "waiver expired: {} was waived until {} ({}); it no longer covers this failure",
                    waiver.requirement,
                    format_date(waiver.expires),
                    waiver.reason
                )
            }));
            Outcome::Failed { step, failure }
        }
    }
}
