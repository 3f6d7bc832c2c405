//! The requirements catalogue, `spec/requirements.yaml`: each normative
//! statement of the contract (core) and each choice of the reference profile
//! (reference), numbered, with the parts of the answers that embody it.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Profile;

/// The catalogue compiled into the binary.
pub const EMBEDDED_REQUIREMENTS: &str = include_str!("../../spec/requirements.yaml");

/// The requirement ids the harness names in its own code, beyond the
/// scenarios' tags. A test checks that each is in the catalogue.
pub mod ids {
    use super::RequirementId;

    /// Answers are JSON: a JSON media type and a body that parses.
    pub const JSON_ANSWERS: RequirementId = RequirementId::fixed("ENV-02");
    /// Processed requests answer 200; refusals the status and code of the
    /// spec's error table.
    pub const REFERENCE_STATUSES_AND_ERRORS: RequirementId = RequirementId::fixed("REF-ENV-01");
    /// Every id above.
    pub const ALL: [RequirementId; 2] = [JSON_ANSWERS, REFERENCE_STATUSES_AND_ERRORS];
}

// Everything past the scenarios' tags (the catalogue, the defects, the
// waivers, the results and the record) holds a requirement's id as this
// type; strings only at the edges, files and reports.
/// A requirement's id in `spec/requirements.yaml`: `CREATE-01`,
/// `REF-VAL-03`, `ROB-01`. A scenario names it by a tag, `@req:CREATE-01`.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct RequirementId(#[schemars(regex(pattern = r"^[A-Z]+(-[A-Z0-9]+)+$"))] Cow<'static, str>);

impl RequirementId {
    /// An id as written in the catalogue.
    pub fn new(id: impl Into<String>) -> Self {
        Self(Cow::Owned(id.into()))
    }

    /// An id the harness names in its own code ([`ids`]).
    pub const fn fixed(id: &'static str) -> Self {
        Self(Cow::Borrowed(id))
    }

    /// The id of a requirement tag (`req:CREATE-01`, without its `@`), or
    /// `None` for any other tag.
    pub fn of_tag(tag: &str) -> Option<Self> {
        tag.strip_prefix(REQUIREMENT_TAG).map(Self::new)
    }

    /// The tag that names it on a scenario, without its `@`: `req:CREATE-01`.
    pub fn tag(&self) -> String {
        format!("{REQUIREMENT_TAG}{}", self.0)
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is written as the catalogue writes ids: upper-case words
    /// and numbers joined by hyphens, at least two (`CREATE-01`); the
    /// results' schema says the same.
    pub fn is_well_formed(&self) -> bool {
        let mut words = self.as_str().split('-');
        let first = words.next().unwrap_or_default();
        let rest: Vec<&str> = words.collect();
        !first.is_empty()
            && first.chars().all(|c| c.is_ascii_uppercase())
            && !rest.is_empty()
            && rest.iter().all(|w| {
                !w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            })
    }
}

/// How a tag names a requirement: `@req:CREATE-01`.
pub const REQUIREMENT_TAG: &str = "req:";

impl fmt::Display for RequirementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for RequirementId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

// Also what lets a list of ids be joined as words: `ids.join(", ")`.
impl Borrow<str> for RequirementId {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for RequirementId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for RequirementId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One numbered requirement.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// `CREATE-01`, `REF-VAL-03`, …
    pub id: RequirementId,
    /// Core or reference.
    pub profile: Profile,
    /// For a reference requirement, what it rests on; `section` cites it.
    #[serde(default)]
    pub source: Option<Source>,
    /// Where it comes from.
    pub section: String,
    /// The facts of the real service it rests on (`spec/real-service.yaml`),
    /// by id: every scenario of it is held to them.
    #[serde(default)]
    pub facts: Vec<String>,
    /// The statement, summarised.
    pub summary: String,
    /// Parts of answers it governs, with everything below them:
    /// `"<operationId> <JSON pointer>"`.
    #[serde(default)]
    pub fields: Vec<String>,
    /// Parts of answers it governs, without what lies below them.
    #[serde(default)]
    pub exact_fields: Vec<String>,
    /// The steps that check it, as written after the keyword; `*` stands for
    /// any text (`the transaction type is *`). In a scenario that checks it,
    /// such a step names it: the step's failure is its failure, and the
    /// step's pass is evidence for it.
    #[serde(default)]
    pub steps: Vec<String>,
}

/// What a reference requirement rests on (`docs/readings.md` lists each).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A statement of the contract itself.
    Contract,
    /// What the real service is known to do: a fact of
    /// `spec/real-service.yaml` (`docs/real-service.md`), named in `facts`.
    RealService,
    /// The reference profile's own choice, where nothing is known.
    Choice,
}

