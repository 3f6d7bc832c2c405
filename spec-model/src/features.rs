//! The Gherkin features: embedded in the binary (or read from a directory),
//! parsed, Scenario Outlines expanded, and listed scenario by scenario with
//! the tags each one carries.

use std::path::{Path, PathBuf};

use cucumber::{feature::Ext as _, gherkin};

use crate::requirements::{REQUIREMENT_TAG, RequirementId};
use crate::{Profile, digest::sha256_hex};

/// The feature files compiled into the binary, by file name.
pub const EMBEDDED_FEATURES: &[(&str, &str)] = &[
    (
        "authentication.feature",
        include_str!("../../features/authentication.feature"),
    ),
    (
        "create.feature",
        include_str!("../../features/create.feature"),
    ),
    (
        "envelope.feature",
        include_str!("../../features/envelope.feature"),
    ),
    (
        "lifecycle.feature",
        include_str!("../../features/lifecycle.feature"),
    ),
    (
        "lightbox.feature",
        include_str!("../../features/lightbox.feature"),
    ),
    (
        "methods.feature",
        include_str!("../../features/methods.feature"),
    ),
    (
        "notifications.feature",
        include_str!("../../features/notifications.feature"),
    ),
    (
        "outcomes.feature",
        include_str!("../../features/outcomes.feature"),
    ),
    (
        "payment_page.feature",
        include_str!("../../features/payment_page.feature"),
    ),
    (
        "robustness.feature",
        include_str!("../../features/robustness.feature"),
    ),
    (
        "submit.feature",
        include_str!("../../features/submit.feature"),
    ),
    (
        "three_d_secure.feature",
        include_str!("../../features/three_d_secure.feature"),
    ),
];

/// Why features could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FeaturesError {
    /// A directory or file could not be read.
    #[error("cannot read features {path}: {source}")]
    Read {
        /// The directory or file that could not be read, as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file is not valid Gherkin, or its Examples do not fit its outline.
    #[error("{file}: {reason}")]
    Invalid {
        /// The feature file at fault, so the message names it.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// No feature files were found.
    #[error("no .feature files in {0}")]
    Empty(String),
}

/// Parsed, expanded features.
#[derive(Clone, Debug)]
pub struct Features {
    /// As cucumber runs them: each Examples row of an outline a scenario.
    expanded: Vec<gherkin::Feature>,
    /// As written: outlines with their Examples tables, for documentation.
    written: Vec<gherkin::Feature>,
    /// Each file's name and the SHA-256 of its text, in hex, by name.
    digests: Vec<(String, String)>,
}

/// One scenario and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioEntry {
    /// The feature file's name: with the line, where reports say it is.
    pub file: String,
    /// The feature's name, which groups scenarios in reports.
    pub feature: String,
    /// The scenario's name, as the feature writes it.
    pub name: String,
    /// Line of the scenario (of its Examples row, for an outline).
    pub line: usize,
    /// Every tag that applies (feature's, rule's, scenario's), without `@`.
    pub tags: Vec<String>,
    /// Its profile, from its tags: none when it has no profile tag, or more
    /// than one (which the suite's checks refuse).
    pub profile: Option<Profile>,
}

impl ScenarioEntry {
    /// The requirement ids of its `@req:` tags.
    pub fn requirements(&self) -> impl Iterator<Item = RequirementId> {
        requirement_ids(&self.tags)
    }

    /// Whether one of its `@req:` tags names the requirement `id`.
    pub fn checks(&self, id: impl AsRef<str>) -> bool {
        names_requirement(&self.tags, id.as_ref())
    }

    /// Where it is, as every report and message names a scenario.
    pub fn location(&self) -> String {
        location(&self.file, self.line)
    }

