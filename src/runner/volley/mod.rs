//! Volleys: requests that reach the target together, for every check of
//! what a service does with requests arriving at once (submits of one
//! token, ROB-01; payments of many buyers, ROB-03).
//!
//! A race in a server (a token checked, then claimed a moment later) is
//! found only if a second request arrives inside that moment, often under
//! a millisecond. Requests simply sent together arrive spread out by
//! connection set-up, by the client's tasks starting one after another and
//! by whatever else the machine does. A volley uses last-byte
//! synchronisation instead, the technique of James Kettle's "Smashing the
//! state machine: the true potential of web race conditions" (PortSwigger
//! Research, 2023), as Turbo Intruder and Burp Repeater's "send group in
//! parallel" do:
//!
//! 1. **The volley lock, alone** ([`crate::runner::exchange::VolleyLock`]): the volley
//!    waits for the requests of other scenarios in flight to end, and
//!    theirs wait for it.
//! 2. **Connections opened and warmed.** A client of its own
//!    ([`crate::runner::transport::volley_client`]: the run's TLS trust,
//!    client certificate and proxies) sends the harmless request the run
//!    starts with (`GET` of the base URL) once per request of the volley,
//!    all at once, so that as many connections are open, their handshakes
//!    done, and idle in its pool. Over TLS it offers HTTP/2: a server that
//!    takes it gets the whole volley on one connection.
//! 3. **Everything but the last byte.** Each request goes out on its own
//!    task through the ordinary HTTP stack (reqwest on hyper, rustls),
//!    with a body that has an exact length and holds back its last byte
//!    ([`gate`]). The server has the headers and all but one byte of each
//!    body, and cannot act on any request yet.
//! 4. **A pause to settle**, as long as the slowest warm-up took (20 ms at
//!    least, 1 s at most), so the bytes sent have reached the server.
//! 5. **The last bytes released together.** The gate opens and every
//!    request's last byte goes at once: on HTTP/1.1 one small write per
//!    connection, on HTTP/2 the requests' final DATA frames, which the
//!    stack writes out together as far as its tasks let it.
//!
//! The spread is measured from payconf's side: between the first and the
//! last request handing its last byte to the stack. A race window
//! narrower than that spread (plus the server's own queueing) may escape
//! one volley; the checks send several, each on a fresh payment.
//!
//! A volley never sends a request twice: no retry, no replay, so each
//! answer counts once. A request the volley's own load left with no
//! answer (a small listen backlog overflowed) is told apart from the
//! target's answers by [`load`], which the checks that are not about
//! capacity use to send it again, alone, after the volley.

pub mod gate;
pub mod load;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use reqwest::{Client, Method};
use tokio::task::JoinHandle;
use url::Url;

use self::gate::{Gate, GatedBody};
use crate::runner::{
    exchange::{Exchange, Limits, RecordedRequest, Sender},
    target_file::TargetConfig,
    transport::TransportError,
};

/// The least pause between the prefixes and the last bytes.
const LEAST_SETTLE: Duration = Duration::from_millis(20);

/// The longest pause between the prefixes and the last bytes.
const MOST_SETTLE: Duration = Duration::from_secs(1);

/// How often the wait for prefixes looks at requests that ended early.
const LOOK_AGAIN: Duration = Duration::from_millis(10);

/// A volley sent, and what came back.
#[derive(Debug)]
pub struct Volley {
    /// Each request's exchange, in the order the requests were given.
    pub exchanges: Vec<Exchange>,
    /// The warm-up exchanges that opened the connections.
    pub warm: Vec<Exchange>,
    /// How many requests were held at the gate when it opened.
    pub held: usize,
    /// Between the first and the last request giving its last byte.
    pub spread: Option<Duration>,
    /// The protocol most answers came in.
    pub protocol: &'static str,
}

/// The volleys of submits of one token sent in a scenario, as the last
/// ended (the first that executed the payment twice, if one did).
#[derive(Debug)]
pub struct SubmitVolleys {
    /// How many submits the last volley sent.
    pub sent: usize,
    /// Those of its answers that executed the payment.
    pub executed: Vec<Exchange>,
    /// Which volley that was, from 1.
    pub round: usize,
}

impl SubmitVolleys {
    /// Whether it executed the payment more than once.
    pub fn twice(&self) -> bool {
        self.executed.len() > 1
    }
}

