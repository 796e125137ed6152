//! Final ranking: points, then a kept king, then remaining material (nothing else: a resigned seat
//! is marked, not moved down); equal seats share a place.

use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::seat::{BySeat, Seat};

/// One seat's line in the ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Standing {
    /// The seat.
    pub seat: Seat,
    /// Its place, 1 for the best; seats equal on every criterion share a place (1, 1, 3, 4).
    pub place: u8,
    /// Its points.
    pub points: u32,
    /// Whether it still has a king on the board.
    pub kept_king: bool,
    /// The capture value of its pieces on the board.
    pub material: u32,
    /// Whether it resigned. Shown in the ranking; it does not move the seat down (the rules rank
    /// by points, kept king and remaining material alone).
    pub resigned: bool,
}

impl Standing {
    /// The sort key, larger is better.
    fn key(&self) -> (u32, bool, u32) {
        (self.points, self.kept_king, self.material)
    }

    /// The rated result of this seat against `other`: 1 for a better place, 0.5 for a shared
    /// place (half-way between a win and a loss), 0 for a worse place.
    #[must_use]
    pub fn rated_result(&self, other: &Standing) -> f64 {
        match self.place.cmp(&other.place) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        }
    }
}

/// Ranks the four seats by points, then by whether the seat kept its king, then by the value of
/// its remaining pieces, and nothing else (rules/chaturaji.md): a resigned seat keeps the place its
/// points give it and is marked [`Standing::resigned`]. Best first; ties keep turn order.
#[must_use]
pub fn standings(board: &Board, scores: BySeat<u32>, resigned: BySeat<bool>) -> Vec<Standing> {
    let material = board.material();
    let mut lines: Vec<Standing> = Seat::ALL
        .iter()
        .map(|&seat| Standing {
            seat,
            place: 0,
            points: scores[seat],
            kept_king: board.has_king(seat),
            material: material[seat],
            resigned: resigned[seat],
        })
        .collect();
    let keys: Vec<_> = lines.iter().map(Standing::key).collect();
    for line in &mut lines {
        let better = keys.iter().filter(|&&k| k > line.key()).count();
        line.place = better as u8 + 1;
    }
    lines.sort_by_key(|l| (l.place, l.seat));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Piece, Role, Square};

    fn sq(s: &str) -> Square {
        s.parse().expect("test square")
    }

    #[test]
    fn ranks_by_points_then_king_then_material_with_shared_places() {
        let mut board = Board::empty();
        let put = |b: &mut Board, s: &str, seat, role| b.set(sq(s), Some(Piece { seat, role }));
        put(&mut board, "a1", Seat::Red, Role::King);
        put(&mut board, "a2", Seat::Blue, Role::Elephant);
        put(&mut board, "a3", Seat::Yellow, Role::King);
        put(&mut board, "a4", Seat::Green, Role::King);
        let scores = BySeat { red: 10, blue: 10, yellow: 7, green: 7 };
        let table = standings(&board, scores, BySeat::default());
        let order: Vec<(Seat, u8)> = table.iter().map(|s| (s.seat, s.place)).collect();
        // Red and Blue tie on points; Red kept its king. Yellow and Green are equal on all three.
        assert_eq!(
            order,
            vec![(Seat::Red, 1), (Seat::Blue, 2), (Seat::Yellow, 3), (Seat::Green, 3)]
        );
        assert_eq!(table[2].rated_result(&table[3]), 0.5);
        assert_eq!(table[0].rated_result(&table[1]), 1.0);
        assert_eq!(table[3].rated_result(&table[0]), 0.0);
    }

    #[test]
    fn material_breaks_ties_and_resigned_seats_rank_by_the_rules_alone() {
        let mut board = Board::empty();
        board.set(sq("a1"), Some(Piece { seat: Seat::Red, role: Role::Pawn }));
        board.set(sq("a2"), Some(Piece { seat: Seat::Blue, role: Role::Horse }));
        let scores = BySeat { red: 3, blue: 3, yellow: 40, green: 0 };
        let resigned = BySeat { yellow: true, ..BySeat::default() };
        let table = standings(&board, scores, resigned);
        let order: Vec<(Seat, u8)> = table.iter().map(|s| (s.seat, s.place)).collect();
        // Yellow resigned with 40 points: still first, and marked as resigned.
        assert_eq!(
            order,
            vec![(Seat::Yellow, 1), (Seat::Blue, 2), (Seat::Red, 3), (Seat::Green, 4)]
        );
        assert!(table[0].resigned && !table[1].resigned);
    }

    #[test]
    fn a_resigned_seat_with_a_point_ranks_above_one_with_none() {
        let mut board = Board::empty();
        for (s, seat) in [("a1", Seat::Red), ("a2", Seat::Blue), ("a3", Seat::Yellow)] {
            board.set(sq(s), Some(Piece { seat, role: Role::King }));
        }
        board.set(sq("a4"), Some(Piece { seat: Seat::Green, role: Role::King }));
        let scores = BySeat { red: 1, blue: 0, yellow: 0, green: 0 };
        let resigned = BySeat { red: true, ..BySeat::default() };
        let table = standings(&board, scores, resigned);
        assert_eq!((table[0].seat, table[0].place, table[0].resigned), (Seat::Red, 1, true));
        assert!(table[1..].iter().all(|s| s.place == 2 && !s.resigned));
    }
}
