//! Why `payconf bench` could not measure: one type for every part of it,
//! saying what it could not do in a sentence that names the thing (a file,
//! a process, an address, a run).

use std::{fmt::Display, path::Path};

/// What stopped a measurement. Every variant says what the bench was
/// doing with what, and why it could not.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A file or folder of the bench's own could not be made, written or
    /// read.
    #[error("{path}: {source}")]
    File {
        /// The file or folder, as shown.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// Something the bench starts in order to measure it (a server, a
    /// `payconf` process, a browser, a certificate, a listener) did not
    /// start, or did not say where it listens.
    #[error("cannot start {what}: {why}")]
    Start {
        /// What was started.
        what: String,
        /// Why it did not.
        why: String,
    },
    /// The server measured could not be reached, or no HTTP or TLS was
    /// spoken with it.
    #[error("{what} with {address}: {why}")]
    Connection {
        /// What was tried: connecting, the HTTP handshake, the TLS one.
        what: &'static str,
        /// The address.
        address: String,
        /// Why it failed.
        why: String,
    },
    /// What was measured did not do what a measurement needs: a run that
    /// did not pass, a server that did not stop, a task that failed.
    #[error("{0}")]
    Measured(String),
}

impl BenchError {
    /// For `map_err` on an I/O error of `path`.
    pub fn file(path: &Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::File {
            path: path.display().to_string(),
            source,
        }
    }

    /// For `map_err` on what kept `what` from starting.
    pub fn start<E: Display>(what: impl Display) -> impl FnOnce(E) -> Self {
        move |why| Self::Start {
            what: what.to_string(),
            why: why.to_string(),
        }
    }

    /// For `map_err` on a connection to `address` that failed at `what`.
    pub fn connection<E: Display>(
        what: &'static str,
        address: impl Display,
    ) -> impl FnOnce(E) -> Self {
        move |why| Self::Connection {
            what,
            address: address.to_string(),
            why: why.to_string(),
        }
    }

    /// What was measured did not behave, in words.
    pub fn measured(said: impl Into<String>) -> Self {
        Self::Measured(said.into())
    }
}

impl From<tokio::task::JoinError> for BenchError {
    fn from(error: tokio::task::JoinError) -> Self {
        Self::Measured(format!("a measuring task failed: {error}"))
    }
}
