//! The hasher of the store's maps: tokens (and payment IDs) are the
//! service's own random or counted numbers, never a caller's choice.

use std::hash::Hasher;

/// Hashes tokens with a multiply-and-rotate fold (the FxHash step). Tokens are
/// random v4 UUIDs drawn by the service itself, so no caller can choose keys
/// that collide, and the strong default hasher would only cost time.
#[derive(Default)]
pub(super) struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
