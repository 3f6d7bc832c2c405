//! The manifest: what a bundle is and every file it holds with its SHA-256,
//! the one file the signature covers. Whoever changes a file must change
//! its digest here, and whoever changes this must sign again.

use payconf_spec::digest::sha256_hex;
use serde::{Deserialize, Serialize};

use super::Entry;

/// What `format` says of a payconf evidence bundle.
pub const FORMAT: &str = "payconf evidence bundle";
/// The manifest's version; it changes when a field changes meaning.
pub const FORMAT_VERSION: u32 = 1;

/// A bundle's manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The payconf that ran, and made the bundle.
    pub payconf: String,
    /// When the run started, RFC 3339.
    pub started_at: String,
    /// What the run checked: the server's base address, or the embedded
    /// reference implementation, named as such (empty in a bundle made
    /// before the manifest said it).
    #[serde(default)]
    pub target: String,
    /// The run's verdict: `passed`, `failed`, `not-run`.
    pub verdict: String,
    /// Its exit code.
    pub exit_code: u8,
    /// The seed of its generated inputs, when it generated some.
    pub seed: Option<u64>,
    /// SHA-256 of the spec it ran, in hex.
    pub spec_sha256: String,
    /// SHA-256 of the features it ran, in hex (see `features.sha256`).
    pub features_sha256: String,
    /// The id of the key that signed it.
    pub signer: String,
    /// Every other file of the bundle.
    pub files: Vec<FileDigest>,
}

/// A file of the bundle, as the manifest records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Its path in the archive.
    pub path: String,
    /// SHA-256 of its bytes, in hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
}

impl FileDigest {
    /// An entry's digest.
    pub fn of(entry: &Entry) -> Self {
        Self {
            path: entry.path.clone(),
            sha256: sha256_hex(&entry.bytes),
            bytes: entry.bytes.len() as u64,
        }
    }
}

impl Manifest {
    /// The manifest as signed: pretty JSON, so it reads in any viewer.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a manifest serialises");
        bytes.push(b'\n');
        bytes
    }

    /// A manifest read back; `None` when the bytes are not one.
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }
}
