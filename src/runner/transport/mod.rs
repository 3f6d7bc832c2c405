//! How payconf reaches the target: the HTTP client every request of a run
//! goes through (rustls, the system's roots plus `tls.ca_file`, a client
//! certificate for mutual TLS, proxies chosen by [`proxy::ProxyRules`]),
//! the connection checked before the first scenario ([`preflight`]), and the
//! failures of the transport told apart from the target's: an untrusted,
//! expired or misnamed certificate, a refused client certificate, a proxy
//! that cannot be reached, a name that does not resolve. Those are payconf's
//! to fix (a setting), so they end a run as exit 2 before any scenario, and
//! as the harness's ERROR if they come up during one; never as the target's
//! FAIL.

pub mod addresses;
pub mod certificate;
pub mod encodings;
pub mod proxy;
mod trust;
mod unreachable;

use std::{error::Error as _, time::Duration};

use self::proxy::ProxyRules;
use crate::runner::target_file::TargetConfig;
use reqwest::Client;
use rustls::{AlertDescription, CertificateError};

/// Bounds on every exchange with the target.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Time for the whole exchange, from sending to the last byte read.
    pub timeout: Duration,
    /// The most bytes of a response body that are read.
    pub max_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            max_body: 1024 * 1024,
        }
    }
}

/// The run's HTTP client for `target`: HTTP/1.1, as merchants' servers
/// most often call a payment API.
pub fn client(target: &TargetConfig, limits: Limits) -> Result<Client, TransportError> {
    build(builder(target, limits).http1_only())
}

/// The run's client keeping no idle connection: each request on a
/// connection of its own (a request sent alone, after payconf's load).
pub fn alone_client(target: &TargetConfig, limits: Limits) -> Result<Client, TransportError> {
    build(
        builder(target, limits)
            .http1_only()
            .pool_max_idle_per_host(0),
    )
}

/// A volley's client: the run's client,
/// but keeping its idle connections (as many as the warm-up opened) for
/// longer, and offering HTTP/2 in the TLS handshake (ALPN), so that the
/// requests of a volley to a server that speaks it share one connection
/// and their last bytes can go out together.
pub fn volley_client(target: &TargetConfig, limits: Limits) -> Result<Client, TransportError> {
    build(builder(target, limits).pool_idle_timeout(Duration::from_secs(30)))
}

fn build(builder: reqwest::ClientBuilder) -> Result<Client, TransportError> {
    builder.build().map_err(TransportError::Client)
}

/// The target could not be reached, or payconf's transport not used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The HTTP client could not be built from the target's TLS settings.
    #[error("cannot build the HTTP client: {}", causes(.0))]
    Client(#[source] reqwest::Error),
    /// A failure of the transport that a setting fixes, described with it.
    #[error("{0}")]
    Fault(String),
    /// No answer: the connection failed.
    #[error("target unreachable: {url}: {}", unreachable::in_words(.url, .error))]
    Unreachable {
        /// The target's base URL.
        url: url::Url,
        /// How the connection failed: said in words, not as the
        /// client's chain of causes (each repeating the last).
        error: reqwest::Error,
    },
    /// No answer within the time an exchange has.
    #[error("target unreachable: {url}: no answer within {} s", .timeout.as_secs())]
    Silent {
        /// The target's base URL.
        url: url::Url,
        /// `--timeout`.
        timeout: Duration,
    },
}

fn builder(target: &TargetConfig, limits: Limits) -> reqwest::ClientBuilder {
    let rules = rules(target);
    let mut builder = payconf_reference::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(limits.timeout)
        // Shorter than the keep-alive timeouts servers commonly use (5 s for
        // Node.js and Apache): a request never goes out on an idle connection
        // the server is closing at that moment, which would fail it for nothing.
        .pool_idle_timeout(Duration::from_secs(2))
        .user_agent(concat!("payconf/", env!("CARGO_PKG_VERSION")))
        .tls_backend_rustls()
        .no_proxy()
        .proxy(reqwest::Proxy::custom(move |url| rules.proxy_for(url)));
    // The system's roots, read once, and the target's own: the same WebPKI
    // verification the platform verifier does on Linux, without reading
    // and parsing every root of the system again for each client. With a
    // `tls.ca_file`, its certificates are also pinned (`pinned`), in a
    // rustls configuration of payconf's own (`trust`).
    let roots = trust::system_roots();
    if let Some(config) = trust::client_config(&target.tls, &roots.der) {
        return builder.tls_backend_preconfigured(config);
    }
    builder = builder.tls_certs_only(
        roots
            .reqwest
            .iter()
            .cloned()
            .chain(target.tls.roots.iter().cloned()),
    );
    if let Some(identity) = &target.tls.identity {
        builder = builder.identity(identity.clone());
    }
    builder
}

