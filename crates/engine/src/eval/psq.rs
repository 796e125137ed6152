//! Material and piece-square sums (and the count of each piece) that the position keeps up to
//! date as pieces are placed and removed, so the evaluation reads them instead of summing over
//! the board at every node.
//!
//! The sums use the engine's own weights ([`WEIGHTS`]); an evaluation with other weights (the
//! tuner) computes them from scratch with [`PsqSums::from_position`]. Pawns' material is not in
//! them: a pawn's value depends on its side's rules (Horde's kingless pawns), so the evaluation
//! counts the pawns and multiplies.

use super::{Weights, PHASE, WEIGHTS};
use crate::position::Position;
use crate::types::{Color, Role, Square};

/// White-minus-Black sums over the pieces on the board, as (middlegame, endgame) pairs, and the
/// game phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PsqSums {
    /// Material of the pieces other than pawns.
    pub(crate) material: (i32, i32),
    /// Piece-square bonuses of every piece, pawns included (the evaluation applies them only
    /// where both sides have a king).
    pub(crate) pst: (i32, i32),
    /// The sum of [`PHASE`] over both sides' pieces.
    pub(crate) phase: i32,
    /// How many pieces of each role (index = [`Role::index`]) each side has (index = `Color as
    /// usize`), for the correction history's material key.
    pub(crate) counts: [[u8; 9]; 2],
}

impl PsqSums {
    /// The sums for `pos` under the weights `w`, counted over the board.
    pub(crate) fn from_position(pos: &Position, w: &Weights) -> PsqSums {
        let mut sums = PsqSums::default();
        for (sq, piece) in pos.pieces() {
            sums.apply(w, piece.color, piece.role, sq, 1);
        }
        sums
    }

    /// Counts `color`'s `role` arriving on `sq`.
    #[inline]
    pub(crate) fn add(&mut self, color: Color, role: Role, sq: Square) {
        self.apply(&WEIGHTS, color, role, sq, 1);
    }

    /// Counts `color`'s `role` leaving `sq`.
    #[inline]
    pub(crate) fn remove(&mut self, color: Color, role: Role, sq: Square) {
        self.apply(&WEIGHTS, color, role, sq, -1);
    }

    /// Adds (`sign` = 1) or takes away (`sign` = −1) one piece.
    #[inline]
    fn apply(&mut self, w: &Weights, color: Color, role: Role, sq: Square, sign: i32) {
        let signed = if color == Color::White { sign } else { -sign };
        if role != Role::Pawn {
            let (mg, eg) = w.material[role.index()];
            self.material.0 += signed * mg;
            self.material.1 += signed * eg;
        }
        let (mg, eg) = w.pst[role.index()][sq.relative(color).index()];
        self.pst.0 += signed * mg;
        self.pst.1 += signed * eg;
        self.phase += sign * PHASE[role.index()];
        let count = &mut self.counts[color as usize][role.index()];
        *count = count.wrapping_add_signed(sign as i8);
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::army::{start_position, Army};
    use crate::eval::tests::pawn_eval_by_pawn;
    use crate::eval::{evaluate, evaluate_cached, evaluate_with, pawn_eval, PawnCache};
    use crate::profile::Variant;

    /// What the random games went through, so the test fails if they stop covering it.
    #[derive(Default)]
    struct Seen {
        positions: usize,
        promotions: usize,
        compound_promotions: usize,
        castles: usize,
        en_passant: usize,
        compound_captures: usize,
    }

    /// Plays `games` random games of up to `plies` plies from `start` and checks the kept sums
    /// and the evaluation against ones counted over the board at every position, the
    /// evaluation with a pawn cache against the one without, and the set-wise pawn structure
    /// against the pawn-by-pawn one.
    fn check_games(
        start: &Position,
        games: u64,
        plies: usize,
        rng: &mut ChaCha8Rng,
        seen: &mut Seen,
        cache: &mut PawnCache,
    ) {
        for _ in 0..games {
            let mut pos = start.clone();
            for _ in 0..plies {
                assert_eq!(pos.psq, PsqSums::from_position(&pos, &WEIGHTS), "{pos}");
                for color in Color::ALL {
                    for role in Role::ALL {
                        let n = (pos.by_color(color) & pos.by_role(role)).count();
                        assert_eq!(u32::from(pos.psq.counts[color as usize][role.index()]), n);
                    }
                }
                assert_eq!(evaluate(&pos), evaluate_with(&pos, &WEIGHTS), "{pos}");
                assert_eq!(evaluate_cached(&pos, cache), evaluate(&pos), "{pos}");
                assert_eq!(pawn_eval(&pos, &WEIGHTS), pawn_eval_by_pawn(&pos, &WEIGHTS), "{pos}");
                seen.positions += 1;
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.by_color(Color::White).is_empty() {
                    break;
                }
                // Captures and promotions half the time, so the material changes often.
                let noisy: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.is_capture(m) || m.promotion.is_some())
                    .collect();
                let mv = if !noisy.is_empty() && rng.random_bool(0.5) {
                    noisy[rng.random_range(0..noisy.len())]
                } else {
                    moves[rng.random_range(0..moves.len())]
                };
                if let Some(p) = mv.promotion {
                    seen.promotions += 1;
                    seen.compound_promotions += usize::from(p.is_compound());
                }
                seen.castles += usize::from(pos.is_castling(mv));
                seen.en_passant += usize::from(pos.is_en_passant(mv));
                seen.compound_captures +=
                    usize::from(pos.role_at(mv.to).is_some_and(Role::is_compound));
                pos.play_unchecked(mv);
            }
        }
    }

    #[test]
    fn kept_sums_and_the_pawn_cache_match_the_board() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let mut seen = Seen::default();
        let mut cache = PawnCache::new();
        let fens = [
            (
                Variant::Chess,
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            ),
            (Variant::Chess, "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"),
            (Variant::Chess, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
            (Variant::Chess, "r3k2r/pppq1ppp/2n1bn2/8/8/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1"),
            (Variant::Maharajah, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1"),
            (Variant::Maharajah, "4k3/1P6/8/3m4/8/8/2C3p1/4K3 w - - 0 1"),
            (
                Variant::Horde,
                "r1bqkb1r/pp1ppppp/2n2n2/1Pp2PP1/P1PPP2P/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 4",
            ),
            (Variant::Horde, "4k3/1P6/8/8/8/8/3p4/8 w - - 0 1"),
        ];
        let mut starts: Vec<Position> = fens
            .into_iter()
            .map(|(variant, fen)| Position::from_fen(variant, fen).expect("test FEN is valid"))
            .collect();
        starts.extend([Variant::Chess, Variant::Horde].map(Position::new));
        while starts.len() < fens.len() + 6 {
            let w = Army::random(Color::White, &mut rng);
            let b = Army::random(Color::Black, &mut rng);
            if let Ok(p) = start_position(&w, &b) {
                starts.push(p);
            }
        }
        for start in &starts {
            check_games(start, 40, 200, &mut rng, &mut seen, &mut cache);
        }
        eprintln!(
            "{} {} {} {} {} {}",
            seen.positions,
            seen.promotions,
            seen.compound_promotions,
            seen.castles,
            seen.en_passant,
            seen.compound_captures
        );
        assert!(seen.positions > 10_000, "{}", seen.positions);
        assert!(seen.promotions > 0 && seen.compound_promotions > 0);
        assert!(seen.castles > 0 && seen.en_passant > 0 && seen.compound_captures > 0);
    }
}