    /// Whether it carries a tag (written without `@`).
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

/// A scenario's anchor: `file:line`, the one form reports, messages and the
/// docs use to name where a scenario is.
pub fn location(file: &str, line: usize) -> String {
    format!("{file}:{line}")
}

/// A scenario's HTML id, derived from its location so that the docs and
/// the report agree: `create.feature:8` is `s-create-8`.
pub fn html_id(location: &str) -> String {
    let (file, line) = location.rsplit_once(':').unwrap_or((location, ""));
    let stem = file
        .trim_end_matches(".feature")
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    format!("s-{stem}-{line}")
}

/// The requirement ids among tags.
pub fn requirement_ids(tags: &[String]) -> impl Iterator<Item = RequirementId> {
    tags.iter().filter_map(|t| RequirementId::of_tag(t))
}

/// Whether one of `tags` names the requirement `id` (`req:<id>`), read
/// where the tags are, with nothing made.
pub fn names_requirement(tags: &[String], id: &str) -> bool {
    tags.iter()
        .any(|t| t.strip_prefix(REQUIREMENT_TAG) == Some(id))
}

/// The tags that are neither a profile nor a requirement: areas and needs.
pub fn other_tags(tags: &[String]) -> impl Iterator<Item = &str> {
    tags.iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with(REQUIREMENT_TAG) && Profile::named(t).is_none())
}

/// File digests as `sha256sum` writes them, `<hex>  <name>` a line.
fn listing(digests: &[(String, String)]) -> String {
    digests
        .iter()
        .map(|(name, hex)| format!("{hex}  {name}\n"))
        .collect()
}

impl Features {
    /// The embedded features.
    pub fn embedded() -> Result<Self, FeaturesError> {
        let files = EMBEDDED_FEATURES
            .iter()
            .map(|(name, text)| (PathBuf::from(name), (*text).to_owned()));
        Self::parse_all(files)
    }

    /// Every `.feature` file of a directory, in name order.
    pub fn load_dir(dir: &Path) -> Result<Self, FeaturesError> {
        let read = |source| FeaturesError::Read {
            path: dir.display().to_string(),
            source,
        };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(read)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("feature"))
            })
            .collect();
        if paths.is_empty() {
            return Err(FeaturesError::Empty(dir.display().to_string()));
        }
        paths.sort();
        let files = paths
            .into_iter()
            .map(|path| {
                let text =
                    std::fs::read_to_string(&path).map_err(|source| FeaturesError::Read {
                        path: path.display().to_string(),
                        source,
                    })?;
                Ok((PathBuf::from(path.file_name().unwrap_or_default()), text))
            })
            .collect::<Result<Vec<_>, FeaturesError>>()?;
        Self::parse_all(files)
    }

    fn parse_all(
        files: impl IntoIterator<Item = (PathBuf, String)>,
    ) -> Result<Self, FeaturesError> {
        let mut digests = Vec::new();
        let features = files
            .into_iter()
            .map(|(path, text)| {
                digests.push((path.display().to_string(), sha256_hex(text.as_bytes())));
                let invalid = |reason: String| FeaturesError::Invalid {
                    file: path.display().to_string(),
                    reason,
                };
                let mut feature = gherkin::Feature::parse(&text, gherkin::GherkinEnv::default())
                    .map_err(|e| invalid(e.to_string()))?;
                feature.path = Some(path.clone());
                let expanded = feature
                    .clone()
                    .expand_examples()
                    .map_err(|e| invalid(e.to_string()))?;
                Ok((expanded, feature))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (expanded, written) = features.into_iter().unzip();
        digests.sort();
        Ok(Self {
            expanded,
            written,
            digests,
        })
    }

    /// Each feature file's name and the SHA-256 of its text, in hex, by name.
    pub fn digests(&self) -> &[(String, String)] {
        &self.digests
    }

    /// Their [`Features::digests`] as `sha256sum` writes them, `<hex>
    /// <name>` a line: what `sha256sum -c` checks in the features' folder.
    pub fn listing(&self) -> String {
        listing(&self.digests)
    }

    /// SHA-256 of the features as one: of their [`Features::listing`], in
    /// hex. Which features a run or a bundle was made with.
    pub fn sha256(&self) -> String {
        sha256_hex(self.listing().as_bytes())
    }

    /// The embedded features' [`Features::sha256`], without parsing them.
    pub fn embedded_sha256() -> String {
        let mut digests: Vec<(String, String)> = EMBEDDED_FEATURES
            .iter()
            .map(|(name, text)| ((*name).to_owned(), sha256_hex(text.as_bytes())))
            .collect();
        digests.sort();
        sha256_hex(listing(&digests).as_bytes())
    }

    /// The expanded features, given away (to cucumber's parser).
    pub fn into_features(self) -> Vec<gherkin::Feature> {
        self.expanded
    }

    /// The parsed features.
    pub fn features(&self) -> &[gherkin::Feature] {
        &self.expanded
    }

    /// The features as written: outlines once, with their Examples tables.
    pub fn as_written(&self) -> &[gherkin::Feature] {
        &self.written
    }

    /// Every scenario (each Examples row of an outline), in file order.
    pub fn scenarios(&self) -> Vec<ScenarioEntry> {
        let mut entries = Vec::new();
        for feature in &self.expanded {
            let file = file_name(feature);
            for (rule, scenario) in scenarios_with_rules(feature) {
                let tags = effective_tags(feature, rule, scenario);
                entries.push(ScenarioEntry {
                    file: file.clone(),
                    feature: feature.name.clone(),
                    name: scenario.name.clone(),
                    line: scenario.position.line,
                    profile: Profile::of_tags(&tags),
                    tags,
                });
            }
        }
        entries
    }

    /// Every tag the scenarios carry, with `@`, sorted, but the
    /// requirements' (`@req:<ID>`, one per requirement): what a tag
    /// expression can name, for a person whose expression matched nothing.
    pub fn tags_but_requirements(&self) -> Vec<String> {
        let tags: std::collections::BTreeSet<String> = self
            .scenarios()
            .into_iter()
            .flat_map(|scenario| scenario.tags)
            .filter(|tag| !tag.starts_with(REQUIREMENT_TAG))
            .map(|tag| format!("@{tag}"))
            .collect();
        tags.into_iter().collect()
    }
}

/// The file name a feature was read from.
pub fn file_name(feature: &gherkin::Feature) -> String {
    feature
        .path
        .as_deref()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| feature.name.clone())
}

