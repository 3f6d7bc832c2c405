//! The run: checks a server against the scenarios, as a library call
//! ([`run`]) that returns one typed outcome ([`Ran`], [`RunOutcome`]).
//!
//! With the spec, the requirements and the features loaded ([`Suite`],
//! embedded or from `--spec` and `--features`), the run resolves the target
//! (or starts the reference implementation in-process when none is given),
//! makes sure the target answers at all, selects scenarios by tag
//! expression, sets aside those the target cannot support with the reason,
//! runs the rest concurrently, and makes the record of the run. What it
//! tells as it goes goes to a [`Watch`]. The command line (`payconf run`,
//! [`crate::cli`]) owns the rest: the signals, the console, the reports and
//! the evidence bundle written, and the exit code (0 all passed, 1 a check
//! failed, 2 the run could not be carried out).
//!
//! Runs at once in one process are independent but for the process's
//! panic hook, which cucumber swaps while its scenarios run: payconf keeps
//! it whole (`world/panics.rs`), so that a panic outside the runs still
//! says what it is.

use std::sync::Arc;

use payconf_spec::{Profile, features::ScenarioEntry};

pub(crate) mod buyer;
mod console;
pub(crate) mod exchange;
mod hostile;
mod json;
mod known_tags;
pub mod list;
pub(crate) mod merchant;
pub(crate) mod neutral;
pub(crate) mod notifications;
mod redact;
pub(crate) mod reports;
pub(crate) mod result;
mod served;
mod settings;
pub(crate) mod shop_page;
pub(crate) mod steps;
pub(crate) mod target_file;
pub(crate) mod transport;
pub(crate) mod volley;
mod waivers;
pub(crate) mod world;

mod browser;
pub mod bundle;
pub(crate) mod embedded;
mod needs;
mod not_run;
pub mod options;
mod outcome;
pub(crate) mod plan;
pub mod production;
mod scenarios;
mod suite;
mod watch;

/// What the integration tests and tools reach from outside the runner:
/// the browser (its attack tests start one of their own), the planted
/// secrets' blanking, the report formats, the target file, the transport's
/// client-certificate probe and the step definitions that carry card data.
pub use buyer::browser::{NoScreenshot, blank_out, capture, chromium};
pub use reports::Format;
/// What a run leaves for machines ([`RunRecord`](record::RunRecord)): the
/// results file, typed.
pub mod record {
    pub use super::result::{
        Drove, Fault, HostileFinding, OutcomeKind, RequirementVerdict, Verdict, record::*,
    };
}
pub use steps::{CARD_DATA_DEFINITIONS, OFF_OPERATION_DEFINITIONS, definition_file};
use target_file::Aim;
pub use target_file::{SettlementMode, TargetFile};
pub use transport::certificate::client_refusal;
pub(crate) use waivers::WaiversFile;
pub use world::PaymentWorld;

use browser::start_browser;
pub use console::{Console, Ending, result_line};
pub use needs::{
    ISSUER_TAG, LIFECYCLE_TAG, LIGHTBOX_TAG, NOTIFICATION_TAG, OUTCOME_TAG, PAYMENT_PAGE_TAG,
    RESULT_PAGE_TAG, SIGNATURE_TAG, drives_buyer, unmet_need,
};
pub use not_run::NotRun;
pub use options::{Judging, Mode, Outputs, RunOptions, Scope, Sending, TargetChoice};
pub use outcome::{Ran, RunOutcome};
pub use plan::plan_text;
use plan::{EarlierRun, Prepared, past_run, prepare};
pub use production::{PRODUCTION_SAFE, production_reason};
/// A run's watch, and what it is told of: each scenario's result in the
/// run's report.
pub use result::{RunReport, ScenarioResult, recorder::Listener};
use scenarios::{Execution, ScenarioServices, execute};
pub use suite::{Preparsed, Suite};
pub use watch::{Notice, Unwatched, Watch};

use crate::runner::{
    exchange::Limits, result::RunRecord, target_file::TargetConfig, waivers::Waivers,
};

