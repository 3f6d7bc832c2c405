//! From cucumber's events to the result model: each scenario's steps as
//! they run, the requirements each names, its first failure and who is at
//! fault for it, judged by the waivers, kept in the shared [`RunReport`]
//! when it finishes. The console prints what this records; the reports are
//! made from the report once the run is over.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use cucumber::{
    Event,
    event::{Cucumber, Feature, Rule, Scenario, Step, StepError},
    gherkin, parser,
};
use payconf_spec::{features::file_name, requirements::Requirements};

use super::{Outcome, RunReport, ScenarioResult, StepResult, StepStatus};
use crate::runner::{
    waivers::{Decision, Waiver, Waivers, format_date},
    world::PaymentWorld,
};

/// What an event came to, for the console.
#[derive(Debug)]
pub enum Recorded {
    /// Nothing to show yet.
    Nothing,
    /// A scenario finished with this result (already in the report).
    Scenario(Box<ScenarioResult>),
    /// The run is over.
    RunFinished,
}

/// Records a run's events into its [`RunReport`].
pub struct Recorder {
    report: Arc<Mutex<RunReport>>,
    /// The first failure of each scenario under way.
    pending: Vec<Pending>,
    /// The steps of each scenario under way, and when it and its current step started.
    running: Vec<((String, usize), Running)>,
    /// Waivers that turn failures into waived ones.
    waivers: Waivers,
    /// The catalogue, for the requirements each step names.
    requirements: Requirements,
    /// When the event being handled happened.
    now: SystemTime,
}

/// What a scenario under way has come to so far.
struct Pending {
    /// (file, line).
    key: (String, usize),
    /// Its first failure, if any.
    outcome: Outcome,
    /// Violations noted up to that failure.
    observations: Vec<String>,
    /// The requirements the failing spec check blamed, if it was one.
    blamed: Vec<String>,
    /// The requirements the failing step names.
    named: Vec<String>,
}

impl Pending {
    fn new(key: (String, usize)) -> Self {
        Self {
            key,
            outcome: Outcome::Passed,
            observations: Vec::new(),
            blamed: Vec::new(),
            named: Vec::new(),
        }
    }
}

/// A scenario under way.
struct Running {
    started: SystemTime,
    step_started: SystemTime,
    steps: Vec<StepResult>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder filling `report`.
    pub fn new(report: Arc<Mutex<RunReport>>) -> Self {
        Self {
            report,
            pending: Vec::new(),
            running: Vec::new(),
            waivers: Waivers::none(),
            requirements: Requirements::none(),
            now: SystemTime::now(),
        }
    }

    /// Attributes steps to the requirements of this catalogue.
    pub fn with_requirements(mut self, requirements: Requirements) -> Self {
        self.requirements = requirements;
        self
    }

    /// Judges failures with these waivers.
    pub fn with_waivers(mut self, waivers: Waivers) -> Self {
        self.waivers = waivers;
        self
    }

