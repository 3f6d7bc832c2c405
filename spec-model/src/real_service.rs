//! What is known of the real service where the contract is silent,
//! `spec/real-service.yaml`: each fact in our words with the public
//! material it was read from, and what of it can be checked (a code's HTTP
//! status and recorded description; steps no scenario resting on it may
//! take). The reference and robustness requirements name their facts
//! (`facts:`), and the harness's tests hold every scenario of them to
//! those facts; `docs/real-service.md` is the same, as a page.

use serde::Deserialize;

/// The facts compiled into the binary.
pub const EMBEDDED_REAL_SERVICE: &str = include_str!("../../spec/real-service.yaml");

/// Where a fact was read: a key and what it stands for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `H`, `B`, …: what a fact's sources begin with.
    pub key: String,
    /// The public material, in words.
    pub what: String,
}

/// One fact of the real service.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    /// `RS-ERR-1171`, …: what requirements name.
    pub id: String,
    /// The topic it is listed under.
    pub topic: String,
    /// The fact, in our words.
    pub says: String,
    /// Where it was read: a source's key and the file or page.
    pub sources: Vec<String>,
    /// Codes it gives an HTTP status or a description.
    #[serde(default)]
    pub codes: Vec<CodeClaim>,
    /// Steps a scenario resting on it may not take.
    #[serde(default)]
    pub forbids: Vec<Forbidden>,
}

/// A code of the service's envelope, as a fact gives it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CodeClaim {
    /// `error.code`.
    pub code: String,
    /// The HTTP status it comes with.
    pub http: u16,
    /// Its recorded description, when one is.
    #[serde(default)]
    pub description: Option<String>,
}

/// A step no scenario resting on a fact may take.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Forbidden {
    /// The step, as requirements write theirs (`*` any text).
    pub step: String,
    /// Only in a scenario that also takes a step matching this.
    #[serde(default, rename = "where")]
    pub within: Option<String>,
    /// Why the fact forbids it.
    pub why: String,
}

/// One operation of the real service's REST API, as its documentation
/// writes it, and what of payconf covers it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// What it does, in a few words.
    pub name: String,
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The path after `/api/v1/`, as the documentation writes it.
    pub path: String,
    /// Where it is documented: a source's key and the file.
    pub source: String,
    /// The spec's operation for it (`operationId`), when the spec has one.
    #[serde(default)]
    pub spec: Option<String>,
    /// The requirements whose scenarios call it.
    #[serde(default)]
    pub requirements: Vec<String>,
    /// Whether the sandbox serves it.
    pub sandbox: bool,
    /// Why not, where it is not covered.
    #[serde(default)]
    pub not_yet: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactsFile {
    sources: Vec<Source>,
    facts: Vec<Fact>,
    #[serde(default)]
    operations: Vec<Operation>,
}

/// Every fact, and the sources they cite.
#[derive(Clone, Debug)]
pub struct RealService {
    /// The public material, by key.
    pub sources: Vec<Source>,
    /// The facts, in the file's order.
    pub facts: Vec<Fact>,
    /// The real service's REST operations, and what covers each.
    pub operations: Vec<Operation>,
}

/// How much of the real service's API payconf covers: of its operations,
/// how many the spec describes, scenarios call, and the sandbox serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Every operation the facts list.
    pub operations: usize,
    /// In the spec.
    pub in_spec: usize,
    /// Called by some requirement's scenarios.
    pub with_scenarios: usize,
    /// Served by the sandbox.
    pub served: usize,
}

impl RealService {
    /// How much of the real service's API payconf covers.
    pub fn coverage(&self) -> Coverage {
        let ops = &self.operations;
        Coverage {
            operations: ops.len(),
            in_spec: ops.iter().filter(|o| o.spec.is_some()).count(),
            with_scenarios: ops.iter().filter(|o| !o.requirements.is_empty()).count(),
            served: ops.iter().filter(|o| o.sandbox).count(),
        }
    }
}

