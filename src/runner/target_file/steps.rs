//! Explicit steps through an issuer page no heuristic can read, in the
//! spirit of the OpenID conformance suite's browser tasks: an ordered list
//! in the target file, each step optionally bound to pages by an address
//! pattern, each doing one thing: wait for a selector, type into one, or
//! click one.
//!
//! ```toml
//! [[acs.steps]]
//! page = "https://acs.bank.example/challenge/*"   # the step waits for a matching page
//! wait = "#otp"
//! [[acs.steps]]
//! type = "#otp"
//! field = "otp"          # the value of acs.fields.otp: secrets stay in [acs.fields]
//! [[acs.steps]]
//! click = "button.confirm"
//! ```
//!
//! The browser driver runs every step; the form driver runs those that need
//! no script (typing into a form's control, clicking a submit control or a
//! link, a selector present in the page as served).

use std::fmt;

use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use url::Url;

/// One step as the target file writes it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepEntry {
    page: Option<String>,
    wait: Option<String>,
    click: Option<String>,
    #[serde(rename = "type")]
    type_into: Option<String>,
    field: Option<String>,
    text: Option<String>,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepAction {
    /// Waits until an element matches the selector.
    Wait(String),
    /// Clicks the element the selector matches.
    Click(String),
    /// Types a value into the element the selector matches.
    Type {
        /// The CSS selector of the field, in the page or one of its frames.
        selector: String,
        /// What is typed.
        value: StepValue,
    },
}

/// What a `type` step types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepValue {
    /// The value of an `acs.fields` entry (or the value the scenario types
    /// into that field, such as a wrong code).
    Field(String),
    /// Literal text, not secret.
    Text(String),
}

/// A checked step.
#[derive(Clone, Debug)]
pub struct IssuerStep {
    /// The pattern of the pages it applies to, as written.
    pub page: Option<String>,
    matcher: Option<GlobMatcher>,
    /// What it does.
    pub action: StepAction,
    /// The section whose values a `type` step's `field` names, as the
    /// step is shown (`acs.fields` unless its section says otherwise).
    values_from: &'static str,
}

/// A step is written as a [`StepEntry`]: its schema is the entry's.
impl schemars::JsonSchema for IssuerStep {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        StepEntry::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        StepEntry::json_schema(generator)
    }
}

impl<'de> Deserialize<'de> for IssuerStep {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::try_from(StepEntry::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<StepEntry> for IssuerStep {
    type Error = StepError;

    fn try_from(entry: StepEntry) -> Result<Self, StepError> {
        let has_value = entry.field.is_some() || entry.text.is_some();
        let check = |css: String| match scraper::Selector::parse(&css) {
            Ok(_) => Ok(css),
            Err(e) => Err(StepError::Selector {
                reason: e.to_string(),
                css,
            }),
        };
        let action = match (entry.wait, entry.click, entry.type_into) {
            (Some(css), None, None) => StepAction::Wait(check(css)?),
            (None, Some(css), None) => StepAction::Click(check(css)?),
            (None, None, Some(css)) => StepAction::Type {
                selector: check(css)?,
                value: match (entry.field, entry.text) {
                    (Some(field), None) => StepValue::Field(field),
                    (None, Some(text)) => StepValue::Text(text),
                    _ => return Err(StepError::TypeValue),
                },
            },
            _ => return Err(StepError::Action),
        };
        if !matches!(action, StepAction::Type { .. }) && has_value {
            return Err(StepError::ValueWithoutType);
        }
        let matcher = entry
            .page
            .as_deref()
            .map(|pattern| {
                Glob::new(pattern)
                    .map(|glob| glob.compile_matcher())
                    .map_err(|e| StepError::Page {
                        pattern: pattern.to_owned(),
                        reason: e.kind().to_string(),
                    })
            })
            .transpose()?;
        Ok(Self {
            page: entry.page,
            matcher,
            action,
            values_from: "acs.fields",
        })
    }
}

/// Why an `[[acs.steps]]` entry is not a step.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// Its selector does not parse.
    #[error("{css:?} is not a CSS selector: {reason}")]
    Selector {
        /// The selector.
        css: String,
        /// What the parser said.
        reason: String,
    },
    /// A type step names neither or both of a field and a text.
    #[error("a type step takes either field (a name of acs.fields) or text")]
    TypeValue,
    /// It does none or several of its actions.
    #[error("a step does one of wait, click or type")]
    Action,
    /// A wait or click step names a value to type.
    #[error("field and text go with a type step")]
    ValueWithoutType,
    /// Its page pattern is not a glob.
    #[error("page {pattern:?}: {reason}")]
    Page {
        /// The pattern.
        pattern: String,
        /// What the glob parser said.
        reason: String,
    },
}

impl IssuerStep {
    /// Whether the step applies to the page at `url`: a step without a
    /// pattern applies to any page.
    pub fn applies_to(&self, url: &Url) -> bool {
        self.matcher
            .as_ref()
            .is_none_or(|matcher| matcher.is_match(url.as_str()))
    }

