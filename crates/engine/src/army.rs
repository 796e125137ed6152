//! Armies for Maharajah's custom setup: building, validation (rules/maharajah.md §2), start
//! validation (§3) and the helpers the army-builder UI needs.

use std::fmt;

use rand::Rng;

use crate::fen::status_from_material;
use crate::position::Position;
use crate::profile::{Status, Variant};
use crate::types::{Bitboard, ByColor, Color, Piece, Role, Square};

/// Points each side must spend exactly.
pub const BUDGET: u32 = 39;
/// Most pieces an army can hold besides its king (four ranks of eight, minus the king).
pub const MAX_PIECES: usize = 31;

/// One side's army: its pieces on its own half, the king included.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Army {
    color: Color,
    board: [Option<Role>; 64],
}

/// Which placement rule an army breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ArmyRule {
    /// Points spent differ from 39 (`spent` is what the army spends).
    Budget {
        /// Points spent.
        spent: u32,
    },
    /// The king is missing, misplaced or doubled: it stands on e1 (White) / e8 (Black), once.
    King,
    /// A piece stands outside the side's half (White ranks 1–4, Black ranks 5–8).
    OwnHalf,
    /// A piece stands on a rank while a rank nearer home (`rank`, 1-based) has empty squares.
    FillFromHome {
        /// The nearer rank that is not full (1..8).
        rank: u8,
    },
    /// More than 31 pieces besides the king.
    TooManyPieces {
        /// Pieces besides the king.
        count: usize,
    },
    /// A piece of the wrong colour was given.
    WrongColor,
}

/// A refused army: the rule, the side, and the squares involved.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ArmyError {
    /// The side whose army breaks the rule.
    pub color: Color,
    /// The rule.
    pub rule: ArmyRule,
    /// Squares involved (offending pieces; for `FillFromHome` the offending pieces first, then
    /// the empty squares of the nearer rank, see `empty`).
    pub squares: Vec<Square>,
    /// For `FillFromHome`: the empty squares of the nearer rank.
    pub empty: Vec<Square>,
}

fn list(squares: &[Square]) -> String {
    squares.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for ArmyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.color;
        match self.rule {
            ArmyRule::Budget { spent } => write!(f, "{c} spends {spent} of {BUDGET} points"),
            ArmyRule::King => write!(
                f,
                "{c}: the king must stand on {} (found: {})",
                Square::E1.relative(c),
                if self.squares.is_empty() { "none".to_owned() } else { list(&self.squares) }
            ),
            ArmyRule::OwnHalf => write!(
                f,
                "{c}: {} {} outside ranks {}",
                if self.squares.len() == 1 { "piece on" } else { "pieces on" },
                list(&self.squares),
                if c.is_white() { "1-4" } else { "5-8" }
            ),
            ArmyRule::FillFromHome { rank } => write!(
                f,
                "{c}: {} {} while rank {rank} has empty squares: {}",
                if self.squares.len() == 1 { "piece on" } else { "pieces on" },
                list(&self.squares),
                list(&self.empty)
            ),
            ArmyRule::TooManyPieces { count } => {
                write!(f, "{c} has {count} pieces besides the king; at most {MAX_PIECES} fit")
            }
            ArmyRule::WrongColor => {
                write!(f, "{c}: pieces of the other colour on {}", list(&self.squares))
            }
        }
    }
}

impl std::error::Error for ArmyError {}

impl Army {
    /// An army with only its king (on e1 / e8).
    #[must_use]
    pub fn new(color: Color) -> Army {
        let mut board = [None; 64];
        board[Square::E1.relative(color).index()] = Some(Role::King);
        Army { color, board }
    }

    /// The orthodox army of `color` (costs exactly 39).
    #[must_use]
    pub fn orthodox(color: Color) -> Army {
        let mut army = Army::new(color);
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        for (file, role) in back.into_iter().enumerate() {
            let f = file as u8;
            army.board[Square::from_coords(f, 0).unwrap_or(Square::A1).relative(color).index()] =
                Some(role);
            army.board[Square::from_coords(f, 1).unwrap_or(Square::A1).relative(color).index()] =
                Some(Role::Pawn);
        }
        army
    }

    /// An army from pieces (the king included); not validated — see [`Army::validate`].
    #[must_use]
    pub fn from_pieces(color: Color, pieces: impl IntoIterator<Item = (Square, Role)>) -> Army {
        let mut board = [None; 64];
        for (sq, role) in pieces {
            board[sq.index()] = Some(role);
        }
        Army { color, board }
    }

