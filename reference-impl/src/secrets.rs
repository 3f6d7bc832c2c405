//! How the sandbox keeps the merchants' secrets it only has to recognise:
//! API keys as keyed digests, back-office passwords as slow hashes. Neither
//! can be turned back into the secret, so a key shown once at rotation is
//! never recoverable, from memory or from the data file.
//!
//! - An API key is long and random (244 bits when the sandbox makes it):
//!   a fast keyed hash (HMAC-SHA256 under a random key of the data file's,
//!   or of the process without one) is as strong as a slow one for it, and
//!   costs a microsecond on every `payment/create`. Its last four
//!   characters are kept beside it, for the back-office to show which key
//!   is in use.
//! - A password is chosen by a person: Argon2id (19 MiB, two passes, the
//!   OWASP password storage sheet's first choice), checked off the
//!   request's thread.
//! - A signing secret is kept as it is: the sandbox signs with it. The
//!   back-office shows only its last four characters once it is saved.

use std::sync::LazyLock;

use argon2::{
    Argon2,
    password_hash::{PasswordHasher, PasswordVerifier, SaltString},
};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The prefix of a stored key digest.
const DIGEST_PREFIX: &str = "hmac-sha256:";

/// An API key as the sandbox keeps it: its digest and its last four
/// characters.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyDigest {
    digest: [u8; 32],
    hint: Box<str>,
}

impl std::fmt::Debug for KeyDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyDigest(…{})", self.hint)
    }
}

impl KeyDigest {
    /// Whether two digests are of the same key (in constant time).
    pub fn matches(&self, other: &Self) -> bool {
        self.is(&other.digest)
    }

    /// Whether `mac` ([`KeyHasher::mac`]) is this key's (in constant time).
    pub fn is(&self, mac: &[u8; 32]) -> bool {
        bool::from(self.digest.ct_eq(mac))
    }

    /// The key's last four characters.
    pub fn hint(&self) -> &str {
        &self.hint
    }

    /// The digest as the data file keeps it: `hmac-sha256:<hex>:<hint>`.
    pub fn stored(&self) -> String {
        let hex: String = self.digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("{DIGEST_PREFIX}{hex}:{}", self.hint)
    }

    /// A digest as [`Self::stored`] wrote it.
    pub fn parse_stored(text: &str) -> Option<Self> {
        let (hex, hint) = text.strip_prefix(DIGEST_PREFIX)?.split_once(':')?;
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect::<Option<_>>()?;
        Some(Self {
            digest: bytes.try_into().ok()?,
            hint: hint.into(),
        })
    }
}

/// The key the API keys' digests are made with.
#[derive(Clone)]
pub struct KeyHasher([u8; 32]);

impl std::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyHasher(***)")
    }
}

impl KeyHasher {
    /// A hasher with `key` (the data file's).
    pub fn new(key: [u8; 32]) -> Self {
        Self(key)
    }

    /// A hasher with a fresh random key (a sandbox without a data file).
    pub fn random() -> Self {
        Self(random_bytes())
    }

    /// The digest of an API key, with its last four characters when it has
    /// at least twelve (of a shorter one, nothing).
    pub fn digest(&self, api_key: &str) -> KeyDigest {
        let hint_start = match api_key.chars().count() {
            ..12 => api_key.len(),
            _ => api_key.char_indices().rev().nth(3).map_or(0, |(i, _)| i),
        };
        KeyDigest {
            digest: self.mac(api_key.as_bytes()),
            hint: api_key.get(hint_start..).unwrap_or("").into(),
        }
    }

    /// The keyed digest of a key as a request sent it (the hot path's).
    pub fn mac(&self, key: &[u8]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC accepts any key length");
        mac.update(key);
        mac.finalize().into_bytes().into()
    }
}

/// 32 random bytes from the system's generator.
pub fn random_bytes() -> [u8; 32] {
    let mut bytes = [0; 32];
    bytes[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    bytes[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    bytes
}

/// A back-office password's hash: an Argon2id PHC string.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(Box<str>);

impl std::fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasswordHash(***)")
    }
}

impl PasswordHash {
    /// Hashes `password` with a fresh salt.
    pub fn new(password: &str) -> Self {
        let salt = SaltString::encode_b64(&random_bytes()[..16]).expect("16 bytes make a salt");
        let hash = Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .expect("Argon2 hashes any password with its default parameters");
        Self(hash.to_string().into())
    }

    /// A hash as [`Self::as_str`] wrote it.
    pub fn parse(text: &str) -> Option<Self> {
        argon2::password_hash::PasswordHash::new(text).ok()?;
        text.starts_with("$argon2").then(|| Self(text.into()))
    }

    /// The PHC string, as the data file keeps it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `password` is the one hashed (slow by design: call it off
    /// the request's thread).
    pub fn verifies(&self, password: &str) -> bool {
        argon2::password_hash::PasswordHash::new(&self.0).is_ok_and(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
    }

    /// A hash no password is known of, checked for a shop login without
    /// a password so that the answer takes as long as for one with.
    pub fn nobodys() -> &'static Self {
        static NOBODYS: LazyLock<PasswordHash> =
            LazyLock::new(|| PasswordHash::new(&crate::config::random_secret()));
        &NOBODYS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_digest_is_keyed_stored_and_read_back() {
        let hasher = KeyHasher::new([7; 32]);
        let digest = hasher.digest("live-key-0123456789abcdef");
        assert_eq!(digest.hint(), "cdef");
        assert!(digest.matches(&hasher.digest("live-key-0123456789abcdef")));
        assert!(!digest.matches(&hasher.digest("live-key-0123456789abcdeF")));
        assert!(!digest.matches(&KeyHasher::new([8; 32]).digest("live-key-0123456789abcdef")));
        let stored = digest.stored();
        assert!(!stored.contains("0123456789"), "{stored}");
        assert_eq!(KeyDigest::parse_stored(&stored), Some(digest));
        assert_eq!(KeyDigest::parse_stored("live-key-0123456789abcdef"), None);
        assert_eq!(hasher.digest("demo-api-key").hint(), "-key");
        assert_eq!(
            hasher.digest("short-key").hint(),
            "",
            "too short to show a part"
        );
    }

    #[test]
    fn a_password_hash_verifies_its_password_only() {
        let hash = PasswordHash::new("correct horse battery staple");
        assert!(hash.as_str().starts_with("$argon2id$"), "{}", hash.as_str());
        assert!(!hash.as_str().contains("horse"));
        assert!(hash.verifies("correct horse battery staple"));
        assert!(!hash.verifies("correct horse battery stapler"));
        assert_eq!(PasswordHash::parse(hash.as_str()), Some(hash.clone()));
        assert_eq!(PasswordHash::parse("demo-password"), None);
        assert_ne!(
            PasswordHash::new("same"),
            PasswordHash::new("same"),
            "salted"
        );
        assert!(!PasswordHash::nobodys().verifies(""));
    }
}
