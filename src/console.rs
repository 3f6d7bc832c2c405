//! What a run prints: one line per scenario as it finishes, and for a failure
//! the step, what was expected and what was seen, with the exchange, secrets
//! redacted; then cucumber's summary lines, which scripts read.
//!
//! The writer also fills a shared [`RunReport`], from which the caller takes
//! the outcome of every scenario once the run is over.

use std::{
    io::Write,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use cucumber::{
    Event, Writer,
    event::{Cucumber, Feature, Rule, Scenario, Step, StepError},
    gherkin, parser,
};

use crate::{
    exchange::ExchangeRecord,
    features::file_name,
    issuer::IssuerEvidence,
    requirements::Requirements,
    waivers::{Decision, Waiver, Waivers, format_date},
    world::PaymentWorld,
};

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepStatus {
    /// It passed.
    Passed,
    /// It failed.
    Failed,
    /// No step definition matched it.
    Undefined,
    /// Not run: an earlier step failed, or the scenario was skipped.
    Skipped,
}

impl StepStatus {
    /// `passed`, `failed`, `undefined` or `skipped`, as Cucumber names them.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Undefined => "undefined",
            Self::Skipped => "skipped",
        }
    }
}

/// One step of a scenario, as run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepResult {
    /// `Given `, `When `, `Then `, `And `…
    pub keyword: String,
    /// The step's text.
    pub text: String,
    /// Its line in the feature file.
    pub line: usize,
    /// How it ended.
    pub status: StepStatus,
    /// How long it took.
    pub duration: Duration,
    /// Why it failed.
    pub message: Option<String>,
    /// The requirements of its scenario it checks (`steps` of the catalogue).
    pub requirements: Vec<String>,
}

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
    /// payconf could not judge it (a page it cannot read, a browser that
    /// does not answer): neither a pass nor a failure of the target.
    Error {
        /// The step, as written.
        step: String,
        /// What payconf could not do, and what would let it.
        message: String,
    },
    /// A step failed, but every requirement the scenario checks is waived.
    Waived {
        /// The step, as written.
        step: String,
        /// Expected, actual, exchange.
        message: String,
        /// The waivers in force, described.
        waivers: Vec<String>,
    },
}

impl Outcome {
    /// The failing step and what it says, for a failed or waived scenario.
    pub fn failure(&self) -> Option<(&str, &str)> {
        match self {
            Self::Failed { step, message }
            | Self::Waived { step, message, .. }
            | Self::Error { step, message } => Some((step, message)),
            Self::Passed | Self::Skipped(_) => None,
        }
    }

    /// The waivers in force, for a waived scenario.
    pub fn waivers(&self) -> &[String] {
        match self {
            Self::Waived { waivers, .. } => waivers,
            _ => &[],
        }
    }

    /// Why a skipped scenario did not run.
    pub fn skip_reason(&self) -> Option<&str> {
        match self {
            Self::Skipped(reason) => Some(reason),
            _ => None,
        }
    }

    /// `passed`, `failed`, `skipped`, `waived` or `error`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed { .. } => "failed",
            Self::Skipped(_) => "skipped",
            Self::Waived { .. } => "waived",
            Self::Error { .. } => "error",
        }
    }
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
    /// Its steps, background first.
    pub steps: Vec<StepResult>,
    /// Every exchange with the target, redacted.
    pub exchanges: Vec<ExchangeRecord>,
    /// What the issuer driver saw, when the scenario went through the issuer page.
    pub issuer: Option<IssuerEvidence>,
    /// The requirements at fault, when it failed, was waived or erred: those
    /// a spec violation blamed, or else those the failing step names, or
    /// else every requirement it checks.
    pub blamed: Vec<String>,
    /// How long it took.
    pub duration: Duration,
}

impl ScenarioResult {
    /// `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// The requirement ids it checks.
    pub fn requirements(&self) -> impl Iterator<Item = &str> {
        crate::features::requirement_ids(&self.tags)
    }

