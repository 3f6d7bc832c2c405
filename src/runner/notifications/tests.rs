//! The listener under attack, over real sockets: what a hostile target (or
//! anyone on the network) sends it is bounded, kept apart from the
//! evidence, and shown harmless.

use std::{net::SocketAddr, time::Duration};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use super::{Listener, MAX_BODY, Notification};
use crate::runner::{redact::Redactor, target_file::NotificationSettings};

async fn listener() -> std::sync::Arc<Listener> {
    Listener::start(&NotificationSettings::sandbox("secret"))
        .await
        .expect("listens on loopback")
}

/// Sends `request` whole on a new connection; the answer's status line.
async fn raw(address: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).await.expect("connects");
    // The listener may answer and close before the body is all sent.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

fn post(path: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

#[tokio::test]
async fn a_delivery_reaches_its_mailbox_and_a_refused_one_is_answered_500() {
    let listener = listener().await;
    let mailbox = listener.open();
    mailbox.refuse_next(1);
    let path = mailbox.url().path().to_owned();
    assert!(
        raw(listener.local(), &post(&path, b"{}"))
            .await
            .contains(" 500 ")
    );
    assert!(
        raw(listener.local(), &post(&path, b"{}"))
            .await
            .contains(" 200 ")
    );
    let received = mailbox.received();
    assert_eq!(
        received.iter().map(|n| n.answered).collect::<Vec<_>>(),
        [500, 200]
    );
    assert_eq!(listener.heard(), 2);
}

/// The refusal is for the outcome's notification: one of the payment's
/// money that comes first is taken, and the outcome's is refused after it.
#[tokio::test]
async fn a_notification_of_the_money_is_not_the_one_refused() {
    let listener = listener().await;
    let mailbox = listener.open();
    mailbox.refuse_next(1);
    let path = mailbox.url().path().to_owned();
    let settled = br#"{"eventType":"payment.settled"}"#;
    assert!(
        raw(listener.local(), &post(&path, settled))
            .await
            .contains(" 200 ")
    );
    let outcome = br#"{"eventType":"payment.outcome"}"#;
    assert!(
        raw(listener.local(), &post(&path, outcome))
            .await
            .contains(" 500 ")
    );
    let received = mailbox.received();
    assert!(received[0].tells_money());
    assert!(!received[1].tells_money());
}

#[tokio::test]
async fn requests_to_no_open_mailbox_are_refused_and_are_no_evidence() {
    let listener = listener().await;
    let closed = {
        let mailbox = listener.open();
        mailbox.url().path().to_owned()
    };
    for path in ["/", "/payconf/notifications/0123", closed.as_str()] {
        assert!(
            raw(listener.local(), &post(path, b"{}"))
                .await
                .contains(" 404 "),
            "{path}"
        );
    }
    assert_eq!(
        listener.heard(),
        0,
        "only the target knows a mailbox's address"
    );
    assert_eq!(listener.stray(), 3);
    assert!(!listener.heard_within(Duration::from_millis(50)).await);
}

#[tokio::test]
async fn a_body_past_the_bound_is_not_read_and_the_listener_goes_on() {
    let listener = listener().await;
    let mailbox = listener.open();
    let path = mailbox.url().path().to_owned();
    let flood = vec![b'7'; MAX_BODY * 16];
    raw(listener.local(), &post(&path, &flood)).await;
    raw(listener.local(), &post(&path, b"{\"ok\":1}")).await;
    let received = mailbox.received();
    assert_eq!(received.len(), 2, "{received:?}");
    let refused = received[0].body.as_ref().expect_err("not read");
    assert_eq!(*refused, super::BodyUnread::TooLarge);
    assert!(
        refused.to_string().contains("more than 64 KiB"),
        "{refused}"
    );
    assert_eq!(received[1].body.as_deref().ok(), Some(&b"{\"ok\":1}"[..]));
}

#[tokio::test]
async fn connections_past_the_bound_are_closed_at_once_and_the_listener_recovers() {
    let listener = listener().await;
    let mut idle = Vec::new();
    for _ in 0..super::listen::CONNECTIONS {
        idle.push(
            TcpStream::connect(listener.local())
                .await
                .expect("connects"),
        );
    }
    // Every slot is held: the next connection is closed without an answer.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut extra = TcpStream::connect(listener.local())
        .await
        .expect("connects");
    let mut byte = [0_u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(2), extra.read(&mut byte)).await;
    assert!(
        matches!(read, Ok(Ok(0) | Err(_))),
        "closed at once: {read:?}"
    );
    drop(idle);
    let mailbox = listener.open();
    let path = mailbox.url().path().to_owned();
    let mut status = String::new();
    for _ in 0..50 {
        status = raw(listener.local(), &post(&path, b"{}")).await;
        if status.contains(" 200 ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(status.contains(" 200 "), "{status}");
}

#[test]
fn what_a_delivery_shows_is_redacted_and_obeyed_by_no_terminal_or_ci_log() {
    let redactor = Redactor::new(["sk-live-key-123".to_owned()]);
    redactor.add_card_number("4111111111111111");
    let body = "{\"note\":\"sk-live-key-123 4111111111111111 \\u001b]52;c;Zm9v\\u0007\",\
                \"log\":\"\\n::error::forged\\n##[error]forged\"}";
    let shown = Notification {
        after: Duration::from_millis(1500),
        method: "POST\u{1b}[2J".to_owned(),
        body: Ok(bytes::Bytes::from(body)),
        signature: None,
        event_header: None,
        answered: 200,
    }
    .shown(&redactor);
    for raw in [
        "sk-live-key-123",
        "4111111111111111",
        "\u{1b}",
        "\n",
        "##[error]",
    ] {
        assert!(!shown.contains(raw), "{raw:?} in {shown}");
    }
    assert!(shown.contains("411111******1111"), "{shown}");
    assert!(
        !shown.lines().any(|l| l.trim_start().starts_with("::")),
        "{shown}"
    );
}
