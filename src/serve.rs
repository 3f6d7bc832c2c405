//! `payconf serve`: the reference implementation on a socket of the user's
//! choice, until Ctrl-C or SIGTERM.

use std::{io::Write, process::ExitCode};

use anyhow::Context;
use payconf_reference::ReferenceConfig;
use tokio::net::TcpListener;

use crate::cli::ServeArgs;

/// Binds, prints `listening on http://HOST:PORT` as the first line of stdout,
/// and serves until a shutdown signal.
pub async fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = match &args.config {
        Some(path) => ReferenceConfig::load(path)?,
        None => ReferenceConfig::default(),
    };
    let listener = TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let local = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{local}")
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")?;
    drop(stdout);
    payconf_reference::run(listener, config, shutdown_signal()).await?;
    Ok(ExitCode::SUCCESS)
}

/// Completes on Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
