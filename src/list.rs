//! `payconf run --list`: every requirement with the scenarios that check it,
//! without running anything.

use std::fmt::Write as _;

use crate::{requirements::RequirementProfile, run::Suite};

/// The listing, as printed.
pub fn listing(suite: &Suite) -> String {
    let scenarios = suite.features.scenarios();
    let mut out = String::new();
    for requirement in suite.requirements.all() {
        let profile = match requirement.profile {
            RequirementProfile::Core => "core",
            RequirementProfile::Reference => "reference",
        };
        let _ = writeln!(
            out,
            "{} ({profile}) {}",
            requirement.id, requirement.summary
        );
        let checking: Vec<_> = scenarios
            .iter()
            .filter(|s| s.requirements().any(|id| id == requirement.id))
            .collect();
        if checking.is_empty() {
            let _ = writeln!(out, "    (no scenario)");
        }
        for scenario in checking {
            let _ = writeln!(out, "    {}  {}", scenario.location(), scenario.name);
        }
    }
    out
}
