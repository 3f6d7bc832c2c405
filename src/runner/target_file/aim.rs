//! What a run is aimed at, and never by default when a target was meant.
//!
//! The embedded reference implementation runs only when nothing names a
//! target, or when asked for by name (`--embedded`, `--embedded-tls`). Any
//! setting that names a target (a target file, a flag or a `PAYCONF_*`
//! variable of the target's, set even when empty: a CI secret a fork's pull
//! request cannot read arrives empty) makes a missing base URL an error
//! naming its three sources, never a silent pass of payconf's own sandbox.

use std::path::PathBuf;

use super::{TargetFile, TargetOverrides};

/// A setting that names a target, as the user gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Naming {
    /// `--target FILE`.
    File(PathBuf),
    /// A flag of the target's: `--api-key`, `--shop-login`, ...
    Flag(&'static str),
    /// A `PAYCONF_*` variable of the target's, set in the environment.
    Variable {
        /// Its name.
        name: &'static str,
        /// Whether it is set to nothing.
        empty: bool,
    },
}

impl std::fmt::Display for Naming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "--target {}", path.display()),
            Self::Flag(flag) => f.write_str(flag),
            Self::Variable { name, empty: true } => write!(f, "{name} (set, but empty)"),
            Self::Variable { name, empty: false } => write!(f, "{name} (set)"),
        }
    }
}

/// What a run is aimed at.
#[derive(Debug)]
pub enum Aim {
    /// The embedded reference implementation.
    Embedded,
    /// A target of the user's: the file with the flags and variables over it.
    Target(Box<TargetFile>),
}

/// Why a run has no aim.
#[derive(Debug, thiserror::Error)]
pub enum AimError {
    /// A target is named, but nothing gives its base URL.
    #[error(
        "base_url: missing, while {} a target; give the server's base address as \
         base_url in the target file, PAYCONF_BASE_URL or --base-url (payconf never checks \
         its own embedded reference implementation in place of a target you named; \
         --embedded, with no target, runs it on purpose)",
        list(.0)
    )]
    NoBaseUrl(Vec<Naming>),
    /// `--embedded` with a target named.
    #[error(
        "--embedded runs payconf's own reference implementation, but {} a target of \
         yours: give one or the other",
        list(.0)
    )]
    EmbeddedWithTarget(Vec<Naming>),
    /// The target file could not be read.
    #[error(transparent)]
    File(#[from] super::TargetError),
}

/// `A names`, `A and B name`, `A, B and C name`.
fn list(namings: &[Naming]) -> String {
    let words: Vec<String> = namings.iter().map(ToString::to_string).collect();
    match words.as_slice() {
        [] => "nothing names".to_owned(),
        [one] => format!("{one} names"),
        [first @ .., last] => format!("{} and {last} name", first.join(", ")),
    }
}

/// Aims a run: `file` (`--target`) with `flags` over it; `named_by`, the
/// flags and variables of the target's that were given (set even when
/// empty); `by_name`, whether the embedded reference implementation was
/// asked for.
pub fn aim(
    file: Option<&std::path::Path>,
    flags: &TargetOverrides,
    named_by: &[Naming],
    by_name: bool,
) -> Result<Aim, AimError> {
    let target = TargetFile::of_run(file, flags)?;
    let namings: Vec<Naming> = file
        .map(|path| Naming::File(path.to_owned()))
        .into_iter()
        .chain(named_by.iter().cloned())
        .collect();
    if by_name {
        // An empty variable gives nothing, so it does not stand in the way
        // of a run that asks for the embedded target by name; a base URL or
        // a file does.
        let standing: Vec<Naming> = namings
            .into_iter()
            .filter(|naming| !matches!(naming, Naming::Variable { empty: true, .. }))
            .filter(|naming| {
                matches!(naming, Naming::File(_))
                    || target.has_base_url() && naming.names_base_url()
            })
            .collect();
        return if standing.is_empty() {
            Ok(Aim::Embedded)
        } else {
            Err(AimError::EmbeddedWithTarget(standing))
        };
    }
    if target.has_base_url() {
        Ok(Aim::Target(Box::new(target)))
    } else if namings.is_empty() {
        Ok(Aim::Embedded)
    } else {
        Err(AimError::NoBaseUrl(namings))
    }
}

impl Naming {
    fn names_base_url(&self) -> bool {
        matches!(
            self,
            Self::Flag("--base-url")
                | Self::Variable {
                    name: "PAYCONF_BASE_URL",
                    ..
                }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty(name: &'static str) -> Naming {
        Naming::Variable { name, empty: true }
    }

    #[test]
    fn nothing_named_aims_at_the_embedded_reference_implementation() {
        let aimed = aim(None, &TargetOverrides::default(), &[], false).expect("aimed");
        assert!(matches!(aimed, Aim::Embedded));
    }

    #[test]
    fn an_empty_base_url_variable_alone_is_a_target_without_its_base_url() {
        let error = aim(
            None,
            &TargetOverrides::default(),
            &[empty("PAYCONF_BASE_URL")],
            false,
        )
        .expect_err("refused");
        let text = error.to_string();
        assert!(
            text.starts_with(
                "base_url: missing, while PAYCONF_BASE_URL (set, but empty) names a target"
            ),
            "{text}"
        );
        assert!(
            text.contains("PAYCONF_BASE_URL or --base-url"),
            "the three sources are named: {text}"
        );
    }

    #[test]
    fn a_key_given_without_a_base_url_names_the_key() {
        let flags = TargetOverrides {
            api_key: Some("k".into()),
            ..TargetOverrides::default()
        };
        let error = aim(None, &flags, &[Naming::Flag("--api-key")], false).expect_err("refused");
        assert!(matches!(&error, AimError::NoBaseUrl(n) if n == &[Naming::Flag("--api-key")]));
    }

    #[test]
    fn embedded_by_name_passes_empty_variables_by_but_not_a_base_url() {
        let aimed = aim(
            None,
            &TargetOverrides::default(),
            &[empty("PAYCONF_BASE_URL"), empty("PAYCONF_API_KEY")],
            true,
        )
        .expect("aimed");
        assert!(matches!(aimed, Aim::Embedded));
        let flags = TargetOverrides {
            base_url: Some("http://127.0.0.1:9/".into()),
            ..TargetOverrides::default()
        };
        let named = [Naming::Variable {
            name: "PAYCONF_BASE_URL",
            empty: false,
        }];
        let error = aim(None, &flags, &named, true).expect_err("refused");
        assert!(matches!(error, AimError::EmbeddedWithTarget(_)), "{error}");
    }

    #[test]
    fn a_base_url_aims_at_the_target() {
        let flags = TargetOverrides {
            base_url: Some("http://127.0.0.1:9/".into()),
            ..TargetOverrides::default()
        };
        let aimed = aim(None, &flags, &[Naming::Flag("--base-url")], false).expect("aimed");
        assert!(matches!(aimed, Aim::Target(_)));
    }
}
