//! The machine's own limit: a bare hyper server that answers every request
//! with one fixed JSON body, measured by the same load client as the
//! payment service, so that each throughput is read beside it.
//!
//! It runs in a process of its own (`payconf bench-helper baseline`), as
//! `payconf serve` does, with the same HTTP/1.1 settings the reference
//! implementation uses (keep-alive, no Nagle delay), and answers the body a
//! real create answer had, byte for byte: the load client reads a token in
//! it as it does in a create answer, and the answer is the same size.

use std::{convert::Infallible, io::Write};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::interruption::Interruption;

/// Serves `body` to every request on a free loopback port until SIGTERM or
/// Ctrl-C, after printing `listening on http://HOST:PORT` as `payconf serve`
/// does.
pub async fn serve_baseline(body: String) -> anyhow::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let mut interruption = Interruption::listen()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{}", listener.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    let body = Bytes::from(body);
    let mut http = http1::Builder::new();
    http.keep_alive(true);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let body = body.clone();
                let connection = http.serve_connection(
                    TokioIo::new(stream),
                    service_fn(move |request: http::Request<hyper::body::Incoming>| {
                        let body = body.clone();
                        async move {
                            // Read as any service reads it, so the
                            // connection stays open for the next request.
                            let _ = request.into_body().collect().await;
                            let response = http::Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(body))
                                .expect("a fixed answer is valid");
                            Ok::<_, Infallible>(response)
                        }
                    }),
                );
                tokio::spawn(connection);
            }
            _ = interruption.next() => return Ok(()),
        }
    }
}
