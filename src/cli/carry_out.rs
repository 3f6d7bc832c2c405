//! `payconf run` and `payconf plan` as commands: what the command line owns
//! around the run, a library call ([`crate::runner::run`]). The signals,
//! listened for from the start; the suite loaded; a listing or a plan
//! printed; the console that watches the run; the reports, the evidence
//! bundle and GitHub's summary written from its outcome; the exit code.

use std::{io::IsTerminal as _, process::ExitCode};

use crate::{
    interruption::Interruption,
    runner::{
        self, Console, Ending, Mode, NotRun, Ran, RunOptions, RunOutcome, Suite, bundle,
        options::GitHubActions,
        reports::{self, Rendered, check_path, write_reports},
        result::Verdict,
        result_line,
    },
};

/// Carries out `payconf run` (or `payconf plan`, `run --list`): returns
/// the exit code.
pub async fn carry_out(options: RunOptions) -> Result<ExitCode, NotRun> {
    // Listening from the start: a signal that comes while the browser starts
    // is answered as soon as the scenarios would begin.
    let mut interruption = Interruption::listen().map_err(NotRun::Signals)?;
    let suite = Suite::load(&options)?;
    match options.mode {
        Mode::List if !options.target.given() => {
            print!("{}", runner::list::listing(&suite));
            return Ok(ExitCode::SUCCESS);
        }
        Mode::List | Mode::Plan => {
            print!("{}", runner::plan_text(&options, &suite)?);
            return Ok(ExitCode::SUCCESS);
        }
        Mode::Run => {}
    }
    // Where the record goes, checked before anything is sent: a run that
    // cannot write its reports or seal its evidence does not start.
    options.outputs.reports.check_paths()?;
    let sealing = match &options.outputs.evidence {
        Some(path) => Some((path.clone(), evidence_key(path, &options)?)),
        None => None,
    };
    let console = Console::new(Box::new(std::io::stdout())).live(live_terminal());
    let ran = runner::run(&options, suite, Box::new(console), interruption.next()).await?;
    let outcome = match ran {
        Ran::Judged(outcome) => outcome,
        Ran::NothingToRerun => {
            println!("{}", result_line(Ending::NothingToRerun));
            return Ok(ExitCode::SUCCESS);
        }
    };
    Ok(record(&options, sealing.as_ref(), &outcome))
}

/// Whether standard output is a terminal that can erase a line: where the
/// console keeps a live progress line.
fn live_terminal() -> bool {
    std::io::stdout().is_terminal() && std::env::var("TERM").map_or(true, |term| term != "dumb")
}

/// The key that signs a run's bundle at `path`, checked with the path
/// before anything is sent.
fn evidence_key(
    path: &std::path::Path,
    options: &RunOptions,
) -> Result<ed25519_dalek::SigningKey, NotRun> {
    check_path("--evidence", path)?;
    Ok(bundle::keys::signing_key(
        options.outputs.signing_key.as_deref(),
        options.outputs.signing_key_pem.as_deref(),
    )?)
}

/// Writes the record of the run: the reports, then the evidence bundle
/// sealed with `sealing`'s key, then GitHub's annotations and summary. The
/// exit code: the verdict's, or that of a run whose record could not be
/// written.
fn record(
    options: &RunOptions,
    sealing: Option<&(std::path::PathBuf, ed25519_dalek::SigningKey)>,
    outcome: &RunOutcome,
) -> ExitCode {
    let rendered = Rendered::new(outcome);
    if let Err(error) = write_reports(&options.outputs.reports, &rendered) {
        eprintln!("payconf: {error}");
        eprintln!("{}", result_line(Ending::ReportUnwritten));
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
                eprintln!("{}", result_line(Ending::BundleUnwritten));
                return Verdict::NotRun.into();
            }
        }
    }
    if let Some(github) = &options.outputs.github {
        github_actions(github, &outcome.record);
    }
    outcome.verdict().into()
}

/// Under GitHub Actions: the annotations, printed, and the step summary,
/// appended to its file. A summary that cannot be written is said, and
/// changes no verdict: the reports asked for are written.
fn github_actions(github: &GitHubActions, record: &runner::record::RunRecord) {
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
