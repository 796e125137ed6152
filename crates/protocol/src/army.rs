//! Hidden setup: the canonical text of an army and its SHA-256 commitment.
//!
//! An army on the wire is a comma-separated list of placements, a piece letter followed by a
//! square on the board as seen from White (`Ke1,Qd1,Ra1,...` for White, `Ke8,Qd8,...` for
//! Black). The colour is implied by the seat that sends it. Letters are `K Q R B N P M C A`
//! (Maharajah, Chancellor, Archbishop), either case.
//!
//! The canonical form ([`canonical_army`]) upper-cases letters and sorts placements by square
//! (a1, b1, …, h1, a2, …, h8), so every peer hashes the same bytes. The commitment is
//! `SHA-256("maharajah-army-v1\n" || canonical || "\n" || nonce)` with a 32-byte random nonce
//! ([`commitment`]); only its hex form travels before the reveal. Whether the army obeys the
//! army rules is decided by the rules engine ([`check_army`]); [`army_text`] and [`to_army`]
//! go between this text and the engine's [`Army`].

use maharajah_engine::{Army, ArmyError, Color, Role, Square};
use sha2::{Digest, Sha256};

/// Length of the random nonce mixed into a commitment, in bytes.
pub const NONCE_BYTES: usize = 32;

/// Domain-separation prefix of the commitment hash.
const DOMAIN: &[u8] = b"maharajah-army-v1\n";

/// Why an army text or a commitment is malformed (syntax only; the army rules are the engine's).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArmyTextError {
    /// A placement is not a piece letter followed by a square.
    #[error("'{0}' is not a placement like Qd1")]
    Placement(String),
    /// Two placements on the same square.
    #[error("two pieces on {0}")]
    DuplicateSquare(String),
    /// The army has no placements.
    #[error("the army is empty")]
    Empty,
    /// A nonce or commitment is not the right number of hex digits.
    #[error("expected {expected} hex digits")]
    Hex {
        /// Number of hex digits expected.
        expected: usize,
    },
}

/// Parses an army text into placements sorted by square (a1, b1, …, h8).
///
/// # Errors
///
/// [`ArmyTextError`] when a placement is malformed, a square is used twice, or the list is empty.
pub fn parse_army(text: &str) -> Result<Vec<(Square, Role)>, ArmyTextError> {
    let mut out = Vec::new();
    for raw in text.split(',') {
        let item = raw.trim();
        if item.is_empty() && text.trim().is_empty() {
            return Err(ArmyTextError::Empty);
        }
        let bad = || ArmyTextError::Placement(item.chars().take(16).collect());
        let mut chars = item.chars();
        let role = chars.next().and_then(Role::from_char).ok_or_else(bad)?;
        let square: Square = chars.as_str().to_ascii_lowercase().parse().map_err(|_| bad())?;
        out.push((square, role));
    }
    out.sort();
    for w in out.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(ArmyTextError::DuplicateSquare(w[0].0.to_string()));
        }
    }
    Ok(out)
}

/// The canonical text of an army: upper-case letters, sorted by square, no spaces.
///
/// # Errors
///
/// As [`parse_army`].
///
/// # Examples
///
/// ```
/// use maharajah_protocol::army::canonical_army;
/// assert_eq!(canonical_army(" qd1, Ke1 ,ra1").unwrap(), "Ra1,Qd1,Ke1");
/// ```
pub fn canonical_army(text: &str) -> Result<String, ArmyTextError> {
    Ok(text_of(parse_army(text)?))
}

fn text_of(pieces: impl IntoIterator<Item = (Square, Role)>) -> String {
    pieces
        .into_iter()
        .map(|(square, role)| format!("{}{square}", role.upper_char()))
        .collect::<Vec<_>>()
        .join(",")
}

/// The canonical wire text of an engine army (`Ke1,Qd1,…`).
///
/// # Examples
///
/// ```
/// use maharajah_protocol::{army::army_text, Army, Color};
/// let text = army_text(&Army::orthodox(Color::White));
/// assert!(text.starts_with("Ra1,Nb1,Bc1,Qd1,Ke1"));
/// ```
pub fn army_text(army: &Army) -> String {
    let mut pieces: Vec<(Square, Role)> = army.pieces().collect();
    pieces.sort();
    text_of(pieces)
}

/// The engine army of `color` written by an army text (not yet checked against the army rules:
/// see [`check_army`]).
///
/// # Errors
///
/// As [`parse_army`].
pub fn to_army(color: Color, text: &str) -> Result<Army, ArmyTextError> {
    Ok(Army::from_pieces(color, parse_army(text)?))
}

/// Why an army text cannot be a seat's army: malformed text, or the army rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArmyCheckError {
    /// The text is not an army.
    #[error(transparent)]
    Text(#[from] ArmyTextError),
    /// The army breaks the army rules (every broken rule, in the engine's words).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Rules(Vec<ArmyError>),
}

