//! The computer opponent: the engine's own search (`maharajah_engine::search`) at a level 1–8,
//! thinking on the caller's thread (the app gives it its own) and cancellable through a shared
//! `stop` flag (takeback, leaving the game). One [`Computer`] keeps the searcher's memory.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use maharajah_engine::search::{pick_move_for_level, Clock as SearchClock, Level, Searcher};
use maharajah_engine::{Game, Move};

use crate::session::ClockView;

/// Levels people can choose, weakest first.
pub const LEVELS: std::ops::RangeInclusive<u8> = 1..=8;

/// The searcher with its transposition table, reused move after move.
pub struct Computer {
    searcher: Searcher,
}

impl std::fmt::Debug for Computer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Computer")
    }
}

impl Default for Computer {
    fn default() -> Computer {
        Computer::new()
    }
}

impl Computer {
    /// A computer with a 16 MB table.
    #[must_use]
    pub fn new() -> Computer {
        Computer { searcher: Searcher::new(16) }
    }

    /// Chooses a move for the side to move in `game` at `level`, within the time the clock (if
    /// any) allows. A raised `stop` ends the search at once; the caller then discards the answer.
    pub fn choose(
        &mut self,
        game: &Game,
        level: u8,
        clock: Option<ClockView>,
        stop: &AtomicBool,
    ) -> Option<Move> {
        let level = Level::new(level);
        let clock = clock.map(|c| SearchClock {
            wtime: Duration::from_millis(c.white_ms),
            btime: Duration::from_millis(c.black_ms),
            winc: Duration::from_millis(c.control.increment_ms),
            binc: Duration::from_millis(c.control.increment_ms),
            movestogo: None,
        });
        let limits = level.limits(clock.as_ref(), game.position().turn());
        let start = Instant::now();
        let elapsed = move || start.elapsed();
        let mut rng = rand::rng();
        pick_move_for_level(
            &mut self.searcher,
            game,
            level,
            &limits,
            &mut rng,
            stop,
            &elapsed,
            &mut |_| {},
        )
        .best_move
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use maharajah_engine::{Position, Variant};

    #[test]
    fn plays_legal_moves_in_chess_and_horde_and_mates_in_one() {
        let stop = AtomicBool::new(false);
        let mut computer = Computer::new();
        let game = Game::new(Position::new(Variant::Chess));
        assert!(computer
            .choose(&game, 1, None, &stop)
            .is_some_and(|m| game.position().is_legal(m)));
        let horde = Game::new(Position::new(Variant::Horde));
        assert!(computer
            .choose(&horde, 2, None, &stop)
            .is_some_and(|m| horde.position().is_legal(m)));
        let mate = Game::new(
            Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen"),
        );
        assert_eq!(
            computer.choose(&mate, 8, None, &stop).map(|m| m.to_string()).as_deref(),
            Some("a1a8")
        );
    }

    #[test]
    fn a_raised_stop_flag_returns_at_once() {
        let stop = AtomicBool::new(true);
        let game = Game::new(Position::new(Variant::Chess));
        let start = Instant::now();
        let _ = Computer::new().choose(&game, 8, None, &stop);
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
