//! The command line: flags are documented where they are defined, and
//! `main` turns every outcome into an exit code.

use std::{io::IsTerminal, net::SocketAddr, path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

/// Exit code of a run that could not be carried out: usage, configuration,
/// an unreachable target, or a harness error.
pub const EXIT_USAGE: u8 = 2;

/// Conformance harness for the hosted payment service contract.
#[derive(Debug, Parser)]
#[command(name = "payconf", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference implementation as a local payment sandbox.
    Serve(ServeArgs),
}

/// Flags of `payconf serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Back-office configuration (TOML); built-in defaults without it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs a parsed command line and returns the process's exit code.
pub fn main(cli: Cli) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("payconf: cannot start the async runtime: {error}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Serve(args) => runtime.block_on(crate::serve::serve(args)),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("payconf: {error:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Logs go to stderr, filtered by `PAYCONF_LOG` (default `info`), so stdout
/// stays for what scripts read.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("PAYCONF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
