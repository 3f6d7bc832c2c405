//! The run's sender: an HTTP client patient where the contract is silent: it says nothing of rate
//! limits ("Limits (rate limits, ...): not shown"), so a server may have
//! them, and a merchant's HTTP client honours them.
//!
//! - An answer `429 Too Many Requests` (with or without `Retry-After`), or
//!   `503 Service Unavailable` with `Retry-After` (seconds or an HTTP date),
//!   is waited out and the same request sent again, up to [`TRIES`] times
//!   and [`PATIENCE`] of waiting for one request. Each wait is kept, so the
//!   scenario can say it waited.
//! - `--rate N` ([`Pace`]) spaces the run's requests to N a second, for a
//!   target whose limit is known: payconf then never meets it.
//!
//! A target that still limits payconf past that patience is not at fault
//! (its limit is its own to choose): the scenario is an error of the
//! harness that names `--rate`. A `503` that never ends is the target's.
//!
//! - A request that got not a byte of an answer while other requests of
//!   the run were in flight beside it is sent again alone, once
//!   ([`Sender::send_judged`], in `crowded.rs`): payconf's own load, not
//!   the target's doing.

use std::{
    sync::Mutex,
    time::{Duration, SystemTime},
};

use tokio::time::Instant;

use reqwest::Client;

use super::{Exchange, Limits, RecordedRequest, VolleyLock, crowded::Crowded};

/// The most times one request is sent again after being asked to wait.
const TRIES: usize = 5;

/// The most time one request waits, in all, on the target's asking.
const PATIENCE: Duration = Duration::from_secs(30);

/// A request sent patiently: the answer kept, and the answers that asked
/// payconf to wait before it.
#[derive(Debug)]
pub struct Sent {
    /// The last exchange: the answer payconf judges.
    pub exchange: Exchange,
    /// Each answer that asked payconf to wait, and how long it waited.
    pub waits: Vec<(Exchange, Duration)>,
    /// Set when the last answer still asks to wait but payconf's patience is
    /// spent: how long it asked.
    pub gave_up: Option<Duration>,
    /// How many of the run's other exchanges were in flight beside the
    /// last one at some moment, at most; 0 for one sent alone.
    pub beside: usize,
    /// Set when an earlier send got no answer in a crowd and this one was
    /// sent again alone.
    pub crowded: Option<Crowded>,
}

impl Sent {
    /// Why the target still limits payconf's rate, when payconf's patience
    /// is spent and the last answer is a `429` again: an error of the
    /// harness, naming the setting that resolves it.
    pub fn still_limited(&self) -> Option<String> {
        let asked = self.gave_up?;
        let status = self.exchange.response.as_ref().ok()?.status;
        (status == 429).then(|| {
            format!(
                "the target still limits payconf's rate: it answered HTTP 429 again after \
                 payconf waited {} times, and asks for {} s more. Its limit is its own to \
                 choose; give it to payconf with --rate N (requests a second) or run fewer \
                 scenarios at once with --concurrency",
                self.waits.len(),
                asked.as_secs()
            )
        })
    }

    /// One line a person reads for each wait.
    pub fn notes(&self, shown_url: impl Fn(&str) -> String) -> Vec<String> {
        self.waits
            .iter()
            .map(|(refused, waited)| {
                let request = &refused.request;
                let (status, asked) = match &refused.response {
                    Ok(response) => (
                        response.status,
                        response
                            .header("retry-after")
                            .map(|value| {
                                format!(
                                    " and Retry-After: {}",
                                    crate::runner::neutral::inline(value)
                                )
                            })
                            .unwrap_or_default(),
                    ),
                    Err(_) => (0, String::new()),
                };
                format!(
                    "the target answered {} {} with HTTP {status}{asked}; payconf waited {:.1} s \
                     and sent the request again (a rate limit is the target's to choose)",
                    request.method,
                    shown_url(request.url.as_str()),
                    waited.as_secs_f64()
                )
            })
            .collect()
    }
}

/// The run's sender, shared by every scenario: the HTTP client and
/// the bounds of each exchange, the pace `--rate` sets, and the volley lock every
/// exchange in flight shares (a volley holds it alone).
#[derive(Debug)]
pub struct Sender {
    /// The HTTP client: no redirects followed, proxies chosen by the
    /// target's `proxy` setting and the environment (`transport::proxy`).
    pub client: Client,
    /// The same client keeping no connection between requests, for a
    /// request sent alone: on a connection of its own, never on one that
    /// payconf's load left behind, which the server may be closing.
    pub alone: Client,
    /// Time and size bounds of every exchange.
    pub limits: Limits,
    /// `--rate`: how fast requests may go out.
    pub pace: Pace,
    /// Shared by every exchange in flight; a volley has it alone.
    pub volley_lock: VolleyLock,
}

impl Sender {
    /// The sender over `client` (and `alone`, for requests sent alone), at
    /// `rate` requests a second when given.
    pub fn new(client: Client, alone: Client, limits: Limits, rate: Option<f64>) -> Self {
        Self {
            client,
            alone,
            limits,
            pace: Pace::new(rate),
            volley_lock: VolleyLock::default(),
        }
    }

    /// Sends `request`, waiting out the answers that ask payconf to come
    /// back later, within [`TRIES`] and [`PATIENCE`]; each send takes its
    /// turn in the pace and shares the volley lock while it is in flight.
    pub async fn send(&self, request: RecordedRequest) -> Sent {
        send_patiently(request, self, Hold::Shared).await
    }

    /// Sends `request` as [`Self::send`] does, but with the volley lock to itself
    /// and on a connection of its own: nothing else of the run in flight,
    /// so that its answer is the target's answer to that request alone, not
    /// to payconf's own load.
    pub async fn send_alone(&self, request: RecordedRequest) -> Sent {
        send_patiently(request, self, Hold::Alone).await
    }
}

