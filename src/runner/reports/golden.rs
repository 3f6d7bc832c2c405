//! The reports' golden tests: the run of every outcome
//! ([`crate::runner::result::fixtures`]) with the record of
//! `result/record/testdata/results-v1.json` rendered as JUnit XML and
//! Cucumber JSON, and compared with `testdata/` byte for byte, as the
//! console's are. A change to a report is made on purpose:
//! `PAYCONF_BLESS=1 cargo test -p payconf --lib reports::golden`, then
//! read `git diff`.

use payconf_spec::features::Features;
use time::OffsetDateTime;

use super::{Format, Rendered};
use crate::runner::{
    outcome::RunOutcome,
    result::{
        RunRecord,
        fixtures::{assert_golden, every_outcome},
    },
    target_file::tests::{COMPLETE, target},
};

/// `testdata/NAME`, compared with what was printed.
fn golden(name: &str, printed: &str) {
    assert_golden("src/runner/reports/testdata", name, printed);
}

fn record() -> RunRecord {
    let text = include_bytes!("../result/record/testdata/results-v1.json");
    RunRecord::parse("results-v1.json", text).expect("the golden record reads")
}

#[test]
fn the_run_of_every_outcome_renders_as_kept() {
    let report = every_outcome();
    let features = Features::embedded().expect("the features parse");
    let target = target(COMPLETE);
    let inputs = RunOutcome {
        record: record(),
        report,
        features,
        target,
        started: OffsetDateTime::UNIX_EPOCH,
    };
    let rendered = Rendered::new(&inputs);
    for (format, name) in [
        (Format::Junit, "every_outcome.junit.xml"),
        (Format::CucumberJson, "every_outcome.cucumber.json"),
    ] {
        golden(name, rendered.text(format).expect("renders"));
    }
    // The results file is the record, serialised: its own golden file.
    assert_eq!(
        rendered.text(Format::Results).expect("renders"),
        String::from_utf8_lossy(include_bytes!("../result/record/testdata/results-v1.json"))
    );
}
