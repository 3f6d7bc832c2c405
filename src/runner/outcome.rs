//! What a run carried out ends in ([`Ran`]): its outcome ([`RunOutcome`]),
//! the run's record, made once, and what the record leaves out, which the
//! reports and the evidence bundle render beside it.

use payconf_spec::features::Features;
use time::OffsetDateTime;

use crate::runner::{
    result::{RunRecord, RunReport, Verdict},
    target_file::TargetConfig,
};

/// What a run carried out ends in.
#[derive(Debug)]
pub enum Ran {
    /// The scenarios ran: the outcome.
    Judged(Box<RunOutcome>),
    /// A rerun of an earlier run's failures found none to run again.
    NothingToRerun,
}

/// A run's outcome: its record (its identity, its judgement, every
/// scenario's outcome: what the results file holds), and what the record
/// leaves out (each scenario's steps and exchanges, the features' text, the
/// target's address as shown, the start to the nanosecond). Every report
/// renders it and takes the run's identity and verdict from the record, so
/// they cannot say different things of one run.
#[derive(Debug)]
pub struct RunOutcome {
    /// The run's record, as the results file is it serialised.
    pub record: RunRecord,
    /// Each scenario's steps, exchanges and evidence.
    pub report: RunReport,
    /// The features run, for each scenario's steps as written.
    pub features: Features,
    /// The target, for its address as reports show it (secrets masked).
    pub target: TargetConfig,
    /// When the run started, to the nanosecond (the HAR's times).
    pub started: OffsetDateTime,
}

impl RunOutcome {
    /// The run's verdict, which is its exit code.
    pub fn verdict(&self) -> Verdict {
        self.record.outcome
    }
}
