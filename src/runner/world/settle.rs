//! How a step's failure is said and kept: with what was expected, what
//! came, and the exchange it rests on; redacted and settled in the world
//! at the step's end, for the recorder.

use super::{Failure, PaymentWorld};
use crate::runner::{
    exchange::{Exchange, target_failure},
    result::recorder::Settles,
};

impl PaymentWorld {
    /// A failure with what was expected, what was seen, and the last exchange.
    pub fn failure(&self, expected: &str, actual: &str) -> Failure {
        self.failure_on(expected, actual, self.trail.last())
    }

    /// A failure of the target shown with `exchange` (the page where the
    /// buyer stopped, say), or with none.
    pub fn failure_on(&self, expected: &str, actual: &str, exchange: Option<&Exchange>) -> Failure {
        target_failure(&self.ctx.redactor, expected, actual, exchange)
    }

    /// Runs a step's checks on the world and settles their result: how
    /// every step ends, `world.check(|world| { … })`.
    pub fn check(
        &mut self,
        checks: impl FnOnce(&mut Self) -> Result<(), Failure>,
    ) -> Result<(), Settled> {
        let result = checks(self);
        self.settle(result)
    }

    /// [`Self::check`], for checks that await.
    pub async fn check_async(
        &mut self,
        checks: impl AsyncFnOnce(&mut Self) -> Result<(), Failure>,
    ) -> Result<(), Settled> {
        let result = checks(self).await;
        self.settle(result)
    }

    /// A step's end: a failure is redacted (an error's words name pages,
    /// whose addresses carry tokens) and kept in the world, where the
    /// recorder reads it whole, with whose fault it is and the
    /// requirements it blames.
    pub fn settle(&mut self, result: Result<(), Failure>) -> Result<(), Settled> {
        result.map_err(|failure| {
            let redactor = &self.ctx.redactor;
            let failure = failure.redacted(|text| redactor.text(text));
            let said = Settled(failure.to_string());
            self.failed = Some(failure);
            said
        })
    }
}

impl Settles for PaymentWorld {
    fn settled(&self) -> Option<&Failure> {
        self.failed.as_ref()
    }
}

/// A step's failure once [`PaymentWorld::settle`] has kept it: only its
/// words travel through cucumber; the world holds the failure itself. A
/// step returns it, so a step that does not settle does not compile.
#[derive(Debug)]
pub struct Settled(String);

impl std::fmt::Display for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