/// Runs the scenarios `options` select from `suite` against their target,
/// and returns the outcome. Top to bottom: the run's own files are read
/// (waivers, the earlier run it reruns), the run is aimed at its target
/// (the embedded reference implementation started when there is none) and
/// planned, what it needs is launched (checks of the target, the browser,
/// the notification listener), and the scenarios are executed, until the
/// end or until `stop` resolves (with what stopped it: a signal's name).
/// It prints nothing, listens for no signal and reads no variable of the
/// environment: what it tells as it goes goes to `watch`, and the caller
/// writes the reports (the command line: [`crate::cli`]).
pub async fn run(
    options: &RunOptions,
    suite: Suite,
    mut watch: Box<dyn Watch>,
    stop: impl std::future::Future<Output = &'static str>,
) -> Result<Ran, NotRun> {
    if let Some(expression) = &options.scope.tags {
        plan::checked_tags(expression, &suite)?;
    }
    let inputs = RunInputs::read(options, &suite)?;
    let mut services = RunServices::default();
    let aimed = match aim(options, &suite, inputs.rerun, &mut services, watch.as_mut()).await {
        Ok(Some(aimed)) => aimed,
        Ok(None) => {
            services.stop().await;
            return Ok(Ran::NothingToRerun);
        }
        Err(error) => return services.fail(error).await,
    };
    let selected: Vec<ScenarioEntry> = aimed.plan.selected().cloned().collect();
    let launch = match launch(
        options,
        &aimed.target,
        &selected,
        &mut services,
        watch.as_mut(),
    )
    .await
    {
        Ok(launch) => launch,
        Err(error) => return services.fail(error).await,
    };
    let started = time::OffsetDateTime::now_utc();
    let clock = std::time::Instant::now();
    let features = suite.features.clone();
    let requirements = suite.requirements.clone();
    let contract = Arc::clone(&suite.contract);
    let outcome = tokio::select! {
        outcome = execute(
            suite,
            aimed.target.clone(),
            &aimed.plan,
            launch.limits,
            execution(options, &aimed.target, &launch, &services, &inputs.waivers),
            services.scenario.clone(),
            watch,
        ) => outcome,
        signal = stop => Err(NotRun::Interrupted(signal)),
    };
    // Stopped whatever happened, before anything else is said.
    services.stop().await;
    let report = outcome?;
    let record = RunRecord::of(&record::RunFacts {
        report: &report,
        requirements: &requirements,
        features: &features,
        contract: &contract,
        target: aimed.target.summary(),
        tags: aimed.selection.expression,
        plan: aimed.plan.record(),
        left_out: aimed.selection.left_out,
        waivers: &inputs.waivers,
        seed: launch.generates.then_some(launch.seed),
        started,
        duration: clock.elapsed(),
    });
    Ok(Ran::Judged(Box::new(RunOutcome {
        record,
        report,
        features,
        target: aimed.target,
        started,
    })))
}

/// How the scenarios are executed: on which target, how many at once and
/// how fast, the seed of generated inputs, and how they are judged.
fn execution(
    options: &RunOptions,
    target: &TargetConfig,
    launch: &Launch,
    services: &RunServices,
    waivers: &Waivers,
) -> Execution {
    Execution {
        checked: if services.embedded.is_some() {
            result::CheckedTarget::Embedded
        } else {
            result::CheckedTarget::Server {
                base_url: target.shown_base_url(),
            }
        },
        concurrency: options.sending.concurrency.max(1),
        seed: launch.seed,
        har: options.outputs.reports.of(reports::Format::Har).is_some()
            || options.outputs.evidence.is_some(),
        rate: options.sending.rate,
        strict_waivers: options.judging.strict_waivers,
        retries: options.judging.retries,
        flaky_fails: options.judging.flaky_fails,
        waivers: waivers.clone(),
    }
}

/// What a run reads of its own before it aims at the target, each checked
/// before anything is sent: its waivers, the earlier run it reruns.
struct RunInputs {
    waivers: Waivers,
    rerun: Option<EarlierRun>,
}

impl RunInputs {
    fn read(options: &RunOptions, suite: &Suite) -> Result<Self, NotRun> {
        let waivers = match &options.judging.waivers {
            Some(path) => Waivers::load(path, &suite.requirements)?,
            None => Waivers::none(),
        };
        Ok(Self {
            waivers,
            rerun: past_run(options)?,
        })
    }
}

/// Aims the run: the target the file names, or the embedded reference
/// implementation started (into `services`) when it names none; then the
/// plan ([`prepare`], which `payconf plan` shares), told to `watch`. `None`
/// when a rerun finds nothing to run again.
async fn aim(
    options: &RunOptions,
    suite: &Suite,
    rerun: Option<EarlierRun>,
    services: &mut RunServices,
    watch: &mut dyn Watch,
) -> Result<Option<Prepared>, NotRun> {
    // `--embedded-tls` names the embedded target by name, with its own
    // words for a target of the user's beside it.
    if options.target.embedded == embedded::Transport::Https && options.target.given() {
        return Err(NotRun::EmbeddedTlsWithTarget);
    }
    let (target, embedding) = match options.target.aim()? {
        Aim::Embedded => {
            let (server, target) = embedded::start(options.target.embedded).await?;
            watch.notice(&Notice::Embedded {
                base_url: server.base_url.to_string(),
            });
            services.embedded = Some(server);
            (target, true)
        }
        Aim::Target(file) => (file.resolve()?, false),
    };
    let target = TargetConfig {
        proxy_variables: options.environment.only(&transport::proxy::VARIABLES),
        ..target
    };
    let prepared = prepare(
        options,
        suite,
        target,
        embedding,
        options.scope.allow_production,
        rerun,
    )?;
    if let Some(why) = &prepared.selection.production {
        watch.notice(&Notice::Production {
            why: why.clone(),
            left_out: prepared.selection.left_out.clone(),
        });
    }
    let nothing =
        prepared.plan.selected().next().is_none() && prepared.plan.set_aside().next().is_none();
    if nothing && prepared.rerun.is_none() {
        return Err(NotRun::NothingSelected {
            expression: prepared.selection.expression,
            tags: suite.features.tags_but_requirements(),
        });
    }
    if let Some(past) = &prepared.rerun {
        let again = prepared.plan.selected().count();
        watch.notice(&Notice::Rerun {
            again,
            failures: past.record.failures(),
            path: past.path.to_string(),
        });
        if again == 0 {
            return Ok(None);
        }
    }
    Ok(Some(prepared))
}

