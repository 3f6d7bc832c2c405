//! SHA-256 in lowercase hex: how the spec, the features and the files of an
//! evidence bundle are named by their contents, in reports and manifests.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_digest_of_nothing_is_the_well_known_one() {
        assert_eq!(
            super::sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
