//! `payconf run`: checks a server against the scenarios.
//!
//! The run loads the spec, the requirements and the features (embedded, or
//! from `--spec` and `--features`), resolves the target (or starts the
//! reference implementation in-process when none is given), makes sure the
//! target answers at all, selects scenarios by tag expression, sets aside
//! those the target cannot support with the reason, runs the rest
//! concurrently, and turns the outcome into an exit code: 0 all passed,
//! 1 a check failed, 2 the run could not be carried out.

use std::{process::ExitCode, sync::Arc};

use cucumber::{gherkin::tagexpr::TagOperation, tag::Ext as _};
use payconf_spec::{Profile, features::ScenarioEntry};

pub(crate) mod buyer;
mod console;
pub(crate) mod exchange;
mod hostile;
mod json;
mod known_tags;
mod list;
pub(crate) mod merchant;
pub(crate) mod neutral;
pub(crate) mod notifications;
mod redact;
pub(crate) mod reports;
pub(crate) mod result;
mod settings;
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
pub(crate) mod plan;
pub mod production;
mod scenarios;
mod suite;

/// What the integration tests and tools reach from outside the runner:
/// the browser (its attack tests start one of their own), the planted
/// secrets' blanking, the report formats, the target file, the transport's
/// client-certificate probe and the step definitions that carry card data.
pub use buyer::browser::{NoScreenshot, blank_out, chromium};
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

use crate::interruption::Interruption;
use browser::start_browser;
pub use console::{Ending, result_line};
pub use needs::{
    ISSUER_TAG, LIFECYCLE_TAG, NOTIFICATION_TAG, OUTCOME_TAG, PAYMENT_PAGE_TAG, RESULT_PAGE_TAG,
    SIGNATURE_TAG, drives_buyer, unmet_need,
};
pub use not_run::NotRun;
pub use options::{Judging, Mode, Outputs, RunOptions, Scope, Sending, TargetChoice};
use plan::{EarlierRun, Prepared, past_run, prepare, print_plan};
pub use production::{PRODUCTION_SAFE, production_reason};
use scenarios::{Execution, ScenarioServices, execute};
pub use suite::{Preparsed, Suite};

use crate::runner::{
    exchange::Limits,
    needs::TOKEN_LIFETIME_TAG,
    options::default_tags,
    reports::{Rendered, ReportInputs, RunFacts, write_reports},
    result::Verdict,
    target_file::TargetConfig,
    waivers::Waivers,
};

/// Runs `payconf run`; returns the exit code. Top to bottom: the suite and
/// the run's own files are read, the run is aimed at its target (the
/// embedded reference implementation started when there is none) and
/// planned, what it needs is launched (checks of the target, the browser,
/// the notification listener), the scenarios are executed, and the record
/// of the run is written as the reports and the evidence bundle.
pub async fn run(options: RunOptions) -> Result<ExitCode, NotRun> {
    // Listening from the start: a signal that comes while the browser starts
    // is answered as soon as the scenarios would begin.
    let mut interruption = Interruption::listen().map_err(NotRun::Signals)?;
    let suite = Suite::load(&options)?;
    match options.mode {
        Mode::List if !options.target.given() => {
            print!("{}", crate::runner::list::listing(&suite));
            return Ok(ExitCode::SUCCESS);
        }
        Mode::List | Mode::Plan => return print_plan(&options, &suite),
        Mode::Run => {}
    }
    if let Some(expression) = &options.scope.tags {
        plan::checked_tags(expression, &suite)?;
    }
    let inputs = RunInputs::read(&options, &suite)?;
    let mut services = RunServices::default();
    let aimed = match aim(&options, &suite, inputs.rerun, &mut services).await {
        Ok(Some(aimed)) => aimed,
        Ok(None) => {
            services.stop().await;
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => return services.fail(error).await,
    };
    let selected: Vec<ScenarioEntry> = aimed.plan.selected().cloned().collect();
    let launch = match launch(&options, &aimed.target, &selected, &mut services).await {
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
            Execution {
                checked: if services.embedded.is_some() {
                    result::CheckedTarget::Embedded
                } else {
                    result::CheckedTarget::Server {
                        base_url: aimed.target.shown_base_url(),
                    }
                },
                concurrency: options.sending.concurrency.max(1),
                seed: launch.seed,
                har: options.outputs.reports.of(reports::Format::Har).is_some()
                    || inputs.sealing.is_some(),
                rate: options.sending.rate,
                strict_waivers: options.judging.strict_waivers,
                retries: options.judging.retries,
                flaky_fails: options.judging.flaky_fails,
            },
            inputs.waivers.clone(),
            services.scenario.clone(),
        ) => outcome,
        signal = interruption.next() => Err(NotRun::Interrupted(signal)),
    };
    // Stopped whatever happened, before anything else is said.
    services.stop().await;
    let report = outcome?;
    let verdict = Verdict::of(&report);
    let inputs_of_reports = ReportInputs::of(&RunFacts {
        report: &report,
        requirements: &requirements,
        features: &features,
        contract: &contract,
        target: &aimed.target,
        tags: aimed.selection.expression,
        plan: aimed.plan.record(),
        left_out: aimed.selection.left_out,
        waivers: &inputs.waivers,
        seed: launch.generates.then_some(launch.seed),
        started,
        duration: clock.elapsed(),
        verdict,
    });
    Ok(record(
        &options,
        inputs.sealing.as_ref(),
        &inputs_of_reports,
        verdict,
    ))
}

