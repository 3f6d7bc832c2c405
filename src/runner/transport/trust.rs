//! What payconf trusts: the system's roots, read once
//! ([`system_roots`]), the CAs of `tls.ca_file`, and a server certificate
//! given as `tls.ca_file` trusted as that one
//! certificate, as curl's `--cacert` trusts it: the self-signed
//! certificate `openssl req -x509` makes is marked as a CA, and WebPKI
//! refuses a CA's certificate as a server's own ("CaUsedAsEndEntity") even
//! when it is the very certificate the user gave. So a run with a
//! `tls.ca_file` verifies the server by [`ServerTrust`]: a certificate
//! presented that is byte for byte one of the file's is trusted as itself
//! (still checked for the name asked and for today's date, and its
//! handshake signature still verified); any other is verified as before,
//! against the system's roots and the file's CAs.
//!
//! With a `tls.ca_file` the run's rustls configuration is built here and
//! handed to reqwest whole ([`client_config`]), so it carries what reqwest
//! would have set: the client certificate and ALPN (HTTP/2, then 1.1).

use std::sync::Arc;

use rustls::{
    CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme,
    client::{
        WebPkiServerVerifier,
        danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
        verify_server_name,
    },
    crypto::CryptoProvider,
    pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime, pem::PemObject},
    server::ParsedCertificate,
};
use x509_parser::prelude::{ASN1Time, FromDer, X509Certificate};

use crate::runner::target_file::TlsSettings;

/// The system's trusted roots, in the two forms the clients take.
pub struct SystemRoots {
    /// DER, for a rustls configuration of payconf's own.
    pub der: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// As reqwest takes them.
    pub reqwest: Vec<reqwest::Certificate>,
}

/// The system's trusted roots (`rustls-native-certs`: the CA bundle, or
/// `SSL_CERT_FILE` and `SSL_CERT_DIR`), read and checked once per process:
/// a run builds a client for each scenario and volley, and reading the
/// bundle was most of what building one cost. A root rustls cannot use is
/// left out, as the platform verifier leaves it out.
pub fn system_roots() -> &'static SystemRoots {
    static ROOTS: std::sync::OnceLock<SystemRoots> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let der: Vec<_> = rustls_native_certs::load_native_certs()
            .certs
            .into_iter()
            .filter(|der| rustls::RootCertStore::empty().add(der.clone()).is_ok())
            .collect();
        let reqwest = der
            .iter()
            .filter_map(|der| reqwest::Certificate::from_der(der).ok())
            .collect();
        SystemRoots { der, reqwest }
    })
}

/// The rustls configuration of a run whose target file gives a
/// `tls.ca_file`, trusting `system` roots besides; `None` without one, when
/// reqwest builds its own.
pub fn client_config(
    tls: &TlsSettings,
    system: &[CertificateDer<'static>],
) -> Option<rustls::ClientConfig> {
    if tls.pinned.is_empty() {
        return None;
    }
    let provider = payconf_reference::crypto_provider();
    let mut config = ServerTrust::pinned_or_webpki(system, &tls.pinned, provider)?
        .client_config(tls.identity_pem.as_deref())?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Some(config)
}

/// How payconf verifies the certificate a server presents: the one
/// verifier of its own (reqwest's built-in one verifies every other
/// connection).
#[derive(Debug)]
pub struct ServerTrust {
    trust: Trust,
    provider: Arc<CryptoProvider>,
}

#[derive(Debug)]
enum Trust {
    /// Whatever the server presents, signature and all: only for a
    /// handshake that reads the certificate, or the server's refusal of the
    /// client, and sends nothing after it ([`super::certificate`]).
    ReadOnly,
    /// A presented certificate that is one of `pinned` trusted as itself;
    /// any other verified by WebPKI.
    PinnedOrWebPki {
        pinned: Vec<CertificateDer<'static>>,
        webpki: Arc<WebPkiServerVerifier>,
    },
}

impl ServerTrust {
    /// Pins `pinned`, and trusts `system` and `pinned` as CAs; `None` when
    /// no CA could be taken at all.
    pub fn pinned_or_webpki(
        system: &[CertificateDer<'static>],
        pinned: &[CertificateDer<'static>],
        provider: Arc<CryptoProvider>,
    ) -> Option<Self> {
        let mut roots = RootCertStore::empty();
        roots.add_parsable_certificates(system.iter().chain(pinned).cloned());
        let webpki =
            WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                .build()
                .ok()?;
        Some(Self {
            trust: Trust::PinnedOrWebPki {
                pinned: pinned.to_vec(),
                webpki,
            },
            provider,
        })
    }

    /// Trusts whatever the server presents: to read it, never to send a
    /// request over the connection.
    pub fn read_only(provider: Arc<CryptoProvider>) -> Self {
        Self {
            trust: Trust::ReadOnly,
            provider,
        }
    }

    /// A rustls client configuration that verifies servers this way and
    /// presents `identity` (a PEM of the client's certificate chain and its
    /// key) to a server that asks for one; `None` when it cannot be built.
    pub fn client_config(self, identity: Option<&[u8]>) -> Option<rustls::ClientConfig> {
        let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&self.provider))
            .with_safe_default_protocol_versions()
            .ok()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(self));
        match identity {
            Some(pem) => {
                let chain = CertificateDer::pem_slice_iter(pem)
                    .collect::<Result<Vec<_>, _>>()
                    .ok()?;
                let key = PrivateKeyDer::from_pem_slice(pem).ok()?;
                builder.with_client_auth_cert(chain, key).ok()
            }
            None => Some(builder.with_no_client_auth()),
        }
    }

    /// A pinned certificate, checked as curl checks it: for the name
    /// asked, and valid at `now`.
    fn verify_pinned(
        end_entity: &CertificateDer<'_>,
        name: &ServerName<'_>,
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let bad = |e: CertificateError| rustls::Error::InvalidCertificate(e);
        let (_, certificate) = X509Certificate::from_der(end_entity)
            .map_err(|_| bad(CertificateError::BadEncoding))?;
        let now = i64::try_from(now.as_secs())
            .ok()
            .and_then(|secs| ASN1Time::from_timestamp(secs).ok())
            .ok_or_else(|| bad(CertificateError::BadEncoding))?;
        let validity = certificate.validity();
        if now < validity.not_before {
            return Err(bad(CertificateError::NotValidYet));
        }
        if now > validity.not_after {
            return Err(bad(CertificateError::Expired));
        }
        verify_server_name(&ParsedCertificate::try_from(end_entity)?, name)?;
        Ok(ServerCertVerified::assertion())
    }

    /// A handshake's signature verified with `verify`, unless the trust is
    /// read-only.
    fn signature(
        &self,
        verify: impl FnOnce(
            &rustls::crypto::WebPkiSupportedAlgorithms,
        ) -> Result<HandshakeSignatureValid, rustls::Error>,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        match self.trust {
            Trust::ReadOnly => Ok(HandshakeSignatureValid::assertion()),
            Trust::PinnedOrWebPki { .. } => {
                verify(&self.provider.signature_verification_algorithms)
            }
        }
    }
}

