//! The exchanges one scenario had with the target, as it goes: each kept in
//! order for its report, each time the target asked payconf to wait said,
//! each request payconf's own load cost its answer said (it was sent again
//! alone), and (with `--har`) the exchanges it sent but does not keep. A driver
//! keeps its own trail beside the scenario's ([`Trail::beside`]), which the
//! scenario then takes in ([`Trail::take_in`]).

use super::{Exchange, RecordedRequest, Sender, Sent, Unreported, target_failure};
use crate::runner::{redact::Redactor, result::Failure};

/// What a scenario (or a journey of it) sent and saw.
#[derive(Debug)]
pub struct Trail {
    /// Every exchange kept for the report, in order.
    pub exchanges: Vec<Exchange>,
    /// Each time the target asked payconf to wait and it did, said.
    pub waited: Vec<String>,
    /// Each request that got no answer in a crowd of the run's own and was
    /// sent again alone, said: the scenario's `measured:` lines.
    pub load: Vec<String>,
    /// With `--har`: exchanges sent or seen outside [`Self::exchanges`].
    pub unreported: Unreported,
}

impl Trail {
    /// An empty trail; with `har`, it keeps what the report leaves out.
    pub fn new(har: bool) -> Self {
        Self {
            exchanges: Vec::new(),
            waited: Vec::new(),
            load: Vec::new(),
            unreported: Unreported::new(har),
        }
    }

    /// An empty trail that keeps what the report leaves out where this one does.
    pub fn beside(&self) -> Self {
        Self {
            exchanges: Vec::new(),
            waited: Vec::new(),
            load: Vec::new(),
            unreported: self.unreported.clone(),
        }
    }

    /// Takes in a trail kept beside this one, after this one's exchanges.
    pub fn take_in(&mut self, other: Trail) {
        self.exchanges.extend(other.exchanges);
        self.waited.extend(other.waited);
        self.load.extend(other.load);
    }

    /// The last exchange kept.
    pub fn last(&self) -> Option<&Exchange> {
        self.exchanges.last()
    }

    /// Notes each time the target asked payconf to wait, and when payconf's
    /// load cost the request its answer; keeps the answers not judged for
    /// the HAR file.
    fn note_waits(&mut self, sent: &Sent, redactor: &Redactor) {
        self.waited.extend(sent.notes(|url| redactor.text(url)));
        self.also_sent(redactor, sent.waits.iter().map(|(exchange, _)| exchange));
        if let Some(crowded) = &sent.crowded {
            self.load
                .push(crowded.line(&sent.exchange, |url| redactor.text(url)));
            self.also_sent(redactor, [&crowded.exchange]);
        }
    }

    /// Keeps, for the HAR file, exchanges sent but not kept for the report.
    pub fn also_sent<'a>(
        &self,
        redactor: &Redactor,
        exchanges: impl IntoIterator<Item = &'a Exchange>,
    ) {
        self.unreported.sent(redactor, exchanges);
    }

    /// Sends a request with the run's sender and keeps the exchange;
    /// fails when nothing usable came back. Answers that ask payconf to come
    /// back later are waited out and noted, and a request payconf's own
    /// load left with no answer is sent again alone and noted; past payconf's patience a rate
    /// limit is an error of the harness that names `--rate`, and so is a
    /// transport payconf could not use. Returns the exchange's index.
    pub async fn exchange(
        &mut self,
        sender: &Sender,
        redactor: &Redactor,
        request: RecordedRequest,
    ) -> Result<usize, Failure> {
        let sent = sender.send_judged(request).await;
        self.note_waits(&sent, redactor);
        let limited = sent.still_limited();
        self.exchanges.push(sent.exchange);
        let index = self.exchanges.len() - 1;
        let exchange = &self.exchanges[index];
        if let Some(why) = limited {
            return Err(Failure::harness(why).on(exchange.display(redactor)));
        }
        if let Err(reason) = &exchange.response {
            if let Some(fault) = &exchange.transport_fault {
                let host = exchange.request.url.host_str().unwrap_or_default();
                return Err(Failure::harness(format!(
                    "payconf could not reach {}: {}. This is payconf's transport to fix, not \
                     the target's doing",
                    redactor.text(exchange.request.url.as_str()),
                    fault.words(host)
                )));
            }
            return Err(target_failure(
                redactor,
                "an answer from the target",
                &reason.to_string(),
                Some(exchange),
            ));
        }
        Ok(index)
    }
}
