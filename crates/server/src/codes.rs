//! Random access codes and seat tokens (from the thread-local CSPRNG, seeded by the OS).

use maharajah_protocol::{AccessCode, ACCESS_CODE_LEN};
use rand::RngCore;
use sha2::{Digest, Sha256};

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

/// How a kept token digest begins, telling it from a plain token of an older record.
const DIGEST_PREFIX: &str = "sha256:";

/// What the server keeps of a seat token: its SHA-256, so neither the memory of a room nor the
/// database holds a token that could take the seat. Tokens are 256 random bits, so no salt or
/// slow hash is needed.
pub fn token_digest(token: &str) -> String {
    format!("{DIGEST_PREFIX}{}", hex::encode(Sha256::digest(token.as_bytes())))
}

/// A kept token as read back from the database: records written before digests hold the
/// plain token, which is digested now (the seat keeps working).
pub fn kept_digest(kept: String) -> String {
    if kept.starts_with(DIGEST_PREFIX) {
        kept
    } else {
        token_digest(&kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_hide_the_token_and_old_plain_records_are_digested() {
        let t = new_token();
        let d = token_digest(&t);
        assert!(!d.contains(&t));
        assert_eq!(d.len(), DIGEST_PREFIX.len() + 64);
        assert_eq!(kept_digest(d.clone()), d);
        assert_eq!(kept_digest(t.clone()), d, "a plain token from an old record");
        assert_ne!(token_digest(&new_token()), d);
    }

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
