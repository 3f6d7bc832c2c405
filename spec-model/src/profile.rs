//! The one word for which rules apply: the contract's (`core`), the
//! reference profile's choices where the contract is silent (`reference`),
//! or what a payment service must survive (`robustness`). Requirements,
//! scenario tags, schema views and reports all say it with [`Profile`].

use serde::{Deserialize, Serialize};

/// Whose rule a requirement, a scenario or a check is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Stated by the contract: every conforming server must pass.
    Core,
    /// Chosen by the reference profile where the contract is silent:
    /// statuses, error bodies, limits, extra fields.
    Reference,
    /// What a payment service must survive (retries arriving together,
    /// hostile input), each resting on a stated reading of the contract;
    /// opt-in.
    Robustness,
}

impl Profile {
    /// Every profile, in the order they are shown.
    pub const ALL: [Self; 3] = [Self::Core, Self::Reference, Self::Robustness];

    /// Its name, as tags (without `@`), reports and the catalogue write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::Reference => "reference",
            Self::Robustness => "robustness",
        }
    }

    /// Its tag as a tag expression writes it: `@core`.
    pub fn tag(self) -> &'static str {
        match self {
            Self::Core => "@core",
            Self::Reference => "@reference",
            Self::Robustness => "@robustness",
        }
    }

    /// The prefix of its requirements' ids (none for core).
    pub fn id_prefix(self) -> &'static str {
        match self {
            Self::Core => "",
            Self::Reference => "REF-",
            Self::Robustness => "ROB-",
        }
    }

    /// Whether answers are held to the reference profile's choices too.
    /// Robustness holds them to what the contract states, as core does.
    pub fn holds_reference_choices(self) -> bool {
        self == Self::Reference
    }

    /// Whether a server that conforms to the contract must pass it:
    /// core, and robustness when asked for; not the reference profile.
    pub fn binds_every_server(self) -> bool {
        self != Self::Reference
    }

    /// The profile of this name: a schema's `x-conformance` marking, or a
    /// scenario's tag without its `@`.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The profile of a scenario, from its tags (without `@`): exactly one
    /// profile tag, or none.
    pub fn of_tags<T: AsRef<str>>(tags: &[T]) -> Option<Self> {
        // Distinct profiles: a tag written twice is still one profile.
        let mut found = Self::ALL
            .into_iter()
            .filter(|p| tags.iter().any(|t| t.as_ref() == p.name()));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_has_one_profile_tag_or_none() {
        assert_eq!(
            Profile::of_tags(&["req:CREATE-01", "core"]),
            Some(Profile::Core)
        );
        assert_eq!(Profile::of_tags(&["core", "reference"]), None);
        assert_eq!(
            Profile::of_tags(&["core", "issuer", "core"]),
            Some(Profile::Core)
        );
        assert_eq!(Profile::of_tags::<&str>(&[]), None);
    }

    #[test]
    fn only_the_reference_profile_holds_answers_to_its_choices() {
        let holding: Vec<_> = Profile::ALL
            .into_iter()
            .filter(|p| p.holds_reference_choices())
            .collect();
        assert_eq!(holding, [Profile::Reference]);
    }

    #[test]
    fn names_tags_and_markings_agree() {
        for profile in Profile::ALL {
            assert_eq!(profile.tag(), format!("@{profile}"));
            assert_eq!(Profile::named(profile.name()), Some(profile));
        }
    }
}