/// Why the facts could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RealServiceError {
    /// Malformed YAML.
    #[error("spec/real-service.yaml is malformed: {0}")]
    Parse(#[from] serde_yaml_ng::Error),
    /// Inconsistent entries.
    #[error("spec/real-service.yaml: {0}")]
    Invalid(String),
}

impl RealService {
    /// The embedded facts.
    pub fn embedded() -> Result<Self, RealServiceError> {
        Self::from_yaml(EMBEDDED_REAL_SERVICE)
    }

    /// Parses and checks the facts: ids unique and prefixed `RS-`, every
    /// source cited by a key the file lists, every code given one status.
    pub fn from_yaml(text: &str) -> Result<Self, RealServiceError> {
        let file: FactsFile = serde_yaml_ng::from_str(text)?;
        let mut seen = std::collections::BTreeSet::new();
        let mut codes = std::collections::BTreeMap::new();
        for fact in &file.facts {
            if !fact.id.starts_with("RS-") || !seen.insert(fact.id.as_str()) {
                return Err(RealServiceError::Invalid(format!(
                    "{}: a fact's id begins with RS- and is given once",
                    fact.id
                )));
            }
            for cited in &fact.sources {
                let key = cited.split_whitespace().next().unwrap_or("");
                let known = file.sources.iter().any(|source| source.key == key)
                    || !key.chars().all(|c| c.is_ascii_uppercase());
                if !known {
                    return Err(RealServiceError::Invalid(format!(
                        "{}: the source {cited:?} begins with a key the file does not list",
                        fact.id
                    )));
                }
            }
            for claim in &fact.codes {
                if let Some(other) = codes.insert(claim.code.as_str(), claim.http) {
                    if other != claim.http {
                        return Err(RealServiceError::Invalid(format!(
                            "code {} is given HTTP {other} and HTTP {}",
                            claim.code, claim.http
                        )));
                    }
                }
            }
        }
        for operation in &file.operations {
            let covered = operation.spec.is_some() && operation.sandbox;
            if !covered && operation.not_yet.is_none() {
                return Err(RealServiceError::Invalid(format!(
                    "{} {}: an operation not covered says why (not_yet)",
                    operation.method, operation.path
                )));
            }
        }
        Ok(Self {
            sources: file.sources,
            facts: file.facts,
            operations: file.operations,
        })
    }

    /// The fact `id` names.
    pub fn get(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|fact| fact.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_not_covered_says_why() {
        let file = "sources: []\nfacts: []\noperations:\n  - {name: checks, method: POST, path: check/pan/, source: H x, sandbox: false}\n";
        assert!(RealService::from_yaml(file).is_err());
        let said = file.replace("sandbox: false}", "sandbox: false, not_yet: later}");
        let covered = RealService::from_yaml(&said)
            .expect("it says why")
            .coverage();
        assert_eq!((covered.operations, covered.served), (1, 0));
    }

    #[test]
    fn the_embedded_facts_load() {
        let facts = RealService::embedded().expect("the facts load");
        assert!(facts.get("RS-ERR-1171").is_some());
        let claim = &facts.get("RS-ERR-1171").expect("1171").codes[0];
        assert_eq!(
            claim.description.as_deref(),
            Some("missing authentication header")
        );
    }

    #[test]
    fn a_code_given_two_statuses_is_refused() {
        let text = "sources: []\nfacts:\n  - id: RS-A\n    topic: t\n    says: s\n    sources: []\n    codes: [{ code: \"1\", http: 400 }]\n  - id: RS-B\n    topic: t\n    says: s\n    sources: []\n    codes: [{ code: \"1\", http: 403 }]\n";
        let error = RealService::from_yaml(text).expect_err("refused");
        assert!(
            error
                .to_string()
                .contains("code 1 is given HTTP 400 and HTTP 403"),
            "{error}"
        );
    }

    #[test]
    fn a_source_of_an_unlisted_key_is_refused() {
        let text = "sources: [{ key: H, what: docs }]\nfacts:\n  - id: RS-A\n    topic: t\n    says: s\n    sources: [\"Q somewhere\"]\n";
        assert!(RealService::from_yaml(text).is_err());
    }
}
