//! The suite has teeth, and bites only what breaks the contract.
//!
//! `payconf run` goes in front of the conformant twin (tests/harness/support/twin/:
//! a second implementation of the contract that differs from the reference
//! implementation everywhere the contract is silent), which must pass every
//! `@core` scenario, and of every defect of the catalogue
//! (`spec/defects.yaml`), each of which must make the run exit 1 with
//! exactly the `@core` scenarios of the requirement it breaks failing. The
//! twin's issuer page comes in several shapes; in each the twin passes with
//! the driver that can read it, and a page the form driver cannot read is
//! an error of the harness, never a failure of the target.

use std::{collections::BTreeSet, time::Duration};

use crate::support::{
    runner::{
        InProcess, Lent, LentBrowsers, RunOutput, TempFile, at_once, browser_or_skip,
        core_scenarios_checking, payconf_run_async, scenarios_where,
    },
    twin::{Defect, IssuerStyle, PageStyle, TwinService, Variation},
};
use payconf::runner::record::{HostileFinding, OutcomeKind, ScenarioRecord, Verdict};
use payconf_spec::{
    Profile,
    defects::{Defect as CatalogueEntry, Defects},
    driver::AcsDriver,
    features::{Features, ScenarioEntry},
    requirements::{RequirementId, Requirements},
};

/// Runs at most this many `payconf run`s at once (a browser defect's with
/// a Chromium): the test counts as two of the test runner's four places,
/// and two browsers (`.config/nextest.toml`).
const PARALLEL_RUNS: usize = 2;

/// Browser runs at most at once within a test, each in a browser the test
/// lends it: one Chromium for each, where one started for each run cost a
/// CPU-second and a half more.
const BROWSER_RUNS: usize = 2;

fn requirements() -> Requirements {
    Requirements::embedded().expect("requirements load")
}

fn catalogue() -> Defects {
    Defects::embedded(&requirements()).expect("the defect catalogue loads")
}

async fn run_twin(defect: Option<Defect>) -> RunOutput {
    let style = defect.map_or(IssuerStyle::Form, Defect::issuer_style);
    run_styled(defect, style, "form", None).await
}

async fn run_styled(
    defect: Option<Defect>,
    style: IssuerStyle,
    driver: &str,
    browser: Lent,
) -> RunOutput {
    // A robustness defect is judged in its own profile, as a user opts in
    // to it. (With the core scenarios running beside it, the defect that
    // mixes payments up under load would, rightly, also hit a core
    // scenario that pays during the burst.)
    let tags = defect.and_then(Defect::selects);
    let twin = TwinService::start_styled(defect, style).await;
    run_lent(twin, driver, tags, browser).await
}

/// The conformant twin with a variation, under a driver.
async fn run_varied(variation: Variation, driver: &str, browser: Lent) -> RunOutput {
    run_lent(
        TwinService::start_varied(variation).await,
        driver,
        None,
        browser,
    )
    .await
}

/// `payconf run` against `twin` with `driver`, the scenarios `tags` selects
/// (`@core` without).
pub(crate) async fn run_against(twin: TwinService, driver: &str, tags: Option<&str>) -> RunOutput {
    run_lent(twin, driver, tags, None).await
}

/// [`run_against`], as a library call in this process; a run lent
/// `browser` takes its journeys' turns in it, any other starts its own
/// Chromium when its driver is the browser.
async fn run_lent(twin: TwinService, driver: &str, tags: Option<&str>, browser: Lent) -> RunOutput {
    let target = TempFile::new("twin-target.toml", &twin.target_toml_for(driver));
    InProcess {
        target: &target.0,
        tags,
        // Short, so the hanging defect costs two seconds a scenario.
        timeout: Some(Duration::from_secs(2)),
        browser,
    }
    .run()
    .await
}

/// A browser run that drove the buyer and passed every core scenario.
fn assert_browser_passes_everything(what: impl std::fmt::Debug, output: &RunOutput) {
    assert_eq!(
        output.drivers(),
        BTreeSet::from(["browser".to_owned()]),
        "{what:?}: the browser drove the buyer:\n{}\n{}",
        output.stdout,
        output.stderr
    );
    assert_passes_everything(output);
}

