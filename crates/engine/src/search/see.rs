//! Static exchange evaluation: what a capture wins or loses once both sides have recaptured on
//! its square with their cheapest pieces for as long as it pays.
//!
//! Sliding attackers are found afresh after every capture with the occupancy as it then
//! stands, so pieces behind a slider (x-rays) join in, also through compound pieces (a
//! chancellor behind a rook, an archbishop behind a bishop). Pins are ignored, and the king
//! takes part only as the last capturer (it may not capture into a defended square). Values are
//! [`role_value`](crate::eval::role_value): pawn 100 … Maharajah 1,280.

use crate::eval::role_value;
use crate::moves::Move;
use crate::position::Position;
use crate::types::{Bitboard, Role};

/// Roles from the cheapest capturer up; the king comes last.
const CHEAPEST_FIRST: [Role; 9] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Archbishop,
    Role::Chancellor,
    Role::Queen,
    Role::Maharajah,
    Role::King,
];

/// A king's worth in an exchange: more than anything it could win.
const KING_VALUE: i32 = 20_000;

#[inline]
fn value(role: Role) -> i32 {
    if role == Role::King {
        KING_VALUE
    } else {
        role_value(role)
    }
}

/// The material balance of `mv` for the side to move after the best sequence of recaptures on
/// its square, in centipawns (0 for a quiet move that cannot be taken, negative when the moved
/// piece is lost for less). A promotion counts the new piece.
#[must_use]
pub fn see(pos: &Position, mv: Move) -> i32 {
    let to = mv.to;
    let us = pos.turn();
    let mut occ = pos.occupied().without(mv.from);
    let mut first =
        if pos.by_color(us.other()).contains(to) { pos.role_at(to).map_or(0, value) } else { 0 };
    if pos.is_en_passant(mv) {
        first = value(Role::Pawn);
        // The captured pawn stands beside the destination, on the mover's rank.
        if let Some(captured) = crate::types::Square::from_coords(to.file(), mv.from.rank()) {
            occ = occ.without(captured);
        }
    }
    let mut on_square = pos.role_at(mv.from).map_or(0, value);
    if let Some(promo) = mv.promotion {
        first += value(promo) - value(Role::Pawn);
        on_square = value(promo);
    }
    occ = occ.with(to);

    let mut gain = [0i32; 40];
    gain[0] = first;
    let mut depth = 0;
    let mut side = us.other();
    // Both sides' attackers of the square: the leapers once (a capture only takes one away),
    // the sliders again after each capture (one may have uncovered another behind it).
    let leapers = pos.leaper_attackers(to);
    let mut all = (leapers | pos.slider_attackers(to, occ)) & occ;
    loop {
        let attackers = all & pos.by_color(side);
        let Some((sq, role)) = cheapest(pos, attackers) else { break };
        if role == Role::King && (all & pos.by_color(side.other())).without(to).any() {
            // The king may not capture onto a defended square.
            break;
        }
        depth += 1;
        if depth >= gain.len() {
            break;
        }
        gain[depth] = on_square - gain[depth - 1];
        if gain[depth].max(-gain[depth - 1]) < 0 {
            // Neither side can gain by continuing.
            break;
        }
        on_square = value(role);
        occ = occ.without(sq);
        all = (leapers | pos.slider_attackers(to, occ)) & occ;
        side = side.other();
    }
    while depth > 0 {
        gain[depth - 1] = -((-gain[depth - 1]).max(gain[depth]));
        depth -= 1;
    }
    gain[0]
}

/// The cheapest piece among `attackers` and its role.
#[inline]
fn cheapest(pos: &Position, attackers: Bitboard) -> Option<(crate::types::Square, Role)> {
    if attackers.is_empty() {
        return None;
    }
    CHEAPEST_FIRST
        .into_iter()
        .find_map(|role| (attackers & pos.by_role(role)).first().map(|sq| (sq, role)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    fn see_of(variant: Variant, fen: &str, mv: &str) -> i32 {
        let pos = Position::from_fen(variant, fen).expect("test FEN is valid");
        let mv: Move = mv.parse().expect("test move parses");
        assert!(pos.is_legal(mv), "{mv} is legal in {fen}");
        see(&pos, mv)
    }

    #[test]
    fn undefended_piece_is_won_whole() {
        assert_eq!(see_of(Variant::Chess, "4k3/8/8/3r4/8/8/8/3RK3 w - - 0 1", "d1d5"), 480);
    }

    #[test]
    fn defended_pawn_taken_by_a_queen_loses_the_queen() {
        let v = see_of(Variant::Chess, "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5");
        assert_eq!(v, 100 - 950);
    }

    #[test]
    fn pawn_takes_defended_knight_still_wins() {
        let v = see_of(Variant::Chess, "4k3/8/4p3/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5");
        assert_eq!(v, 320 - 100);
    }

    #[test]
    fn x_ray_through_a_compound_piece_counts() {
        // Rook takes a pawn defended once by a rook; the chancellor behind the white rook
        // recaptures along the file (x-ray), so White wins the pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3CK3 w - - 0 1";
        assert_eq!(see_of(Variant::Maharajah, fen, "d2d5"), 100);
        // Without the chancellor, the rook is lost for a pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1";
        assert_eq!(see_of(Variant::Chess, fen, "d2d5"), 100 - 480);
    }

    #[test]
    fn a_knight_leap_of_a_maharajah_defends() {
        // The Maharajah on f6 guards d5 by its knight leap: queen takes pawn, loses the queen.
        let fen = "4k3/8/5m2/3p4/8/8/8/3QK3 w - - 0 1";
        assert_eq!(see_of(Variant::Maharajah, fen, "d1d5"), 100 - 950);
    }

    #[test]
    fn quiet_move_to_a_safe_square_is_zero() {
        assert_eq!(see_of(Variant::Chess, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "d1d4"), 0);
        // ... and to an attacked one loses the piece.
        assert_eq!(see_of(Variant::Chess, "4k3/8/8/8/4p3/8/8/3QK3 w - - 0 1", "d1d3"), -950);
    }

    #[test]
    fn king_does_not_recapture_into_a_defended_square() {
        // Rxe7: the black king could take back, but the bishop on b4 guards e7.
        let fen = "4k3/4p3/8/8/1B6/8/8/4RK2 w - - 0 1";
        assert_eq!(see_of(Variant::Chess, fen, "e1e7"), 100);
    }
}