/// What the scenarios are executed with once the run is launched.
struct Launch {
    limits: Limits,
    /// The seed of the generated inputs, and whether any scenario generates.
    seed: u64,
    generates: bool,
}

/// Launches what the `selected` scenarios need: a target that answers and
/// takes the credentials (a target of the file's), the issuer settings,
/// the browser and the notification listener (into `services`), the seed.
async fn launch(
    options: &RunOptions,
    target: &TargetConfig,
    selected: &[ScenarioEntry],
    services: &mut RunServices,
    watch: &mut dyn Watch,
) -> Result<Launch, NotRun> {
    let limits = Limits {
        timeout: options.sending.timeout,
        ..Limits::default()
    };
    if services.embedded.is_none() {
        watch.notice(&Notice::Target(target.shown_base_url()));
        if let Some(proxy) = crate::runner::transport::rules(target).describe(&target.base_url) {
            watch.notice(&Notice::Proxy(proxy));
        }
        let client = crate::runner::transport::client(target, limits)?;
        crate::runner::transport::preflight(&client, target, limits.timeout).await?;
        crate::runner::transport::addresses::check(&client, target, selected, limits.timeout)
            .await?;
        settings::check_credentials(&client, target, limits).await?;
    }
    settings::check_issuer(target, selected)?;
    if let Some(started) = start_browser(
        target,
        selected,
        limits,
        &options.environment,
        options.browser.as_ref(),
        watch,
    )
    .await?
    {
        services.browser_lent = started.lent;
        services.scenario.browser = Some(started.browser);
    }
    services.scenario.notifications = listen_for_notifications(target, selected, watch).await?;
    services.scenario.shop_page = serve_shop_page(target, selected).await?;
    let seed = options
        .sending
        .seed
        .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
    let generates = selected
        .iter()
        .any(|s| s.profile == Some(Profile::Robustness));
    if generates {
        watch.notice(&Notice::Seed(seed));
    }
    Ok(Launch {
        limits,
        seed,
        generates,
    })
}

/// What a run started besides the scenarios (the embedded reference
/// implementation, the browser, the notification listener), stopped in
/// one place however the run ends.
#[derive(Debug, Default)]
struct RunServices {
    embedded: Option<payconf_reference::RunningServer>,
    scenario: ScenarioServices,
    /// Whether the browser is the caller's: left running.
    browser_lent: bool,
}

impl RunServices {
    /// Stops everything: the browser closed first (unless the caller lent
    /// it). Whether the target was the embedded reference implementation.
    async fn stop(self) {
        if let Some(browser) = self
            .scenario
            .browser
            .as_ref()
            .filter(|_| !self.browser_lent)
        {
            browser.close().await;
        }
        if let Some(listener) = &self.scenario.notifications {
            listener.stop();
        }
        if let Some(shop) = &self.scenario.shop_page {
            shop.stop();
        }
        if let Some(server) = self.embedded {
            let _ = server.shutdown().await;
        }
    }

    /// Stops everything, and ends the run with `error`.
    async fn fail<T>(self, error: NotRun) -> Result<T, NotRun> {
        self.stop().await;
        Err(error)
    }
}

/// The run's shop page, served when the target declares its lightbox
/// script and a selected scenario opens it.
async fn serve_shop_page(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
) -> Result<Option<Arc<shop_page::ShopPage>>, NotRun> {
    let Some(lightbox) = target
        .payment_page
        .as_ref()
        .and_then(|p| p.lightbox.as_ref())
    else {
        return Ok(None);
    };
    if !selected.iter().any(|s| s.has_tag(LIGHTBOX_TAG)) {
        return Ok(None);
    }
    let shop = shop_page::ShopPage::start(&lightbox.script)
        .await
        .map_err(NotRun::ShopPage)?;
    Ok(Some(shop))
}

/// The run's listener of the target's notifications, started when the
/// target file declares `[notifications]` and a selected scenario listens.
async fn listen_for_notifications(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
    watch: &mut dyn Watch,
) -> Result<Option<Arc<notifications::Listener>>, NotRun> {
    let Some(settings) = &target.notifications else {
        return Ok(None);
    };
    if !selected.iter().any(|s| s.has_tag(NOTIFICATION_TAG)) {
        return Ok(None);
    }
    let listener = notifications::Listener::start(settings).await?;
    watch.notice(&Notice::Notifications {
        local: listener.local().to_string(),
        url: redact::shown_url(listener.url()),
    });
    Ok(Some(listener))
}
