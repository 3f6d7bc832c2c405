//! `payconf run --har FILE`: the file is HAR 1.2 as a HAR reader (the `har`
//! crate) parses it, and it holds every exchange of the run: each scenario
//! of the results a page, each entry on its scenario's page, the API calls
//! and issuer pages a scenario makes, the generated requests of
//! `@robustness` that the other reports leave out, and the pages the
//! browser loads. (.ci/check-reports also opens it with haralyzer and
//! validates it against the HAR schema with har-validator.) Secrets are
//! covered by tests/harness/redaction.rs, which writes a HAR file too.

use std::{collections::BTreeMap, path::Path};

use crate::support::runner::{TempFile, browser_or_skip, core_scenarios_checking, payconf_run};
use har::{Har, Spec, v1_2};
use payconf::runner::record::RunRecord;
use serde_json::Value;

/// Runs `payconf run ARGS --har --results` and reads both files.
fn run_with_har(args: &[&str]) -> (v1_2::Log, Value, RunRecord) {
    let har_file = TempFile::new("run.har", "");
    let results_file = TempFile::new("results.json", "");
    let har_path = har_file.0.display().to_string();
    let results_path = results_file.0.display().to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--har", &har_path, "--results", &results_path]);
    let output = payconf_run(&all);
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let parsed: Har = har::from_path(Path::new(&har_path)).expect("a HAR reader opens the file");
    let Spec::V1_2(log) = parsed.log else {
        panic!("the file is not HAR 1.2");
    };
    let raw: Value =
        serde_json::from_str(&std::fs::read_to_string(&har_path).expect("HAR file")).expect("JSON");
    let results = RunRecord::load(Path::new(&results_path)).expect("the results read back");
    (log, raw, results)
}

/// Entries per page.
fn entries_by_page(log: &v1_2::Log) -> BTreeMap<String, Vec<&v1_2::Entries>> {
    let mut pages: BTreeMap<String, Vec<&v1_2::Entries>> = BTreeMap::new();
    for entry in &log.entries {
        let page = entry.pageref.clone().expect("every entry names its page");
        pages.entry(page).or_default().push(entry);
    }
    pages
}

#[test]
fn every_scenario_is_a_page_holding_its_exchanges_in_order_with_timings() {
    let (log, raw, results) = run_with_har(&[]);
    assert_eq!(log.creator.name, "payconf");
    let scenarios = &results.scenarios;
    let pages: Vec<String> = log
        .pages
        .as_ref()
        .expect("pages")
        .iter()
        .map(|p| p.id.clone())
        .collect();
    // The scenarios set aside (the lightbox's, for the form driver) sent
    // nothing: they have no page.
    let locations: Vec<String> = scenarios
        .iter()
        .filter(|s| s.outcome != payconf::runner::record::OutcomeKind::Skipped)
        .map(|s| s.location.clone())
        .collect();
    assert_eq!(
        pages, locations,
        "one page per scenario that ran, in the results' order"
    );

    let by_page = entries_by_page(&log);
    for (page, entries) in &by_page {
        assert!(
            pages.contains(page),
            "an entry names the unknown page {page}"
        );
        let started: Vec<&str> = entries
            .iter()
            .map(|e| e.started_date_time.as_str())
            .collect();
        let mut sorted = started.clone();
        sorted.sort();
        assert_eq!(
            started, sorted,
            "{page}: entries in the order they were sent"
        );
        for entry in entries {
            assert!(
                entry
                    .comment
                    .as_deref()
                    .is_some_and(|c| c.ends_with(&format!("({page})"))),
                "{page}: the entry's comment names its scenario: {:?}",
                entry.comment
            );
            assert!(entry.time >= entry.timings.wait, "{page}: time covers wait");
            assert!(
                entry.response.status > 0,
                "{page}: every exchange was answered"
            );
        }
    }
    // Every exchange: a 3-D Secure payment through the issuer's form is
    // create, submit, the issuer page and the answer to its form.
    let tds_04 = core_scenarios_checking("TDS-04");
    let [page] = tds_04.iter().collect::<Vec<_>>()[..] else {
        panic!("one core scenario checks TDS-04: {tds_04:?}");
    };
    let through_issuer = &by_page[page.as_str()];
    let calls: Vec<String> = through_issuer
        .iter()
        .map(|e| {
            let path = e
                .request
                .url
                .split("//")
                .nth(1)
                .and_then(|r| r.split_once('/'))
                .map(|(_, p)| p);
            format!(
                "{} /{}",
                e.request.method,
                path.unwrap_or("").split('?').next().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            "POST /api/v1/payment/create/",
            "POST /api/v1/payment/submit/",
            "GET /pagam/pagam3d.aspx",
            "POST /pagam/pagam3d.aspx"
        ]
    );
    // The extensions a generic reader does not model are there for those that do.
    let first = &raw["log"]["entries"][0];
    assert_eq!(first["_payconf"]["location"], first["pageref"]);
    assert_eq!(first["_payconf"]["seen_by"], "payconf");
    let outcome_of = |location: &str| {
        scenarios
            .iter()
            .find(|s| s.location == location)
            .map(|s| Value::from(s.outcome.name()))
    };
    assert_eq!(
        Some(first["_payconf"]["outcome"].clone()),
        outcome_of(first["pageref"].as_str().expect("pageref"))
    );
}

#[test]
fn the_generated_requests_the_other_reports_leave_out_are_in_the_har_file() {
    // The embedded reference implementation at its own sizes: a target
    // file without a base URL is refused, never run against it with its
    // settings ignored (as this test once did).
    let (log, _, _) = run_with_har(&["--tags", "@robustness"]);
    let by_page = entries_by_page(&log);
    let count = |feature_line: &str| by_page.get(feature_line).map_or(0, Vec::len);
    let robustness: Vec<(&String, usize)> = by_page
        .iter()
        .filter(|(page, _)| page.starts_with("robustness.feature:"))
        .map(|(page, entries)| (page, entries.len()))
        .collect();
    let total: usize = robustness.iter().map(|(_, n)| n).sum();
    // At least 5 submits at once, 4 whole payments (8 calls), 12 + 12
    // generated bodies, each scenario's own payments besides.
    assert!(total >= 5 + 8 + 24, "{robustness:?}");
    assert!(
        robustness
            .iter()
            .any(|(page, n)| *n >= 12 && count(page) == *n),
        "the generated bodies are on their scenario's page: {robustness:?}"
    );
}

#[test]
fn the_pages_the_browser_loads_are_entries_of_their_scenario() {
    if !browser_or_skip("the_pages_the_browser_loads_are_entries_of_their_scenario") {
        return;
    }
    let (_, raw, _) = run_with_har(&["--acs-driver", "browser", "--tags", "@issuer"]);
    let entries = raw["log"]["entries"].as_array().expect("entries");
    let seen_by_browser: Vec<&Value> = entries
        .iter()
        .filter(|e| e["_payconf"]["seen_by"] == "browser")
        .collect();
    assert!(
        seen_by_browser
            .iter()
            .any(|e| e["request"]["method"] == "POST"
                && e["response"]["status"] == 303
                && e["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.contains("/pagam/pagam3d.aspx"))),
        "the browser's answer to the issuer form and its redirect"
    );
    assert!(
        seen_by_browser.iter().any(|e| e["request"]["url"]
            .as_str()
            .is_some_and(|u| u.contains("/merchant/"))),
        "the merchant's page the buyer lands on"
    );
    for entry in seen_by_browser {
        assert!(
            entry["startedDateTime"]
                .as_str()
                .is_some_and(|d| d.starts_with("20")),
            "{entry}"
        );
    }
}
