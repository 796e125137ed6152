//! Piece-square tables: a middlegame and an endgame bonus for each role on each square, hand-set
//! in the spirit of the well-known public tables (centralise knights, keep bishops off the rim,
//! rooks to the centre files and the seventh, the king castled in the middlegame and central in
//! the endgame), with this crate's own numbers. They add to the mobility, centralisation and
//! king-placement terms of the evaluation, so they are kept smaller than stand-alone tables.
//!
//! The compound pieces get the shapes of their atoms: the Maharajah the queen's, the chancellor
//! the mean of the rook's and the knight's, the archbishop the mean of the bishop's and the
//! knight's.

/// A middlegame/endgame bonus per square, indexed by the square *as seen from the owner's side*
/// ([`Square::relative`](crate::Square::relative)): index 0 is a1 for White and a8 for Black.
pub type Table = [(i32, i32); 64];

/// One [`Table`] per role (index = [`Role::index`](crate::Role::index)).
pub type Pst = [Table; 9];

/// A table from two grids written as the board is drawn, the eighth rank first.
const fn table(mg: [[i32; 8]; 8], eg: [[i32; 8]; 8]) -> Table {
    let mut t = [(0, 0); 64];
    let mut row = 0;
    while row < 8 {
        let mut file = 0;
        while file < 8 {
            t[(7 - row) * 8 + file] = (mg[row][file], eg[row][file]);
            file += 1;
        }
        row += 1;
    }
    t
}

/// The mean of two tables, square by square.
const fn mean(a: &Table, b: &Table) -> Table {
    let mut t = [(0, 0); 64];
    let mut i = 0;
    while i < 64 {
        t[i] = ((a[i].0 + b[i].0) / 2, (a[i].1 + b[i].1) / 2);
        i += 1;
    }
    t
}

