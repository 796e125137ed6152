//! Player identity without passwords: an Ed25519 key pair made by the client, the signed hello
//! challenge, display names (rules and the look-alike skeleton) and the recovery code that
//! rebuilds the key on another device.
//!
//! The conversation: the server's [`crate::ServerMsg::Welcome`] carries a [`Challenge`] (32
//! fresh random bytes and the server's name); the client answers
//! [`crate::ClientMsg::Identify`] with its public [`PlayerKey`] and a signature of
//! [`hello_message`] (`"maharajah-hello-v1"` ‖ nonce ‖ server name); the server checks it with
//! [`verify_hello`] and from then on knows the connection's player by the key. A client that
//! never identifies plays as a guest, as before.
//!
//! ```
//! use maharajah_protocol::identity::{verify_hello, PlayerSecret, RecoveryCode};
//! let secret = PlayerSecret::from_bytes([7; 32]); // the client's random bytes
//! let nonce = [9; 32];
//! let signature = secret.sign_hello(&nonce, "play.example.org");
//! assert!(verify_hello(&secret.public(), &nonce, "play.example.org", &signature).is_ok());
//! assert!(verify_hello(&secret.public(), &nonce, "elsewhere", &signature).is_err());
//!
//! // The recovery code brings the same key to a new device.
//! let code = RecoveryCode::of(&secret).to_string();
//! let again: RecoveryCode = code.parse().unwrap();
//! assert_eq!(again.secret().public(), secret.public());
//! ```

use std::fmt;
use std::str::FromStr;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ACCESS_CODE_ALPHABET;

/// The domain separator that starts every signed hello: a signature made for this purpose can
/// never be taken for a signature of anything else the key might sign.
pub const HELLO_DOMAIN: &[u8] = b"maharajah-hello-v1";

/// Bytes in a challenge nonce.
pub const NONCE_BYTES: usize = 32;

/// What the server asks a client to sign, sent in [`crate::ServerMsg::Welcome`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// 32 random bytes, fresh for each connection, as 64 hex digits.
    pub nonce: String,
    /// The server's name, signed too, so that a signature made for one server is no use on
    /// another (a client that knows which server it meant to reach checks this name first).
    pub server: String,
}

impl Challenge {
    /// The nonce's bytes.
    ///
    /// # Errors
    ///
    /// [`IdentityError::Malformed`] if the nonce is not 64 hex digits.
    pub fn nonce_bytes(&self) -> Result<[u8; NONCE_BYTES], IdentityError> {
        decode_hex(&self.nonce, "nonce")
    }
}

/// Why an identity was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// A key, nonce or signature is not hex of the right length.
    #[error("the {0} is not hex of the right length")]
    Malformed(&'static str),
    /// The key is not a valid Ed25519 public key.
    #[error("that is not an Ed25519 public key")]
    BadKey,
    /// The signature does not verify with this key over this challenge.
    #[error("the signature does not match the key and the challenge")]
    BadSignature,
}

fn decode_hex<const N: usize>(text: &str, what: &'static str) -> Result<[u8; N], IdentityError> {
    let bytes = hex::decode(text).map_err(|_| IdentityError::Malformed(what))?;
    bytes.try_into().map_err(|_| IdentityError::Malformed(what))
}

/// A player's public key (Ed25519, 32 bytes); on the wire and in the store, 64 lower-case hex
/// digits. Parsing checks only the form; [`verify_hello`] checks that it is a curve point.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerKey([u8; 32]);

impl PlayerKey {
    /// The key's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// A key from its bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; 32]) -> PlayerKey {
        PlayerKey(bytes)
    }
}

impl fmt::Display for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerKey({self})")
    }
}

impl FromStr for PlayerKey {
    type Err = IdentityError;
    fn from_str(s: &str) -> Result<PlayerKey, IdentityError> {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(IdentityError::Malformed("key"));
        }
        decode_hex(s, "key").map(PlayerKey)
    }
}

impl TryFrom<String> for PlayerKey {
    type Error = IdentityError;
    fn try_from(s: String) -> Result<PlayerKey, IdentityError> {
        s.parse()
    }
}

impl From<PlayerKey> for String {
    fn from(k: PlayerKey) -> String {
        k.to_string()
    }
}

/// A player's secret key: kept by the client only (the app's store; never the web view, never
/// the wire).
#[derive(Clone)]
pub struct PlayerSecret(SigningKey);

