//! `payconf diff OLD.json NEW.json`: what changed between two runs'
//! results, requirement by requirement, as a Markdown summary fit for a
//! pull-request comment. Regressed (now failed or erred, and not before),
//! fixed (failed, erred or waived before, passed now), newly skipped (ran
//! before, not now) and newly run; the exit code is 1 when anything
//! regressed, so a release pipeline gates on it.
//!
//! Only what both runs selected is compared. A requirement's outcome in
//! each run is taken from the scenarios both runs selected (matched by
//! `file:line`, or by file and name where the features moved); a
//! requirement whose scenarios one run did not select at all is "not
//! compared", never regressed or fixed, and the summary says which
//! scenarios the two runs did not share.

use std::{path::Path, process::ExitCode};

use payconf_spec::requirements::RequirementId;

use crate::runner::{
    neutral::inline,
    result::{
        RequirementVerdict, RunRecord,
        record::{RecordError, RequirementRecord},
    },
};

/// How a requirement's outcome changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Failed or erred now, and not before.
    Regressed,
    /// Failed, erred or waived before; passed now.
    Fixed,
    /// Ran before (passed, failed, erred or waived); skipped or not run now.
    NewlySkipped,
    /// Skipped or not run before; passed now.
    NewlyRun,
    /// Any other change (failed to erred, waived to failed...).
    Other,
    /// One run did not select any scenario of it: nothing to compare.
    NotCompared,
}

impl Change {
    /// As the summary says it.
    pub fn words(self) -> &'static str {
        match self {
            Self::Regressed => "**regressed**",
            Self::Fixed => "fixed",
            Self::NewlySkipped => "newly skipped",
            Self::NewlyRun => "newly run",
            Self::Other => "changed",
            Self::NotCompared => "not compared",
        }
    }

    /// The change from `old` to `new`, if they differ.
    pub fn of(old: RequirementVerdict, new: RequirementVerdict) -> Option<Self> {
        use RequirementVerdict::{Error, Failed, NotRun, Passed, Skipped, Waived};
        let broken = |o| matches!(o, Failed | Error);
        let idle = |o| matches!(o, Skipped | NotRun);
        if old == new {
            None
        } else if broken(new) && !broken(old) {
            Some(Self::Regressed)
        } else if new == Passed && (broken(old) || old == Waived) {
            Some(Self::Fixed)
        } else if idle(new) && !idle(old) {
            Some(Self::NewlySkipped)
        } else if new == Passed && idle(old) {
            Some(Self::NewlyRun)
        } else {
            Some(Self::Other)
        }
    }
}

/// A results file read back, and where it was read.
#[derive(Clone, Copy, Debug)]
pub struct Compared<'a> {
    /// The file, as given.
    pub path: &'a str,
    /// What it recorded.
    pub record: &'a RunRecord,
}

/// Compares two results files and prints the summary; exit code 1 when
/// anything regressed.
pub fn diff(old: &Path, new: &Path) -> Result<ExitCode, RecordError> {
    let before = RunRecord::load(old)?;
    let after = RunRecord::load(new)?;
    let (old, new) = (old.display().to_string(), new.display().to_string());
    let (summary, regressed) = summary(
        Compared {
            path: &old,
            record: &before,
        },
        Compared {
            path: &new,
            record: &after,
        },
    );
    crate::stdout::say(&summary);
    Ok(ExitCode::from(u8::from(regressed)))
}

/// Whether `record` selected the scenario at `location` named `name`:
/// at that `file:line`, or (the features moved) by its file and name.
fn selected(record: &RunRecord, location: &str, name: &str) -> bool {
    fn file(location: &str) -> &str {
        location.rsplit_once(':').map_or(location, |(f, _)| f)
    }
    record.scenarios.iter().any(|scenario| {
        scenario.location == location
            || (scenario.name == name && file(&scenario.location) == file(location))
    })
}

/// A requirement's verdict in a run (`requirement`, its record there),
/// from its scenarios that `other` selected too; `None` when it has none.
fn shared_verdict(
    other: &RunRecord,
    requirement: Option<&RequirementRecord>,
) -> Option<RequirementVerdict> {
    let verdicts: Vec<RequirementVerdict> = requirement?
        .scenarios
        .iter()
        .filter(|s| selected(other, &s.location, &s.name))
        .map(|s| s.outcome)
        .collect();
    (!verdicts.is_empty()).then(|| RequirementVerdict::worst(&verdicts))
}

/// The scenarios `run` selected that `other` did not, as `file:line`.
fn only_in(run: &RunRecord, other: &RunRecord) -> Vec<String> {
    run.scenarios
        .iter()
        .filter(|s| !selected(other, &s.location, &s.name))
        .map(|s| s.location.clone())
        .collect()
}

/// One requirement's change: how, its id, its verdict before and after.
type Row<'r> = (
    Change,
    &'r RequirementId,
    RequirementVerdict,
    RequirementVerdict,
);

