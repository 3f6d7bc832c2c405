//! What a run prints: one line per scenario as it finishes, and for a failure
//! the step, what was expected and what was seen, with the exchange, secrets
//! redacted; then cucumber's summary lines, which scripts read.
//!
//! The console listens to the result model's recorder, cucumber's writer:
//! it is told of each result as it is recorded and of the run's end, and
//! prints what it reads. It decides nothing itself.

use std::io::Write;

#[cfg(test)]
mod golden;
mod lines;

pub use lines::{Ending, result_line};

use crate::runner::{
    result::{RunReport, ScenarioResult, recorder::Listener},
    watch::{Notice, Watch},
};

/// The console.
pub struct Console {
    out: Box<dyn Write + Send>,
    /// Whether a live progress line is kept under the results (a terminal).
    live: bool,
    /// Once the run starts, live: the number of scenarios, for the progress line.
    progress: Option<usize>,
    /// Whether a progress line is on screen, to be erased before the next line.
    progress_shown: bool,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console").finish_non_exhaustive()
    }
}

impl Console {
    /// A console printing to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out,
            live: false,
            progress: None,
            progress_shown: false,
        }
    }

    /// Keeps a live progress line under the results once the scenarios
    /// start, when `live` (a terminal that can erase a line).
    pub fn live(mut self, live: bool) -> Self {
        self.live = live;
        self
    }

    fn show_progress(&mut self, report: &RunReport) {
        let Some(selected) = self.progress else {
            return;
        };
        let counts = report.scenario_counts();
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
    pub fn print_summary(&mut self, report: &RunReport) {
        for line in lines::summary_lines(report) {
            self.print(&line);
        }
    }
}

impl Listener for Console {
    fn scenario(&mut self, result: &ScenarioResult, report: &RunReport) {
        self.print_result(result);
        self.show_progress(report);
    }

    fn finished(&mut self, report: &RunReport) {
        self.print_summary(report);
    }
}

impl Watch for Console {
    fn notice(&mut self, notice: &Notice) {
        for line in notice.to_string().lines() {
            self.print(line);
        }
    }

    fn starting(&mut self, scenarios: usize) {
        if self.live {
            self.progress = Some(scenarios);
        }
    }
}
