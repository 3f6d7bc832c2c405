//! The processes a benchmark measures: servers started as users start them
//! (`payconf serve`, and the baseline), and whole `payconf run`s timed with
//! their peak resident memory.

use super::error::BenchError;
use std::{
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use nix::{
    sys::signal::{Signal, kill},
    unistd::Pid,
};
use tokio::{
    io::{AsyncBufReadExt, BufReader},
    process::{Child, Command},
};
use url::Url;

use crate::runner::record::RunRecord;

/// How long a server has to say where it listens.
const START_BOUND: Duration = Duration::from_secs(10);

/// A `payconf` server in a process of its own.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// Where it listens, as it said on its first line.
    pub url: Url,
}

impl ServerProcess {
    /// Starts `payconf ARGS` with these environment variables removed and
    /// its stderr written to `stderr` (discarded without one), and waits for
    /// its `listening on URL` line.
    pub async fn start(
        args: &[&str],
        without: &[&str],
        stderr: Option<&Path>,
    ) -> Result<Self, BenchError> {
        let mut command = Command::new(payconf()?);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        for name in without {
            command.env_remove(name);
        }
        command.stderr(match stderr {
            Some(path) => std::fs::File::create(path)
                .map_err(BenchError::file(path))?
                .into(),
            None => Stdio::null(),
        });
        let what = format!("payconf {}", args.join(" "));
        let mut child = command.spawn().map_err(BenchError::start(&what))?;
        let stdout = child.stdout.take().expect("stdout was piped");
        let mut lines = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(START_BOUND, lines.next_line())
            .await
            .map_err(|_| BenchError::start(&what)("it did not say where it listens within 10 s"))?
            .map_err(BenchError::start(&what))?
            .ok_or_else(|| BenchError::start(&what)("it exited before it listened"))?;
        let url = first
            .strip_prefix("listening on ")
            .and_then(|url| Url::parse(url).ok())
            .ok_or_else(|| {
                BenchError::start(&what)(format!("it said {first:?}, not where it listens"))
            })?;
        // Whatever else it prints is read, so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self { child, url })
    }

    /// Stops it with SIGTERM, as a service manager does, and waits for it
    /// to finish its shutdown.
    pub async fn stop(mut self) -> Result<(), BenchError> {
        if let Some(id) = self.child.id() {
            let pid =
                Pid::from_raw(i32::try_from(id).map_err(|e| BenchError::measured(e.to_string()))?);
            kill(pid, Signal::SIGTERM)
                .map_err(|e| BenchError::measured(format!("cannot stop the server: {e}")))?;
        }
        match tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await {
            Ok(Ok(status)) if status.success() => Ok(()),
            Ok(Ok(status)) => Err(BenchError::measured(format!(
                "the server ended with {status}"
            ))),
            Ok(Err(e)) => Err(BenchError::measured(format!(
                "cannot wait for the server: {e}"
            ))),
            Err(_) => Err(BenchError::measured(
                "the server did not stop within 30 s of SIGTERM",
            )),
        }
    }
}

/// A whole `payconf run` with `args` against the target file `target`,
/// its record read back and its wall time: `Err` saying what the run
/// printed when it did not pass (`failed` names what did not).
pub(super) async fn run_recorded(
    args: &[&str],
    target: &str,
    failed: &str,
) -> Result<(RunRecord, Duration), BenchError> {
    let program = payconf()?;
    let scratch =
        std::env::temp_dir().join(format!("payconf-bench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&scratch).map_err(BenchError::file(&scratch))?;
    let file = scratch.join("target.toml");
    let results = scratch.join("results.json");
    std::fs::write(&file, target).map_err(BenchError::file(&file))?;
    let mut command = std::process::Command::new(program);
    command
        .arg("run")
        .args(args)
        .arg("--target")
        .arg(&file)
        .arg("--results")
        .arg(&results)
        .env_remove("PAYCONF_ACS_DRIVER");
    let started = Instant::now();
    let output = tokio::task::spawn_blocking(move || command.output())
        .await?
        .map_err(BenchError::start("payconf run"))?;
    let wall = started.elapsed();
    let record = RunRecord::load(&results);
    let _ = std::fs::remove_dir_all(&scratch);
    if !output.status.success() {
        return Err(BenchError::measured(format!(
            "{failed}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok((
        record.map_err(|e| BenchError::measured(e.to_string()))?,
        wall,
    ))
}

/// The `payconf` program this benchmark is.
pub(super) fn payconf() -> Result<PathBuf, BenchError> {
    std::env::current_exe().map_err(BenchError::start("payconf (its own program)"))
}

/// A whole command's wall time and the most memory it held.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// From start to exit.
    pub wall: Duration,
    /// Peak resident memory, in KiB.
    pub peak_kib: u64,
    /// Its exit code, none when a signal ended it.
    pub code: Option<i32>,
}

/// Runs `payconf ARGS` through `payconf bench-helper measure`, a process
/// of its own whose only child is the measured one, so that its children's
/// peak resident memory (`getrusage(RUSAGE_CHILDREN)`) is that command's.
pub fn measure(args: &[&str]) -> Result<Measured, BenchError> {
    let output = std::process::Command::new(payconf()?)
        .args(["bench-helper", "measure", "--"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(BenchError::start(format!("payconf {}", args.join(" "))))?;
    let said = String::from_utf8_lossy(&output.stdout);
    let last = said.lines().last().unwrap_or_default();
    parse_measured(last).ok_or_else(|| {
        BenchError::measured(format!(
            "payconf {} was not measured: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    })
}

/// `payconf bench-helper measure -- ARGS`: runs `payconf ARGS` with its
/// output discarded and prints `measured: WALL_SECONDS PEAK_KIB CODE`.
pub fn measure_child(args: &[String]) -> Result<(), BenchError> {
    let started = Instant::now();
    let status = std::process::Command::new(payconf()?)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(BenchError::start(format!("payconf {}", args.join(" "))))?;
    let wall = started.elapsed();
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map_err(|e| BenchError::measured(format!("cannot read the run's resource usage: {e}")))?;
    println!(
        "measured: {:.6} {} {}",
        wall.as_secs_f64(),
        usage.max_rss(),
        status.code().unwrap_or(-1)
    );
    Ok(())
}

fn parse_measured(line: &str) -> Option<Measured> {
    let mut fields = line.strip_prefix("measured: ")?.split(' ');
    let wall = Duration::from_secs_f64(fields.next()?.parse().ok()?);
    let peak_kib = fields.next()?.parse().ok()?;
    let code = fields.next()?.parse().ok().filter(|&c: &i32| c >= 0);
    Some(Measured {
        wall,
        peak_kib,
        code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_line_is_read_back() {
        let measured = parse_measured("measured: 0.412000 25600 0").expect("a measured line");
        assert_eq!(measured.wall, Duration::from_millis(412));
        assert_eq!(measured.peak_kib, 25_600);
        assert_eq!(measured.code, Some(0));
        let killed = parse_measured("measured: 1.5 100 -1").expect("a measured line");
        assert_eq!(killed.code, None);
        assert!(parse_measured("payconf: something else").is_none());
    }
}
