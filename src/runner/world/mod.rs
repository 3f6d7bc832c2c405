//! The state of one scenario: what it shares with the run, what it has
//! sent and seen, and what it leaves for its result.
//!
//! Every scenario gets a fresh [`PaymentWorld`] holding the run's shared
//! [`RunContext`] (target, HTTP client, spec, requirements, redactor), the
//! profile it is held to (`@core` or `@reference`), the requirements it
//! checks, and what it has seen so far. [`PaymentWorld::receive`] sends a
//! request and checks the answer against the spec. A violation fails the
//! step when the scenario checks the requirement the violated field belongs
//! to; otherwise it is noted as an observation, so that one broken field
//! fails exactly the scenarios that check it and no others ([`answer`]).
//! Each step ends by settling its failure in the world ([`settle`]).

mod answer;
mod buyer;
mod panics;
mod settle;

use std::sync::Arc;

use serde_json::Value;
use url::Url;

use crate::runner::{
    buyer::browser::chromium::Reservation,
    exchange::{Exchange, RecordedRequest, Sender, Trail},
    hostile::HostileRun,
    notifications::{Listener, Mailbox},
    redact::Redactor,
    result::Leftovers,
    target_file::{ShopKey, TargetConfig},
    volley::{PagePresses, SubmitVolleys},
};
use payconf_spec::{Profile, contract::Contract, requirements::Requirements};

/// What every scenario of a run shares.
#[derive(Debug)]
pub struct RunContext {
    /// The server under test, resolved and checked before the first scenario.
    pub target: TargetConfig,
    /// The sender every request goes out through: its bounds,
    /// `--rate`, the volley lock exchanges in flight share.
    pub sender: Sender,
    /// The spec every answer is checked against as it arrives.
    pub contract: Arc<Contract>,
    /// The requirements catalogue.
    pub requirements: Requirements,
    /// Keeps secrets out of everything shown.
    pub redactor: Redactor,
    /// The issuer driver, with the browser the browser driver started for the run.
    pub driver: crate::runner::buyer::Driver,
    /// The seed of the hostile inputs `@robustness` generates.
    pub seed: u64,
    /// Whether every exchange is kept for a HAR file (`--har`), those the
    /// scenario's report leaves out included.
    pub har: bool,
    /// The listener of the target's server notifications, when the target
    /// file declares `[notifications]` and a selected scenario needs it.
    pub notifications: Option<Arc<Listener>>,
    /// The shop's page the `@lightbox` scenarios open the target's
    /// lightbox from, when a selected scenario does.
    pub shop_page: Option<Arc<crate::runner::shop_page::ShopPage>>,
}

pub use crate::runner::result::Failure;
pub use answer::{Answer, is_json_media_type};
pub use settle::Settled;

tokio::task_local! {
    static CONTEXT: Arc<RunContext>;
}

/// Runs `future` (the cucumber run) with `context` visible to every
/// scenario, and a failed step's panic left to cucumber to report
/// ([`panics`]).
pub async fn with_context<F: std::future::Future>(
    context: Arc<RunContext>,
    future: F,
) -> F::Output {
    panics::quiet_steps(CONTEXT.scope(context, future)).await
}

pub use panics::scenario_starts;

/// A payment the merchant created in this scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedPayment {
    /// Its token, which submit carries and the issuer's page names.
    pub token: String,
    /// Its `paymentID`, when the answer had one.
    pub payment_id: Option<String>,
    /// The `shopTransactionID` create was sent, when it was a string.
    pub shop_transaction_id: Option<String>,
}

/// A payment of a `@lifecycle` scenario, paid at one of the target's
/// shops, with what the scenario's own operations did to its money.
#[derive(Clone, Debug)]
pub struct LifecyclePayment {
    /// The shop it was paid at.
    pub shop_login: String,
    /// That shop's API key, which its operations carry.
    pub api_key: crate::runner::target_file::Secret,
    /// Its `paymentID`.
    pub payment_id: String,
    /// The `shopTransactionID` create was sent.
    pub shop_transaction_id: String,
    /// Its amount, in hundredths.
    pub amount: u64,
    /// What was settled, as the scenario's captures (or the service's own
    /// settlement, once seen) made it, in hundredths.
    pub settled: u64,
    /// What the scenario's refunds took, in hundredths.
    pub refunded: u64,
    /// The amount of the last operation done.
    pub last_amount: Option<u64>,
}

