//! The defect catalogue, `spec/defects.yaml`: servers broken on purpose,
//! each breaking one core requirement (or a reference one of an opt-in
//! area, such as the notifications, that it `selects`), that the project's own tests run the
//! suite against. It is what proves a requirement's scenarios can fail;
//! `payconf run --list` shows it beside each requirement.

use serde::Deserialize;

use crate::driver::AcsDriver;
use crate::requirements::{RequirementId, Requirements};

/// The catalogue compiled into the binary.
pub const EMBEDDED_DEFECTS: &str = include_str!("../../spec/defects.yaml");

/// One server broken on purpose.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defect {
    /// How tests and the listing name it: `payment-id-as-number`, …
    pub id: String,
    /// The one core requirement it breaks.
    pub requirement: RequirementId,
    /// The way real servers go wrong that it stands for.
    pub kind: String,
    /// What the broken server does.
    pub breaks: String,
    /// The issuer driver that can see it: `browser` for an issuer page only
    /// a browser gets through; the form driver (the default) otherwise.
    #[serde(default)]
    pub driver: AcsDriver,
    /// The tag expression a run judging it selects, for a defect of a
    /// reference requirement in an opt-in area that the twin follows the
    /// reference profile in (`@notification`): the scenarios of that
    /// requirement there are the ones it must fail.
    #[serde(default)]
    pub selects: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    defects: Vec<Defect>,
}

/// Why the defect catalogue could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DefectsError {
    /// Malformed YAML.
    #[error("defect catalogue is malformed: {0}")]
    Parse(#[from] serde_yaml_ng::Error),
    /// Inconsistent entries.
    #[error("defect catalogue: {0}")]
    Invalid(String),
}

/// The whole catalogue.
#[derive(Clone, Debug)]
pub struct Defects {
    list: Vec<Defect>,
}

impl Defects {
    /// The embedded catalogue, checked against the embedded requirements.
    pub fn embedded(requirements: &Requirements) -> Result<Self, DefectsError> {
        Self::from_yaml(EMBEDDED_DEFECTS, requirements)
    }

    /// Parses a catalogue and checks it: ids unique and written in lower
    /// case with hyphens, each defect breaking a known core requirement.
    pub fn from_yaml(text: &str, requirements: &Requirements) -> Result<Self, DefectsError> {
        let file: CatalogueFile = serde_yaml_ng::from_str(text)?;
        for (i, defect) in file.defects.iter().enumerate() {
            let well_named = !defect.id.is_empty()
                && defect
                    .id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !well_named {
                return Err(DefectsError::Invalid(format!(
                    "{:?}: ids are lower case letters, digits and hyphens",
                    defect.id
                )));
            }
            if defect.driver == AcsDriver::None {
                return Err(DefectsError::Invalid(format!(
                    "{}: driver is form or browser, not none",
                    defect.id
                )));
            }
            if file.defects[..i].iter().any(|d| d.id == defect.id) {
                return Err(DefectsError::Invalid(format!(
                    "{} is listed twice",
                    defect.id
                )));
            }
            match requirements.get(&defect.requirement) {
                Some(r) if r.profile.binds_every_server() || defect.selects.is_some() => {}
                Some(_) => {
                    return Err(DefectsError::Invalid(format!(
                        "{}: {} is a reference requirement; defects prove core ones, or \
                         reference ones of an opt-in area named by `selects`",
                        defect.id, defect.requirement
                    )));
                }
                None => {
                    return Err(DefectsError::Invalid(format!(
                        "{}: unknown requirement {}",
                        defect.id, defect.requirement
                    )));
                }
            }
        }
        Ok(Self { list: file.defects })
    }

    /// Every defect, in catalogue order.
    pub fn all(&self) -> &[Defect] {
        &self.list
    }

    /// The defects that break `requirement`.
    pub fn breaking<'a>(
        &'a self,
        requirement: &'a RequirementId,
    ) -> impl Iterator<Item = &'a Defect> {
        self.list
            .iter()
            .filter(move |d| d.requirement == *requirement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requirements() -> Requirements {
        Requirements::embedded().expect("the embedded requirements load")
    }

    #[test]
    fn the_embedded_catalogue_loads() {
        let defects = Defects::embedded(&requirements()).expect("loads");
        assert!(defects.breaking(&RequirementId::fixed("TDS-04")).count() >= 1);
    }

    #[test]
    fn a_defect_of_an_unknown_requirement_is_refused() {
        let text = "defects:\n  - {id: x, requirement: NOPE-01, kind: k, breaks: b}\n";
        let err = Defects::from_yaml(text, &requirements()).expect_err("unknown");
        assert!(err.to_string().contains("NOPE-01"), "{err}");
    }

    #[test]
    fn a_defect_of_a_reference_requirement_is_refused_unless_it_selects_its_area() {
        let text = "defects:\n  - {id: x, requirement: REF-AUTH-01, kind: k, breaks: b}\n";
        let err = Defects::from_yaml(text, &requirements()).expect_err("reference");
        assert!(err.to_string().contains("core"), "{err}");
        let selecting = "defects:\n  - {id: x, requirement: REF-NOTIFY-01, kind: k, breaks: b, \
                         selects: '@notification'}\n";
        let defects = Defects::from_yaml(selecting, &requirements()).expect("selects its area");
        assert_eq!(defects.all()[0].selects.as_deref(), Some("@notification"));
    }

    #[test]
    fn a_defect_listed_twice_is_refused() {
        let text = "defects:\n  - {id: x, requirement: ENV-01, kind: k, breaks: b}\n  - {id: x, requirement: ENV-02, kind: k, breaks: b}\n";
        let err = Defects::from_yaml(text, &requirements()).expect_err("twice");
        assert!(err.to_string().contains("twice"), "{err}");
    }
}