    /// Records one of cucumber's events.
    pub fn record(&mut self, event: parser::Result<Event<Cucumber<PaymentWorld>>>) -> Recorded {
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
                self.on_scenario(&feature, None, &scenario, event.event)
            }
            Ok(Cucumber::Feature(
                feature,
                Feature::Rule(rule, Rule::Scenario(scenario, event)),
            )) => self.on_scenario(&feature, Some(&rule), &scenario, event.event),
            Ok(Cucumber::Finished) => return Recorded::RunFinished,
            Ok(_) => None,
        };
        finished.map_or(Recorded::Nothing, |result| {
            Recorded::Scenario(Box::new(result))
        })
    }

    /// The report as recorded so far.
    pub fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The requirements at fault for a scenario's failure: those the spec
    /// check blamed, or else those the failing step names, or else every
    /// requirement the scenario checks.
    fn at_fault(tags: &[String], blamed: &[String], named: &[String]) -> Vec<String> {
        let checked: Vec<&str> = payconf_spec::features::requirement_ids(tags).collect();
        let within =
            |ids: &[String]| !ids.is_empty() && ids.iter().all(|id| checked.contains(&id.as_str()));
        if within(blamed) {
            blamed.to_vec()
        } else if within(named) {
            named.to_vec()
        } else {
            checked.into_iter().map(str::to_owned).collect()
        }
    }

    fn slot(&mut self, key: &(String, usize)) -> &mut Pending {
        if let Some(i) = self.pending.iter().position(|p| p.key == *key) {
            return &mut self.pending[i];
        }
        self.pending.push(Pending::new(key.clone()));
        self.pending.last_mut().expect("just pushed")
    }

    /// Follows one scenario's event; when it finishes, its result is kept
    /// in the report and given back.
    fn on_scenario(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: Scenario<PaymentWorld>,
    ) -> Option<ScenarioResult> {
        let key = (file_name(feature), scenario.position.line);
        if let Scenario::Started = event {
            let now = self.now;
            let tags = payconf_spec::features::effective_tags(feature, rule, scenario);
            let checked: Vec<&str> = payconf_spec::features::requirement_ids(&tags).collect();
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
                    requirements: self
                        .requirements
                        .named_by(&step.value, checked.iter().copied()),
                })
                .collect();
            self.running.retain(|(k, _)| *k != key);
            self.running.push((
                key.clone(),
                Running {
                    started: now,
                    step_started: now,
                    steps,
                },
            ));
        }
        if let Scenario::Step(step, event) | Scenario::Background(step, event) = &event {
            self.track_step(&key, step, event);
        }
        match event {
            Scenario::Step(step, event) | Scenario::Background(step, event) => match event {
                Step::Started => {}
                Step::Passed(..) => self.report().steps.passed += 1,
                Step::Skipped => {
                    self.report().steps.skipped += 1;
                    let slot = self.slot(&key);
                    if slot.outcome == Outcome::Passed {
                        slot.outcome = Outcome::Failed {
                            step: format!("{}{}", step.keyword, step.value),
                            message: "no step definition matches this step".to_owned(),
                        };
                    }
                }
                Step::Failed(_, _, world, error) => {
                    self.report().steps.failed += 1;
                    let named = self.step_requirements(&key, step.position.line);
                    let message = step_error_message(&error);
                    let slot = self.slot(&key);
                    if slot.outcome == Outcome::Passed {
                        let step = format!("{}{}", step.keyword, step.value);
                        let unjudged = world.as_ref().and_then(|w| w.harness_error.clone());
                        slot.outcome = match unjudged {
                            Some(message) => Outcome::Error { step, message },
                            None => Outcome::Failed { step, message },
                        };
                        slot.blamed = world.as_ref().map(|w| w.blamed.clone()).unwrap_or_default();
                        slot.named = named;
                    }
                    slot.observations = world
                        .as_ref()
                        .map(|w| w.observations.clone())
                        .unwrap_or_default();
                }
            },
            Scenario::Hook(_, cucumber::event::Hook::Failed(_, info)) => {
                let message = panic_message(&info);
                self.report()
                    .harness_errors
                    .push(format!("{}: hook failed: {message}", key.0));
                self.slot(&key).outcome = Outcome::Failed {
                    step: "(hook)".to_owned(),
                    message,
                };
            }
            Scenario::Finished => {
                let Pending {
                    outcome,
                    mut observations,
                    blamed,
                    named,
                    ..
                } = match self.pending.iter().position(|p| p.key == key) {
                    Some(i) => self.pending.remove(i),
                    None => Pending::new(key.clone()),
                };
                let mut report = self.report();
                if let Some(i) = report.observations.iter().position(|(k, _)| *k == key) {
                    observations = report.observations.remove(i).1;
                }
                let waited = match report.waited.iter().position(|(k, _)| *k == key) {
                    Some(i) => report.waited.remove(i).1,
                    None => Vec::new(),
                };
                let measured = match report.measured.iter().position(|(k, _)| *k == key) {
                    Some(i) => report.measured.remove(i).1,
                    None => Vec::new(),
                };
                let exchanges = match report.evidence.iter().position(|(k, _)| *k == key) {
                    Some(i) => report.evidence.remove(i).1,
                    None => Vec::new(),
                };
                let issuer = report
                    .issuer_evidence
                    .iter()
                    .position(|(k, _)| *k == key)
                    .map(|i| report.issuer_evidence.remove(i).1);
                drop(report);
                let (steps, duration) = match self.running.iter().position(|(k, _)| *k == key) {
                    Some(i) => {
                        let (_, running) = self.running.remove(i);
                        let took = self.now.duration_since(running.started).unwrap_or_default();
                        (running.steps, took)
                    }
                    None => (Vec::new(), Duration::ZERO),
                };
                let tags = payconf_spec::features::effective_tags(feature, rule, scenario);
                let blamed = match outcome {
                    Outcome::Passed | Outcome::Skipped(_) => Vec::new(),
                    _ => Self::at_fault(&tags, &blamed, &named),
                };
                let outcome = judged(&self.waivers, outcome, &blamed);
                let result = ScenarioResult {
                    file: key.0,
                    line: key.1,
                    feature: feature.name.clone(),
                    name: scenario.name.clone(),
                    tags,
                    outcome,
                    observations,
                    waited,
                    measured,
                    steps,
                    exchanges,
                    issuer,
                    blamed,
                    duration,
                };
                self.report().scenarios.push(result.clone());
                return Some(result);
            }
            _ => {}
        }
        None
    }

    /// The requirements the step at this line of a scenario under way names.
    fn step_requirements(&self, key: &(String, usize), line: usize) -> Vec<String> {
        self.running
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, running)| running.steps.iter().find(|s| s.line == line))
            .map(|step| step.requirements.clone())
            .unwrap_or_default()
    }

    fn track_step(
        &mut self,
        key: &(String, usize),
        step: &gherkin::Step,
        event: &Step<PaymentWorld>,
    ) {
        let Some((_, running)) = self.running.iter_mut().find(|(k, _)| k == key) else {
            return;
        };
        let now = self.now;
        if let Step::Started = event {
            running.step_started = now;
            return;
        }
        let duration = now.duration_since(running.step_started).unwrap_or_default();
        let Some(result) = running
            .steps
            .iter_mut()
            .find(|s| s.line == step.position.line && s.status == StepStatus::Skipped)
        else {
            return;
        };
        result.duration = duration;
        match event {
            Step::Passed(..) => result.status = StepStatus::Passed,
            Step::Failed(_, _, _, error) => {
                result.status = StepStatus::Failed;
                result.message = Some(step_error_message(error));
            }
            Step::Skipped => {
                result.status = StepStatus::Undefined;
                result.message = Some("no step definition matches this step".to_owned());
            }
            Step::Started => {}
        }
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

/// A failure, as the waivers see it: waived when every requirement at
/// fault is.
fn judged(waivers: &Waivers, outcome: Outcome, blamed: &[String]) -> Outcome {
    let Outcome::Failed { step, message } = outcome else {
        return outcome;
    };
    let blamed: Vec<&str> = blamed.iter().map(String::as_str).collect();
    match waivers.decide(blamed) {
        Decision::Waived(waivers) => Outcome::Waived {
            step,
            message,
            waivers: waivers.iter().map(Waiver::describe).collect(),
        },
        Decision::Fails(expired) if !expired.is_empty() => {
            let mut message = message;
            for waiver in expired {
                message.push_str(&format!(
                    "\nwaiver expired: {} was waived until {} ({}); it no longer covers this failure",
                    waiver.requirement,
                    format_date(waiver.expires),
                    waiver.reason
                ));
            }
            Outcome::Failed { step, message }
        }
        Decision::Fails(_) => Outcome::Failed { step, message },
    }
}