/// What the last volley of a `@robustness @lifecycle` race did, as its
/// step left it for the `Then`.
#[derive(Clone, Debug)]
pub struct LifecycleRace {
    /// Which volley it was, from 1.
    pub round: usize,
    /// Refunds sent (for the refunds' race): each of `each` hundredths.
    pub sent: usize,
    /// Each refund's amount, in hundredths.
    pub each: u64,
    /// What was settled, in hundredths.
    pub settled: u64,
    /// How many of the requests were done (`error.code "0"`, `OK`), and
    /// which: for the capture's race, (capture, cancel).
    pub done: (usize, usize),
}

/// The state of one scenario.
#[derive(Debug, cucumber::World)]
#[world(init = Self::new)]
pub struct PaymentWorld {
    /// What every scenario of the run shares: target, client, spec, redactor.
    pub ctx: Arc<RunContext>,
    /// What its answers are held to, from its tags.
    pub held: Held,
    /// Payments created so far, oldest first.
    pub payments: Vec<CreatedPayment>,
    /// The token the last submit used.
    pub submitted_token: Option<String>,
    /// The body of the last submit, for sending it again.
    pub last_submit_body: Option<Value>,
    /// The last API answer, which the `Then` steps judge.
    pub answer: Option<Answer>,
    /// What its `@robustness` checks sent at once or generated, for the
    /// step that judges them.
    pub races: Races,
    /// Where the buyer's browser ended up after the issuer page.
    pub landing: Option<Url>,
    /// What the shop's page was told by the lightbox, when the buyer's
    /// journey from it ended at payconf's page; why it could not be read.
    pub told: Option<Result<crate::runner::shop_page::Told, String>>,
    /// Every exchange of the scenario, in order, and each time the target
    /// asked payconf to wait.
    pub trail: Trail,
    /// What it leaves for its result besides its trail, gathered as it
    /// goes: violations of requirements it does not check (`observations`),
    /// what it measured of its own sharpness (`measured`: the volleys sent
    /// and their spread, said whatever its outcome), what the issuer driver
    /// saw (`issuer`), what its generated hostile bodies found (`hostile`).
    /// [`Self::leave`] adds the trail's exchanges and waits.
    pub leftovers: Leftovers,
    /// The failure a step ended with, as [`Self::settle`] kept it for the
    /// recorder: cucumber hands a step's error on only as text.
    pub failed: Option<Failure>,
    /// The browser, held for this scenario from its start when it goes
    /// through the issuer page with the browser driver.
    pub browser_reservation: Option<Reservation>,
    /// Where this scenario's notifications arrive, once it listens for them:
    /// submits then pass its address as `serverNotificationURL`.
    pub mailbox: Option<Mailbox>,
    /// Whether the payment's road to a failed authentication is a wrong
    /// code typed at the issuer (`acs.failing_fields`): its buyer types
    /// those values there.
    pub fails_at_issuer: bool,
    /// The payment a `@lifecycle` scenario operates on, once paid.
    pub lifecycle: Option<LifecyclePayment>,
    /// The card token a detail named, for a later submit to pay with.
    pub card_token: Option<String>,
    /// The shop its buyer pays at, once its payment was created at a shop
    /// other than the target's own (the one whose tokens expire first):
    /// its submits name that shop and carry its key.
    pub shop: Option<ShopKey>,
}

/// What a scenario's answers are held to, from its tags.
#[derive(Debug, Default)]
pub struct Held {
    /// The requirements it checks (its `@req:` tags).
    pub checks: Vec<payconf_spec::requirements::RequirementId>,
    /// Whether the API's answers are held to the reference profile's
    /// choices: in a `@reference` scenario, except one about notifications
    /// or the payment's life after submit, which check those areas of a
    /// server that may differ from the reference profile elsewhere (its
    /// answers are held to the contract, their reference differences noted).
    pub reference_answers: bool,
    /// Whether its buyer is to land on the merchant's failure page
    /// (`@failure-page`): a journey of another scenario that lands there
    /// has not gone through.
    pub failure_page_expected: bool,
}

/// What a scenario's `@robustness` checks sent at once or generated, each
/// kept by the step that sends it for the step that judges it.
#[derive(Debug, Default)]
pub struct Races {
    /// The volleys of submits of one token.
    pub volley: Option<SubmitVolleys>,
    /// Presses of pay at once on the payment page.
    pub presses: Option<PagePresses>,
    /// Whole payments run at once.
    pub payments: Vec<ParallelPayment>,
    /// Generated hostile bodies sent, and their findings.
    pub hostile: Option<HostileRun>,
    /// The last volley of a `@lifecycle` race.
    pub lifecycle: Option<LifecycleRace>,
}

