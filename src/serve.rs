//! `payconf serve`: the reference implementation on a socket of the user's
//! choice, until Ctrl-C or SIGTERM.

use std::{io::Write, process::ExitCode};

use anyhow::Context;
use payconf_reference::ReferenceConfig;
use tokio::net::TcpListener;

use crate::{cli::ServeArgs, interruption::Interruption};

/// Binds, prints `listening on http://HOST:PORT` (`https://` with
/// `--tls-cert`) as the first line of stdout, and serves until a shutdown
/// signal.
pub async fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = match &args.config {
        Some(path) => ReferenceConfig::load(path)?,
        None => ReferenceConfig::default(),
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            let read = |path: &std::path::Path| {
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
            };
            let config =
                payconf_reference::server_config(&read(cert)?, &read(key)?).with_context(|| {
                    format!("--tls-cert {} --tls-key {}", cert.display(), key.display())
                })?;
            Some(config)
        }
        _ => None,
    };
    let listener = TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let mut interruption = Interruption::listen().context("cannot listen for signals")?;
    let local = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let mut stdout = std::io::stdout().lock();
    let scheme = if tls.is_some() { "https" } else { "http" };
    writeln!(stdout, "listening on {scheme}://{local}")
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")?;
    drop(stdout);
    payconf_reference::run_tls(listener, config, tls, async move {
        interruption.next().await;
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
