//! Logs: to stderr, filtered by `PAYCONF_LOG`, so stdout stays for what
//! scripts read.
//!
//! `payconf serve` logs a line a payment at its default level (`info`), and
//! its log is off the request path: a request's line is formatted into a
//! channel, and one writer thread writes whatever the channel holds in one
//! go ([`tracing_appender::non_blocking`] over a buffered stderr). Nothing is
//! dropped: a full channel makes the request wait rather than lose the line,
//! and [`Logging`] flushes every line when it is dropped at the end of
//! `main`, after the server's graceful shutdown. Every other command logs
//! only warnings (they keep stderr for their own messages) and writes them
//! as they come, so that they stay in order with those messages.

mod format;

use std::io::{BufWriter, IsTerminal};

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};

pub use format::LineFormat;

/// How many bytes of log lines the writer thread gathers before it writes.
const WRITE_BATCH: usize = 64 * 1024;

/// Keeps the log writer running; every line is written when dropped.
#[derive(Debug)]
#[must_use = "lines still queued are lost if the writer is dropped early"]
pub struct Logging {
    _writer: Option<WorkerGuard>,
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
        LogStyle::Command => "warn",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("PAYCONF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .event_format(LineFormat { ansi });
    match style {
        LogStyle::Service => {
            let (writer, guard) = NonBlockingBuilder::default()
                .lossy(false)
                .thread_name("payconf-log")
                .finish(BufWriter::with_capacity(WRITE_BATCH, std::io::stderr()));
            let _ = builder.with_writer(writer).try_init();
            Logging {
                _writer: Some(guard),
            }
        }
        LogStyle::Command => {
            let _ = builder.with_writer(std::io::stderr).try_init();
            Logging { _writer: None }
        }
    }
}
