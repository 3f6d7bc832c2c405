//! Why a run could not be carried out (exit code 2): each cause a variant,
//! its words made here, once, naming the setting or the flag that resolves
//! it. Nothing was judged, so nothing is the target's fault.

use std::error::Error;

use crate::runner::{
    bundle::keys::KeyError, buyer::browser::chromium::BrowserError, notifications::ListenError,
    reports::ReportPathError, settings::SettingsError, target_file::TargetError,
    transport::TransportError, waivers::WaiversError,
};
use payconf_spec::{
    contract::ContractError, defects::DefectsError, features::FeaturesError,
    requirements::RequirementsError,
};

/// A run that could not be carried out, with the cause.
#[derive(Debug, thiserror::Error)]
pub enum NotRun {
    /// The spec did not load.
    #[error(transparent)]
    Contract(#[from] ContractError),
    /// The requirements catalogue did not load.
    #[error(transparent)]
    Requirements(#[from] RequirementsError),
    /// The defect catalogue did not load.
    #[error(transparent)]
    Defects(#[from] DefectsError),
    /// The features did not load.
    #[error(transparent)]
    Features(#[from] FeaturesError),
    /// A scenario names a requirement the catalogue does not have.
    #[error("{location}: unknown requirement @req:{id}")]
    UnknownRequirement {
        /// The scenario's `file:line`.
        location: String,
        /// The id it names.
        id: payconf_spec::requirements::RequirementId,
    },
    /// A scenario has no profile tag, or more than one.
    #[error("{0}: a scenario is tagged with exactly one of @core, @reference, @robustness")]
    Profile(String),
    /// payconf could not listen for signals.
    #[error("cannot listen for signals: {0}")]
    Signals(#[source] std::io::Error),
    /// A report could not be written where it was asked for.
    #[error(transparent)]
    ReportPath(#[from] ReportPathError),
    /// The waivers file did not load.
    #[error(transparent)]
    Waivers(#[from] WaiversError),
    /// The target file, the environment or a flag is missing or invalid.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A target named without its base URL, or `--embedded` with a target.
    #[error(transparent)]
    Aim(#[from] crate::runner::target_file::AimError),
    /// `--embedded-tls` with a target of the user's.
    #[error(
        "--embedded-tls serves the embedded reference implementation over HTTPS; it does \
         not go with a base URL (for your own HTTPS server, give its CA as tls.ca_file)"
    )]
    EmbeddedTlsWithTarget,
    /// The embedded reference implementation did not start.
    #[error("cannot start the reference implementation: {0}")]
    Embedded(#[source] Box<dyn Error + Send + Sync>),
    /// `--tags` is no tag expression.
    #[error("--tags {expression:?}: {reason}")]
    Tags {
        /// As given.
        expression: String,
        /// Why it does not parse.
        reason: String,
    },
    /// The tag expression names a tag no scenario carries.
    #[error(
        "--tags {expression:?} names {}, which no scenario carries: a tag misspelt would \
         narrow the run in silence (payconf run --list names every tag and requirement)",
        .unknown.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    UnknownTags {
        /// As given.
        expression: String,
        /// Each unknown tag, with the known ones nearest to it.
        unknown: Vec<crate::runner::known_tags::UnknownTag>,
    },
    /// The tag expression selects nothing.
    #[error(
        "no scenario matches the tag expression {expression}; the tags there are: {}, and \
         @req:<ID> for each requirement (payconf run --list names them)",
        .tags.join(", ")
    )]
    NothingSelected {
        /// As given.
        expression: String,
        /// Every tag of the suite's scenarios but the requirements', with `@`.
        tags: Vec<String>,
    },
    /// The target is production and `--allow-production` was not given.
    #[error(
        "the target is the production environment ({0}); payconf sends nothing to it \
         without --allow-production, and even then runs only the @production-safe \
         scenarios, which send no card data"
    )]
    Production(String),
    /// The target could not be reached, or its transport used.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The target file cannot carry the selected scenarios.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The browser could not be found or started.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// The results file of `--rerun-failed` could not be read back.
    #[error("--rerun-failed {0}")]
    Past(String),
    /// payconf could not listen for the target's notifications.
    #[error(transparent)]
    Notifications(#[from] ListenError),
    /// payconf could not serve the shop's page of the `@lightbox` scenarios.
    #[error("cannot serve the shop's page of the lightbox's scenarios on loopback: {0}")]
    ShopPage(#[source] std::io::Error),
    /// `--evidence` without a usable signing key.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A signal stopped the run.
    #[error("interrupted by {0}: the run stopped before its end, and nothing was judged")]
    Interrupted(&'static str),
}

impl NotRun {
    /// The embedded reference implementation did not start, because of `error`.
    pub fn embedded(error: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        Self::Embedded(error.into())
    }
}
