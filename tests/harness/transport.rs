//! Reaching targets over HTTPS as real ones are served, with a test CA made
//! here (rcgen): the whole suite over TLS with `tls.ca_file`, and against a
//! mutual-TLS server with a client certificate; every transport failure
//! (a private CA not given, an expired certificate, a name mismatch, no
//! client certificate, a refused one, a name that does not resolve) stops
//! the run with exit code 2 and a message naming what fixes it. Proxies
//! are tested in `proxy.rs`.

use payconf::runner::record::{OutcomeKind, RunRecord};
use std::sync::Arc;

use crate::support::{
    runner::{RunOutput, TempFile, assert_stopped, payconf_run_async, payconf_run_with},
    sandbox_target,
    tls::{TestCa, VALID, self_signed, server_tls},
};
use payconf_reference::{ReferenceConfig, RunningServer};
use rustls::{
    RootCertStore,
    pki_types::{CertificateDer, pem::PemObject},
};
use tokio::net::{TcpListener, TcpStream};

/// The sandbox over TLS with this configuration.
async fn tls_sandbox(tls: Arc<rustls::ServerConfig>) -> RunningServer {
    RunningServer::start_tls(ReferenceConfig::default(), tls)
        .await
        .expect("sandbox starts")
}

async fn run(target: &TempFile, args: &[&str]) -> RunOutput {
    let mut all = vec!["--target".to_owned(), target.0.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    payconf_run_async(all).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_suite_passes_over_tls_with_the_private_ca_given_and_stops_without_it() {
    let ca = TestCa::new("payconf test CA");
    let (cert, key) = ca.certificate(&["127.0.0.1", "localhost"], VALID);
    let sandbox = tls_sandbox(server_tls(&cert, &key, None)).await;
    assert_eq!(sandbox.base_url.scheme(), "https");
    let ca_file = TempFile::new("ca.pem", &ca.pem);
    let name = ca_file
        .0
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    // A relative path is taken from the target file's folder.
    let trusted = sandbox_target(&sandbox.base_url, &format!("[tls]\nca_file = \"{name}\"\n"));
    let output = run(&trusted, &["--tags", "@core"]).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);

    let untrusted = sandbox_target(&sandbox.base_url, "");
    let output = run(&untrusted, &[]).await;
    assert_stopped(
        &output,
        &[
            "does not trust the certificate of 127.0.0.1",
            "issued by: CN=payconf test CA",
            "tls.ca_file",
        ],
    );
    let _ = sandbox.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_self_signed_certificate_given_as_ca_file_is_trusted_as_itself_as_curl_does() {
    let (cert, key) = self_signed(&["127.0.0.1", "localhost"], VALID);
    let sandbox = tls_sandbox(server_tls(&cert, &key, None)).await;
    let ca_line = |file: &TempFile| format!("[tls]\nca_file = \"{}\"\n", file.0.display());

    let output = run(&sandbox_target(&sandbox.base_url, ""), &[]).await;
    assert_stopped(
        &output,
        &[
            "does not trust the certificate of 127.0.0.1: it signed itself and is marked as a CA",
            "issued by: CN=127.0.0.1 (itself)",
            "fix: give this very certificate (PEM) as tls.ca_file",
        ],
    );
    assert!(
        !output.stderr.contains("CaUsedAsEndEntity"),
        "{}",
        output.stderr
    );

    let given = TempFile::new("server.pem", &cert);
    let output = run(
        &sandbox_target(&sandbox.base_url, &ca_line(&given)),
        &["--tags", "@core"],
    )
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);

    let (stranger, _) = self_signed(&["127.0.0.1", "localhost"], VALID);
    let stranger = TempFile::new("stranger.pem", &stranger);
    let output = run(&sandbox_target(&sandbox.base_url, &ca_line(&stranger)), &[]).await;
    assert_stopped(
        &output,
        &[
            "it signed itself and is marked as a CA",
            "which did not sign it",
        ],
    );
    let _ = sandbox.shutdown().await;

    // Pinned is still checked for its name and its dates.
    for (names, days, says) in [
        (
            ["pay.example", "www.pay.example"],
            VALID,
            "is not for the name 127.0.0.1",
        ),
        (
            ["127.0.0.1", "localhost"],
            (-60, -1),
            "is not valid at this time",
        ),
    ] {
        let (cert, key) = self_signed(&names, days);
        let sandbox = tls_sandbox(server_tls(&cert, &key, None)).await;
        let given = TempFile::new("server.pem", &cert);
        let output = run(&sandbox_target(&sandbox.base_url, &ca_line(&given)), &[]).await;
        assert_stopped(&output, &[says]);
        let _ = sandbox.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_certificate_and_a_name_mismatch_stop_the_run_saying_so() {
    let ca = TestCa::new("payconf test CA");
    let ca_file = TempFile::new("ca.pem", &ca.pem);
    let ca_line = format!("[tls]\nca_file = \"{}\"\n", ca_file.0.display());
    for (names, days, says) in [
        (
            ["127.0.0.1", "localhost"],
            (-60, -1),
            "is not valid at this time",
        ),
        (
            ["pay.example", "www.pay.example"],
            VALID,
            "is not for the name 127.0.0.1",
        ),
    ] {
        let (cert, key) = ca.certificate(&names, days);
        let sandbox = tls_sandbox(server_tls(&cert, &key, None)).await;
        let output = run(&sandbox_target(&sandbox.base_url, &ca_line), &[]).await;
        assert_stopped(&output, &[says, &format!("names: {}", names.join(", "))]);
        let _ = sandbox.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mutual_tls_passes_with_the_client_certificate_and_stops_without_one_or_with_a_stranger() {
    let ca = TestCa::new("payconf test CA");
    let clients = TestCa::new("merchant clients CA");
    let (cert, key) = ca.certificate(&["127.0.0.1"], VALID);
    let sandbox = tls_sandbox(server_tls(&cert, &key, Some(&clients))).await;
    let ca_file = TempFile::new("ca.pem", &ca.pem);
    let ca_line = format!("[tls]\nca_file = \"{}\"\n", ca_file.0.display());

    let (client_cert, client_key) = clients.certificate(&["merchant.example"], VALID);
    let client_cert = TempFile::new("client.pem", &client_cert);
    let client_key = TempFile::new("client.key", &client_key);
    let target = sandbox_target(&sandbox.base_url, &ca_line);
    let output = run(
        &target,
        &[
            "--tags",
            "@core",
            "--tls-client-cert",
            &client_cert.0.display().to_string(),
            "--tls-client-key",
            &client_key.0.display().to_string(),
        ],
    )
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);

    let output = run(&target, &[]).await;
    assert_stopped(
        &output,
        &[
            "asks for a client certificate",
            "tls.client_cert and tls.client_key",
        ],
    );

    let stranger = TestCa::new("someone else");
    let (cert, key) = stranger.certificate(&["merchant.example"], VALID);
    let (cert, key) = (
        TempFile::new("stranger.pem", &cert),
        TempFile::new("stranger.key", &key),
    );
    let output = payconf_run_with(
        &["--target", &target.0.display().to_string()],
        &[
            ("PAYCONF_TLS_CLIENT_CERT", &cert.0.display().to_string()),
            ("PAYCONF_TLS_CLIENT_KEY", &key.0.display().to_string()),
        ],
    );
    assert_stopped(&output, &["refused payconf's client certificate"]);
    let _ = sandbox.shutdown().await;
}

/// The HTTP client may see only the connection closing when a server
/// refuses it after the TLS 1.3 handshake; payconf's own handshake, which
/// sends nothing and reads, hears the alert: none for the certificate the
/// server trusts, the refusal for none and for a stranger's.
#[tokio::test(flavor = "multi_thread")]
async fn a_handshake_of_payconfs_own_hears_the_server_refuse_the_client() {
    use payconf::runner::client_refusal;
    use rustls::AlertDescription;
    let ca = TestCa::new("payconf test CA");
    let clients = TestCa::new("merchant clients CA");
    let (cert, key) = ca.certificate(&["127.0.0.1"], VALID);
    let sandbox = tls_sandbox(server_tls(&cert, &key, Some(&clients))).await;
    let url = &sandbox.base_url;
    let within = std::time::Duration::from_secs(2);
    let pem = |(cert, key): (String, String)| format!("{cert}\n{key}").into_bytes();
    let trusted = pem(clients.certificate(&["merchant.example"], VALID));
    let stranger = pem(TestCa::new("someone else").certificate(&["merchant.example"], VALID));
    assert_eq!(
        client_refusal(url, None, within).await,
        Some(AlertDescription::CertificateRequired)
    );
    assert!(client_refusal(url, Some(&stranger), within).await.is_some());
    assert_eq!(client_refusal(url, Some(&trusted), within).await, None);
    let _ = sandbox.shutdown().await;
}

#[test]
fn a_name_that_does_not_resolve_stops_the_run() {
    let base = url::Url::parse("https://payconf-no-such-host.invalid/").expect("url");
    let target = sandbox_target(&base, "");
    let output = payconf_run_with(&["--target", &target.0.display().to_string()], &[]);
    assert_stopped(
        &output,
        &["the name payconf-no-such-host.invalid does not resolve"],
    );
}

#[test]
fn the_embedded_sandbox_over_tls_passes_the_whole_suite() {
    let results = TempFile::new("results.json", "");
    let output = payconf_run_with(
        &[
            "--embedded-tls",
            "--results",
            &results.0.display().to_string(),
        ],
        &[],
    );
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stdout.contains("in-process at https://127.0.0.1:"),
        "{}",
        output.stdout
    );
    let results = RunRecord::load(&results.0).expect("the results read back");
    let configuration = &results.target.configuration;
    assert!(
        configuration["base_url"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://"))
    );
    assert_eq!(
        configuration["tls"]["ca_file"],
        "the embedded sandbox's own CA, made for this run"
    );
    assert_eq!(results.counts.scenarios.by_outcome.failed, 0);

    let refused = payconf_run_with(
        &["--embedded-tls", "--base-url", "https://pay.example/"],
        &[],
    );
    assert_eq!(refused.code, Some(2));
    assert!(
        refused
            .stderr
            .contains("--embedded-tls serves the embedded"),
        "{}",
        refused.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_with_a_certificate_serves_https_with_http2_by_alpn_and_https_pages() {
    use tokio::io::AsyncBufReadExt;
    let ca = TestCa::new("payconf test CA");
    let (cert, key) = ca.certificate(&["127.0.0.1"], VALID);
    let (cert_file, key_file) = (
        TempFile::new("serve.pem", &cert),
        TempFile::new("serve.key", &key),
    );
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["serve", "--addr", "127.0.0.1:0", "--tls-cert"])
        .arg(&cert_file.0)
        .arg("--tls-key")
        .arg(&key_file.0)
        .env("PAYCONF_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("serve starts");
    let stdout = serve.stdout.take().expect("stdout");
    let mut first = String::new();
    tokio::io::BufReader::new(stdout)
        .read_line(&mut first)
        .await
        .expect("a line");
    let base = first
        .trim()
        .strip_prefix("listening on ")
        .expect("the first line")
        .to_owned();
    assert!(base.starts_with("https://127.0.0.1:"), "{first}");

    // ALPN: a client offering HTTP/2 gets it.
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca.pem.as_bytes()).expect("CA"))
        .expect("root");
    let mut client =
        rustls::ClientConfig::builder_with_provider(payconf_reference::crypto_provider())
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    client.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let address = base.trim_start_matches("https://");
    let tcp = TcpStream::connect(address).await.expect("connects");
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("name");
    let tls = tokio_rustls::TlsConnector::from(Arc::new(client))
        .connect(name, tcp)
        .await
        .expect("handshake");
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(b"h2".as_slice()));

    // Its pages are addressed over https too: the issuer page the buyer goes to.
    let ca_file = TempFile::new("ca.pem", &ca.pem);
    let har = TempFile::new("run.har", "");
    let base_url = url::Url::parse(&base).expect("url");
    let target = sandbox_target(
        &base_url,
        &format!("[tls]\nca_file = \"{}\"\n", ca_file.0.display()),
    );
    let har_path = har.0.display().to_string();
    let output = run(
        &target,
        &["--tags", "@core and @issuer", "--har", &har_path],
    )
    .await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let har: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&har.0).expect("HAR")).expect("JSON");
    let issuer_pages: Vec<&str> = har["log"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["request"]["url"].as_str())
        .filter(|u| u.contains("/pagam/pagam3d.aspx"))
        .collect();
    assert!(
        !issuer_pages.is_empty() && issuer_pages.iter().all(|u| u.starts_with("https://")),
        "{issuer_pages:?}"
    );
    let _ = serve.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transport_failure_during_a_scenario_is_an_error_not_a_failure() {
    // The API at 127.0.0.1 is trusted; the pages the service sends the buyer
    // to are at `localhost`, a name its certificate does not hold.
    let ca = TestCa::new("payconf test CA");
    let (cert, key) = ca.certificate(&["127.0.0.1"], VALID);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let config = ReferenceConfig {
        public_url: Some(url::Url::parse(&format!("https://localhost:{port}/")).expect("url")),
        ..ReferenceConfig::default()
    };
    let sandbox =
        RunningServer::start_tls_on(listener, config, Some(server_tls(&cert, &key, None)))
            .expect("sandbox starts");
    let api = url::Url::parse(&format!("https://127.0.0.1:{port}/")).expect("url");
    let ca_file = TempFile::new("ca.pem", &ca.pem);
    let results = TempFile::new("results.json", "");
    let target = sandbox_target(
        &api,
        &format!("[tls]\nca_file = \"{}\"\n", ca_file.0.display()),
    );
    let output = run(
        &target,
        &[
            "--tags",
            "@core and @issuer",
            "--results",
            &results.0.display().to_string(),
        ],
    )
    .await;
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    let results = RunRecord::load(&results.0).expect("the results read back");
    let counts = results.counts.scenarios.by_outcome;
    assert_eq!(counts.failed, 0, "{counts:?}");
    assert!(counts.errors > 0, "{counts:?}");
    for scenario in &results.scenarios {
        if scenario.outcome == OutcomeKind::Error {
            let message = scenario.message.as_deref().expect("a message");
            assert!(
                message.contains("the certificate of localhost is not for the name localhost")
                    && message.contains("payconf's transport to fix"),
                "{message}"
            );
            for debug in ["IpAddress(", "Some(", "Custom {"] {
                assert!(!message.contains(debug), "{message}");
            }
        }
    }
    let _ = sandbox.shutdown().await;
}