/// The Markdown summary, and whether anything regressed.
pub fn summary(before: Compared<'_>, after: Compared<'_>) -> (String, bool) {
    let (old_run, new_run) = (before.record, after.record);
    let ids = requirement_ids(old_run, new_run);
    let changes = changes(&ids, old_run, new_run);
    let count = |kind: Change| changes.iter().filter(|(c, ..)| *c == kind).count();
    let regressed = count(Change::Regressed);
    let mut heading = vec![format!("{regressed} regressed")];
    for kind in [
        Change::Fixed,
        Change::NewlySkipped,
        Change::NewlyRun,
        Change::Other,
        Change::NotCompared,
    ] {
        let n = count(kind);
        if n > 0 {
            heading.push(format!("{n} {}", kind.words()));
        }
    }
    let mut out = format!("### payconf diff: {}\n\n", heading.join(", "));
    for (label, run) in [("before", before), ("after", after)] {
        out.push_str(&run_line(label, run));
    }
    out.push_str(&selection_note(old_run, new_run));
    if old_run.spec.sha256 != new_run.spec.sha256 {
        out.push_str(
            "\nThe runs checked different specs: an outcome may have changed with the spec, \
             not the server.\n",
        );
    }
    if changes.is_empty() {
        out.push_str(&format!(
            "\nNo requirement's outcome changed ({} compared).\n",
            ids.len()
        ));
        return (out, false);
    }
    out.push_str("\n| requirement | before | after | change |\n|---|---|---|---|\n");
    for (change, id, old, new) in &changes {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(id.as_str()),
            old.name(),
            new.name(),
            change.words()
        ));
    }
    let not_compared = count(Change::NotCompared);
    out.push_str(&format!(
        "\n{} of {} requirements unchanged{}.\n",
        ids.len() - changes.len(),
        ids.len(),
        if not_compared > 0 {
            format!(", {not_compared} not compared")
        } else {
            String::new()
        }
    ));
    (out, regressed > 0)
}

/// Every requirement either run lists, once each, in order.
fn requirement_ids<'r>(old_run: &'r RunRecord, new_run: &'r RunRecord) -> Vec<&'r RequirementId> {
    let mut ids: Vec<&RequirementId> = old_run
        .requirements
        .iter()
        .chain(&new_run.requirements)
        .map(|r| &r.id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The requirements whose outcome changed, or that only one run checked
/// (said, never judged), by change and id.
fn changes<'r>(
    ids: &[&'r RequirementId],
    old_run: &RunRecord,
    new_run: &RunRecord,
) -> Vec<Row<'r>> {
    fn find<'r>(run: &'r RunRecord, id: &RequirementId) -> Option<&'r RequirementRecord> {
        run.requirements.iter().find(|r| r.id == *id)
    }
    let mut changes: Vec<Row<'r>> = ids
        .iter()
        .filter_map(|id| {
            let old = shared_verdict(new_run, find(old_run, id));
            let new = shared_verdict(old_run, find(new_run, id));
            match (old, new) {
                (Some(old), Some(new)) => {
                    Change::of(old, new).map(|change| (change, *id, old, new))
                }
                // Checked in one run at most, by scenarios the other did
                // not select: said, never judged.
                _ => {
                    let (old, new) = (old_run.requirement(id), new_run.requirement(id));
                    let checked = |v: RequirementVerdict| v != RequirementVerdict::NotRun;
                    (checked(old) || checked(new)).then_some((Change::NotCompared, *id, old, new))
                }
            }
        })
        .collect();
    changes.sort_by_key(|(change, id, _, _)| (*change, *id));
    changes
}

/// A run as the summary names it: its file, outcome, payconf and spec.
fn run_line(label: &str, run: Compared<'_>) -> String {
    let spec = &run.record.spec;
    format!(
        "- {label}: `{}`, {}, payconf {}, spec {} (sha256 {})\n",
        cell(run.path),
        run.record.outcome.name(),
        cell(&run.record.payconf.version),
        cell(&format!("{} {}", spec.title, spec.version)),
        cell(spec.sha256.get(..12).unwrap_or(&spec.sha256)),
    )
}

/// Where the runs selected different scenarios: which, twenty at most a
/// side; nothing where they selected the same.
fn selection_note(old_run: &RunRecord, new_run: &RunRecord) -> String {
    let (only_before, only_after) = (only_in(old_run, new_run), only_in(new_run, old_run));
    if only_before.is_empty() && only_after.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\nThe runs selected different scenarios (before: `--tags {}`, after: `--tags {}`): \
         only what both selected is compared.\n",
        cell(&old_run.selection.tags),
        cell(&new_run.selection.tags)
    );
    for (label, only) in [("before", &only_before), ("after", &only_after)] {
        if only.is_empty() {
            continue;
        }
        let shown: Vec<String> = only
            .iter()
            .take(20)
            .map(|l| format!("`{}`", cell(l)))
            .collect();
        let more = only.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "- selected only {label}, not compared: {}{more}\n",
            shown.join(", ")
        ));
    }
    out
}

