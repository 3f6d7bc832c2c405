//! The runner as users run it: a whole `payconf run` against the embedded
//! reference implementation, and a robustness run, each timed from start
//! to exit with its peak resident memory.

use super::error::BenchError;
use super::processes::{Measured, measure};

/// The runs measured, as a user types them after `payconf`.
const RUNS: [(&str, &[&str]); 2] = [
    ("payconf run", &["run"]),
    (
        "payconf run --tags @robustness",
        &["run", "--tags", "@robustness"],
    ),
];

/// Measures each run and prints its wall time and peak resident memory.
pub(super) fn suite() -> Result<(), BenchError> {
    let mut failed = Vec::new();
    for (name, args) in RUNS {
        let measured = tokio::task::block_in_place(|| measure(args))?;
        println!("{}", line(name, &measured));
        if measured.code != Some(0) {
            failed.push(name);
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(BenchError::measured(format!(
            "{} did not pass",
            failed.join(" and ")
        )))
    }
}

fn line(name: &str, measured: &Measured) -> String {
    let verdict = match measured.code {
        Some(0) => "passed".to_owned(),
        Some(code) => format!("exit code {code}: not a passing run, so not a measure"),
        None => "killed by a signal".to_owned(),
    };
    format!(
        "{name:<32} {:>6.3} s wall   {:>5.1} MiB peak resident   {verdict}",
        measured.wall.as_secs_f64(),
        measured.peak_kib as f64 / 1024.0,
    )
}
