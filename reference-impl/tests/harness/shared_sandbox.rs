//! A sandbox a team shares, attacked as a stranger on its network would:
//! each test is one of the breaks issue 42 found, played against the
//! sandbox over real sockets on loopback. What it promises is in
//! docs/sandbox.md ("Sharing the sandbox").

use crate::support;

use std::time::{Duration, Instant};

use payconf_reference::{
    BACK_OFFICE_PATH, DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_PASSWORD,
    DEFAULT_SHOP_LOGIN, ReferenceConfig,
};
use reqwest::{StatusCode, redirect};
use serde_json::json;
use support::{
    Sandbox,
    back_office::{Browser, anonymous, read},
    merchant_server::MerchantServer,
    read_answer, submit_body,
};
use tokio::net::TcpListener;
use url::Url;

/// A page on a foreign name that its owner made resolve to the sandbox's
/// address (DNS rebinding): the browser sends that name as `Host` and as
/// `Origin`, and reaches nothing.
#[tokio::test]
async fn a_foreign_name_resolving_to_the_sandbox_reaches_nothing() {
    let sandbox = Sandbox::start().await;
    let address = sandbox
        .server
        .base_url
        .socket_addrs(|| None)
        .expect("an address")[0];
    let rebound = payconf_reference::http_client()
        .redirect(redirect::Policy::none())
        .resolve("rebound.example", address)
        .build()
        .expect("a client");
    let origin = format!("http://rebound.example:{}", address.port());
    let at = |path: &str| format!("{origin}{path}");

    let form = rebound
        .get(at(&format!("{BACK_OFFICE_PATH}/sign-in")))
        .send()
        .await
        .expect("answered");
    assert_eq!(form.status(), StatusCode::MISDIRECTED_REQUEST);
    let signed_in = read(
        rebound
            .post(at(&format!("{BACK_OFFICE_PATH}/sign-in")))
            .header("Origin", &origin)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(format!(
                "shopLogin={DEFAULT_SHOP_LOGIN}&password={DEFAULT_PASSWORD}"
            ))
            .send()
            .await
            .expect("answered"),
    )
    .await;
    assert_eq!(signed_in.status, StatusCode::MISDIRECTED_REQUEST);
    assert_eq!(signed_in.set_cookie, None, "no session for a rebound page");
    let create = rebound
        .post(at("/api/v1/payment/create"))
        .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
        .header("Content-Type", "application/json")
        .body(support::create_body().to_string())
        .send()
        .await
        .expect("answered");
    read_answer("createPayment", create)
        .await
        .assert_refused(421, "9421", "host name");

    // Through the sandbox's own address, a form whose Origin is the foreign
    // name is still another site's: compared with the sandbox's origin,
    // never with the Host it was sent to.
    let browser = Browser::signed_in(&sandbox).await;
    let page = browser.get(&format!("{BACK_OFFICE_PATH}/profile")).await;
    let token = page.form_token();
    let rotated = browser
        .post_from(
            &format!("{BACK_OFFICE_PATH}/api-key"),
            &[("csrf", &token)],
            Some(&origin),
        )
        .await;
    assert_eq!(rotated.status, StatusCode::FORBIDDEN);
}

