//! payconf's own load on the target, told apart from the target's answers.
//!
//! A volley opens as many connections as it sends requests, and hostile
//! bodies go several at a time. A server that holds fewer connections
//! (a listen backlog of 5 and a thread per connection, as Python's
//! standard library serves) has the kernel refuse, reset or delay the
//! ones past it: no answer, because of payconf's load, not of the request.
//! The contract states no capacity, so a requirement that is not about
//! capacity (buyers kept apart, hostile bodies answered) is never failed
//! on it: each request that got no answer at load is sent again alone,
//! after the others, with the volley lock to itself ([`Sender::send_alone`]),
//! and the answer it then gets is judged. If it still gets none, that is
//! the target's failure, shown with both. What the load did is told on
//! the scenario's `measured:` line: how many of how many, at what
//! concurrency, the first error.

use crate::runner::exchange::{Exchange, NoAnswer, Sender};

/// Whether an exchange got no answer at all: the connection refused,
/// reset or closed, or no answer in time. An answer that came (too large,
/// in a coding payconf cannot undo, not TLS) is an answer, judged as one.
pub fn unanswered(exchange: &Exchange) -> bool {
    exchange.transport_fault.is_none()
        && matches!(
            exchange.response,
            Err(NoAnswer::Failed { .. } | NoAnswer::Late(_))
        )
}

/// What payconf's load did to one batch of requests sent together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Load {
    /// The requests, in words (`creates`, `generated bodies to submit`).
    pub what: String,
    /// How many were sent.
    pub sent: usize,
    /// How many were in flight together at most.
    pub at_once: usize,
    /// How many got no answer at that load.
    pub unanswered: usize,
    /// The first of their errors.
    pub first: Option<String>,
    /// How many were sent again alone.
    pub again: usize,
    /// How many of those got no answer alone either.
    pub still_unanswered: usize,
}

impl Load {
    /// A batch of `sent` requests of `what`, `at_once` in flight together.
    pub fn new(what: impl Into<String>, sent: usize, at_once: usize) -> Self {
        Self {
            what: what.into(),
            sent,
            at_once,
            ..Self::default()
        }
    }

    /// Whether the load cost any request its answer.
    pub fn showed(&self) -> bool {
        self.unanswered > 0
    }

    /// Notes the exchanges that got no answer at load.
    pub fn note(&mut self, exchanges: &[Exchange]) {
        for exchange in exchanges.iter().filter(|e| unanswered(e)) {
            self.unanswered += 1;
            if self.first.is_none() {
                if let Err(why) = &exchange.response {
                    self.first = Some(why.to_string());
                }
            }
        }
    }

    /// The `measured:` line, when the load showed.
    pub fn line(&self) -> Option<String> {
        if !self.showed() {
            return None;
        }
        let mut line = format!(
            "payconf's own load: {} of {} {} ({} at once) got no answer ({})",
            self.unanswered,
            self.sent,
            self.what,
            self.at_once,
            self.first.as_deref().unwrap_or("no error given"),
        );
        if self.again > 0 {
            let answered = self.again - self.still_unanswered;
            line.push_str(&format!(
                "; sent again alone, {answered} of {} answered, judged on that answer",
                self.again
            ));
        }
        Some(line)
    }

    /// Why a request has no answer to judge, for the failure: at load and
    /// alone both.
    pub fn still_none(&self, alone: &NoAnswer) -> String {
        format!(
            "no answer, neither with {} {} at once ({} of {} got none: {}) nor sent again alone \
             ({alone})",
            self.at_once,
            self.what,
            self.unanswered,
            self.sent,
            self.first.as_deref().unwrap_or("no error given"),
        )
    }
}

/// Sends each exchange of `exchanges` that got no answer again alone, in
/// order, and puts the new exchange in its place; the load, noted, and
/// the places of the exchanges sent again.
pub async fn again_alone(
    sender: &Sender,
    exchanges: &mut [Exchange],
    mut load: Load,
) -> (Load, Vec<usize>) {
    load.note(exchanges);
    let mut again = Vec::new();
    for (at, exchange) in exchanges.iter_mut().enumerate() {
        if !unanswered(exchange) {
            continue;
        }
        let alone = sender.send_alone(exchange.request.clone()).await.exchange;
        load.again += 1;
        if unanswered(&alone) {
            load.still_unanswered += 1;
        }
        *exchange = alone;
        again.push(at);
    }
    (load, again)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_line_says_how_many_at_what_concurrency_and_the_first_error() {
        let mut load = Load::new("creates", 32, 32);
        assert_eq!(load.line(), None, "a load that cost nothing is not told");
        load.unanswered = 5;
        load.first = Some("the exchange failed: Connection reset by peer (os error 104)".into());
        load.again = 5;
        load.still_unanswered = 1;
        assert_eq!(
            load.line().as_deref(),
            Some(
                "payconf's own load: 5 of 32 creates (32 at once) got no answer (the exchange \
                 failed: Connection reset by peer (os error 104)); sent again alone, 4 of 5 \
                 answered, judged on that answer"
            )
        );
        let alone = NoAnswer::Late(Duration::from_secs(10));
        let said = load.still_none(&alone);
        assert!(said.starts_with("no answer, neither with 32 creates at once (5 of 32"));
        assert!(said.ends_with(
            "nor sent again alone (no complete answer within 10 s (the request timed out))"
        ));
    }
}
