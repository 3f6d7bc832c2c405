//! What the console says, as lines: a scenario's result (and its failure),
//! and the summary that ends the run, with its verdict in words.

use crate::runner::result::{Counts, Outcome, Reason, RunReport, ScenarioResult, Verdict};

/// A scenario's line, and for a failure, waiver or error its details.
pub(super) fn result_lines(result: &ScenarioResult) -> Vec<String> {
    let mut out = Vec::new();
    let place = result.location();
    match &result.outcome {
        Outcome::Passed => out.push(format!("  ok    {place}  {}", result.name)),
        Outcome::Flaky => {
            out.push(format!("  FLAKY {place}  {}", result.name));
            out.push(format!(
                "        passed on try {} only: counted apart, as flaky",
                result.tries()
            ));
        }
        Outcome::Skipped(reason) => {
            out.push(format!("  skip  {place}  {} ({reason})", result.name))
        }
        Outcome::Waived {
            step,
            failure,
            waivers,
        } => {
            out.push(format!("  WAIVE {place}  {}", result.name));
            for waiver in waivers {
                out.push(format!("        waived: {waiver}"));
            }
            out.push(format!("        step: {step}"));
            for line in failure.to_string().lines() {
                out.push(format!("        {line}"));
            }
        }
        Outcome::Error { step, failure } => {
            out.push(format!("  ERROR {place}  {}", result.name));
            out.push(format!("        step: {step}"));
            for line in failure.to_string().lines() {
                out.push(format!("        {line}"));
            }
            out.push("        not judged: payconf could not carry this scenario out".to_owned());
        }
        Outcome::Failed { step, failure } => {
            out.push(format!("  FAIL  {place}  {}", result.name));
            out.push(format!("        step: {step}"));
            for line in failure.to_string().lines() {
                out.push(format!("        {line}"));
            }
            if !result.blamed.is_empty() {
                out.push(format!("        at fault: {}", result.blamed.join(", ")));
            }
        }
    }
    out.extend(earlier_lines(result));
    for observation in &result.leftovers.observations {
        out.push(format!("        noted: {observation}"));
    }
    for wait in &result.leftovers.waited {
        out.push(format!("        waited: {wait}"));
    }
    for measure in &result.leftovers.measured {
        out.push(format!("        measured: {measure}"));
    }
    out
}

/// A scenario's earlier tries, one line each: how it ended, where, and why.
fn earlier_lines(result: &ScenarioResult) -> Vec<String> {
    let tries = result.tries();
    result
        .earlier
        .iter()
        .enumerate()
        .filter_map(|(i, earlier)| {
            let (step, failure) = earlier.outcome.failure()?;
            Some(format!(
                "        try {} of {tries} {}: {step}: {}",
                i + 1,
                match earlier.outcome {
                    Outcome::Error { .. } => "could not be judged",
                    _ => "failed",
                },
                failure.headline()
            ))
        })
        .collect()
}

/// The summary lines: counts, harness errors, and the verdict.
pub(super) fn summary_lines(report: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    let scenarios = report.scenario_counts();
    out.push(String::new());
    out.push("[Summary]".to_owned());
    out.push(plural(report.features, "feature"));
    out.push(format!(
        "{}{}",
        plural(scenarios.total(), "scenario"),
        breakdown(scenarios)
    ));
    out.push(format!(
        "{}{}",
        plural(report.steps.total(), "step"),
        breakdown(report.steps)
    ));
    for error in &report.harness_errors {
        out.push(format!("harness error: {error}"));
    }
    for waiver in &report.stale_waivers {
        out.push(format!(
            "waiver no longer needed: {waiver} (its requirement passed; remove the waiver)"
        ));
    }
    out.push(result_line(Ending::Judged(report)));
    out
}

/// How a run of `payconf run` ends, as its last line says it.
#[derive(Clone, Copy, Debug)]
pub enum Ending<'a> {
    /// It ran: its verdict, for the reason its report earns.
    Judged(&'a RunReport),
    /// `--rerun-failed` found nothing that failed or erred.
    NothingToRerun,
    /// It ran, but a report could not be written.
    ReportUnwritten,
    /// It ran, but its evidence bundle could not be written.
    BundleUnwritten,
    /// It stopped before checking anything (a setting, the target).
    NotRun,
}

/// The run's last line, `result: …`: what the exit code means, in words.
/// Every `result:` line of `payconf run` is made here; a judged run's is
/// the [`Reason`] that earned its verdict, rendered (the rule is the
/// verdict's, never written again here).
pub fn result_line(ending: Ending<'_>) -> String {
    let not_run = Verdict::NotRun.exit_code();
    let report = match ending {
        Ending::Judged(report) => report,
        Ending::NothingToRerun => {
            return format!(
                "result: PASSED, nothing to run again (exit code {})",
                Verdict::Passed.exit_code()
            );
        }
        Ending::ReportUnwritten => {
            return format!(
                "result: the run finished but a report could not be written (exit code {not_run})"
            );
        }
        Ending::BundleUnwritten => {
            return format!(
                "result: the run finished but its evidence bundle could not be written \
                 (exit code {not_run})"
            );
        }
        Ending::NotRun => {
            return format!("result: NOT RUN, nothing was checked (exit code {not_run})");
        }
    };
    let reason = Reason::of(report);
    let code = reason.verdict().exit_code();
    // The target checked follows the verdict's word: a pass of the embedded
    // reference implementation is never read as a pass of the user's server.
    let target = &report.target;
    match reason {
        Reason::HarnessFailed => {
            format!(
                "result: NOT RUN to the end against {target}, the harness failed (exit code {code})"
            )
        }
        Reason::TargetFailed(scenarios) => {
            let unjudged = if scenarios.errors > 0 {
                format!(", and payconf could not judge {}", scenarios.errors)
            } else {
                String::new()
            };
            format!(
                "result: FAILED against {target}, the target failed {} of {}{unjudged} (exit code \
                 {code})",
                scenarios.failed,
                plural(scenarios.total(), "scenario")
            )
        }
        Reason::FlakyFails(scenarios) => format!(
            "result: FAILED against {target}, {} passed only on a later try, with --flaky-fails \
             (exit code {code})",
            plural(scenarios.flaky, "scenario")
        ),
        Reason::StaleWaivers(stale) => format!(
            "result: FAILED against {target}, {} no longer needed, with --strict-waivers (exit \
             code {code})",
            plural(stale, "waiver")
        ),
        Reason::Unjudged(scenarios) => format!(
            "result: ERROR against {target}, payconf could not judge {} of {}; the target failed \
             none (exit code {code})",
            scenarios.errors,
            plural(scenarios.total(), "scenario")
        ),
        Reason::Passed(scenarios, stale) => format!(
            "result: PASSED against {target}, every selected scenario passed{} (exit code {code})",
            passed_but(&scenarios, stale)
        ),
    }
}

/// What a pass comes with, if anything: ` but 1 flaky and 2 skipped`.
fn passed_but(scenarios: &Counts, stale: usize) -> String {
    let mut but = Vec::new();
    if scenarios.flaky > 0 {
        but.push(format!("{} flaky", scenarios.flaky));
    }
    if scenarios.skipped > 0 {
        but.push(format!("{} skipped", scenarios.skipped));
    }
    if scenarios.waived > 0 {
        but.push(format!("{} failed under a waiver", scenarios.waived));
    }
    if stale > 0 {
        but.push(format!("{} no longer needed", plural(stale, "waiver")));
    }
    if but.is_empty() {
        String::new()
    } else {
        format!(" but {}", but.join(" and "))
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
        (counts.flaky, "flaky"),
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