/// How a send holds the volley lock while in flight.
#[derive(Clone, Copy)]
enum Hold {
    Shared,
    Alone,
}

async fn send_patiently(mut request: RecordedRequest, sender: &Sender, hold: Hold) -> Sent {
    let (client, limits, lock) = (&sender.client, sender.limits, &sender.volley_lock);
    let mut waits = Vec::new();
    let mut spent = Duration::ZERO;
    loop {
        sender.pace.turns(1).await;
        let (exchange, beside) = match hold {
            Hold::Shared => {
                let shared = lock.share().await;
                let exchange = request.send(client, limits).await;
                (exchange, shared.beside())
            }
            Hold::Alone => {
                let _alone = lock.alone().await;
                (request.send(&sender.alone, limits).await, 0)
            }
        };
        let Some(wait) = asks_to_wait(&exchange, waits.len()) else {
            return Sent {
                exchange,
                waits,
                gave_up: None,
                beside,
                crowded: None,
            };
        };
        if waits.len() >= TRIES || spent + wait > PATIENCE {
            return Sent {
                exchange,
                waits,
                gave_up: Some(wait),
                beside,
                crowded: None,
            };
        }
        tokio::time::sleep(wait).await;
        spent += wait;
        // Copied only to be sent again: most requests are sent once.
        request = exchange.request.clone();
        waits.push((exchange, wait));
    }
}

/// How long an answer asks payconf to wait before sending again, if it
/// does: a `429`'s `Retry-After`, or else 1, 2, 4… seconds by the number
/// of waits so far; a `503`'s `Retry-After` only.
fn asks_to_wait(exchange: &Exchange, waited: usize) -> Option<Duration> {
    let response = exchange.response.as_ref().ok()?;
    let asked = response
        .header("retry-after")
        .and_then(|value| retry_after(value, SystemTime::now()));
    match response.status {
        429 => Some(asked.unwrap_or(Duration::from_secs(1 << waited.min(5)))),
        503 => asked,
        _ => None,
    }
}

/// A `Retry-After` value (RFC 9110 10.2.3): a number of seconds, or an HTTP
/// date, read against `now`; a date past is no wait at all.
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `--rate N`: the run's requests spaced so that no more than N go out in
/// a second. Without a rate, every request goes at once.
#[derive(Debug)]
pub struct Pace {
    /// The time between two requests.
    interval: Option<Duration>,
    /// When the next request may go.
    next: Mutex<Instant>,
}

impl Pace {
    /// At most `rate` requests a second; unbounded without one.
    pub fn new(rate: Option<f64>) -> Self {
        Self {
            interval: rate
                .filter(|rate| rate.is_finite() && *rate > 0.0)
                .map(|rate| Duration::from_secs_f64(1.0 / rate)),
            next: Mutex::new(Instant::now()),
        }
    }

    /// Waits for the turn of `count` requests sent together (a volley goes
    /// at once, and the requests after it wait for all of it).
    pub async fn turns(&self, count: usize) {
        let Some(interval) = self.interval else {
            return;
        };
        let at = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let at = (*next).max(Instant::now());
            *next = at + interval * u32::try_from(count).unwrap_or(u32::MAX);
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:40 GMT", now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:30 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }

    #[tokio::test]
    async fn a_pace_spaces_requests_and_a_volley_takes_its_whole_share() {
        let pace = Pace::new(Some(50.0));
        let start = Instant::now();
        pace.turns(1).await;
        pace.turns(1).await;
        assert!(start.elapsed() >= Duration::from_millis(20));
        pace.turns(5).await;
        pace.turns(1).await;
        // 1 + 1 + 5 turns of 20 ms went before the last request.
        assert!(
            start.elapsed() >= Duration::from_millis(140),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(Pace::new(None).interval, None);
        assert_eq!(Pace::new(Some(0.0)).interval, None);
        assert_eq!(
            Pace::new(Some(20.0)).interval,
            Some(Duration::from_millis(50))
        );
    }

    /// A listener on a free port of loopback, and its address.
    pub(crate) async fn loopback() -> (tokio::net::TcpListener, url::Url) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let url = url::Url::parse(&format!(
            "http://{}/",
            listener.local_addr().expect("an address")
        ))
        .expect("a URL");
        (listener, url)
    }

    /// A server on loopback that answers every request with `{}` and
    /// keeps the connection; how many connections it accepted.
    async fn counting_server() -> (url::Url, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::{
            Arc,
            atomic::{AtomicUsize, Ordering},
        };
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (listener, url) = loopback().await;
        let accepted = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buffer = [0_u8; 1024];
                    while let Ok(n) = stream.read(&mut buffer).await {
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buffer[..n]);
                        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                            seen.drain(..end + 4);
                            let answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                            if stream.write_all(answer).await.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        (url, accepted)
    }

    #[tokio::test]
    async fn a_request_sent_alone_goes_on_a_connection_of_its_own() {
        use std::sync::atomic::Ordering;
        let (url, accepted) = counting_server().await;
        let pooled = payconf_reference::http_client()
            .http1_only()
            .build()
            .expect("a client");
        let alone = payconf_reference::http_client()
            .http1_only()
            .pool_max_idle_per_host(0)
            .build()
            .expect("a client");
        let sender = Sender::new(pooled, alone, Limits::default(), None);
        let get = || RecordedRequest::new(http::Method::GET, url.clone());
        for _ in 0..3 {
            assert!(sender.send(get()).await.exchange.response.is_ok());
        }
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            1,
            "the run's requests share one"
        );
        for _ in 0..2 {
            assert!(sender.send_alone(get()).await.exchange.response.is_ok());
        }
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            3,
            "each sent alone has its own"
        );
    }
}
