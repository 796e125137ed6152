//! FEN reading and writing, including the extended Maharajah FEN.
//!
//! # Plain FEN
//! The usual six fields. Piece letters are `P N B R Q K` plus `A` (archbishop, bishop+knight),
//! `C` (chancellor, rook+knight) and `M` (Maharajah, queen+knight), upper case for White, as
//! Fairy-Stockfish writes them (its "amazon" is our Maharajah). The halfmove and fullmove fields
//! may be omitted on input. Castling rights that the board cannot support (king or rook not on
//! its home square, or a side that may not castle) are dropped; an en-passant square is kept only
//! when the rules of the side that moved allow a double step over it (from a square its double
//! step may start on, and one that allows en passant) and a pawn of the side to move can legally
//! capture onto it. Any other en-passant square is dropped, not refused (as scalachess and
//! lichess do): it can only ever add a capture, and writers differ on when they write it.
//!
//! # Extended Maharajah FEN
//! A Maharajah position needs two more facts than chess: each side's status (classic or variant,
//! fixed at the start) and which pawns have not moved yet (the double step is a right of each
//! pawn, not of a rank). The extended FEN appends two fields to the six:
//!
//! ```text
//! <board> <turn> <castling> <ep> <halfmove> <fullmove> <status> <unmoved>
//! bqrbkbnb/1p2pbr1/8/8/8/8/PP1PPPPP/BAPCKCNN w - - 0 1 vc c1a2b2d2e2f2g2h2b7e7
//! ```
//!
//! * `<status>`: two letters, White's then Black's, `c` for classic or `v` for variant.
//! * `<unmoved>`: the squares of pawns that may still double-step, concatenated (`a2b2c1`), or `-`.
//!   Only pawns that can still use the right are listed: every unmoved pawn of a variant side, and
//!   the unmoved rank-2 (rank-7) pawns of a classic side.
//!
//! Written for every Maharajah position and read back exactly. A plain six-field FEN given for a
//! Maharajah game is a position with start-derived defaults: all pawns unmoved, each status from
//! that side's material (any compound piece → variant); if the board is the orthodox array the
//! game uses the standard profile. It is **not** checked against the start rules (39 points,
//! placement): a FEN cannot tell a start from a later position. Use
//! [`crate::army::check_start`] where a FEN is to begin a game as a custom start.

use std::fmt;

use crate::position::{CastlingRights, Position};
use crate::profile::{RuleProfile, Status, Variant};
use crate::types::{Bitboard, ByColor, Color, Piece, Role, Square};

/// The start FENs live with the rule profiles ([`RuleProfile::start_fen`]); re-exported here,
/// where they were first defined.
pub use crate::profile::{HORDE_START, STANDARD_START};

/// Why a FEN was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenError {
    /// Wrong number of space-separated fields.
    FieldCount(usize),
    /// The board field is malformed.
    Board(String),
    /// The side-to-move field is not `w` or `b`.
    Turn(String),
    /// The castling field is malformed.
    Castling(String),
    /// The en-passant field is malformed.
    EnPassant(String),
    /// A clock field is not a number.
    Clock(String),
    /// The Maharajah status field is not two of `c`/`v`.
    Status(String),
    /// The unmoved-pawn field is malformed or names a square without a pawn.
    Unmoved(String),
    /// The position breaks a rule (kings, pawns on the last rank, the side not to move in check).
    Illegal(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => {
                write!(f, "FEN has {n} fields; expected 6 (or 8 for extended Maharajah)")
            }
            FenError::Board(s) => write!(f, "bad FEN board: {s}"),
            FenError::Turn(s) => write!(f, "bad side to move {s:?}"),
            FenError::Castling(s) => write!(f, "bad castling field {s:?}"),
            FenError::EnPassant(s) => write!(f, "bad en-passant field {s:?}"),
            FenError::Clock(s) => write!(f, "bad move counter {s:?}"),
            FenError::Status(s) => {
                write!(f, "bad status field {s:?} (expected two of c/v, e.g. vc)")
            }
            FenError::Unmoved(s) => write!(f, "bad unmoved-pawn field: {s}"),
            FenError::Illegal(s) => write!(f, "illegal position: {s}"),
        }
    }
}

impl std::error::Error for FenError {}

fn parse_board(board: &str) -> Result<[Option<Piece>; 64], FenError> {
    let mut squares = [None; 64];
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::Board(format!("{} ranks instead of 8", ranks.len())));
    }
    for (i, rank_str) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        for c in rank_str.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(FenError::Board(format!("bad digit {c}")));
                }
                file += d as u8;
            } else if let Some(p) = Piece::from_char(c) {
                let sq = Square::from_coords(file, rank)
                    .ok_or_else(|| FenError::Board(format!("rank {} is too long", rank + 1)))?;
                squares[sq.index()] = Some(p);
                file += 1;
            } else {
                return Err(FenError::Board(format!("unknown piece letter {c:?}")));
            }
            if file > 8 {
                return Err(FenError::Board(format!("rank {} is too long", rank + 1)));
            }
        }
        if file != 8 {
            return Err(FenError::Board(format!("rank {} has {} squares", rank + 1, file)));
        }
    }
    Ok(squares)
}

