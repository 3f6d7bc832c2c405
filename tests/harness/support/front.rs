//! A front before the reference implementation, on loopback: what the
//! hostile target ([`super::hostile`]) and the issuer journeys built other
//! ways ([`super::journeys`]) share. The reference implementation addresses
//! its pages through the front; the front answers what it changes and
//! passes the rest on.

use std::{convert::Infallible, future::Future, sync::Arc};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, http::request::Parts, service::service_fn};
use hyper_util::rt::TokioIo;
use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::net::TcpListener;
use url::Url;

/// An answer of the front.
pub type Answer = Response<Full<Bytes>>;

/// An answer with this status, headers and body.
pub fn respond(status: u16, headers: &[(&str, &str)], body: impl Into<Bytes>) -> Answer {
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response
        .body(Full::new(body.into()))
        .expect("a valid response")
}

/// The reference implementation, started behind a front that is not yet
/// serving.
pub struct Behind {
    /// Where payconf is pointed: the front.
    pub base: Url,
    /// Where the reference implementation really listens.
    pub inner: Url,
    /// The reference implementation, running.
    pub reference: RunningServer,
    /// The front's socket, for [`Behind::serve`].
    listener: TcpListener,
}

impl Behind {
    /// Starts the reference implementation configured so, its pages
    /// addressed through a front on a loopback port of its own.
    pub async fn start(mut config: ReferenceConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("front binds");
        let base = Url::parse(&format!(
            "http://{}/",
            listener.local_addr().expect("address")
        ))
        .expect("url");
        config.public_url = Some(base.clone());
        // Bound here, so the front knows where the service really listens.
        let inner = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("reference binds");
        let inner_url =
            Url::parse(&format!("http://{}/", inner.local_addr().expect("address"))).expect("url");
        let reference = RunningServer::start_on(inner, config).expect("reference starts");
        Self {
            base,
            inner: inner_url,
            reference,
            listener,
        }
    }

    /// Serves `front` on the front's socket; returns the reference
    /// implementation, to keep running as long as the front.
    pub fn serve<T: Front>(self, front: Arc<T>) -> RunningServer {
        serve_on(self.listener, front);
        self.reference
    }
}

/// Serves `front` on `listener` (a front may answer on more than one host).
pub fn serve_on<T: Front>(listener: TcpListener, front: Arc<T>) {
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let front = Arc::clone(&front);
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let front = Arc::clone(&front);
                    async move { Ok::<_, Infallible>(front.answer(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

/// What a front does with each request.
pub trait Front: Send + Sync + 'static {
    /// The answer to `request`.
    fn answer(&self, request: Request<Incoming>) -> impl Future<Output = Answer> + Send;
}

/// A request's head, and its body read whole (a front's requests are small).
pub async fn read(request: Request<Incoming>) -> (Parts, Bytes) {
    let (parts, body) = request.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    (parts, body)
}

/// The front's client to the reference implementation: no redirects
/// followed, no proxy.
pub fn client() -> reqwest::Client {
    payconf_reference::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .expect("client")
}

/// An answer of the reference implementation, as the front passes it on.
pub struct Forwarded {
    pub status: u16,
    /// Its headers, but those of the connection and `dropped`.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl Forwarded {
    /// The header of that name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Passed on as it came.
    pub fn answer(self) -> Answer {
        let pairs: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        respond(self.status, &pairs, self.body)
    }
}

/// Sends the request to the reference implementation at `inner`, leaving
/// out of its answer the headers named in `dropped`.
pub async fn forward(
    client: &reqwest::Client,
    inner: &Url,
    parts: &Parts,
    body: Bytes,
    dropped: &[&str],
) -> Forwarded {
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .trim_start_matches('/');
    let url = inner.join(path).expect("url");
    let mut forwarded = client.request(parts.method.clone(), url);
    for (name, value) in &parts.headers {
        if name != "host" && name != "content-length" {
            forwarded = forwarded.header(name, value);
        }
    }
    match forwarded.body(body).send().await {
        Ok(response) => Forwarded {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .filter(|(n, _)| {
                    !matches!(
                        n.as_str(),
                        "content-length" | "transfer-encoding" | "connection"
                    ) && !dropped.contains(&n.as_str())
                })
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: response.bytes().await.unwrap_or_default(),
        },
        Err(e) => Forwarded {
            status: 502,
            headers: Vec::new(),
            body: Bytes::from(e.to_string()),
        },
    }
}