/// Every scenario of a feature with the rule it sits under, if any: the
/// feature's own first, then each rule's, in file order.
pub fn scenarios_with_rules(
    feature: &gherkin::Feature,
) -> impl Iterator<Item = (Option<&gherkin::Rule>, &gherkin::Scenario)> {
    let own = feature.scenarios.iter().map(|s| (None, s));
    let ruled = feature
        .rules
        .iter()
        .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
    own.chain(ruled)
}

/// The tags that apply to a scenario: its feature's, its rule's and its own.
pub fn effective_tags(
    feature: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    scenario: &gherkin::Scenario,
) -> Vec<String> {
    let mut tags: Vec<String> = feature.tags.clone();
    if let Some(rule) = rule {
        tags.extend(rule.tags.iter().cloned());
    }
    tags.extend(scenario.tags.iter().cloned());
    tags.dedup();
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_features_digest_unparsed_is_the_parsed_one() {
        let features = Features::embedded().expect("the features parse");
        assert_eq!(Features::embedded_sha256(), features.sha256());
        assert_eq!(features.digests().len(), EMBEDDED_FEATURES.len());
        let first = features
            .listing()
            .lines()
            .next()
            .expect("a line")
            .to_owned();
        let (hex, name) = first.split_once("  ").expect("sha256sum's two spaces");
        assert_eq!(hex.len(), 64);
        let text = EMBEDDED_FEATURES
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a feature file")
            .1;
        assert_eq!(hex, sha256_hex(text.as_bytes()));
    }

    #[test]
    fn a_scenarios_html_id_is_its_file_stem_and_line() {
        assert_eq!(html_id(&location("create.feature", 8)), "s-create-8");
        assert_eq!(html_id("three_d_secure.feature:23"), "s-three-d-secure-23");
    }

    #[test]
    fn other_tags_leave_out_profiles_and_requirements() {
        let tags: Vec<String> = ["core", "req:CREATE-01", "issuer", "production-safe"]
            .map(str::to_owned)
            .into();
        assert_eq!(
            other_tags(&tags).collect::<Vec<_>>(),
            ["issuer", "production-safe"]
        );
        assert_eq!(requirement_ids(&tags).collect::<Vec<_>>(), ["CREATE-01"]);
    }
}
