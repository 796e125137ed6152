//! The computer opponent until the engine's own search (issue 4) lands: a small alpha-beta over
//! material with a little centralisation, depth set by the level, and a seeded jitter so games
//! vary. It reads only the engine's rules, so it plays every variant the engine knows.
//! A shared `stop` flag cancels it (takeback, leaving the game).

use std::sync::atomic::{AtomicBool, Ordering};

use maharajah_engine::{Color, Move, Outcome, Position};

const MATE: i32 = 1_000_000;

fn evaluate(position: &Position) -> i32 {
    let mut score = 0;
    for (square, piece) in position.pieces() {
        let value = i32::try_from(piece.role.cost()).unwrap_or(0) * 100;
        // Pieces (not kings) a little better in the centre.
        let file = i32::from(square.file());
        let rank = i32::from(square.rank());
        let centre = if piece.role.cost() > 0 {
            6 - ((2 * file - 7).abs() + (2 * rank - 7).abs()) / 2
        } else {
            0
        };
        let value = value + centre * 3;
        score += if piece.color == Color::White { value } else { -value };
    }
    if position.turn() == Color::White {
        score
    } else {
        -score
    }
}

struct Search<'a> {
    stop: &'a AtomicBool,
    nodes: u64,
}

impl Search<'_> {
    fn negamax(
        &mut self,
        position: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        self.nodes += 1;
        if let Some(outcome) = position.outcome() {
            return match outcome {
                Outcome::Draw { .. } => 0,
                Outcome::Decisive { winner, .. } if winner == position.turn() => MATE - ply,
                Outcome::Decisive { .. } => -MATE + ply,
            };
        }
        if depth == 0 || self.stop.load(Ordering::Relaxed) {
            return evaluate(position);
        }
        let mut moves: Vec<Move> = position.legal_moves().iter().copied().collect();
        // Captures first: a cheap ordering that makes alpha-beta cut well.
        moves.sort_by_key(|m| {
            std::cmp::Reverse(position.piece_at(m.to).map_or(0, |p| p.role.cost() + 1))
        });
        let mut best = -MATE - 1;
        for mv in moves {
            let mut next = position.clone();
            next.play_unchecked(mv);
            let score = -self.negamax(&next, depth - 1, -beta, -alpha, ply + 1);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Chooses a move for the side to move at `level` (1 beginner … 4 strong), or `None` when there
/// is no legal move or the search was stopped before it finished.
#[must_use]
pub fn choose_move(position: &Position, level: u8, seed: u64, stop: &AtomicBool) -> Option<Move> {
    let depth = u32::from(level.clamp(1, 4));
    // Lower levels add more noise to the scores.
    let noise = match level {
        0 | 1 => 120,
        2 => 40,
        3 => 10,
        _ => 0,
    };
    let mut rng = seed | 1;
    let mut jitter = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        if noise == 0 {
            0
        } else {
            i32::try_from(rng % (2 * noise + 1)).unwrap_or(0) - i32::try_from(noise).unwrap_or(0)
        }
    };
    let mut search = Search { stop, nodes: 0 };
    let mut best: Option<(i32, Move)> = None;
    for mv in position.legal_moves().iter().copied() {
        let mut next = position.clone();
        next.play_unchecked(mv);
        let score = -search.negamax(&next, depth - 1, -MATE - 1, MATE + 1, 1) + jitter();
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match best {
            Some((b, _)) if score <= b => {}
            _ => best = Some((score, mv)),
        }
    }
    best.map(|(_, mv)| mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use maharajah_engine::Variant;

    #[test]
    fn plays_a_legal_move_and_takes_a_free_queen() {
        let stop = AtomicBool::new(false);
        let start = Position::new(Variant::Chess);
        let mv = choose_move(&start, 1, 7, &stop).expect("a move");
        assert!(start.is_legal(mv));
        let position =
            Position::from_fen(Variant::Chess, "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").expect("fen");
        assert_eq!(
            choose_move(&position, 3, 1, &stop).map(|m| m.to_string()).as_deref(),
            Some("d1d5")
        );
    }

    #[test]
    fn finds_mate_in_one_and_plays_horde() {
        let stop = AtomicBool::new(false);
        let position =
            Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen");
        assert_eq!(
            choose_move(&position, 2, 3, &stop).map(|m| m.to_string()).as_deref(),
            Some("a1a8")
        );
        let horde = Position::new(Variant::Horde);
        assert!(choose_move(&horde, 2, 5, &stop).is_some_and(|m| horde.is_legal(m)));
    }

    #[test]
    fn a_raised_stop_flag_cancels() {
        let stop = AtomicBool::new(true);
        assert_eq!(choose_move(&Position::new(Variant::Chess), 4, 1, &stop), None);
    }
}
