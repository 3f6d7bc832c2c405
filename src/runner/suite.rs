//! The suite a run loads: the spec, the requirements, the features and the
//! defect catalogue, embedded or from files, checked against each other.

use std::sync::Arc;

use cucumber::gherkin;
use futures_util::stream;

use super::{not_run::NotRun, options::RunOptions};
use payconf_spec::{
    Profile, contract::Contract, defects::Defects, features::Features, requirements::Requirements,
};

/// The suite's inputs, loaded and checked against each other.
#[derive(Debug)]
pub struct Suite {
    /// The spec every answer is judged by, shared with each scenario's world.
    pub contract: Arc<Contract>,
    /// The requirements catalogue.
    pub requirements: Requirements,
    /// The scenarios to run, parsed once and handed to cucumber as they are.
    pub features: Features,
    /// The defect catalogue: what proves the core scenarios can fail.
    pub defects: Defects,
}

impl Suite {
    /// Loads the embedded suite, or the files the options name.
    pub fn load(options: &RunOptions) -> Result<Self, NotRun> {
        let contract = match &options.scope.spec {
            Some(path) => Contract::load(path),
            None => Contract::embedded(),
        }
        .map(Arc::new)?;
        let requirements = Requirements::embedded()?;
        let defects = Defects::embedded(&requirements)?;
        let features = match &options.scope.features_dir {
            Some(dir) => Features::load_dir(dir),
            None => Features::embedded(),
        }?;
        let suite = Self {
            contract,
            requirements,
            features,
            defects,
        };
        suite.check_tags()?;
        Ok(suite)
    }

    /// Every scenario names known requirements and one profile.
    fn check_tags(&self) -> Result<(), NotRun> {
        for scenario in self.features.scenarios() {
            for id in scenario.requirements() {
                if self.requirements.get(&id).is_none() {
                    return Err(NotRun::UnknownRequirement {
                        location: scenario.location(),
                        id,
                    });
                }
            }
            if Profile::of_tags(&scenario.tags).is_none() {
                return Err(NotRun::Profile(scenario.location()));
            }
        }
        Ok(())
    }
}

/// A cucumber parser that hands over features parsed beforehand.
#[derive(Debug)]
pub struct Preparsed(pub Features);

impl cucumber::Parser<()> for Preparsed {
    type Cli = cucumber::cli::Empty;
    type Output = stream::Iter<std::vec::IntoIter<cucumber::parser::Result<gherkin::Feature>>>;

    fn parse(self, (): (), _: Self::Cli) -> Self::Output {
        stream::iter(
            self.0
                .into_features()
                .into_iter()
                .map(Ok)
                .collect::<Vec<_>>(),
        )
    }
}
