//! How an answer from the API is received and judged: checked against the
//! spec as it arrives, a violation failing the step when the scenario
//! checks the requirement it breaks, and noted otherwise.

use serde_json::Value;

use super::{Failure, PaymentWorld};
use crate::runner::exchange::RecordedRequest;
use payconf_spec::{
    Profile,
    requirements::{RequirementId, ids},
};

/// Which operation an answer answers, as the spec names it.
pub type OperationId = &'static str;

/// An answer from the API.
#[derive(Clone, Debug)]
pub struct Answer {
    /// Index of its exchange in the scenario's trail ([`PaymentWorld::exchange_at`]).
    pub exchange: usize,
    /// HTTP status.
    pub status: u16,
    /// The body, when it is JSON.
    pub json: Option<Value>,
}

impl Answer {
    /// The value at a JSON pointer of the body.
    pub fn at(&self, pointer: &str) -> Option<&Value> {
        self.json.as_ref().and_then(|j| j.pointer(pointer))
    }

    /// The string at a JSON pointer of the body.
    pub fn str_at(&self, pointer: &str) -> Option<&str> {
        self.at(pointer).and_then(Value::as_str)
    }
}

impl PaymentWorld {
    /// Sends an API request and checks its answer against the spec.
    pub async fn receive(
        &mut self,
        operation: OperationId,
        request: RecordedRequest,
    ) -> Result<&Answer, Failure> {
        // A merchant's server asks for JSON; the contract answers nothing else.
        let asks = request
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("accept"));
        let request = if asks {
            request
        } else {
            request.header("Accept", "application/json")
        };
        let index = match self.exchange(request).await {
            Ok(index) => index,
            Err(failure) => {
                // An API answer that never comes whole (a hang, a flood, a
                // reset) is no JSON answer.
                return Err(failure.blaming(vec![ids::JSON_ANSWERS]));
            }
        };
        let response = self.trail.exchanges[index]
            .response
            .as_ref()
            .expect("exchange() returned Ok only for a response");
        let status = response.status;
        let media_type = response.header("content-type").unwrap_or("").to_owned();
        let json = crate::runner::json::parse_ok(&response.body);
        self.answer = Some(Answer {
            exchange: index,
            status,
            json: json.clone(),
        });

        let mut findings = Vec::new();
        if !is_json_media_type(&media_type) {
            findings.push(Finding::envelope_json(format!(
                "a JSON media type (application/json, text/json or +json), got {:?}",
                if media_type.is_empty() {
                    "none"
                } else {
                    media_type.as_str()
                }
            )));
        }
        match &json {
            None => findings.push(Finding::envelope_json(
                "a body that parses as JSON".to_owned(),
            )),
            Some(body) => findings.extend(self.schema_findings(operation, status, body)),
        }
        self.judge(findings)?;
        Ok(self.answer.as_ref().expect("set above"))
    }

    fn schema_findings(&self, operation: OperationId, status: u16, body: &Value) -> Vec<Finding> {
        let contract = &self.ctx.contract;
        let mut findings = Vec::new();
        if let Err(violations) = contract.check_response(operation, status, body, Profile::Core) {
            for violation in violations.0 {
                // A body that is not even an object has no envelope.
                let field = if violation.field.is_empty() {
                    "/error"
                } else {
                    &violation.field
                };
                let requirements = self
                    .ctx
                    .requirements
                    .governing(operation, field)
                    .into_iter()
                    .cloned()
                    .collect();
                findings.push(Finding {
                    requirements,
                    expected: format!(
                        "an answer that follows the contract's schema for {operation}"
                    ),
                    actual: violation.to_string(),
                });
            }
        }
        if self.held.reference_answers {
            if let Err(violations) =
                contract.check_response(operation, status, body, Profile::Reference)
            {
                findings.push(Finding {
                    requirements: vec![ids::REFERENCE_STATUSES_AND_ERRORS],
                    expected: format!("the reference profile's answer for {operation} {status}"),
                    actual: violations.to_string(),
                });
            }
        }
        findings
    }

    /// Fails on the first finding this scenario is accountable for; notes the others.
    fn judge(&mut self, findings: Vec<Finding>) -> Result<(), Failure> {
        let mut failing = None;
        for finding in findings {
            let checked = self.held.reference_answers
                || finding.requirements.is_empty()
                || finding
                    .requirements
                    .iter()
                    .any(|r| self.held.checks.contains(r));
            if checked && failing.is_none() {
                failing = Some(finding);
            } else if !checked {
                self.leftovers.observations.push(format!(
                    "{} ({})",
                    self.ctx.redactor.text(&finding.actual),
                    finding.requirements.join(", ")
                ));
            }
        }
        match failing {
            Some(finding) => {
                let requirements = if finding.requirements.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", finding.requirements.join(", "))
                };
                let failure = self.failure(
                    &format!("{}{requirements}", finding.expected),
                    &finding.actual,
                );
                Err(failure.blaming(finding.requirements))
            }
            None => Ok(()),
        }
    }
}

/// A problem found in an answer, and the requirements it breaks.
struct Finding {
    requirements: Vec<RequirementId>,
    expected: String,
    actual: String,
}

impl Finding {
    fn envelope_json(expected: String) -> Self {
        Self {
            requirements: vec![ids::JSON_ANSWERS],
            actual: "an answer that is not JSON".to_owned(),
            expected,
        }
    }
}

/// `application/json`, `text/json`, or any `+json` type, with any parameters.
pub fn is_json_media_type(value: &str) -> bool {
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || essence == "text/json"
        || (essence.contains('/') && essence.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types_are_recognised_with_parameters() {
        for media in [
            "application/json",
            "text/json; charset=utf-8",
            "application/problem+json",
            "Application/JSON",
        ] {
            assert!(is_json_media_type(media), "{media}");
        }
        for media in ["text/html", "", "application/jsonp", "json"] {
            assert!(!is_json_media_type(media), "{media}");
        }
    }
}