/// One of the whole payments run at once: its token, the paymentID its
/// create answered, and the one its submit answered.
#[derive(Debug)]
pub struct ParallelPayment {
    /// The payment token create answered.
    pub token: String,
    /// The paymentID create answered.
    pub created: String,
    /// The paymentID submit answered.
    pub answered: String,
}

impl PaymentWorld {
    fn new() -> Self {
        let ctx = CONTEXT.with(Arc::clone);
        Self {
            trail: Trail::new(ctx.har),
            ctx,
            held: Held::default(),
            payments: Vec::new(),
            submitted_token: None,
            last_submit_body: None,
            races: Races::default(),
            answer: None,
            landing: None,
            told: None,
            leftovers: Leftovers::default(),
            failed: None,
            browser_reservation: None,
            mailbox: None,
            fails_at_issuer: false,
            card_token: None,
            lifecycle: None,
            shop: None,
        }
    }

    /// Sets the profile and requirements from the scenario's tags, and
    /// waits for the browser when the scenario will need it.
    pub async fn configure(&mut self, tags: &[String]) {
        if crate::runner::needs::drives_buyer(tags) {
            if let Some(browser) = self.ctx.driver.browser() {
                self.browser_reservation = Some(browser.reserve().await);
            }
        }
        let profile = Profile::of_tags(tags).unwrap_or(Profile::Core);
        // The notifications, the payment's life after submit and the 3-D
        // Secure outcomes are areas a server may follow the reference
        // profile in while differing elsewhere: their scenarios judge what
        // they check, and the answers' other reference differences are
        // noted, not failed.
        self.held.reference_answers = profile.holds_reference_choices()
            && !tags.iter().any(|t| {
                [
                    crate::runner::needs::NOTIFICATION_TAG,
                    crate::runner::needs::LIFECYCLE_TAG,
                    crate::runner::needs::OUTCOME_TAG,
                ]
                .contains(&t.as_str())
            });
        self.held.failure_page_expected = tags
            .iter()
            .any(|t| t == crate::runner::needs::FAILURE_PAGE_TAG);
        self.held.checks = payconf_spec::features::requirement_ids(tags).collect();
    }

    /// What the scenario leaves for its result, once it is over; the
    /// browser is free for the next scenario.
    pub fn leave(&mut self) -> Leftovers {
        self.browser_reservation = None;
        let redactor = &self.ctx.redactor;
        let trail = &mut self.trail;
        let exchanges: Vec<_> = trail.exchanges.iter().map(|e| e.record(redactor)).collect();
        let har = trail.unreported.all(&exchanges);
        let mut leftovers = std::mem::take(&mut self.leftovers);
        leftovers.measured.append(&mut trail.load);
        Leftovers {
            waited: std::mem::take(&mut trail.waited),
            exchanges,
            har,
            ..leftovers
        }
    }

    /// The target.
    pub fn target(&self) -> &TargetConfig {
        &self.ctx.target
    }

    /// The shop login the buyer's submit names: the shop of [`Self::shop`],
    /// or the target's own.
    pub fn shop_login(&self) -> &str {
        self.shop
            .as_ref()
            .map_or(&self.ctx.target.shop_login, |shop| &shop.shop_login)
    }

    /// The API key of the shop the buyer pays at: [`Self::shop`]'s, or the
    /// target's own.
    pub fn api_key(&self) -> &crate::runner::target_file::Secret {
        self.shop
            .as_ref()
            .map_or(&self.ctx.target.api_key, |shop| &shop.api_key)
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

    /// Keeps, for the HAR file, exchanges the scenario sent but does not keep.
    pub fn also_sent<'a>(&self, exchanges: impl IntoIterator<Item = &'a Exchange>) {
        self.trail.also_sent(&self.ctx.redactor, exchanges);
    }

    /// Sends a request and keeps the exchange; fails when nothing usable
    /// came back ([`Trail::exchange`]).
    pub async fn exchange(&mut self, request: RecordedRequest) -> Result<usize, Failure> {
        let ctx = &self.ctx;
        self.trail
            .exchange(&ctx.sender, &ctx.redactor, request)
            .await
    }

    /// The exchange at `index` of the scenario's trail.
    pub fn exchange_at(&self, index: usize) -> &Exchange {
        &self.trail.exchanges[index]
    }
}
