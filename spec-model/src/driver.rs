//! How the buyer gets through the issuer's page: the one word for it, used
//! by a target file, the command line, the defect catalogue (the driver
//! that can see a defect) and the runner.

use serde::Deserialize;

/// How the buyer gets through the issuer-authentication page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AcsDriver {
    /// HTTP and an HTML parser, no script: fills the form holding `fields`,
    /// walks lone forms and frames, follows redirects and relay pages.
    #[default]
    Form,
    /// A headless Chromium: pages built by scripts, frames, script redirects.
    Browser,
    /// No issuer page can be driven: its scenarios are skipped, with the reason.
    None,
}

impl AcsDriver {
    /// The name the target file, the command line and the catalogues use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Form => "form",
            Self::Browser => "browser",
            Self::None => "none",
        }
    }

    /// The driver of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Form, Self::Browser, Self::None]
            .into_iter()
            .find(|driver| driver.name() == name)
    }
}

impl std::fmt::Display for AcsDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
