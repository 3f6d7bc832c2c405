//! Waivers (`--waivers FILE`): known failures a team accepts for a while.
//!
//! ```toml
//! [[waivers]]
//! requirement = "SUBMIT-05"
//! reason = "the success page moves with release 4.2 (PAY-123)"
//! expires = "2026-12-31"
//! ```
//!
//! A failed scenario is waived when every requirement its failure is
//! attributed to has a waiver in force (up to and including its expiry
//! date, UTC). A failure of the spec check names the requirements of the
//! field at fault; any other failure is attributed to every requirement the
//! scenario checks, so a waiver of one requirement never hides a failure of
//! another. A waived failure is reported as waived and does not fail the run.
//! Once a waiver has expired, the failures it covered fail the run again,
//! with a message saying which waiver expired and when. A waiver in force
//! whose requirement passed is said to be no longer needed, in the console
//! and the results; with `--strict-waivers` that fails the run, as the
//! OpenID conformance suite's expected failures do.

use std::path::Path;

use serde::Deserialize;
use time::{Date, format_description::well_known::Iso8601, macros::format_description};

use payconf_spec::requirements::{RequirementId, Requirements};

/// One waiver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiver {
    /// The requirement whose failures it covers.
    pub requirement: RequirementId,
    /// Why the failure is accepted.
    pub reason: String,
    /// The last day it is in force.
    pub expires: Date,
}

impl Waiver {
    /// Whether it is in force on `today`.
    pub fn in_force(&self, today: Date) -> bool {
        today <= self.expires
    }

    /// `SUBMIT-05 until 2026-12-31: reason`.
    pub fn describe(&self) -> String {
        format!(
            "{} until {}: {}",
            self.requirement,
            format_date(self.expires),
            self.reason
        )
    }
}

/// `YYYY-MM-DD`.
pub fn format_date(date: Date) -> String {
    date.format(format_description!("[year]-[month]-[day]"))
        .unwrap_or_else(|_| date.to_string())
}

/// One waiver: a requirement whose failure does not fail the run, why,
/// and until when.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaiverEntry {
    /// The requirement's ID, as `payconf plan` lists it (`TDS-04`).
    requirement: RequirementId,
    /// Why it is waived, for whoever reads the report.
    reason: String,
    /// The last day it holds, `YYYY-MM-DD`; after it the waiver is spent.
    #[schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2}$"))]
    expires: String,
}

/// A waivers file (`--waivers FILE`).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WaiversFile {
    /// The waivers, each a `[[waivers]]` table.
    #[serde(default)]
    waivers: Vec<WaiverEntry>,
}

/// Why a waivers file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WaiversError {
    /// Unreadable file.
    #[error("--waivers {path}: {source}")]
    Read {
        /// The path as given, so the message names what the user typed.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not the format.
    #[error("--waivers: {0}")]
    Invalid(String),
}

/// What the waivers decide about one failed scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Every requirement it checks is waived: the waivers in force.
    Waived(Vec<Waiver>),
    /// It fails; the expired waivers that would have covered it, if any.
    Fails(Vec<Waiver>),
}

/// Every waiver of a run, and the day it is judged on.
#[derive(Clone, Debug)]
pub struct Waivers {
    list: Vec<Waiver>,
    today: Date,
}

impl Waivers {
    /// No waivers.
    pub fn none() -> Self {
        Self {
            list: Vec::new(),
            today: today(),
        }
    }

