//! Random access codes and seat tokens (from the thread-local CSPRNG, seeded by the OS).

use maharajah_protocol::{AccessCode, ACCESS_CODE_LEN};
use rand::RngCore;

/// A fresh random access code.
pub fn new_code() -> AccessCode {
    let mut bytes = [0u8; ACCESS_CODE_LEN];
    rand::rng().fill_bytes(&mut bytes);
    AccessCode::from_indices(bytes)
}

/// A fresh seat token: 32 random bytes as 64 hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_tokens_differ_and_have_the_right_shape() {
        let a = new_code();
        let b = new_code();
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), ACCESS_CODE_LEN);
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert_ne!(t, new_token());
    }
}
