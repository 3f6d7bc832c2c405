//! The evidence bundle (`payconf run --evidence FILE`): one archive a
//! vendor hands its customer as proof of a run, which anyone verifies
//! offline with `payconf verify` and the vendor's public key.
//!
//! A gzip-compressed tar holding:
//!
//! - `manifest.json`: what the bundle is (payconf's version, the spec's and
//!   the features' SHA-256, the seed, the verdict, when it was made) and
//!   every other file with its SHA-256 and size ([`manifest`]);
//! - `manifest.sig`: the Ed25519 signature of `manifest.json`'s bytes, in
//!   base64; `signer.pub`: the public key that made it (PEM), which names
//!   the signer but proves nothing alone: `--key` is the key one trusts;
//! - `reports/`: every report of the run (results, HTML, JUnit, Cucumber
//!   JSON, HAR), as redacted as every report is; `screenshots/`: the issuer
//!   and payment pages the browser left, blanked as the HTML report shows
//!   them; `target.json` (the redacted declaration), `plan.json`, and
//!   `features.sha256` (each feature file's SHA-256, as `sha256sum` writes
//!   them: the file whose SHA-256 is the manifest's `features_sha256`).
//!
//! [`keys`] makes and reads the key pair; [`archive`] writes a bundle and
//! reads one back within bounds, refusing what is not one.

pub mod archive;
pub mod keys;
pub mod manifest;

use crate::runner::reports::{Format, RenderError, Rendered};

/// The manifest's name in the archive.
pub const MANIFEST: &str = "manifest.json";
/// The signature's.
pub const SIGNATURE: &str = "manifest.sig";
/// The signer's public key's.
pub const SIGNER: &str = "signer.pub";
/// Where the results report is, which `payconf verify` judges.
pub const RESULTS: &str = "reports/results.json";

/// A file of the bundle: its path in the archive and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Relative, `/`-separated.
    pub path: String,
    /// Its contents.
    pub bytes: Vec<u8>,
}

impl Entry {
    fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// Every file a run's bundle holds besides its manifest and signature:
/// each report (rendered once with the files asked for), the screenshots,
/// the declaration, the plan, the features' digests.
pub fn contents(rendered: &Rendered<'_>) -> Result<Vec<Entry>, RenderError> {
    let inputs = rendered.inputs();
    let mut entries = Vec::new();
    for format in Format::ALL {
        let text = rendered.text(format)?;
        entries.push(Entry::new(format!("reports/{}", format.file_name()), text));
    }
    entries.push(Entry::new(
        "target.json",
        serde_json::to_vec_pretty(&inputs.record.target.configuration)?,
    ));
    entries.push(Entry::new(
        "plan.json",
        serde_json::to_vec_pretty(&inputs.record.plan)?,
    ));
    entries.push(Entry::new("features.sha256", inputs.features.listing()));
    for result in inputs.report.sorted() {
        let name = format!(
            "{}-{}",
            result.file.trim_end_matches(".feature"),
            result.line
        );
        let tries = result
            .earlier
            .iter()
            .map(|t| &t.leftovers)
            .enumerate()
            .map(|(i, leftovers)| (format!("{name}-try{}", i + 1), leftovers));
        let last = std::iter::once((name.clone(), &result.leftovers));
        for (shot, leftovers) in tries.chain(last) {
            let png = leftovers
                .issuer
                .as_ref()
                .and_then(|issuer| issuer.screenshot.clone());
            if let Some(png) = png {
                entries.push(Entry::new(format!("screenshots/{shot}.png"), png));
            }
        }
    }
    Ok(entries)
}

/// Why a run's bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// A report in it did not render.
    #[error("a report in it could not be made: {0}")]
    Render(#[from] RenderError),
    /// The archive could not be written.
    #[error("{0}")]
    Write(#[from] std::io::Error),
}

/// Writes the bundle of the run whose reports are `rendered` at `path`,
/// signed with `key`.
pub fn seal_run(
    path: &std::path::Path,
    key: &ed25519_dalek::SigningKey,
    rendered: &Rendered<'_>,
) -> Result<archive::Sealed, SealError> {
    let entries = contents(rendered)?;
    let inputs = rendered.inputs();
    let manifest = manifest::Manifest {
        format: manifest::FORMAT.to_owned(),
        format_version: manifest::FORMAT_VERSION,
        payconf: env!("CARGO_PKG_VERSION").to_owned(),
        started_at: inputs.record.started_at.clone(),
        target: inputs.record.target.checked().to_string(),
        verdict: inputs.record.outcome.name().to_owned(),
        exit_code: inputs.record.exit_code,
        seed: inputs.record.seed,
        spec_sha256: inputs.record.spec.sha256.clone(),
        features_sha256: inputs.record.features.sha256.clone(),
        signer: String::new(),
        files: Vec::new(),
    };
    Ok(archive::seal(path, manifest, &entries, key)?)
}
