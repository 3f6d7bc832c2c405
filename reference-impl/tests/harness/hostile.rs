//! The reference implementation under hostile input: every request is
//! answered with the envelope and the right status, nothing panics, nothing
//! changes state, slow and idle clients cannot hold the service.

use crate::support;

use payconf_reference::{
    DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD, DEFAULT_SHOP_LOGIN,
};
use std::time::Duration;

use payconf_reference::{ReferenceConfig, ServerLimits};
use reqwest::Method;
use serde_json::{Value, json};
use support::{Sandbox, create_body, submit_body, with};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

fn create_headers() -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", "application/json".to_owned()),
        ("Authorization", format!("apikey {DEFAULT_API_KEY}")),
    ]
}

/// Sends `body` to create and asserts the refusal of a body that is not
/// the JSON create reads: 400, code 1105, a description naming `mentions`.
async fn refused_with_1105(sandbox: &Sandbox, body: impl Into<Vec<u8>>, mentions: &str) {
    create_raw(sandbox, body)
        .await
        .assert_refused(400, "1105", mentions);
}

async fn create_raw(sandbox: &Sandbox, body: impl Into<Vec<u8>>) -> support::Answer {
    sandbox
        .post_raw(
            "createPayment",
            "/api/v1/payment/create/",
            &create_headers(),
            body.into(),
        )
        .await
}

/// The sandbox's socket address.
fn address(sandbox: &Sandbox) -> std::net::SocketAddr {
    sandbox
        .server
        .base_url
        .socket_addrs(|| None)
        .expect("address")[0]
}

/// A fresh connection to the sandbox.
async fn connect(sandbox: &Sandbox) -> TcpStream {
    TcpStream::connect(address(sandbox))
        .await
        .expect("connects")
}

