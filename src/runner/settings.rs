//! The run's settings checked before anything is judged: a mistake in the
//! target file must not read as the target's failure.
//!
//! - Scenarios that authenticate the buyer at the issuer need to know what
//!   the buyer types there (`acs.fields` or `[[acs.steps]]`); without it
//!   payconf would post an empty code and blame the target.
//! - The configured API key and shop must be accepted: one create is sent
//!   before the first scenario, and an answer that refuses it as
//!   unauthenticated stops the run, quoting the answer, instead of failing
//!   every scenario that creates a payment.
//!
//! Both stop the run with exit 2 and name the setting that resolves it.

use payconf_spec::features::ScenarioEntry;
use reqwest::Client;
use serde_json::Value;

use crate::runner::{
    exchange::{Exchange, Limits},
    merchant,
    needs::ISSUER_TAG,
    target_file::{AcsDriver, TargetConfig},
};

/// Stops the run when a selected scenario authenticates the buyer at the
/// issuer and the target file does not say what the buyer types there.
pub fn check_issuer(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
) -> Result<(), SettingsError> {
    if target.acs.driver == AcsDriver::None || target.acs.says_what_to_type() {
        return Ok(());
    }
    let Some(scenario) = selected.iter().find(|s| s.has_tag(ISSUER_TAG)) else {
        return Ok(());
    };
    Err(SettingsError::IssuerFields(scenario.name.clone()))
}

/// The target file cannot carry the selected scenarios.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A selected scenario authenticates the buyer and nothing says what
    /// they type: the scenario named.
    #[error(
        "the selected scenarios take the buyer through the issuer's authentication page \
         ({0} is one), and the target file does not say what the buyer types there.\nfix: \
         name the page's fields and the values your test environment accepts in [acs] \
         fields (for instance fields = {{ otp = \"123456\" }}), or describe the page with \
         [[acs.steps]]; to leave those scenarios out, set acs.driver = \"none\""
    )]
    IssuerFields(String),
    /// The target refused the configured credentials: why, and the
    /// exchange, redacted.
    #[error(
        "the target refused the configured credentials: {why}.\nfix: check api_key \
         (--api-key, PAYCONF_API_KEY) and shop_login (--shop-login) in the target \
         file: the key must be one the target accepts for that shop\n{exchange}"
    )]
    Credentials {
        /// Why the answer reads as a refusal.
        why: String,
        /// The exchange as shown, redacted.
        exchange: String,
    },
}

/// Sends one create with the configured key and shop; stops the run when
/// the target refuses it as unauthenticated.
pub async fn check_credentials(
    client: &Client,
    target: &TargetConfig,
    limits: Limits,
) -> Result<(), SettingsError> {
    let request = merchant::create_request(target, merchant::create_body(target).to_string());
    let exchange = request.send(client, limits).await;
    match refusal(&exchange) {
        None => Ok(()),
        Some(why) => {
            let redactor = target.redactor();
            Err(SettingsError::Credentials {
                why,
                exchange: exchange.display(&redactor).to_string(),
            })
        }
    }
}

/// Why an answer to a create with the configured credentials reads as a
/// refusal of those credentials, if it does: HTTP 401 or 403, or an
/// envelope that refuses it in words of authentication.
fn refusal(exchange: &Exchange) -> Option<String> {
    let response = exchange.response.as_ref().ok()?;
    if matches!(response.status, 401 | 403) {
        return Some(format!(
            "it answered a create with HTTP {}",
            response.status
        ));
    }
    let json: Value = crate::runner::json::parse_ok(&response.body)?;
    let code = json.pointer("/error/code").and_then(Value::as_str)?;
    let description = json
        .pointer("/error/description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let words: Vec<&str> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    // Whole words, or their beginnings: "shop" is not "shopTransactionID".
    let whole = [
        "key",
        "apikey",
        "shop",
        "shoplogin",
        "merchant",
        "credentials",
    ];
    let starts = [
        "authenticat",
        "authoriz",
        "authoris",
        "credential",
        "unauthori",
    ];
    let about_credentials = words
        .iter()
        .any(|word| whole.contains(word) || starts.iter().any(|start| word.starts_with(start)));
    (code != "0" && about_credentials).then(|| {
        format!(
            "it answered a create with error.code \"{}\"",
            crate::runner::neutral::inline(code)
        )
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use reqwest::Method;

    use crate::runner::exchange::{RecordedRequest, RecordedResponse, Timing};

    fn answered(status: u16, body: &str) -> Exchange {
        Exchange {
            id: 1,
            request: RecordedRequest::new(
                Method::POST,
                url::Url::parse("http://127.0.0.1/api").expect("url"),
            ),
            response: Ok(RecordedResponse {
                status,
                version: "HTTP/1.1",
                headers: Vec::new(),
                body: body.as_bytes().to_vec(),
            }),
            timing: Timing {
                started: SystemTime::now(),
                wait: Duration::ZERO,
                receive: Duration::ZERO,
            },
            transport_fault: None,
        }
    }

    #[test]
    fn a_refusal_of_the_credentials_is_told_from_other_answers() {
        let refused = r#"{"error":{"code":"1166","description":"invalid API key"}}"#;
        assert!(refusal(&answered(403, refused)).is_some());
        assert!(refusal(&answered(401, "")).is_some());
        assert!(refusal(&answered(200, refused)).is_some());
        let shop = r#"{"error":{"code":"E7","description":"Shop not recognized"}}"#;
        assert!(refusal(&answered(400, shop)).is_some());
        let fine = r#"{"error":{"code":"0","description":"ok"},"payload":{}}"#;
        assert!(refusal(&answered(200, fine)).is_none());
        let other = r#"{"error":{"code":"1105","description":"invalid amount"}}"#;
        assert!(refusal(&answered(400, other)).is_none());
        let reference = r#"{"error":{"code":"4801","description":"invalid shopTransactionID"}}"#;
        assert!(refusal(&answered(400, reference)).is_none());
        let login = r#"{"error":{"code":"E1","description":"unknown shopLogin"}}"#;
        assert!(refusal(&answered(400, login)).is_some());
        assert!(refusal(&answered(500, "oops")).is_none());
    }
}