impl fmt::Debug for PlayerSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerSecret(for {})", self.public())
    }
}

impl PlayerSecret {
    /// The secret key from 32 bytes: fresh random bytes for a new player (the caller's RNG;
    /// this crate draws no randomness), or those of a [`RecoveryCode`].
    #[must_use]
    pub fn from_bytes(bytes: [u8; 32]) -> PlayerSecret {
        PlayerSecret(SigningKey::from_bytes(&bytes))
    }

    /// The 32 secret bytes (to store them).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// The public key that goes with it.
    #[must_use]
    pub fn public(&self) -> PlayerKey {
        PlayerKey(self.0.verifying_key().to_bytes())
    }

    /// Signs the hello challenge `nonce` of the server named `server`; the signature as 128 hex
    /// digits, for [`crate::ClientMsg::Identify`].
    #[must_use]
    pub fn sign_hello(&self, nonce: &[u8; NONCE_BYTES], server: &str) -> String {
        hex::encode(self.0.sign(&hello_message(nonce, server)).to_bytes())
    }
}

/// The bytes a client signs to answer a challenge: [`HELLO_DOMAIN`], the 32 nonce bytes, then
/// the server's name (UTF-8). The two fixed-length parts first make the split unambiguous.
#[must_use]
pub fn hello_message(nonce: &[u8; NONCE_BYTES], server: &str) -> Vec<u8> {
    let mut message = Vec::with_capacity(HELLO_DOMAIN.len() + NONCE_BYTES + server.len());
    message.extend_from_slice(HELLO_DOMAIN);
    message.extend_from_slice(nonce);
    message.extend_from_slice(server.as_bytes());
    message
}

/// Checks a hello signature (128 hex digits) by `key` over the challenge `nonce` of the server
/// named `server`. Strict verification: small-order keys and malleable signatures are refused.
///
/// # Errors
///
/// [`IdentityError::Malformed`] for a signature that is not 64 bytes of hex,
/// [`IdentityError::BadKey`] for a key that is no curve point, [`IdentityError::BadSignature`]
/// when it does not verify.
pub fn verify_hello(
    key: &PlayerKey,
    nonce: &[u8; NONCE_BYTES],
    server: &str,
    signature: &str,
) -> Result<(), IdentityError> {
    let signature: [u8; 64] = decode_hex(signature, "signature")?;
    let key = VerifyingKey::from_bytes(&key.0).map_err(|_| IdentityError::BadKey)?;
    key.verify_strict(&hello_message(nonce, server), &Signature::from_bytes(&signature))
        .map_err(|_| IdentityError::BadSignature)
}

/// Fewest characters in a display name.
pub const NAME_MIN: usize = 3;
/// Most characters in a display name.
pub const NAME_MAX: usize = 20;

/// Why a display name is refused; the message names the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Fewer than [`NAME_MIN`] characters.
    #[error("a name has at least {NAME_MIN} characters; this one has {0}")]
    TooShort(usize),
    /// More than [`NAME_MAX`] characters.
    #[error("a name has at most {NAME_MAX} characters; this one has {0}")]
    TooLong(usize),
    /// A character other than an ASCII letter, a digit, `_` or `-`.
    #[error("'{0}' cannot appear in a name: use letters a–z, digits, _ and -")]
    Character(char),
    /// The name starts or ends with `_` or `-`, or has two of them in a row.
    #[error("a name starts and ends with a letter or digit and has no two of _ and - in a row")]
    Separator,
}

/// Checks a display name: [`NAME_MIN`]–[`NAME_MAX`] characters, ASCII letters, digits, `_`
/// and `-` only (no look-alikes from other scripts), beginning and ending with a letter or
/// digit, no two separators in a row. Case is kept as typed; uniqueness is the server's, by
/// [`name_skeleton`].
///
/// # Errors
///
/// The first rule the name breaks, as a [`NameError`].
///
/// # Examples
///
/// ```
/// use maharajah_protocol::identity::{check_name, NameError};
/// assert!(check_name("Magnus_C").is_ok());
/// assert_eq!(check_name("ab"), Err(NameError::TooShort(2)));
/// assert_eq!(check_name("añejo"), Err(NameError::Character('ñ')));
/// assert_eq!(check_name("_bob"), Err(NameError::Separator));
/// ```
pub fn check_name(name: &str) -> Result<(), NameError> {
    if let Some(c) = name.chars().find(|c| !c.is_ascii_alphanumeric() && !matches!(c, '_' | '-')) {
        return Err(NameError::Character(c));
    }
    let len = name.len();
    if len < NAME_MIN {
        return Err(NameError::TooShort(len));
    }
    if len > NAME_MAX {
        return Err(NameError::TooLong(len));
    }
    let separator = |b: u8| b == b'_' || b == b'-';
    let bytes = name.as_bytes();
    if bytes.first().copied().is_some_and(separator)
        || bytes.last().copied().is_some_and(separator)
        || bytes.windows(2).any(|w| separator(w[0]) && separator(w[1]))
    {
        return Err(NameError::Separator);
    }
    Ok(())
}

