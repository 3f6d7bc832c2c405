//! What a scenario leaves behind besides its steps (its exchanges, what it
//! noted, waited for and measured, the issuer journey's evidence, the
//! hostile-input findings) and how it reaches the recorder.
//!
//! Cucumber hands the world to the `after` hook but not to the event that
//! ends a scenario, which is where the recorder makes its result. So the
//! hook gives the world's leftovers to the [`LeftoverQueue`], keyed by the
//! scenario, and the recorder takes them when the scenario's last event
//! comes: one map with one reader, not a list per kind. A scenario run
//! again (`--retries`) leaves once a try, and the recorder, whose events
//! come late, may read a try's end after the next try has left its own:
//! so each scenario's leftovers queue, taken in the order they were left.

use std::{
    collections::{HashMap, VecDeque},
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
pub struct LeftoverQueue(Arc<Mutex<HashMap<ScenarioKey, VecDeque<Leftovers>>>>);

impl LeftoverQueue {
    /// Leaves a try's leftovers for the recorder, after its scenario's earlier tries'.
    pub fn hand(&self, key: ScenarioKey, leftovers: Leftovers) {
        self.lock().entry(key).or_default().push_back(leftovers);
    }

    /// Takes the leftovers of a scenario's earliest try not yet taken;
    /// nothing when it left none.
    pub fn take(&self, key: &ScenarioKey) -> Leftovers {
        let mut map = self.lock();
        let Some(queue) = map.get_mut(key) else {
            return Leftovers::default();
        };
        let leftovers = queue.pop_front().unwrap_or_default();
        if queue.is_empty() {
            map.remove(key);
        }
        leftovers
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ScenarioKey, VecDeque<Leftovers>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
