//! The `payconf` command: see `payconf --help`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = payconf::cli::Cli::parse();
    payconf::cli::main(cli)
}
