//! A merchant's server on a loopback port, receiving the sandbox's server
//! notifications: it refuses them (HTTP 500) until told to take them, or
//! refuses only the first, and keeps the payment IDs of those it took.

use std::{
    collections::BTreeSet,
    convert::Infallible,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// The merchant's server.
pub struct MerchantServer {
    /// Where it takes notifications.
    pub url: String,
    taking: Arc<AtomicBool>,
    refusals_left: Arc<AtomicUsize>,
    taken: Arc<Mutex<BTreeSet<String>>>,
}

impl MerchantServer {
    /// Refuses every notification until [`Self::take`].
    pub async fn refusing() -> Self {
        Self::start(false, 0).await
    }

    /// Refuses the first notification, then takes them.
    pub async fn refusing_once() -> Self {
        Self::start(true, 1).await
    }

    async fn start(taking: bool, refusals: usize) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let url = format!(
            "http://{}/notifications",
            listener.local_addr().expect("address")
        );
        let server = Self {
            url,
            taking: Arc::new(AtomicBool::new(taking)),
            refusals_left: Arc::new(AtomicUsize::new(refusals)),
            taken: Arc::new(Mutex::new(BTreeSet::new())),
        };
        let (taking, refusals_left, taken) = (
            Arc::clone(&server.taking),
            Arc::clone(&server.refusals_left),
            Arc::clone(&server.taken),
        );
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (taking, refusals_left, taken) = (
                    Arc::clone(&taking),
                    Arc::clone(&refusals_left),
                    Arc::clone(&taken),
                );
                tokio::spawn(async move {
                    let handler =
                        service_fn(move |request: http::Request<hyper::body::Incoming>| {
                            let (taking, refusals_left, taken) = (
                                Arc::clone(&taking),
                                Arc::clone(&refusals_left),
                                Arc::clone(&taken),
                            );
                            async move {
                                let body = request
                                    .into_body()
                                    .collect()
                                    .await
                                    .map(|b| b.to_bytes())
                                    .unwrap_or_default();
                                let refuse_now = refusals_left
                                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                                        n.checked_sub(1)
                                    })
                                    .is_ok();
                                let mut response = http::Response::new(Full::new(Bytes::new()));
                                if taking.load(Ordering::SeqCst) && !refuse_now {
                                    let json: Value =
                                        serde_json::from_slice(&body).unwrap_or(Value::Null);
                                    if let Some(id) = json["paymentID"].as_str() {
                                        taken.lock().expect("not poisoned").insert(id.to_owned());
                                    }
                                } else {
                                    *response.status_mut() =
                                        http::StatusCode::INTERNAL_SERVER_ERROR;
                                }
                                Ok::<_, Infallible>(response)
                            }
                        });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                });
            }
        });
        server
    }

    /// Takes every notification from now on.
    pub fn take(&self) {
        self.taking.store(true, Ordering::SeqCst);
    }

    /// The payment IDs of the notifications it took.
    pub fn taken(&self) -> BTreeSet<String> {
        self.taken.lock().expect("not poisoned").clone()
    }
}
