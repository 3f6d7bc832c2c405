//! How payconf reaches the target: `[tls]` (a private CA to trust, a client
//! certificate for mutual TLS) and `proxy`. Each is set in the target file
//! (paths relative to the file), overridden by the environment
//! (`PAYCONF_TLS_CA_FILE`, `PAYCONF_TLS_CLIENT_CERT`,
//! `PAYCONF_TLS_CLIENT_KEY`, `PAYCONF_PROXY`), overridden by flags. The
//! files are read and parsed when the target is resolved, so a wrong path or
//! a file that is not PEM is named before anything is sent. Verification is
//! never turned off: a CA is added to the trusted roots, nothing else.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use url::Url;

use super::{TargetError, target_error};

/// The `[tls]` table of a target file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TlsFile {
    /// A PEM bundle of CA certificates trusted besides the system's roots.
    pub ca_file: Option<PathBuf>,
    /// The client certificate (PEM, its chain after it) for mutual TLS.
    pub client_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    pub client_key: Option<PathBuf>,
}

/// Transport settings given as flags or their PAYCONF_* variables.
#[derive(Clone, Debug, Default)]
pub struct TransportOverrides {
    /// `--tls-ca-file`.
    pub ca_file: Option<PathBuf>,
    /// `--tls-client-cert`.
    pub client_cert: Option<PathBuf>,
    /// `--tls-client-key`.
    pub client_key: Option<PathBuf>,
    /// `--proxy`.
    pub proxy: Option<String>,
}

/// Checked TLS material, read from the files and parsed once.
#[derive(Clone, Debug, Default)]
pub struct TlsSettings {
    /// Where the trusted CAs came from, for messages.
    pub ca_source: Option<String>,
    /// The CAs trusted besides the system's roots.
    pub roots: Vec<reqwest::Certificate>,
    /// The same certificates, DER: trusted as CAs, and each also as itself
    /// when a server presents it (a self-signed certificate pinned, as
    /// curl's `--cacert` trusts one).
    pub pinned: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// Where the client certificate came from, for messages.
    pub client_source: Option<String>,
    /// The client certificate with its key, for mutual TLS.
    pub identity: Option<reqwest::Identity>,
    /// The same, as PEM, for a handshake of payconf's own.
    pub identity_pem: Option<Vec<u8>>,
}

impl TlsSettings {
    /// Trusts the CAs of a PEM bundle, named `source` in messages; `None`
    /// when it holds no certificate.
    pub fn trusting(source: &str, pem: &[u8]) -> Option<Self> {
        use rustls::pki_types::{CertificateDer, pem::PemObject};
        let roots = reqwest::Certificate::from_pem_bundle(pem)
            .ok()
            .filter(|roots| !roots.is_empty())?;
        let pinned = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        Some(Self {
            ca_source: Some(source.to_owned()),
            roots,
            pinned,
            ..Self::default()
        })
    }
}

impl TlsFile {
    /// Relative paths taken from the target file's folder.
    pub fn relative_to(self, folder: &Path) -> Self {
        let place = |path: Option<PathBuf>| path.map(|p| folder.join(p));
        Self {
            ca_file: place(self.ca_file),
            client_cert: place(self.client_cert),
            client_key: place(self.client_key),
        }
    }

    /// The flags (or their PAYCONF_* variables, read by clap) over the file.
    pub fn overridden(self, flags: &TransportOverrides) -> Self {
        Self {
            ca_file: flags.ca_file.clone().or(self.ca_file),
            client_cert: flags.client_cert.clone().or(self.client_cert),
            client_key: flags.client_key.clone().or(self.client_key),
        }
    }

    /// Reads and parses the files.
    pub fn check(&self) -> Result<TlsSettings, TargetError> {
        let mut settings = match &self.ca_file {
            Some(path) => {
                let source = path.display().to_string();
                TlsSettings::trusting(&source, &read("tls.ca_file", path)?).ok_or_else(|| {
                    target_error("tls.ca_file", format!("{source} holds no PEM certificate"))
                })?
            }
            None => TlsSettings::default(),
        };
        match (&self.client_cert, &self.client_key) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(target_error(
                    "tls.client_key",
                    "missing: tls.client_cert needs its private key",
                ));
            }
            (None, Some(_)) => {
                return Err(target_error(
                    "tls.client_cert",
                    "missing: tls.client_key needs its certificate",
                ));
            }
            (Some(cert), Some(key)) => {
                let mut pem = read("tls.client_cert", cert)?;
                pem.push(b'\n');
                pem.extend(read("tls.client_key", key)?);
                let identity = reqwest::Identity::from_pem(&pem).map_err(|_| {
                    target_error(
                        "tls.client_cert",
                        format!(
                            "{} and {} are not a PEM certificate and its private key",
                            cert.display(),
                            key.display()
                        ),
                    )
                })?;
                settings.client_source = Some(cert.display().to_string());
                settings.identity = Some(identity);
                settings.identity_pem = Some(pem);
            }
        }
        Ok(settings)
    }
}

fn read(setting: &str, path: &Path) -> Result<Vec<u8>, TargetError> {
    std::fs::read(path)
        .map_err(|e| target_error(setting, format!("cannot read {}: {e}", path.display())))
}

/// The `proxy` setting checked: an http or https proxy's address.
pub fn proxy_url(value: Option<String>) -> Result<Option<Url>, TargetError> {
    value
        .map(|value| {
            let url =
                Url::parse(&value).map_err(|e| target_error("proxy", format!("{e}: {value:?}")))?;
            if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
                return Err(target_error(
                    "proxy",
                    "must be an http or https proxy's address, like http://proxy.internal:3128",
                ));
            }
            Ok(url)
        })
        .transpose()
}
