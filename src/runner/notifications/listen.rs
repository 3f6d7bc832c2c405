//! The listener's socket: HTTP/1.1 over plain TCP, every connection
//! bounded (how many at once, its head, its body, its time), each request
//! routed to its mailbox by the last segment of its path.

use std::{
    convert::Infallible,
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::{Request, Response, body::Incoming};
use tokio::net::TcpListener;

use super::{BodyUnread, MAX_BODY, Notification, READ_BOUND, Shared};
use crate::runner::served::{self, Bounds};

/// Connections served at once; more are closed as they come.
pub(super) const CONNECTIONS: usize = 64;
/// The most a request's head may take, in bytes.
const MAX_HEAD: usize = 16 * 1024;
/// The longest a connection is kept, whatever it does.
const CONNECTION_BOUND: Duration = Duration::from_secs(60);
/// The longest header value kept, in characters.
const HEADER_KEPT: usize = 512;

/// Serves `socket` until `stop` turns true.
pub(super) async fn serve(
    socket: TcpListener,
    shared: Arc<Shared>,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let bounds = Bounds {
        connections: CONNECTIONS,
        max_head: MAX_HEAD,
        head_within: READ_BOUND,
        connection: CONNECTION_BOUND,
    };
    served::serve(socket, bounds, stop, move |request| {
        answer(Arc::clone(&shared), request)
    })
    .await;
}

async fn answer(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let Some(inbox) = shared.inbox(request.uri().path()) else {
        shared.stray.fetch_add(1, Ordering::Relaxed);
        return Ok(reply(404, "no such mailbox"));
    };
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .map(|value| kept(&String::from_utf8_lossy(value.as_bytes())))
    };
    let method = kept(request.method().as_str());
    let signature = header("notification-signature");
    let event_header = header("notification-event-id");
    let body = read(request.into_body()).await;
    let status = shared.deliver(&inbox, &body.clone(), |answered, after| Notification {
        after,
        method,
        body,
        signature,
        event_header,
        answered,
    });
    Ok(reply(
        status,
        if status == 200 {
            "received"
        } else {
            "refused on purpose: payconf checks that this is posted again"
        },
    ))
}

/// A body within [`MAX_BODY`] and [`READ_BOUND`], or why not.
async fn read(body: Incoming) -> Result<Bytes, BodyUnread> {
    let limited = Limited::new(body, MAX_BODY);
    match tokio::time::timeout(READ_BOUND, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            Err(BodyUnread::TooLarge)
        }
        Ok(Err(_)) => Err(BodyUnread::CutOff),
        Err(_) => Err(BodyUnread::TooSlow),
    }
}

/// A header value or method as kept: at most [`HEADER_KEPT`] characters.
fn kept(value: &str) -> String {
    value.chars().take(HEADER_KEPT).collect()
}

fn reply(status: u16, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
