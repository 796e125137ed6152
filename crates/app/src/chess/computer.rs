//! The computer opponent: the engine's own search (`maharajah_engine::search`) at a level 1–8,
//! thinking on the caller's thread (the app gives it its own) and cancellable through a shared
//! `stop` flag (takeback, leaving the game). One [`Computer`] keeps the searcher's memory. The
//! strongest level searches with helper threads on devices with cores to spare ([`threads_for`]).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use maharajah_engine::search::{
    pick_move_for_level, play_contempt, Clock as SearchClock, Level, Limits, Score, Searcher,
};
use maharajah_engine::{Color, Game, Move};

use crate::chess::session::ClockView;

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
    /// any) allows, with the engine's contempt for the game (`play_contempt`: in Maharajah's
    /// variant armies it prefers a line up to half a pawn worse to a draw). A raised `stop`
    /// ends the search at once; the caller then discards the answer.
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
        self.searcher.set_threads(threads_for(level));
        self.searcher.set_contempt(play_contempt(game.position()));
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

/// Search threads at `level`: the strongest level, limited only by time, takes the device's
/// cores but one (for the interface), at most four; the other levels are limited by nodes and
/// stay on one thread, where they play the same way on every device.
#[must_use]
pub fn threads_for(level: Level) -> usize {
    if level == Level::STRONGEST {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        cores.saturating_sub(1).clamp(1, 4)
    } else {
        1
    }
}

/// How far the computer looks before answering a draw offer: about a tenth of a second.
pub const DRAW_OFFER_NODES: u64 = 150_000;

/// After the opening the computer accepts a draw only when its own search sees it no better than
/// this (a level position, or a worse one).
pub const DRAW_ACCEPT_UP_TO_CP: i32 = 10;

/// Moves (full moves, as the position numbers them) that count as the opening.
pub const DRAW_OPENING_MOVES: u32 = 30;

/// In the opening the computer accepts a draw only when it stands clearly worse: at most this.
pub const DRAW_OPENING_ACCEPT_UP_TO_CP: i32 = -100;

/// The computer's answer to a draw offer in `game`, where it plays `computer`: it searches the
/// position (a fresh searcher, so the answer depends on the position alone). It accepts when it
/// is being mated, or when its score is at most [`DRAW_ACCEPT_UP_TO_CP`]; before move
/// [`DRAW_OPENING_MOVES`] only when it stands clearly worse ([`DRAW_OPENING_ACCEPT_UP_TO_CP`]),
/// as a player does not agree a draw in the opening of a level game.
#[must_use]
pub fn accepts_draw(game: &Game, computer: Color) -> bool {
    let opening = game.position().fullmove_number() < DRAW_OPENING_MOVES;
    accepts_draw_at(draw_offer_score(game, computer), opening)
}

/// The answer to a draw offer for the computer's score `score` (from its own side), `opening`
/// when the game is still before move [`DRAW_OPENING_MOVES`].
#[must_use]
pub fn accepts_draw_at(score: Score, opening: bool) -> bool {
    let limit = if opening { DRAW_OPENING_ACCEPT_UP_TO_CP } else { DRAW_ACCEPT_UP_TO_CP };
    match score {
        Score::Cp(cp) => cp <= limit,
        Score::Mate(n) => n < 0,
    }
}

/// The computer's evaluation of `game` from its own side (`computer`), as it judges a draw offer.
#[must_use]
pub fn draw_offer_score(game: &Game, computer: Color) -> Score {
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let elapsed = move || start.elapsed();
    let result = Searcher::new(4).think(
        game,
        &Limits::nodes(DRAW_OFFER_NODES),
        &stop,
        &elapsed,
        &mut |_| {},
    );
    let to_move = game.position().turn();
    match result.score {
        score if to_move == computer => score,
        Score::Cp(cp) => Score::Cp(-cp),
        Score::Mate(n) => Score::Mate(-n),
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

    fn game(fen: &str) -> Game {
        Game::new(Position::from_fen(Variant::Chess, fen).expect("fen"))
    }

    #[test]
    fn a_draw_offer_is_judged_by_the_search_not_by_material() {
        // Material is level, but White mates at once (Ra8#): White declines, Black accepts.
        let mating = game("6k1/5ppp/8/8/8/7r/5PPP/R5K1 w - - 0 1");
        assert_eq!(draw_offer_score(&mating, Color::White), Score::Mate(1));
        assert!(!accepts_draw(&mating, Color::White));
        assert!(accepts_draw(&mating, Color::Black));
        // Black is four points up yet is mated next move (Re8#): Black accepts the offer.
        let doomed = game("6k1/5ppp/8/8/8/8/q4PPP/4R1K1 w - - 0 1");
        assert!(
            accepts_draw(&doomed, Color::Black),
            "{:?}",
            draw_offer_score(&doomed, Color::Black)
        );
        // A clean extra rook and nothing else going on: the side with it declines.
        let rook_up = game("4k3/pppp4/8/8/8/8/PPPP4/R3K3 b - - 0 1");
        assert!(!accepts_draw(&rook_up, Color::White));
        assert!(accepts_draw(&rook_up, Color::Black));
        // The opening of a level game: the computer plays on, whichever side it plays (level 8
        // once took a draw after 1.e4 d5).
        let mut opening = Game::new(Position::new(Variant::Chess));
        assert!(!accepts_draw(&opening, Color::White) && !accepts_draw(&opening, Color::Black));
        for uci in ["e2e4", "d7d5"] {
            opening.play(uci.parse().expect("uci")).expect("legal");
        }
        assert!(!accepts_draw(&opening, Color::White) && !accepts_draw(&opening, Color::Black));
    }

    #[test]
    fn the_computer_takes_a_draw_only_when_it_is_no_better() {
        // After the opening: level or worse accepts, better (beyond a small margin) declines.
        assert!(accepts_draw_at(Score::Cp(0), false));
        assert!(accepts_draw_at(Score::Cp(DRAW_ACCEPT_UP_TO_CP), false));
        assert!(accepts_draw_at(Score::Cp(-300), false));
        assert!(!accepts_draw_at(Score::Cp(DRAW_ACCEPT_UP_TO_CP + 1), false));
        assert!(!accepts_draw_at(Score::Cp(50), false), "50 cp better used to accept");
        // In the opening only a clearly worse computer accepts.
        assert!(!accepts_draw_at(Score::Cp(0), true));
        assert!(!accepts_draw_at(Score::Cp(-40), true), "a slightly worse opening plays on");
        assert!(accepts_draw_at(Score::Cp(DRAW_OPENING_ACCEPT_UP_TO_CP), true));
        // Being mated always accepts; mating never does.
        assert!(accepts_draw_at(Score::Mate(-3), true) && accepts_draw_at(Score::Mate(-3), false));
        assert!(!accepts_draw_at(Score::Mate(2), true) && !accepts_draw_at(Score::Mate(2), false));
    }

    #[test]
    fn a_raised_stop_flag_returns_at_once() {
        let stop = AtomicBool::new(true);
        let game = Game::new(Position::new(Variant::Chess));
        let start = Instant::now();
        let _ = Computer::new().choose(&game, 8, None, &stop);
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn only_the_strongest_level_uses_helper_threads() {
        for n in 1..8 {
            assert_eq!(threads_for(Level::new(n)), 1, "level {n}");
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let top = threads_for(Level::STRONGEST);
        assert!((1..=4).contains(&top) && top < cores.max(2), "{top} threads on {cores} cores");
    }
}
