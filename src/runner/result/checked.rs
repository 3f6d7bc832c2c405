//! What a run checked: a server of the user's, by its base address, or the
//! embedded reference implementation, which is payconf's own and never
//! "your server". Every report and the bundle say it in these words.

/// The target a run checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CheckedTarget {
    /// The reference implementation payconf started in-process: a run of
    /// it proves payconf, not a server of the user's.
    #[default]
    Embedded,
    /// A server of the user's, at this base address (as shown: no
    /// credentials in it).
    Server {
        /// Its base address.
        base_url: String,
    },
}

impl CheckedTarget {
    /// Whether it is the embedded reference implementation.
    pub fn is_embedded(&self) -> bool {
        matches!(self, Self::Embedded)
    }
}

impl std::fmt::Display for CheckedTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Embedded => f.write_str(
                "the embedded reference implementation (payconf's own sandbox, not your server)",
            ),
            Self::Server { base_url } => f.write_str(base_url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_target_is_never_called_your_server_and_a_server_is_its_address() {
        assert_eq!(
            CheckedTarget::Embedded.to_string(),
            "the embedded reference implementation (payconf's own sandbox, not your server)"
        );
        let server = CheckedTarget::Server {
            base_url: "https://psp.example/".into(),
        };
        assert_eq!(server.to_string(), "https://psp.example/");
        assert!(!server.is_embedded());
    }
}
