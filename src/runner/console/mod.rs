//! What a run prints: one line per scenario as it finishes, and for a failure
//! the step, what was expected and what was seen, with the exchange, secrets
//! redacted; then cucumber's summary lines, which scripts read.
//!
//! The console is cucumber's writer: it hands every event to the result
//! model's [`Recorder`], which keeps the run in the shared [`RunReport`],
//! and prints what that recorded. It decides nothing itself.

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use cucumber::{Event, Writer, event::Cucumber, parser};
use payconf_spec::requirements::Requirements;

mod lines;

use crate::runner::{
    result::{
        RunReport, ScenarioResult,
        recorder::{Recorded, Recorder},
    },
    waivers::Waivers,
    world::PaymentWorld,
};

/// The console writer.
pub struct ConsoleWriter {
    recorder: Recorder,
    out: Box<dyn Write + Send>,
    /// On a terminal: the number of scenarios selected, for the progress line.
    progress: Option<usize>,
    /// Whether a progress line is on screen, to be erased before the next line.
    progress_shown: bool,
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
            recorder: Recorder::new(report),
            out,
            progress: None,
            progress_shown: false,
        }
    }

    /// Attributes steps to the requirements of this catalogue.
    pub fn with_requirements(mut self, requirements: Requirements) -> Self {
        self.recorder = self.recorder.with_requirements(requirements);
        self
    }

    /// Judges failures with these waivers.
    pub fn with_waivers(mut self, waivers: Waivers) -> Self {
        self.recorder = self.recorder.with_waivers(waivers);
        self
    }

    /// Keeps a live progress line under the results, for a terminal.
    pub fn with_progress(mut self, selected: usize) -> Self {
        self.progress = Some(selected);
        self
    }

    fn show_progress(&mut self) {
        let Some(selected) = self.progress else {
            return;
        };
        let counts = self.recorder.report().scenario_counts();
        let _ = write!(
            self.out,
            "\r\x1b[2K[{}/{selected}] {} failed",
            counts.total(),
            counts.failed
        );
        let _ = self.out.flush();
        self.progress_shown = true;
    }

    fn print(&mut self, text: &str) {
        if std::mem::take(&mut self.progress_shown) {
            let _ = write!(self.out, "\r\x1b[2K");
        }
        // A closed stdout must not stop the run; the report still holds
        // everything. Each line is made safe whatever it quotes.
        let _ = writeln!(self.out, "{}", crate::runner::neutral::inline(text));
    }

    /// Prints one scenario's line (and its failure).
    pub fn print_result(&mut self, result: &ScenarioResult) {
        for line in lines::result_lines(result) {
            self.print(&line);
        }
    }

    /// Prints the summary lines.
    pub fn print_summary(&mut self) {
        let report = self.recorder.report().clone();
        for line in lines::summary_lines(&report) {
            self.print(&line);
        }
    }
}

impl Writer<PaymentWorld> for ConsoleWriter {
    type Cli = cucumber::cli::Empty;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<Cucumber<PaymentWorld>>>,
        _: &Self::Cli,
    ) {
        match self.recorder.record(event) {
            Recorded::Scenario(result) => {
                self.print_result(&result);
                self.show_progress();
            }
            Recorded::RunFinished => self.print_summary(),
            Recorded::Nothing => {}
        }
    }
}
