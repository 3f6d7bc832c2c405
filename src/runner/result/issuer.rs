//! What a journey through the issuer's pages leaves for the result: the
//! driver that drove it, the pages visited and a screenshot of the last.

/// The driver that drove a buyer's journey.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Drove {
    /// HTTP and a real HTML parser, no script.
    Form,
    /// A headless Chromium.
    Browser,
}

impl Drove {
    /// `form` or `browser`, as the target file and the reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Form => "form",
            Self::Browser => "browser",
        }
    }
}

/// What a journey leaves for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuerEvidence {
    /// The driver that drove it.
    pub driver: Drove,
    /// The pages visited, in order, redacted.
    pub pages: Vec<String>,
    /// A PNG of the last page, secrets blanked out (browser only).
    pub screenshot: Option<Vec<u8>>,
    /// Why the browser's journey left no screenshot: a page it could not
    /// blank out (a frame of another origin) is not photographed.
    pub screenshot_left_out: Option<String>,
}
