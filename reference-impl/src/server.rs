//! The accept loop: serves HTTP/1.1 connections on a listener (or, with a
//! TLS configuration, HTTPS with HTTP/2 or HTTP/1.1 as ALPN chooses) until
//! the shutdown future completes, then lets requests in flight finish.

use std::{
    convert::Infallible,
    future::Future,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    panic::AssertUnwindSafe,
    sync::Arc,
    time::Duration,
};

use futures_util::FutureExt;
use hyper::{
    server::conn::{http1, http2},
    service::service_fn,
};
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
};
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};
use url::Url;

use crate::{
    site::Reached,
    config::{ReferenceConfig, ServerLimits},
    envelope,
    error::ApiError,
    journal::DataError,
    router,
    state::{Service, StartError},
};

/// The most bytes hyper buffers for a request line and headers; past
/// [`crate::router::MAX_HEADER_BYTES`] the service refuses with 431 and the
/// envelope, past this hyper itself answers a bare 431.
const MAX_HEAD_BUFFER: usize = 1024 * 1024;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listener's own address could not be read.
    #[error("cannot read the listener's address: {0}")]
    Listener(#[from] std::io::Error),
    /// A merchant page does not resolve against the public address.
    #[error("a merchant page does not resolve against {public_url}: {source}")]
    MerchantPage {
        /// The service's public address.
        public_url: Url,
        /// Why it does not resolve, as the URL parser says it.
        source: url::ParseError,
    },
    /// The data file cannot be used: the sandbox does not start over it.
    #[error(transparent)]
    Data(#[from] DataError),
}

/// Serves the payment service on `listener` until `shutdown` completes, then
/// stops accepting, lets requests in flight finish (up to the configured
/// grace), and returns.
pub async fn run(
    listener: TcpListener,
    config: ReferenceConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    run_tls(listener, config, None, shutdown).await
}

/// [`run`], over TLS when `tls` is given: its pages' addresses are then
/// `https://` ones too.
pub async fn run_tls(
    listener: TcpListener,
    config: ReferenceConfig,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    let prepared = Prepared::new(&listener, config, tls.is_some())?;
    prepared.serve(listener, tls, shutdown).await
}

/// A service ready to serve on a listener: its configuration checked and
/// its data file, when it has one, open and read back. Built before the
/// service says it listens, so that a data file it cannot use stops it
/// first.
#[derive(Debug)]
pub struct Prepared {
    service: Arc<Service>,
}

impl Prepared {
    /// Prepares `config` for `listener` (its pages `https://` with `tls`).
    pub fn new(
        listener: &TcpListener,
        config: ReferenceConfig,
        tls: bool,
    ) -> Result<Self, ServeError> {
        let local = listener.local_addr()?;
        let public_url = config
            .public_url
            .clone()
            .unwrap_or_else(|| default_public_url(local, tls));
        let site = crate::site::Site::new(local, tls, public_url.clone());
        let service = Arc::new(Service::new(config, site).map_err(|error| match error {
            StartError::Page(source) => ServeError::MerchantPage {
                public_url: public_url.clone(),
                source,
            },
            StartError::Data(data) => ServeError::Data(data),
        })?);
        Ok(Self { service })
    }

    /// Serves on `listener` until `shutdown` completes; see [`run`].
    pub async fn serve(
        self,
        listener: TcpListener,
        tls: Option<Arc<rustls::ServerConfig>>,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let service = self.service;
        let local = listener.local_addr()?;
        tracing::info!(%local, public_url = %service.public_url, "payment service listening");
        let sweeper = tokio::spawn(sweep_expired(Arc::clone(&service)));
        let settler = tokio::spawn(settle_when_due(Arc::clone(&service)));
        let notifications = tokio::spawn(crate::notify::deliver(Arc::clone(&service)));
        let limits = service.config.limits;

        let (http, http2) = builders(&limits);
        let graceful = GracefulShutdown::new();
        let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _peer)) => connection(
                        &service,
                        stream,
                        acceptor.as_ref(),
                        &http,
                        &http2,
                        &graceful,
                        limits.header_read_timeout,
                    ),
                    // Out of file descriptors and the like: wait a little and go on
                    // rather than stop serving.
                    Err(error) => {
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        for task in [sweeper, settler, notifications] {
            task.abort();
        }
        wind_down(&service, graceful, limits.shutdown_grace).await;
        Ok(())
    }
}

