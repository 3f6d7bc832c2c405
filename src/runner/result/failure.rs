//! Why a step did not pass, as data: whose fault (the target's, or the
//! harness's), what was expected, what came instead, the exchange it rests
//! on and the requirements at fault. Its words are made once, by
//! [`fmt::Display`]; the console and every report read the parts they need.

use std::fmt;

use payconf_spec::requirements::RequirementId;

/// Whose fault a failure is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Fault {
    /// The target did not do what the scenario checks: a FAIL.
    Target,
    /// payconf could not carry the step out (a page it cannot read, a
    /// browser that does not answer, a limit past its patience): the target
    /// is not judged, and the scenario is an ERROR.
    Harness,
    /// The target offers nothing the scenario's road needs and nothing
    /// says it must (an issuer page with no control that cancels): the
    /// scenario is not judged, and is set aside with the reason, as one
    /// whose needs the target file does not meet. Never passed by another
    /// road.
    #[serde(rename = "not-applicable")]
    NotApplicable,
}

impl Fault {
    /// `target` or `harness`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Target => "target",
            Self::Harness => "harness",
            Self::NotApplicable => "not-applicable",
        }
    }
}

/// Why a step failed: its [`FailureParts`], boxed, as a step's error is
/// passed along far more often than it is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure(Box<FailureParts>);

/// What a [`Failure`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureParts {
    /// Whose fault it is.
    pub fault: Fault,
    /// What the step expected of the target; for an error of the harness,
    /// what payconf could not do and what would let it.
    pub expected: String,
    /// What came instead, redacted; none when the step found nothing to
    /// judge, or for an error of the harness.
    pub actual: Option<String>,
    /// The exchange it rests on, as shown (redacted).
    pub exchange: Option<String>,
    /// The requirements the check that failed names; empty when it is the
    /// scenario's as a whole.
    pub requirements: Vec<RequirementId>,
    /// What is said after it: a waiver that no longer covers it.
    pub notes: Vec<String>,
}

impl Failure {
    /// A failure of the target: `expected`, then what came instead.
    pub fn target(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        let mut failure = Self::plain(expected);
        failure.actual = Some(actual.into());
        failure
    }

    /// A failure that involves no answer: what the step needed and did not find.
    pub fn plain(expected: impl Into<String>) -> Self {
        Self(Box::new(FailureParts {
            fault: Fault::Target,
            expected: expected.into(),
            actual: None,
            exchange: None,
            requirements: Vec::new(),
            notes: Vec::new(),
        }))
    }

    /// An error of the harness: `message` says what payconf could not do
    /// and what would let it.
    pub fn harness(message: impl Into<String>) -> Self {
        let mut failure = Self::plain(message);
        failure.fault = Fault::Harness;
        failure
    }

    /// The same, resting on this exchange (as shown, redacted).
    pub fn on(mut self, exchange: impl fmt::Display) -> Self {
        self.exchange = Some(exchange.to_string());
        self
    }

    /// The same, blaming these requirements.
    pub fn blaming(mut self, requirements: Vec<RequirementId>) -> Self {
        self.requirements = requirements;
        self
    }

    /// The scenario's road is not there on the target's pages, and nothing
    /// says it must be: `reason` names what payconf looked for. The
    /// scenario is set aside, not judged.
    pub fn not_applicable(reason: impl Into<String>) -> Self {
        let mut failure = Self::plain(reason);
        failure.fault = Fault::NotApplicable;
        failure
    }

    /// Whether the scenario's road is not there ([`Self::not_applicable`]).
    pub fn is_not_applicable(&self) -> bool {
        self.fault == Fault::NotApplicable
    }

    /// Whether this is an error of the harness rather than of the target.
    pub fn is_harness(&self) -> bool {
        self.fault == Fault::Harness
    }

    /// Expected and actual on one line (`expected: …; actual: …`), or an
    /// error's first line: what a CI system shows as the failure's title.
    pub fn headline(&self) -> String {
        let first = |text: &str| text.lines().next().unwrap_or("").to_owned();
        match (self.fault, &self.actual) {
            (Fault::Harness | Fault::NotApplicable, _) => first(&self.expected),
            (Fault::Target, None) => format!("expected: {}", first(&self.expected)),
            (Fault::Target, Some(actual)) => format!(
                "expected: {}; actual:   {}",
                first(&self.expected),
                first(actual)
            ),
        }
    }

    /// Every text it holds, passed through `redact`: an error's words name
    /// pages, whose addresses carry tokens.
    pub fn redacted(mut self, redact: impl Fn(&str) -> String) -> Self {
        self.expected = redact(&self.expected);
        self.actual = self.actual.as_deref().map(&redact);
        self.exchange = self.exchange.as_deref().map(&redact);
        self
    }
}

impl std::ops::Deref for Failure {
    type Target = FailureParts;

    fn deref(&self) -> &FailureParts {
        &self.0
    }
}

impl std::ops::DerefMut for Failure {
    fn deref_mut(&mut self) -> &mut FailureParts {
        &mut self.0
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fault {
            Fault::Target => write!(f, "expected: {}", self.expected)?,
            Fault::Harness | Fault::NotApplicable => f.write_str(&self.expected)?,
        }
        if let Some(actual) = &self.actual {
            write!(f, "\nactual:   {actual}")?;
        }
        if let Some(exchange) = &self.exchange {
            write!(f, "\n{exchange}")?;
        }
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_of_the_target_says_expected_actual_and_the_exchange() {
        let failure = Failure::target("status 200", "404\nand more").on("POST /x\n<- 404");
        assert_eq!(
            failure.to_string(),
            "expected: status 200\nactual:   404\nand more\nPOST /x\n<- 404"
        );
        assert_eq!(failure.headline(), "expected: status 200; actual:   404");
    }

    #[test]
    fn an_error_of_the_harness_is_said_as_it_is() {
        let failure = Failure::harness("payconf could not read the page\nat /acs");
        assert!(failure.is_harness());
        assert_eq!(
            failure.to_string(),
            "payconf could not read the page\nat /acs"
        );
        assert_eq!(failure.headline(), "payconf could not read the page");
    }

    #[test]
    fn redaction_reaches_every_part() {
        let failure = Failure::target("key k-1", "k-1").on("Authorization: k-1");
        let shown = failure
            .redacted(|text| text.replace("k-1", "***"))
            .to_string();
        assert!(!shown.contains("k-1"), "{shown}");
    }
}
