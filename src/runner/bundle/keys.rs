//! The bundle's keys: an Ed25519 pair, the private key in PKCS#8 PEM and
//! the public key in SubjectPublicKeyInfo PEM, the formats OpenSSL reads
//! (`openssl pkey -in payconf-signing.key -pubout`). `payconf keygen` makes
//! a pair; `--signing-key FILE` or `PAYCONF_SIGNING_KEY` (the PEM itself,
//! as CI secrets are text) gives the private key to a run; `--key FILE` the
//! public key to `payconf verify`. No key is ever printed: a key is named
//! by its id, `SHA256:` and the base64 of its public key's SHA-256, as
//! OpenSSH names keys.

use std::{io::Write, path::Path};

use base64::Engine;
use ed25519_dalek::{
    SigningKey, VerifyingKey,
    pkcs8::{
        DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey,
        spki::der::pem::LineEnding,
    },
};
use sha2::{Digest, Sha256};

/// The variable a run reads the private key's PEM from.
pub const SIGNING_KEY_VARIABLE: &str = "PAYCONF_SIGNING_KEY";

/// The largest key file read: a PEM key is a few hundred bytes.
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// Why a key could not be had. No variant carries a key's text.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// A run asked for a bundle and gave no key.
    #[error(
        "--evidence signs the bundle, and no signing key was given: --signing-key FILE or \
         {SIGNING_KEY_VARIABLE} (the PEM of the key; payconf keygen makes a pair)"
    )]
    Missing,
    /// The file cannot be read.
    #[error("{what} {path}: cannot be read: {cause}")]
    Read {
        /// The flag or variable it came from.
        what: &'static str,
        /// The file.
        path: String,
        /// Why (named so, not `source`: said once).
        cause: std::io::Error,
    },
    /// It is not a key of the kind expected.
    #[error("{what}{at}: not {kind} (PEM, as payconf keygen writes it)")]
    NotAKey {
        /// The flag or variable it came from.
        what: &'static str,
        /// ` FILE`, or nothing for a variable.
        at: String,
        /// `an Ed25519 private key in PKCS#8` or `an Ed25519 public key`.
        kind: &'static str,
    },
    /// A key file is in the way of a new one.
    #[error(
        "{0}: already exists; payconf keygen writes no key over another (choose --out, or move it)"
    )]
    Exists(String),
    /// A key file could not be written.
    #[error("{path}: cannot be written: {cause}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        cause: std::io::Error,
    },
    /// The system gave no randomness.
    #[error("no randomness from the system for a new key: {0}")]
    Random(String),
}

/// A key's id: `SHA256:` and the base64 of its public key's SHA-256.
pub fn id(key: &VerifyingKey) -> String {
    let digest = Sha256::digest(key.as_bytes());
    format!(
        "SHA256:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest)
    )
}

/// The public key as PEM, as `signer.pub` and `payconf keygen` write it.
pub fn public_pem(key: &VerifyingKey) -> String {
    key.to_public_key_pem(LineEnding::LF)
        .expect("an Ed25519 public key always encodes")
}

/// A public key from PEM text; `None` when it is not one.
pub fn parse_public(pem: &str) -> Option<VerifyingKey> {
    VerifyingKey::from_public_key_pem(pem.trim()).ok()
}

/// The private key a run signs with: `--signing-key FILE`, or else the
/// PEM in [`SIGNING_KEY_VARIABLE`].
pub fn signing_key(file: Option<&Path>, variable: Option<&str>) -> Result<SigningKey, KeyError> {
    let kind = "an Ed25519 private key in PKCS#8";
    match (file, variable) {
        (Some(path), _) => {
            let text = read_small("--signing-key", path)?;
            SigningKey::from_pkcs8_pem(text.trim()).map_err(|_| KeyError::NotAKey {
                what: "--signing-key",
                at: format!(" {}", path.display()),
                kind,
            })
        }
        (None, Some(pem)) => {
            SigningKey::from_pkcs8_pem(pem.trim()).map_err(|_| KeyError::NotAKey {
                what: SIGNING_KEY_VARIABLE,
                at: String::new(),
                kind,
            })
        }
        (None, None) => Err(KeyError::Missing),
    }
}

/// The public key `payconf verify --key FILE` trusts.
pub fn trusted_key(path: &Path) -> Result<VerifyingKey, KeyError> {
    let text = read_small("--key", path)?;
    parse_public(&text).ok_or_else(|| KeyError::NotAKey {
        what: "--key",
        at: format!(" {}", path.display()),
        kind: "an Ed25519 public key",
    })
}