    /// The army of `color` read from a position (e.g. a FEN).
    #[must_use]
    pub fn from_position(pos: &Position, color: Color) -> Army {
        Army::from_pieces(
            color,
            pos.by_color(color).filter_map(|sq| pos.role_at(sq).map(|r| (sq, r))),
        )
    }

    /// The side this army belongs to.
    #[must_use]
    pub const fn color(&self) -> Color {
        self.color
    }

    /// The role on `sq`, if any.
    #[must_use]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.board[sq.index()]
    }

    /// All pieces, king included, from a1 upwards.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Role)> + '_ {
        Square::all().filter_map(|sq| self.board[sq.index()].map(|r| (sq, r)))
    }

    /// Occupied squares.
    #[must_use]
    pub fn occupied(&self) -> Bitboard {
        self.pieces().map(|(sq, _)| sq).collect()
    }

    /// Puts `role` on `sq` (replacing whatever stood there). Not validated.
    pub fn set(&mut self, sq: Square, role: Option<Role>) {
        self.board[sq.index()] = role;
    }

    /// Points spent (the king is free).
    #[must_use]
    pub fn points_spent(&self) -> u32 {
        self.pieces().map(|(_, r)| r.cost()).sum()
    }

    /// Points still to spend (negative when over budget).
    #[must_use]
    pub fn points_left(&self) -> i64 {
        i64::from(BUDGET) - i64::from(self.points_spent())
    }

    /// The status this army would give its side: variant with any compound piece, else classic.
    #[must_use]
    pub fn status(&self) -> Status {
        status_from_material(self.pieces().map(|(_, r)| r))
    }

    /// Squares where a new piece may be placed now: the empty squares of the rank nearest home
    /// that still has empty squares (within the side's half).
    #[must_use]
    pub fn placeable_squares(&self) -> Bitboard {
        let occ = self.occupied();
        for r in 0..4 {
            let empty = Bitboard::relative_rank(self.color, r) & !occ;
            if empty.any() {
                return empty;
            }
        }
        Bitboard::EMPTY
    }

    /// `true` if the army uses exactly the orthodox array.
    #[must_use]
    pub fn is_orthodox(&self) -> bool {
        *self == Army::orthodox(self.color)
    }

    /// The same army for the other colour, mirrored top to bottom (e1 ↔ e8).
    #[must_use]
    pub fn mirrored(&self) -> Army {
        Army::from_pieces(self.color.other(), self.pieces().map(|(sq, r)| (sq.flip_vertical(), r)))
    }

    /// Every rule the army breaks (empty if valid), most basic first.
    #[must_use]
    pub fn errors(&self) -> Vec<ArmyError> {
        let c = self.color;
        let err =
            |rule, squares: Vec<Square>| ArmyError { color: c, rule, squares, empty: Vec::new() };
        let mut errors = Vec::new();
        let kings: Vec<Square> =
            self.pieces().filter(|(_, r)| *r == Role::King).map(|(s, _)| s).collect();
        if kings != [Square::E1.relative(c)] {
            errors.push(err(ArmyRule::King, kings));
        }
        let spent = self.points_spent();
        if spent != BUDGET {
            errors.push(err(ArmyRule::Budget { spent }, Vec::new()));
        }
        let half = (0..4).fold(Bitboard::EMPTY, |b, r| b | Bitboard::relative_rank(c, r));
        let outside: Vec<Square> = (self.occupied() & !half).collect();
        if !outside.is_empty() {
            errors.push(err(ArmyRule::OwnHalf, outside));
        }
        let occ = self.occupied() & half;
        for r in 0..3u8 {
            let empty = Bitboard::relative_rank(c, r) & !occ;
            let beyond =
                (r + 1..4).fold(Bitboard::EMPTY, |b, rr| b | Bitboard::relative_rank(c, rr)) & occ;
            if empty.any() && beyond.any() {
                let rank = if c.is_white() { r + 1 } else { 8 - r };
                errors.push(ArmyError {
                    color: c,
                    rule: ArmyRule::FillFromHome { rank },
                    squares: beyond.collect(),
                    empty: empty.collect(),
                });
                break;
            }
        }
        let count = self.pieces().filter(|(_, r)| *r != Role::King).count();
        if count > MAX_PIECES {
            errors.push(err(ArmyRule::TooManyPieces { count }, Vec::new()));
        }
        errors
    }

    /// Checks every placement rule.
    ///
    /// # Errors
    /// The first broken rule (see [`Army::errors`] for all).
    pub fn validate(&self) -> Result<(), ArmyError> {
        match self.errors().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A random legal army of `color`: exactly 39 points, placed from home outwards. The
    /// randomness comes only from `rng`, so a seeded generator gives a reproducible army.
    pub fn random(color: Color, rng: &mut impl Rng) -> Army {
        const ROLES: [Role; 8] = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Archbishop,
            Role::Chancellor,
            Role::Queen,
            Role::Maharajah,
        ];
        // min_pieces[p]: fewest pieces that cost exactly p.
        let mut min_pieces = [usize::MAX; BUDGET as usize + 1];
        min_pieces[0] = 0;
        for p in 1..=BUDGET as usize {
            for r in ROLES {
                let c = r.cost() as usize;
                if c <= p && min_pieces[p - c] != usize::MAX {
                    min_pieces[p] = min_pieces[p].min(min_pieces[p - c] + 1);
                }
            }
        }
        let mut left = BUDGET as usize;
        let mut chosen = Vec::new();
        while left > 0 {
            let slots = MAX_PIECES - chosen.len();
            let options: Vec<Role> = ROLES
                .into_iter()
                .filter(|r| {
                    let c = r.cost() as usize;
                    c <= left && min_pieces[left - c] < slots
                })
                .collect();
            if options.is_empty() {
                break; // unreachable: a pawn always fits while points and slots remain
            }
            let role = options[rng.random_range(0..options.len())];
            left -= role.cost() as usize;
            chosen.push(role);
        }
        // Shuffle the pieces, then fill the squares rank by rank from home.
        for i in (1..chosen.len()).rev() {
            let j = rng.random_range(0..=i);
            chosen.swap(i, j);
        }
        let mut army = Army::new(color);
        let mut pending = chosen.into_iter();
        for r in 0..4 {
            let mut free: Vec<Square> =
                (Bitboard::relative_rank(color, r) & !army.occupied()).collect();
            while !free.is_empty() {
                let Some(role) = pending.next() else { return army };
                let i = rng.random_range(0..free.len());
                army.set(free.swap_remove(i), Some(role));
            }
        }
        army
    }
}

