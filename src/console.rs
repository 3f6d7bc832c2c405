//! What a run prints: one line per scenario as it finishes, and for a failure
//! the step, what was expected and what was seen, with the exchange, secrets
//! redacted; then cucumber's summary lines, which scripts read.
//!
//! The writer also fills a shared [`RunReport`], from which the caller takes
//! the outcome of every scenario once the run is over.

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use cucumber::{
    Event, Writer,
    event::{Cucumber, Feature, Rule, Scenario, Step, StepError},
    gherkin, parser,
};

use crate::{features::file_name, world::PaymentWorld};

/// How a scenario ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every step passed.
    Passed,
    /// A step failed.
    Failed {
        /// The step, as written (`Then the …`).
        step: String,
        /// Expected, actual, exchange.
        message: String,
    },
    /// Not run, with the reason.
    Skipped(String),
}

/// One scenario's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioResult {
    /// Feature file name.
    pub file: String,
    /// Scenario line.
    pub line: usize,
    /// Feature name.
    pub feature: String,
    /// Scenario name.
    pub name: String,
    /// Its tags, without `@`.
    pub tags: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Violations of requirements it does not check, noted in passing.
    pub observations: Vec<String>,
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
}

impl Counts {
    fn total(self) -> usize {
        self.passed + self.failed + self.skipped
    }
}

/// Everything the run produced, shared between the writer and the caller.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Scenario results, in the order they finished.
    pub scenarios: Vec<ScenarioResult>,
    /// Step counts.
    pub steps: Counts,
    /// Problems of the harness itself (unparsable features, failed hooks).
    pub harness_errors: Vec<String>,
    /// Number of features run.
    pub features: usize,
    /// Observations of each scenario (file, line), recorded when it ends.
    pub observations: Vec<((String, usize), Vec<String>)>,
}

impl RunReport {
    /// Scenario counts.
    pub fn scenario_counts(&self) -> Counts {
        let mut counts = Counts::default();
        for result in &self.scenarios {
            match result.outcome {
                Outcome::Passed => counts.passed += 1,
                Outcome::Failed { .. } => counts.failed += 1,
                Outcome::Skipped(_) => counts.skipped += 1,
            }
        }
        counts
    }
}

/// The console writer.
pub struct ConsoleWriter {
    report: Arc<Mutex<RunReport>>,
    out: Box<dyn Write + Send>,
    /// The first failure of the scenario under way, per scenario.
    pending: Vec<((String, usize), Outcome, Vec<String>)>,
}

impl std::fmt::Debug for ConsoleWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleWriter").finish_non_exhaustive()
    }
}

impl ConsoleWriter {
    /// A writer printing to `out` and recording into `report`.
    pub fn new(report: Arc<Mutex<RunReport>>, out: Box<dyn Write + Send>) -> Self {
        Self {
            report,
            out,
            pending: Vec::new(),
        }
    }

    fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn print(&mut self, text: &str) {
        // A closed stdout must not stop the run; the report still holds everything.
        let _ = writeln!(self.out, "{text}");
    }

    fn slot(&mut self, key: &(String, usize)) -> &mut ((String, usize), Outcome, Vec<String>) {
        if let Some(i) = self.pending.iter().position(|(k, _, _)| k == key) {
            return &mut self.pending[i];
        }
        self.pending
            .push((key.clone(), Outcome::Passed, Vec::new()));
        self.pending.last_mut().expect("just pushed")
    }

    fn on_scenario(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: Scenario<PaymentWorld>,
    ) {
        let key = (file_name(feature), scenario.position.line);
        match event {
            Scenario::Step(step, event) | Scenario::Background(step, event) => match event {
                Step::Started => {}
                Step::Passed(..) => self.report().steps.passed += 1,
                Step::Skipped => {
                    self.report().steps.skipped += 1;
                    let slot = self.slot(&key);
                    if slot.1 == Outcome::Passed {
                        slot.1 = Outcome::Failed {
                            step: format!("{}{}", step.keyword, step.value),
                            message: "no step definition matches this step".to_owned(),
                        };
                    }
                }
                Step::Failed(_, _, world, error) => {
                    self.report().steps.failed += 1;
                    let message = step_error_message(&error);
                    let observations = world
                        .as_ref()
                        .map(|w| w.observations.clone())
                        .unwrap_or_default();
                    let slot = self.slot(&key);
                    if slot.1 == Outcome::Passed {
                        slot.1 = Outcome::Failed {
                            step: format!("{}{}", step.keyword, step.value),
                            message,
                        };
                    }
                    slot.2 = observations;
                }
            },
            Scenario::Hook(_, cucumber::event::Hook::Failed(_, info)) => {
                let message = panic_message(&info);
                self.report()
                    .harness_errors
                    .push(format!("{}: hook failed: {message}", key.0));
                self.slot(&key).1 = Outcome::Failed {
                    step: "(hook)".to_owned(),
                    message,
                };
            }
            Scenario::Finished => {
                let (_, outcome, mut observations) =
                    match self.pending.iter().position(|(k, _, _)| *k == key) {
                        Some(i) => self.pending.remove(i),
                        None => (key.clone(), Outcome::Passed, Vec::new()),
                    };
                let mut report = self.report();
                if let Some(i) = report.observations.iter().position(|(k, _)| *k == key) {
                    observations = report.observations.remove(i).1;
                }
                drop(report);
                let result = ScenarioResult {
                    file: key.0,
                    line: key.1,
                    feature: feature.name.clone(),
                    name: scenario.name.clone(),
                    tags: crate::features::effective_tags(feature, rule, scenario),
                    outcome,
                    observations,
                };
                self.print_result(&result);
                self.report().scenarios.push(result);
            }
            _ => {}
        }
    }

