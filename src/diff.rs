//! `payconf diff OLD.json NEW.json`: what changed between two runs'
//! results, requirement by requirement, as a Markdown summary fit for a
//! pull-request comment. Regressed (now failed or erred, and not before),
//! fixed (failed, erred or waived before, passed now), newly skipped (ran
//! before, not now) and newly run; the exit code is 1 when anything
//! regressed, so a release pipeline gates on it.

use std::{path::Path, process::ExitCode};

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

/// The Markdown summary, and whether anything regressed.
pub fn summary(before: Compared<'_>, after: Compared<'_>) -> (String, bool) {
    fn id(r: &RequirementRecord) -> &str {
        r.id.as_str()
    }
    let mut ids: Vec<&str> = before
        .record
        .requirements
        .iter()
        .map(id)
        .chain(after.record.requirements.iter().map(id))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut changes: Vec<(Change, &str, RequirementVerdict, RequirementVerdict)> = ids
        .iter()
        .filter_map(|id| {
            let old = before.record.requirement(id);
            let new = after.record.requirement(id);
            Change::of(old, new).map(|change| (change, *id, old, new))
        })
        .collect();
    changes.sort_by_key(|(change, id, _, _)| (*change, *id));
    let count = |kind: Change| changes.iter().filter(|(c, ..)| *c == kind).count();
    let regressed = count(Change::Regressed);
    let mut out = String::new();
    let mut heading = vec![format!("{regressed} regressed")];
    for kind in [
        Change::Fixed,
        Change::NewlySkipped,
        Change::NewlyRun,
        Change::Other,
    ] {
        let n = count(kind);
        if n > 0 {
            heading.push(format!("{n} {}", kind.words()));
        }
    }
    out.push_str(&format!("### payconf diff: {}\n\n", heading.join(", ")));
    for (label, run) in [("before", before), ("after", after)] {
        out.push_str(&format!(
            "- {label}: `{}`, {}, payconf {}, spec {} (sha256 {})\n",
            cell(run.path),
            run.record.outcome.name(),
            cell(&run.record.payconf.version),
            cell(&format!(
                "{} {}",
                run.record.spec.title, run.record.spec.version
            )),
            cell(
                run.record
                    .spec
                    .sha256
                    .get(..12)
                    .unwrap_or(&run.record.spec.sha256)
            ),
        ));
    }
    if before.record.spec.sha256 != after.record.spec.sha256 {
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
            cell(id),
            old.name(),
            new.name(),
            change.words()
        ));
    }
    out.push_str(&format!(
        "\n{} of {} requirements unchanged.\n",
        ids.len() - changes.len(),
        ids.len()
    ));
    (out, regressed > 0)
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
