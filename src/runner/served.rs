//! payconf's own servers on the run's side, which a target's pages or
//! server reach (the notification listener, the lightbox's shop page):
//! HTTP/1.1 over plain TCP, every connection bounded (how many at once, its
//! head and the time it takes to come, the connection's whole life), all
//! of them ended when the run says stop.

use std::{convert::Infallible, future::Future, sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{net::TcpListener, sync::Semaphore};

/// What one server's connections are held to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// Connections served at once; more are closed as they come.
    pub connections: usize,
    /// The most a request's head may take, in bytes.
    pub max_head: usize,
    /// The longest a request's head may take to arrive.
    pub head_within: Duration,
    /// The longest a connection is kept, whatever it does.
    pub connection: Duration,
}

/// Serves `socket` within `bounds`, each request answered by `answer`,
/// until `stop` turns true.
pub(crate) async fn serve<A, F>(
    socket: TcpListener,
    bounds: Bounds,
    mut stop: tokio::sync::watch::Receiver<bool>,
    answer: A,
) where
    A: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(bounds.connections));
    loop {
        let accepted = tokio::select! {
            accepted = socket.accept() => accepted,
            _ = stop.wait_for(|stopped| *stopped) => return,
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors, say: a moment, then on.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let answer = answer.clone();
        let mut stopped = stop.clone();
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(bounds.head_within)
                .max_buf_size(bounds.max_head)
                .serve_connection(TokioIo::new(stream), service_fn(answer));
            tokio::select! {
                _ = tokio::time::timeout(bounds.connection, connection) => {}
                _ = stopped.wait_for(|stopped| *stopped) => {}
            }
            drop(slot);
        });
    }
}
