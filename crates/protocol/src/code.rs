//! Room access codes: 8 characters from an alphabet without look-alikes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Characters of an access code: digits and capitals without `0`, `1`, `I` and `O`, which people
/// confuse when reading a code aloud or copying it by hand. 32 symbols, so 40 bits per code.
pub const ACCESS_CODE_ALPHABET: &[u8; 32] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

/// Number of characters in an access code.
pub const ACCESS_CODE_LEN: usize = 8;

/// An access code, always stored in canonical form (8 upper-case alphabet characters).
///
/// Parsing is forgiving about what people type: case, spaces and dashes are ignored.
///
/// # Examples
///
/// ```
/// use maharajah_protocol::AccessCode;
/// let c: AccessCode = "abcd-efgh".parse().unwrap();
/// assert_eq!(c.as_str(), "ABCDEFGH");
/// assert!("ABCD0FGH".parse::<AccessCode>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AccessCode(String);

/// Why a text is not an access code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccessCodeError {
    /// Wrong number of characters (after removing spaces and dashes).
    #[error("an access code has {ACCESS_CODE_LEN} characters, this one has {0}")]
    Length(usize),
    /// A character outside [`ACCESS_CODE_ALPHABET`].
    #[error("'{0}' cannot appear in an access code")]
    Character(char),
}

impl AccessCode {
    /// Builds a code from 8 indices into [`ACCESS_CODE_ALPHABET`] (taken modulo 32), e.g. random
    /// bytes.
    pub fn from_indices(indices: [u8; ACCESS_CODE_LEN]) -> AccessCode {
        AccessCode(
            indices
                .iter()
                .map(|&i| char::from(ACCESS_CODE_ALPHABET[usize::from(i % 32)]))
                .collect(),
        )
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for AccessCode {
    type Err = AccessCodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut out = String::with_capacity(ACCESS_CODE_LEN);
        let mut len = 0;
        for c in s.chars().filter(|c| !c.is_whitespace() && *c != '-') {
            len += 1;
            let up = c.to_ascii_uppercase();
            if !up.is_ascii() || !ACCESS_CODE_ALPHABET.contains(&(up as u8)) {
                return Err(AccessCodeError::Character(c));
            }
            out.push(up);
        }
        if len != ACCESS_CODE_LEN {
            return Err(AccessCodeError::Length(len));
        }
        Ok(AccessCode(out))
    }
}

impl TryFrom<String> for AccessCode {
    type Error = AccessCodeError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<AccessCode> for String {
    fn from(c: AccessCode) -> String {
        c.0
    }
}

impl fmt::Display for AccessCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn alphabet_has_no_lookalikes_and_no_repeats() {
        for bad in b"01IO" {
            assert!(!ACCESS_CODE_ALPHABET.contains(bad));
        }
        let mut v = ACCESS_CODE_ALPHABET.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 32);
    }

    #[test]
    fn parse_is_forgiving_but_strict() {
        assert_eq!("  wxyz 2345 ".parse::<AccessCode>().unwrap().as_str(), "WXYZ2345");
        assert_eq!("ABC".parse::<AccessCode>(), Err(AccessCodeError::Length(3)));
        assert_eq!("ABCDEFGO".parse::<AccessCode>(), Err(AccessCodeError::Character('O')));
        assert_eq!("ABCDEFGé".parse::<AccessCode>(), Err(AccessCodeError::Character('é')));
        let c = AccessCode::from_indices([0, 1, 2, 3, 31, 32, 33, 255]);
        assert_eq!(c.as_str(), "2345Z23Z");
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<AccessCode>(&json).unwrap(), c);
        assert!(serde_json::from_str::<AccessCode>("\"I1I1I1I1\"").is_err());
    }
}