impl fmt::Display for Army {
    /// The FEN placement field of a board holding only this army, e.g.
    /// `8/8/8/8/8/8/PPPPPPPP/RNBQKBNR` — the form to send an army over the wire.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            let mut empty = 0u8;
            for file in 0..8u8 {
                match self.board[usize::from(rank * 8 + file)] {
                    Some(role) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", Piece { color: self.color, role }.char())?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

/// Text that is not an army placement (a FEN board field with pieces of one colour).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseArmyError(pub String);

impl fmt::Display for ParseArmyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not an army: {}", self.0)
    }
}

impl std::error::Error for ParseArmyError {}

impl std::str::FromStr for Army {
    type Err = ParseArmyError;
    /// Reads the form written by `Display`. The colour is that of the pieces (all must share
    /// it, and there must be at least one). The army is not validated: see [`Army::validate`].
    fn from_str(s: &str) -> Result<Army, ParseArmyError> {
        let mut pieces = Vec::new();
        let ranks: Vec<&str> = s.split('/').collect();
        if ranks.len() != 8 {
            return Err(ParseArmyError(format!("{} ranks instead of 8", ranks.len())));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d as u8;
                } else {
                    let p = Piece::from_char(c)
                        .ok_or_else(|| ParseArmyError(format!("bad letter {c:?}")))?;
                    let sq = Square::from_coords(file, rank)
                        .ok_or_else(|| ParseArmyError(format!("rank {} too long", rank + 1)))?;
                    pieces.push((sq, p));
                    file += 1;
                }
                if file > 8 {
                    return Err(ParseArmyError(format!("rank {} too long", rank + 1)));
                }
            }
            if file != 8 {
                return Err(ParseArmyError(format!("rank {} has {file} squares", rank + 1)));
            }
        }
        let color = pieces
            .first()
            .map(|(_, p)| p.color)
            .ok_or_else(|| ParseArmyError("no pieces".into()))?;
        if pieces.iter().any(|(_, p)| p.color != color) {
            return Err(ParseArmyError("pieces of both colours".into()));
        }
        Ok(Army::from_pieces(color, pieces.into_iter().map(|(sq, p)| (sq, p.role))))
    }
}

/// Why a custom position may not start (rules/maharajah.md §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// One or both armies break placement rules (every broken rule listed).
    Army(Vec<ArmyError>),
    /// A side's king is attacked at the start.
    InCheck {
        /// The side in check.
        color: Color,
        /// The pieces giving check.
        checkers: Vec<Square>,
    },
    /// White, to move first, has no legal move.
    NoLegalMove,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Army(errors) => {
                let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
                f.write_str(&texts.join("; "))
            }
            StartError::InCheck { color, checkers } => {
                write!(f, "{color}'s king is in check from {}", list(checkers))
            }
            StartError::NoLegalMove => f.write_str("White has no legal move"),
        }
    }
}