/// The proxy rules of a run against `target`.
pub fn rules(target: &TargetConfig) -> ProxyRules {
    ProxyRules::new(target.proxy.clone(), |name| {
        target.proxy_variables.get(name).cloned()
    })
}

/// Reaches the target once before any scenario (TLS included): any HTTP
/// answer will do. A transport failure is described for people, with the
/// setting that fixes it.
pub async fn preflight(
    client: &Client,
    target: &TargetConfig,
    timeout: Duration,
) -> Result<(), TransportError> {
    let url = &target.base_url;
    let request = client.get(url.clone()).send();
    match tokio::time::timeout(timeout, request).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) => {
            let fault = match transport_fault(&error, target) {
                Some(fault) => Some(fault),
                None if url.scheme() == "https" => refused_client(target, timeout).await,
                None => None,
            };
            Err(match fault {
                Some(fault) => TransportError::Fault(describe(fault, target, timeout).await),
                None => TransportError::Unreachable {
                    url: url.clone(),
                    error,
                },
            })
        }
        Err(_) => Err(TransportError::Silent {
            url: url.clone(),
            timeout,
        }),
    }
}

/// Whether the target refuses payconf's client certificate (or its lack of
/// one), asked by a handshake of payconf's own when the HTTP client saw
/// only the connection closing.
async fn refused_client(target: &TargetConfig, timeout: Duration) -> Option<Fault> {
    let identity = target.tls.identity_pem.as_deref();
    certificate::client_refusal(
        &target.base_url,
        identity,
        timeout.min(Duration::from_secs(2)),
    )
    .await
    .filter(|alert| is_client_refusal(*alert))
    .map(Fault::ClientCertificate)
}

/// A failure to reach a server that is payconf's setting to fix.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// The server's certificate was not trusted.
    Certificate(CertificateError),
    /// The server refused the handshake after payconf's certificate, or
    /// asked for one payconf did not have.
    ClientCertificate(AlertDescription),
    /// Another TLS failure.
    Tls(String),
    /// The proxy could not be reached, or refused the tunnel.
    Proxy(String),
    /// The host name did not resolve.
    Dns(String),
}

/// Whether `error` is a transport failure payconf must fix, and which.
pub fn transport_fault(error: &reqwest::Error, target: &TargetConfig) -> Option<Fault> {
    let proxied = error
        .url()
        .is_some_and(|url| rules(target).proxy_for(url).is_some());
    if proxied && error.is_connect() && tls_or_dns_fault(error).is_none() {
        return Some(Fault::Proxy(causes(error)));
    }
    tls_or_dns_fault(error)
}

/// The TLS failure among `error`'s causes, if any.
fn tls_error(error: &reqwest::Error) -> Option<&rustls::Error> {
    let mut source = error.source();
    while let Some(cause) = source {
        // An io::Error's own source skips the error it wraps (and it may
        // wrap another io::Error): look inside.
        let mut inner: &(dyn std::error::Error + 'static) = cause;
        while let Some(wrapped) = inner
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            inner = wrapped;
        }
        if let Some(tls) = inner.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        source = cause.source();
    }
    None
}

/// A certificate, TLS or name-resolution failure in `error`'s causes.
pub fn tls_or_dns_fault(error: &reqwest::Error) -> Option<Fault> {
    if let Some(tls) = tls_error(error) {
        return match tls {
            // The server's first bytes are no TLS record: it speaks
            // something else (plain HTTP) on an https address. The
            // target's doing, not a setting of payconf's.
            rustls::Error::InvalidMessage(_) => None,
            rustls::Error::InvalidCertificate(e) => Some(Fault::Certificate(e.clone())),
            rustls::Error::AlertReceived(alert) if is_client_refusal(*alert) => {
                Some(Fault::ClientCertificate(*alert))
            }
            other => Some(Fault::Tls(other.to_string())),
        };
    }
    let text = causes(error);
    if text.contains("dns error") || text.contains("failed to lookup address") {
        return Some(Fault::Dns(text));
    }
    None
}

