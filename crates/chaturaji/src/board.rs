//! Squares, pieces, the 8×8 board, the starting army of each seat and how each piece moves.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::seat::{BySeat, Seat};

/// A square of the board, seen from Red: `a1` bottom-left, `h8` top-right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from a file (0 = a) and a rank (0 = rank 1); `None` when off the board.
    #[must_use]
    pub const fn new(file: i8, rank: i8) -> Option<Square> {
        if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
            Some(Square((rank * 8 + file) as u8))
        } else {
            None
        }
    }

    /// Builds a square from its index `rank * 8 + file`; `None` when 64 or more.
    #[must_use]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The index `rank * 8 + file`, 0..64.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 (a) to 7 (h).
    #[must_use]
    pub const fn file(self) -> i8 {
        (self.0 % 8) as i8
    }

    /// The rank, 0 (rank 1) to 7 (rank 8).
    #[must_use]
    pub const fn rank(self) -> i8 {
        (self.0 / 8) as i8
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    #[must_use]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// All 64 squares, a1, b1, … h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank() + 1)
    }
}

/// Text that does not name a square (`a1` … `h8`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {0:?} (expected a1 … h8)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseSquareError(s.to_owned());
        let bytes = s.as_bytes();
        if bytes.len() != 2 {
            return Err(err());
        }
        let file = bytes[0].to_ascii_lowercase().wrapping_sub(b'a') as i8;
        let rank = bytes[1].wrapping_sub(b'1') as i8;
        Square::new(file, rank).ok_or_else(err)
    }
}

impl Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The kind of a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// One step forward, captures one step diagonally forward.
    Pawn,
    /// Jumps exactly two squares diagonally.
    Boat,
    /// The knight's L-jump.
    Horse,
    /// Slides any distance orthogonally (a rook).
    Elephant,
    /// One step in any of the eight directions; may be captured.
    King,
}

impl Role {
    /// All roles, from pawn to king.
    pub const ALL: [Role; 5] = [Role::Pawn, Role::Boat, Role::Horse, Role::Elephant, Role::King];

    /// Points for capturing this piece: pawn 1, boat 2, horse 3, elephant 4, king 5.
    #[must_use]
    pub const fn value(self) -> u32 {
        match self {
            Role::Pawn => 1,
            Role::Boat => 2,
            Role::Horse => 3,
            Role::Elephant => 4,
            Role::King => 5,
        }
    }

