//! A certificate authority of a test's own (rcgen), certificates it signs,
//! and rustls server configurations for them, with or without asking for a
//! client certificate.

use std::sync::Arc;

use rcgen::{CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::{
    RootCertStore,
    pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
    server::WebPkiClientVerifier,
};
use time::{Duration, OffsetDateTime};

/// A certificate authority of the test's own.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    /// Its certificate, PEM.
    pub pem: String,
}

impl TestCa {
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("key");
        let pem = params.self_signed(&key).expect("CA").pem();
        Self {
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// A certificate for `names`, valid over `days` around today: (cert PEM, key PEM).
    pub fn certificate(&self, names: &[&str], days: (i64, i64)) -> (String, String) {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .expect("params");
        params.distinguished_name.push(DnType::CommonName, names[0]);
        let now = OffsetDateTime::now_utc();
        params.not_before = now + Duration::days(days.0);
        params.not_after = now + Duration::days(days.1);
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("signed");
        (cert.pem(), key.serialize_pem())
    }
}

/// A certificate that signed itself and is marked as a CA, as the usual
/// `openssl req -x509` one-liner makes it, for `names`: (cert PEM, key PEM).
pub fn self_signed(names: &[&str], days: (i64, i64)) -> (String, String) {
    let mut params =
        CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
            .expect("params");
    params.distinguished_name.push(DnType::CommonName, names[0]);
    params.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let now = OffsetDateTime::now_utc();
    params.not_before = now + Duration::days(days.0);
    params.not_after = now + Duration::days(days.1);
    let key = KeyPair::generate().expect("key");
    let cert = params.self_signed(&key).expect("certificate");
    (cert.pem(), key.serialize_pem())
}

/// Valid from yesterday for a month.
pub const VALID: (i64, i64) = (-1, 30);

pub fn server_tls(cert: &str, key: &str, clients: Option<&TestCa>) -> Arc<rustls::ServerConfig> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert.as_bytes())
        .collect::<Result<_, _>>()
        .expect("chain");
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("key");
    let provider = payconf_reference::crypto_provider();
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .expect("versions");
    let builder = match clients {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for cert in CertificateDer::pem_slice_iter(ca.pem.as_bytes()) {
                roots.add(cert.expect("CA")).expect("root");
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("verifier");
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(chain, key).expect("config");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}
