//! Upcoming repetitions: whether the side to move has a move straight back to a position of
//! the line, seen in one probe per earlier position, before any move is made. This is the
//! method Stockfish's `upcoming_repetition` uses (Marcel van Kervinck's cuckoo table).
//!
//! Two positions that differ by one reversible move differ in their keys by exactly that move's
//! key: the piece's keys on both squares and the side to move. The table holds the key of every
//! move a piece other than a pawn can make on an empty board, for both colours and every role
//! of every variant, compound pieces included. Pawn moves, captures and castling are never
//! reversible, and a changed castling right or en-passant square makes the keys differ by more
//! than one move, so those never match.

use std::sync::OnceLock;

use crate::attacks::between;
use crate::position::Position;
use crate::types::{Bitboard, Color, Role, Square};
use crate::zobrist;

/// Slots in the table: more than twice the moves it holds, so every insertion finds a place.
const SIZE: usize = 1 << 14;

/// The keys and the two squares of each move (in index order), by slot.
struct Cuckoo {
    keys: Vec<u64>,
    squares: Vec<(Square, Square)>,
    /// How many moves it holds.
    len: usize,
}

const fn first(key: u64) -> usize {
    (key as usize) & (SIZE - 1)
}

const fn second(key: u64) -> usize {
    ((key >> 16) as usize) & (SIZE - 1)
}

fn table() -> &'static Cuckoo {
    static TABLE: OnceLock<Cuckoo> = OnceLock::new();
    TABLE.get_or_init(build)
}

fn build() -> Cuckoo {
    let mut t =
        Cuckoo { keys: vec![0; SIZE], squares: vec![(Square::A1, Square::A1); SIZE], len: 0 };
    for_each_reversible_move(|key, squares| insert(&mut t, key, squares));
    t
}

/// Every move of a piece other than a pawn on an empty board, once per pair of squares (the
/// lower square first), with its key.
fn for_each_reversible_move(mut f: impl FnMut(u64, (Square, Square))) {
    for color in [Color::White, Color::Black] {
        for role in Role::ALL.into_iter().filter(|&r| r != Role::Pawn) {
            for a in Square::all() {
                let reach = Position::attacks_of(color, role, a, Bitboard::EMPTY);
                for b in reach.filter(|b| b.index() > a.index()) {
                    let key = zobrist::piece(color as usize, role.index(), a.index())
                        ^ zobrist::piece(color as usize, role.index(), b.index())
                        ^ zobrist::black_to_move();
                    f(key, (a, b));
                }
            }
        }
    }
}

/// The two squares of the move whose key is `key`, if it is one.
fn lookup(t: &Cuckoo, key: u64) -> Option<(Square, Square)> {
    [first(key), second(key)]
        .into_iter()
        .find(|&slot| t.keys[slot] == key)
        .map(|slot| t.squares[slot])
}

/// Puts a move in its first slot, moving what was there to that one's other slot, and so on.
fn insert(t: &mut Cuckoo, mut key: u64, mut squares: (Square, Square)) {
    let mut slot = first(key);
    for _ in 0..SIZE {
        std::mem::swap(&mut t.keys[slot], &mut key);
        std::mem::swap(&mut t.squares[slot], &mut squares);
        if key == 0 {
            t.len += 1;
            return;
        }
        slot = if slot == first(key) { second(key) } else { first(key) };
    }
    unreachable!("the cuckoo table is large enough for every reversible move");
}

/// Whether the side to move in `pos` has a reversible move to a position of `line` (the keys of
/// the positions so far, `pos`'s last) at most `reach` plies back: the halfmove clock, bounded
/// by the last null move. The move's path must be clear and its piece the mover's; whether it
/// would leave the king in check is not asked.
pub(crate) fn upcoming_repetition(pos: &Position, line: &[u64], reach: usize) -> bool {
    let Some(last) = line.len().checked_sub(1) else {
        return false;
    };
    let end = reach.min(last);
    if end < 3 {
        return false;
    }
    let t = table();
    let key = line[last];
    let occupied = pos.occupied();
    (3..=end).step_by(2).any(|back| {
        let Some((a, b)) = lookup(t, key ^ line[last - back]) else {
            return false;
        };
        // The piece stands on one of the two squares, now; the other is empty.
        let from = if occupied.contains(a) { a } else { b };
        (between(a, b) & occupied).is_empty()
            && pos.piece_at(from).is_some_and(|p| p.color == pos.turn())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn the_table_holds_every_reversible_move_once_under_its_own_key() {
        // On an empty board, per colour: knight 168, bishop 280, rook 448, queen 728, king 210,
        // archbishop 448, chancellor 616, maharajah 896 (slides plus leaps).
        assert_eq!(table().len, 2 * (168 + 280 + 448 + 728 + 210 + 448 + 616 + 896));
        // Each is found again by its key, with its own squares (no two moves share a key).
        for_each_reversible_move(|key, squares| assert_eq!(lookup(table(), key), Some(squares)));
        assert_eq!(lookup(table(), zobrist::black_to_move()), None, "no move at all");
    }

    /// The position after `moves` (UCI) from `fen`, and the keys of the line: the start's, then
    /// one after each move.
    fn line(fen: &str, moves: &[&str]) -> (Position, Vec<u64>) {
        let mut pos = Position::from_fen(Variant::Maharajah, fen).expect("a valid FEN");
        let mut keys = vec![pos.hash()];
        for &text in moves {
            let mv = *pos.legal_moves().iter().find(|m| m.to_string() == text).expect(text);
            pos = pos.play(mv).expect("a legal move");
            keys.push(pos.hash());
        }
        (pos, keys)
    }

    #[test]
    fn a_move_back_to_a_position_of_the_line_is_seen() {
        let start = "4k3/8/8/8/8/8/8/M3K3 w - - 0 1";
        // The maharajah leaps out, both kings step and Black's steps back: White's king
        // stepping back repeats the position after the leap.
        let (pos, keys) = line(start, &["a1b3", "e8d8", "e1e2", "d8e8"]);
        assert!(upcoming_repetition(&pos, &keys, 100), "e2e1 goes back");
        // Not within reach: the halfmove clock (or a null move) says how far back may count.
        assert!(!upcoming_repetition(&pos, &keys, 2));
        let (pos, keys) = line(start, &["a1b3", "e8d8", "e1e2", "d8c8"]);
        assert!(!upcoming_repetition(&pos, &keys, 100), "Black's king went elsewhere");
        // Black to move with the way back White's: not Black's move to make.
        let (pos, keys) = line(start, &["a1b3", "e8d8", "e1e2"]);
        assert!(!upcoming_repetition(&pos, &keys, 100), "only White could go back");
    }

    #[test]
    fn a_slide_back_counts_only_when_its_path_is_clear() {
        // The chancellor leaps a1-b3-a5 while Black's king walks a triangle home: a1 is one
        // rook slide away from a5, open on an empty file, shut by a pawn on a3.
        let walk = ["e8d8", "a1b3", "d8d7", "b3a5", "d7e8"];
        let (open, keys) = line("4k3/8/8/8/8/8/8/C3K3 b - - 0 1", &walk);
        assert!(upcoming_repetition(&open, &keys, 100), "a5a1 goes back");
        let (shut, keys) = line("4k3/8/8/8/8/P7/8/C3K3 b - - 0 1", &walk);
        assert!(!upcoming_repetition(&shut, &keys, 100), "the pawn on a3 is in the way");
    }
}