/// Sends raw bytes on a fresh connection and reads until the server closes it.
async fn raw_exchange(sandbox: &Sandbox, bytes: &[u8]) -> String {
    let mut stream = connect(sandbox).await;
    stream.write_all(bytes).await.expect("sends");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// The service still creates payments.
async fn still_serves(sandbox: &Sandbox) {
    let (token, _) = sandbox.create().await;
    assert_eq!(token.len(), 36);
}

#[tokio::test]
async fn malformed_and_truncated_json_is_refused_with_1105() {
    let sandbox = Sandbox::start().await;
    for body in [
        &br#"{"shopLogin": "ACME", "amount": "10.00""#[..],
        br#"{"shopLogin": }"#,
        br#"{"shopLogin": "ACME",}"#,
        b"",
        b"\x00\x01\x02",
        br#"{"shopLogin": "ACME"} trailing"#,
    ] {
        refused_with_1105(&sandbox, body, "JSON").await;
    }
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn deeply_nested_json_is_refused_without_exhausting_the_stack() {
    let sandbox = Sandbox::start().await;
    let depth = 100_000;
    let mut body = "[".repeat(depth);
    body.push_str(&"]".repeat(depth));
    let nested_object = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    for body in [body, nested_object] {
        // Within the 64 KiB limit or not, the answer is a refusal with the envelope.
        let answer = create_raw(&sandbox, body).await;
        assert!(
            matches!(answer.status.as_u16(), 400 | 413),
            "{}",
            answer.status
        );
    }
    let within_limit = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    refused_with_1105(&sandbox, within_limit, "recursion").await;
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn a_ten_mib_body_is_refused_with_413_declared_or_chunked() {
    let sandbox = Sandbox::start().await;
    let big = vec![b' '; 10 * 1024 * 1024];
    create_raw(&sandbox, big.clone())
        .await
        .assert_refused(413, "9413", "65536");
    let chunks = futures_util::stream::iter(
        big.chunks(64 * 1024)
            .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
            .collect::<Vec<_>>(),
    );
    let response = sandbox
        .client
        .post(sandbox.url("/api/v1/payment/create/"))
        .header("Content-Type", "application/json")
        .header("Authorization", &format!("apikey {DEFAULT_API_KEY}"))
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await;
    // The service may answer before reading the whole body and close the
    // connection: an answer, when the client sees one, is the 413 envelope.
    if let Ok(response) = response {
        let answer = support::read_answer("createPayment", response).await;
        answer.assert_refused(413, "9413", "65536");
    }
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn a_key_given_twice_is_refused_and_changes_nothing() {
    let sandbox = Sandbox::start().await;
    let duplicate_amount = format!(
        r#"{{"shopLogin":"{DEFAULT_SHOP_LOGIN}","amount":"10.00","currency":"EUR","shopTransactionID":"o-1","amount":"99999.00"}}"#
    );
    refused_with_1105(&sandbox, duplicate_amount, "twice").await;

    let (token, id) = sandbox.create().await;
    let body = submit_body(DEFAULT_FRICTIONLESS_CARD).to_string();
    let duplicate_number = body.replacen(
        r#""number":"#,
        &format!(r#""number":"{DEFAULT_DECLINED_CARD}","number":"#),
        1,
    );
    assert_ne!(body, duplicate_number);
    let answer = sandbox
        .post_raw(
            "submitPayment",
            "/api/v1/payment/submit/",
            &[
                ("Content-Type", "application/json"),
                ("paymentToken", &token),
            ],
            duplicate_number.into_bytes(),
        )
        .await;
    answer.assert_refused(400, "1105", "twice");
    // The payment is untouched: the proper submit still pays it.
    let paid = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(paid.payload()["transactionResult"], "OK");
    assert_eq!(paid.payload()["paymentID"], id.as_str());
}

/// Found by the submit_body fuzz target: a duplicate key was named in the
/// refusal, and a key can be a card number.
#[tokio::test]
async fn a_duplicate_key_that_is_not_a_field_name_is_not_echoed() {
    let sandbox = Sandbox::start().await;
    let body = format!(
        r#"{{"{DEFAULT_FRICTIONLESS_CARD}":"x","shopLogin":"{DEFAULT_SHOP_LOGIN}","{DEFAULT_FRICTIONLESS_CARD}":"y"}}"#
    );
    let answer = create_raw(&sandbox, body).await;
    answer.assert_refused(400, "1105", "twice");
    assert!(
        !answer.description().contains(DEFAULT_FRICTIONLESS_CARD),
        "{}",
        answer.description()
    );
}

#[tokio::test]
async fn numbers_nulls_and_objects_where_strings_belong_are_refused_naming_the_field() {
    let sandbox = Sandbox::start().await;
    for (field, value) in [
        ("/amount", json!(10)),
        ("/amount", Value::Null),
        ("/currency", json!(["EUR"])),
        ("/shopLogin", json!({"login": DEFAULT_SHOP_LOGIN})),
        ("/shopTransactionID", json!(true)),
    ] {
        let answer = sandbox
            .create_with(Some(DEFAULT_API_KEY), &with(create_body(), field, value))
            .await;
        assert_eq!(answer.status.as_u16(), 400, "{field}: {:#}", answer.body);
        assert!(
            answer.description().contains(&field[1..]),
            "{field}: {}",
            answer.description()
        );
    }
    let (token, _) = sandbox.create().await;
    for (field, value) in [
        (
            "/paymentTypeDetails/creditcard/number",
            json!(DEFAULT_FRICTIONLESS_CARD.parse::<u64>().expect("digits")),
        ),
        ("/paymentTypeDetails/creditcard/CVV", json!(123)),
        ("/buyer/email", json!(["jane@mail.example"])),
        ("/buyer", json!("Jane")),
    ] {
        let answer = sandbox
            .submit_with(
                Some(&token),
                &with(submit_body(DEFAULT_FRICTIONLESS_CARD), field, value),
            )
            .await;
        assert_eq!(answer.status.as_u16(), 400, "{field}: {:#}", answer.body);
    }
    let paid = sandbox
        .submit_with(Some(&token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
        .await;
    assert_eq!(
        paid.payload()["transactionResult"],
        "OK",
        "the refusals changed nothing"
    );
}

#[tokio::test]
async fn invalid_utf8_is_refused_with_1105() {
    let sandbox = Sandbox::start().await;
    let mut body = br#"{"shopLogin":"DEMO_"#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    body.extend_from_slice(br#"","amount":"10.00","currency":"EUR","shopTransactionID":"o"}"#);
    refused_with_1105(&sandbox, body, "JSON").await;
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn huge_headers_are_refused_with_431_and_the_envelope() {
    let sandbox = Sandbox::start().await;
    let big = "x".repeat(100 * 1024);
    let answer = sandbox
        .post_raw(
            "createPayment",
            "/api/v1/payment/create/",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &format!("apikey {DEFAULT_API_KEY}")),
                ("X-Padding", &big),
            ],
            create_body().to_string().into_bytes(),
        )
        .await;
    answer.assert_refused(431, "9431", "32768");
    // Past what the HTTP layer buffers, it answers 431 itself and the service goes on.
    let enormous = "y".repeat(2 * 1024 * 1024);
    let raw = raw_exchange(
        &sandbox,
        format!("GET / HTTP/1.1\r\nHost: localhost\r\nX-Padding: {enormous}\r\n\r\n").as_bytes(),
    )
    .await;
    assert!(
        raw.starts_with("HTTP/1.1 431"),
        "{}",
        &raw[..raw.len().min(200)]
    );
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn unknown_methods_and_paths_answer_with_the_envelope() {
    let sandbox = Sandbox::start().await;
    let brew = Method::from_bytes(b"BREW").expect("a method");
    let response = sandbox
        .client
        .request(brew, sandbox.url("/api/v1/payment/create/"))
        .send()
        .await
        .expect("answered");
    support::read_answer("createPayment", response)
        .await
        .assert_refused(405, "9405", "POST");
    for path in [
        "/../../etc/passwd",
        "/api/v1/payment/%00/",
        "/api/v1/payment/create/%2e%2e",
        "/%FF%FE",
    ] {
        let raw = raw_exchange(
            &sandbox,
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await;
        assert!(raw.starts_with("HTTP/1.1 404"), "{path}: {raw}");
        assert!(raw.contains(r#""code":"9404""#), "{path}: {raw}");
    }
}

#[tokio::test]
async fn payment_tokens_that_are_not_uuids_are_refused_with_1170() {
    let sandbox = Sandbox::start().await;
    let long = "a".repeat(10_000);
    for token in [
        "'; DROP TABLE payments; --",
        "00000000-0000-0000-0000-00000000000g",
        long.as_str(),
        "{{7*7}}",
    ] {
        sandbox
            .submit_with(Some(token), &submit_body(DEFAULT_FRICTIONLESS_CARD))
            .await
            .assert_refused(403, "1170", "paymentToken");
    }
}

#[tokio::test]
async fn markup_in_what_pages_echo_is_escaped() {
    let sandbox = Sandbox::start().await;
    let script = "<script>alert(1)</script>";
    let encoded = "%3Cscript%3Ealert(1)%3C%2Fscript%3E";
    for url in [
        format!("/pagam/pagam3d.aspx?a={encoded}&b={encoded}"),
        format!("/merchant/{encoded}/success"),
        format!("/merchant/DEMO_SHOP/success?paymentID={encoded}"),
    ] {
        let (_, _, body) = sandbox.get_page(sandbox.url(&url).as_str()).await;
        assert!(!body.contains(script), "{url} echoes markup: {body}");
    }
}

fn short_limits() -> ReferenceConfig {
    ReferenceConfig {
        limits: ServerLimits {
            header_read_timeout: Duration::from_secs(1),
            body_read_timeout: Duration::from_secs(1),
            shutdown_grace: Duration::from_secs(1),
            ..ServerLimits::default()
        },
        ..ReferenceConfig::default()
    }
}

#[tokio::test]
async fn a_client_sending_its_headers_a_byte_a_second_is_cut_off() {
    let sandbox = Sandbox::start_with(short_limits()).await;
    let mut stream = connect(&sandbox).await;
    let request = b"POST /api/v1/payment/create/ HTTP/1.1\r\nHost: localhost\r\n";
    let mut cut_off = false;
    for byte in request.iter().cycle().take(30) {
        if stream.write_all(&[*byte]).await.is_err() {
            cut_off = true;
            break;
        }
        // A byte every 250 ms, each gap spent waiting for the server to
        // close the connection or answer.
        let mut buffer = [0_u8; 256];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(250), stream.read(&mut buffer)).await
        {
            // Closed (0) or answered: either way the slow client is done.
            let _ = n;
            cut_off = true;
            break;
        }
    }
    assert!(
        cut_off,
        "a client 7.5 s into its headers is still connected"
    );
    still_serves(&sandbox).await;
}

#[tokio::test]
async fn a_body_sent_too_slowly_is_refused_with_408() {
    let sandbox = Sandbox::start_with(short_limits()).await;
    let body = create_body().to_string();
    let head = format!(
        "POST /api/v1/payment/create/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: apikey demo-api-key\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = connect(&sandbox).await;
    stream.write_all(head.as_bytes()).await.expect("head sent");
    stream
        .write_all(&body.as_bytes()[..5])
        .await
        .expect("part sent");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answered within the bound")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""code":"9408""#), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_idle_connections_do_not_stop_new_requests() {
    let sandbox = Sandbox::start().await;
    let address = address(&sandbox);
    let mut idle = Vec::new();
    for _ in 0..2_000 {
        idle.push(
            TcpStream::connect(address)
                .await
                .expect("an idle connection"),
        );
    }
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        sandbox.create_with(Some(DEFAULT_API_KEY), &create_body()),
    )
    .await
    .expect("a new request is served while 2,000 connections idle");
    assert_eq!(answer.code(), "0");
    drop(idle);
}

#[tokio::test]
async fn a_refusal_of_a_request_with_a_body_says_the_connection_closes() {
    let sandbox = Sandbox::start().await;
    let json = [("Content-Type", "application/json")];
    let body = || format!(r#"{{"shopLogin":"{DEFAULT_SHOP_LOGIN}"}}"#).into_bytes();
    // The body is never read here: the HTTP layer closes the connection.
    let refused = sandbox
        .post_raw(
            "createPayment",
            "/api/v1/payment/payconf-no-such-operation/",
            &json,
            body(),
        )
        .await;
    assert_eq!(refused.status.as_u16(), 404);
    assert_eq!(
        refused.headers.get("connection").map(|v| v.as_bytes()),
        Some(&b"close"[..])
    );
    let unauthenticated = sandbox
        .post_raw("createPayment", "/api/v1/payment/create/", &json, body())
        .await;
    assert_eq!(unauthenticated.status.as_u16(), 403);
    assert_eq!(
        unauthenticated
            .headers
            .get("connection")
            .map(|v| v.as_bytes()),
        Some(&b"close"[..])
    );

    let accepted = sandbox
        .create_with(Some(DEFAULT_API_KEY), &support::create_body())
        .await;
    assert_eq!(accepted.status.as_u16(), 200);
    assert!(
        accepted.headers.get("connection").is_none(),
        "an accepted request keeps its connection"
    );
}
