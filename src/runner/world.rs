//! The state of one scenario, and how an answer from the target is received
//! and judged.
//!
//! Every scenario gets a fresh [`PaymentWorld`] holding the run's shared
//! [`RunContext`] (target, HTTP client, spec, requirements, redactor), the
//! profile it is held to (`@core` or `@reference`), the requirements it
//! checks, and what it has seen so far. [`PaymentWorld::receive`] sends a
//! request and checks the answer against the spec. A violation fails the
//! step when the scenario checks the requirement the violated field belongs
//! to; otherwise it is noted as an observation, so that one broken field
//! fails exactly the scenarios that check it and no others.

use std::sync::Arc;

use serde_json::Value;
use url::Url;

use crate::runner::{
    exchange::{Exchange, Floor, Limits, Pace, RecordedRequest, Sent, Unreported, send_patiently},
    issuer::chromium::Reservation,
    redact::Redactor,
    result::{HostileFinding, IssuerEvidence, Leftovers, recorder::Settles},
    target_file::TargetConfig,
};
use payconf_spec::{
    Profile,
    contract::Contract,
    requirements::{Requirements, ids},
};

/// What every scenario of a run shares.
#[derive(Debug)]
pub struct RunContext {
    /// The server under test, resolved and checked before the first scenario.
    pub target: TargetConfig,
    /// HTTP client: no redirects followed, proxies chosen by the target's
    /// `proxy` setting and the environment (`transport::proxy`).
    pub client: reqwest::Client,
    /// Time and size bounds of every exchange.
    pub limits: Limits,
    /// The spec every answer is checked against as it arrives.
    pub contract: Arc<Contract>,
    /// The requirements catalogue.
    pub requirements: Requirements,
    /// Keeps secrets out of everything shown.
    pub redactor: Redactor,
    /// The issuer driver, with the browser the browser driver started for the run.
    pub driver: crate::runner::issuer::Driver,
    /// The seed of the hostile inputs `@robustness` generates.
    pub seed: u64,
    /// Whether every exchange is kept for a HAR file (`--har`), those the
    /// scenario's report leaves out included.
    pub har: bool,
    /// `--rate`: how fast requests may go out.
    pub pace: Arc<Pace>,
    /// Shared by every exchange in flight; a volley has it alone.
    pub floor: Floor,
}

impl RunContext {
    /// Sends a request as the run's patient client: in its turn of
    /// `--rate`, waiting out answers that ask to come back later.
    pub async fn send(&self, request: RecordedRequest) -> Sent {
        send_patiently(request, &self.client, self.limits, &self.pace, &self.floor).await
    }
}

pub use crate::runner::result::Failure;

tokio::task_local! {
    static CONTEXT: Arc<RunContext>;
}

/// Runs `future` (the cucumber run) with `context` visible to every scenario.
pub async fn with_context<F: std::future::Future>(
    context: Arc<RunContext>,
    future: F,
) -> F::Output {
    CONTEXT.scope(context, future).await
}

/// A payment the merchant created in this scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedPayment {
    /// Its token, which submit carries and the issuer's page names.
    pub token: String,
    /// Its `paymentID`, when the answer had one.
    pub payment_id: Option<String>,
}

/// Which operation an answer answers, as the spec names it.
pub type OperationId = &'static str;