impl std::error::Error for StartError {}

/// The start position of a custom game from two armies (White moves first).
///
/// Each side's status comes from its own material; a classic side keeps castling rights for a
/// king on e1/e8 with a rook in a corner. If both armies are orthodox the game uses the standard
/// profile.
///
/// # Errors
/// [`StartError`] naming every broken placement rule, a king in check, or no legal move.
///
/// # Examples
/// ```
/// use maharajah_engine::{start_position, Army, Color, Role, Square, Status, Variant};
/// let mut white = Army::orthodox(Color::White);
/// white.set("d1".parse()?, Some(Role::Chancellor)); // queen (9) -> chancellor (8): 38 points
/// assert_eq!(white.validate().unwrap_err().to_string(), "White spends 38 of 39 points");
/// white.set("a2".parse()?, None);
/// white.set("a1".parse()?, Some(Role::Archbishop)); // rook (5) + pawn (1) -> archbishop (6)
/// white.set("a2".parse()?, Some(Role::Pawn));
/// white.set("b2".parse()?, None);
/// white.set("h1".parse()?, Some(Role::Rook));
/// white.set("b2".parse()?, Some(Role::Pawn));
/// // 39 - 9 + 8 - 5 + 6 = 39 again.
/// assert!(white.validate().is_ok());
/// let pos = start_position(&white, &Army::orthodox(Color::Black))?;
/// assert_eq!(pos.rules().variant, Variant::Maharajah);
/// assert_eq!(pos.rules().side(Color::White).status, Some(Status::Variant));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn start_position(white: &Army, black: &Army) -> Result<Position, StartError> {
    start_position_checked(white, black)
}

/// Checks that `pos` is a legal custom start (rules/maharajah.md §3): both armies as read from its
/// board spend 39 points and obey the placement rules, no king is in check, and White has a legal
/// move. [`Position::from_fen`] applies no start rules to a six-field Maharajah FEN (it is a
/// position, see [`crate::fen`]); call this where a FEN is to begin a game as a start.
///
/// # Errors
/// [`StartError`] as [`start_position`] gives it.
///
/// # Examples
/// ```
/// use maharajah_engine::{army::check_start, Position, Variant};
/// // 41 points for White: a legal position, not a legal start.
/// let pos = Position::from_fen(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBAN w kq - 0 1")?;
/// assert_eq!(check_start(&pos).unwrap_err().to_string(), "White spends 42 of 39 points");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_start(pos: &Position) -> Result<(), StartError> {
    let armies = ByColor::new_with(|color| Army::from_position(pos, color));
    start_position_checked(&armies.white, &armies.black).map(drop)
}

fn start_position_checked(white: &Army, black: &Army) -> Result<Position, StartError> {
    let mut errors = Vec::new();
    for (army, color) in [(white, Color::White), (black, Color::Black)] {
        if army.color != color {
            errors.push(ArmyError {
                color,
                rule: ArmyRule::WrongColor,
                squares: army.occupied().collect(),
                empty: Vec::new(),
            });
        } else {
            errors.extend(army.errors());
        }
    }
    if !errors.is_empty() {
        return Err(StartError::Army(errors));
    }
    // Board text for the FEN.
    let mut board = [None; 64];
    for (army, color) in [(white, Color::White), (black, Color::Black)] {
        for (sq, role) in army.pieces() {
            board[sq.index()] = Some(Piece { color, role });
        }
    }
    let mut text = String::new();
    for rank in (0..8u8).rev() {
        let mut empty = 0u8;
        for file in 0..8u8 {
            match board[usize::from(rank * 8 + file)] {
                Some(p) => {
                    if empty > 0 {
                        text.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    text.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            text.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            text.push('/');
        }
    }
    let mut probe = Position::empty(crate::RuleProfile::maharajah(white.status(), black.status()));
    for (i, p) in board.iter().enumerate() {
        if let Some(p) = p {
            probe.put(*p, Square::new_wrapping(i as u32));
        }
    }
    for color in Color::ALL {
        if let Some(k) = probe.king_of(color) {
            let checkers: Vec<Square> =
                probe.attackers_to(k, color.other(), probe.occupied()).collect();
            if !checkers.is_empty() {
                return Err(StartError::InCheck { color, checkers });
            }
        }
    }
    let pos = Position::from_fen(Variant::Maharajah, &format!("{text} w KQkq - 0 1"))
        .map_err(|_| StartError::InCheck { color: Color::Black, checkers: Vec::new() })?;
    if !pos.has_legal_moves() {
        return Err(StartError::NoLegalMove);
    }
    Ok(pos)
}
