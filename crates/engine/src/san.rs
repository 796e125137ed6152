//! Standard algebraic notation (SAN) with the letters `M`, `C`, `A` for the compound pieces.

use std::fmt;

use crate::moves::Move;
use crate::position::Position;
use crate::types::{Role, Square};

/// Why a SAN string could not be turned into a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    /// Not SAN syntax.
    Syntax(String),
    /// No legal move matches.
    Illegal(String),
    /// More than one legal move matches (missing disambiguation).
    Ambiguous(String),
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "not a SAN move: {s:?}"),
            SanError::Illegal(s) => write!(f, "no legal move matches {s:?}"),
            SanError::Ambiguous(s) => write!(f, "ambiguous move {s:?}"),
        }
    }
}

impl std::error::Error for SanError {}

impl Position {
    /// SAN of a legal move, with `+` or `#` (e.g. `Mf3`, `Cxe5+`, `e8=A`, `O-O`).
    #[must_use]
    pub fn san(&self, mv: Move) -> String {
        let mut s = self.san_without_suffix(mv);
        let mut after = self.clone();
        after.play_unchecked(mv);
        if after.is_check() {
            s.push(if after.has_legal_moves() { '+' } else { '#' });
        }
        s
    }

    /// SAN of a legal move without the check suffix.
    #[must_use]
    pub fn san_without_suffix(&self, mv: Move) -> String {
        let Some(role) = self.role_at(mv.from) else { return mv.to_string() };
        if self.is_castling(mv) {
            return if mv.to.file() > mv.from.file() { "O-O".into() } else { "O-O-O".into() };
        }
        let capture = self.is_capture(mv);
        let mut s = String::with_capacity(8);
        if role == Role::Pawn {
            if capture {
                s.push((b'a' + mv.from.file()) as char);
                s.push('x');
            }
            s.push_str(&mv.to.to_string());
            if let Some(p) = mv.promotion {
                s.push('=');
                s.push(p.upper_char());
            }
            return s;
        }
        s.push(role.upper_char());
        // Disambiguation among other pieces of the same role reaching the same square.
        let mut others = Vec::new();
        self.for_each_legal_move(|m| {
            if m.to == mv.to && m.from != mv.from && self.role_at(m.from) == Some(role) {
                others.push(m.from);
            }
        });
        if !others.is_empty() {
            let same_file = others.iter().any(|o| o.file() == mv.from.file());
            let same_rank = others.iter().any(|o| o.rank() == mv.from.rank());
            if !same_file {
                s.push((b'a' + mv.from.file()) as char);
            } else if !same_rank {
                s.push((b'1' + mv.from.rank()) as char);
            } else {
                s.push_str(&mv.from.to_string());
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&mv.to.to_string());
        s
    }

    /// Parses SAN (tolerating a missing or extra `x`, `+`, `#`, annotations `!?`, `0-0`, and
    /// promotions written `e8M` or `e8=M`) into the legal move it names.
    ///
    /// # Errors
    /// [`SanError`] if the text is not SAN or names no single legal move.
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let trimmed = san.trim_end_matches(['+', '#', '!', '?']);
        let syntax = || SanError::Syntax(san.to_owned());
        if trimmed.is_empty() || !trimmed.is_ascii() {
            return Err(syntax());
        }
        if matches!(trimmed, "O-O" | "0-0" | "O-O-O" | "0-0-0") {
            let king_side = trimmed.len() == 3;
            let mut found = None;
            self.for_each_legal_move(|m| {
                if self.is_castling(m) && (m.to.file() > m.from.file()) == king_side {
                    found = Some(m);
                }
            });
            return found.ok_or_else(|| SanError::Illegal(san.to_owned()));
        }
        let b = trimmed.as_bytes();
        let (role, rest) = match Role::from_char(b[0] as char) {
            Some(r) if b[0].is_ascii_uppercase() && r != Role::Pawn => (r, &trimmed[1..]),
            _ => (Role::Pawn, trimmed),
        };
        // Promotion suffix.
        let (rest, promotion) = {
            let rb = rest.as_bytes();
            match rb.last() {
                Some(&c) if c.is_ascii_alphabetic() && role == Role::Pawn && rb.len() >= 3 => {
                    let r = Role::from_char(c as char).ok_or_else(syntax)?;
                    let body = rest[..rest.len() - 1].trim_end_matches('=');
                    (body, Some(r))
                }
                _ => (rest, None),
            }
        };
        if rest.len() < 2 {
            return Err(syntax());
        }
        let to: Square = rest[rest.len() - 2..].parse().map_err(|_| syntax())?;
        let disamb = rest[..rest.len() - 2].trim_end_matches('x').trim_end_matches(':');
        let mut from_file = None;
        let mut from_rank = None;
        for c in disamb.chars() {
            match c {
                'a'..='h' if from_file.is_none() => from_file = Some(c as u8 - b'a'),
                '1'..='8' if from_rank.is_none() => from_rank = Some(c as u8 - b'1'),
                _ => return Err(syntax()),
            }
        }
        let mut found: Option<Move> = None;
        let mut count = 0;
        self.for_each_legal_move(|m| {
            if m.to == to
                && m.promotion == promotion
                && self.role_at(m.from) == Some(role)
                && from_file.map_or(true, |f| m.from.file() == f)
                && from_rank.map_or(true, |r| m.from.rank() == r)
                && !(role == Role::King && self.is_castling(m))
            {
                count += 1;
                found = Some(m);
            }
        });
        match (count, found) {
            (1, Some(m)) => Ok(m),
            (0, _) => Err(SanError::Illegal(san.to_owned())),
            _ => Err(SanError::Ambiguous(san.to_owned())),
        }
    }
}