/// An answer from the API.
#[derive(Clone, Debug)]
pub struct Answer {
    /// Index of its exchange in [`PaymentWorld::exchanges`].
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

/// The state of one scenario.
#[derive(Debug, cucumber::World)]
#[world(init = Self::new)]
pub struct PaymentWorld {
    /// What every scenario of the run shares: target, client, spec, redactor.
    pub ctx: Arc<RunContext>,
    /// The profile this scenario is held to.
    pub profile: Profile,
    /// The requirements this scenario checks (its `@req:` tags).
    pub checks: Vec<String>,
    /// Payments created so far, oldest first.
    pub payments: Vec<CreatedPayment>,
    /// The token the last submit used.
    pub submitted_token: Option<String>,
    /// The body of the last submit, for sending it again.
    pub last_submit_body: Option<Value>,
    /// The last API answer, which the `Then` steps judge.
    pub answer: Option<Answer>,
    /// The volleys of submits of one token (`@robustness`).
    pub volley: Option<crate::runner::steps::robustness::SubmitVolleys>,
    /// Whole payments run in parallel: (token, create's ID, submit's ID).
    pub flows: Vec<(String, String, String)>,
    /// Generated hostile bodies sent, and their findings.
    pub hostile: Option<crate::runner::steps::robustness::HostileRun>,
    /// Where the buyer's browser ended up after the issuer page.
    pub landing: Option<Url>,
    /// Every exchange of the scenario, in order.
    pub exchanges: Vec<Exchange>,
    /// With `--har`: exchanges sent or seen outside [`Self::exchanges`].
    pub unreported: Unreported,
    /// Violations of requirements this scenario does not check.
    pub observations: Vec<String>,
    /// Each time the target asked payconf to wait and it did, said.
    pub waited: Vec<String>,
    /// What the scenario measured of its own sharpness (the volleys sent
    /// and their spread), said whatever its outcome.
    pub measured: Vec<String>,
    /// The failure a step ended with, as [`Self::settle`] kept it for the
    /// recorder: cucumber hands a step's error on only as text.
    pub failed: Option<Failure>,
    /// What the issuer driver saw: pages visited, a screenshot.
    pub issuer_evidence: Option<IssuerEvidence>,
    /// What the generated hostile bodies found, once judged.
    pub hostile_finding: Option<HostileFinding>,
    /// The browser, held for this scenario from its start when it goes
    /// through the issuer page with the browser driver.
    pub browser_reservation: Option<Reservation>,
}

impl PaymentWorld {
    fn new() -> Self {
        let ctx = CONTEXT.with(Arc::clone);
        Self {
            unreported: Unreported::new(ctx.har),
            ctx,
            profile: Profile::Core,
            checks: Vec::new(),
            payments: Vec::new(),
            submitted_token: None,
            last_submit_body: None,
            volley: None,
            flows: Vec::new(),
            hostile: None,
            answer: None,
            landing: None,
            exchanges: Vec::new(),
            observations: Vec::new(),
            waited: Vec::new(),
            measured: Vec::new(),
            failed: None,
            issuer_evidence: None,
            hostile_finding: None,
            browser_reservation: None,
        }
    }

    /// Sets the profile and requirements from the scenario's tags, and
    /// waits for the browser when the scenario will need it.
    pub async fn configure(&mut self, tags: &[String]) {
        if crate::runner::drives_buyer(tags) {
            if let Some(browser) = self.ctx.driver.browser() {
                self.browser_reservation = Some(browser.reserve().await);
            }
        }
        self.profile = Profile::of_tags(tags).unwrap_or(Profile::Core);
        self.checks = payconf_spec::features::requirement_ids(tags)
            .map(str::to_owned)
            .collect();
    }

    /// What the scenario leaves for its result, once it is over; the
    /// browser is free for the next scenario.
    pub fn leave(&mut self) -> Leftovers {
        self.browser_reservation = None;
        let redactor = &self.ctx.redactor;
        let exchanges = self.exchanges.iter().map(|e| e.record(redactor)).collect();
        let har = self
            .ctx
            .har
            .then(|| self.unreported.all(redactor, &self.exchanges));
        Leftovers {
            observations: std::mem::take(&mut self.observations),
            waited: std::mem::take(&mut self.waited),
            measured: std::mem::take(&mut self.measured),
            exchanges,
            issuer: self.issuer_evidence.take(),
            hostile: self.hostile_finding.take(),
            har,
        }
    }

    /// The target.
    pub fn target(&self) -> &TargetConfig {
        &self.ctx.target
    }

    /// The last API answer, or a failure saying there is none.
    pub fn answer(&self) -> Result<&Answer, Failure> {
        self.answer
            .as_ref()
            .ok_or_else(|| Failure::plain("a step to have received an answer first"))
    }

    /// The most recently created payment.
    pub fn payment(&self) -> Result<&CreatedPayment, Failure> {
        self.payments
            .last()
            .ok_or_else(|| Failure::plain("a payment created earlier in the scenario"))
    }

