//! The twin's service behind a small server of the standard library's
//! kind, as Python's `http.server.ThreadingHTTPServer` serves by default:
//! a listen backlog of 5, one thread per connection, one request per
//! connection (HTTP/1.0's close), and an accept loop at an interpreter's
//! pace; and a limit on the connections it serves at once, past which a
//! connection it accepts is closed unanswered, as Node's
//! `server.maxConnections` closes it.
//!
//! Many connections opened at once overflow its backlog: the kernel
//! delays some of them (a SYN dropped waits for its retransmission), and
//! resets some, as the moment falls. That is left to the kernel and to
//! the moment. The limit is not: payconf holds each volley's connections
//! open together until its last byte is due, so a volley wider than the
//! limit (the robustness profile's 32 creates and 32 submits at once, its
//! race's 20 submits at once) always loses some connections unanswered,
//! on every machine.
//! Nothing in the contract asks a service to hold more, and everything it
//! does answer is the twin's own answer.

use std::{
    io::{self, Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
    time::Duration,
};

use url::Url;

/// Python's `socketserver.TCPServer.request_queue_size`.
pub const BACKLOG: u32 = 5;

/// The most connections served at once: more than a buyer's browser and
/// payconf's own requests of a scenario ever open together (at most 6 a
/// host, and payconf's one), fewer than a volley of the robustness
/// profile holds open together. Scenarios run side by side, so an
/// ordinary request of one also meets the limit now and then (a submit
/// beside another scenario's 16 generated bodies, as in CI once): payconf
/// sends it again alone (`Sender::send_judged`).
pub const MOST_CONNECTIONS: usize = 16;

/// What the accept loop takes for each connection it hands to a thread of
/// its own: an interpreter's accept, thread start and its share of the
/// lock every thread waits for.
const ACCEPT_PACE: Duration = Duration::from_millis(2);

/// The most a request's head may be, as the twin reads it.
const MOST_HEAD: usize = 64 * 1024;

/// Starts the front before `behind` (the twin's service); its address.
pub fn front(behind: SocketAddr) -> Url {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind("127.0.0.1:0".parse().expect("an address"))
        .expect("bind");
    let listener = socket.listen(BACKLOG).expect("listen");
    let listener: TcpListener = listener.into_std().expect("a std listener");
    listener.set_nonblocking(false).expect("blocking");
    let address = listener.local_addr().expect("an address");
    let serving = Arc::new(AtomicUsize::new(0));
    thread::Builder::new()
        .name("twin-backlog-accept".to_owned())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let Some(place) = Place::take(&serving) else {
                    // At the limit: closed unanswered, what it sent unread.
                    drop(stream);
                    continue;
                };
                // The place is given back when the thread ends, or at once
                // with the closure if no thread could start.
                let _ = thread::Builder::new()
                    .name("twin-backlog-conn".to_owned())
                    .spawn(move || {
                        let _place = place;
                        let _ = serve(stream, behind);
                    });
                thread::sleep(ACCEPT_PACE);
            }
        })
        .expect("the accept thread");
    Url::parse(&format!("http://{address}/")).expect("an address")
}

/// One connection: one request read whole, passed to the twin with
/// `Connection: close`, its answer passed back, the connection closed.
fn serve(mut client: TcpStream, behind: SocketAddr) -> io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = Vec::new();
    let mut byte = [0_u8; 4096];
    let end = loop {
        if let Some(at) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if head.len() > MOST_HEAD {
            return Ok(());
        }
        let read = client.read(&mut byte)?;
        if read == 0 {
            return Ok(());
        }
        head.extend_from_slice(&byte[..read]);
    };
    let mut body = head.split_off(end);
    let text = String::from_utf8_lossy(&head).into_owned();
    let length: usize = text
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while body.len() < length {
        let read = client.read(&mut byte)?;
        if read == 0 {
            return Ok(());
        }
        body.extend_from_slice(&byte[..read]);
    }
    let mut request: Vec<u8> = text
        .split("\r\n")
        .filter(|line| {
            !line
                .split_once(':')
                .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("connection"))
        })
        .take_while(|line| !line.is_empty())
        .flat_map(|line| format!("{line}\r\n").into_bytes())
        .collect();
    request.extend_from_slice(b"Connection: close\r\n\r\n");
    request.extend_from_slice(&body);
    let mut twin = TcpStream::connect(behind)?;
    twin.write_all(&request)?;
    let mut answer = Vec::new();
    twin.read_to_end(&mut answer)?;
    client.write_all(&answer)?;
    client.flush()?;
    client.shutdown(std::net::Shutdown::Write)?;
    // Read what the client still sends until it closes, as a server that
    // closes gracefully does.
    let _ = client.set_read_timeout(Some(Duration::from_secs(1)));
    while client.read(&mut byte).unwrap_or(0) > 0 {}
    Ok(())
}

/// One of the [`MOST_CONNECTIONS`] connections served at once, given back
/// when dropped.
struct Place(Arc<AtomicUsize>);

impl Place {
    /// A place, if one is free.
    fn take(serving: &Arc<AtomicUsize>) -> Option<Self> {
        serving
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MOST_CONNECTIONS).then_some(n + 1)
            })
            .ok()
            .map(|_| Self(Arc::clone(serving)))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
