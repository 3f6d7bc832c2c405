//! Interruptions: the signals a long-running command listens for from its
//! start, so that one sent a moment after it starts is never missed.

/// Ctrl-C (SIGINT), and SIGTERM as CI and service managers send it.
#[derive(Debug)]
pub struct Interruption {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Interruption {
    /// Starts listening. Needs a Tokio runtime.
    pub fn listen() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves with the signal's name when one comes.
    pub async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "Ctrl-C",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}