/// The look-alike skeleton of a name: two names with the same skeleton are one name on a
/// server. It folds case and then what people misread:
///
/// | typed | becomes |
/// |---|---|
/// | `0` | `o` |
/// | `1`, `i`, `j`, `l` | `l` |
/// | `2` | `z` |
/// | `5` | `s` |
/// | `6` | `g` (`9` and `q` too) |
/// | `8` | `b` |
/// | `rn` | `m` |
/// | `vv` | `w` |
/// | `u` | `v` |
/// | `-` | `_` |
///
/// So `Magnus`, `MAGNUS`, `rnagnus` and `Magnu5` are one name, and so are `Bob-1` and `bob_l`.
///
/// # Examples
///
/// ```
/// use maharajah_protocol::identity::name_skeleton;
/// assert_eq!(name_skeleton("Magnus"), name_skeleton("rnagnu5"));
/// assert_eq!(name_skeleton("B0b-1"), name_skeleton("bob_l"));
/// assert_ne!(name_skeleton("alice"), name_skeleton("alicia"));
/// ```
#[must_use]
pub fn name_skeleton(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    // Pairs first, so that `r` + `n` becomes `m` before any letter is folded.
    let paired = lower.replace("rn", "m").replace("vv", "w");
    paired
        .chars()
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' | 'j' | 'l' => 'l',
            '2' => 'z',
            '5' => 's',
            '6' | '9' | 'q' => 'g',
            '8' => 'b',
            'u' => 'v',
            '-' => '_',
            other => other,
        })
        .collect::<String>()
        // `uu` folds to `vv`, which reads as `w` too.
        .replace("vv", "w")
}

/// Symbols in a recovery code: those of access codes (no `0`, `1`, `I`, `O`), 5 bits each.
const RECOVERY_ALPHABET: &[u8; 32] = ACCESS_CODE_ALPHABET;
/// Characters in a recovery code: 32 secret bytes and a 2-byte check, 272 bits, in 55 symbols
/// (the last 3 bits zero).
pub const RECOVERY_CODE_LEN: usize = 55;
/// Characters per group when a recovery code is shown.
const RECOVERY_GROUP: usize = 5;

/// A recovery code: the 32 secret bytes of a [`PlayerSecret`] and a 16-bit check, in 55
/// characters of [`crate::ACCESS_CODE_ALPHABET`] shown in groups of five
/// (`ABCDE-FGHJK-…`). Typing it on a new device rebuilds the same key. The check (the first
/// two bytes of SHA-256 of `"maharajah-recovery-v1"` ‖ secret) catches a mistyped code: any
/// typo passes with odds of 1 in 65,536. Parsing forgives case, spaces and dashes.
#[derive(Clone, PartialEq, Eq)]
pub struct RecoveryCode([u8; 32]);

impl fmt::Debug for RecoveryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RecoveryCode(…)")
    }
}

/// Why a text is not a recovery code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecoveryCodeError {
    /// Wrong number of characters (spaces and dashes not counted).
    #[error("a recovery code has {RECOVERY_CODE_LEN} characters; this one has {0}")]
    Length(usize),
    /// A character outside the code's alphabet.
    #[error("'{0}' cannot appear in a recovery code")]
    Character(char),
    /// The characters are all possible but the check does not match: a typo somewhere.
    #[error("this recovery code has a typo: check it character by character")]
    Checksum,
}

fn recovery_check(secret: &[u8; 32]) -> [u8; 2] {
    let digest =
        Sha256::new().chain_update(b"maharajah-recovery-v1").chain_update(secret).finalize();
    [digest[0], digest[1]]
}