/// Status a side gets from its material: variant if it has any compound piece.
#[must_use]
pub fn status_from_material(pieces: impl IntoIterator<Item = Role>) -> Status {
    if pieces.into_iter().any(Role::is_compound) {
        Status::Variant
    } else {
        Status::Classic
    }
}

impl Position {
    /// Parses a FEN for `variant`. For Maharajah, a six-field FEN is a position with every pawn
    /// unmoved and statuses from the material (no start rules are applied: see
    /// [`crate::army::check_start`]) and an eight-field FEN is the extended form (see the
    /// [module docs](crate::fen)).
    ///
    /// # Errors
    /// [`FenError`] for malformed text or an illegal position.
    ///
    /// # Examples
    /// ```
    /// use maharajah_engine::{Position, Variant};
    /// let pos = Position::from_fen(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1")?;
    /// assert_eq!(pos.legal_moves().len(), 58);
    /// # Ok::<(), maharajah_engine::FenError>(())
    /// ```
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let extended = variant == Variant::Maharajah && fields.len() == 8;
        if !(4..=6).contains(&fields.len()) && !extended {
            return Err(FenError::FieldCount(fields.len()));
        }
        let squares = parse_board(fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(FenError::Turn(s.to_owned())),
        };

        let rules = match variant {
            Variant::Chess => RuleProfile::standard(),
            Variant::Horde => RuleProfile::horde(),
            Variant::Maharajah => {
                let statuses = if extended {
                    let st: Vec<char> = fields[6].chars().collect();
                    let parse = |c: char| match c {
                        'c' => Some(Status::Classic),
                        'v' => Some(Status::Variant),
                        _ => None,
                    };
                    match st.as_slice() {
                        [w, b] => match (parse(*w), parse(*b)) {
                            (Some(w), Some(b)) => ByColor { white: w, black: b },
                            _ => return Err(FenError::Status(fields[6].to_owned())),
                        },
                        _ => return Err(FenError::Status(fields[6].to_owned())),
                    }
                } else {
                    let s = ByColor::new_with(|color| {
                        status_from_material(
                            squares.iter().flatten().filter(|p| p.color == color).map(|p| p.role),
                        )
                    });
                    s
                };
                let orthodox = parse_board(STANDARD_START.split(' ').next().unwrap_or_default())?;
                if !extended && squares == orthodox {
                    RuleProfile::standard()
                } else {
                    RuleProfile::maharajah(statuses.white, statuses.black)
                }
            }
        };

        let mut pos = Position::empty(rules);
        for (i, p) in squares.iter().enumerate() {
            if let Some(p) = p {
                pos.put(*p, Square::new_wrapping(i as u32));
            }
        }
        pos.turn = turn;

        // Kings and pawns.
        for color in Color::ALL {
            let kings = pos.by_piece(Piece { color, role: Role::King }).count();
            let want = u32::from(rules.side(color).has_king);
            if kings != want {
                return Err(FenError::Illegal(format!(
                    "{color} has {kings} kings; expected {want}"
                )));
            }
            let pawns = pos.by_piece(Piece { color, role: Role::Pawn });
            if let Some(sq) = (pawns & Bitboard::relative_rank(color, 7)).first() {
                return Err(FenError::Illegal(format!("{color} pawn on {sq}, its promotion rank")));
            }
        }

