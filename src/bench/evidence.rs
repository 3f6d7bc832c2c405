//! `payconf bench --bundles`: what an evidence bundle costs, as users make
//! and check one: a whole `payconf run` against the embedded reference
//! implementation with and without `--evidence` (the difference is the
//! bundle's writing, the HAR it needs among it), the bundle's size, and
//! `payconf verify` of it, each timed from start to exit with its peak
//! resident memory, in rounds that take turns; the medians are printed.

use super::error::BenchError;
use super::processes::{Measured, measure};

/// Measures `rounds` rounds and prints the medians.
pub fn evidence(rounds: usize) -> Result<(), BenchError> {
    let scratch =
        std::env::temp_dir().join(format!("payconf-bench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&scratch).map_err(BenchError::file(&scratch))?;
    let measured = rounds_in(&scratch, rounds.max(1));
    let _ = std::fs::remove_dir_all(&scratch);
    let (plain, sealed, verified, bytes) = measured?;
    println!(
        "payconf bench --bundles: {} CPUs, {} rounds, medians",
        std::thread::available_parallelism().map_or(1, usize::from),
        rounds.max(1)
    );
    println!("{}", line("payconf run", &plain));
    println!("{}", line("payconf run --evidence", &sealed));
    println!("{}", line("payconf verify --key", &verified));
    println!(
        "bundle: {bytes} bytes ({:.1} KiB); writing it added {:.0} ms to the run",
        bytes as f64 / 1024.0,
        (sealed.wall.as_secs_f64() - plain.wall.as_secs_f64()) * 1000.0
    );
    Ok(())
}

type Medians = (Measured, Measured, Measured, u64);

fn rounds_in(scratch: &std::path::Path, rounds: usize) -> Result<Medians, BenchError> {
    let pair = crate::runner::bundle::keys::keygen(&scratch.join("signing"))
        .map_err(BenchError::start("a signing key"))?;
    let bundle = scratch.join("evidence.tar.gz");
    let bundle_path = bundle.display().to_string();
    let (mut plain, mut sealed, mut verified) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        plain.push(passing(&["run"])?);
        sealed.push(passing(&[
            "run",
            "--evidence",
            &bundle_path,
            "--signing-key",
            &pair.secret,
        ])?);
        verified.push(passing(&["verify", &bundle_path, "--key", &pair.public])?);
    }
    let bytes = std::fs::metadata(&bundle)
        .map_err(BenchError::file(&bundle))?
        .len();
    Ok((median(plain), median(sealed), median(verified), bytes))
}

/// `payconf ARGS` measured, which must pass: a failing run measures nothing.
fn passing(args: &[&str]) -> Result<Measured, BenchError> {
    let measured = measure(args)?;
    if measured.code == Some(0) {
        Ok(measured)
    } else {
        Err(BenchError::measured(format!(
            "payconf {} did not pass (exit code {}), so it is not a measure",
            args.join(" "),
            measured
                .code
                .map_or_else(|| "none".to_owned(), |c| c.to_string())
        )))
    }
}

/// The round of median wall time (its memory with it).
fn median(mut measured: Vec<Measured>) -> Measured {
    measured.sort_by_key(|m| m.wall);
    let middle = measured.len() / 2;
    measured.swap_remove(middle)
}

fn line(name: &str, measured: &Measured) -> String {
    format!(
        "{name:<24} {:>8.1} ms wall   {:>5.1} MiB peak resident",
        measured.wall.as_secs_f64() * 1000.0,
        measured.peak_kib as f64 / 1024.0
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_median_is_the_middle_round() {
        let at = |ms| Measured {
            wall: Duration::from_millis(ms),
            peak_kib: ms,
            code: Some(0),
        };
        assert_eq!(median(vec![at(30), at(10), at(20)]).peak_kib, 20);
        assert_eq!(median(vec![at(1)]).peak_kib, 1);
    }
}
