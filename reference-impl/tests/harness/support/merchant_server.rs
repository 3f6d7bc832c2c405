//! A merchant's server on a loopback port, receiving the sandbox's server
//! notifications: it keeps each request and answers with the statuses it
//! is told, one per request (200 once they run out), or holds its answers
//! until released.

use std::{collections::VecDeque, convert::Infallible, sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use tokio::{net::TcpListener, sync::Notify};
use url::Url;

/// A request the merchant's server received.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

impl Received {
    /// The request's headers, and its body read whole.
    async fn read(request: Request<Incoming>) -> Self {
        let headers = request.headers().clone();
        let body = request.into_body().collect().await;
        Self {
            headers,
            body: body.map(|b| b.to_bytes()).unwrap_or_default(),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a notification is JSON")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no {name} header"))
    }
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    statuses: Mutex<VecDeque<u16>>,
    arrived: Notify,
    held: Mutex<bool>,
    released: Notify,
}

/// The merchant's server.
pub struct MerchantServer {
    pub url: Url,
    shared: Arc<Shared>,
}

/// Keeps the request, waits while answers are held, and answers the next
/// status told (200 once they run out).
async fn answer(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let received = Received::read(request).await;
    shared.received.lock().push(received);
    shared.arrived.notify_waiters();
    loop {
        let released = shared.released.notified();
        if !*shared.held.lock() {
            break;
        }
        released.await;
    }
    let status = shared.statuses.lock().pop_front().unwrap_or(200);
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = http::StatusCode::from_u16(status).expect("a status");
    Ok(response)
}

impl MerchantServer {
    /// Answers 200 to every notification.
    pub async fn start() -> Self {
        Self::answering(&[]).await
    }

    /// Answers `statuses` in turn, then 200.
    pub async fn answering(statuses: &[u16]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let url = Url::parse(&format!(
            "http://{}/notifications",
            listener.local_addr().expect("address")
        ))
        .expect("valid");
        let shared = Arc::new(Shared::default());
        shared.statuses.lock().extend(statuses);
        let serving = Arc::clone(&shared);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let shared = Arc::clone(&serving);
                tokio::spawn(async move {
                    let handler = service_fn(move |request| answer(Arc::clone(&shared), request));
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                });
            }
        });
        Self { url, shared }
    }

    /// Holds every answer until [`Self::release`].
    pub fn hold(&self) {
        *self.shared.held.lock() = true;
    }

    /// Answers the held requests and every later one.
    pub fn release(&self) {
        *self.shared.held.lock() = false;
        self.shared.released.notify_waiters();
    }

    /// What was received so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().clone()
    }

    /// Waits until `count` requests have arrived (at most ten seconds).
    pub async fn wait_for(&self, count: usize) -> Vec<Received> {
        let waited = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let arrived = self.shared.arrived.notified();
                if self.shared.received.lock().len() >= count {
                    return;
                }
                arrived.await;
            }
        })
        .await;
        let received = self.received();
        assert!(
            waited.is_ok(),
            "{count} notifications expected, {} arrived",
            received.len()
        );
        received
    }
}