        // Castling.
        let mut rights = 0u8;
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let (color, king_side) = match c {
                    'K' => (Color::White, true),
                    'Q' => (Color::White, false),
                    'k' => (Color::Black, true),
                    'q' => (Color::Black, false),
                    _ => return Err(FenError::Castling(fields[2].to_owned())),
                };
                let rook_sq = if king_side { Square::H1 } else { Square::A1 }.relative(color);
                let ok = rules.side(color).castling
                    && pos.king_of(color) == Some(Square::E1.relative(color))
                    && pos.by_piece(Piece { color, role: Role::Rook }).contains(rook_sq);
                if ok {
                    rights |= CastlingRights::bit(color, king_side);
                }
            }
        }
        pos.castling = CastlingRights(rights);

        // En passant.
        if fields[3] != "-" {
            let ep: Square =
                fields[3].parse().map_err(|_| FenError::EnPassant(fields[3].to_owned()))?;
            let them = turn.other();
            let pusher = ep.bb().forward(them);
            let origin = ep.bb().forward(turn);
            // The square must be one a pawn of `them` could have just double-stepped over under
            // its own rules: from a square its double step may start on, and one whose double
            // step allows en passant (chess: rank 2; Horde: not rank 1; a variant side: its own
            // half, where its pawns started).
            let ds = rules.side(them).double_step;
            let plausible = !pos.occupied.contains(ep)
                && (pusher & pos.by_piece(Piece { color: them, role: Role::Pawn })).any()
                && (origin & pos.occupied).is_empty()
                && (origin & ds.from & ds.en_passant_from).any();
            if plausible
                && (crate::attacks::pawn_attacks(them, ep)
                    & pos.by_piece(Piece { color: turn, role: Role::Pawn }))
                .any()
            {
                pos.ep_square = Some(ep);
            }
        }

        // Clocks.
        if let Some(h) = fields.get(4) {
            pos.halfmoves = h.parse().map_err(|_| FenError::Clock((*h).to_owned()))?;
        }
        if let Some(fm) = fields.get(5) {
            let n: u32 = fm.parse().map_err(|_| FenError::Clock((*fm).to_owned()))?;
            pos.fullmoves = n.max(1);
        }

        // Unmoved pawns: only those that can still use the right are recorded.
        let eligible = ByColor::new_with(|color| {
            let ds = rules.side(color).double_step;
            if ds.requires_unmoved {
                pos.by_piece(Piece { color, role: Role::Pawn }) & ds.from
            } else {
                Bitboard::EMPTY
            }
        });
        let eligible = eligible.white | eligible.black;
        pos.unmoved = if extended {
            let text = fields[7];
            let mut set = Bitboard::EMPTY;
            if text != "-" {
                if text.len() % 2 != 0 || !text.is_ascii() {
                    return Err(FenError::Unmoved(format!("{text:?} is not a list of squares")));
                }
                for i in (0..text.len()).step_by(2) {
                    let sq: Square = text[i..i + 2].parse().map_err(|_| {
                        FenError::Unmoved(format!("{:?} is not a square", &text[i..i + 2]))
                    })?;
                    if !pos.by_role[Role::Pawn].contains(sq) {
                        return Err(FenError::Unmoved(format!("no pawn on {sq}")));
                    }
                    set.add(sq);
                }
            }
            set & eligible
        } else {
            eligible
        };

        // The side not to move must not be in check.
        let them = turn.other();
        if let Some(k) = pos.king_of(them) {
            if pos.attackers_to(k, turn, pos.occupied).any() {
                return Err(FenError::Illegal(format!(
                    "{them} is in check but it is {turn}'s move"
                )));
            }
        }
        pos.refresh_hash();
        pos.prune_ep_square();
        Ok(pos)
    }

    /// The plain six-field FEN (no Maharajah extension).
    #[must_use]
    pub fn plain_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..8u8).rev() {
            let mut empty = 0;
            for file in 0..8u8 {
                let sq = Square::from_coords(file, rank).unwrap_or(Square::A1);
                match self.piece_at(sq) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.turn.char());
        s.push(' ');
        if self.castling.0 == 0 {
            s.push('-');
        } else {
            for (c, color, ks) in [
                ('K', Color::White, true),
                ('Q', Color::White, false),
                ('k', Color::Black, true),
                ('q', Color::Black, false),
            ] {
                if self.castling.has(color, ks) {
                    s.push(c);
                }
            }
        }
        s.push(' ');
        match self.ep_square {
            Some(ep) => s.push_str(&ep.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        s
    }

    /// A Fairy-Stockfish variant definition (the ini text its `VariantPath` option loads) named
    /// `name` for a Maharajah game begun from this position: the M/C/A pieces are its amazon,
    /// chancellor and archbishop, and each side's promotion set and double-step squares follow
    /// its status (classic: Q R B N and its rank-2/7 pawns; variant: Q R B N M C A and the
    /// squares of all its pawns). Fairy-Stockfish grants double steps by square, not by pawn,
    /// so in rare lines it allows one this crate refuses. With [`Position::plain_fen`] it lets
    /// Fairy-Stockfish play or judge the game.
    #[must_use]
    pub fn fairy_stockfish_variant(&self, name: &str) -> String {
        let promos =
            |c: Color| self.rules.side(c).promotions.iter().map(|r| r.char()).collect::<String>();
        let unmoved = |c: Color| {
            let s: Vec<String> = (self.unmoved & self.by_color(c)).map(|s| s.to_string()).collect();
            if s.is_empty() {
                "-".to_string()
            } else {
                s.join(" ")
            }
        };
        format!(
            "[{name}:chess]\narchbishop = a\nchancellor = c\namazon = m\ncastling = true\n\
             doubleStep = true\npromotionPieceTypesWhite = {}\npromotionPieceTypesBlack = {}\n\
             doubleStepRegionWhite = {}\ndoubleStepRegionBlack = {}\n",
            promos(Color::White),
            promos(Color::Black),
            unmoved(Color::White),
            unmoved(Color::Black)
        )
    }
}

impl fmt::Display for Position {
    /// The FEN: plain for chess and Horde, extended for Maharajah (see [module docs](crate::fen)).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.plain_fen())?;
        if self.rules.variant == Variant::Maharajah {
            let st = |c: Color| self.rules.side(c).status.unwrap_or(Status::Variant).char();
            write!(f, " {}{} ", st(Color::White), st(Color::Black))?;
            if self.unmoved.is_empty() {
                f.write_str("-")?;
            } else {
                for sq in self.unmoved {
                    write!(f, "{sq}")?;
                }
            }
        }
        Ok(())
    }
}