    /// How one requirement it checks fared in it: the scenario's outcome for
    /// the requirements at fault; for the others of a scenario that did not
    /// pass, `passed` when a step that names the requirement passed, or else
    /// `not-reached` (its steps came after the failure).
    pub fn verdict_for(&self, requirement: &str) -> &'static str {
        match self.outcome {
            Outcome::Passed | Outcome::Skipped(_) => self.outcome.name(),
            _ if self.blamed.iter().any(|id| id == requirement) => self.outcome.name(),
            _ if self.steps.iter().any(|step| {
                step.status == StepStatus::Passed
                    && step.requirements.iter().any(|id| id == requirement)
            }) =>
            {
                "passed"
            }
            _ => "not-reached",
        }
    }
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
    /// Failed, but waived.
    pub waived: usize,
    /// Not judged: payconf could not carry them out.
    pub errors: usize,
}

impl Counts {
    /// All scenarios counted.
    pub fn total(self) -> usize {
        self.passed + self.failed + self.skipped + self.waived + self.errors
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
    /// Exchanges of each scenario (file, line), recorded when it ends.
    pub evidence: Vec<((String, usize), Vec<ExchangeRecord>)>,
    /// What the issuer driver saw in each scenario (file, line) that used it.
    pub issuer_evidence: Vec<((String, usize), IssuerEvidence)>,
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
                Outcome::Waived { .. } => counts.waived += 1,
                Outcome::Error { .. } => counts.errors += 1,
            }
        }
        counts
    }
}

/// The console writer.
pub struct ConsoleWriter {
    report: Arc<Mutex<RunReport>>,
    out: Box<dyn Write + Send>,
    /// The first failure of each scenario under way.
    pending: Vec<Pending>,
    /// The steps of each scenario under way, and when it and its current step started.
    running: Vec<((String, usize), Running)>,
    /// Waivers that turn failures into waived ones.
    waivers: Waivers,
    /// The catalogue, for the requirements each step names.
    requirements: Requirements,
    /// On a terminal: the number of scenarios selected, for the progress line.
    progress: Option<usize>,
    /// Whether a progress line is on screen, to be erased before the next line.
    progress_shown: bool,
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
            running: Vec::new(),
            waivers: Waivers::none(),
            requirements: Requirements::none(),
            progress: None,
            progress_shown: false,
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

    /// Keeps a live progress line under the results, for a terminal.
    pub fn with_progress(mut self, selected: usize) -> Self {
        self.progress = Some(selected);
        self
    }

