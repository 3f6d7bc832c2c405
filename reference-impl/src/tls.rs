//! HTTPS for the sandbox: a certificate and key in PEM made into a rustls
//! server configuration that offers HTTP/2 and HTTP/1.1 by ALPN. The accept
//! loop ([`crate::server`]) completes each handshake within the header
//! timeout and serves the protocol the client chose.
//!
//! The cryptography of every TLS connection payconf makes or takes, the
//! sandbox's and the runner's, is *ring*'s, through one provider
//! ([`crypto_provider`]); every HTTP client starts from [`http_client`],
//! which makes that provider the process's default first, as reqwest
//! (built without a provider of its own) needs. `clippy.toml` refuses
//! reqwest's own constructors everywhere else. Why *ring* and not aws-lc:
//! it has what payconf speaks and checks (TLS 1.2 and 1.3, X25519 and the
//! NIST curves, RSA, ECDSA and Ed25519 signatures, PBKDF2 for the
//! sandbox's passwords), and aws-lc's C was about a minute of CPU in every
//! clean build (a clean test build on two cores: 814 CPU-seconds with it,
//! about 745 without). What it lacks is the post-quantum hybrid key
//! exchange (X25519MLKEM768): a server that offers it negotiates X25519.

use std::sync::{Arc, LazyLock, Once};

use rustls::{
    crypto::CryptoProvider,
    pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
};

/// The one provider, made once.
static PROVIDER: LazyLock<Arc<CryptoProvider>> =
    LazyLock::new(|| Arc::new(rustls::crypto::ring::default_provider()));

/// The cryptography of payconf's TLS, client and server: *ring*'s default
/// provider, the same `Arc` every time.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::clone(&PROVIDER)
}

/// A reqwest client builder, the only way payconf starts one: the
/// process's default rustls provider is [`crypto_provider`]'s from here
/// on (unless the program that embeds payconf installed one of its own
/// before, which is then kept), so a client with reqwest's own TLS
/// configuration can be built.
#[allow(clippy::disallowed_methods)]
pub fn http_client() -> reqwest::ClientBuilder {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        // Err: another provider is the default already, and serves.
        let _ = CryptoProvider::install_default(CryptoProvider::clone(&PROVIDER));
    });
    reqwest::Client::builder()
}

/// Why a certificate and key could not be served.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate file holds no PEM certificate.
    #[error("the certificate is not PEM (no CERTIFICATE block): {0}")]
    Certificate(String),
    /// The key file holds no PEM private key.
    #[error("the key is not a PEM private key: {0}")]
    Key(String),
    /// rustls refused the pair (a key that does not match, say).
    #[error("the certificate and key cannot be served: {0}")]
    Pair(String),
}

/// A server configuration for `cert_pem` (its chain after it) and `key_pem`.
pub fn server_config(
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsError::Certificate(e.to_string()))?;
    if chain.is_empty() {
        return Err(TlsError::Certificate("none found".to_owned()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Key(e.to_string()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
    .map_err(|e| TlsError::Pair(e.to_string()))?
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .map_err(|e| TlsError::Pair(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