    /// The lowercase name used in records and messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Boat => "boat",
            Role::Horse => "horse",
            Role::Elephant => "elephant",
            Role::King => "king",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: its seat and its role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Piece {
    /// The owner.
    pub seat: Seat,
    /// The kind.
    pub role: Role,
}

/// The direction a seat's pawns move in, as `(files, ranks)`: Red north, Blue east, Yellow south,
/// Green west.
#[must_use]
pub const fn pawn_direction(seat: Seat) -> (i8, i8) {
    match seat {
        Seat::Red => (0, 1),
        Seat::Blue => (1, 0),
        Seat::Yellow => (0, -1),
        Seat::Green => (-1, 0),
    }
}

/// Whether `square` is on the far edge `seat`'s pawns move toward.
#[must_use]
pub const fn is_far_edge(seat: Seat, square: Square) -> bool {
    match seat {
        Seat::Red => square.rank() == 7,
        Seat::Blue => square.file() == 7,
        Seat::Yellow => square.rank() == 0,
        Seat::Green => square.file() == 0,
    }
}

/// The marks along every edge, from one corner to the other.
const EDGE_MARKS: [Role; 8] = [
    Role::Boat,
    Role::Horse,
    Role::Elephant,
    Role::King,
    Role::King,
    Role::Elephant,
    Role::Horse,
    Role::Boat,
];

/// The promotion type marked on `square` for `seat`'s pawns, if it is on their far edge.
#[must_use]
pub const fn promotion_mark(seat: Seat, square: Square) -> Option<Role> {
    if !is_far_edge(seat, square) {
        return None;
    }
    let along = match seat {
        Seat::Red | Seat::Yellow => square.file(),
        Seat::Blue | Seat::Green => square.rank(),
    };
    Some(EDGE_MARKS[along as usize])
}

/// Parses a square in a `const` table; the tables below are checked by unit tests.
const fn sq(file: i8, rank: i8) -> Square {
    Square((rank * 8 + file) as u8)
}

/// The starting square of each seat's king (its throne).
#[must_use]
pub const fn throne(seat: Seat) -> Square {
    match seat {
        Seat::Red => sq(3, 0),    // d1
        Seat::Blue => sq(0, 4),   // a5
        Seat::Yellow => sq(4, 7), // e8
        Seat::Green => sq(7, 3),  // h4
    }
}

/// The starting army of `seat`: boat, horse, elephant, king, then the four pawns.
#[must_use]
pub const fn starting_army(seat: Seat) -> [(Square, Role); 8] {
    use Role::*;
    match seat {
        Seat::Red => [
            (sq(0, 0), Boat),
            (sq(1, 0), Horse),
            (sq(2, 0), Elephant),
            (sq(3, 0), King),
            (sq(0, 1), Pawn),
            (sq(1, 1), Pawn),
            (sq(2, 1), Pawn),
            (sq(3, 1), Pawn),
        ],
        Seat::Blue => [
            (sq(0, 7), Boat),
            (sq(0, 6), Horse),
            (sq(0, 5), Elephant),
            (sq(0, 4), King),
            (sq(1, 7), Pawn),
            (sq(1, 6), Pawn),
            (sq(1, 5), Pawn),
            (sq(1, 4), Pawn),
        ],
        Seat::Yellow => [
            (sq(7, 7), Boat),
            (sq(6, 7), Horse),
            (sq(5, 7), Elephant),
            (sq(4, 7), King),
            (sq(7, 6), Pawn),
            (sq(6, 6), Pawn),
            (sq(5, 6), Pawn),
            (sq(4, 6), Pawn),
        ],
        Seat::Green => [
            (sq(7, 0), Boat),
            (sq(7, 1), Horse),
            (sq(7, 2), Elephant),
            (sq(7, 3), King),
            (sq(6, 0), Pawn),
            (sq(6, 1), Pawn),
            (sq(6, 2), Pawn),
            (sq(6, 3), Pawn),
        ],
    }
}

const KING_STEPS: [(i8, i8); 8] =
    [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const HORSE_JUMPS: [(i8, i8); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const BOAT_JUMPS: [(i8, i8); 4] = [(2, 2), (2, -2), (-2, -2), (-2, 2)];
const ELEPHANT_RAYS: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// The 64 squares and what stands on them.
///
/// Serialised as a map from square to piece, listing occupied squares only.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "BTreeMap<Square, Piece>", from = "BTreeMap<Square, Piece>")]
pub struct Board {
    squares: [Option<Piece>; 64],
}

impl Default for Board {
    /// The starting position of all four armies.
    fn default() -> Self {
        Board::start()
    }
}

impl Board {
    /// A board with no pieces.
    #[must_use]
    pub const fn empty() -> Board {
        Board { squares: [None; 64] }
    }

    /// The starting position: all four armies on their squares.
    #[must_use]
    pub fn start() -> Board {
        let mut board = Board::empty();
        for seat in Seat::ALL {
            for (square, role) in starting_army(seat) {
                board.set(square, Some(Piece { seat, role }));
            }
        }
        board
    }

    /// What stands on `square`.
    #[must_use]
    pub fn get(&self, square: Square) -> Option<Piece> {
        self.squares[square.index()]
    }

    /// Puts `piece` on `square` (or empties it), returning what stood there.
    pub fn set(&mut self, square: Square, piece: Option<Piece>) -> Option<Piece> {
        std::mem::replace(&mut self.squares[square.index()], piece)
    }

    /// Every occupied square with its piece, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.get(sq).map(|p| (sq, p)))
    }

    /// The pieces of one seat.
    pub fn pieces_of(&self, seat: Seat) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.pieces().filter(move |(_, p)| p.seat == seat)
    }

    /// Whether `seat` has a piece of `role` on the board.
    #[must_use]
    pub fn has_role(&self, seat: Seat, role: Role) -> bool {
        self.squares.iter().flatten().any(|p| p.seat == seat && p.role == role)
    }

    /// Whether `seat` has a king on the board.
    #[must_use]
    pub fn has_king(&self, seat: Seat) -> bool {
        self.has_role(seat, Role::King)
    }

    /// The number of seats that have a king on the board.
    #[must_use]
    pub fn kings_on_board(&self) -> usize {
        Seat::ALL.into_iter().filter(|&s| self.has_king(s)).count()
    }

    /// The capture value of the pieces each seat has on the board.
    #[must_use]
    pub fn material(&self) -> BySeat<u32> {
        let mut total = BySeat::<u32>::default();
        for p in self.squares.iter().flatten() {
            total[p.seat] += p.role.value();
        }
        total
    }

    /// Calls `f` with every square the piece on `from` may move to (empty or holding another
    /// seat's piece), following its role's movement. Does nothing if `from` is empty.
    pub fn for_each_target(&self, from: Square, mut f: impl FnMut(Square)) {
        let Some(piece) = self.get(from) else { return };
        let free = |to: Square| self.get(to).map_or(true, |p| p.seat != piece.seat);
        match piece.role {
            Role::Pawn => {
                let (df, dr) = pawn_direction(piece.seat);
                if let Some(to) = from.offset(df, dr) {
                    if self.get(to).is_none() {
                        f(to);
                    }
                }
                // The two diagonal-forward squares: forward plus one step to either side.
                let sides = if df == 0 { [(1, 0), (-1, 0)] } else { [(0, 1), (0, -1)] };
                for (sf, sr) in sides {
                    if let Some(to) = from.offset(df + sf, dr + sr) {
                        if self.get(to).is_some_and(|p| p.seat != piece.seat) {
                            f(to);
                        }
                    }
                }
            }
            Role::King => Self::leaps(from, &KING_STEPS, free, f),
            Role::Horse => Self::leaps(from, &HORSE_JUMPS, free, f),
            Role::Boat => Self::leaps(from, &BOAT_JUMPS, free, f),
            Role::Elephant => {
                for (df, dr) in ELEPHANT_RAYS {
                    let mut at = from;
                    while let Some(to) = at.offset(df, dr) {
                        match self.get(to) {
                            None => f(to),
                            Some(p) => {
                                if p.seat != piece.seat {
                                    f(to);
                                }
                                break;
                            }
                        }
                        at = to;
                    }
                }
            }
        }
    }

    fn leaps(
        from: Square,
        jumps: &[(i8, i8)],
        free: impl Fn(Square) -> bool,
        mut f: impl FnMut(Square),
    ) {
        for &(df, dr) in jumps {
            if let Some(to) = from.offset(df, dr) {
                if free(to) {
                    f(to);
                }
            }
        }
    }

    /// The squares the piece on `from` may move to, in a fixed order.
    #[must_use]
    pub fn targets(&self, from: Square) -> Vec<Square> {
        let mut out = Vec::new();
        self.for_each_target(from, |to| out.push(to));
        out
    }
}

impl From<Board> for BTreeMap<Square, Piece> {
    fn from(board: Board) -> Self {
        board.pieces().collect()
    }
}

impl From<BTreeMap<Square, Piece>> for Board {
    fn from(map: BTreeMap<Square, Piece>) -> Self {
        let mut board = Board::empty();
        for (square, piece) in map {
            board.set(square, Some(piece));
        }
        board
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for Board {
    /// Eight lines from rank 8 down to rank 1; a piece is its role's letter (P, B, H, E, K)
    /// followed by its seat's letter (r, b, y, g); an empty square is `..`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                let square = sq(file, rank);
                match self.get(square) {
                    None => f.write_str(" ..")?,
                    Some(p) => {
                        let role = match p.role {
                            Role::Pawn => 'P',
                            Role::Boat => 'B',
                            Role::Horse => 'H',
                            Role::Elephant => 'E',
                            Role::King => 'K',
                        };
                        let seat = p.seat.name().as_bytes()[0] as char;
                        write!(f, " {role}{seat}")?;
                    }
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Square {
        text.parse().expect("test square")
    }

    #[test]
    fn square_text_round_trips() {
        for square in Square::all() {
            assert_eq!(square.to_string().parse::<Square>(), Ok(square));
        }
        assert_eq!(s("a1").index(), 0);
        assert_eq!(s("h8").index(), 63);
        for bad in ["", "a", "a9", "i1", "a0", "a10", "11"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn starting_squares_match_the_spec() {
        let board = Board::start();
        let expect =
            |seat: Seat, boat: &str, horse: &str, elephant: &str, king: &str, pawns: [&str; 4]| {
                assert_eq!(board.get(s(boat)), Some(Piece { seat, role: Role::Boat }));
                assert_eq!(board.get(s(horse)), Some(Piece { seat, role: Role::Horse }));
                assert_eq!(board.get(s(elephant)), Some(Piece { seat, role: Role::Elephant }));
                assert_eq!(board.get(s(king)), Some(Piece { seat, role: Role::King }));
                assert_eq!(throne(seat), s(king));
                for p in pawns {
                    assert_eq!(board.get(s(p)), Some(Piece { seat, role: Role::Pawn }));
                }
            };
        expect(Seat::Red, "a1", "b1", "c1", "d1", ["a2", "b2", "c2", "d2"]);
        expect(Seat::Blue, "a8", "a7", "a6", "a5", ["b8", "b7", "b6", "b5"]);
        expect(Seat::Yellow, "h8", "g8", "f8", "e8", ["h7", "g7", "f7", "e7"]);
        expect(Seat::Green, "h1", "h2", "h3", "h4", ["g1", "g2", "g3", "g4"]);
        assert_eq!(board.pieces().count(), 32);
    }

    #[test]
    fn promotion_marks_follow_the_edge_pattern() {
        let row = ["boat", "horse", "elephant", "king", "king", "elephant", "horse", "boat"];
        for (i, name) in row.iter().enumerate() {
            let i = i as i8;
            let mark = |seat, sq: Option<Square>| {
                promotion_mark(seat, sq.expect("on board")).map(|r| r.name())
            };
            assert_eq!(mark(Seat::Red, Square::new(i, 7)), Some(*name));
            assert_eq!(mark(Seat::Yellow, Square::new(i, 0)), Some(*name));
            assert_eq!(mark(Seat::Blue, Square::new(7, i)), Some(*name));
            assert_eq!(mark(Seat::Green, Square::new(0, i)), Some(*name));
        }
        assert_eq!(promotion_mark(Seat::Red, s("a1")), None);
        assert_eq!(promotion_mark(Seat::Red, s("d8")), Some(Role::King));
    }

    #[test]
    fn pieces_move_as_the_spec_says() {
        let mut board = Board::empty();
        let put = |b: &mut Board, sq: &str, seat, role| b.set(s(sq), Some(Piece { seat, role }));
        put(&mut board, "d4", Seat::Red, Role::Boat);
        put(&mut board, "c3", Seat::Blue, Role::Pawn); // jumped over
        put(&mut board, "b2", Seat::Red, Role::Pawn); // own piece blocks
        let mut boat = board.targets(s("d4"));
        boat.sort();
        assert_eq!(boat, vec![s("f2"), s("b6"), s("f6")]);

        let mut board = Board::empty();
        put(&mut board, "d4", Seat::Green, Role::Elephant);
        put(&mut board, "d6", Seat::Red, Role::Pawn);
        put(&mut board, "f4", Seat::Green, Role::Pawn);
        let targets: std::collections::BTreeSet<String> =
            board.targets(s("d4")).iter().map(|t| t.to_string()).collect();
        let expected: std::collections::BTreeSet<String> =
            ["d5", "d6", "d3", "d2", "d1", "c4", "b4", "a4", "e4"]
                .iter()
                .map(|t| t.to_string())
                .collect();
        assert_eq!(targets, expected);

        let mut board = Board::empty();
        put(&mut board, "a1", Seat::Red, Role::Horse);
        let horse: std::collections::BTreeSet<Square> =
            board.targets(s("a1")).into_iter().collect();
        assert_eq!(horse, [s("b3"), s("c2")].into_iter().collect());

        let mut board = Board::empty();
        put(&mut board, "e5", Seat::Yellow, Role::King);
        assert_eq!(board.targets(s("e5")).len(), 8);
    }

    #[test]
    fn pawns_move_forward_for_their_seat_and_capture_diagonally() {
        let cases = [
            (Seat::Red, "d4", "d5", ["c5", "e5"]),
            (Seat::Blue, "d4", "e4", ["e5", "e3"]),
            (Seat::Yellow, "d4", "d3", ["c3", "e3"]),
            (Seat::Green, "d4", "c4", ["c5", "c3"]),
        ];
        for (seat, from, ahead, diagonals) in cases {
            let mut board = Board::empty();
            board.set(s(from), Some(Piece { seat, role: Role::Pawn }));
            assert_eq!(board.targets(s(from)), vec![s(ahead)], "{seat} pawn, empty board");
            let enemy = Piece { seat: seat.next(), role: Role::Horse };
            let own = Piece { seat, role: Role::Horse };
            board.set(s(diagonals[0]), Some(enemy));
            board.set(s(diagonals[1]), Some(own));
            board.set(s(ahead), Some(enemy));
            assert_eq!(
                board.targets(s(from)),
                vec![s(diagonals[0])],
                "{seat} pawn captures diagonally only"
            );
        }
    }

    #[test]
    fn board_serialises_as_a_square_map() {
        let board = Board::start();
        let json = serde_json::to_string(&board).expect("serialises");
        assert!(json.contains(r#""a1":{"seat":"red","role":"boat"}"#), "{json}");
        let back: Board = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, board);
    }
}
