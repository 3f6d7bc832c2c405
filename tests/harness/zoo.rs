//! The issuer-page zoo: journeys composed from seeds ([`Journey::compose`])
//! run with each driver. Every conforming journey passes `@core` (with the
//! form driver, a journey that needs a script to go on is an ERROR naming
//! the browser driver); every defective one fails TDS-04.
//!
//! `cargo test` runs the fixed seeds below. In CI (`CI` set) each test also
//! runs random seeds (`PAYCONF_ZOO_RANDOM` of them, 6 unless set), printing
//! each: a seed that ever failed joins the fixed list. Each journey and the
//! zoo's runtime are written to the terminal even when the test passes.

use std::{io::Write, time::Instant};

use crate::support::{
    runner::{browser_or_skip, browser_turn, core_scenarios_checking},
    untrusted::run_against,
    zoo::{FAULTS, Journey, server::Zoo},
};
use tokio::{sync::Semaphore, task::JoinSet};

/// Seeds of conforming journeys.
const CONFORMING: [u64; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/// Seeds of defective journeys; each is composed with the fault
/// `seed % FAULTS`, so the list holds every fault twice.
const DEFECTIVE: [u64; 10] = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20];

/// Form-driver runs at once: subprocesses, each quick.
static FORM_RUNS: Semaphore = Semaphore::const_new(3);

/// Written to the terminal, past the test harness's capture: the zoo's
/// journeys and runtime are shown on every run, not only on failure.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The seeds a test runs: the fixed ones, and random ones in CI; or only
/// those `PAYCONF_ZOO_SEEDS` lists (`2,13`), to replay a journey.
fn seeds(fixed: &[u64]) -> Vec<u64> {
    if let Ok(listed) = std::env::var("PAYCONF_ZOO_SEEDS") {
        return listed
            .split(',')
            .filter_map(|seed| seed.trim().parse().ok())
            .collect();
    }
    let mut seeds = fixed.to_vec();
    let random = std::env::var("PAYCONF_ZOO_RANDOM")
        .ok()
        .and_then(|n| n.parse().ok())
        .or_else(|| std::env::var_os("CI").map(|_| 6))
        .unwrap_or(0);
    for _ in 0..random {
        let seed = uuid::Uuid::new_v4().as_u64_pair().0 % 1_000_000_000;
        say(&format!("zoo: random seed {seed}"));
        seeds.push(seed);
    }
    seeds
}

/// What a run of `journey` with `driver` must end in, checked; `Err` says
/// how it did not.
async fn check(journey: Journey, driver: &'static str) -> Result<(), String> {
    let zoo = Zoo::start(journey.clone()).await;
    let defective = journey.fault.is_some();
    let tags = if defective {
        "@core and @req:TDS-04"
    } else {
        "@core"
    };
    let run = run_against(&zoo.base, &journey.acs(driver), tags, &[], &[]).await;
    let code = run.output.code;
    let expected = if driver == "form" && journey.needs_script() {
        // The form driver cannot run the script: the harness's ERROR.
        (code == Some(2) && run.output.says("driver = \"browser\""))
            .then_some(())
            .ok_or("an ERROR naming the browser driver")
    } else if defective {
        (code == Some(1)
            && run.output.failed() == core_scenarios_checking("TDS-04")
            && run.output.errors().is_empty())
        .then_some(())
        .ok_or("TDS-04 failed, nothing else")
    } else {
        (code == Some(0))
            .then_some(())
            .ok_or("every @core scenario passed")
    };
    expected.map_err(|want| {
        format!(
            "{journey}\nwith the {driver} driver: expected {want}\n{}",
            run.said()
        )
    })
}

/// Runs every seed with each driver: as defective journeys, or conforming.
async fn run_zoo(test: &str, fixed: &[u64], defective: bool) {
    let started = Instant::now();
    let browser = browser_or_skip(test);
    let mut runs = JoinSet::new();
    let seeds = seeds(fixed);
    for &seed in &seeds {
        let journey = Journey::compose(
            seed,
            defective.then_some(usize::try_from(seed).unwrap_or(0) % FAULTS),
        );
        say(&format!("zoo: {journey}"));
        let mut drivers = vec!["form"];
        if browser {
            drivers.push("browser");
        }
        for driver in drivers {
            let journey = journey.clone();
            let test = test.to_owned();
            runs.spawn(async move {
                let _turn = if driver == "browser" {
                    browser_turn(&test).await.expect("the browser is there")
                } else {
                    FORM_RUNS.acquire().await.expect("semaphore")
                };
                check(journey, driver).await
            });
        }
    }
    let mut wrong = Vec::new();
    while let Some(outcome) = runs.join_next().await {
        if let Err(why) = outcome.expect("the run finishes") {
            wrong.push(why);
        }
    }
    say(&format!(
        "zoo: {} {} journeys with {} in {:.1} s",
        seeds.len(),
        if defective { "defective" } else { "conforming" },
        if browser {
            "both drivers"
        } else {
            "the form driver"
        },
        started.elapsed().as_secs_f64()
    ));
    assert!(
        wrong.is_empty(),
        "{} of the zoo's runs went wrong:\n\n{}",
        wrong.len(),
        wrong.join("\n\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_conforming_journey_of_the_zoo_passes_core() {
    run_zoo(
        "every_conforming_journey_of_the_zoo_passes_core",
        &CONFORMING,
        false,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_defective_journey_of_the_zoo_fails_tds04() {
    run_zoo(
        "every_defective_journey_of_the_zoo_fails_tds04",
        &DEFECTIVE,
        true,
    )
    .await;
}