/// Serves one accepted connection on a task of its own, watched by the
/// shutdown: plain HTTP/1.1, or over TLS (the handshake within
/// `handshake_bound`) HTTP/2 when the client chose it, else HTTP/1.1.
fn connection(
    service: &Arc<Service>,
    stream: tokio::net::TcpStream,
    acceptor: Option<&tokio_rustls::TlsAcceptor>,
    http: &http1::Builder,
    http2: &http2::Builder<TokioExecutor>,
    graceful: &GracefulShutdown,
    handshake_bound: Duration,
) {
    // Small request-answer exchanges: send each answer at once.
    let _ = stream.set_nodelay(true);
    // Which of the sandbox's addresses the client reached: on a listener
    // of every address, the one a request's `Host` and `Origin` may name.
    let reached = stream.local_addr().ok().map(|local| Reached(local.ip()));
    let service = Arc::clone(service);
    let handler = service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
        let service = Arc::clone(&service);
        if let Some(reached) = reached {
            request.extensions_mut().insert(reached);
        }
        async move { Ok::<_, Infallible>(answer(&service, request).await) }
    });
    let Some(acceptor) = acceptor.cloned() else {
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), handler));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
        return;
    };
    // Watched from the start: a shutdown waits for the handshake too.
    let (http, http2, watcher) = (http.clone(), http2.clone(), graceful.watcher());
    tokio::spawn(async move {
        let stream = match tokio::time::timeout(handshake_bound, acceptor.accept(stream)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(error)) => {
                tracing::debug!(%error, "TLS handshake failed");
                return;
            }
            Err(_) => {
                tracing::debug!("TLS handshake not completed in time");
                return;
            }
        };
        let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        let io = TokioIo::new(stream);
        let ended = if h2 {
            watcher.watch(http2.serve_connection(io, handler)).await
        } else {
            watcher.watch(http.serve_connection(io, handler)).await
        };
        if let Err(error) = ended {
            tracing::debug!(%error, "connection ended with an error");
        }
    });
}

/// How connections are served: HTTP/1.1 with the limits' bound on a
/// request's head, and HTTP/2 (offered over TLS only).
fn builders(limits: &ServerLimits) -> (http1::Builder, http2::Builder<TokioExecutor>) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(MAX_HEAD_BUFFER)
        .keep_alive(true);
    let mut http2 = http2::Builder::new(TokioExecutor::new());
    http2.timer(TokioTimer::new());
    (http, http2)
}

/// Waits for the requests in flight (at most `grace`), then lets the
/// journal's file go, before the server says it has stopped.
async fn wind_down(service: &Service, graceful: GracefulShutdown, grace: Duration) {
    tracing::info!("shutting down: waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(grace) => {
            tracing::warn!(?grace, "connections still open; closing them");
        }
    }
    if let Some(journal) = service.journal.clone() {
        let _ = tokio::task::spawn_blocking(move || journal.close()).await;
    }
}

/// Answers a request; a panic in a handler becomes a `500` with the envelope
/// instead of a dropped connection.
async fn answer(
    service: &Service,
    request: http::Request<hyper::body::Incoming>,
) -> http::Response<crate::state::Body> {
    let response = match AssertUnwindSafe(router::handle(service, request))
        .catch_unwind()
        .await
    {
        Ok(response) => response,
        Err(_) => {
            tracing::error!("request handler panicked");
            envelope::refusal(&ApiError::Internal)
        }
    };
    // With a data file, nothing is answered before what it changed is in
    // the file: an acknowledged payment survives the sandbox being killed.
    match &service.journal {
        Some(journal) => match journal.durable().await {
            Ok(()) => response,
            Err(broken) => {
                tracing::error!(%broken, "answer withheld: its changes are not in the data file");
                envelope::refusal(&ApiError::Internal)
            }
        },
        None => response,
    }
}

