//! A failed schema check, told by where and which rule: never by the value,
//! which may be a card number.

use std::fmt;

use jsonschema::{Validator, error::ValidationErrorKind};
use serde_json::Value;

/// One rule an answer breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer of the offending value, e.g. `/payload/paymentID`; empty for the whole body.
    pub instance_path: String,
    /// JSON pointer of the field at fault: the offending value's, or for a
    /// missing required property the pointer it should have had.
    pub field: String,
    /// The rule: a JSON Schema keyword (`type`, `pattern`, `required`…) or `status`.
    pub keyword: String,
    /// What is wrong, with the value itself masked.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() {
            "/"
        } else {
            &self.instance_path
        };
        write!(f, "at {at}: {} ({})", self.message, self.keyword)
    }
}

/// Every rule an answer breaks, in the order the validator found them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violations(pub Vec<Violation>);

impl Violations {
    /// One violation.
    pub fn single(violation: Violation) -> Self {
        Self(vec![violation])
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

/// Runs a validator and collects what it finds.
pub(super) fn check(validator: &Validator, instance: &Value) -> Result<(), Violations> {
    let found: Vec<Violation> = validator
        .iter_errors(instance)
        .map(|error| {
            let instance_path = error.instance_path().to_string();
            let field = match error.kind() {
                ValidationErrorKind::Required { property } => {
                    let name = property
                        .as_str()
                        .map_or_else(|| property.to_string(), str::to_owned);
                    format!(
                        "{instance_path}/{}",
                        name.replace('~', "~0").replace('/', "~1")
                    )
                }
                _ => instance_path.clone(),
            };
            Violation {
                instance_path,
                field,
                keyword: error.kind().keyword().to_owned(),
                message: error.masked().to_string(),
            }
        })
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(Violations(found))
    }
}