impl Source {
    /// How `docs/readings.md` names it.
    pub fn words(self) -> &'static str {
        match self {
            Self::Contract => "contract",
            Self::RealService => "real-service fact",
            Self::Choice => "our choice",
        }
    }
}

impl Requirement {
    /// Whether one of its step patterns matches this step's text.
    pub fn checked_by(&self, step: &str) -> bool {
        self.steps
            .iter()
            .any(|pattern| wildcard_match(pattern, step))
    }
}

/// Whether a step's text matches a step pattern, in which `*` stands for
/// any text.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    requirements: Vec<Requirement>,
}

/// The whole catalogue.
#[derive(Clone, Debug)]
pub struct Requirements {
    list: Vec<Requirement>,
}

/// Why a catalogue could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RequirementsError {
    /// Unreadable file.
    #[error("cannot read requirements {path}: {source}")]
    Read {
        /// The path as given, so the message names what the user typed.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Malformed YAML.
    #[error("requirements catalogue is malformed: {0}")]
    Parse(#[from] serde_yaml_ng::Error),
    /// Inconsistent entries.
    #[error("requirements catalogue: {0}")]
    Invalid(String),
}

impl Requirements {
    /// The embedded catalogue.
    pub fn embedded() -> Result<Self, RequirementsError> {
        Self::from_yaml(EMBEDDED_REQUIREMENTS)
    }

    /// Reads a catalogue file.
    pub fn load(path: &Path) -> Result<Self, RequirementsError> {
        let text = std::fs::read_to_string(path).map_err(|source| RequirementsError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_yaml(&text)
    }

    /// Parses and checks a catalogue: ids unique, reference ids prefixed `REF-`,
    /// fields written `<operationId> /<pointer>`.
    pub fn from_yaml(text: &str) -> Result<Self, RequirementsError> {
        let file: CatalogueFile = serde_yaml_ng::from_str(text)?;
        for (i, requirement) in file.requirements.iter().enumerate() {
            if !requirement.id.is_well_formed() {
                return Err(RequirementsError::Invalid(format!(
                    "{:?}: ids are upper-case words and numbers joined by hyphens (CREATE-01)",
                    requirement.id.as_str()
                )));
            }
            if file.requirements[..i]
                .iter()
                .any(|r| r.id == requirement.id)
            {
                return Err(RequirementsError::Invalid(format!(
                    "{} is listed twice",
                    requirement.id
                )));
            }
            let prefixed = |profile: Profile| {
                !profile.id_prefix().is_empty()
                    && requirement.id.as_str().starts_with(profile.id_prefix())
            };
            let wrong = [Profile::Reference, Profile::Robustness]
                .into_iter()
                .any(|p| prefixed(p) != (p == requirement.profile));
            if wrong {
                return Err(RequirementsError::Invalid(format!(
                    "{}: reference requirements, and only they, are numbered REF-; \
                     robustness ones, and only they, ROB-",
                    requirement.id
                )));
            }
            if (requirement.profile == Profile::Reference) != requirement.source.is_some() {
                return Err(RequirementsError::Invalid(format!(
                    "{}: reference requirements, and only they, name their source \
                     (contract, real-service or choice)",
                    requirement.id
                )));
            }
            for field in requirement.fields.iter().chain(&requirement.exact_fields) {
                let well_formed = field
                    .split_once(' ')
                    .is_some_and(|(op, pointer)| !op.is_empty() && pointer.starts_with('/'));
                if !well_formed {
                    return Err(RequirementsError::Invalid(format!(
                        "{}: field {field:?} is not \"<operationId> /<pointer>\"",
                        requirement.id
                    )));
                }
            }
        }
        Ok(Self {
            list: file.requirements,
        })
    }

    /// A catalogue of no requirements.
    pub fn none() -> Self {
        Self { list: Vec::new() }
    }

    /// Every requirement, in catalogue order.
    pub fn all(&self) -> &[Requirement] {
        &self.list
    }

    /// The requirement with this id.
    pub fn get(&self, id: impl AsRef<str>) -> Option<&Requirement> {
        let id = id.as_ref();
        self.list.iter().find(|r| r.id == id)
    }

    /// The requirements among `checked` (a scenario's) that this step's text
    /// names; none for a step that checks nothing of its own (a `Given`, a
    /// `When`), or that no pattern covers.
    pub fn named_by<'a>(
        &self,
        step: &str,
        checked: impl IntoIterator<Item = &'a RequirementId>,
    ) -> Vec<RequirementId> {
        checked
            .into_iter()
            .filter(|id| self.get(id).is_some_and(|r| r.checked_by(step)))
            .cloned()
            .collect()
    }

    /// The requirements that govern the value at `pointer` of an answer to
    /// `operation_id`: those naming the pointer or one of its parents.
    pub fn governing(&self, operation_id: &str, pointer: &str) -> Vec<&RequirementId> {
        let names = |field: &String, test: &dyn Fn(&str) -> bool| {
            field
                .split_once(' ')
                .is_some_and(|(op, governed)| op == operation_id && test(governed))
        };
        self.list
            .iter()
            .filter(|r| {
                r.fields
                    .iter()
                    .any(|f| names(f, &|g| is_within(pointer, g)))
                    || r.exact_fields.iter().any(|f| names(f, &|g| g == pointer))
            })
            .map(|r| &r.id)
            .collect()
    }
}

/// Whether `pointer` is `parent` or lies below it, segment by segment.
fn is_within(pointer: &str, parent: &str) -> bool {
    pointer == parent
        || pointer
            .strip_prefix(parent)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_pattern_matches_with_wildcards_and_only_whole_texts() {
        assert!(wildcard_match(
            "the transaction type is *",
            "the transaction type is \"submit\""
        ));
        assert!(wildcard_match("the answer is JSON", "the answer is JSON"));
        assert!(!wildcard_match(
            "the answer is JSON",
            "the answer is JSON or not"
        ));
        assert!(wildcard_match("the * is * here", "the code is 0 here"));
        assert!(!wildcard_match("the * is * here", "the code is 0 there"));
        assert!(!wildcard_match("a*a", "a"));
    }

    #[test]
    fn an_id_not_written_as_the_catalogue_writes_them_is_refused() {
        for id in ["create-01", "CREATE", "CREATE-", "-01", "CRE ATE-01"] {
            let text = format!(
                "requirements:\n  - {{id: \"{id}\", profile: core, section: s, summary: s}}\n"
            );
            let refused = Requirements::from_yaml(&text).expect_err(id);
            assert!(
                refused.to_string().contains("upper-case words"),
                "{refused}"
            );
        }
        let text = "requirements:\n  - {id: CREATE-01, profile: core, section: s, summary: s}\n";
        assert!(Requirements::from_yaml(text).is_ok());
    }

    #[test]
    fn every_id_named_in_code_is_in_the_catalogue() {
        let requirements = Requirements::embedded().expect("valid");
        for id in ids::ALL {
            assert!(
                requirements.get(&id).is_some(),
                "{id} is not in spec/requirements.yaml"
            );
        }
    }

    #[test]
    fn the_embedded_catalogue_loads() {
        let requirements = Requirements::embedded().expect("valid");
        assert!(requirements.get("CREATE-01").is_some());
        assert!(requirements.get("REF-PAY-01").is_some());
    }

    #[test]
    fn a_field_belongs_to_the_requirements_naming_it_or_a_parent() {
        let requirements = Requirements::embedded().expect("valid");
        assert_eq!(
            requirements.governing("createPayment", "/payload/paymentID"),
            ["CREATE-03"]
        );
        assert_eq!(
            requirements.governing("createPayment", "/payload"),
            ["ENV-01"]
        );
        assert_eq!(
            requirements.governing("submitPayment", "/payload/userRedirect/href"),
            ["SUBMIT-04", "TDS-03"]
        );
        assert_eq!(
            requirements.governing("createPayment", "/error/code"),
            ["ENV-01"]
        );
        assert!(
            requirements
                .governing("createPayment", "/payloadx")
                .is_empty()
        );
    }

    #[test]
    fn inconsistent_catalogues_are_refused() {
        let twice = "requirements:\n  - {id: A-1, profile: core, section: s, summary: x}\n  - {id: A-1, profile: core, section: s, summary: y}";
        assert!(Requirements::from_yaml(twice).is_err());
        let misnamed = "requirements:\n  - {id: A-1, profile: reference, section: s, summary: x}";
        assert!(Requirements::from_yaml(misnamed).is_err());
        let bad_field = "requirements:\n  - {id: A-1, profile: core, section: s, summary: x, fields: [payload]}";
        assert!(Requirements::from_yaml(bad_field).is_err());
    }

    #[test]
    fn a_reference_requirement_without_its_source_is_refused() {
        let sourced = "requirements:\n  - {id: REF-A-1, profile: reference, source: choice, section: s, summary: x}";
        assert!(Requirements::from_yaml(sourced).is_ok());
        let unsourced =
            "requirements:\n  - {id: REF-A-1, profile: reference, section: s, summary: x}";
        let refused = Requirements::from_yaml(unsourced).expect_err("no source");
        assert!(refused.to_string().contains("REF-A-1"), "{refused}");
        let core_sourced =
            "requirements:\n  - {id: A-1, profile: core, source: choice, section: s, summary: x}";
        assert!(Requirements::from_yaml(core_sourced).is_err());
    }
}
