//! Board vocabulary: colours, squares, bitboards, roles and pieces, plus the per-key tables
//! `ByColor` and `ByRole`.

use std::fmt;
use std::ops::{
    BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Index, IndexMut, Not,
};

/// A side: White or Black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first in every supported variant.
    White,
    /// The other side.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `true` for White.
    #[must_use]
    pub const fn is_white(self) -> bool {
        matches!(self, Color::White)
    }

    /// `'w'` or `'b'` as in FEN.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Lower-case English name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `Some(color)` for `'w'` / `'b'`.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Color> {
        match c {
            'w' => Some(Color::White),
            'b' => Some(Color::Black),
            _ => None,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// A value per colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// Builds the table from a function of the colour.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor { white: f(Color::White), black: f(Color::Black) }
    }

    /// The value for `color`.
    #[inline]
    pub const fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The mutable value for `color`.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

/// A square, 0 = a1, 7 = h1, 63 = h8.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// a1.
    pub const A1: Square = Square(0);
    /// b1.
    pub const B1: Square = Square(1);
    /// c1.
    pub const C1: Square = Square(2);
    /// d1.
    pub const D1: Square = Square(3);
    /// e1.
    pub const E1: Square = Square(4);
    /// f1.
    pub const F1: Square = Square(5);
    /// g1.
    pub const G1: Square = Square(6);
    /// h1.
    pub const H1: Square = Square(7);
    /// a8.
    pub const A8: Square = Square(56);
    /// b8.
    pub const B8: Square = Square(57);
    /// c8.
    pub const C8: Square = Square(58);
    /// d8.
    pub const D8: Square = Square(59);
    /// e8.
    pub const E8: Square = Square(60);
    /// f8.
    pub const F8: Square = Square(61);
    /// g8.
    pub const G8: Square = Square(62);
    /// h8.
    pub const H8: Square = Square(63);

    /// The square with index `i` (0..64).
    #[must_use]
    pub const fn new(i: u8) -> Option<Square> {
        if i < 64 {
            Some(Square(i))
        } else {
            None
        }
    }

    /// Index `i & 63`; never fails.
    #[inline]
    #[must_use]
    pub const fn new_wrapping(i: u32) -> Square {
        Square((i & 63) as u8)
    }

    /// The square on file `file` (0 = a) and rank `rank` (0 = rank 1), both 0..8.
    #[must_use]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// Index 0..64.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..8 (0 = a).
    #[inline]
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8 (0 = rank 1).
    #[inline]
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// King moves from here to `other` on an empty board (Chebyshev distance, 0..=7).
    #[must_use]
    pub const fn distance(self, other: Square) -> u8 {
        let files = self.file().abs_diff(other.file());
        let ranks = self.rank().abs_diff(other.rank());
        if files > ranks {
            files
        } else {
            ranks
        }
    }

    /// The square mirrored top to bottom (e1 ↔ e8).
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square seen from `color`'s side: unchanged for White, flipped for Black.
    #[must_use]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_vertical(),
        }
    }

    /// `self + delta` if it stays on the board; `df`, `dr` are file and rank offsets.
    #[must_use]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square((r * 8 + f) as u8))
        } else {
            None
        }
    }

    /// The single-square bitboard.
    #[inline]
    #[must_use]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// Iterates a1, b1, …, h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }

    /// Colour of the square: `true` for light squares (h1 is light).
    #[must_use]
    pub const fn is_light(self) -> bool {
        (self.file() + self.rank()) % 2 == 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Error for a square name that is not `a1`..`h8`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid square name")
    }
}

impl std::error::Error for ParseSquareError {}

impl std::str::FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseSquareError);
        }
        let (f, r) = (b[0].wrapping_sub(b'a'), b[1].wrapping_sub(b'1'));
        Square::from_coords(f, r).ok_or(ParseSquareError)
    }
}