/// What a run reads of its own before it aims at the target, each checked
/// before anything is sent: where its reports go, the key that seals its
/// bundle, its waivers, the earlier run it reruns.
struct RunInputs {
    sealing: Option<(std::path::PathBuf, ed25519_dalek::SigningKey)>,
    waivers: Waivers,
    rerun: Option<EarlierRun>,
}

impl RunInputs {
    fn read(options: &RunOptions, suite: &Suite) -> Result<Self, NotRun> {
        options.outputs.reports.check_paths()?;
        let sealing = match &options.outputs.evidence {
            Some(path) => Some((path.clone(), evidence_key(path, options)?)),
            None => None,
        };
        let waivers = match &options.judging.waivers {
            Some(path) => Waivers::load(path, &suite.requirements)?,
            None => Waivers::none(),
        };
        Ok(Self {
            sealing,
            waivers,
            rerun: past_run(options)?,
        })
    }
}

/// Aims the run: the target the file names, or the embedded reference
/// implementation started (into `services`) when it names none; then the
/// plan ([`prepare`], which `payconf plan` shares), announced. `None` when
/// a rerun finds nothing to run again.
async fn aim(
    options: &RunOptions,
    suite: &Suite,
    rerun: Option<EarlierRun>,
    services: &mut RunServices,
) -> Result<Option<Prepared>, NotRun> {
    // `--embedded-tls` names the embedded target by name, with its own
    // words for a target of the user's beside it.
    if options.target.embedded == embedded::Transport::Https && options.target.given() {
        return Err(NotRun::EmbeddedTlsWithTarget);
    }
    let (target, embedding) = match options.target.aim()? {
        Aim::Embedded => {
            let tokens = embedded_token_lifetime(options, suite);
            let (server, target) = embedded::start(options.target.embedded, tokens).await?;
            println!(
                "target: the reference implementation, in-process at {} (payconf's own, not \
                 your server)",
                server.base_url
            );
            services.embedded = Some(server);
            (target, true)
        }
        Aim::Target(file) => (file.resolve()?, false),
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
        println!("production: {why}; only @{PRODUCTION_SAFE} scenarios run");
        for scenario in &prepared.selection.left_out {
            println!("  left out (sends card data)  {scenario}");
        }
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
        println!(
            "rerun: {again} of the {} scenarios that failed or erred in {}",
            past.record.failures(),
            past.path
        );
        if again == 0 {
            println!("{}", console::result_line(console::Ending::NothingToRerun));
            return Ok(None);
        }
    }
    Ok(Some(prepared))
}

/// The embedded sandbox's tokens: short-lived only when the expiry
/// scenario runs; other runs (a robustness run's hundreds of requests)
/// keep the default.
fn embedded_token_lifetime(options: &RunOptions, suite: &Suite) -> embedded::TokenLifetime {
    let default_tags = default_tags(true);
    let expression = options.scope.tags.as_deref().unwrap_or(&default_tags);
    let expiry_selected = expression.parse::<TagOperation>().map_or(true, |tags| {
        suite
            .features
            .scenarios()
            .iter()
            .any(|s| tags.eval(s.tags.iter()) && s.has_tag(TOKEN_LIFETIME_TAG))
    });
    if expiry_selected {
        embedded::TokenLifetime::Short
    } else {
        embedded::TokenLifetime::Default
    }
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
) -> Result<Launch, NotRun> {
    let limits = Limits {
        timeout: options.sending.timeout,
        ..Limits::default()
    };
    if services.embedded.is_none() {
        println!("target: {}", target.shown_base_url());
        if let Some(proxy) = crate::runner::transport::rules(target).describe(&target.base_url) {
            println!("proxy: {proxy}");
        }
        let client = crate::runner::transport::client(target, limits)?;
        crate::runner::transport::preflight(&client, target, limits.timeout).await?;
        crate::runner::transport::addresses::check(&client, target, selected, limits.timeout)
            .await?;
        settings::check_credentials(&client, target, limits).await?;
    }
    settings::check_issuer(target, selected)?;
    services.scenario.browser = start_browser(target, selected, limits).await?;
    services.scenario.notifications = listen_for_notifications(target, selected).await?;
    let seed = options
        .sending
        .seed
        .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
    let generates = selected
        .iter()
        .any(|s| s.profile == Some(Profile::Robustness));
    if generates {
        println!("seed: {seed} (generated inputs; --seed {seed} replays them)");
    }
    Ok(Launch {
        limits,
        seed,
        generates,
    })
}

