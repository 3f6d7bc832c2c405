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
//! - A password is chosen by a person: PBKDF2-HMAC-SHA256, 600,000 rounds
//!   (the OWASP password storage sheet's figure for it; AWS-LC's, which
//!   rustls already builds), checked off the request's thread. Not
//!   Argon2id, the sheet's first choice: its 19 MiB block, freed, raises
//!   the C allocator's threshold for mapping memory for the whole process,
//!   and a live payment then costs 9 % more memory (measured with `payconf
//!   bench`: 288 bytes a live payment, 314 with Argon2id).
//! - A signing secret is kept as it is: the sandbox signs with it. The
//!   back-office shows only its last four characters once it is saved.

use std::{
    num::NonZeroU32,
    sync::{LazyLock, OnceLock},
};

use ring::pbkdf2;
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
        format!("{DIGEST_PREFIX}{}:{}", hex(&self.digest), self.hint)
    }

    /// A digest as [`Self::stored`] wrote it.
    pub fn parse_stored(text: &str) -> Option<Self> {
        let (digest, hint) = text.strip_prefix(DIGEST_PREFIX)?.split_once(':')?;
        Some(Self {
            digest: unhex(digest)?.try_into().ok()?,
            hint: hint.into(),
        })
    }
}

/// The key the API keys' digests are made with, as an HMAC already keyed
/// (cloned for each digest: the key's two blocks are hashed once).
#[derive(Clone)]
pub struct KeyHasher(Hmac<Sha256>);

impl std::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyHasher(***)")
    }
}

impl KeyHasher {
    /// A hasher with `key` (the data file's).
    pub fn new(key: [u8; 32]) -> Self {
        Self(Hmac::<Sha256>::new_from_slice(&key).expect("HMAC accepts any key length"))
    }

    /// A hasher with a fresh random key (a sandbox without a data file).
    pub fn random() -> Self {
        Self::new(random_bytes())
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
        let mut mac = self.0.clone();
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

/// Rounds of PBKDF2-HMAC-SHA256 a password's hash takes.
pub const PASSWORD_ROUNDS: NonZeroU32 = NonZeroU32::new(600_000).expect("not zero");

/// The prefix of a stored password hash.
const HASH_PREFIX: &str = "$pbkdf2-sha256$";

/// A back-office password's hash: PBKDF2-HMAC-SHA256, written in the PHC
/// string's shape with hexadecimal fields
/// (`$pbkdf2-sha256$i=600000$<salt>$<hash>`).
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
        let salt = &random_bytes()[..16];
        let mut hash = [0u8; 32];
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            PASSWORD_ROUNDS,
            salt,
            password.as_bytes(),
            &mut hash,
        );
        Self(
            format!(
                "{HASH_PREFIX}i={PASSWORD_ROUNDS}${}${}",
                hex(salt),
                hex(&hash)
            )
            .into(),
        )
    }

    /// A hash as [`Self::as_str`] wrote it.
    pub fn parse(text: &str) -> Option<Self> {
        Fields::of(text).map(|_| Self(text.into()))
    }

    /// The hash as the data file keeps it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `password` is the one hashed (slow by design: call it off
    /// the request's thread). Compared in constant time.
    pub fn verifies(&self, password: &str) -> bool {
        Fields::of(&self.0).is_some_and(|fields| {
            pbkdf2::verify(
                pbkdf2::PBKDF2_HMAC_SHA256,
                fields.rounds,
                &fields.salt,
                password.as_bytes(),
                &fields.hash,
            )
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

/// A shop's back-office password: its hash, made from the configured
/// password when it is first needed (a sign-in, or the data file's row),
/// or read back from the data file.
pub struct Password {
    configured: Option<Box<str>>,
    hash: OnceLock<PasswordHash>,
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

impl Password {
    /// A password as the configuration gives it.
    pub fn configured(password: &str) -> Self {
        Self {
            configured: Some(password.into()),
            hash: OnceLock::new(),
        }
    }

    /// A password known by its hash only.
    pub fn hashed(hash: PasswordHash) -> Self {
        Self {
            configured: None,
            hash: OnceLock::from(hash),
        }
    }

    /// Its hash (made now when it has none yet: slow by design).
    pub fn hash(&self) -> &PasswordHash {
        self.hash
            .get_or_init(|| PasswordHash::new(self.configured.as_deref().unwrap_or_default()))
    }
}

/// A stored password hash's fields.
struct Fields {
    rounds: NonZeroU32,
    salt: Vec<u8>,
    hash: Vec<u8>,
}

impl Fields {
    fn of(text: &str) -> Option<Self> {
        let mut parts = text.strip_prefix(HASH_PREFIX)?.split('$');
        let rounds = parts.next()?.strip_prefix("i=")?.parse().ok()?;
        let (salt, hash) = (unhex(parts.next()?)?, unhex(parts.next()?)?);
        (parts.next().is_none() && salt.len() >= 16 && hash.len() == 32).then_some(Self {
            rounds,
            salt,
            hash,
        })
    }
}

/// Bytes in lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hexadecimal text as bytes; `None` for an odd length or another character.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
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
    fn a_configured_password_is_hashed_once_when_first_needed() {
        let password = Password::configured("correct horse battery staple");
        let hash = password.hash().clone();
        assert_eq!(password.hash(), &hash, "the same hash, made once");
        assert!(hash.verifies("correct horse battery staple"));
        assert!(
            Password::hashed(hash.clone())
                .hash()
                .verifies("correct horse battery staple")
        );
    }

    #[test]
    fn a_password_hash_verifies_its_password_only() {
        let hash = PasswordHash::new("correct horse battery staple");
        assert!(
            hash.as_str().starts_with("$pbkdf2-sha256$i=600000$"),
            "{}",
            hash.as_str()
        );
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
