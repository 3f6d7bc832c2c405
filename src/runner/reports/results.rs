//! The results file: the run's [`RunRecord`] serialised. Which payconf and
//! which spec (version and SHA-256), against what (the effective target,
//! redacted: the implementer's declaration), what was selected and left
//! out, the plan (every scenario, applying or not, and why), the counts,
//! and the outcome of every requirement and every scenario.

use super::RenderError;
use crate::runner::outcome::RunOutcome;

/// The report as text.
pub fn render(inputs: &RunOutcome) -> Result<String, RenderError> {
    Ok(inputs.record.to_text()?)
}
