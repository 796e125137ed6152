//! Engine analysis of one position: the best lines (MultiPV 1–3) with depth and score,
//! reported after every iteration, in a background thread the caller can stop at once.
//!
//! [`analyse`] is the synchronous core (it runs on the caller's thread and returns when the
//! limits are reached or the stop flag is set); [`spawn`] runs it on a thread of its own and
//! hands back an [`AnalysisHandle`] whose [`AnalysisHandle::stop`] never blocks. The engine's
//! [`start`] is the same as a [`Task`] that hands the searcher back to a callback and is never
//! waited for (an app's command thread must not block). The engine's
//! `Searcher` reports one line per call; the best lines of the deepest completed iteration are
//! gathered here into one [`AnalysisUpdate`].

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use maharajah_engine::search::{Info, Limits, Score, Searcher};
use maharajah_engine::{Game, Move, Position};

use crate::eval::Eval;
pub use crate::worker::SpawnError;
use crate::worker::{Task, Worker};

/// Most lines an analysis shows.
pub const MAX_LINES: usize = 3;

/// How to analyse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// How many best lines, 1 to [`MAX_LINES`] (clamped).
    pub lines: usize,
    /// When to stop; [`Limits::infinite`] (the default) thinks until stopped.
    pub limits: Limits,
}

impl Default for AnalysisConfig {
    fn default() -> AnalysisConfig {
        AnalysisConfig { lines: 1, limits: Limits::infinite() }
    }
}

/// One best line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Depth this line was searched to.
    pub depth: u32,
    /// Its score, White's view.
    pub eval: Eval,
    /// The score as the engine gives it (side to move's view).
    pub score: Score,
    /// The moves, first move first (each legal after the ones before).
    pub moves: Vec<Move>,
    /// The same moves in SAN.
    pub san: Vec<String>,
}

/// What the analysis knows so far: the best lines, best first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnalysisUpdate {
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the analysis started.
    pub time: Duration,
    /// The best lines, best first (at most the configured count; fewer if there are fewer
    /// legal moves, none when the game is over).
    pub lines: Vec<Line>,
    /// `true` in the last update of an analysis.
    pub finished: bool,
}

impl AnalysisUpdate {
    /// The evaluation of the best line (White's view).
    #[must_use]
    pub fn eval(&self) -> Option<Eval> {
        self.lines.first().map(|l| l.eval)
    }

    /// The best move, for an arrow on the board.
    #[must_use]
    pub fn best_move(&self) -> Option<Move> {
        self.lines.first().and_then(|l| l.moves.first().copied())
    }
}

/// SAN of a line played from `position` (stops at the first move that is not legal).
#[must_use]
pub fn line_san(position: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = position.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &mv in moves {
        if !pos.is_legal(mv) {
            break;
        }
        out.push(pos.san(mv));
        pos.play_unchecked(mv);
    }
    out
}

/// Analyses the current position of `game` on this thread until `config.limits` or `stop`,
/// calling `on_update` after every completed iteration (with all its lines) and once more at
/// the end (`finished`). Returns the last update.
pub fn analyse(
    searcher: &mut Searcher,
    game: &Game,
    config: &AnalysisConfig,
    stop: &AtomicBool,
    on_update: &mut dyn FnMut(&AnalysisUpdate),
) -> AnalysisUpdate {
    let start = Instant::now();
    let position = game.position();
    let turn = position.turn();
    let lines = config.lines.clamp(1, MAX_LINES);
    if game.outcome().is_some() || !position.has_legal_moves() {
        let update = AnalysisUpdate { finished: true, ..AnalysisUpdate::default() };
        on_update(&update);
        return update;
    }
    let legal = position.legal_moves().len();
    let expected = lines.min(legal);
    searcher.set_multipv(lines);
    searcher.set_search_moves(&[]);
    let mut update = AnalysisUpdate::default();
    // Lines of the iteration in progress; published when its last line arrives.
    let mut pending: Vec<Line> = Vec::with_capacity(expected);
    let elapsed = move || start.elapsed();
    let mut on_info = |info: &Info<'_>| {
        let san = line_san(position, info.pv);
        let line = Line {
            depth: info.depth,
            eval: Eval::from_score(info.score, turn),
            score: info.score,
            // Only the legal prefix (a line patched from the table may go astray).
            moves: info.pv[..san.len()].to_vec(),
            san,
        };
        if info.multipv == 1 {
            pending.clear();
        }
        pending.push(line);
        update.nodes = info.nodes;
        update.time = info.time;
        if pending.len() == expected {
            update.depth = info.depth;
            update.lines.clone_from(&pending);
            // The search reports its lines in the order it searched them; a later one can
            // score above an earlier (each is searched with the ones before it excluded, in
            // its own window). Shown best first, as a player reads them.
            update.lines.sort_by_key(|l| std::cmp::Reverse(rank(l.score)));
            on_update(&update);
        }
    };
    let result = searcher.think(game, &config.limits, stop, &elapsed, &mut on_info);
    update.nodes = update.nodes.max(result.nodes);
    update.time = start.elapsed();
    if update.lines.is_empty() {
        // Stopped before the first iteration finished: the search still names a legal move.
        update.depth = result.depth;
        let san = line_san(position, &result.pv);
        update.lines.push(Line {
            depth: result.depth,
            eval: Eval::from_score(result.score, turn),
            score: result.score,
            moves: result.pv[..san.len()].to_vec(),
            san,
        });
    }
    update.finished = true;
    on_update(&update);
    searcher.set_multipv(1);
    update
}

