//! Proxies as chosen: a target on loopback never through one, whatever the
//! environment sets; another through the `proxy` setting, as a proxy that
//! records what it is asked shows; a proxy that cannot be reached stops the
//! run with exit code 2, naming it.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
};

use crate::support::{
    runner::{assert_stopped, payconf_run_with},
    sandbox_target,
};
use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// A forward proxy that records the first request line of every connection
/// and passes everything on to `upstream`, whatever host was asked for.
async fn recording_proxy(upstream: SocketAddr) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&asked);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let recorded = Arc::clone(&recorded);
            tokio::spawn(async move {
                let mut head = vec![0; 8192];
                let Ok(n) = client.read(&mut head).await else {
                    return;
                };
                let text = String::from_utf8_lossy(&head[..n]).into_owned();
                recorded
                    .lock()
                    .expect("lock")
                    .push(text.lines().next().unwrap_or_default().to_owned());
                let Ok(mut server) = TcpStream::connect(upstream).await else {
                    return;
                };
                if server.write_all(&head[..n]).await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    (address, asked)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_target_is_never_proxied_and_another_goes_through_the_proxy_setting() {
    let sandbox = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("sandbox");
    let upstream: SocketAddr = format!(
        "{}:{}",
        sandbox.base_url.host_str().expect("host"),
        sandbox.base_url.port().expect("port")
    )
    .parse()
    .expect("address");
    let (proxy, asked) = recording_proxy(upstream).await;
    let proxy_url = format!("http://{proxy}");

    // Every proxy variable set: a run against 127.0.0.1 is unaffected.
    let target = sandbox_target(&sandbox.base_url, "");
    let vars = [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ];
    let env: Vec<(&str, &str)> = vars.iter().map(|v| (*v, proxy_url.as_str())).collect();
    let output = payconf_run_with(
        &[
            "--target",
            &target.0.display().to_string(),
            "--tags",
            "@core",
        ],
        &env,
    );
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert!(
        asked.lock().expect("lock").is_empty(),
        "the proxy was asked: {:?}",
        asked.lock()
    );

    // A target by a name that is not loopback goes through the proxy
    // setting, to a sandbox that serves that name (its public URL: it
    // answers only to its own names).
    let named = url::Url::parse("http://payments.proxied.test/").expect("url");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let behind = listener.local_addr().expect("address");
    let named_sandbox = RunningServer::start_on(
        listener,
        ReferenceConfig {
            public_url: Some(named.clone()),
            ..ReferenceConfig::default()
        },
    )
    .expect("a sandbox behind the proxy");
    let (proxy, asked) = recording_proxy(behind).await;
    let proxy_url = format!("http://{proxy}");
    let target = sandbox_target(&named, &format!("proxy = \"{proxy_url}\"\n"));
    let output = payconf_run_with(
        &[
            "--target",
            &target.0.display().to_string(),
            "--tags",
            "@core and @production-safe",
        ],
        &[],
    );
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert!(
        output
            .stdout
            .contains(&format!("proxy: {proxy_url}/ (from the proxy setting)")),
        "{}",
        output.stdout
    );
    let asked = asked.lock().expect("lock").clone();
    assert!(
        asked.iter().any(
            |line| line.starts_with("POST http://payments.proxied.test/api/v1/payment/create/")
        ),
        "{asked:?}"
    );

    // A proxy that cannot be reached stops the run.
    let closed = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let gone = closed.local_addr().expect("address");
    drop(closed);
    let target = sandbox_target(&named, &format!("proxy = \"http://{gone}\"\n"));
    let output = payconf_run_with(&["--target", &target.0.display().to_string()], &[]);
    assert_stopped(
        &output,
        &["the proxy payconf goes through to payments.proxied.test cannot be reached"],
    );
    let _ = sandbox.shutdown().await;
    let _ = named_sandbox.shutdown().await;
}