/// Checks an army text for `color` against the army rules; returns its canonical text.
///
/// # Errors
///
/// [`ArmyCheckError`] naming what is wrong.
pub fn check_army(color: Color, text: &str) -> Result<String, ArmyCheckError> {
    let pieces = parse_army(text)?;
    let errors = Army::from_pieces(color, pieces.iter().copied()).errors();
    if errors.is_empty() {
        Ok(text_of(pieces))
    } else {
        Err(ArmyCheckError::Rules(errors))
    }
}

/// The commitment to an army: lower-case hex of `SHA-256(domain || canonical || "\n" || nonce)`.
///
/// # Errors
///
/// As [`parse_army`].
pub fn commitment(army: &str, nonce: &[u8; NONCE_BYTES]) -> Result<String, ArmyTextError> {
    let canonical = canonical_army(army)?;
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(canonical.as_bytes());
    h.update(b"\n");
    h.update(nonce);
    Ok(hex::encode(h.finalize()))
}

/// Parses a nonce from its hex form (64 hex digits).
///
/// # Errors
///
/// [`ArmyTextError::Hex`] unless the text is exactly 64 hex digits.
pub fn parse_nonce(text: &str) -> Result<[u8; NONCE_BYTES], ArmyTextError> {
    let mut out = [0u8; NONCE_BYTES];
    hex::decode_to_slice(text, &mut out)
        .map_err(|_| ArmyTextError::Hex { expected: 2 * NONCE_BYTES })?;
    Ok(out)
}

/// Checks that a commitment is 64 hex digits and returns it in lower case.
///
/// # Errors
///
/// [`ArmyTextError::Hex`] otherwise.
pub fn normalize_commitment(text: &str) -> Result<String, ArmyTextError> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).map_err(|_| ArmyTextError::Hex { expected: 64 })?;
    Ok(hex::encode(out))
}

/// Whether `army` and `nonce` open `commitment` (compared in constant time).
///
/// # Errors
///
/// As [`parse_army`] for the army text.
pub fn opens(
    commitment_hex: &str,
    army: &str,
    nonce: &[u8; NONCE_BYTES],
) -> Result<bool, ArmyTextError> {
    let computed = commitment(army, nonce)?;
    let expected = commitment_hex.to_ascii_lowercase();
    Ok(constant_time_eq(computed.as_bytes(), expected.as_bytes()))
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const WHITE: &str = "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";

    #[test]
    fn canonical_is_order_and_case_independent() {
        let shuffled = "ph2, pg2,Pf2,pe2,Pd2,pc2,pb2,pa2,rh1,ng1,bf1,ke1,qd1,bc1,nb1,ra1";
        assert_eq!(canonical_army(shuffled).unwrap(), WHITE);
        let n = [7u8; 32];
        assert_eq!(commitment(shuffled, &n).unwrap(), commitment(WHITE, &n).unwrap());
    }

    #[test]
    fn commitment_binds_army_and_nonce() {
        let n = [1u8; 32];
        let c = commitment(WHITE, &n).unwrap();
        assert_eq!(c.len(), 64);
        assert!(opens(&c, WHITE, &n).unwrap());
        assert!(opens(&c.to_uppercase(), WHITE, &n).unwrap());
        assert!(!opens(&c, WHITE, &[2u8; 32]).unwrap());
        assert!(!opens(&c, &WHITE.replace("Qd1", "Md1"), &n).unwrap());
    }

    #[test]
    fn malformed_armies_are_refused() {
        assert_eq!(parse_army(""), Err(ArmyTextError::Empty));
        assert!(matches!(parse_army("Qd9"), Err(ArmyTextError::Placement(_))));
        assert!(matches!(parse_army("Xd1"), Err(ArmyTextError::Placement(_))));
        assert!(matches!(parse_army("Qd1,,Ke1"), Err(ArmyTextError::Placement(_))));
        assert_eq!(parse_army("Qd1,Rd1"), Err(ArmyTextError::DuplicateSquare("d1".into())));
        assert!(parse_nonce("ab").is_err());
        assert_eq!(parse_nonce(&"ff".repeat(32)).unwrap(), [255u8; 32]);
        assert!(normalize_commitment(&"zz".repeat(32)).is_err());
    }

    #[test]
    fn engine_armies_and_the_wire_text_agree() {
        let army = Army::orthodox(Color::White);
        assert_eq!(army_text(&army), WHITE);
        assert_eq!(to_army(Color::White, WHITE).unwrap(), army);
        assert_eq!(check_army(Color::White, &WHITE.to_lowercase()).unwrap(), WHITE);
        let black = Army::orthodox(Color::Black);
        assert_eq!(check_army(Color::Black, &army_text(&black)).unwrap(), army_text(&black));
        let err = check_army(Color::White, &WHITE.replace("Qd1", "Md1")).unwrap_err();
        assert!(matches!(err, ArmyCheckError::Rules(_)), "{err}");
        assert!(check_army(Color::Black, WHITE).is_err());
        assert!(matches!(check_army(Color::White, "Kz1"), Err(ArmyCheckError::Text(_))));
    }
}