/// A set of squares, bit `i` = square `i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The light squares.
    pub const LIGHT: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);
    /// The dark squares.
    pub const DARK: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    /// The squares of rank `r` (0 = rank 1).
    #[must_use]
    pub const fn rank(r: u8) -> Bitboard {
        Bitboard(0xFF << (8 * (r as u32 & 7)))
    }

    /// The squares of file `f` (0 = a).
    #[must_use]
    pub const fn file(f: u8) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << (f as u32 & 7))
    }

    /// Rank `r` counted from `color`'s side (0 = its home rank).
    #[must_use]
    pub const fn relative_rank(color: Color, r: u8) -> Bitboard {
        match color {
            Color::White => Bitboard::rank(r),
            Color::Black => Bitboard::rank(7 - r),
        }
    }

    /// `true` if no square is set.
    #[inline]
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` if at least one square is set.
    #[inline]
    #[must_use]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// `true` if `sq` is in the set.
    #[inline]
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.0 & 1 != 0
    }

    /// Number of squares.
    #[inline]
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// `true` if more than one square is set.
    #[inline]
    #[must_use]
    pub const fn has_more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    #[must_use]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square(self.0.trailing_zeros() as u8))
        }
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.0)
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.0))
    }

    /// Adds `sq`.
    #[inline]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq.0;
    }

    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.0);
    }

    /// The set shifted one rank towards `color`'s opponent (White: up).
    #[inline]
    #[must_use]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// The set mirrored top to bottom.
    #[must_use]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.add(sq);
        }
        bb
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// A kind of piece. The last three are the Maharajah compound pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
    /// Archbishop: bishop + knight (`A`).
    Archbishop = 6,
    /// Chancellor: rook + knight (`C`).
    Chancellor = 7,
    /// Maharajah: queen + knight (`M`; Fairy-Stockfish's "amazon").
    Maharajah = 8,
}

/// How a role moves: the movement atoms it is the union of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Atoms {
    /// Leaps like a knight.
    pub knight: bool,
    /// Steps one square in any direction (the king's move).
    pub king: bool,
    /// Slides diagonally (the bishop's move).
    pub diagonal: bool,
    /// Slides along ranks and files (the rook's move).
    pub orthogonal: bool,
}

impl Role {
    /// All roles in index order.
    pub const ALL: [Role; 9] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Archbishop,
        Role::Chancellor,
        Role::Maharajah,
    ];

    /// Index 0..9.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Upper-case letter used in FEN (White) and SAN: `P N B R Q K A C M`.
    #[must_use]
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
            Role::Archbishop => 'A',
            Role::Chancellor => 'C',
            Role::Maharajah => 'M',
        }
    }

    /// Lower-case letter used in UCI promotions and for Black in FEN.
    #[must_use]
    pub const fn char(self) -> char {
        self.upper_char().to_ascii_lowercase()
    }

    /// The role for a letter of either case.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'P' => Role::Pawn,
            'N' => Role::Knight,
            'B' => Role::Bishop,
            'R' => Role::Rook,
            'Q' => Role::Queen,
            'K' => Role::King,
            'A' => Role::Archbishop,
            'C' => Role::Chancellor,
            'M' => Role::Maharajah,
            _ => return None,
        })
    }

    /// The movement atoms of this role (pawns are handled by their own rules and have none).
    #[must_use]
    pub const fn atoms(self) -> Atoms {
        let (knight, king, diagonal, orthogonal) = match self {
            Role::Pawn => (false, false, false, false),
            Role::Knight => (true, false, false, false),
            Role::Bishop => (false, false, true, false),
            Role::Rook => (false, false, false, true),
            Role::Queen => (false, false, true, true),
            Role::King => (false, true, false, false),
            Role::Archbishop => (true, false, true, false),
            Role::Chancellor => (true, false, false, true),
            Role::Maharajah => (true, false, true, true),
        };
        Atoms { knight, king, diagonal, orthogonal }
    }

    /// Army-builder cost (king: 0, it is free and mandatory).
    #[must_use]
    pub const fn cost(self) -> u32 {
        match self {
            Role::Pawn => 1,
            Role::Knight | Role::Bishop => 3,
            Role::Rook => 5,
            Role::Archbishop => 6,
            Role::Chancellor => 8,
            Role::Queen => 9,
            Role::Maharajah => 13,
            Role::King => 0,
        }
    }

    /// `true` for the Maharajah compound pieces (A, C, M).
    #[must_use]
    pub const fn is_compound(self) -> bool {
        matches!(self, Role::Archbishop | Role::Chancellor | Role::Maharajah)
    }

    /// English name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Archbishop => "archbishop",
            Role::Chancellor => "chancellor",
            Role::Maharajah => "maharajah",
        }
    }
}

/// A value per role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByRole<T>(pub [T; 9]);

impl<T> Index<Role> for ByRole<T> {
    type Output = T;
    #[inline]
    fn index(&self, role: Role) -> &T {
        &self.0[role.index()]
    }
}

impl<T> IndexMut<Role> for ByRole<T> {
    #[inline]
    fn index_mut(&mut self, role: Role) -> &mut T {
        &mut self.0[role.index()]
    }
}

/// A set of roles (e.g. the roles a side may promote to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RoleSet(u16);

impl RoleSet {
    /// The empty set.
    pub const EMPTY: RoleSet = RoleSet(0);
    /// Queen, rook, bishop, knight: the orthodox promotion set.
    pub const ORTHODOX_PROMOTIONS: RoleSet =
        RoleSet::from_slice(&[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);
    /// The orthodox set plus Maharajah, chancellor and archbishop.
    pub const VARIANT_PROMOTIONS: RoleSet = RoleSet::from_slice(&[
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Maharajah,
        Role::Chancellor,
        Role::Archbishop,
    ]);

    /// The set of the given roles.
    #[must_use]
    pub const fn from_slice(roles: &[Role]) -> RoleSet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < roles.len() {
            bits |= 1 << roles[i] as u16;
            i += 1;
        }
        RoleSet(bits)
    }

    /// `true` if `role` is in the set.
    #[must_use]
    pub const fn contains(self, role: Role) -> bool {
        self.0 >> role as u16 & 1 != 0
    }

    /// Number of roles.
    #[must_use]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// `true` if empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The roles in a fixed display order: Q, R, B, N, M, C, A.
    pub fn iter(self) -> impl Iterator<Item = Role> {
        const ORDER: [Role; 9] = [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Maharajah,
            Role::Chancellor,
            Role::Archbishop,
            Role::King,
            Role::Pawn,
        ];
        ORDER.into_iter().filter(move |r| self.contains(*r))
    }
}

/// A coloured piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub role: Role,
}

impl Piece {
    /// FEN letter: upper case for White.
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece for a FEN letter.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => Some(Piece {
                color: if c.is_ascii_uppercase() { Color::White } else { Color::Black },
                role,
            }),
            None => None,
        }
    }
}