impl RecoveryCode {
    /// The code of a secret key.
    #[must_use]
    pub fn of(secret: &PlayerSecret) -> RecoveryCode {
        RecoveryCode(secret.to_bytes())
    }

    /// The secret key the code holds.
    #[must_use]
    pub fn secret(&self) -> PlayerSecret {
        PlayerSecret::from_bytes(self.0)
    }
}

impl fmt::Display for RecoveryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut payload = self.0.to_vec();
        payload.extend_from_slice(&recovery_check(&self.0));
        let mut symbols = String::with_capacity(RECOVERY_CODE_LEN);
        let (mut acc, mut bits) = (0u32, 0u32);
        for byte in payload {
            acc = (acc << 8) | u32::from(byte);
            bits += 8;
            while bits >= 5 {
                bits -= 5;
                symbols.push(char::from(RECOVERY_ALPHABET[((acc >> bits) & 31) as usize]));
            }
        }
        if bits > 0 {
            symbols.push(char::from(RECOVERY_ALPHABET[((acc << (5 - bits)) & 31) as usize]));
        }
        for (i, c) in symbols.chars().enumerate() {
            if i > 0 && i % RECOVERY_GROUP == 0 {
                f.write_str("-")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl FromStr for RecoveryCode {
    type Err = RecoveryCodeError;

    fn from_str(s: &str) -> Result<RecoveryCode, RecoveryCodeError> {
        let mut values = Vec::with_capacity(RECOVERY_CODE_LEN);
        for c in s.chars().filter(|c| !c.is_whitespace() && *c != '-') {
            let up = c.to_ascii_uppercase();
            let value = RECOVERY_ALPHABET
                .iter()
                .position(|&a| up.is_ascii() && a == up as u8)
                .ok_or(RecoveryCodeError::Character(c))?;
            values.push(value as u32);
        }
        if values.len() != RECOVERY_CODE_LEN {
            return Err(RecoveryCodeError::Length(values.len()));
        }
        let mut bytes = Vec::with_capacity(34);
        let (mut acc, mut bits) = (0u32, 0u32);
        for v in values {
            acc = ((acc << 5) | v) & 0xffff;
            bits += 5;
            if bits >= 8 {
                bits -= 8;
                bytes.push(((acc >> bits) & 0xff) as u8);
            }
        }
        // 55 × 5 = 275 bits: 34 bytes and 3 padding bits, which must be zero.
        if acc & ((1 << bits) - 1) != 0 {
            return Err(RecoveryCodeError::Checksum);
        }
        let secret: [u8; 32] = bytes[..32].try_into().map_err(|_| RecoveryCodeError::Checksum)?;
        if bytes[32..] != recovery_check(&secret) {
            return Err(RecoveryCodeError::Checksum);
        }
        Ok(RecoveryCode(secret))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn secret(seed: u8) -> PlayerSecret {
        PlayerSecret::from_bytes(std::array::from_fn(|i| {
            seed.wrapping_mul(31).wrapping_add(i as u8)
        }))
    }

    #[test]
    fn a_signature_verifies_only_for_its_key_nonce_and_server() {
        let (alice, mallory) = (secret(1), secret(2));
        let nonce = [5; 32];
        let sig = alice.sign_hello(&nonce, "server");
        assert_eq!(sig.len(), 128);
        assert_eq!(verify_hello(&alice.public(), &nonce, "server", &sig), Ok(()));
        // Mallory claims Alice's key with her own signature, or replays Alice's elsewhere.
        let forged = mallory.sign_hello(&nonce, "server");
        assert_eq!(
            verify_hello(&alice.public(), &nonce, "server", &forged),
            Err(IdentityError::BadSignature)
        );
        assert_eq!(
            verify_hello(&alice.public(), &[6; 32], "server", &sig),
            Err(IdentityError::BadSignature)
        );
        assert_eq!(
            verify_hello(&alice.public(), &nonce, "server2", &sig),
            Err(IdentityError::BadSignature)
        );
        assert_eq!(
            verify_hello(&alice.public(), &nonce, "server", "abcd"),
            Err(IdentityError::Malformed("signature"))
        );
        // A signature of the same bytes without the domain separator is not a hello.
        let bare = hex::encode(alice.0.sign(&nonce).to_bytes());
        assert_eq!(
            verify_hello(&alice.public(), &nonce, "", &bare),
            Err(IdentityError::BadSignature)
        );
    }

    #[test]
    fn keys_read_and_write_as_lower_case_hex() {
        let key = secret(3).public();
        let text = key.to_string();
        assert_eq!(text.len(), 64);
        assert_eq!(text.parse::<PlayerKey>(), Ok(key));
        assert_eq!(serde_json::to_string(&key).unwrap(), format!("\"{text}\""));
        assert!(text.to_uppercase().parse::<PlayerKey>().is_err());
        assert!(text[..62].parse::<PlayerKey>().is_err());
        assert!(serde_json::from_str::<PlayerKey>("\"xyz\"").is_err());
    }

    #[test]
    fn the_recovery_code_round_trips_and_catches_typos() {
        for seed in 0..50 {
            let s = secret(seed);
            let code = RecoveryCode::of(&s).to_string();
            assert_eq!(code.len(), RECOVERY_CODE_LEN + RECOVERY_CODE_LEN / RECOVERY_GROUP - 1);
            let back: RecoveryCode = code.parse().unwrap();
            assert_eq!(back.secret().public(), s.public());
            // Forgiving: lower case, spaces for dashes.
            let typed = code.to_lowercase().replace('-', " ");
            assert_eq!(typed.parse::<RecoveryCode>().unwrap(), back);
        }
        let code = RecoveryCode::of(&secret(9)).to_string();
        // Every single-character substitution is caught (for this code, exhaustively).
        let chars: Vec<char> = code.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            if c == '-' {
                continue;
            }
            for &other in RECOVERY_ALPHABET {
                let other = char::from(other);
                if other == c {
                    continue;
                }
                let mut typo = chars.clone();
                typo[i] = other;
                let typo: String = typo.into_iter().collect();
                assert_eq!(
                    typo.parse::<RecoveryCode>(),
                    Err(RecoveryCodeError::Checksum),
                    "{typo}"
                );
            }
        }
        // Two neighbours swapped.
        let mut swapped = chars.clone();
        let (a, b) = (0, 1);
        assert_ne!(swapped[a], swapped[b], "pick a code whose first two differ");
        swapped.swap(a, b);
        let swapped: String = swapped.into_iter().collect();
        assert_eq!(swapped.parse::<RecoveryCode>(), Err(RecoveryCodeError::Checksum));
        assert_eq!(code[..20].parse::<RecoveryCode>(), Err(RecoveryCodeError::Length(17)));
        let with_o = format!("O{}", &code[1..]);
        assert_eq!(with_o.parse::<RecoveryCode>(), Err(RecoveryCodeError::Character('O')));
    }

    #[test]
    fn names_follow_the_rules_and_say_what_is_wrong() {
        for good in ["abc", "Magnus_C", "x-y-z", "a1b2c3d4e5f6g7h8i9j0", "007"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        assert_eq!(check_name(""), Err(NameError::TooShort(0)));
        assert_eq!(check_name("a_"), Err(NameError::TooShort(2)));
        assert_eq!(check_name("abcdefghijklmnopqrstu"), Err(NameError::TooLong(21)));
        assert_eq!(check_name("with space"), Err(NameError::Character(' ')));
        assert_eq!(check_name("аdmin"), Err(NameError::Character('а'))); // Cyrillic а
        assert_eq!(check_name("a__b"), Err(NameError::Separator));
        assert_eq!(check_name("ab-"), Err(NameError::Separator));
        assert!(NameError::TooLong(21).to_string().contains("at most 20"));
        assert!(NameError::Character(' ').to_string().contains("' '"));
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        let same = [
            ("Magnus", "MAGNUS"),
            ("magnus", "rnagnus"),
            ("Magnus", "Magnu5"),
            ("bob_1", "B0B-l"),
            ("will", "wi11"),
            ("vvalter", "walter"),
            ("uuu", "wv"),
            ("Bigboss", "B1gb0ss"),
            ("golf", "9olf"),
        ];
        for (a, b) in same {
            assert_eq!(name_skeleton(a), name_skeleton(b), "{a} / {b}");
        }
        for (a, b) in [("alice", "alicia"), ("bob", "rob"), ("mm", "m"), ("ab-c", "abc")] {
            assert_ne!(name_skeleton(a), name_skeleton(b), "{a} / {b}");
        }
    }
}
