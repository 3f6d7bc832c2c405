//! Graceful shutdown: a request in flight when the server is told to stop
//! is answered in full; new connections are refused once it has stopped.

use crate::support;

use std::time::Duration;

use payconf_reference::{DEFAULT_API_KEY, ReferenceConfig, RunningServer};
use support::create_body;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_in_flight_completes_during_shutdown() {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .expect("server starts");
    let address = server.base_url.socket_addrs(|| None).expect("address")[0];
    let body = create_body().to_string();
    let head = format!(
        "POST /api/v1/payment/create/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: apikey {DEFAULT_API_KEY}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(address).await.expect("connects");
    stream.write_all(head.as_bytes()).await.expect("head sent");
    // The server asks for the body when its handler starts reading it: from
    // then on the request is in flight.
    let mut interim = [0_u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut interim))
        .await
        .expect("the server asks for the body")
        .expect("read");
    let interim = String::from_utf8_lossy(&interim[..n]);
    assert!(interim.starts_with("HTTP/1.1 100 Continue"), "{interim}");
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    stream.write_all(first).await.expect("half the body sent");

    let mut stopping = tokio::spawn(server.shutdown());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), &mut stopping)
            .await
            .is_err(),
        "the server stopped with a request in flight"
    );
    stream
        .write_all(rest)
        .await
        .expect("the rest of the body sent");

    let mut answer = Vec::new();
    let mut buffer = [0_u8; 4096];
    while !String::from_utf8_lossy(&answer).contains(r#""userRedirect""#) {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("answered")
            .expect("read");
        assert!(
            n > 0,
            "closed before answering: {}",
            String::from_utf8_lossy(&answer)
        );
        answer.extend_from_slice(&buffer[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""code":"0""#), "{answer}");

    tokio::time::timeout(Duration::from_secs(5), stopping)
        .await
        .expect("shutdown finishes once the request is answered")
        .expect("the shutdown task")
        .expect("a clean shutdown");
    assert!(
        TcpStream::connect(address).await.is_err(),
        "still accepting after shutdown"
    );
}
