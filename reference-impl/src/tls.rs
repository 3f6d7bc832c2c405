//! HTTPS for the sandbox: a certificate and key in PEM made into a rustls
//! server configuration that offers HTTP/2 and HTTP/1.1 by ALPN. The accept
//! loop ([`crate::server`]) completes each handshake within the header
//! timeout and serves the protocol the client chose.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};

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
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| TlsError::Pair(e.to_string()))?
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .map_err(|e| TlsError::Pair(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
