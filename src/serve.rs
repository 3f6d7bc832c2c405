//! `payconf serve`: the reference implementation on a socket of the user's
//! choice, until Ctrl-C or SIGTERM; with `--data`, its profiles, payments
//! and notifications owed kept in a file across restarts.

use std::{
    io::Write,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::Arc,
};

use payconf_reference::{ConfigError, ReferenceConfig, ServeError, TlsError};
use tokio::net::TcpListener;

use crate::interruption::Interruption;

/// Everything `payconf serve` takes.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    /// The back-office configuration file; the built-in defaults without one.
    pub config: Option<PathBuf>,
    /// Serve HTTPS with this certificate and key.
    pub tls: Option<TlsFiles>,
    /// The data file; memory only without one.
    pub data: Option<PathBuf>,
    /// Loopback and private ranges notifications may go to beyond loopback.
    pub allow_outbound: Vec<payconf_reference::Cidr>,
    /// Serve the demo checkout beyond loopback too.
    pub demo: bool,
}

/// A certificate (PEM, its chain after it) and its private key (PEM).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate file.
    pub cert: PathBuf,
    /// The key file.
    pub key: PathBuf,
}

/// Why `payconf serve` could not serve.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The back-office configuration is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A certificate or key file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file, as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The certificate and key cannot be served.
    #[error("--tls-cert {cert} --tls-key {key}: {source}")]
    Tls {
        /// The certificate file, as given.
        cert: String,
        /// The key file, as given.
        key: String,
        /// Why.
        source: TlsError,
    },
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C and SIGTERM cannot be heard.
    #[error("cannot listen for signals: {0}")]
    Signals(std::io::Error),
    /// The first line, the address, cannot be written.
    #[error("cannot write to stdout: {0}")]
    Stdout(std::io::Error),
    /// The server stopped with an error.
    #[error(transparent)]
    Serve(#[from] ServeError),
}

/// Binds, prints `listening on http://HOST:PORT` (`https://` with a
/// certificate) as the first line of stdout, and serves until a shutdown
/// signal.
pub async fn serve(options: ServeOptions) -> Result<ExitCode, SandboxError> {
    let mut config = match &options.config {
        Some(path) => ReferenceConfig::load(path)?,
        None => ReferenceConfig::default(),
    };
    config.data_file.clone_from(&options.data);
    config
        .outbound_allow
        .extend(options.allow_outbound.iter().copied());
    if options.demo {
        config.demo_checkout = Some(true);
    }
    let tls = options.tls.as_ref().map(server_config).transpose()?;
    let listener =
        TcpListener::bind(options.addr)
            .await
            .map_err(|source| SandboxError::Listen {
                addr: options.addr,
                source,
            })?;
    let mut interruption = Interruption::listen().map_err(SandboxError::Signals)?;
    let local = listener
        .local_addr()
        .map_err(|source| SandboxError::Listen {
            addr: options.addr,
            source,
        })?;
    // The data file is opened and read back before the sandbox says it
    // listens: one it cannot use stops it here, never serving empty.
    let prepared = payconf_reference::Prepared::new(&listener, config, tls.is_some())?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {scheme}://{local}")
        .and_then(|()| stdout.flush())
        .map_err(SandboxError::Stdout)?;
    drop(stdout);
    prepared
        .serve(listener, tls, async move {
            interruption.next().await;
        })
        .await?;
    Ok(ExitCode::SUCCESS)
}

/// The TLS configuration of a certificate and key.
fn server_config(files: &TlsFiles) -> Result<Arc<rustls::ServerConfig>, SandboxError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| SandboxError::Read {
            path: path.display().to_string(),
            source,
        })
    };
    payconf_reference::server_config(&read(&files.cert)?, &read(&files.key)?).map_err(|source| {
        SandboxError::Tls {
            cert: files.cert.display().to_string(),
            key: files.key.display().to_string(),
            source,
        }
    })
}