const PAWN: Table = table(
    [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [15, 15, 15, 20, 20, 15, 15, 15],
        [5, 5, 10, 20, 20, 10, 5, 5],
        [0, 0, 5, 15, 15, 5, 0, 0],
        [0, 0, 5, 12, 12, 0, -5, -5],
        [0, 0, 5, 5, 5, -5, -5, 0],
        [0, 0, 0, -10, -10, 5, 5, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
    ],
    [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [25, 25, 20, 20, 20, 20, 25, 25],
        [15, 15, 10, 10, 10, 10, 15, 15],
        [8, 8, 5, 5, 5, 5, 8, 8],
        [3, 3, 0, 0, 0, 0, 3, 3],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
    ],
);

const KNIGHT: Table = table(
    [
        [-50, -20, -10, -10, -10, -10, -20, -50],
        [-20, -5, 5, 10, 10, 5, -5, -20],
        [-10, 10, 15, 20, 20, 15, 10, -10],
        [-5, 10, 15, 20, 20, 15, 10, -5],
        [-5, 5, 10, 15, 15, 10, 5, -5],
        [-10, 5, 10, 10, 10, 10, 5, -10],
        [-20, -10, 0, 5, 5, 0, -10, -20],
        [-40, -15, -10, -10, -10, -10, -15, -40],
    ],
    [
        [-30, -20, -15, -15, -15, -15, -20, -30],
        [-20, -5, 0, 0, 0, 0, -5, -20],
        [-15, 0, 5, 10, 10, 5, 0, -15],
        [-15, 0, 10, 10, 10, 10, 0, -15],
        [-15, 0, 10, 10, 10, 10, 0, -15],
        [-15, 0, 5, 5, 5, 5, 0, -15],
        [-20, -5, 0, 0, 0, 0, -5, -20],
        [-30, -20, -15, -15, -15, -15, -20, -30],
    ],
);

const BISHOP: Table = table(
    [
        [-15, -10, -10, -10, -10, -10, -10, -15],
        [-10, 0, 0, 0, 0, 0, 0, -10],
        [-5, 5, 5, 10, 10, 5, 5, -5],
        [-5, 5, 10, 10, 10, 10, 5, -5],
        [-5, 5, 10, 10, 10, 10, 5, -5],
        [-5, 5, 5, 5, 5, 5, 5, -5],
        [-5, 10, 5, 5, 5, 5, 10, -5],
        [-15, -5, -10, -5, -5, -10, -5, -15],
    ],
    [
        [-15, -10, -8, -8, -8, -8, -10, -15],
        [-10, -3, 0, 0, 0, 0, -3, -10],
        [-8, 0, 5, 5, 5, 5, 0, -8],
        [-8, 0, 5, 8, 8, 5, 0, -8],
        [-8, 0, 5, 8, 8, 5, 0, -8],
        [-8, 0, 5, 5, 5, 5, 0, -8],
        [-10, -3, 0, 0, 0, 0, -3, -10],
        [-15, -10, -8, -8, -8, -8, -10, -15],
    ],
);

const ROOK: Table = table(
    [
        [0, 0, 0, 5, 5, 0, 0, 0],
        [5, 5, 5, 5, 5, 5, 5, 5],
        [-5, 0, 0, 0, 0, 0, 0, -5],
        [-5, 0, 0, 0, 0, 0, 0, -5],
        [-5, 0, 0, 0, 0, 0, 0, -5],
        [-5, 0, 0, 0, 0, 0, 0, -5],
        [-5, 0, 0, 0, 0, 0, 0, -5],
        [-5, 0, 5, 10, 10, 5, 0, -5],
    ],
    [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [5, 5, 5, 5, 5, 5, 5, 5],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [-3, 0, 0, 0, 0, 0, 0, -3],
    ],
);

const QUEEN: Table = table(
    [
        [-15, -10, -5, -5, -5, -5, -10, -15],
        [-10, 0, 0, 0, 0, 0, 0, -10],
        [-5, 0, 5, 5, 5, 5, 0, -5],
        [-5, 0, 5, 5, 5, 5, 0, -5],
        [-5, 0, 5, 5, 5, 5, 0, -5],
        [-5, 5, 5, 5, 5, 5, 0, -5],
        [-10, 0, 5, 0, 0, 0, 0, -10],
        [-15, -10, -5, 0, -5, -10, -10, -15],
    ],
    [
        [-20, -10, -10, -5, -5, -10, -10, -20],
        [-10, 0, 5, 5, 5, 5, 0, -10],
        [-10, 5, 10, 10, 10, 10, 5, -10],
        [-5, 5, 10, 15, 15, 10, 5, -5],
        [-5, 5, 10, 15, 15, 10, 5, -5],
        [-10, 5, 10, 10, 10, 10, 5, -10],
        [-10, 0, 5, 5, 5, 5, 0, -10],
        [-20, -10, -10, -5, -5, -10, -10, -20],
    ],
);

const KING: Table = table(
    [
        [-50, -50, -50, -60, -60, -50, -50, -50],
        [-40, -40, -40, -50, -50, -40, -40, -40],
        [-40, -40, -40, -50, -50, -40, -40, -40],
        [-30, -40, -40, -50, -50, -40, -40, -30],
        [-20, -30, -30, -40, -40, -30, -30, -20],
        [-10, -20, -20, -20, -20, -20, -20, -10],
        [10, 10, -5, -10, -10, -5, 10, 10],
        [15, 25, 10, -5, 0, -5, 25, 15],
    ],
    [
        [-40, -25, -15, -10, -10, -15, -25, -40],
        [-20, -5, 0, 5, 5, 0, -5, -20],
        [-15, 5, 15, 20, 20, 15, 5, -15],
        [-15, 5, 20, 25, 25, 20, 5, -15],
        [-15, 5, 20, 25, 25, 20, 5, -15],
        [-15, 0, 10, 15, 15, 10, 0, -15],
        [-25, -10, 0, 0, 0, 0, -10, -25],
        [-45, -30, -20, -15, -15, -20, -30, -45],
    ],
);

/// The tables the engine plays with.
pub const PST: Pst =
    [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, mean(&BISHOP, &KNIGHT), mean(&ROOK, &KNIGHT), QUEEN];
