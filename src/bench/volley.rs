//! `payconf bench --volley`: how close together the requests of a volley
//! reach a server ([`crate::runner::volley`]), beside requests simply sent
//! together.
//!
//! The server is a bare hyper server in the same process, on loopback,
//! that notes the moment each request's body is whole (the moment a
//! handler could act on it) and answers a small JSON envelope. Spread is
//! the time between the first and the last of a volley's requests so
//! noted: the server's view, which no client can flatter. Three ways of
//! sending 20 POSTs at once are measured, each on a client of its own:
//!
//! - `join_all`: the requests sent together on a fresh client, as payconf
//!   sent them before volleys (each opens its connection as it goes);
//! - `join_all, warmed`: the same after the volley's warm-up opened the
//!   connections;
//! - `volley`: the volley engine (warm-up, last byte held, released together),
//!   with the spread payconf measures on its side beside it.
//!
//! over plain HTTP/1.1, over TLS with HTTP/1.1 and over TLS with HTTP/2
//! (the server offering only what the row names by ALPN).

use super::error::BenchError;
use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use reqwest::Method;
use tokio::net::TcpListener;
use url::Url;

use crate::runner::{
    exchange::{Limits, RecordedRequest},
    target_file::{TlsSettings, reference_defaults},
    transport::volley_client,
    volley,
};

/// Requests in each volley, as ROB-01 sends by default.
const REQUESTS: usize = 20;

/// The answer to every request.
const ANSWER: &[u8] = br#"{"error":{"code":"0","description":"ok"},"payload":{}}"#;

/// When each POST's body was whole, since the last volley.
#[derive(Default)]
struct Arrivals(Mutex<Vec<Instant>>);

impl Arrivals {
    fn take(&self) -> Vec<Instant> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A protocol row of the table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Row {
    Plain,
    TlsHttp1,
    TlsHttp2,
}

impl Row {
    fn name(self) -> &'static str {
        match self {
            Row::Plain => "plain HTTP/1.1",
            Row::TlsHttp1 => "TLS 1.3, HTTP/1.1",
            Row::TlsHttp2 => "TLS 1.3, HTTP/2",
        }
    }
}

/// Runs the measurement, `rounds` volleys of each kind per row, and prints
/// its figures.
pub async fn volley(rounds: usize) -> Result<(), BenchError> {
    println!(
        "payconf bench --volley: {} CPUs; {REQUESTS} POSTs at once, {rounds} times each; \
         spread = first to last request whole at the server (median, 90th percentile, most)",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    let material = crate::runner::embedded::certificates()
        .map_err(BenchError::start("the bench\'s certificate"))?;
    for row in [Row::Plain, Row::TlsHttp1, Row::TlsHttp2] {
        let arrivals = Arc::new(Arrivals::default());
        let tls = match row {
            Row::Plain => None,
            Row::TlsHttp1 | Row::TlsHttp2 => {
                let mut config = (*payconf_reference::server_config(
                    material.cert_pem.as_bytes(),
                    material.key_pem.as_bytes(),
                )
                .map_err(BenchError::start("the volley's TLS server"))?)
                .clone();
                if row == Row::TlsHttp1 {
                    config.alpn_protocols = vec![b"http/1.1".to_vec()];
                }
                Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
            }
        };
        let url = serve(arrivals.clone(), tls).await?;
        let mut target = reference_defaults(url.clone());
        target.tls = TlsSettings::trusting("the bench's CA", material.ca_pem.as_bytes())
            .ok_or_else(|| BenchError::start("the bench's CA")("it did not read back"))?;
        let limits = Limits::default();
        let post = |i: usize| {
            RecordedRequest::new(Method::POST, url.join("/race").expect("a path"))
                .header("Content-Type", "application/json")
                .body(format!(r#"{{"request":{i},"pad":"{}"}}"#, "x".repeat(200)))
        };
        let (mut naive, mut warmed, mut volleys, mut ours) = (vec![], vec![], vec![], vec![]);
        let mut protocol = "";
        for _ in 0..rounds {
            let client = volley_client(&target, limits).map_err(BenchError::start("a client"))?;
            arrivals.take();
            futures_util::future::join_all((0..REQUESTS).map(|i| post(i).send(&client, limits)))
                .await;
            naive.push(spread(&arrivals.take()));

            let client = volley_client(&target, limits).map_err(BenchError::start("a client"))?;
            let warm = RecordedRequest::new(Method::GET, url.clone());
            futures_util::future::join_all(
                (0..REQUESTS).map(|_| warm.clone().send(&client, limits)),
            )
            .await;
            arrivals.take();
            futures_util::future::join_all((0..REQUESTS).map(|i| post(i).send(&client, limits)))
                .await;
            warmed.push(spread(&arrivals.take()));

            let client = volley_client(&target, limits).map_err(BenchError::start("a client"))?;
            let sent = volley::fire(&client, &url, limits, (0..REQUESTS).map(post).collect())
                .await
                .map_err(|e| BenchError::measured(e.to_string()))?;
            volleys.push(spread(&arrivals.take()));
            ours.push(sent.spread.unwrap_or_default());
            protocol = sent.protocol;
        }
        println!("{} (the volley went over {protocol}):", row.name());
        for (name, spreads) in [
            ("join_all", naive),
            ("join_all, warmed", warmed),
            ("volley", volleys),
            ("volley, payconf's side", ours),
        ] {
            println!("  {name:<24} {}", figures(spreads));
        }
    }
    Ok(())
}

/// First to last of `instants`.
fn spread(instants: &[Instant]) -> Duration {
    match (instants.iter().min(), instants.iter().max()) {
        (Some(first), Some(last)) => last.duration_since(*first),
        _ => Duration::ZERO,
    }
}

/// Median, 90th percentile and most of `spreads`, in milliseconds.
fn figures(mut spreads: Vec<Duration>) -> String {
    spreads.sort();
    let at = |q: f64| {
        let i = ((spreads.len() as f64 - 1.0) * q).round() as usize;
        spreads.get(i).copied().unwrap_or_default()
    };
    format!(
        "{:>8} {:>8} {:>8}",
        volley::millis(at(0.5)),
        volley::millis(at(0.9)),
        volley::millis(at(1.0))
    )
}

/// Starts the arrival-noting server on loopback; returns its address.
async fn serve(
    arrivals: Arc<Arrivals>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) -> Result<Url, BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(BenchError::start("a listener on loopback"))?;
    let address = listener
        .local_addr()
        .map_err(BenchError::start("a listener on loopback"))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            let arrivals = arrivals.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                let handler = service_fn(move |request: Request<Incoming>| {
                    let arrivals = arrivals.clone();
                    async move {
                        let post = request.method() == hyper::Method::POST;
                        let _ = request.into_body().collect().await;
                        if post {
                            arrivals
                                .0
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(Instant::now());
                        }
                        let answer = Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(Bytes::from_static(ANSWER)))
                            .expect("a response");
                        Ok::<_, Infallible>(answer)
                    }
                });
                let Some(acceptor) = tls else {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                    return;
                };
                let Ok(stream) = acceptor.accept(stream).await else {
                    return;
                };
                if stream.get_ref().1.alpn_protocol() == Some(b"h2".as_slice()) {
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .timer(TokioTimer::new())
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                } else {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                }
            });
        }
    });
    Url::parse(&format!("{scheme}://127.0.0.1:{}/", address.port()))
        .map_err(BenchError::start("a listener on loopback"))
}
