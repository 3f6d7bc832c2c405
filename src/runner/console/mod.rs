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

use crate::runner::result::{RunReport, ScenarioResult, recorder::Listener};

/// The console.
pub struct Console {
    out: Box<dyn Write + Send>,
    /// On a terminal: the number of scenarios selected, for the progress line.
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
            progress: None,
            progress_shown: false,
        }
    }

    /// Keeps a live progress line under the results, for a terminal.
    pub fn with_progress(mut self, selected: usize) -> Self {
        self.progress = Some(selected);
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