fn core_scenarios() -> BTreeSet<String> {
    scenarios_where(|s| s.profile == Some(Profile::Core))
}

fn assert_passes_everything(output: &RunOutput) {
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.passed(), core_scenarios(), "{}", output.stdout);
    assert_eq!(output.results().outcome, Verdict::Passed);
    let noted: Vec<&ScenarioRecord> = output
        .scenarios()
        .iter()
        .filter(|s| !s.noted.is_empty())
        .collect();
    assert!(
        noted.is_empty(),
        "the twin conforms, so nothing is even noted: {noted:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformant_twin_passes_every_core_scenario() {
    assert_passes_everything(&run_twin(None).await);
}

/// The twin conforms, so it survives the robustness profile too; so does
/// the reference implementation (`tests/harness/suite_vs_reference.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformant_twin_passes_the_robustness_profile() {
    let twin = TwinService::start(None).await;
    let output = run_against(twin, "form", Some("@robustness")).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let robustness = scenarios_where(|s| s.profile == Some(Profile::Robustness));
    assert_eq!(output.passed(), robustness, "{}", output.stdout);
    assert!(output.seed().is_some(), "{}", output.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: every variation of the twin"]
async fn the_conformant_twin_passes_every_core_scenario_in_each_of_its_variations() {
    for variation in Variation::ALL {
        assert_passes_everything(&run_varied(variation, "form", None).await);
    }
}

/// The browser follows the buyer in each variation as the form driver does:
/// to the service's own result page and on, and through scheme-relative
/// addresses.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "full tier: every variation with the browser"]
async fn the_browser_driver_passes_the_twin_in_each_of_its_variations() {
    if !browser_or_skip("the_browser_driver_passes_the_twin_in_each_of_its_variations") {
        return;
    }
    let lent = LentBrowsers::start(BROWSER_RUNS, true).await;
    // Lazily, each run's future made as its turn comes: sixteen runs'
    // futures at once overflow the test thread's stack.
    let runs = Variation::ALL.into_iter().map(|v| {
        let browser = lent.next();
        async move { (v, run_varied(v, "browser", browser).await) }
    });
    let outputs = at_once(BROWSER_RUNS, runs).await;
    lent.close().await;
    for (variation, output) in outputs {
        assert_browser_passes_everything(variation, &output);
    }
}

/// The twin's lightbox, its own script with the real service's API, and
/// in other words (its variation): every `@lightbox` scenario passes with
/// the browser, opened from payconf's shop page.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "full tier: the twin's lightbox and its variation, with the browser"]
async fn the_twins_lightbox_passes_in_its_own_words_and_in_others() {
    if !browser_or_skip("the_twins_lightbox_passes_in_its_own_words_and_in_others") {
        return;
    }
    let lent = LentBrowsers::start(2, true).await;
    let runs = [None]
        .into_iter()
        .chain(Variation::LIGHTBOX.map(Some))
        .map(|variation| {
            let browser = lent.next();
            async move {
                let twin = match variation {
                    Some(variation) => TwinService::start_varied(variation).await,
                    None => TwinService::start(None).await,
                };
                let output = run_lent(twin, "browser", Some("@lightbox"), browser).await;
                (variation, output)
            }
        });
    let outputs = at_once(2, runs).await;
    lent.close().await;
    let lightbox = scenarios_where(|s| s.has_tag("lightbox"));
    for (variation, output) in outputs {
        assert_eq!(
            output.code,
            Some(0),
            "{variation:?}:\n{}\n{}",
            output.stdout,
            output.stderr
        );
        assert_eq!(
            output.passed(),
            lightbox,
            "{variation:?}:\n{}",
            output.stdout
        );
        assert_eq!(
            output.drivers(),
            BTreeSet::from(["browser".to_owned()]),
            "{variation:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_driver_passes_the_twin_whose_issuer_page_is_framed_or_two_step() {
    for style in [IssuerStyle::Framed, IssuerStyle::TwoStep] {
        let output = run_styled(None, style, "form", None).await;
        assert_passes_everything(&output);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "full tier: every issuer style with the browser"]
async fn the_browser_driver_passes_the_twin_in_every_issuer_style() {
    if !browser_or_skip("the_browser_driver_passes_the_twin_in_every_issuer_style") {
        return;
    }
    let lent = LentBrowsers::start(BROWSER_RUNS, true).await;
    let runs = IssuerStyle::ALL.into_iter().map(|s| {
        let browser = lent.next();
        async move { (s, run_styled(None, s, "browser", browser).await) }
    });
    let outputs = at_once(BROWSER_RUNS, runs).await;
    lent.close().await;
    for (style, output) in outputs {
        assert_browser_passes_everything(style, &output);
    }
}

/// The twin's payment page in each style real services build (a full
/// page, the lightbox with 3-D Secure inside it, hosted fields one frame
/// each), each through with the driver it needs: every core scenario
/// passes, the payment page's among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "full tier: every payment page style"]
async fn each_payment_page_style_passes_with_the_driver_it_needs() {
    let test = "each_payment_page_style_passes_with_the_driver_it_needs";
    let browser = browser_or_skip(test);
    let needing = PageStyle::ALL.iter().filter(|s| s.needs_browser()).count();
    let lent = LentBrowsers::start(needing.min(BROWSER_RUNS), browser).await;
    let runs = PageStyle::ALL
        .into_iter()
        .filter(|style| !style.needs_browser() || browser)
        .map(|style| {
            let (driver, browser) = if style.needs_browser() {
                ("browser", lent.next())
            } else {
                ("form", None)
            };
            async move {
                let twin = TwinService::start_paging(None, style).await;
                (style, driver, run_lent(twin, driver, None, browser).await)
            }
        });
    let outputs = at_once(BROWSER_RUNS, runs).await;
    lent.close().await;
    for (style, driver, output) in outputs {
        if driver == "browser" {
            assert_browser_passes_everything(style, &output);
        } else {
            assert_passes_everything(&output);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_issuer_page_is_an_error_of_the_form_driver_not_a_failure_of_the_target() {
    for style in [IssuerStyle::Scripted, IssuerStyle::ScriptReturn] {
        assert_unjudged_by_the_form_driver(style).await;
    }
}

async fn assert_unjudged_by_the_form_driver(style: IssuerStyle) {
    let output = run_styled(None, style, "form", None).await;

    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(output.failed().is_empty(), "{}", output.stdout);
    // Every journey through the issuer: from submit's answer, and from the
    // payment page.
    let through_the_issuer: BTreeSet<String> = core_scenarios_checking("TDS-04")
        .into_iter()
        .chain(core_scenarios_checking("PAGE-02"))
        .collect();
    assert_eq!(output.errors(), through_the_issuer, "{}", output.stdout);
    assert!(
        output.says("acs.driver = \"browser\""),
        "the error names the browser driver:\n{}",
        output.messages()
    );
    let last = output.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("result: ERROR against http://127.0.0.1:")
            && last.contains(", payconf could not judge "),
        "{}",
        output.stdout
    );
}

/// Whether `scenario` must fail against the defect: one that checks its
/// requirement, among the core and robustness scenarios; or, for a
/// reference requirement's defect, judged in the area it selects, any.
fn catches(entry: &CatalogueEntry, scenario: &ScenarioEntry) -> bool {
    scenario.checks(&entry.requirement)
        && (entry.selects.is_some() || scenario.profile.is_some_and(Profile::binds_every_server))
}

/// What went wrong with one defect, if anything.
fn judge(entry: &CatalogueEntry, output: &RunOutput) -> Option<String> {
    let expected = scenarios_where(|s| catches(entry, s));
    let failed = output.failed();
    let verdict = output
        .results
        .as_ref()
        .is_some_and(|r| r.outcome == Verdict::Failed);
    // Step by step, the requirement at fault is the defect's, and no other.
    let misattributed: Vec<String> = output
        .results
        .iter()
        .flat_map(|r| &r.scenarios)
        .filter(|s| s.outcome == OutcomeKind::Failed)
        .filter_map(|s| s.at_fault.as_ref())
        .filter(|ids| !ids.is_empty())
        .map(|ids| ids.join(", "))
        .filter(|ids| *ids != entry.requirement.as_str())
        .collect();
    if output.code == Some(1) && failed == expected && verdict && misattributed.is_empty() {
        return None;
    }
    let missed: Vec<_> = expected.difference(&failed).collect();
    let collateral: Vec<_> = failed.difference(&expected).collect();
    Some(format!(
        "{} ({}): exit code {:?}; not failed: {missed:?}; failed without checking {}: {collateral:?}; \
         at fault instead: {misattributed:?}\n{}{}",
        entry.id, entry.requirement, output.code, entry.requirement, output.stdout, output.stderr
    ))
}

/// Runs each entry of the catalogue for which `keep` holds, `at_once` at a
/// time; what went wrong, entry by entry.
async fn judge_entries(keep: impl Fn(&CatalogueEntry) -> bool, at_most: usize) -> Vec<String> {
    let entries: Vec<CatalogueEntry> = catalogue()
        .all()
        .iter()
        .filter(|entry| keep(entry))
        .filter(|entry| entry.driver != AcsDriver::Browser || browser_or_skip(&entry.id))
        .cloned()
        .collect();
    let runs = entries.into_iter().map(|entry| async move {
        let defect = Defect::from_id(&entry.id)
            .unwrap_or_else(|| panic!("the twin has no switch for {}", entry.id));
        let output = run_styled(
            Some(defect),
            defect.issuer_style(),
            entry.driver.name(),
            None,
        )
        .await;
        judge(&entry, &output)
    });
    at_once(at_most, runs).await.into_iter().flatten().collect()
}

/// Whether a defect is judged in the robustness profile: its runs send
/// hundreds of requests at once, and run one at a time, alone on the
/// machine (`.config/nextest.toml`), so that no timing but its own decides.
fn robustness(entry: &CatalogueEntry) -> bool {
    Defect::from_id(&entry.id).is_some_and(|d| d.selects() == Some("@robustness"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "full tier: the whole defect catalogue"]
async fn every_defect_fails_exactly_the_scenarios_of_the_requirement_it_breaks() {
    let problems = judge_entries(|entry| !robustness(entry), PARALLEL_RUNS).await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the whole defect catalogue, its robustness defects"]
async fn every_robustness_defect_fails_exactly_the_scenarios_of_the_requirement_it_breaks() {
    let problems = judge_entries(robustness, 1).await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The default tier's proof that the suite bites: a defect of the form
/// driver's, one of the browser's, one of the lightbox's, and a race, each failing exactly the
/// scenarios of the requirement it breaks (the whole catalogue runs in the
/// full tier).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defect_of_each_kind_is_caught_by_its_requirement_alone() {
    const SAMPLE: [&str; 4] = [
        "refusal-without-envelope",
        "issuer-frame-server-error",
        "lightbox-declined-told-ok",
        "concurrent-refunds-exceed-the-balance",
    ];
    let problems = judge_entries(|entry| SAMPLE.contains(&entry.id.as_str()), 1).await;
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Every requirement a conforming server must meet (core, robustness) is
/// broken by some defect of the catalogue. That each defect is caught by
/// its requirement's scenarios and no others is what
/// `every_defect_fails_exactly_the_scenarios_of_the_requirement_it_breaks`
/// proves, against the twin.
#[test]
fn every_core_and_robustness_requirement_is_broken_by_a_defect_of_the_catalogue() {
    let catalogue = catalogue();
    let missing: Vec<_> = requirements()
        .all()
        .iter()
        .filter(|r| r.profile.binds_every_server())
        .filter(|r| catalogue.breaking(&r.id).next().is_none())
        .map(|r| r.id.clone())
        .collect();
    assert!(
        missing.is_empty(),
        "requirements no defect breaks: {missing:?}"
    );
}

#[test]
fn the_twin_has_a_switch_for_every_defect_of_the_catalogue_and_no_other() {
    let listed: BTreeSet<String> = catalogue().all().iter().map(|d| d.id.clone()).collect();
    let switches: BTreeSet<String> = Defect::ALL.iter().map(|d| d.id()).collect();
    assert_eq!(listed, switches);
    // A defect the catalogue judges in an area of its own is switched on
    // in that area's runs.
    for entry in catalogue().all().iter().filter(|e| e.selects.is_some()) {
        let twin = Defect::from_id(&entry.id).expect("a switch");
        assert_eq!(twin.selects(), entry.selects.as_deref(), "{}", entry.id);
    }
}

/// `docs/defects.md`, as it must read: the catalogue with the scenarios
/// that catch each defect.
fn defect_page() -> String {
    let features = Features::embedded().expect("features parse");
    let scenarios = features.scenarios();
    let mut page = String::from(
        "# The defect catalogue\n\n\
         [README](../README.md) · [how we know the suite works](how-we-know.md)\n\n\
         Generated from `spec/defects.yaml` and `features/` by \
         `PAYCONF_WRITE_DOCS=1 cargo test --test harness the_defect_page`; the same \
         test, without the variable, fails when this page is out of date. Each defect is the \
         twin (`tests/harness/support/twin/`) with one switch turned on, breaking one requirement; \
         the scenarios listed must fail, and no other.\n\n\
         | defect | breaks | requirement | caught by |\n|---|---|---|---|\n",
    );
    for defect in catalogue().all() {
        let catching: Vec<String> = scenarios
            .iter()
            .filter(|s| catches(defect, s))
            .map(|s| format!("`{}` {}", s.location(), s.name))
            .collect();
        page.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            defect.id,
            defect.breaks.replace('|', "\\|"),
            defect.requirement,
            catching.join("<br>")
        ));
    }
    page
}

#[test]
fn the_defect_page_shows_the_catalogue_as_it_is() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/defects.md");
    let page = defect_page();
    if std::env::var_os("PAYCONF_WRITE_DOCS").is_some() {
        std::fs::write(path, &page).expect("docs/defects.md written");
    }
    let written = std::fs::read_to_string(path).expect("docs/defects.md reads");
    assert!(
        written == page,
        "docs/defects.md is out of date with spec/defects.yaml and features/; regenerate it \
         with PAYCONF_WRITE_DOCS=1 cargo test --test harness the_defect_page"
    );
}

/// A finding of the generated-input check names its seed, is shrunk, says
/// what kind of body it is, and comes with a `curl` that replays it; the same
/// seed finds it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: a robustness run, the machine alone"]
async fn a_hostile_body_finding_is_shrunk_and_replays_from_its_seed() {
    let run = || async {
        let twin = TwinService::start(Some(Defect::DeepNestingCrashes)).await;
        let target = TempFile::new("twin-target.toml", &twin.target_toml());
        payconf_run_async(vec![
            "--target".to_owned(),
            target.0.display().to_string(),
            "--tags".to_owned(),
            "@req:ROB-04".to_owned(),
            "--seed".to_owned(),
            "42".to_owned(),
        ])
        .await
    };
    let output = run().await;
    assert_eq!(output.code, Some(1), "{}", output.stdout);
    assert_eq!(output.seed(), Some(42), "{}", output.stdout);
    let findings = output.hostile_findings();
    let finding = findings
        .first()
        .unwrap_or_else(|| panic!("a hostile finding in:\n{}", output.messages()));
    assert_eq!(finding.seed, 42, "{finding:?}");
    assert!(finding.shrink_requests > 0, "shrunk: {finding:?}");
    assert!(
        finding
            .replay
            .as_deref()
            .is_some_and(|curl| curl.starts_with("curl -i -X POST")),
        "a curl that replays it: {finding:?}"
    );
    let failed = output
        .scenarios()
        .iter()
        .find(|s| s.outcome == OutcomeKind::Failed)
        .expect("a failed scenario");
    assert_eq!(
        failed.at_fault.as_deref(),
        Some(&[RequirementId::fixed("ROB-04")][..]),
        "{failed:?}"
    );
    assert!(
        output.says("replays with --seed 42"),
        "the message says how to replay it:\n{}",
        output.messages()
    );
    // Shrunk: inside the body's own object, 64 levels are the fewest that
    // take it past the 64 the defect survives.
    let depth = finding.nesting.expect("a nested body");
    assert!((64..=200).contains(&depth), "{finding:?}");
    // The replay names the run's own address and shop transaction ID; the
    // rest of the finding follows from the seed.
    let without_replay = |findings: Vec<&HostileFinding>| {
        findings
            .into_iter()
            .map(|finding| {
                let mut finding = finding.clone();
                finding.replay = None;
                finding
            })
            .collect::<Vec<_>>()
    };
    let again = run().await;
    assert_eq!(
        without_replay(again.hostile_findings()),
        without_replay(findings),
        "the same seed, the same finding"
    );
}
