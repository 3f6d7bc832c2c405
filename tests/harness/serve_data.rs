//! `payconf serve --data` as an operator runs it: the real binary killed
//! with SIGKILL in the middle of a load loses no payment it acknowledged
//! and no notification it owed; a data file it cannot use stops it with a
//! message and a non-zero exit, before it says it listens.

use std::{
    collections::BTreeSet,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use payconf_reference::{DEFAULT_API_KEY, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN};

use crate::support::merchant::MerchantServer;
use serde_json::{Value, json};
use std::sync::Mutex as StdMutex;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "payconf-serve-data-{name}-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `payconf serve --data FILE` with a configuration file, on a free port.
fn serve_command(data: &Path, config: Option<&Path>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payconf"));
    command
        .env("PAYCONF_LOG", "warn")
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(config) = config {
        command.arg("--config").arg(config);
    }
    command
}

/// Starts the sandbox and reads its address from its first line.
fn start(data: &Path, config: Option<&Path>) -> (Child, String) {
    let mut child = serve_command(data, config).spawn().expect("payconf starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("first line");
    let base = first
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line {first:?}"))
        .to_owned();
    (child, base)
}

/// Runs the sandbox on a file it must refuse: its exit status and stderr.
fn refused(data: &Path) -> (std::process::ExitStatus, String, String) {
    let output = serve_command(data, None).output().expect("payconf runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// One merchant's checkout, again and again until `stop`: a create, and
/// every other time a submit; what the sandbox acknowledged is kept.
async fn checkouts(
    client: reqwest::Client,
    base: String,
    stop: Arc<AtomicBool>,
    acknowledged: Arc<StdMutex<Vec<(String, String, bool)>>>,
) {
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let created = client
            .post(format!("{base}/api/v1/payment/create/"))
            .header("Authorization", format!("apikey {DEFAULT_API_KEY}"))
            .json(&json!({"shopLogin": DEFAULT_SHOP_LOGIN, "amount": "5.00", "currency": "EUR", "shopTransactionID": format!("load-{n}")}))
            .send()
            .await;
        let Some(payload) = acknowledged_payload(created).await else {
            return;
        };
        let token = payload["paymentToken"].as_str().unwrap_or("").to_owned();
        let id = payload["paymentID"].as_str().unwrap_or("").to_owned();
        acknowledged
            .lock()
            .expect("not poisoned")
            .push((token.clone(), id.clone(), false));
        if n % 2 == 0 {
            continue;
        }
        let submitted = client
            .post(format!("{base}/api/v1/payment/submit/"))
            .header("paymentToken", &token)
            .json(&submit_body())
            .send()
            .await;
        let Some(payload) = acknowledged_payload(submitted).await else {
            return;
        };
        if payload["transactionResult"] == "OK" {
            let mut all = acknowledged.lock().expect("not poisoned");
            if let Some(entry) = all.iter_mut().find(|(t, _, _)| *t == token) {
                entry.2 = true;
            }
        }
    }
}

/// The payload of an answer the sandbox acknowledged (code `"0"`), or
/// `None` when it did not answer (it was killed).
async fn acknowledged_payload(sent: reqwest::Result<reqwest::Response>) -> Option<Value> {
    let body: Value = sent.ok()?.json().await.ok()?;
    (body["error"]["code"] == "0").then(|| body["payload"].clone())
}

fn submit_body() -> Value {
    json!({
        "shopLogin": DEFAULT_SHOP_LOGIN,
        "buyer": {"name": "Load Buyer", "email": "load@example.com"},
        "paymentTypeDetails": {"creditcard": {"number": DEFAULT_FRICTIONLESS_CARD, "expMonth": "12", "expYear": "99", "CVV": "123"}}
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sandbox_killed_mid_load_keeps_every_acknowledged_payment_and_owed_notification() {
    let dir = scratch("kill");
    let data = dir.join("sandbox.db");
    let merchant = MerchantServer::refusing().await;
    let config = dir.join("sandbox.toml");
    std::fs::write(
        &config,
        format!(
            "[[merchants]]\nshop_login = \"{DEFAULT_SHOP_LOGIN}\"\napi_key = \"{DEFAULT_API_KEY}\"\n\
             password = \"demo-password\"\nnotification_url = \"{}\"\n",
            merchant.url
        ),
    )
    .expect("configuration written");
    let (mut child, base) = start(&data, Some(&config));

    let client = payconf_reference::http_client()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(StdMutex::new(Vec::new()));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            tokio::spawn(checkouts(
                client.clone(),
                base.clone(),
                Arc::clone(&stop),
                Arc::clone(&acknowledged),
            ))
        })
        .collect();
    // Killed while the checkouts are in full flight.
    let loaded = Instant::now();
    while acknowledged.lock().expect("not poisoned").len() < 300
        && loaded.elapsed() < Duration::from_secs(20)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().expect("SIGKILL sent");
    let _ = child.wait();
    stop.store(true, Ordering::SeqCst);
    for worker in workers {
        let _ = worker.await;
    }
    let acknowledged = acknowledged.lock().expect("not poisoned").clone();
    let paid: BTreeSet<String> = acknowledged
        .iter()
        .filter(|(_, _, paid)| *paid)
        .map(|(_, id, _)| id.clone())
        .collect();
    assert!(
        acknowledged.len() >= 300 && !paid.is_empty(),
        "the load ran: {} acknowledged",
        acknowledged.len()
    );

    merchant.take();
    let (mut again, base) = start(&data, Some(&config));
    for (token, id, was_paid) in &acknowledged {
        let answer: Value = client
            .post(format!("{base}/api/v1/payment/submit/"))
            .header("paymentToken", token)
            .json(&submit_body())
            .send()
            .await
            .expect("answered")
            .json()
            .await
            .expect("JSON");
        let code = answer["error"]["code"].as_str().unwrap_or("");
        if *was_paid {
            assert_eq!(code, "1137", "payment {id}, paid before the kill: {answer}");
        } else {
            // Created before the kill (perhaps paid in the moment of the
            // kill, unacknowledged): known either way, never unknown.
            assert!(
                code == "0" || code == "1137",
                "payment {id}, created before the kill: {answer}"
            );
        }
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let missing: Vec<String> = paid.difference(&merchant.taken()).cloned().collect();
        if missing.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} owed notifications not delivered after the restart, e.g. {:?}",
            missing.len(),
            paid.len(),
            missing.first()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = again.kill();
    let _ = again.wait();
}

#[test]
fn a_data_file_another_sandbox_holds_stops_the_second_with_a_message() {
    let data = scratch("held").join("sandbox.db");
    let (mut first, _) = start(&data, None);
    let (status, stdout, stderr) = refused(&data);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "never says it listens: {stdout}");
    assert!(stderr.contains("in use by another sandbox"), "{stderr}");
    let _ = first.kill();
    let _ = first.wait();
}

#[test]
fn a_file_that_is_not_a_sandbox_data_file_is_refused_and_left_as_it_was() {
    let data = scratch("text").join("notes.txt");
    let text = "my notes, not a database\n".repeat(200);
    std::fs::write(&data, &text).expect("written");
    let (status, stdout, stderr) = refused(&data);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("is not a sandbox data file"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&data).expect("read"), text);
}

#[test]
fn a_data_file_of_a_newer_version_is_refused_naming_both_versions() {
    let data = scratch("newer").join("sandbox.db");
    let (mut first, _) = start(&data, None);
    let _ = first.kill();
    let _ = first.wait();
    rusqlite::Connection::open(&data)
        .and_then(|c| c.pragma_update(None, "user_version", 99))
        .expect("marked as written by a newer version");
    let (status, _, stderr) = refused(&data);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("newer version"), "{stderr}");
    assert!(stderr.contains("99"), "{stderr}");
}