    /// Reads a waivers file, checking every requirement id against the catalogue.
    pub fn load(path: &Path, requirements: &Requirements) -> Result<Self, WaiversError> {
        let text = std::fs::read_to_string(path).map_err(|source| WaiversError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_toml(&text, requirements, today())
    }

    /// Parses waivers, judged on `today`.
    pub fn from_toml(
        text: &str,
        requirements: &Requirements,
        today: Date,
    ) -> Result<Self, WaiversError> {
        let file: WaiversFile =
            toml::from_str(text).map_err(|e| WaiversError::Invalid(e.to_string()))?;
        let mut list = Vec::new();
        for (i, entry) in file.waivers.into_iter().enumerate() {
            let place = format!("waiver {} ({})", i + 1, entry.requirement);
            if requirements.get(&entry.requirement).is_none() {
                return Err(WaiversError::Invalid(format!(
                    "{place}: unknown requirement {}",
                    entry.requirement
                )));
            }
            if entry.reason.trim().is_empty() {
                return Err(WaiversError::Invalid(format!(
                    "{place}: reason is empty; say why the failure is accepted"
                )));
            }
            let expires = Date::parse(&entry.expires, &Iso8601::DATE).map_err(|e| {
                WaiversError::Invalid(format!(
                    "{place}: expires {:?} is not a date YYYY-MM-DD: {e}",
                    entry.expires
                ))
            })?;
            list.push(Waiver {
                requirement: entry.requirement,
                reason: entry.reason,
                expires,
            });
        }
        Ok(Self { list, today })
    }

    /// The waivers of one requirement.
    pub fn of<'a>(&'a self, requirement: &'a RequirementId) -> impl Iterator<Item = &'a Waiver> {
        self.list
            .iter()
            .filter(move |w| w.requirement == *requirement)
    }

    /// What the waivers make of a failed scenario checking `requirements`.
    pub fn decide<'a>(
        &self,
        requirements: impl IntoIterator<Item = &'a RequirementId>,
    ) -> Decision {
        let mut in_force = Vec::new();
        let mut expired = Vec::new();
        let mut uncovered = false;
        let mut any = false;
        for requirement in requirements {
            any = true;
            match self.of(requirement).find(|w| w.in_force(self.today)) {
                Some(waiver) => in_force.push(waiver.clone()),
                None => {
                    uncovered = true;
                    expired.extend(self.of(requirement).cloned());
                }
            }
        }
        if any && !uncovered {
            Decision::Waived(in_force)
        } else {
            Decision::Fails(expired)
        }
    }
}

/// Today, UTC.
impl Waivers {
    /// The waivers in force today, one a requirement (the first listed).
    pub fn in_force(&self) -> Vec<&Waiver> {
        let mut seen: Vec<&Waiver> = Vec::new();
        for waiver in self.list.iter().filter(|w| w.in_force(self.today)) {
            if !seen.iter().any(|s| s.requirement == waiver.requirement) {
                seen.push(waiver);
            }
        }
        seen
    }
}

fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn requirements() -> Requirements {
        Requirements::embedded().expect("requirements load")
    }

    const FILE: &str = r#"
        [[waivers]]
        requirement = "SUBMIT-04"
        reason = "relative redirects until 4.2"
        expires = "2026-12-31"
        [[waivers]]
        requirement = "SUBMIT-05"
        reason = "old success page"
        expires = "2026-01-31"
    "#;

    fn ids<const N: usize>(ids: [&'static str; N]) -> [RequirementId; N] {
        ids.map(RequirementId::fixed)
    }

    fn waivers_on(today: Date) -> Waivers {
        Waivers::from_toml(FILE, &requirements(), today).expect("valid")
    }

    #[test]
    fn a_failure_of_waived_requirements_only_is_waived_until_the_expiry_date_included() {
        let waivers = waivers_on(date!(2026 - 12 - 31));
        assert!(matches!(waivers.decide(&ids(["SUBMIT-04"])), Decision::Waived(w) if w.len() == 1));
        let later = waivers_on(date!(2027 - 01 - 01));
        assert!(matches!(later.decide(&ids(["SUBMIT-04"])), Decision::Fails(w) if w.len() == 1));
    }

    #[test]
    fn a_waiver_never_hides_a_failure_of_another_requirement() {
        let waivers = waivers_on(date!(2026 - 11 - 22));
        assert_eq!(
            waivers.decide(&ids(["SUBMIT-03", "SUBMIT-04"])),
            Decision::Fails(Vec::new())
        );
        assert_eq!(waivers.decide(&[]), Decision::Fails(Vec::new()));
    }

    #[test]
    fn an_expired_waiver_is_named_in_the_failure() {
        let waivers = waivers_on(date!(2026 - 11 - 22));
        let Decision::Fails(expired) = waivers.decide(&ids(["SUBMIT-05"])) else {
            panic!("expired");
        };
        assert_eq!(format_date(expired[0].expires), "2026-01-31");
    }

    #[test]
    fn bad_entries_are_refused_naming_them() {
        let unknown = FILE.replace("SUBMIT-05", "NOPE-1");
        let err = Waivers::from_toml(&unknown, &requirements(), date!(2026 - 01 - 01))
            .expect_err("unknown requirement");
        assert!(err.to_string().contains("NOPE-1"), "{err}");
        let bad_date = FILE.replace("2026-12-31", "31/12/2026");
        let err = Waivers::from_toml(&bad_date, &requirements(), date!(2026 - 01 - 01))
            .expect_err("bad date");
        assert!(err.to_string().contains("31/12/2026"), "{err}");
        let no_reason = FILE.replace("old success page", " ");
        assert!(Waivers::from_toml(&no_reason, &requirements(), date!(2026 - 01 - 01)).is_err());
    }
}