    /// Notes each time the target asked payconf to wait, and keeps the
    /// answers that asked for the HAR file.
    pub fn note_waits(&mut self, sent: &Sent) {
        let redactor = &self.ctx.redactor;
        self.waited.extend(sent.notes(|url| redactor.text(url)));
        self.also_sent(sent.waits.iter().map(|(exchange, _)| exchange));
    }

    /// Keeps, for the HAR file, exchanges the scenario sent but does not keep.
    pub fn also_sent<'a>(&self, exchanges: impl IntoIterator<Item = &'a Exchange>) {
        self.unreported.sent(&self.ctx.redactor, exchanges);
    }

    /// Sends a request and records the exchange; fails when nothing usable
    /// came back. Answers that ask payconf to come back later are waited
    /// out ([`send_patiently`]) and noted; past payconf's patience a rate
    /// limit is an error of the harness that names `--rate`.
    pub async fn exchange(&mut self, request: RecordedRequest) -> Result<usize, Failure> {
        let sent = self.ctx.send(request).await;
        self.note_waits(&sent);
        let limited = sent.still_limited();
        self.exchanges.push(sent.exchange);
        let index = self.exchanges.len() - 1;
        if let Some(why) = limited {
            let shown = self.exchanges[index].display(&self.ctx.redactor);
            return Err(Failure::harness(why).on(shown));
        }
        let exchange = &self.exchanges[index];
        if let Err(reason) = &exchange.response {
            let reason = reason.clone();
            if let Some(fault) = &exchange.transport_fault {
                let host = exchange.request.url.host_str().unwrap_or_default();
                return Err(Failure::harness(format!(
                    "payconf could not reach {}: {}. This is payconf's transport to fix, not \
                     the target's doing",
                    self.ctx.redactor.text(exchange.request.url.as_str()),
                    fault.words(host)
                )));
            }
            return Err(self.failure("an answer from the target", &reason));
        }
        Ok(index)
    }

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
                return Err(failure.blaming(vec![ids::JSON_ANSWERS.to_owned()]));
            }
        };
        let response = self.exchanges[index]
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
                    .map(str::to_owned)
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
        if self.profile.holds_reference_choices() {
            if let Err(violations) =
                contract.check_response(operation, status, body, Profile::Reference)
            {
                findings.push(Finding {
                    requirements: vec![ids::REFERENCE_STATUSES_AND_ERRORS.to_owned()],
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
            let checked = self.profile.holds_reference_choices()
                || finding.requirements.is_empty()
                || finding.requirements.iter().any(|r| self.checks.contains(r));
            if checked && failing.is_none() {
                failing = Some(finding);
            } else if !checked {
                self.observations.push(format!(
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

    /// A failure with what was expected, what was seen, and the last exchange.
    pub fn failure(&self, expected: &str, actual: &str) -> Failure {
        self.failure_on(expected, actual, self.exchanges.last())
    }

    /// A failure of the target shown with `exchange` (the page where the
    /// buyer stopped, say), or with none.
    pub fn failure_on(&self, expected: &str, actual: &str, exchange: Option<&Exchange>) -> Failure {
        let redactor = &self.ctx.redactor;
        let failure = Failure::target(expected, redactor.text(actual));
        match exchange {
            Some(exchange) => failure.on(exchange.display(redactor)),
            None => failure,
        }
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

/// Runs a step's checks; with [`PaymentWorld::settle`], how every step
/// ends: `let checked = checked(|| { … }); world.settle(checked)`.
pub fn checked(step: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    step()
}

/// [`checked`], for a step that awaits.
pub async fn checked_async(
    step: impl std::future::Future<Output = Result<(), Failure>>,
) -> Result<(), Failure> {
    step.await
}

/// A problem found in an answer, and the requirements it breaks.
struct Finding {
    requirements: Vec<String>,
    expected: String,
    actual: String,
}

impl Finding {
    fn envelope_json(expected: String) -> Self {
        Self {
            requirements: vec![ids::JSON_ANSWERS.to_owned()],
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
