//! The run's verdict and its exit code, said in one place: the console's
//! last line, every report and the process's exit status read it here.

use std::process::ExitCode;

use super::{Counts, RunReport};

/// What besides its scenarios' outcomes decides a run's verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grounds {
    /// The harness failed: the run was cut short.
    pub harness_failed: bool,
    /// A waiver was no longer needed, under `--strict-waivers`.
    pub stale_waivers_fail: bool,
    /// A flaky scenario fails the run (`--flaky-fails`).
    pub flaky_fails: bool,
}

/// How a run ended, for the scripts and pipelines that read its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every selected scenario passed (or was waived or set aside): exit 0.
    Passed,
    /// The target failed a check: exit 1.
    Failed,
    /// The run could not be carried out, or payconf could not judge a
    /// scenario and the target failed none: exit 2. A failure of the target
    /// outweighs it; it outweighs a pass.
    NotRun,
}

impl Verdict {
    /// The verdict a finished run earns: a failure of the target (or, with
    /// `--strict-waivers`, a waiver no longer needed; with `--flaky-fails`,
    /// a scenario that passed only on a later try) outweighs a scenario
    /// payconf could not judge, which outweighs a pass; a harness error
    /// (the run cut short) outweighs everything.
    pub fn of(report: &RunReport) -> Self {
        Self::judge(
            report.scenario_counts(),
            Grounds {
                harness_failed: !report.harness_errors.is_empty(),
                stale_waivers_fail: report.strict_waivers && !report.stale_waivers.is_empty(),
                flaky_fails: report.flaky_fails,
            },
        )
    }

    /// The verdict of scenario counts on these grounds: [`Verdict::of`]'s
    /// rule, which a results file read back is judged by too.
    pub fn judge(counts: Counts, grounds: Grounds) -> Self {
        if grounds.harness_failed {
            Self::NotRun
        } else if counts.failed > 0
            || grounds.stale_waivers_fail
            || (grounds.flaky_fails && counts.flaky > 0)
        {
            Self::Failed
        } else if counts.errors > 0 {
            Self::NotRun
        } else {
            Self::Passed
        }
    }

    /// The verdict named `name` ([`Verdict::name`]).
    pub fn named(name: &str) -> Option<Self> {
        [Self::Passed, Self::Failed, Self::NotRun]
            .into_iter()
            .find(|v| v.name() == name)
    }

    /// The process's exit code.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Passed => 0,
            Self::Failed => 1,
            Self::NotRun => 2,
        }
    }

    /// In a word, as the reports write it: `passed`, `failed`, `not-run`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::NotRun => "not-run",
        }
    }
}

impl From<Verdict> for ExitCode {
    fn from(verdict: Verdict) -> Self {
        Self::from(verdict.exit_code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_distinct_and_as_documented() {
        let codes: Vec<u8> = [Verdict::Passed, Verdict::Failed, Verdict::NotRun]
            .into_iter()
            .map(Verdict::exit_code)
            .collect();
        assert_eq!(codes, [0, 1, 2]);
    }

    #[test]
    fn an_empty_run_passes_and_a_harness_error_outweighs_it() {
        let mut report = RunReport::default();
        assert_eq!(Verdict::of(&report), Verdict::Passed);
        report.harness_errors.push("the browser died".to_owned());
        assert_eq!(Verdict::of(&report), Verdict::NotRun);
    }

    #[test]
    fn a_flaky_scenario_passes_unless_flaky_fails() {
        let mut report = RunReport::default();
        let mut result = super::super::ScenarioResult::skipped(
            payconf_spec::features::ScenarioEntry {
                file: "create.feature".to_owned(),
                line: 8,
                feature: "Create".to_owned(),
                name: "A payment".to_owned(),
                tags: vec!["core".to_owned()],
                profile: Some(payconf_spec::Profile::Core),
            },
            String::new(),
        );
        result.outcome = super::super::Outcome::Flaky;
        report.scenarios.push(result);
        assert_eq!(Verdict::of(&report), Verdict::Passed);
        report.flaky_fails = true;
        assert_eq!(Verdict::of(&report), Verdict::Failed);
    }
}