/// Presses of pay on payments' pages sent at once (ROB-05): every volley
/// of them, each on a payment of its own, for the step that reads what the
/// service recorded of each.
#[derive(Debug)]
pub struct PagePresses {
    /// The card each press paid with, in the scenario's words.
    pub cards: [&'static str; 2],
    /// Each volley, in the order sent.
    pub rounds: Vec<PressRound>,
}

/// One volley of presses on one payment's page.
#[derive(Debug)]
pub struct PressRound {
    /// Which volley it was, from 1.
    pub round: usize,
    /// The payment pressed, by the `paymentID` its create answered.
    pub payment_id: Option<String>,
    /// Each press's exchange, and the page it sent the buyer to, if any.
    pub landed: Vec<(Exchange, Option<Url>)>,
}

/// Why payconf could not send a volley: its own failure, never the target's.
#[derive(Debug, thiserror::Error)]
pub enum VolleyError {
    /// The volley's client could not be built.
    #[error(transparent)]
    Client(#[from] TransportError),
    /// A request's task ended without its exchange.
    #[error("a request of the volley was lost: {0}")]
    Lost(#[source] tokio::task::JoinError),
}

/// A request of the volley before the gate opens.
enum Pending {
    /// On its way, its last byte held.
    Held(JoinHandle<Exchange>),
    /// Nothing to hold back (no body): sent when the gate opens.
    Unheld(RecordedRequest),
}

/// Sends `requests` as a volley of the run (see the module's guide), in
/// its pace and with the volley lock alone. An error is the harness's: its
/// client could not be built, or a task of its failed.
pub async fn send(
    target: &TargetConfig,
    sender: &Sender,
    requests: Vec<RecordedRequest>,
) -> Result<Volley, VolleyError> {
    let client = crate::runner::transport::volley_client(target, sender.limits)?;
    // The warm-ups and the volley, in the run's pace.
    sender.pace.turns(2 * requests.len()).await;
    let _alone = sender.volley_lock.alone().await;
    fire(&client, &target.base_url, sender.limits, requests).await
}

/// Sends `requests` as a volley through `client`, warming its connections
/// with `GET` of `base_url` (steps 2 to 5 of the module's guide).
pub async fn fire(
    client: &Client,
    base_url: &Url,
    limits: Limits,
    requests: Vec<RecordedRequest>,
) -> Result<Volley, VolleyError> {
    let count = requests.len();
    let warm_up = RecordedRequest::new(Method::GET, base_url.clone());
    let warm =
        futures_util::future::join_all((0..count).map(|_| warm_up.clone().send(client, limits)))
            .await;
    let settle = warm
        .iter()
        .map(|e| e.timing.total())
        .max()
        .unwrap_or_default()
        .clamp(LEAST_SETTLE, MOST_SETTLE);

    let gate = Arc::new(Gate::default());
    let mut pending = Vec::with_capacity(count);
    for request in requests {
        // The request keeps its bytes for the record; the body sent is the gate's.
        let Some(bytes) = request.body.clone().filter(|b| !b.is_empty()) else {
            pending.push(Pending::Unheld(request));
            continue;
        };
        let body = reqwest::Body::wrap(GatedBody::new(gate.clone(), bytes));
        let client = client.clone();
        pending.push(Pending::Held(tokio::spawn(async move {
            request.send_carrying(&client, limits, Some(body)).await
        })));
    }
    let held = pending
        .iter()
        .filter(|p| matches!(p, Pending::Held(_)))
        .count();
    let deadline = Instant::now() + limits.timeout;
    loop {
        let readied = gate.readied();
        let ended = pending
            .iter()
            .filter(|p| matches!(p, Pending::Held(task) if task.is_finished()))
            .count();
        if gate.ready() + ended >= held || Instant::now() >= deadline {
            break;
        }
        let _ = tokio::time::timeout(LOOK_AGAIN, readied).await;
    }
    let ready = gate.ready();
    tokio::time::sleep(settle).await;
    gate.open();

    let pending: Vec<JoinHandle<Exchange>> = pending
        .into_iter()
        .map(|p| match p {
            Pending::Held(task) => task,
            Pending::Unheld(request) => {
                let client = client.clone();
                tokio::spawn(async move { request.send(&client, limits).await })
            }
        })
        .collect();
    let mut exchanges = Vec::with_capacity(count);
    for task in pending {
        exchanges.push(task.await.map_err(VolleyError::Lost)?);
    }
    let released = gate.released();
    let spread = match (released.iter().min(), released.iter().max()) {
        (Some(first), Some(last)) if released.len() > 1 => Some(last.duration_since(*first)),
        _ => None,
    };
    Ok(Volley {
        protocol: protocol(&exchanges),
        exchanges,
        warm,
        held: ready.min(held),
        spread,
    })
}

/// The protocol most of the answers came in, `HTTP/1.1` when none came.
fn protocol(exchanges: &[Exchange]) -> &'static str {
    let versions: Vec<&'static str> = exchanges
        .iter()
        .filter_map(|e| e.response.as_ref().ok().map(|r| r.version))
        .collect();
    let two = versions.iter().filter(|v| **v == "HTTP/2").count();
    if two * 2 > versions.len() {
        "HTTP/2"
    } else {
        "HTTP/1.1"
    }
}

/// Milliseconds with two decimals, for people.
pub fn millis(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// The spreads of several volleys in words: their range and median.
pub fn spreads(volleys: &[Option<Duration>]) -> String {
    let mut measured: Vec<Duration> = volleys.iter().flatten().copied().collect();
    measured.sort();
    match measured.as_slice() {
        [] => "not measured".to_owned(),
        [one] => millis(*one),
        all => format!(
            "{} to {} (median {})",
            millis(all[0]),
            millis(all[all.len() - 1]),
            millis(all[all.len() / 2])
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Mutex, time::Duration};

    use super::*;
    use crate::runner::target_file::reference_defaults;

    /// What a raw server saw of one POST.
    #[derive(Clone, Debug)]
    struct Seen {
        head: String,
        /// When all but the last byte of the body had come.
        prefix: Instant,
        /// When the last byte came.
        whole: Instant,
    }

    /// A server that reads requests as they come, noting when each POST's
    /// body lacked only its last byte and when it was whole; `close` ends
    /// every connection after its first answer. A thread a connection,
    /// blocking on its socket, off the runtime the volley runs on: the
    /// moments it notes are the kernel's, not a turn of a busy runtime's
    /// two workers (on those, a machine under load once noted the last
    /// prefix 10 ms late, inside the pause it measures).
    async fn raw_server(close: bool) -> (Url, Arc<Mutex<Vec<Seen>>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url =
            Url::parse(&format!("http://{}/", listener.local_addr().expect("addr"))).expect("url");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let log = log.clone();
                std::thread::spawn(move || serve(stream, &log, close));
            }
        });
        (url, seen)
    }

