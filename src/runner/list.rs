//! `payconf run --list`: every requirement with the scenarios that check it
//! and, for core ones, the defects of the catalogue that prove those
//! scenarios can fail; nothing is run.

use std::fmt::Write as _;

use crate::runner::{suite::Suite, target_file::AcsDriver};

/// The listing, as printed.
pub fn listing(suite: &Suite) -> String {
    let scenarios = suite.features.scenarios();
    let mut out = String::new();
    for requirement in suite.requirements.all() {
        let profile = requirement.profile.name();
        let _ = writeln!(
            out,
            "{} ({profile}) {}",
            requirement.id, requirement.summary
        );
        let checking: Vec<_> = scenarios
            .iter()
            .filter(|s| s.checks(&requirement.id))
            .collect();
        if checking.is_empty() {
            let _ = writeln!(out, "    (no scenario)");
        }
        for scenario in checking {
            let _ = writeln!(out, "    {}  {}", scenario.location(), scenario.name);
        }
        let mut defects = suite.defects.breaking(&requirement.id).peekable();
        if requirement.profile.binds_every_server() && defects.peek().is_none() {
            let _ = writeln!(out, "    (no defect proves these scenarios can fail)");
        }
        for defect in defects {
            let seen_by = if defect.driver == AcsDriver::Browser {
                " (seen with acs.driver = \"browser\")"
            } else {
                ""
            };
            let _ = writeln!(out, "    defect {}: {}{seen_by}", defect.id, defect.breaks);
        }
    }
    out
}
