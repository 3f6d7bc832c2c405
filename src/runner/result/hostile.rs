//! What the generated hostile bodies of a `@robustness` scenario found: how
//! many failed of how many sent, the seed that sends them again, and the
//! first failing body shrunk to the smallest that still fails.

/// The findings of one scenario's generated hostile bodies.
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct HostileFinding {
    /// `create` or `submit`.
    pub operation: String,
    /// The seed that generates the same bodies again (`--seed`).
    pub seed: u64,
    /// How many bodies were sent.
    pub sent: usize,
    /// How many of their answers failed.
    pub failed: usize,
    /// The first failing body's index among those generated.
    pub first: usize,
    /// The requests shrinking it took.
    pub shrink_requests: usize,
    /// The shrunk body's size, in bytes.
    pub body_bytes: usize,
    /// What the shrunk body is (`amount nested 64 deep in arrays`).
    pub body: String,
    /// How deep a nested value of the shrunk body is, when it is one.
    pub nesting: Option<usize>,
    /// What is wrong with its answer.
    pub problem: String,
    /// A `curl` command that sends it again, when it was shrunk.
    pub replay: Option<String>,
}
