//! The `[robustness]` settings of a target file: how hard the opt-in
//! `@robustness` scenarios press on the target.

use serde::Deserialize;

use super::{TargetError, target_error};

/// How many requests the `@robustness` scenarios send.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RobustnessSettings {
    /// Submits of one token sent at once (ROB-01), in each volley.
    pub concurrent_submits: usize,
    /// Volleys of those submits, each on a fresh payment, until one
    /// executes the payment twice (ROB-01).
    pub volleys: usize,
    /// Complete payments run in parallel (ROB-03).
    pub parallel_flows: usize,
    /// Generated hostile bodies for create, and as many for submit (ROB-04).
    pub hostile_requests: usize,
}

impl Default for RobustnessSettings {
    fn default() -> Self {
        Self {
            concurrent_submits: 20,
            volleys: 10,
            parallel_flows: 32,
            hostile_requests: 300,
        }
    }
}

impl RobustnessSettings {
    /// Checks every setting is within its bounds.
    pub fn check(&self) -> Result<(), TargetError> {
        for (name, value, low, high) in [
            ("concurrent_submits", self.concurrent_submits, 2, 1_000),
            ("volleys", self.volleys, 1, 1_000),
            ("parallel_flows", self.parallel_flows, 2, 1_000),
            ("hostile_requests", self.hostile_requests, 1, 100_000),
        ] {
            if !(low..=high).contains(&value) {
                return Err(target_error(
                    &format!("robustness.{name}"),
                    format!("must be {low} to {high}, not {value}"),
                ));
            }
        }
        Ok(())
    }
}
