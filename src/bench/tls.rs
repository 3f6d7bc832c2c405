//! Create throughput over HTTPS, beside plain HTTP: a second `payconf
//! serve`, with `--tls-cert` and `--tls-key` for a certificate made for the
//! bench by a CA of its own, in its default configuration otherwise; the
//! load client connects over TLS 1.3 (rustls, HTTP/1.1 by ALPN), a
//! connection held for many requests as merchants' servers hold them. The
//! two take turns in rounds, and the ratio is the median of the rounds'.

use super::error::BenchError;
use std::{path::Path, sync::Arc};

use rustls::{RootCertStore, pki_types::CertificateDer, pki_types::pem::PemObject};

use super::{
    BenchOptions, Target,
    load::{self, Samples, Scenario},
    processes::ServerProcess,
    ratio_said,
};

/// Measures creates over TLS against `plain` and prints the line; returns
/// the payments the plain rounds created.
pub(super) async fn create_over_tls(
    plain: &Target,
    options: &BenchOptions,
    scratch: &Path,
) -> Result<u64, BenchError> {
    let material = crate::runner::embedded::certificates()
        .map_err(BenchError::start("the bench\'s certificate"))?;
    let write = |name: &str, text: &str| {
        let path = scratch.join(name);
        std::fs::write(&path, text).map_err(BenchError::file(&path))?;
        Ok::<_, BenchError>(path.display().to_string())
    };
    let (cert, key) = (
        write("tls.pem", &material.cert_pem)?,
        write("tls.key", &material.key_pem)?,
    );
    let log = scratch.join("serve-tls.log");
    let args = [
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
    ];
    let server = ServerProcess::start(&args, &["PAYCONF_LOG"], Some(&log)).await?;
    println!(
        "over TLS: payconf serve at {}, the same configuration, a certificate of the bench's own CA",
        server.url
    );
    let mut target = Target::of(&server.url)?;
    target.tls = Some(connector(&material.ca_pem)?);
    let measured = rounds(plain, &target, options).await;
    server.stop().await?;
    let (samples, mut ratios, created) = measured?;
    println!(
        "{}",
        samples.figures().line(
            "create, TLS",
            "req",
            &format!("{} of plain", ratio_said(&mut ratios).trim_start())
        )
    );
    Ok(created)
}

async fn rounds(
    plain: &Target,
    tls: &Target,
    options: &BenchOptions,
) -> Result<(Samples, Vec<f64>, u64), BenchError> {
    super::warm_up(tls, options.connections).await?;
    let mut all = Samples::default();
    let mut ratios = Vec::new();
    let mut created = 0;
    for _ in 0..options.rounds {
        let plain_round = plain.run(Scenario::Create, options).await?;
        created += plain_round.created;
        let round = tls.run(Scenario::Create, options).await?;
        ratios.push(round.rate() / plain_round.rate());
        all.absorb(round);
    }
    Ok((all, ratios, created))
}

/// A connector trusting only the bench's CA, offering HTTP/1.1.
fn connector(ca_pem: &str) -> Result<load::Tls, BenchError> {
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        let certificate = certificate.map_err(BenchError::start("the bench's CA"))?;
        roots
            .add(certificate)
            .map_err(BenchError::start("the bench's CA"))?;
    }
    let mut config =
        rustls::ClientConfig::builder_with_provider(payconf_reference::crypto_provider())
            .with_safe_default_protocol_versions()
            .map_err(BenchError::start("a TLS client"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(load::Tls {
        connector: tokio_rustls::TlsConnector::from(Arc::new(config)),
        name: rustls::pki_types::ServerName::try_from("127.0.0.1")
            .map_err(BenchError::start("a TLS client"))?,
    })
}