impl ServerCertVerifier for ServerTrust {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match &self.trust {
            Trust::ReadOnly => Ok(ServerCertVerified::assertion()),
            Trust::PinnedOrWebPki { pinned, .. }
                if pinned.iter().any(|pin| pin.as_ref() == end_entity.as_ref()) =>
            {
                Self::verify_pinned(end_entity, name, now)
            }
            Trust::PinnedOrWebPki { webpki, .. } => {
                webpki.verify_server_cert(end_entity, intermediates, name, ocsp, now)
            }
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.signature(|algorithms| {
            rustls::crypto::verify_tls12_signature(message, certificate, signature, algorithms)
        })
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.signature(|algorithms| {
            rustls::crypto::verify_tls13_signature(message, certificate, signature, algorithms)
        })
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{CertificateParams, DnType, IsCa, KeyPair};
    use time::{Duration, OffsetDateTime};

    /// A self-signed certificate marked as a CA, as `openssl req -x509`
    /// makes it, for `names`, valid over `days` around today.
    fn self_signed(names: &[&str], days: (i64, i64)) -> CertificateDer<'static> {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .expect("params");
        params.distinguished_name.push(DnType::CommonName, names[0]);
        params.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let now = OffsetDateTime::now_utc();
        params.not_before = now + Duration::days(days.0);
        params.not_after = now + Duration::days(days.1);
        let key = KeyPair::generate().expect("key");
        params.self_signed(&key).expect("certificate").der().clone()
    }

    fn verify(
        pinned: &[CertificateDer<'static>],
        presented: &CertificateDer<'_>,
        name: &str,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let provider = payconf_reference::crypto_provider();
        let verifier = ServerTrust::pinned_or_webpki(&[], pinned, provider).expect("verifier");
        let name = ServerName::try_from(name.to_owned()).expect("name");
        verifier.verify_server_cert(presented, &[], &name, &[], UnixTime::now())
    }

    #[test]
    fn a_self_signed_certificate_given_is_trusted_as_itself_for_its_names_and_dates() {
        let certificate = self_signed(&["localhost", "127.0.0.1"], (-1, 30));
        let pinned = [certificate.clone()];
        verify(&pinned, &certificate, "localhost").expect("localhost");
        verify(&pinned, &certificate, "127.0.0.1").expect("127.0.0.1");
        assert!(matches!(
            verify(&pinned, &certificate, "pay.example"),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForNameContext { .. }
            ))
        ));
        let expired = self_signed(&["localhost"], (-60, -1));
        assert_eq!(
            verify(std::slice::from_ref(&expired), &expired, "localhost").err(),
            Some(rustls::Error::InvalidCertificate(CertificateError::Expired))
        );
        let early = self_signed(&["localhost"], (2, 30));
        assert_eq!(
            verify(std::slice::from_ref(&early), &early, "localhost").err(),
            Some(rustls::Error::InvalidCertificate(
                CertificateError::NotValidYet
            ))
        );
    }

    #[test]
    fn a_certificate_not_given_is_verified_by_webpki_as_before() {
        let given = self_signed(&["localhost"], (-1, 30));
        let other = self_signed(&["localhost"], (-1, 30));
        let Err(rustls::Error::InvalidCertificate(CertificateError::Other(error))) =
            verify(&[given], &other, "localhost")
        else {
            panic!("another self-signed certificate is refused");
        };
        assert_eq!(
            error.0.downcast_ref::<webpki::Error>(),
            Some(&webpki::Error::CaUsedAsEndEntity)
        );
    }
}
