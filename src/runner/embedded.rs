//! The embedded target: the reference implementation started in-process on
//! a loopback port when no base URL is given, over plain HTTP or, with
//! `--embedded-tls`, over HTTPS with a certificate made for this run by a
//! CA of its own (rcgen), which only this run's client trusts. So the HTTPS
//! path (rustls, HTTP/2 by ALPN, the trusted-CA setting) is checked on
//! every commit without a certificate on disk.

use payconf_reference::{Merchant, ReferenceConfig, RunningServer};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};

use super::not_run::NotRun;
use crate::runner::target_file::{
    EMBEDDED_SETTLEMENT_DELAY, EMBEDDED_TOKEN_LIFETIME, EXPIRING_SHOP, EXPIRING_SHOP_KEY,
    SEPARATED_SHOP, SEPARATED_SHOP_KEY, TargetConfig, TlsSettings, reference_defaults,
};

/// How soon the embedded sandbox posts a refused notification again.
const EMBEDDED_FIRST_RETRY: std::time::Duration = std::time::Duration::from_millis(200);

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

/// Starts the embedded reference implementation; returns it and its target.
/// A refused notification comes again after [`EMBEDDED_FIRST_RETRY`].
pub async fn start(transport: Transport) -> Result<(RunningServer, TargetConfig), NotRun> {
    let mut config = ReferenceConfig::default();
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
    let mut separated = another_shop(&config.merchants[0], SEPARATED_SHOP, SEPARATED_SHOP_KEY);
    separated.settlement = payconf_reference::Settlement::Separated;
    config.merchants.push(separated);
    // A third shop's tokens expire within a second, for the expiry
    // scenario; DEMO_SHOP's live the default, longer than any buyer takes.
    let expiring = another_shop(&config.merchants[0], EXPIRING_SHOP, EXPIRING_SHOP_KEY);
    config.merchants.push(expiring);
    config
        .shop_token_lifetimes
        .insert(EXPIRING_SHOP.to_owned(), EMBEDDED_TOKEN_LIFETIME);
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
    let mut target = reference_defaults(server.base_url.clone());
    if let Some(ca_pem) = trusted {
        let source = "the embedded sandbox's own CA, made for this run";
        target.tls = TlsSettings::trusting(source, ca_pem.as_bytes())
            .ok_or_else(|| NotRun::embedded("its CA's certificate did not read back"))?;
    }
    Ok((server, target))
}

/// A shop of the embedded sandbox's own beside `first`, with its pages at
/// its own login and no back-office password.
fn another_shop(first: &Merchant, shop_login: &str, api_key: &str) -> Merchant {
    Merchant {
        shop_login: shop_login.to_owned(),
        api_key: api_key.to_owned(),
        success_url: format!("/merchant/{shop_login}/success"),
        failure_url: format!("/merchant/{shop_login}/failure"),
        password: None,
        ..first.clone()
    }
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;

    /// Creates a payment at `shop` and, after `wait`, pays it with the
    /// sandbox's card not enrolled in 3-D Secure; returns submit's code.
    async fn paid_after(target: &TargetConfig, shop: &str, key: &str, wait: Duration) -> String {
        let client = payconf_reference::http_client()
            .build()
            .expect("an HTTP client");
        let api = |operation: &str| format!("{}api/v1/payment/{operation}/", target.base_url);
        let created: Value = client
            .post(api("create"))
            .header("Authorization", format!("apikey {key}"))
            .json(
                &json!({"shopLogin": shop, "amount": "1.00", "currency": "EUR",
                          "shopTransactionID": "embedded-lifetime"}),
            )
            .send()
            .await
            .expect("create answers")
            .json()
            .await
            .expect("create's JSON");
        let token = created["payload"]["paymentToken"]
            .as_str()
            .expect("a token")
            .to_owned();
        tokio::time::sleep(wait).await;
        let card = target
            .cards
            .frictionless
            .as_ref()
            .expect("the sandbox's card");
        let submitted: Value = client
            .post(api("submit"))
            .header("Authorization", format!("apikey {key}"))
            .header("paymentToken", token)
            .json(&json!({"shopLogin": shop, "buyer": {"name": "Jane Doe", "email": "jane@example.com"},
                          "paymentTypeDetails": {"creditcard": {
                              "number": card.number.expose(), "expMonth": card.exp_month,
                              "expYear": card.exp_year, "CVV": card.cvv.expose()}}}))
            .send()
            .await
            .expect("submit answers")
            .json()
            .await
            .expect("submit's JSON");
        submitted["error"]["code"]
            .as_str()
            .expect("a code")
            .to_owned()
    }

    /// The expiry scenario's shop's tokens expire after a second, and the
    /// shop every other scenario pays at keeps its tokens past that: a
    /// buyer who takes longer (a browser on the payment page of a busy
    /// machine) still pays, which a run whose every token lived a second
    /// did not.
    #[tokio::test]
    async fn only_the_expiring_shop_s_tokens_expire_within_the_scenario_s_wait() {
        let (server, target) = start(Transport::Http).await.expect("the sandbox starts");
        let expiry = target.token_lifetime.clone().expect("a lifetime");
        let shop = expiry.shop.expect("the expiring shop");
        assert_eq!(shop.shop_login, EXPIRING_SHOP);
        let wait = expiry.lifetime + Duration::from_millis(300);
        let (demo, expiring) = tokio::join!(
            paid_after(&target, &target.shop_login, target.api_key.expose(), wait),
            paid_after(&target, EXPIRING_SHOP, shop.api_key.expose(), wait),
        );
        assert_eq!(demo, "0", "DEMO_SHOP's token outlives the wait");
        assert_eq!(expiring, "1457", "EXPIRING_SHOP's token has expired");
        server.shutdown().await.expect("the sandbox stops");
    }
}