/// An order on scores, higher better for the side to move: a mate to give beats any
/// centipawns (the sooner the better), a mate to suffer loses to any (the later the better).
fn rank(score: Score) -> i64 {
    const MATED: i64 = 1_000_000_000;
    match score {
        Score::Cp(cp) => i64::from(cp),
        Score::Mate(n) if n > 0 => MATED - i64::from(n),
        Score::Mate(n) => -MATED - i64::from(n),
    }
}

/// A running background analysis: [`Worker::stop`] asks it to stop at once, and
/// [`Worker::finish`] stops it and gives back the searcher (to reuse its table for the next
/// position) and the last update. Dropping it stops the analysis and waits for its thread.
pub type AnalysisHandle = Worker<(Searcher, AnalysisUpdate)>;

/// Analyses the current position of `game` on a new thread with `searcher` (keep one per
/// analysis board and get it back from [`AnalysisHandle::finish`]); `on_update` is called on
/// that thread after every iteration and at the end.
///
/// # Errors
/// [`SpawnError`] if the system refuses a thread.
///
/// # Examples
/// ```
/// use std::sync::mpsc;
/// use maharajah_analysis::analyse::{spawn, AnalysisConfig};
/// use maharajah_engine::search::{Limits, Searcher};
/// use maharajah_engine::{Game, Position, Variant};
///
/// let game = Game::new(Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")?);
/// let (tx, rx) = mpsc::channel();
/// let config = AnalysisConfig { lines: 2, limits: Limits::depth(4) };
/// let handle = spawn(Searcher::new(1), game, config, move |u| drop(tx.send(u.clone())))?;
/// let last = rx.iter().find(|u| u.finished).expect("a final update");
/// assert_eq!(last.lines.len(), 2);
/// assert_eq!(last.lines[0].san[0], "Ra8#");
/// let (_searcher, _) = handle.finish().expect("the thread ended normally");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn spawn(
    mut searcher: Searcher,
    game: Game,
    config: AnalysisConfig,
    mut on_update: impl FnMut(&AnalysisUpdate) + Send + 'static,
) -> Result<AnalysisHandle, SpawnError> {
    Worker::spawn("analysis", move |stop| {
        let last = analyse(&mut searcher, &game, &config, stop, &mut on_update);
        (searcher, last)
    })
}

