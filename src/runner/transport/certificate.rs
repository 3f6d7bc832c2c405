//! What a server's certificate says, for a message when payconf could not
//! trust it: who issued it, which names it is for, when it is valid. The
//! certificate is fetched by a handshake of its own that trusts nothing and
//! sends nothing after it: it only reads what the server presents, to
//! describe it, or whether it refuses the client ([`client_refusal`]). No
//! request of the run ever goes over such a connection.

use std::{sync::Arc, time::Duration};

use rustls::{AlertDescription, pki_types::ServerName};
use tokio::net::TcpStream;
use url::Url;
use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};

/// What the certificate a server presents says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateFacts {
    /// Its subject, as a distinguished name.
    pub subject: String,
    /// Who signed it.
    pub issuer: String,
    /// The names it is valid for (subject alternative names).
    pub names: Vec<String>,
    /// Valid from, and until (RFC 2822-like dates).
    pub valid: (String, String),
    /// Whether it signed itself.
    pub self_signed: bool,
}

impl CertificateFacts {
    /// Several lines for people.
    pub fn describe(&self) -> String {
        let names = if self.names.is_empty() {
            "none".to_owned()
        } else {
            self.names.join(", ")
        };
        format!(
            "  subject: {}\n  issued by: {}{}\n  names: {names}\n  valid: {} to {}",
            self.subject,
            self.issuer,
            if self.self_signed { " (itself)" } else { "" },
            self.valid.0,
            self.valid.1,
        )
    }
}

/// The certificate the server at `url` presents, read without trusting it.
pub async fn fetch(url: &Url, timeout: Duration) -> Option<CertificateFacts> {
    let config = reading_only(None)?;
    let handshake = async {
        let tls = handshake(url, config).await?.ok()?;
        let (_, session) = tls.get_ref();
        let leaf = session.peer_certificates()?.first()?.clone();
        facts(&leaf)
    };
    tokio::time::timeout(timeout, handshake)
        .await
        .ok()
        .flatten()
}

/// The alert by which the server at `url` refuses a client that shows
/// `identity` (a PEM certificate and key) or none, if it does. In TLS 1.3
/// the refusal comes after the handshake, at the client's first read: an
/// HTTP client that wrote its request first may see only the connection
/// closing, so payconf asks again by a handshake of its own that sends
/// nothing and reads.
pub async fn client_refusal(
    url: &Url,
    identity: Option<&[u8]>,
    timeout: Duration,
) -> Option<AlertDescription> {
    use tokio::io::AsyncReadExt;
    let config = reading_only(identity)?;
    let alert = |error: &std::io::Error| match error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
    {
        Some(rustls::Error::AlertReceived(alert)) => Some(*alert),
        _ => None,
    };
    let probe = async {
        match handshake(url, config).await? {
            Err(error) => alert(&error),
            Ok(mut tls) => tls.read(&mut [0_u8; 1]).await.err().and_then(|e| alert(&e)),
        }
    };
    tokio::time::timeout(timeout, probe).await.ok().flatten()
}

/// A client configuration that trusts whatever the server presents, and
/// presents `identity` when given: for handshakes that send nothing after
/// them.
fn reading_only(identity: Option<&[u8]>) -> Option<rustls::ClientConfig> {
    let provider = payconf_reference::crypto_provider();
    super::trust::ServerTrust::read_only(provider).client_config(identity)
}

/// A TLS handshake with the server at `url`: the stream, or the
/// handshake's error; `None` when it cannot be reached at all.
async fn handshake(
    url: &Url,
    config: rustls::ClientConfig,
) -> Option<std::io::Result<tokio_rustls::client::TlsStream<TcpStream>>> {
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = url.port_or_known_default()?;
    let name = ServerName::try_from(host.clone()).ok()?;
    let tcp = TcpStream::connect((host.as_str(), port)).await.ok()?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    Some(connector.connect(name, tcp).await)
}

/// A certificate's facts, from its DER form.
pub fn facts(der: &[u8]) -> Option<CertificateFacts> {
    let (_, certificate) = X509Certificate::from_der(der).ok()?;
    let names = certificate
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|extension| {
            extension
                .value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    GeneralName::DNSName(dns) => Some((*dns).to_owned()),
                    GeneralName::IPAddress(bytes) => ip_text(bytes),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let validity = certificate.validity();
    Some(CertificateFacts {
        subject: certificate.subject().to_string(),
        issuer: certificate.issuer().to_string(),
        names,
        valid: (
            validity.not_before.to_datetime().date().to_string(),
            validity.not_after.to_datetime().date().to_string(),
        ),
        self_signed: certificate.subject() == certificate.issuer(),
    })
}

fn ip_text(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(std::net::Ipv4Addr::from(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        16 => Some(std::net::Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?).to_string()),
        _ => None,
    }
}
