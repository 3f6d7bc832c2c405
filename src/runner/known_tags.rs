//! A tag expression checked whole before it selects anything: every tag it
//! names must be one the features carry, or `@req:ID` of a requirement the
//! catalogue has. A misspelt tag would otherwise narrow a gate in silence
//! (`@core or @refrence` runs `@core` alone and passes; `not @isuer`
//! excludes nothing), so it stops the run, naming the tag and the known
//! tags nearest to it.

use std::collections::BTreeSet;

use cucumber::gherkin::tagexpr::TagOperation;
use payconf_spec::{
    features::Features,
    requirements::{RequirementId, Requirements},
};

/// A tag the features do not carry, with the known tags nearest to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTag {
    /// As written, with its `@`.
    pub tag: String,
    /// The known tags nearest to it, nearest first, with their `@`.
    pub nearest: Vec<String>,
}

impl std::fmt::Display for UnknownTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.tag)?;
        match self.nearest.as_slice() {
            [] => Ok(()),
            nearest => write!(f, " (did you mean {}?)", nearest.join(" or ")),
        }
    }
}

/// How many known tags a refusal offers for one unknown tag.
const NEAREST: usize = 3;

/// Every tag of `expression` that neither `features` carry nor names a
/// requirement of `requirements`, in the order written.
pub fn unknown_tags(
    expression: &TagOperation,
    features: &Features,
    requirements: &Requirements,
) -> Vec<UnknownTag> {
    let carried: BTreeSet<String> = features
        .scenarios()
        .into_iter()
        .flat_map(|scenario| scenario.tags)
        .collect();
    let mut named = Vec::new();
    tags_of(expression, &mut named);
    let mut seen = BTreeSet::new();
    named
        .into_iter()
        .filter(|tag| seen.insert(tag.clone()))
        .filter(|tag| !known(tag, &carried, requirements))
        .map(|tag| UnknownTag {
            nearest: nearest(&tag, &carried, requirements),
            tag: format!("@{tag}"),
        })
        .collect()
}

/// Whether `tag` (without its `@`) is carried by a scenario or names a
/// requirement of the catalogue.
fn known(tag: &str, carried: &BTreeSet<String>, requirements: &Requirements) -> bool {
    carried.contains(tag)
        || RequirementId::of_tag(tag).is_some_and(|id| requirements.get(&id).is_some())
}

/// The tags `expression` names, without their `@`, in the order written.
fn tags_of(expression: &TagOperation, into: &mut Vec<String>) {
    match expression {
        TagOperation::And(left, right) | TagOperation::Or(left, right) => {
            tags_of(left, into);
            tags_of(right, into);
        }
        TagOperation::Not(inner) => tags_of(inner, into),
        TagOperation::Tag(tag) => into.push(tag.clone()),
    }
}

/// The known tags nearest to `tag` by edit distance, at most [`NEAREST`],
/// each at most half its length away: a requirement's tags for a `req:`
/// tag, the features' others for the rest.
fn nearest(tag: &str, carried: &BTreeSet<String>, requirements: &Requirements) -> Vec<String> {
    let candidates: Vec<String> = if RequirementId::of_tag(tag).is_some() {
        requirements
            .all()
            .iter()
            .map(|requirement| requirement.id.tag())
            .collect()
    } else {
        carried
            .iter()
            .filter(|known| RequirementId::of_tag(known).is_none())
            .cloned()
            .collect()
    };
    let lowered = tag.to_lowercase();
    let mut scored: Vec<(usize, String)> = candidates
        .into_iter()
        .map(|candidate| {
            let distance = strsim::damerau_levenshtein(&lowered, &candidate.to_lowercase());
            (distance, candidate)
        })
        .filter(|(distance, _)| *distance <= tag.chars().count().div_ceil(2))
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(NEAREST)
        .map(|(_, candidate)| format!("@{candidate}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expression: &str) -> Vec<UnknownTag> {
        let features = Features::embedded().expect("the features parse");
        let requirements = Requirements::embedded().expect("the requirements load");
        let parsed: TagOperation = expression.parse().expect("an expression");
        unknown_tags(&parsed, &features, &requirements)
    }

    #[test]
    fn a_misspelt_tag_beside_a_known_one_is_named_with_the_nearest_known_tag() {
        let unknown = check("@core or @refrence");
        assert_eq!(unknown.len(), 1, "{unknown:?}");
        assert_eq!(unknown[0].tag, "@refrence");
        assert_eq!(
            unknown[0].nearest.first().map(String::as_str),
            Some("@reference")
        );
        assert_eq!(
            unknown[0].to_string(),
            format!(
                "@refrence (did you mean {}?)",
                unknown[0].nearest.join(" or ")
            )
        );
    }

    #[test]
    fn a_misspelt_tag_under_not_is_named_too() {
        let unknown = check("@core and not @isuer");
        assert_eq!(unknown.len(), 1, "{unknown:?}");
        assert_eq!(unknown[0].tag, "@isuer");
        assert_eq!(
            unknown[0].nearest.first().map(String::as_str),
            Some("@issuer")
        );
    }

    #[test]
    fn a_requirement_tag_must_name_a_requirement_of_the_catalogue() {
        assert!(check("@req:CREATE-01").is_empty());
        let unknown = check("@req:CRAETE-01");
        assert_eq!(unknown.len(), 1, "{unknown:?}");
        assert_eq!(
            unknown[0].nearest.first().map(String::as_str),
            Some("@req:CREATE-01")
        );
    }

    #[test]
    fn every_tag_the_features_carry_is_known() {
        let features = Features::embedded().expect("the features parse");
        for tag in features.tags_but_requirements() {
            assert!(check(&tag).is_empty(), "{tag}");
        }
    }

    #[test]
    fn a_tag_like_nothing_known_is_named_without_a_guess() {
        let unknown = check("@zzzzzzzzzzzz");
        assert_eq!(unknown[0].to_string(), "@zzzzzzzzzzzz");
    }
}
