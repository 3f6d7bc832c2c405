//! Why a command to the browser came to nothing: ChromeDriver refused it
//! (its first line, the rest is a stack trace), the browser stopped
//! answering earlier in the run, or it did not answer now.

use fantoccini::error::CmdError;

/// A browser command that came to nothing.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// ChromeDriver or the browser refused the command: the first line of
    /// what it said.
    #[error("{0}")]
    Refused(String),
    /// The browser stopped answering earlier in the run and is used no more.
    #[error("it stopped answering earlier in this run ({0}), so payconf uses it no more")]
    Stalled(String),
    /// The browser did not answer a command within its bound, however often
    /// it was asked.
    #[error("no answer to {what}, {tries} times {seconds} s")]
    Unanswered {
        /// The command, in words.
        what: &'static str,
        /// How often it was asked.
        tries: u32,
        /// Each try's bound, in seconds.
        seconds: u64,
    },
}

impl From<CmdError> for CommandError {
    fn from(error: CmdError) -> Self {
        Self::Refused(first_line(&error.to_string()).to_owned())
    }
}

impl From<serde_json::Error> for CommandError {
    fn from(error: serde_json::Error) -> Self {
        Self::Refused(error.to_string())
    }
}

/// The first line of what a program said: the rest of a WebDriver error is
/// a stack trace.
pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_only_its_first_line() {
        let said = CommandError::from(CmdError::NotJson("no such window\n  at Stack\n".into()));
        let said = said.to_string();
        assert!(said.ends_with("no such window"), "{said}");
        assert!(!said.contains("Stack"), "{said}");
    }
}
