//! A run as a library call ([`payconf::runner::run`]): in this process,
//! no binary started, nothing printed; what it tells as it goes reaches
//! the caller's watch, and what it ends in is one typed outcome.

use std::sync::{Arc, Mutex};

use payconf::runner::{
    self, Listener, Notice, Ran, RunOptions, RunReport, ScenarioResult, Suite, Watch,
    record::Verdict,
};

/// What a watch was told, kept for the test to read.
#[derive(Debug, Default)]
struct Told {
    notices: Vec<Notice>,
    starting: Option<usize>,
    scenarios: usize,
    finished: bool,
}

/// A watch that keeps what it is told.
struct Keeping(Arc<Mutex<Told>>);

impl Listener for Keeping {
    fn scenario(&mut self, _: &ScenarioResult, _: &RunReport) {
        self.0.lock().expect("told").scenarios += 1;
    }

    fn finished(&mut self, _: &RunReport) {
        self.0.lock().expect("told").finished = true;
    }
}

impl Watch for Keeping {
    fn notice(&mut self, notice: &Notice) {
        self.0.lock().expect("told").notices.push(notice.clone());
    }

    fn starting(&mut self, scenarios: usize) {
        self.0.lock().expect("told").starting = Some(scenarios);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_a_library_call_that_returns_its_record_and_tells_its_watch() {
    let options = RunOptions {
        scope: runner::Scope {
            tags: Some("@core and @create".to_owned()),
            ..runner::Scope::default()
        },
        ..RunOptions::default()
    };
    let suite = Suite::load(&options).expect("the embedded suite loads");
    let told = Arc::new(Mutex::new(Told::default()));
    let ran = runner::run(
        &options,
        suite,
        Box::new(Keeping(Arc::clone(&told))),
        std::future::pending(),
    )
    .await
    .expect("the run is carried out");
    let Ran::Judged(outcome) = ran else {
        panic!("a run that is no rerun runs its scenarios");
    };
    let told = told.lock().expect("told");
    assert_eq!(outcome.verdict(), Verdict::Passed, "{:#?}", outcome.record);
    assert!(
        matches!(told.notices.first(), Some(Notice::Embedded { base_url }) if base_url.starts_with("http://127.0.0.1:")),
        "the first notice names the embedded target: {:?}",
        told.notices
    );
    let scenarios = outcome.record.scenarios.len();
    assert!(scenarios > 0, "@core and @create selects scenarios");
    assert_eq!(told.starting, Some(scenarios), "told how many will run");
    assert_eq!(
        told.scenarios, scenarios,
        "told each scenario as it finished"
    );
    assert!(told.finished, "told the end");
    assert!(
        outcome.record.scenarios.iter().all(|scenario| {
            ["core", "create"]
                .iter()
                .all(|tag| scenario.tags.iter().any(|t| t == tag))
        }),
        "only the selected scenarios ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_ends_as_not_run_when_its_stop_comes() {
    let options = RunOptions::default();
    let suite = Suite::load(&options).expect("the embedded suite loads");
    let ran = runner::run(
        &options,
        suite,
        Box::new(runner::Unwatched),
        std::future::ready("the caller's stop"),
    )
    .await;
    match ran {
        Err(runner::NotRun::Interrupted(by)) => assert_eq!(by, "the caller's stop"),
        other => panic!("a run stopped before its scenarios is not judged: {other:?}"),
    }
}

/// A browser the caller lends: two runs one after the other drive their
/// journeys in it (each says so, and starts no Chromium of its own), and
/// it is still running for the caller once they have ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lent_browser_takes_the_journeys_of_two_runs_and_is_left_running() {
    use crate::support::{
        runner::{browser_or_skip, run_in_process, start_chromium},
        untrusted::{target_file, turn},
        zoo::{Journey, server::Zoo},
    };
    if !browser_or_skip("a_lent_browser_takes_the_journeys_of_two_runs_and_is_left_running") {
        return;
    }
    let browser = Arc::new(start_chromium().await);
    for _ in 0..2 {
        let journey = Journey::compose(1, None);
        let zoo = Zoo::start(journey.clone()).await;
        let file = target_file(&zoo.base, &journey.acs("browser"));
        let run = run_in_process(&file.0, "@core and @issuer", Some(Arc::clone(&browser))).await;
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.drivers().contains("browser"),
            "the journeys were driven in the browser: {:?}",
            run.drivers()
        );
        assert!(
            run.stdout.contains("lent by the caller"),
            "the run says whose browser it drove:\n{}",
            run.stdout
        );
    }
    let window = turn(&browser).await;
    window
        .client
        .goto("about:blank")
        .await
        .expect("the lent browser still answers once the runs have ended");
    drop(window);
    browser.close().await;
}