/// A key file's text, refused past [`MAX_KEY_BYTES`].
fn read_small(what: &'static str, path: &Path) -> Result<String, KeyError> {
    use std::io::Read;
    let read = |cause| KeyError::Read {
        what,
        path: path.display().to_string(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    file.take(MAX_KEY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    if bytes.len() as u64 > MAX_KEY_BYTES {
        return Err(KeyError::NotAKey {
            what,
            at: format!(" {}", path.display()),
            kind: "a key: it is far larger than one",
        });
    }
    // A key that is not UTF-8 is no PEM; say so as for any other.
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// A key pair written by [`keygen`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The private key's file.
    pub secret: String,
    /// The public key's file.
    pub public: String,
    /// The key's id.
    pub id: String,
}

/// `payconf keygen --out PREFIX`: writes `PREFIX.key` (the private key,
/// readable by its owner only) and `PREFIX.pub`, never over a file.
pub fn keygen(prefix: &Path) -> Result<Pair, KeyError> {
    let mut seed = [0_u8; 32];
    getrandom::fill(&mut seed).map_err(|e| KeyError::Random(e.to_string()))?;
    let key = SigningKey::from_bytes(&seed);
    seed.fill(0);
    // PKCS#8 version 1, the private key alone: what OpenSSL 3.0 reads (it
    // refuses version 2, which carries the public key beside it).
    let private = ed25519_dalek::pkcs8::KeypairBytes {
        secret_key: key.to_bytes(),
        public_key: None,
    }
    .to_pkcs8_pem(LineEnding::LF)
    .expect("an Ed25519 private key always encodes");
    let secret = format!("{}.key", prefix.display());
    let public = format!("{}.pub", prefix.display());
    for path in [&secret, &public] {
        if Path::new(path).exists() {
            return Err(KeyError::Exists(path.clone()));
        }
    }
    write_new(&secret, private.as_bytes(), 0o600)?;
    write_new(&public, public_pem(&key.verifying_key()).as_bytes(), 0o644)?;
    Ok(Pair {
        id: id(&key.verifying_key()),
        secret,
        public,
    })
}

/// Writes a file that must not exist yet, with `mode`.
fn write_new(path: &str, bytes: &[u8], mode: u32) -> Result<(), KeyError> {
    use std::os::unix::fs::OpenOptionsExt;
    let failed = |cause| KeyError::Write {
        path: path.to_owned(),
        cause,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|cause| {
            if cause.kind() == std::io::ErrorKind::AlreadyExists {
                KeyError::Exists(path.to_owned())
            } else {
                failed(cause)
            }
        })?;
    file.write_all(bytes).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_made_reads_back_and_its_id_names_it() {
        let dir = std::env::temp_dir().join(format!("payconf-keys-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let prefix = dir.join("signing");
        let Pair {
            secret,
            public,
            id: id_made,
        } = keygen(&prefix).expect("a pair");
        let key = signing_key(Some(Path::new(&secret)), None).expect("the private key reads");
        let trusted = trusted_key(Path::new(&public)).expect("the public key reads");
        assert_eq!(key.verifying_key(), trusted);
        assert_eq!(id(&trusted), id_made);
        assert!(
            id_made.starts_with("SHA256:") && id_made.len() == 50,
            "{id_made}"
        );
        let mode = std::fs::metadata(&secret).expect("written").permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
        // From the variable, as a CI secret.
        let pem = std::fs::read_to_string(&secret).expect("read");
        assert!(signing_key(None, Some(&pem)).is_ok());
        // Never over a key.
        assert!(matches!(keygen(&prefix), Err(KeyError::Exists(_))));
        // The public key is no private key, and the error shows neither.
        let said = signing_key(Some(Path::new(&public)), None)
            .expect_err("not a private key")
            .to_string();
        assert!(
            said.contains("not an Ed25519 private key in PKCS#8"),
            "{said}"
        );
        assert!(!said.contains("BEGIN"), "{said}");
        let said = signing_key(None, Some("-----BEGIN NONSENSE-----"))
            .expect_err("not a key")
            .to_string();
        assert!(
            said.starts_with("PAYCONF_SIGNING_KEY: not an Ed25519"),
            "{said}"
        );
        assert!(!said.contains("NONSENSE"), "{said}");
        assert!(matches!(signing_key(None, None), Err(KeyError::Missing)));
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }
}