/// Whether `error` is a server that does not speak TLS on an `https`
/// address: its answer to the handshake is no TLS record.
pub fn speaks_no_tls(error: &reqwest::Error) -> bool {
    matches!(tls_error(error), Some(rustls::Error::InvalidMessage(_)))
}

/// The alerts a server sends when it will not take the client's certificate.
fn is_client_refusal(alert: AlertDescription) -> bool {
    matches!(
        alert,
        AlertDescription::CertificateRequired
            | AlertDescription::BadCertificate
            | AlertDescription::UnknownCA
            | AlertDescription::CertificateUnknown
            | AlertDescription::CertificateRevoked
            | AlertDescription::CertificateExpired
            | AlertDescription::AccessDenied
            | AlertDescription::HandshakeFailure
    )
}

/// A transport failure for people: which host, what is wrong, which setting fixes it.
pub async fn describe(fault: Fault, target: &TargetConfig, timeout: Duration) -> String {
    let url = &target.base_url;
    let host = url.host_str().unwrap_or_default();
    let certificate = async {
        certificate::fetch(url, timeout)
            .await
            .map(|facts| format!("\n{}", facts.describe()))
            .unwrap_or_default()
    };
    match fault {
        Fault::Certificate(CertificateError::UnknownIssuer) => format!(
            "payconf does not trust the certificate of {host}: a CA it does not know signed it \
             (a private CA, as staging servers often have){}\nfix: give the CA's certificate \
             (PEM) as tls.ca_file in the target file, --tls-ca-file or PAYCONF_TLS_CA_FILE{}",
            certificate.await,
            trusted_now(target),
        ),
        Fault::Certificate(
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. },
        ) => format!(
            "the certificate of {host} is not valid at this time{}\nfix: the server needs a \
             certificate valid today; payconf does not skip the check",
            certificate.await
        ),
        Fault::Certificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => format!(
            "the certificate of {host} is not for the name {host}{}\nfix: give base_url with a \
             name the certificate lists, or give the server a certificate for {host}",
            certificate.await
        ),
        Fault::Certificate(ref error) if ca_as_server(error) => format!(
            "payconf does not trust the certificate of {host}: it signed itself and is marked \
             as a CA, which payconf trusts only as itself, given{}{}\nfix: give this very \
             certificate (PEM) as tls.ca_file in the target file, --tls-ca-file or \
             PAYCONF_TLS_CA_FILE: payconf then trusts exactly it, as curl's --cacert does",
            trusted_now(target),
            certificate.await,
        ),
        Fault::Certificate(other) => format!(
            "payconf does not trust the certificate of {host}: {}{}\nfix: give the server a \
             valid certificate, or its CA as tls.ca_file",
            certificate_words(&other),
            certificate.await
        ),
        Fault::ClientCertificate(alert) => match &target.tls.client_source {
            Some(source) => format!(
                "{host} refused payconf's client certificate ({source}): it answered the \
                 handshake with \"{}\"\nfix: give a certificate the server trusts as \
                 tls.client_cert and tls.client_key",
                alert_words(alert)
            ),
            None => format!(
                "{host} asks for a client certificate (mutual TLS) and payconf has none: it \
                 answered the handshake with \"{}\"\nfix: give the certificate and its key as \
                 tls.client_cert and tls.client_key in the target file, \
                 --tls-client-cert and --tls-client-key, or PAYCONF_TLS_CLIENT_CERT and \
                 PAYCONF_TLS_CLIENT_KEY",
                alert_words(alert)
            ),
        },
        Fault::Tls(reason) => format!("the TLS handshake with {host} failed: {reason}"),
        Fault::Proxy(reason) => format!(
            "the proxy payconf goes through to {host} cannot be reached: {}\n  ({reason})\n\
             fix: correct the proxy setting, --proxy or PAYCONF_PROXY, or the environment's \
             HTTPS_PROXY, http_proxy and NO_PROXY",
            rules(target).describe(url).unwrap_or_default()
        ),
        Fault::Dns(reason) => format!(
            "the name {host} does not resolve ({reason})\nfix: correct base_url, or the \
             machine's DNS"
        ),
    }
}

