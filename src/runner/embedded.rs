//! The embedded target: the reference implementation started in-process on
//! a loopback port when no base URL is given, over plain HTTP or, with
//! `--embedded-tls`, over HTTPS with a certificate made for this run by a
//! CA of its own (rcgen), which only this run's client trusts. So the HTTPS
//! path (rustls, HTTP/2 by ALPN, the trusted-CA setting) is checked on
//! every commit without a certificate on disk.

use payconf_reference::{ReferenceConfig, RunningServer};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};

use super::not_run::NotRun;

/// How soon the embedded sandbox posts a refused notification again.
const EMBEDDED_FIRST_RETRY: std::time::Duration = std::time::Duration::from_millis(200);
use crate::runner::target_file::{
    EMBEDDED_SETTLEMENT_DELAY, SEPARATED_SHOP, SEPARATED_SHOP_KEY, TargetConfig, TlsSettings,
    reference_defaults,
};

/// The token lifetime of the embedded reference implementation, short so the
/// expiry scenario waits only that long (and 100 ms more). Every other
/// scenario submits its token (or opens its payment page) within a step or
/// two of creating it, and a payment once submitted stays for the buyer's
/// time at the issuer whatever this lifetime (`SUBMITTED_RETENTION` in the
/// reference implementation). A second, not less: 250 ms let a machine
/// whose cores are all busy (CI running tests beside the run) expire a
/// token between a scenario's create and its submit, once in three runs
/// under six runs at once and three busy loops on two cores.
pub const EMBEDDED_TOKEN_LIFETIME: std::time::Duration = std::time::Duration::from_secs(1);

/// How the embedded reference implementation listens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// Plain HTTP on loopback.
    #[default]
    Http,
    /// HTTPS, with a CA made for the run that only this run trusts
    /// (`--embedded-tls`).
    Https,
}

/// How long the embedded implementation's payment tokens live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenLifetime {
    /// The reference implementation's default.
    Default,
    /// [`EMBEDDED_TOKEN_LIFETIME`]: the expiry scenario is selected, and
    /// waits that long for a token to expire.
    Short,
}

/// Starts the embedded reference implementation; returns it and its target.
/// A refused notification comes again after [`EMBEDDED_FIRST_RETRY`].
pub async fn start(
    transport: Transport,
    tokens: TokenLifetime,
) -> Result<(RunningServer, TargetConfig), NotRun> {
    let lifetime = match tokens {
        TokenLifetime::Short => EMBEDDED_TOKEN_LIFETIME,
        TokenLifetime::Default => payconf_reference::DEFAULT_TOKEN_LIFETIME,
    };
    let mut config = ReferenceConfig {
        token_lifetime: lifetime,
        ..ReferenceConfig::default()
    };
    // A refused notification is posted again sooner than the public
    // sandbox's 2 s, so that the retry scenario does not hold up the run:
    // the scenario asks only that it comes within its bound.
    config.limits.notification_first_retry = EMBEDDED_FIRST_RETRY;
    // DEMO_SHOP settles by itself soon after the authorization, and a
    // second shop waits for the merchant's capture: the lifecycle
    // scenarios of both ways run.
    config.merchants[0].settlement = payconf_reference::Settlement::Unified {
        delay_ms: u64::try_from(EMBEDDED_SETTLEMENT_DELAY.as_millis()).unwrap_or(500),
    };
    let mut separated = config.merchants[0].clone();
    separated.shop_login = SEPARATED_SHOP.to_owned();
    separated.api_key = SEPARATED_SHOP_KEY.to_owned();
    separated.success_url = format!("/merchant/{SEPARATED_SHOP}/success");
    separated.failure_url = format!("/merchant/{SEPARATED_SHOP}/failure");
    separated.password = None;
    separated.settlement = payconf_reference::Settlement::Separated;
    config.merchants.push(separated);
    let (server, trusted) = if transport == Transport::Https {
        let material = certificates().map_err(NotRun::embedded)?;
        let server_config = payconf_reference::server_config(
            material.cert_pem.as_bytes(),
            material.key_pem.as_bytes(),
        )
        .map_err(NotRun::embedded)?;
        let server = RunningServer::start_tls(config, server_config)
            .await
            .map_err(NotRun::embedded)?;
        (server, Some(material.ca_pem))
    } else {
        let server = RunningServer::start(config)
            .await
            .map_err(NotRun::embedded)?;
        (server, None)
    };
    let mut target = reference_defaults(server.base_url.clone(), lifetime);
    if let Some(ca_pem) = trusted {
        let source = "the embedded sandbox's own CA, made for this run";
        target.tls = TlsSettings::trusting(source, ca_pem.as_bytes())
            .ok_or_else(|| NotRun::embedded("its CA's certificate did not read back"))?;
    }
    Ok((server, target))
}

/// A CA made for one run and the sandbox's certificate it signs, PEM.
pub(crate) struct Material {
    /// The CA's certificate: what a client trusts.
    pub ca_pem: String,
    /// The sandbox's certificate, for 127.0.0.1 and localhost.
    pub cert_pem: String,
    /// Its private key, handed to the embedded server only.
    pub key_pem: String,
}

/// Makes a CA and a certificate it signs for the sandbox on loopback.
pub(crate) fn certificates() -> Result<Material, rcgen::Error> {
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.distinguished_name
        .push(DnType::CommonName, "payconf embedded sandbox CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign];
    let ca_key = KeyPair::generate()?;
    let ca_pem = ca.self_signed(&ca_key)?.pem();
    let issuer = Issuer::new(ca, ca_key);
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])?;
    leaf.distinguished_name
        .push(DnType::CommonName, "payconf embedded sandbox");
    let key = KeyPair::generate()?;
    let cert_pem = leaf.signed_by(&key, &issuer)?.pem();
    Ok(Material {
        ca_pem,
        cert_pem,
        key_pem: key.serialize_pem(),
    })
}