    /// The selector the step acts on.
    pub fn selector(&self) -> &str {
        match &self.action {
            StepAction::Wait(css) | StepAction::Click(css) => css,
            StepAction::Type { selector, .. } => selector,
        }
    }

    /// A step that clicks what `css` selects, on any page: what the buyer
    /// does to choose an alternative method (`payment_page.alternative.choose`).
    pub fn click(css: &str) -> Self {
        Self {
            page: None,
            matcher: None,
            action: StepAction::Click(css.to_owned()),
            values_from: "payment_page.alternative.fields",
        }
    }

    /// The step of a section whose `type` steps name entries of `fields`
    /// (`payment_page.fields`, say), as it is shown.
    #[must_use]
    pub fn typing_from(self, fields: &'static str) -> Self {
        Self {
            values_from: fields,
            ..self
        }
    }

    /// The entry of its section's fields it types, if it types one.
    pub fn field(&self) -> Option<&str> {
        match &self.action {
            StepAction::Type {
                value: StepValue::Field(name),
                ..
            } => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for IssuerStep {
    /// The step as a person reads it; typed values are never shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            StepAction::Wait(css) => write!(f, "wait for {css}")?,
            StepAction::Click(css) => write!(f, "click {css}")?,
            StepAction::Type {
                selector,
                value: StepValue::Field(name),
            } => write!(f, "type {}.{name} into {selector}", self.values_from)?,
            StepAction::Type { selector, .. } => write!(f, "type text into {selector}")?,
        }
        if let Some(page) = &self.page {
            write!(f, " on {page}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, schemars::JsonSchema)]
    struct Steps {
        steps: Vec<IssuerStep>,
    }

    fn parse(text: &str) -> Result<Vec<IssuerStep>, String> {
        toml::from_str::<Steps>(text)
            .map(|s| s.steps)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn steps_read_in_order_with_their_page_patterns() {
        let steps = parse(
            r##"
            [[steps]]
            page = "https://acs.example/challenge/*"
            wait = "#otp"
            [[steps]]
            type = "#otp"
            field = "otp"
            [[steps]]
            click = "button.confirm"
            "##,
        )
        .expect("valid steps");
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0].action, StepAction::Wait("#otp".to_owned()));
        assert_eq!(steps[1].field(), Some("otp"));
        assert_eq!(
            steps[1].to_string(),
            "type acs.fields.otp into #otp",
            "the value is never shown"
        );
        let challenge = Url::parse("https://acs.example/challenge/42?x=1").expect("url");
        let other = Url::parse("https://acs.example/begin").expect("url");
        assert!(steps[0].applies_to(&challenge));
        assert!(!steps[0].applies_to(&other));
        assert!(steps[2].applies_to(&other), "no pattern: any page");
    }

    #[test]
    fn a_step_must_do_exactly_one_thing_with_a_valid_selector() {
        let one_of = StepError::Action.to_string();
        let type_value = StepError::TypeValue.to_string();
        for (bad, said) in [
            ("[[steps]]\nwait = \"#a\"\nclick = \"#b\"", one_of.as_str()),
            ("[[steps]]\npage = \"*\"", &one_of),
            ("[[steps]]\ntype = \"#a\"", &type_value),
            (
                "[[steps]]\ntype = \"#a\"\nfield = \"otp\"\ntext = \"x\"",
                &type_value,
            ),
            (
                "[[steps]]\nclick = \"#a\"\nfield = \"otp\"",
                "field and text go with a type step",
            ),
            (
                "[[steps]]\nclick = \"button[\"",
                "\"button[\" is not a CSS selector",
            ),
            (
                "[[steps]]\nwait = \"#a\"\npage = \"a[b\"",
                "page \"a[b\": unclosed character class",
            ),
            ("[[steps]]\nhover = \"#a\"", "unknown field `hover`"),
        ] {
            let error = parse(bad).map(drop).expect_err(bad);
            assert!(error.contains(said), "{bad}: {error}");
        }
    }
}
