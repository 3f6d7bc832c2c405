//! What a scenario leaves behind besides its steps (its exchanges, what it
//! noted, waited for and measured, the issuer journey's evidence, the
//! hostile-input findings) and how it reaches the recorder.
//!
//! Cucumber hands the world to the `after` hook but not to the event that
//! ends a scenario, which is where the recorder makes its result. So the
//! hook gives the world's leftovers to the [`Handover`], keyed by the
//! scenario, and the recorder takes them when the scenario's last event
//! comes: one map with one reader, not a list per kind.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use super::{ExchangeRecord, HostileFinding, IssuerEvidence, ScenarioKey};

/// What one scenario leaves behind besides its steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Violations of requirements it does not check, noted in passing.
    pub observations: Vec<String>,
    /// Each time the target asked payconf to wait, and it did.
    pub waited: Vec<String>,
    /// What it measured of its own sharpness.
    pub measured: Vec<String>,
    /// Every exchange its report keeps, redacted.
    pub exchanges: Vec<ExchangeRecord>,
    /// What the issuer driver saw.
    pub issuer: Option<IssuerEvidence>,
    /// What its generated hostile bodies found.
    pub hostile: Option<HostileFinding>,
    /// With `--har`: every exchange, in order; without, none.
    pub har: Option<Vec<ExchangeRecord>>,
}

/// Where each scenario's leftovers wait for the recorder.
#[derive(Clone, Debug, Default)]
pub struct Handover(Arc<Mutex<HashMap<ScenarioKey, Leftovers>>>);

impl Handover {
    /// Leaves a scenario's leftovers for the recorder.
    pub fn hand(&self, key: ScenarioKey, leftovers: Leftovers) {
        self.lock().insert(key, leftovers);
    }

    /// Takes a scenario's leftovers; nothing when it left none.
    pub fn take(&self, key: &ScenarioKey) -> Leftovers {
        self.lock().remove(key).unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ScenarioKey, Leftovers>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