/// Writes the record of the run: the reports, then the evidence bundle
/// sealed with `sealing`'s key. The exit code: the verdict's, or that of a
/// run whose record could not be written.
fn record(
    options: &RunOptions,
    sealing: Option<&(std::path::PathBuf, ed25519_dalek::SigningKey)>,
    inputs: &ReportInputs<'_>,
    verdict: Verdict,
) -> ExitCode {
    let rendered = Rendered::new(inputs);
    if let Err(error) = write_reports(&options.outputs.reports, &rendered) {
        eprintln!("payconf: {error}");
        eprintln!("{}", console::result_line(console::Ending::ReportUnwritten));
        return Verdict::NotRun.into();
    }
    if let Some((path, key)) = sealing {
        match bundle::seal_run(path, key, &rendered) {
            Ok(sealed) => println!(
                "evidence: {} ({} files, {} bytes), signed by key {}",
                path.display(),
                sealed.files,
                sealed.bytes,
                sealed.signer
            ),
            Err(error) => {
                eprintln!(
                    "payconf: cannot write the evidence bundle {}: {error}",
                    path.display()
                );
                eprintln!("{}", console::result_line(console::Ending::BundleUnwritten));
                return Verdict::NotRun.into();
            }
        }
    }
    if let Some(github) = &options.outputs.github {
        github_actions(github, &inputs.record);
    }
    verdict.into()
}

/// Under GitHub Actions: the annotations, printed, and the step summary,
/// appended to its file. A summary that cannot be written is said, and
/// changes no verdict: the reports asked for are written.
fn github_actions(github: &options::GitHubActions, record: &result::RunRecord) {
    print!("{}", reports::github::annotations(record));
    let Some(path) = &github.summary else {
        return;
    };
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| {
            std::io::Write::write_all(&mut file, reports::github::summary(record).as_bytes())
        });
    if let Err(error) = appended {
        eprintln!(
            "payconf: cannot append the step summary to {} (GITHUB_STEP_SUMMARY): {error}",
            path.display()
        );
    }
}

/// What a run started besides the scenarios (the embedded reference
/// implementation, the browser, the notification listener), stopped in
/// one place however the run ends.
#[derive(Debug, Default)]
struct RunServices {
    embedded: Option<payconf_reference::RunningServer>,
    scenario: ScenarioServices,
}

impl RunServices {
    /// Stops everything: the browser closed first. Whether the target was
    /// the embedded reference implementation.
    async fn stop(self) {
        if let Some(browser) = &self.scenario.browser {
            browser.close().await;
        }
        if let Some(listener) = &self.scenario.notifications {
            listener.stop();
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

/// The key that signs a run's bundle at `path`, checked with the path
/// before anything is sent: a run that cannot seal its evidence does not start.
fn evidence_key(
    path: &std::path::Path,
    options: &RunOptions,
) -> Result<ed25519_dalek::SigningKey, NotRun> {
    reports::check_path("--evidence", path)?;
    Ok(bundle::keys::signing_key(
        options.outputs.signing_key.as_deref(),
        options.outputs.signing_key_pem.as_deref(),
    )?)
}

/// The run's listener of the target's notifications, started when the
/// target file declares `[notifications]` and a selected scenario listens.
async fn listen_for_notifications(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
) -> Result<Option<Arc<notifications::Listener>>, NotRun> {
    let Some(settings) = &target.notifications else {
        return Ok(None);
    };
    if !selected.iter().any(|s| s.has_tag(NOTIFICATION_TAG)) {
        return Ok(None);
    }
    let listener = notifications::Listener::start(settings).await?;
    println!(
        "notifications: payconf listens on {}; the target posts to {}",
        listener.local(),
        redact::shown_url(listener.url())
    );
    Ok(Some(listener))
}
