//! A request crowded out by the run's own load: it got not a byte of an
//! answer (the connection refused, reset or closed) while other requests
//! of the run were in flight beside it.
//!
//! Scenarios run side by side. A server that serves 16 connections at once
//! meets 16 hostile bodies of one scenario and a submit of another, and
//! closes the submit's connection unanswered: payconf's load did that, not
//! anything of the submit's own. The contract states no capacity, so the
//! request is sent again alone, once, with the volley lock to itself
//! ([`Sender::send_judged`]), and the answer judged is the one it then
//! gets; the scenario's `measured:` line tells both ([`Crowded::line`]).
//! If it gets none alone either, that is the target's failure.
//!
//! Not sent again: a request that had the target to itself (its failure is
//! the target's), a late answer or one that broke off (an answer began: a
//! time bound is judged as it was met), and a request payconf's transport
//! could not make (the harness's own error). Requests sent in a batch that
//! tells its own load (`volley::load`) are sent with [`Sender::send`].

use super::{Exchange, RecordedRequest, Sender, Sent};

impl Sender {
    /// Sends `request` as [`Self::send`] does, and once more alone if it
    /// got not a byte of an answer while others of the run were in flight
    /// beside it: the answer judged is then the one it got alone, and
    /// [`Sent::crowded`] keeps the first. The sender of every ordinary
    /// request; requests sent in a batch that tells its own load
    /// (`volley::load`) use [`Self::send`].
    pub async fn send_judged(&self, request: RecordedRequest) -> Sent {
        let sent = self.send(request).await;
        let crowded = sent.beside > 0
            && sent
                .exchange
                .response
                .as_ref()
                .is_err_and(|why| why.nothing_came())
            && sent.exchange.transport_fault.is_none();
        if !crowded {
            return sent;
        }
        let mut alone = self.send_alone(sent.exchange.request.clone()).await;
        let mut waits = sent.waits;
        waits.append(&mut alone.waits);
        alone.waits = waits;
        alone.crowded = Some(Crowded {
            exchange: sent.exchange,
            beside: sent.beside,
        });
        alone
    }
}

/// A request that got no answer while others of the run were in flight
/// beside it, before it was sent again alone.
#[derive(Debug)]
pub struct Crowded {
    /// The exchange that got no answer.
    pub exchange: Exchange,
    /// How many of the run's other exchanges were in flight beside it, at most.
    pub beside: usize,
}

impl Crowded {
    /// The `measured:` line: what payconf's load did, and what the request
    /// sent again alone got (`answered`, the exchange judged).
    pub fn line(&self, answered: &Exchange, shown_url: impl Fn(&str) -> String) -> String {
        let request = &self.exchange.request;
        let why = match &self.exchange.response {
            Err(why) => why.to_string(),
            Ok(_) => "no error given".to_owned(),
        };
        let alone = match &answered.response {
            Ok(response) => format!("answered HTTP {}, judged on that answer", response.status),
            Err(why) => format!("no answer either ({why})"),
        };
        format!(
            "payconf's own load: {} {} got no answer with up to {} other request{} of the run \
             in flight beside it ({why}); sent again alone, {alone}",
            request.method,
            shown_url(request.url.as_str()),
            self.beside,
            if self.beside == 1 { "" } else { "s" },
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::runner::exchange::{Limits, sender::tests::loopback};

    /// A server on loopback that serves one connection at a time, as a
    /// server at its connection limit does: a connection that arrives
    /// while another is served is closed unanswered. `/slow` is answered
    /// after 300 ms, `/never` never (closed unanswered), anything else at once.
    async fn one_at_a_time() -> url::Url {
        use std::sync::{
            Arc,
            atomic::{AtomicBool, Ordering},
        };
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (listener, url) = loopback().await;
        let busy = Arc::new(AtomicBool::new(false));
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                if busy.swap(true, Ordering::SeqCst) {
                    drop(stream);
                    continue;
                }
                let busy = Arc::clone(&busy);
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buffer = [0_u8; 1024];
                    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => seen.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&seen).into_owned();
                    if head.starts_with("GET /slow") {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                    }
                    if !head.starts_with("GET /never") {
                        let answer =
                            b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}";
                        let _ = stream.write_all(answer).await;
                    }
                    drop(stream);
                    busy.store(false, Ordering::SeqCst);
                });
            }
        });
        url
    }

    /// A sender whose clients keep no connection between requests.
    fn unpooled() -> Sender {
        let client = || {
            payconf_reference::http_client()
                .http1_only()
                .pool_max_idle_per_host(0)
                .build()
                .expect("a client")
        };
        Sender::new(client(), client(), Limits::default(), None)
    }

    #[tokio::test]
    async fn a_request_crowded_out_by_the_runs_own_load_is_judged_on_its_answer_alone() {
        let url = one_at_a_time().await;
        let sender = std::sync::Arc::new(unpooled());
        let get =
            |path: &str| RecordedRequest::new(http::Method::GET, url.join(path).expect("a URL"));
        let slow = {
            let (sender, request) = (sender.clone(), get("slow"));
            tokio::spawn(async move { sender.send(request).await })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        let sent = sender.send_judged(get("fast")).await;
        assert_eq!(
            sent.exchange.response.as_ref().map(|r| r.status).ok(),
            Some(200),
            "sent again alone, after the slow one: {sent:?}"
        );
        let crowded = sent
            .crowded
            .as_ref()
            .expect("the first send was crowded out");
        assert_eq!(crowded.beside, 1);
        let line = crowded.line(&sent.exchange, str::to_owned);
        assert!(
            line.starts_with("payconf's own load: GET ")
                && line.contains("/fast got no answer with up to 1 other request of the run in flight beside it (")
                && line.ends_with("sent again alone, answered HTTP 200, judged on that answer"),
            "{line}"
        );
        let slow = slow.await.expect("no panic");
        assert!(slow.exchange.response.is_ok() && slow.crowded.is_none());

        // A request that gets no answer alone, or again alone, is not excused.
        let alone = sender.send_judged(get("never")).await;
        assert!(alone.exchange.response.is_err() && alone.crowded.is_none());
        let slow = {
            let (sender, request) = (sender.clone(), get("slow"));
            tokio::spawn(async move { sender.send(request).await })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        let never = sender.send_judged(get("never")).await;
        let crowded = never.crowded.as_ref().expect("sent again alone");
        assert!(never.exchange.response.is_err());
        assert!(
            crowded
                .line(&never.exchange, str::to_owned)
                .contains("sent again alone, no answer either ("),
            "{never:?}"
        );
        slow.await.expect("no panic");
    }
}
