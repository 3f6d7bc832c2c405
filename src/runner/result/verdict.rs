//! The run's verdict and its exit code, said in one place, with the reason
//! that earned it: the console's last line renders the reason, every report
//! and the process's exit status read the verdict here.

use std::process::ExitCode;

use super::{Counts, RunReport};

/// What besides its scenarios' outcomes decides a run's verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grounds {
    /// The harness failed: the run was cut short.
    pub harness_failed: bool,
    /// Waivers no longer needed (their requirement passed).
    pub stale_waivers: usize,
    /// A waiver no longer needed fails the run (`--strict-waivers`).
    pub strict_waivers: bool,
    /// A flaky scenario fails the run (`--flaky-fails`).
    pub flaky_fails: bool,
}

/// How a run ended, for the scripts and pipelines that read its exit code.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
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
        Reason::of(report).verdict()
    }

    /// The verdict of scenario counts on these grounds: [`Verdict::of`]'s
    /// rule, which a results file read back is judged by too.
    pub fn judge(counts: Counts, grounds: Grounds) -> Self {
        Reason::judge(counts, grounds).verdict()
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

/// What earned a run its verdict: the first of these that holds, in this
/// order (the rule of [`Verdict::judge`], written once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The harness failed: the run was cut short.
    HarnessFailed,
    /// The target failed scenarios (`failed` of `counts`).
    TargetFailed(Counts),
    /// Scenarios passed only on a later try, under `--flaky-fails`.
    FlakyFails(Counts),
    /// Waivers were no longer needed, under `--strict-waivers`.
    StaleWaivers(usize),
    /// payconf could not judge scenarios, and the target failed none.
    Unjudged(Counts),
    /// Every selected scenario passed (some flaky, skipped or waived, and
    /// waivers no longer needed, counted).
    Passed(Counts, usize),
}

impl Reason {
    /// The reason scenario counts on these grounds earn their verdict.
    pub fn judge(counts: Counts, grounds: Grounds) -> Self {
        if grounds.harness_failed {
            Self::HarnessFailed
        } else if counts.failed > 0 {
            Self::TargetFailed(counts)
        } else if grounds.flaky_fails && counts.flaky > 0 {
            Self::FlakyFails(counts)
        } else if grounds.strict_waivers && grounds.stale_waivers > 0 {
            Self::StaleWaivers(grounds.stale_waivers)
        } else if counts.errors > 0 {
            Self::Unjudged(counts)
        } else {
            Self::Passed(counts, grounds.stale_waivers)
        }
    }

    /// The reason of a finished run.
    pub fn of(report: &RunReport) -> Self {
        Self::judge(
            report.scenario_counts(),
            Grounds {
                harness_failed: !report.harness_errors.is_empty(),
                stale_waivers: report.stale_waivers.len(),
                strict_waivers: report.strict_waivers,
                flaky_fails: report.flaky_fails,
            },
        )
    }

    /// The verdict it earns.
    pub fn verdict(self) -> Verdict {
        match self {
            Self::HarnessFailed | Self::Unjudged(_) => Verdict::NotRun,
            Self::TargetFailed(_) | Self::FlakyFails(_) | Self::StaleWaivers(_) => Verdict::Failed,
            Self::Passed(..) => Verdict::Passed,
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

    #[test]
    fn the_first_reason_that_holds_earns_the_verdict() {
        let counts = |failed, flaky, errors| Counts {
            passed: 3,
            flaky,
            failed,
            errors,
            ..Counts::default()
        };
        let grounds = |harness_failed, flaky_fails, stale_waivers, strict_waivers| Grounds {
            harness_failed,
            stale_waivers,
            strict_waivers,
            flaky_fails,
        };
        let all_at_once = grounds(false, true, 2, true);
        for (counts, grounds, reason, verdict) in [
            (
                counts(1, 1, 1),
                grounds(true, true, 2, true),
                Reason::HarnessFailed,
                Verdict::NotRun,
            ),
            (
                counts(1, 1, 1),
                all_at_once,
                Reason::TargetFailed(counts(1, 1, 1)),
                Verdict::Failed,
            ),
            (
                counts(0, 1, 1),
                all_at_once,
                Reason::FlakyFails(counts(0, 1, 1)),
                Verdict::Failed,
            ),
            (
                counts(0, 0, 1),
                all_at_once,
                Reason::StaleWaivers(2),
                Verdict::Failed,
            ),
            (
                counts(0, 1, 1),
                grounds(false, false, 2, false),
                Reason::Unjudged(counts(0, 1, 1)),
                Verdict::NotRun,
            ),
            (
                counts(0, 1, 0),
                grounds(false, false, 2, false),
                Reason::Passed(counts(0, 1, 0), 2),
                Verdict::Passed,
            ),
        ] {
            assert_eq!(Reason::judge(counts, grounds), reason);
            assert_eq!(Verdict::judge(counts, grounds), verdict, "{reason:?}");
        }
    }
}
