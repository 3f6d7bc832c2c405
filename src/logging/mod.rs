//! Logs: to stderr, filtered by `PAYCONF_LOG`, so stdout stays for what
//! scripts read.
//!
//! `payconf serve` logs a line a payment at its default level (`info`), and
//! its log is off the request path: a request formats its line
//! ([`LineFormat`]) and appends it to a buffer that a writer thread writes
//! out every [`FLUSH_EVERY`] ([`batching`]). Nothing is dropped, and
//! [`Logging`] writes every line left when it is dropped at the end of
//! `main`, after the server's graceful shutdown. Every other command logs
//! only warnings (they keep stderr for their own messages) and writes them
//! as they come, so that they stay in order with those messages.

mod batch;
mod format;

use std::io::IsTerminal;

pub use batch::{BatchGuard, BatchWriter, FLUSH_EVERY, batching};
pub use format::LineFormat;

/// Keeps the log writer running; every line is written when dropped.
#[derive(Debug)]
#[must_use = "lines still queued are lost if the writer is dropped early"]
pub struct Logging {
    _writer: Option<BatchGuard<std::io::Stderr>>,
}

/// How a command logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogStyle {
    /// A service's log, a line a request: `info`, off the request path.
    Service,
    /// A command's own warnings, written in order with what it prints.
    Command,
}

/// Installs the subscriber for this process.
pub fn init(style: LogStyle) -> Logging {
    let default = match style {
        LogStyle::Service => "info",
        // A certificate payconf cannot verify is said once, in words, by
        // the run itself (crate::runner::transport); the verifier's own log line
        // would say it again as an error of its own.
        LogStyle::Command => "warn,rustls_platform_verifier=off",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("PAYCONF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .event_format(LineFormat { ansi });
    match style {
        LogStyle::Service => match batching(std::io::stderr()) {
            Ok((writer, guard)) => {
                let _ = builder.with_writer(writer).try_init();
                Logging {
                    _writer: Some(guard),
                }
            }
            // No thread to spare: lines are written as they come.
            Err(_) => {
                let _ = builder.with_writer(std::io::stderr).try_init();
                Logging { _writer: None }
            }
        },
        LogStyle::Command => {
            let _ = builder.with_writer(std::io::stderr).try_init();
            Logging { _writer: None }
        }
    }
}
