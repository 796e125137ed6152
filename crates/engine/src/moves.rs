//! Moves, their UCI text form, and the fixed-capacity `MoveList`.

use std::fmt;
use std::str::FromStr;

use crate::types::{Role, Square};

/// A move: origin, destination and, for a promotion, the new role.
///
/// Castling is written as the king's two-square move (`e1g1`), en passant as the capturing pawn's
/// diagonal step, as in UCI. Whether a move is a capture, castling or en passant follows from the
/// position it is played in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Origin square.
    pub from: Square,
    /// Destination square.
    pub to: Square,
    /// Role a pawn promotes to.
    pub promotion: Option<Role>,
}

impl Move {
    /// A non-promotion move.
    #[must_use]
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to, promotion: None }
    }

    /// A promotion to `role`.
    #[must_use]
    pub const fn with_promotion(from: Square, to: Square, role: Role) -> Move {
        Move { from, to, promotion: Some(role) }
    }
}

impl fmt::Display for Move {
    /// UCI long algebraic: `e2e4`, `e7e8m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

/// A string that is not a UCI move (`e2e4`, `e7e8q`, `a7a8m`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseMoveError(pub String);

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid UCI move {:?}", self.0)
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;
    /// Parses UCI long algebraic notation; the promotion letter may be either case.
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let err = || ParseMoveError(s.to_owned());
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(err());
        }
        let from: Square = s[0..2].parse().map_err(|_| err())?;
        let to: Square = s[2..4].parse().map_err(|_| err())?;
        let promotion = match s[4..].chars().next() {
            None => None,
            Some(c) => match Role::from_char(c) {
                Some(r) if r != Role::Pawn && r != Role::King => Some(r),
                _ => return Err(err()),
            },
        };
        Ok(Move { from, to, promotion })
    }
}

/// Upper bound on the number of legal moves in any position: at most n·(64−n) ≤ 1024
/// origin–destination pairs for n own pieces, plus at most 8 promoting pawns × 3 destinations
/// × 6 extra promotion roles.
pub const MAX_MOVES: usize = 1024 + 8 * 3 * 6;

/// A fixed-capacity list of moves; never allocates.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[must_use]
    pub const fn new() -> MoveList {
        MoveList { moves: [Move::new(Square::A1, Square::A1); MAX_MOVES], len: 0 }
    }

    /// Appends a move. Beyond [`MAX_MOVES`] (impossible for legal moves) the move is dropped.
    #[inline]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
        }
    }

    /// Number of moves.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// `true` if there are no moves.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[must_use]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for ordering).
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// `true` if `mv` is in the list.
    #[must_use]
    pub fn contains(&self, mv: &Move) -> bool {
        self.as_slice().contains(mv)
    }

    /// Iterates the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Keeps the moves for which `f` is true.
    pub fn retain(&mut self, mut f: impl FnMut(&Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if f(&m) {
                self.moves[j] = m;
                j += 1;
            }
        }
        self.len = j;
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