    /// Prints one scenario's line (and its failure).
    pub fn print_result(&mut self, result: &ScenarioResult) {
        let place = format!("{}:{}", result.file, result.line);
        match &result.outcome {
            Outcome::Passed => self.print(&format!("  ok    {place}  {}", result.name)),
            Outcome::Skipped(reason) => {
                self.print(&format!("  skip  {place}  {} ({reason})", result.name))
            }
            Outcome::Failed { step, message } => {
                self.print(&format!("  FAIL  {place}  {}", result.name));
                self.print(&format!("        step: {step}"));
                for line in message.lines() {
                    self.print(&format!("        {line}"));
                }
                let requirements: Vec<&str> =
                    crate::features::requirement_ids(&result.tags).collect();
                if !requirements.is_empty() {
                    self.print(&format!("        checks: {}", requirements.join(", ")));
                }
            }
        }
        for observation in &result.observations {
            self.print(&format!("        noted: {observation}"));
        }
    }

    /// Prints the summary lines.
    pub fn print_summary(&mut self) {
        let report = self.report().clone();
        let scenarios = report.scenario_counts();
        self.print("");
        self.print("[Summary]");
        self.print(&plural(report.features, "feature"));
        self.print(&format!(
            "{}{}",
            plural(scenarios.total(), "scenario"),
            breakdown(scenarios)
        ));
        self.print(&format!(
            "{}{}",
            plural(report.steps.total(), "step"),
            breakdown(report.steps)
        ));
        for error in &report.harness_errors {
            self.print(&format!("harness error: {error}"));
        }
        self.print(&verdict(&report));
    }
}

/// The run's last line: what the exit code means, in words.
fn verdict(report: &RunReport) -> String {
    let scenarios = report.scenario_counts();
    if !report.harness_errors.is_empty() {
        "result: NOT RUN to the end, the harness failed (exit code 2)".to_owned()
    } else if scenarios.failed > 0 {
        format!(
            "result: FAILED, the target failed {} of {} (exit code 1)",
            scenarios.failed,
            plural(scenarios.total(), "scenario")
        )
    } else {
        format!(
            "result: PASSED, every selected scenario passed{} (exit code 0)",
            if scenarios.skipped > 0 {
                format!(" but {} skipped", scenarios.skipped)
            } else {
                String::new()
            }
        )
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// ` (3 passed, 1 failed)`, the non-zero counts, as cucumber prints them.
fn breakdown(counts: Counts) -> String {
    let parts: Vec<String> = [
        (counts.passed, "passed"),
        (counts.failed, "failed"),
        (counts.skipped, "skipped"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
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

impl Writer<PaymentWorld> for ConsoleWriter {
    type Cli = cucumber::cli::Empty;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<Cucumber<PaymentWorld>>>,
        _: &Self::Cli,
    ) {
        match event.map(Event::into_inner) {
            Err(error) => self.report().harness_errors.push(error.to_string()),
            Ok(Cucumber::Feature(feature, Feature::Started)) => {
                let _ = feature;
                self.report().features += 1;
            }
            Ok(Cucumber::Feature(feature, Feature::Scenario(scenario, event))) => {
                self.on_scenario(&feature, None, &scenario, event.event);
            }
            Ok(Cucumber::Feature(
                feature,
                Feature::Rule(rule, Rule::Scenario(scenario, event)),
            )) => {
                self.on_scenario(&feature, Some(&rule), &scenario, event.event);
            }
            Ok(Cucumber::Finished) => self.print_summary(),
            Ok(_) => {}
        }
    }
}