    /// The requirements at fault for a scenario's failure: those the spec
    /// check blamed, or else those the failing step names, or else every
    /// requirement the scenario checks.
    fn at_fault(tags: &[String], blamed: &[String], named: &[String]) -> Vec<String> {
        let checked: Vec<&str> = crate::features::requirement_ids(tags).collect();
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

    /// A failure, as the waivers see it: waived when every requirement at
    /// fault is.
    fn judged(&self, outcome: Outcome, blamed: &[String]) -> Outcome {
        let Outcome::Failed { step, message } = outcome else {
            return outcome;
        };
        let blamed: Vec<&str> = blamed.iter().map(String::as_str).collect();
        match self.waivers.decide(blamed) {
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

    fn show_progress(&mut self) {
        let Some(selected) = self.progress else {
            return;
        };
        let counts = self.report().scenario_counts();
        let _ = write!(
            self.out,
            "\r\x1b[2K[{}/{selected}] {} failed",
            counts.total(),
            counts.failed
        );
        let _ = self.out.flush();
        self.progress_shown = true;
    }

    fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn print(&mut self, text: &str) {
        if std::mem::take(&mut self.progress_shown) {
            let _ = write!(self.out, "\r\x1b[2K");
        }
        // A closed stdout must not stop the run; the report still holds everything.
        let _ = writeln!(self.out, "{text}");
    }

    fn slot(&mut self, key: &(String, usize)) -> &mut Pending {
        if let Some(i) = self.pending.iter().position(|p| p.key == *key) {
            return &mut self.pending[i];
        }
        self.pending.push(Pending::new(key.clone()));
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
        if let Scenario::Started = event {
            let now = self.now;
            let tags = crate::features::effective_tags(feature, rule, scenario);
            let checked: Vec<&str> = crate::features::requirement_ids(&tags).collect();
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
                let tags = crate::features::effective_tags(feature, rule, scenario);
                let blamed = match outcome {
                    Outcome::Passed | Outcome::Skipped(_) => Vec::new(),
                    _ => Self::at_fault(&tags, &blamed, &named),
                };
                let outcome = self.judged(outcome, &blamed);
                let result = ScenarioResult {
                    file: key.0,
                    line: key.1,
                    feature: feature.name.clone(),
                    name: scenario.name.clone(),
                    tags,
                    outcome,
                    observations,
                    steps,
                    exchanges,
                    issuer,
                    blamed,
                    duration,
                };
                self.print_result(&result);
                self.report().scenarios.push(result);
                self.show_progress();
            }
            _ => {}
        }
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

    /// Prints one scenario's line (and its failure).
    pub fn print_result(&mut self, result: &ScenarioResult) {
        let place = format!("{}:{}", result.file, result.line);
        match &result.outcome {
            Outcome::Passed => self.print(&format!("  ok    {place}  {}", result.name)),
            Outcome::Skipped(reason) => {
                self.print(&format!("  skip  {place}  {} ({reason})", result.name))
            }
            Outcome::Waived {
                step,
                message,
                waivers,
            } => {
                self.print(&format!("  WAIVE {place}  {}", result.name));
                for waiver in waivers {
                    self.print(&format!("        waived: {waiver}"));
                }
                self.print(&format!("        step: {step}"));
                for line in message.lines() {
                    self.print(&format!("        {line}"));
                }
            }
            Outcome::Error { step, message } => {
                self.print(&format!("  ERROR {place}  {}", result.name));
                self.print(&format!("        step: {step}"));
                for line in message.lines() {
                    self.print(&format!("        {line}"));
                }
                self.print("        not judged: payconf could not carry this scenario out");
            }
            Outcome::Failed { step, message } => {
                self.print(&format!("  FAIL  {place}  {}", result.name));
                self.print(&format!("        step: {step}"));
                for line in message.lines() {
                    self.print(&format!("        {line}"));
                }
                if !result.blamed.is_empty() {
                    self.print(&format!("        at fault: {}", result.blamed.join(", ")));
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
        let unjudged = if scenarios.errors > 0 {
            format!(", and payconf could not judge {}", scenarios.errors)
        } else {
            String::new()
        };
        format!(
            "result: FAILED, the target failed {} of {}{unjudged} (exit code 1)",
            scenarios.failed,
            plural(scenarios.total(), "scenario")
        )
    } else if scenarios.errors > 0 {
        format!(
            "result: ERROR, payconf could not judge {} of {}; the target failed none (exit code 2)",
            scenarios.errors,
            plural(scenarios.total(), "scenario")
        )
    } else {
        let mut but = Vec::new();
        if scenarios.skipped > 0 {
            but.push(format!("{} skipped", scenarios.skipped));
        }
        if scenarios.waived > 0 {
            but.push(format!("{} failed under a waiver", scenarios.waived));
        }
        format!(
            "result: PASSED, every selected scenario passed{} (exit code 0)",
            if but.is_empty() {
                String::new()
            } else {
                format!(" but {}", but.join(" and "))
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
        (counts.waived, "waived"),
        (counts.errors, "error"),
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
        if let Ok(event) = &event {
            // When the event happened: the normalizing writer in front of
            // this one delivers events late and in bursts.
            self.now = event.at;
        }
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