impl Fault {
    /// What went wrong with `host`, in a sentence, for a scenario's ERROR.
    pub fn words(&self, host: &str) -> String {
        match self {
            Fault::Certificate(CertificateError::UnknownIssuer) => format!(
                "payconf does not trust the certificate of {host}: a CA it does not know \
                 signed it (give the CA as tls.ca_file)"
            ),
            Fault::Certificate(
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. },
            ) => format!("the certificate of {host} is not valid at this time"),
            Fault::Certificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            ) => format!("the certificate of {host} is not for the name {host}"),
            Fault::Certificate(error) if ca_as_server(error) => format!(
                "payconf does not trust the certificate of {host}: it signed itself and is \
                 marked as a CA (give this very certificate as tls.ca_file)"
            ),
            Fault::Certificate(other) => format!(
                "payconf does not trust the certificate of {host}: {}",
                certificate_words(other)
            ),
            Fault::ClientCertificate(alert) => format!(
                "{host} refused the TLS handshake (\"{}\"): it wants a client certificate it \
                 accepts (tls.client_cert and tls.client_key)",
                alert_words(*alert)
            ),
            Fault::Tls(reason) => format!("the TLS handshake with {host} failed: {reason}"),
            Fault::Proxy(_) => {
                format!("the proxy payconf goes through to {host} cannot be reached")
            }
            Fault::Dns(_) => format!("the name {host} does not resolve"),
        }
    }
}

fn trusted_now(target: &TargetConfig) -> String {
    match &target.tls.ca_source {
        Some(source) => format!(" (now {source}, which did not sign it)"),
        None => String::new(),
    }
}

/// Whether WebPKI refused the certificate as a CA's presented as a
/// server's own: what `openssl req -x509` makes, self-signed and marked a
/// CA, when it is not the certificate given as `tls.ca_file`.
fn ca_as_server(error: &CertificateError) -> bool {
    matches!(error, CertificateError::Other(other)
        if matches!(other.0.downcast_ref::<webpki::Error>(), Some(webpki::Error::CaUsedAsEndEntity)))
}

fn certificate_words(error: &CertificateError) -> String {
    match error {
        CertificateError::BadEncoding => "it is not a well-formed certificate".to_owned(),
        CertificateError::Revoked => "it was revoked".to_owned(),
        CertificateError::BadSignature => "its signature does not verify".to_owned(),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "it is not for serving a web site".to_owned()
        }
        other => other.to_string(),
    }
}

fn alert_words(alert: AlertDescription) -> &'static str {
    match alert {
        AlertDescription::CertificateRequired => "certificate required",
        AlertDescription::BadCertificate => "bad certificate",
        AlertDescription::UnknownCA => "unknown CA",
        AlertDescription::CertificateUnknown => "certificate unknown",
        AlertDescription::CertificateRevoked => "certificate revoked",
        AlertDescription::CertificateExpired => "certificate expired",
        AlertDescription::AccessDenied => "access denied",
        _ => "handshake failure",
    }
}

/// An error with its causes, one after the other.
pub fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let text = error.to_string();
    match source_chain(error) {
        chain if chain.is_empty() || text.contains(&chain) => text,
        chain => format!("{text}: {chain}"),
    }
}

/// The causes of an error (not the error itself), joined by `: `; a cause
/// whose words the one before it already holds is not said again.
pub fn source_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut said: Vec<String> = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !said.last().is_some_and(|last| last.contains(&text)) {
            said.push(text);
        }
        source = cause.source();
    }
    said.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapped(&'static str, Option<std::io::Error>);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_ref().map(|e| e as _)
        }
    }

    #[test]
    fn causes_are_said_once_each_after_the_error() {
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let error = Wrapped("client error (Connect)", Some(refused));
        assert_eq!(source_chain(&error), "connection refused");
        assert_eq!(causes(&error), "client error (Connect): connection refused");
        let repeated = Wrapped(
            "tcp connect error: connection refused",
            Some(std::io::Error::other("connection refused")),
        );
        assert_eq!(causes(&repeated), "tcp connect error: connection refused");
        assert_eq!(causes(&Wrapped("alone", None)), "alone");
    }
}