/// How often the settler looks for unified shops' settlements that are due.
const SETTLEMENT_TICK: Duration = Duration::from_millis(250);

/// Settles each unified shop's payment when its time comes, whoever reads
/// it, and tells the merchant (a `payment.settled` notification): a
/// settlement is not left for the next call that happens to read the
/// payment.
async fn settle_when_due(service: Arc<Service>) {
    let mut ticks = tokio::time::interval(SETTLEMENT_TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = crate::timeline::now_ms();
        for token in service.store.due_settlements(now) {
            let _ = service.store.with_payment(&token, |p| {
                crate::notify::money_now(&service, &token, p, now);
            });
            tokio::task::yield_now().await;
        }
    }
}

/// Sweeps expired payments out of memory at a quarter of their lifetime.
async fn sweep_expired(service: Arc<Service>) {
    let period =
        (service.config.token_lifetime / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        // A shard at a time, yielding between shards, so a large sweep never
        // holds a worker thread away from requests for long.
        let mut swept = 0;
        for shard in 0..service.store.shard_count() {
            swept += service.store.sweep_shard(shard);
            tokio::task::yield_now().await;
        }
        if swept > 0 {
            tracing::debug!(
                swept,
                live = service.store.len(),
                "expired payments removed"
            );
        }
    }
}

/// `http://` (or `https://`) and the listener's address; a wildcard address
/// becomes loopback, which is where a browser on this machine reaches it.
fn default_public_url(local: SocketAddr, tls: bool) -> Url {
    let ip = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let scheme = if tls { "https" } else { "http" };
    Url::parse(&format!(
        "{scheme}://{}/",
        SocketAddr::new(ip, local.port())
    ))
    .expect("an http URL of a socket address is valid")
}

/// A reference service running on a task of the current runtime.
#[derive(Debug)]
pub struct RunningServer {
    /// The address it serves, e.g. `http://127.0.0.1:41234/`.
    pub base_url: Url,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl RunningServer {
    /// Binds `127.0.0.1:0` and serves `config` there.
    pub async fn start(config: ReferenceConfig) -> Result<Self, ServeError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        Self::start_on(listener, config)
    }

    /// Serves `config` on a listener the caller bound.
    pub fn start_on(listener: TcpListener, config: ReferenceConfig) -> Result<Self, ServeError> {
        Self::start_tls_on(listener, config, None)
    }

    /// Binds `127.0.0.1:0` and serves `config` there over TLS.
    pub async fn start_tls(
        config: ReferenceConfig,
        tls: Arc<rustls::ServerConfig>,
    ) -> Result<Self, ServeError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        Self::start_tls_on(listener, config, Some(tls))
    }

    /// Serves `config` on a listener the caller bound, over TLS when `tls` is given.
    pub fn start_tls_on(
        listener: TcpListener,
        config: ReferenceConfig,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> Result<Self, ServeError> {
        let local = listener.local_addr()?;
        let base_url = config
            .public_url
            .clone()
            .unwrap_or_else(|| default_public_url(local, tls.is_some()));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(run_tls(listener, config, tls, async {
            // A dropped sender also stops the server.
            let _ = stopped.await;
        }));
        Ok(Self {
            base_url,
            stop: Some(stop),
            task,
        })
    }

    /// Stops accepting, waits for requests in flight, and returns how the server ended.
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match (&mut self.task).await {
            Ok(result) => result,
            Err(join) => Err(ServeError::Listener(std::io::Error::other(join))),
        }
    }
}