/// A value of a results file in a Markdown table cell: one harmless line,
/// its pipes and backticks escaped (the files are payconf's, but a file is
/// only as trustworthy as whoever handed it over).
fn cell(text: &str) -> String {
    inline(text)
        .replace('|', "\\|")
        .replace('`', "'")
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(old: &str, new: &str) -> Option<Change> {
        let verdict = |name: &str| -> RequirementVerdict {
            serde_json::from_value(serde_json::Value::from(name)).expect("a verdict's name")
        };
        Change::of(verdict(old), verdict(new))
    }

    #[test]
    fn each_change_is_named() {
        assert_eq!(change("passed", "failed"), Some(Change::Regressed));
        assert_eq!(change("not-run", "error"), Some(Change::Regressed));
        assert_eq!(change("waived", "failed"), Some(Change::Regressed));
        assert_eq!(change("failed", "passed"), Some(Change::Fixed));
        assert_eq!(change("waived", "passed"), Some(Change::Fixed));
        assert_eq!(change("passed", "skipped"), Some(Change::NewlySkipped));
        assert_eq!(change("skipped", "passed"), Some(Change::NewlyRun));
        assert_eq!(change("failed", "error"), Some(Change::Other));
        assert_eq!(change("passed", "passed"), None);
        assert_eq!(change("passed", "flaky"), Some(Change::Other));
        assert_eq!(change("failed", "flaky"), Some(Change::Other));
    }

    fn golden() -> RunRecord {
        let text = include_bytes!("runner/result/record/testdata/results-v1.json");
        RunRecord::parse("results-v1.json", text).expect("the golden record reads")
    }

    /// Before, the run selected `three_ds.feature:30` and its TDS-04
    /// failed; after, a run that did not select it: TDS-04 is not compared,
    /// never fixed, and ENV-01 (a scenario both selected) still is.
    #[test]
    fn a_requirement_whose_scenarios_one_run_did_not_select_is_not_compared() {
        let before = golden();
        let mut after = golden();
        after
            .scenarios
            .retain(|s| s.location != "three_ds.feature:30");
        after.selection.tags = "@core and not @issuer".to_owned();
        for requirement in &mut after.requirements {
            requirement
                .scenarios
                .retain(|s| s.location != "three_ds.feature:30");
            if requirement.scenarios.is_empty() {
                requirement.outcome = RequirementVerdict::NotRun;
            }
        }
        let compare = |old: &RunRecord, new: &RunRecord| {
            summary(
                Compared {
                    path: "old.json",
                    record: old,
                },
                Compared {
                    path: "new.json",
                    record: new,
                },
            )
        };
        let (text, regressed) = compare(&after, &before);
        assert!(!regressed, "{text}");
        assert!(
            text.starts_with("### payconf diff: 0 regressed, 2 not compared\n"),
            "{text}"
        );
        assert!(
            text.contains("| TDS-04 | not-run | failed | not compared |"),
            "{text}"
        );
        assert!(
            text.contains(
                "The runs selected different scenarios (before: `--tags @core and not @issuer`, \
                 after: `--tags @core or @reference`)"
            ),
            "{text}"
        );
        assert!(
            text.contains("- selected only after, not compared: `three_ds.feature:30`"),
            "{text}"
        );
        let (text, regressed) = compare(&before, &after);
        assert!(!regressed, "{text}");
        assert!(
            text.contains("| TDS-04 | failed | not-run | not compared |"),
            "{text}"
        );
        assert!(!text.contains("fixed"), "{text}");
    }

    /// A scenario both selected that failed after and passed before is a
    /// regression, however the selections differ elsewhere.
    #[test]
    fn a_scenario_both_selected_still_regresses() {
        let mut before = golden();
        for requirement in &mut before.requirements {
            for scenario in &mut requirement.scenarios {
                scenario.outcome = RequirementVerdict::Passed;
            }
            requirement.outcome = RequirementVerdict::worst(
                &requirement
                    .scenarios
                    .iter()
                    .map(|s| s.outcome)
                    .collect::<Vec<_>>(),
            );
        }
        before
            .scenarios
            .retain(|s| s.location != "notifications.feature:12");
        let (text, regressed) = summary(
            Compared {
                path: "old.json",
                record: &before,
            },
            Compared {
                path: "new.json",
                record: &golden(),
            },
        );
        assert!(regressed, "{text}");
        assert!(
            text.contains("| TDS-04 | passed | failed | **regressed** |"),
            "{text}"
        );
        assert!(
            text.contains("- selected only after, not compared: `notifications.feature:12`"),
            "{text}"
        );
    }

    #[test]
    fn a_cell_cannot_break_the_table_or_the_terminal() {
        let shown = cell("x|y`\u{1b}[2J\n::error::z");
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\n'),
            "{shown}"
        );
        assert!(shown.contains("x\\|y'"), "{shown}");
    }
}
