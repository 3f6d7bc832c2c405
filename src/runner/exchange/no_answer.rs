//! Why an exchange brought back no answer payconf could use: it came late,
//! broke off, was larger than the answer limit, or was in a coding payconf
//! cannot undo; or the connection failed, in reqwest's words and its
//! causes' (refused, reset, malformed HTTP).

use std::time::Duration;

use crate::runner::transport::{self, encodings::CodingError};

/// Why an exchange has no usable answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoAnswer {
    /// No complete answer within the request timeout.
    #[error("no complete answer within {} s (the request timed out)", .0.as_secs_f64())]
    Late(Duration),
    /// The address is https and what answered the handshake is not TLS.
    #[error(
        "the server does not speak TLS at this https address: its answer to the TLS \
         handshake is not TLS (plain HTTP on an https port?)"
    )]
    NotTls,
    /// The exchange failed: what failed, and the causes reqwest gives.
    #[error("{what}{}", said(.causes))]
    Failed {
        /// `cannot connect`, `the answer's body broke off` or `the exchange
        /// failed`.
        what: &'static str,
        /// The chain of causes, `; `-joined; empty when none was given.
        causes: String,
    },
    /// The answer declared a body over the answer limit.
    #[error("the answer's body is larger than {0} bytes (Content-Length)")]
    DeclaredOver(usize),
    /// The body grew over the answer limit as it came.
    #[error("the answer's body is larger than {0} bytes")]
    Over(usize),
    /// The body's content coding could not be undone.
    #[error(transparent)]
    Coding(#[from] CodingError),
}

/// What [`NoAnswer::Failed`] says when an answer began and broke off.
const BROKE_OFF: &str = "the answer's body broke off";

impl NoAnswer {
    /// Whether not a byte of an answer came: the connection refused, reset
    /// or closed before the answer began. A late answer, one that broke
    /// off or one payconf could not read is not this.
    pub fn nothing_came(&self) -> bool {
        matches!(self, Self::Failed { what, .. } if *what != BROKE_OFF)
    }
}

impl From<&reqwest::Error> for NoAnswer {
    fn from(error: &reqwest::Error) -> Self {
        if transport::speaks_no_tls(error) {
            return Self::NotTls;
        }
        let what = if error.is_connect() {
            "cannot connect"
        } else if error.is_body() || error.is_decode() {
            BROKE_OFF
        } else {
            "the exchange failed"
        };
        Self::Failed {
            what,
            causes: transport::source_chain(error),
        }
    }
}

fn said(causes: &str) -> String {
    if causes.is_empty() {
        String::new()
    } else {
        format!(": {causes}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_its_causes_when_there_are_any() {
        let bare = NoAnswer::Failed {
            what: "cannot connect",
            causes: String::new(),
        };
        assert_eq!(bare.to_string(), "cannot connect");
        let caused = NoAnswer::Failed {
            what: "cannot connect",
            causes: "Connection refused (os error 111)".to_owned(),
        };
        assert_eq!(
            caused.to_string(),
            "cannot connect: Connection refused (os error 111)"
        );
        assert_eq!(
            NoAnswer::Late(Duration::from_millis(1500)).to_string(),
            "no complete answer within 1.5 s (the request timed out)"
        );
    }

    #[test]
    fn nothing_came_when_the_connection_failed_before_an_answer_began() {
        let failed = |what| NoAnswer::Failed {
            what,
            causes: String::new(),
        };
        assert!(failed("cannot connect").nothing_came());
        assert!(failed("the exchange failed").nothing_came());
        assert!(!failed(BROKE_OFF).nothing_came());
        assert!(!NoAnswer::Late(Duration::from_secs(1)).nothing_came());
        assert!(!NoAnswer::Over(10).nothing_came());
    }
}