    fn serve(stream: std::net::TcpStream, seen: &Mutex<Vec<Seen>>, close: bool) {
        use std::io::{BufRead, Read, Write};
        let mut answers = match stream.try_clone() {
            Ok(answers) => answers,
            Err(_) => return,
        };
        let mut requests = std::io::BufReader::new(stream);
        loop {
            let mut head = String::new();
            while !head.ends_with("\r\n\r\n") {
                match requests.read_line(&mut head) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
            let head = head.to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            let mut body = vec![0_u8; length];
            let mut prefix = Instant::now();
            if length > 0 {
                // The last byte is held back: a read of the rest returns
                // once all of it has come, and the last one cannot have.
                if requests.read_exact(&mut body[..length - 1]).is_err() {
                    return;
                }
                prefix = Instant::now();
                if requests.read_exact(&mut body[length - 1..]).is_err() {
                    return;
                }
            }
            if head.starts_with("post") {
                let whole = Instant::now();
                seen.lock().expect("lock").push(Seen {
                    head: head.clone(),
                    prefix,
                    whole,
                });
            }
            let connection = if close { "close" } else { "keep-alive" };
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: {connection}\r\n\r\n{{}}"
            );
            if answers.write_all(answer.as_bytes()).is_err() || close {
                return;
            }
        }
    }

    async fn volley_to(url: &Url, count: usize) -> Volley {
        let target = reference_defaults(url.clone());
        let limits = Limits::default();
        let client = crate::runner::transport::volley_client(&target, limits).expect("a client");
        let requests = (0..count)
            .map(|i| {
                RecordedRequest::new(Method::POST, url.join("/submit").expect("a path"))
                    .header("Content-Type", "application/json")
                    .body(format!(r#"{{"request":{i}}}"#))
            })
            .collect();
        fire(&client, url, limits, requests)
            .await
            .expect("a volley")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_last_byte_waits_until_every_other_byte_has_arrived() {
        let (url, seen) = raw_server(false).await;
        let volley = volley_to(&url, 12).await;
        let seen = seen.lock().expect("lock").clone();
        assert_eq!(seen.len(), 12, "each request arrived once");
        assert_eq!(volley.exchanges.len(), 12);
        assert_eq!(volley.held, 12);
        assert!(
            volley
                .exchanges
                .iter()
                .all(|e| e.response.as_ref().is_ok_and(|r| r.status == 200))
        );
        for request in &seen {
            // A length the server knows: it waits for the last byte.
            assert!(request.head.contains("content-length:"), "{}", request.head);
            assert!(
                !request.head.contains("transfer-encoding"),
                "{}",
                request.head
            );
        }
        let last_prefix = seen.iter().map(|s| s.prefix).max().expect("some");
        let first_whole = seen.iter().map(|s| s.whole).min().expect("some");
        assert!(
            first_whole.duration_since(last_prefix) >= LEAST_SETTLE / 2,
            "no request was whole before every request but its last byte had arrived, and \
             the pause came between: {:?}",
            first_whole.checked_duration_since(last_prefix)
        );
        let spread = volley.spread.expect("measured");
        assert!(spread < Duration::from_millis(50), "{spread:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_server_that_closes_warmed_connections_still_gets_each_request_once_and_held() {
        let (url, seen) = raw_server(true).await;
        let volley = volley_to(&url, 8).await;
        let seen = seen.lock().expect("lock").clone();
        assert_eq!(seen.len(), 8, "no request sent twice: {seen:?}");
        assert_eq!(volley.held, 8);
        let last_prefix = seen.iter().map(|s| s.prefix).max().expect("some");
        let first_whole = seen.iter().map(|s| s.whole).min().expect("some");
        assert!(first_whole > last_prefix);
    }
}
