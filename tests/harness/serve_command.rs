//! `payconf serve` as a user runs it: the real binary, its first stdout line,
//! a request over loopback, graceful stop on SIGTERM, and clear refusals of
//! bad configuration.

use payconf_reference::{DEFAULT_API_KEY, DEFAULT_SHOP_LOGIN};
use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

fn payconf() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payconf"));
    command.env("PAYCONF_LOG", "warn");
    command
}

/// Starts `payconf serve` on a free port and reads the port from its first
/// line of stdout.
fn serve_on_a_free_port() -> (Child, u16) {
    let mut command = payconf();
    command.stderr(Stdio::piped());
    serve(command)
}

/// Starts `payconf serve` on a free port with this command's environment
/// and stderr, and reads the port from its first line of stdout.
fn serve(mut command: Command) -> (Child, u16) {
    let mut child = command
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("payconf starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("first line");
    let address = first
        .trim_end()
        .strip_prefix("listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("first line {first:?}"));
    let port: u16 = address.parse().expect("a real port, not 0");
    assert_ne!(port, 0);
    (child, port)
}

/// Sends SIGTERM and expects a clean exit (0) within 15 s, not death by the
/// signal.
fn assert_stops_gracefully_on_sigterm(child: &mut Child) {
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = wait_at_most_15_s(child);
    assert!(status.success(), "graceful stop exits 0: {status:?}");
}

fn wait_at_most_15_s(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "payconf serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_prints_its_address_first_answers_and_stops_on_sigterm() {
    let (mut child, port) = serve_on_a_free_port();

    // A request over the socket, written by hand: no client library involved.
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let body =
        &serde_json::json!({"shopLogin": DEFAULT_SHOP_LOGIN, "amount": "1.00", "currency": "EUR", "shopTransactionID": "t"}).to_string();
    write!(
        stream,
        "POST /api/v1/payment/create/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: apikey {DEFAULT_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("request sent");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut stream, &mut answer).expect("answer read");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""code":"0""#), "{answer}");

    assert_stops_gracefully_on_sigterm(&mut child);
}

/// A service manager may stop the service the moment it announces itself:
/// the signal must already be heard then, not only once serving has begun.
/// A shell reads the announcement straight from the pipe and signals at once
/// (`read` and `kill` are shell builtins), so no process start sits between
/// the line and the signal.
#[test]
fn serve_stops_gracefully_on_a_sigterm_sent_as_soon_as_it_prints_its_address() {
    for _ in 0..20 {
        let mut child = payconf()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("payconf starts");
        let announcement = child.stdout.take().expect("stdout");
        let signaller = Command::new("sh")
            .args(["-c", r#"read -r line && kill -TERM "$0" && echo "$line""#])
            .arg(child.id().to_string())
            .stdin(Stdio::from(announcement))
            .output()
            .expect("sh runs");
        assert!(signaller.status.success(), "{signaller:?}");
        let line = String::from_utf8_lossy(&signaller.stdout);
        assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");
        let status = wait_at_most_15_s(&mut child);
        assert!(status.success(), "graceful stop exits 0: {status:?}");
    }
}

#[test]
fn serve_with_an_invalid_config_exits_2_naming_the_setting() {
    let dir = std::env::temp_dir().join(format!("payconf-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[[merchants]]\nshop_login = \"bad login!\"\napi_key = \"k\"\n",
    )
    .expect("write");
    let output = payconf()
        .args(["serve", "--addr", "127.0.0.1:0", "--config"])
        .arg(&file)
        .output()
        .expect("payconf runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("merchants[0].shop_login"), "{stderr}");
    assert!(
        output.stdout.is_empty(),
        "nothing is listening, so nothing is announced"
    );
}

#[test]
fn serve_with_a_missing_config_file_exits_2_naming_the_file() {
    let output = payconf()
        .args(["serve", "--config", "/nonexistent/payconf.toml"])
        .output()
        .expect("payconf runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/payconf.toml"), "{stderr}");
}

#[test]
fn serve_on_a_busy_port_exits_2_naming_the_address() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = busy.local_addr().expect("addr").to_string();
    let output = payconf()
        .args(["serve", "--addr", &addr])
        .output()
        .expect("payconf runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(&addr));
}

/// The default log (a line a payment, written off the request path) loses
/// nothing when the service is stopped: every payment answered before
/// SIGTERM has its line, written out before the process exits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_logs_every_payment_by_default_and_loses_no_line_on_sigterm() {
    const PAYMENTS: usize = 3000;
    const CONNECTIONS: usize = 16;
    let log = std::env::temp_dir().join(format!("payconf-serve-log-{}.txt", std::process::id()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_payconf"));
    command
        .env_remove("PAYCONF_LOG")
        .stderr(std::fs::File::create(&log).expect("a log file"));
    let (mut child, port) = serve(command);
    let base = format!("http://127.0.0.1:{port}");

    let client = payconf_reference::http_client()
        .build()
        .expect("an HTTP client");
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..CONNECTIONS {
        let client = client.clone();
        let url = format!("{base}/api/v1/payment/create/");
        tasks.spawn(async move {
            let mut answered = 0;
            for i in 0..PAYMENTS / CONNECTIONS {
                let response = client
                    .post(&url)
                    .header("authorization", format!("apikey {DEFAULT_API_KEY}"))
                    .header("content-type", "application/json")
                    .body(
                        serde_json::json!({"shopLogin": DEFAULT_SHOP_LOGIN, "amount": "1.00", "currency": "EUR", "shopTransactionID": format!("log-{i}")}).to_string()
                    )
                    .send()
                    .await
                    .expect("an answer");
                assert_eq!(response.status(), 200);
                answered += 1;
            }
            answered
        });
    }
    let mut answered = 0;
    while let Some(count) = tasks.join_next().await {
        answered += count.expect("a task ends");
    }
    assert_stops_gracefully_on_sigterm(&mut child);

    let text = std::fs::read_to_string(&log).expect("the log");
    let _ = std::fs::remove_file(&log);
    let lines = text
        .lines()
        .filter(|l| l.contains(" INFO ") && l.contains("payment created"))
        .count();
    assert_eq!(lines, answered, "a line for every payment answered");
    assert_eq!(answered, PAYMENTS / CONNECTIONS * CONNECTIONS);
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.contains("all connections closed")),
        "the shutdown's own lines come last:\n{}",
        text.lines().last().unwrap_or_default()
    );
}