/// A never-answering receiver of one merchant's (its payments name it as
/// their notification address) holds none of another merchant's
/// notifications back, and the delayed ones say why on their timelines.
#[tokio::test]
async fn one_merchants_dead_receiver_never_delays_another_merchants_notification() {
    let mut config = ReferenceConfig::default();
    config.limits.notification_timeout = Duration::from_secs(4);
    let mut other = config.merchants[0].clone();
    other.shop_login = "OTHER_SHOP".into();
    other.api_key = "other-shops-api-key".into();
    config.merchants.push(other);
    let sandbox = Sandbox::start_with(config).await;

    // Accepts, reads nothing, answers nothing.
    let dead = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let dead_url =
        Url::parse(&format!("http://{}/n", dead.local_addr().expect("address"))).expect("valid");
    let (accepted, mut held_connections) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = dead.accept().await {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    // More payments than the whole service had slots for before it shared them.
    let mut delayed_id = String::new();
    for _ in 0..40 {
        let (token, id) = sandbox.create().await;
        let mut body = submit_body(DEFAULT_FRICTIONLESS_CARD);
        body["responseURLs"] = json!({"serverNotificationURL": dead_url.as_str()});
        let answer = sandbox.submit_with(Some(&token), &body).await;
        assert_eq!(answer.payload()["transactionResult"], "OK");
        delayed_id = id;
    }
    // The dead receiver holds its share (4 attempts at once) before the
    // other merchant pays.
    for _ in 0..4 {
        tokio::time::timeout(Duration::from_secs(10), held_connections.recv())
            .await
            .expect("the dead receiver is reached");
    }

    let live = MerchantServer::start().await;
    let created = sandbox
        .create_with(
            Some("other-shops-api-key"),
            &json!({"shopLogin": "OTHER_SHOP", "amount": "5.00", "currency": "EUR",
                    "shopTransactionID": "other-1"}),
        )
        .await;
    let token = created.payload()["paymentToken"].as_str().expect("a token");
    let mut body = submit_body(DEFAULT_FRICTIONLESS_CARD);
    body["shopLogin"] = json!("OTHER_SHOP");
    body["responseURLs"] = json!({"serverNotificationURL": live.url.as_str()});
    let paid_at = Instant::now();
    sandbox.submit_with(Some(token), &body).await;
    live.wait_for(1).await;
    assert!(
        paid_at.elapsed() < Duration::from_secs(2),
        "the other merchant's notification waited {:?} for a receiver not its own",
        paid_at.elapsed()
    );

    let browser = Browser::signed_in(&sandbox).await;
    let detail = browser
        .get(&format!("{BACK_OFFICE_PATH}/payments/{delayed_id}"))
        .await;
    let steps = detail.text("ol.timeline li");
    assert!(
        steps.iter().any(|s| s.contains("delayed by the receiver")),
        "{steps:#?}"
    );
}

/// Runs the test `name` again in a network namespace of its own (`unshare
/// -rn`, loopback up, nothing else), unless this is that run: `true` when
/// the test should go on here. A test whose addresses would leave the
/// machine if the sandbox sent to them runs there only.
fn in_own_network(name: &str) -> bool {
    const INSIDE: &str = "PAYCONF_TEST_IN_NETNS";
    if std::env::var_os(INSIDE).is_some() {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary");
    // The test's whole name in the binary: its module's path without the
    // crate's name (`shared_sandbox::…`).
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    let test = format!("{module}::{name}");
    let ran = std::process::Command::new("unshare")
        .args(["-rn", "sh", "-c", r#"ip link set lo up && exec "$0" "$@""#])
        .arg(&exe)
        .args([
            test.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(INSIDE, "1")
        .output()
        .expect("unshare runs (util-linux)");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        ran.status.success(),
        "in a network namespace of its own:\n{said}"
    );
    assert!(said.contains("1 passed"), "the test ran there:\n{said}");
    false
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A sandbox listening on every address of the (namespace's) machine.
async fn beyond_loopback(config: ReferenceConfig) -> Sandbox {
    let listener = TcpListener::bind("0.0.0.0:0").await.expect("binds");
    let server = payconf_reference::RunningServer::start_on(listener, config).expect("starts");
    Sandbox {
        server,
        client: payconf_reference::http_client()
            .redirect(redirect::Policy::none())
            .no_proxy()
            .build()
            .expect("a client"),
    }
}

/// A sandbox listening on every address is named by the address a
/// connection reached, not by any address at all: a page served from
/// another machine's address (`http://1.2.3.4:PORT`, its form posted to
/// the sandbox) does not sign a buyer's browser in (login CSRF), and a
/// request naming that address as its host reaches nothing; the address
/// reached, as origin and as host, signs in.
#[test]
fn on_every_address_another_machines_address_is_not_the_sandboxs_own() {
    if !in_own_network("on_every_address_another_machines_address_is_not_the_sandboxs_own") {
        return;
    }
    runtime().block_on(async {
        let sandbox = beyond_loopback(ReferenceConfig::default()).await;
        let port = sandbox.server.base_url.port().expect("a port");
        let sign_in = |origin: String, host: Option<String>| {
            let mut request = sandbox
                .client
                .post(sandbox.url(&format!("{BACK_OFFICE_PATH}/sign-in")))
                .header("Origin", origin)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(format!(
                    "shopLogin={DEFAULT_SHOP_LOGIN}&password={DEFAULT_PASSWORD}"
                ));
            if let Some(host) = host {
                request = request.header("Host", host);
            }
            async move { read(request.send().await.expect("answered")).await }
        };
        let forged = sign_in(format!("http://1.2.3.4:{port}"), None).await;
        assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.html);
        assert_eq!(
            forged.set_cookie, None,
            "no session for another site's page"
        );
        let named = sign_in(
            format!("http://1.2.3.4:{port}"),
            Some(format!("1.2.3.4:{port}")),
        )
        .await;
        assert_eq!(
            named.status,
            StatusCode::MISDIRECTED_REQUEST,
            "{}",
            named.html
        );
        assert_eq!(named.set_cookie, None);
        let own = sign_in(format!("http://127.0.0.1:{port}"), None).await;
        assert_eq!(own.status, StatusCode::SEE_OTHER, "{}", own.html);
        assert!(own.set_cookie.is_some(), "the address reached signs in");
    });
}

/// Submits a payment naming `notify` as its notification address.
async fn submit_notifying(sandbox: &Sandbox, notify: &str) -> support::Answer {
    let (token, _) = sandbox.create().await;
    let mut body = submit_body(DEFAULT_FRICTIONLESS_CARD);
    body["responseURLs"] = json!({"serverNotificationURL": notify});
    sandbox.submit_with(Some(&token), &body).await
}

/// Server-side requests to anywhere: a token holder names, in every
/// spelling, the loopback, private and link-local addresses of the network
/// the sandbox stands in as its notification address. Listening beyond
/// loopback, the sandbox refuses each when it is given (1105, naming the
/// field), so nothing is sent; a range its operator allows opens that
/// range only; link-local and metadata addresses never.
#[test]
fn notification_addresses_the_policy_forbids_are_refused_when_given() {
    if !in_own_network("notification_addresses_the_policy_forbids_are_refused_when_given") {
        return;
    }
    runtime().block_on(async {
        let receiver = MerchantServer::start().await;
        let port = receiver.url.port().expect("a port");
        let sandbox = beyond_loopback(ReferenceConfig::default()).await;
        let forbidden = [
            format!("http://127.0.0.1:{port}/n"),
            format!("http://127.1:{port}/n"),
            format!("http://0x7f000001:{port}/n"),
            format!("http://2130706433:{port}/n"),
            format!("http://0177.0.0.1:{port}/n"),
            format!("http://[::1]:{port}/n"),
            format!("http://[::ffff:127.0.0.1]:{port}/n"),
            format!("http://localhost:{port}/n"),
            "http://10.0.0.5/n".to_owned(),
            "http://192.168.1.1/n".to_owned(),
            "http://169.254.169.254/latest/meta-data/".to_owned(),
            "http://0xa9fea9fe/latest/meta-data/".to_owned(),
            "http://[fd00:ec2::254]/latest/meta-data/".to_owned(),
            "http://0.0.0.0/n".to_owned(),
        ];
        for address in &forbidden {
            let answer = submit_notifying(&sandbox, address).await;
            answer.assert_refused(400, "1105", "responseURLs.serverNotificationURL");
        }

        // The operator allows loopback: that range opens, metadata stays shut.
        let config = ReferenceConfig {
            outbound_allow: vec!["127.0.0.0/8".parse().expect("a range")],
            ..ReferenceConfig::default()
        };
        let allowing = beyond_loopback(config).await;
        let answer = submit_notifying(&allowing, &format!("http://127.1:{port}/n")).await;
        assert_eq!(
            answer.payload()["transactionResult"],
            "OK",
            "{:#}",
            answer.body
        );
        receiver.wait_for(1).await;
        // Posted after every refused one: none of those reached it.
        assert_eq!(receiver.received().len(), 1, "only the allowed address");
        submit_notifying(&allowing, "http://169.254.169.254/")
            .await
            .assert_refused(400, "1105", "link-local");

        // The profile's address: refused naming the field, nothing saved.
        let browser = Browser::signed_in(&sandbox).await;
        let page = browser.get(&format!("{BACK_OFFICE_PATH}/profile")).await;
        let form = support::back_office::profile_form(
            &page,
            &[("notificationUrl", "http://[::ffff:169.254.169.254]/latest/")],
        );
        let refused = browser
            .post(
                &format!("{BACK_OFFICE_PATH}/profile"),
                &support::back_office::borrowed(&form),
            )
            .await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
        let alert = refused.text("[role=alert]").join(" ");
        assert!(
            alert.starts_with("Notification address") && alert.contains("link-local"),
            "{alert}"
        );
        let after = browser.get(&format!("{BACK_OFFICE_PATH}/profile")).await;
        assert_eq!(
            after
                .attr("input[name=notificationUrl]", "value")
                .as_deref(),
            Some("")
        );
    });
}

/// The local developer's sandbox (on loopback only) posts to loopback,
/// and still never to a link-local or metadata address.
#[test]
fn a_sandbox_on_loopback_posts_to_loopback_and_never_to_metadata() {
    if !in_own_network("a_sandbox_on_loopback_posts_to_loopback_and_never_to_metadata") {
        return;
    }
    runtime().block_on(on_loopback_posts_to_loopback_and_never_to_metadata());
}

async fn on_loopback_posts_to_loopback_and_never_to_metadata() {
    let receiver = MerchantServer::start().await;
    let sandbox = Sandbox::start().await;
    let port = receiver.url.port().expect("a port");
    let answer = submit_notifying(&sandbox, &format!("http://localhost:{port}/n")).await;
    assert_eq!(answer.payload()["transactionResult"], "OK");
    receiver.wait_for(1).await;
    for metadata in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://100.100.100.200/",
    ] {
        submit_notifying(&sandbox, metadata)
            .await
            .assert_refused(400, "1105", "link-local");
    }
}

/// Listening beyond loopback, the demo checkout (which creates payments
/// for anyone) is off unless its operator asks for it.
#[test]
fn beyond_loopback_the_demo_is_off_unless_asked_for() {
    if !in_own_network("beyond_loopback_the_demo_is_off_unless_asked_for") {
        return;
    }
    runtime().block_on(async {
        let off = beyond_loopback(ReferenceConfig::default()).await;
        let (status, _, _) = off
            .get_page(off.url(payconf_reference::DEMO_PATH).as_str())
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let config = ReferenceConfig {
            demo_checkout: Some(true),
            ..ReferenceConfig::default()
        };
        let on = beyond_loopback(config).await;
        let (status, _, _) = on
            .get_page(on.url(payconf_reference::DEMO_PATH).as_str())
            .await;
        assert_eq!(status, StatusCode::OK);
    });
}

/// The sign-in page shows the demo sign-in while the sandbox listens on
/// this machine alone and the default shop keeps the default password:
/// never beyond loopback, never once the password is the operator's own.
#[test]
fn the_demo_sign_in_is_shown_on_this_machine_alone() {
    if !in_own_network("the_demo_sign_in_is_shown_on_this_machine_alone") {
        return;
    }
    runtime().block_on(async {
        let shown = |sandbox: Sandbox| async move {
            let page = anonymous(&sandbox, &format!("{BACK_OFFICE_PATH}/sign-in")).await;
            assert_eq!(page.status, StatusCode::OK);
            page.text("#demo-sign-in")
        };
        let local = shown(Sandbox::start().await).await;
        assert_eq!(local.len(), 1, "{local:?}");
        assert!(
            local[0].contains(DEFAULT_SHOP_LOGIN) && local[0].contains(DEFAULT_PASSWORD),
            "{local:?}"
        );
        let mut own = ReferenceConfig::default();
        own.merchants[0].password = Some("an-operators-own-password".to_owned());
        assert!(shown(Sandbox::start_with(own).await).await.is_empty());
        assert!(
            shown(beyond_loopback(ReferenceConfig::default()).await)
                .await
                .is_empty()
        );
    });
}
