//! Which scenario a result is: its feature file and line.

use std::fmt;

/// A scenario, named by its feature file and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScenarioKey {
    /// The feature file's name.
    pub file: String,
    /// The scenario's line.
    pub line: usize,
}

impl ScenarioKey {
    /// The scenario at `line` of `file`.
    pub fn new(file: impl Into<String>, line: usize) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }
}

impl fmt::Display for ScenarioKey {
    /// `file:line`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