/// Analyses the current position of `game` on a new thread, like [`spawn`], but nobody waits
/// for it: when the analysis ends (its limits, or [`Task::stop`], or the task dropped) its
/// thread calls `then` with the searcher and the last update.
///
/// # Errors
/// [`SpawnError`] if the system refuses a thread.
pub fn start(
    mut searcher: Searcher,
    game: Game,
    config: AnalysisConfig,
    mut on_update: impl FnMut(&AnalysisUpdate) + Send + 'static,
    then: impl FnOnce(Searcher, AnalysisUpdate) + Send + 'static,
) -> Result<Task, SpawnError> {
    Task::spawn(
        "analysis",
        move |stop| {
            let last = analyse(&mut searcher, &game, &config, stop, &mut on_update);
            (searcher, last)
        },
        move |(searcher, last)| then(searcher, last),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use maharajah_engine::Variant;

    use super::*;

    fn game(variant: Variant, fen: &str) -> Game {
        Game::new(Position::from_fen(variant, fen).expect("test FEN"))
    }

    #[test]
    fn scores_rank_mates_beyond_centipawns() {
        let order = [Score::Mate(1), Score::Mate(4), Score::Cp(900), Score::Cp(-50)];
        let worse = [Score::Cp(-3000), Score::Mate(-6), Score::Mate(-1)];
        let all: Vec<_> = order.iter().chain(&worse).map(|&s| rank(s)).collect();
        assert!(all.windows(2).all(|w| w[0] > w[1]), "{all:?}");
    }

    #[test]
    fn three_lines_best_first_each_iteration() {
        let g = Game::new(Position::new(Variant::Chess));
        let mut searcher = Searcher::new(1);
        let mut seen = Vec::new();
        let config = AnalysisConfig { lines: 3, limits: Limits::depth(4) };
        let last = analyse(&mut searcher, &g, &config, &AtomicBool::new(false), &mut |u| {
            seen.push(u.clone());
        });
        assert!(last.finished);
        assert_eq!(last.depth, 4);
        assert_eq!(last.lines.len(), 3);
        let firsts: Vec<_> = last.lines.iter().map(|l| l.moves[0]).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
        // Best first, White's view at White's turn.
        assert!(last.lines.windows(2).all(|w| match (w[0].score, w[1].score) {
            (Score::Cp(a), Score::Cp(b)) => a >= b,
            _ => true,
        }));
        // One update per depth, deepening, then the final one.
        let depths: Vec<_> = seen.iter().map(|u| u.depth).collect();
        assert_eq!(depths, [1, 2, 3, 4, 4]);
        assert!(seen.iter().all(|u| u.lines.len() == 3));
        assert_eq!(last.lines[0].san.len(), last.lines[0].moves.len());
    }

    #[test]
    fn black_to_move_mate_is_blacks_in_whites_view() {
        let g = game(Variant::Chess, "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1");
        let mut s = Searcher::new(1);
        let config = AnalysisConfig { lines: 1, limits: Limits::depth(3) };
        let last = analyse(&mut s, &g, &config, &AtomicBool::new(false), &mut |_| {});
        assert_eq!(
            last.eval(),
            Some(Eval::Mate { winner: maharajah_engine::Color::Black, moves: 1 })
        );
        assert_eq!(last.lines[0].san[0], "Ra1#");
    }

    #[test]
    fn fewer_lines_than_asked_when_few_moves() {
        // White's king has exactly one legal move.
        let g = game(Variant::Chess, "k7/8/8/8/8/8/1r6/K7 w - - 0 1");
        let mut s = Searcher::new(1);
        let config = AnalysisConfig { lines: 3, limits: Limits::depth(2) };
        let last = analyse(&mut s, &g, &config, &AtomicBool::new(false), &mut |_| {});
        assert_eq!(last.lines.len(), 1);
        assert_eq!(last.lines[0].san[0], "Kxb2");
    }

    #[test]
    fn a_finished_game_has_no_lines() {
        let g = game(Variant::Chess, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        let mut s = Searcher::new(1);
        let last =
            analyse(&mut s, &g, &AnalysisConfig::default(), &AtomicBool::new(false), &mut |_| {});
        assert!(last.finished && last.lines.is_empty());
    }

    #[test]
    fn infinite_background_analysis_stops_at_once() {
        let g = Game::new(Position::new(Variant::Maharajah));
        let (tx, rx) = mpsc::channel();
        let handle = spawn(Searcher::new(1), g, AnalysisConfig::default(), move |u| {
            drop(tx.send(u.clone()))
        })
        .expect("a thread");
        // Wait for a first iteration, then stop.
        let first = rx.recv_timeout(Duration::from_secs(30)).expect("an update");
        assert!(!first.lines.is_empty());
        let asked = Instant::now();
        handle.stop();
        let last = rx.iter().find(|u| u.finished).expect("a final update");
        assert!(asked.elapsed() < Duration::from_secs(2), "stopped in {:?}", asked.elapsed());
        assert!(last.best_move().is_some());
        assert!(handle.finish().is_some());
    }

    #[test]
    fn a_started_analysis_is_stopped_by_dropping_it_and_gives_the_searcher_back() {
        let g = Game::new(Position::new(Variant::Chess));
        let (tx, rx) = mpsc::channel();
        let (first_tx, first) = mpsc::channel();
        let task = start(
            Searcher::new(1),
            g,
            AnalysisConfig::default(),
            move |u| {
                let _ = first_tx.send(u.depth);
            },
            move |searcher, last| drop(tx.send((searcher, last))),
        )
        .expect("a thread");
        first.recv_timeout(Duration::from_secs(30)).expect("an iteration");
        drop(task);
        let (_searcher, last) = rx.recv_timeout(Duration::from_secs(10)).expect("handed back");
        assert!(last.finished);
        assert!(last.best_move().is_some());
    }

    #[test]
    fn handles_and_updates_cross_threads() {
        fn is_send<T: Send>() {}
        is_send::<AnalysisHandle>();
        is_send::<AnalysisUpdate>();
        is_send::<Searcher>();
    }
}
