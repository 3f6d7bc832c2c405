//! Why a step did not pass: a failure of the target, or an error of the
//! harness that names what would let payconf judge.

use std::fmt;

/// Why a step failed, for a person: expected, actual, and the exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The whole message, secrets redacted.
    pub message: String,
    /// Whether payconf itself could not carry the step out (a page it cannot
    /// read, a browser that does not answer): the target is not judged.
    harness: bool,
}

impl Failure {
    /// A failure of the target, said in full.
    pub fn target(message: String) -> Self {
        Self {
            message,
            harness: false,
        }
    }

    /// A failure that involves no exchange.
    pub fn plain(expected: &str) -> Self {
        Self {
            message: format!("expected: {expected}"),
            harness: false,
        }
    }

    /// An error of the harness: `message` says what payconf could not do
    /// and what would let it.
    pub fn harness(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            harness: true,
        }
    }

    /// Whether this is an error of the harness rather than of the target.
    pub fn is_harness(&self) -> bool {
        self.harness
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}
