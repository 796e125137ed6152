//! Game review: the engine evaluates every position of a game, each move is judged by the
//! mover's loss of win probability ([`crate::judge`]), flagged moves get the engine's better
//! move, and each side gets an accuracy figure.
//!
//! A [`Review`] holds one evaluation slot per position (the start and the position after each
//! move). [`Review::run`] fills the empty slots from a given ply on, reporting progress, and
//! returns early when its stop flag is set; calling it again resumes where it stopped.
//! [`spawn`] runs it on a thread of its own and [`start`] likewise as a [`Task`] nobody waits
//! for; each position's evaluation is reported as it comes, so a copy kept elsewhere (an app's
//! board) can draw the part done ([`Review::set_eval`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use maharajah_engine::search::{Limits, Searcher};
use maharajah_engine::{ByColor, Color, Game, Move, Position};

use crate::analyse::line_san;
use crate::eval::Eval;
use crate::judge::{mean_accuracy, move_accuracy, win_percent, Judgement};
use crate::tree::MoveTree;
use crate::worker::{SpawnError, Task, Worker};

/// Nodes per position at the default setting (deterministic with one thread): a 60-move game
/// (121 positions) reviews in about 8 s of one core of the 2-core reference machine, 12 s
/// wall-clock with the machine shared (BENCHMARKS.md, issue 17).
pub const DEFAULT_NODES: u64 = 50_000;

/// How much the engine thinks per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The search limits for each position (the default is [`DEFAULT_NODES`] nodes, which is
    /// deterministic).
    pub limits: Limits,
}

impl Default for ReviewConfig {
    fn default() -> ReviewConfig {
        ReviewConfig { limits: Limits::nodes(DEFAULT_NODES) }
    }
}

/// The engine's view of one position of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionEval {
    /// The evaluation, White's view (a finished game: mate in 0 for the winner, 0 for a draw).
    pub eval: Eval,
    /// The engine's best line from here (empty when the game is over).
    pub pv: Vec<Move>,
    /// Depth searched (0 when the game is over).
    pub depth: u32,
}

impl PositionEval {
    /// The engine's best move here.
    #[must_use]
    pub fn best_move(&self) -> Option<Move> {
        self.pv.first().copied()
    }
}

/// How one move of the game fared.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReview {
    /// The move's ply, 1-based (ply 1 is the first move of the game).
    pub ply: usize,
    /// The side that moved.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// The move in SAN.
    pub san: String,
    /// Evaluation before the move (White's view).
    pub eval_before: Eval,
    /// Evaluation after the move (White's view).
    pub eval_after: Eval,
    /// The mover's win % before the move.
    pub win_before: f64,
    /// The mover's win % after the move.
    pub win_after: f64,
    /// The move's accuracy, 0–100.
    pub accuracy: f64,
    /// Inaccuracy, mistake or blunder; `None` for a good move (and always for the engine's own
    /// best move, whatever the noise between two searches).
    pub judgement: Option<Judgement>,
    /// The engine's best line from the position before the move, when it starts with another
    /// move than the one played.
    pub better: Option<Vec<Move>>,
    /// That line in SAN.
    pub better_san: Option<Vec<String>>,
}

/// A side's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SideSummary {
    /// Mean move accuracy (0–100); `None` if the side made no reviewed move.
    pub accuracy: Option<f64>,
    /// Moves judged inaccuracies (`?!`).
    pub inaccuracies: usize,
    /// Moves judged mistakes (`?`).
    pub mistakes: usize,
    /// Moves judged blunders (`??`).
    pub blunders: usize,
}

/// Progress of a review run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Positions evaluated so far (of this game, all runs together).
    pub done: usize,
    /// Positions in the game (moves + 1).
    pub total: usize,
    /// The ply just evaluated (0 is the start position).
    pub ply: usize,
}

/// A game under review: its moves and the engine's evaluation of each position so far.
///
/// # Examples
/// ```
/// use std::sync::atomic::AtomicBool;
/// use maharajah_analysis::{Judgement, Review, ReviewConfig};
/// use maharajah_engine::search::{Limits, Searcher};
/// use maharajah_engine::{Game, Position, Variant};
///
/// let mut game = Game::new(Position::new(Variant::Chess));
/// for san in ["e4", "e5", "Nf3", "Qh4", "Nxh4"] {
///     let mv = game.position().parse_san(san)?;
///     game.play(mv)?;
/// }
/// let mut review = Review::new(&game);
/// let config = ReviewConfig { limits: Limits::depth(5) };
/// let done = review.run(&mut Searcher::new(1), &config, 0, &AtomicBool::new(false), &mut |_, _| {});
/// assert!(done);
/// let qh4 = &review.moves()[3];
/// assert_eq!(qh4.judgement, Some(Judgement::Blunder));
/// assert!(qh4.better_san.is_some());
/// assert_eq!(review.summary().black.blunders, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Review {
    game: Game,
    /// Slot `i` is the position after `i` moves.
    evals: Vec<Option<PositionEval>>,
}

impl Review {
    /// A review of `game` with nothing evaluated yet.
    #[must_use]
    pub fn new(game: &Game) -> Review {
        Review { game: game.clone(), evals: vec![None; game.moves().len() + 1] }
    }

    /// The game under review.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The evaluation of every position so far (slot `i`: after `i` moves).
    #[must_use]
    pub fn evals(&self) -> &[Option<PositionEval>] {
        &self.evals
    }

    /// Positions evaluated so far.
    #[must_use]
    pub fn done(&self) -> usize {
        self.evals.iter().flatten().count()
    }

    /// `true` once every position is evaluated.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.evals.iter().all(Option::is_some)
    }

    /// The first ply still to evaluate (where to resume); `None` when complete.
    #[must_use]
    pub fn next_missing(&self) -> Option<usize> {
        self.evals.iter().position(Option::is_none)
    }

    /// The evaluation of every position from `from_ply` on that is not evaluated yet, with
    /// `searcher` (one for the whole game: its table carries from move to move) within
    /// `config`. Calls `progress` after each position with that position's evaluation.
    /// Returns early, keeping what is done, when `stop` is set; run it again to resume.
    /// Returns `true` when the review is complete.
    pub fn run(
        &mut self,
        searcher: &mut Searcher,
        config: &ReviewConfig,
        from_ply: usize,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(Progress, &PositionEval),
    ) -> bool {
        searcher.set_multipv(1);
        searcher.set_search_moves(&[]);
        let total = self.evals.len();
        for ply in from_ply.min(total)..total {
            if self.evals[ply].is_some() {
                continue;
            }
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let mut game = Game::new(self.game.start().clone());
            for &mv in &self.game.moves()[..ply] {
                game.play_unchecked(mv);
            }
            let eval = if let Some(outcome) = game.outcome() {
                PositionEval { eval: Eval::from_outcome(outcome), pv: Vec::new(), depth: 0 }
            } else {
                let start = Instant::now();
                let elapsed = move || start.elapsed();
                let result = searcher.think(&game, &config.limits, stop, &elapsed, &mut |_| {});
                if stop.load(Ordering::Relaxed) {
                    // An interrupted search is not a finished evaluation: redo it on resume.
                    return false;
                }
                let turn = game.position().turn();
                let mut pv = result.pv;
                // Only the legal prefix (a line patched from the table may go astray).
                pv.truncate(line_san(game.position(), &pv).len());
                PositionEval { eval: Eval::from_score(result.score, turn), pv, depth: result.depth }
            };
            let done = self.done() + 1;
            progress(Progress { done, total, ply }, &eval);
            self.evals[ply] = Some(eval);
        }
        self.is_complete()
    }

    /// Records the evaluation of the position after `ply` moves, computed elsewhere (by a run
    /// of a copy of this review on another thread, reported through its `progress`). Returns
    /// `false`, recording nothing, when the game has no such position.
    pub fn set_eval(&mut self, ply: usize, eval: PositionEval) -> bool {
        match self.evals.get_mut(ply) {
            Some(slot) => {
                *slot = Some(eval);
                true
            }
            None => false,
        }
    }

    /// The moves whose positions before and after are both evaluated, judged.
    #[must_use]
    pub fn moves(&self) -> Vec<MoveReview> {
        let mut out = Vec::new();
        let mut pos: Position = self.game.start().clone();
        for (i, &mv) in self.game.moves().iter().enumerate() {
            let color = pos.turn();
            let san = pos.san(mv);
            if let (Some(before), Some(after)) = (&self.evals[i], &self.evals[i + 1]) {
                let win_before = win_percent(before.eval, color);
                let win_after = win_percent(after.eval, color);
                let best = before.best_move();
                let is_best = best == Some(mv);
                let judgement = if is_best {
                    None
                } else {
                    Judgement::from_win_percents(win_before, win_after)
                };
                let better = (!is_best && best.is_some()).then(|| before.pv.clone());
                out.push(MoveReview {
                    ply: i + 1,
                    color,
                    mv,
                    san,
                    eval_before: before.eval,
                    eval_after: after.eval,
                    win_before,
                    win_after,
                    accuracy: move_accuracy(win_before, win_after),
                    judgement,
                    better_san: better.as_ref().map(|line| line_san(&pos, line)),
                    better,
                });
            }
            pos.play_unchecked(mv);
        }
        out
    }

    /// Each side's accuracy and counts of `?!`, `?`, `??` over the reviewed moves.
    #[must_use]
    pub fn summary(&self) -> ByColor<SideSummary> {
        let moves = self.moves();
        ByColor::new_with(|color| {
            let mine = || moves.iter().filter(move |m| m.color == color);
            let count = |j: Judgement| mine().filter(|m| m.judgement == Some(j)).count();
            SideSummary {
                accuracy: mean_accuracy(mine().map(|m| m.accuracy)),
                inaccuracies: count(Judgement::Inaccuracy),
                mistakes: count(Judgement::Mistake),
                blunders: count(Judgement::Blunder),
            }
        })
    }

    /// Writes the review into `tree`, whose main line must be this game (else nothing is
    /// written and `false` returned): each main-line node gets its evaluation; each reviewed
    /// move loses any earlier `?!` / `?` / `??`, and a flagged move gets its NAG, a comment (`Blunder. Nf3 was best.`) and the better line as a
    /// variation (at most `max_line` moves).
    pub fn annotate(&self, tree: &mut MoveTree, max_line: usize) -> bool {
        let main = tree.main_line();
        let same = main.len() == self.game.moves().len()
            && main.iter().zip(self.game.moves()).all(|(&n, &mv)| tree.node(n).mv() == Some(mv));
        if !same {
            return false;
        }
        let root = tree.root();
        if let (Some(e), Some(node)) = (&self.evals[0], tree.get_mut(root)) {
            node.eval = Some(e.eval);
        }
        for (i, &id) in main.iter().enumerate() {
            if let (Some(e), Some(node)) = (&self.evals[i + 1], tree.get_mut(id)) {
                node.eval = Some(e.eval);
            }
        }
        for review in self.moves() {
            let id = main[review.ply - 1];
            // This review's verdict replaces an earlier one.
            if let Some(node) = tree.get_mut(id) {
                node.nags.retain(|&n| Judgement::from_nag(n).is_none());
            }
            let Some(judgement) = review.judgement else { continue };
            let comment = match review.better_san.as_ref().and_then(|l| l.first()) {
                Some(best) => format!("{judgement}. {best} was best."),
                None => format!("{judgement}."),
            };
            if let Some(node) = tree.get_mut(id) {
                node.nags.insert(0, judgement.nag());
                node.comments.push(comment);
            }
            if let (Some(line), Some(parent)) = (&review.better, tree.node(id).parent()) {
                let mut at = parent;
                for &mv in line.iter().take(max_line) {
                    match tree.add(at, mv) {
                        Ok(next) => at = next,
                        Err(_) => break,
                    }
                }
            }
        }
        true
    }
}

/// A review running on its own thread: [`Worker::stop`] asks it to stop at once, and
/// [`Worker::join`] waits for it (without stopping it) and gives back the searcher and the
/// review, complete or, if stopped, partial (resume it with [`Review::run`] or [`spawn`]).
pub type ReviewHandle = Worker<(Searcher, Review)>;

/// Runs [`Review::run`] from `from_ply` on a new thread; `progress` is called on that thread.
///
/// # Errors
/// [`SpawnError`] if the system refuses a thread.
pub fn spawn(
    mut searcher: Searcher,
    mut review: Review,
    config: ReviewConfig,
    from_ply: usize,
    mut progress: impl FnMut(Progress, &PositionEval) + Send + 'static,
) -> Result<ReviewHandle, SpawnError> {
    Worker::spawn("review", move |stop| {
        review.run(&mut searcher, &config, from_ply, stop, &mut progress);
        (searcher, review)
    })
}

/// Runs [`Review::run`] from `from_ply` on a new thread, like [`spawn`], but nobody waits for
/// it: when the review ends (complete, or stopped by [`Task::stop`] or by dropping the task)
/// its thread calls `then` with the searcher and the review, complete or partial.
///
/// # Errors
/// [`SpawnError`] if the system refuses a thread.
pub fn start(
    mut searcher: Searcher,
    mut review: Review,
    config: ReviewConfig,
    from_ply: usize,
    mut progress: impl FnMut(Progress, &PositionEval) + Send + 'static,
    then: impl FnOnce(Searcher, Review) + Send + 'static,
) -> Result<Task, SpawnError> {
    Task::spawn(
        "review",
        move |stop| {
            review.run(&mut searcher, &config, from_ply, stop, &mut progress);
            (searcher, review)
        },
        move |(searcher, review)| then(searcher, review),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use maharajah_engine::Variant;

    use super::*;

    fn game(moves: &[&str]) -> Game {
        let mut g = Game::new(Position::new(Variant::Chess));
        for san in moves {
            let mv = g.position().parse_san(san).expect("legal test move");
            g.play_unchecked(mv);
        }
        g
    }

    fn quick() -> ReviewConfig {
        ReviewConfig { limits: Limits::depth(5) }
    }

    /// 1. e4 e5 2. Nf3 Qh4?? hangs the queen to 3. Nxh4.
    const HUNG_QUEEN: [&str; 5] = ["e4", "e5", "Nf3", "Qh4", "Nxh4"];

    #[test]
    fn a_hung_queen_is_a_blunder_with_a_better_move() {
        let mut review = Review::new(&game(&HUNG_QUEEN));
        let mut seen = Vec::new();
        let complete =
            review.run(&mut Searcher::new(4), &quick(), 0, &AtomicBool::new(false), &mut |p, e| {
                seen.push(p);
                assert!(e.depth > 0, "searched: the game is not over");
            });
        assert!(complete);
        assert_eq!(seen.len(), 6);
        assert_eq!(seen.last(), Some(&Progress { done: 6, total: 6, ply: 5 }));
        let moves = review.moves();
        assert_eq!(moves.len(), 5);
        let qh4 = &moves[3];
        assert_eq!(qh4.san, "Qh4");
        assert_eq!(qh4.color, Color::Black);
        assert_eq!(qh4.judgement, Some(Judgement::Blunder), "{qh4:?}");
        assert!(qh4.win_before - qh4.win_after >= 30.0);
        let better = qh4.better_san.as_ref().expect("a better move");
        assert_ne!(better[0], "Qh4");
        assert!(qh4.accuracy < 30.0);
        // Taking the queen is the engine's move: no judgement.
        assert_eq!(moves[4].judgement, None);
        let summary = review.summary();
        assert_eq!(summary.black.blunders, 1);
        assert_eq!(summary.white.blunders, 0);
        let (white, black) =
            (summary.white.accuracy.expect("3 moves"), summary.black.accuracy.expect("2 moves"));
        assert!(white > black, "white {white} black {black}");
    }

    #[test]
    fn stopping_and_resuming_gives_the_same_review() {
        let g = game(&HUNG_QUEEN);
        let mut whole = Review::new(&g);
        whole.run(&mut Searcher::new(4), &quick(), 0, &AtomicBool::new(false), &mut |_, _| {});

        let mut part = Review::new(&g);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(4);
        let complete = part.run(&mut searcher, &quick(), 0, &stop, &mut |p, _| {
            if p.done == 3 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert!(!complete);
        assert_eq!(part.done(), 3);
        assert_eq!(part.next_missing(), Some(3));
        assert_eq!(part.moves().len(), 2, "only moves with both sides evaluated");
        let stop = AtomicBool::new(false);
        let mut resumed = Vec::new();
        let mut fresh = Searcher::new(4);
        assert!(part.run(&mut fresh, &quick(), 3, &stop, &mut |p, _| resumed.push(p.ply)));
        assert_eq!(resumed, [3, 4, 5]);
        // The same searcher history up to the stop gives the same evaluations; after it the
        // table differs, so compare the verdict that matters.
        assert_eq!(part.evals()[..3], whole.evals()[..3]);
        assert_eq!(part.moves()[3].judgement, Some(Judgement::Blunder));
        assert_eq!(whole.moves()[3].judgement, Some(Judgement::Blunder));
    }

    #[test]
    fn a_finished_game_ends_in_a_mate_eval_without_search() {
        // Fool's mate: the final position is checkmate.
        let g = game(&["f3", "e5", "g4", "Qh4#"]);
        let mut review = Review::new(&g);
        review.run(&mut Searcher::new(1), &quick(), 0, &AtomicBool::new(false), &mut |_, _| {});
        let last = review.evals()[4].as_ref().expect("evaluated");
        assert_eq!(last.eval, Eval::Mate { winner: Color::Black, moves: 0 });
        assert_eq!(last.depth, 0);
        let g4 = &review.moves()[2];
        assert_eq!(g4.judgement, Some(Judgement::Blunder), "{g4:?}");
    }

    #[test]
    fn annotate_writes_evals_nags_and_the_better_line() {
        let g = game(&HUNG_QUEEN);
        let mut review = Review::new(&g);
        review.run(&mut Searcher::new(4), &quick(), 0, &AtomicBool::new(false), &mut |_, _| {});
        let mut tree = MoveTree::from_game(&g);
        assert!(review.annotate(&mut tree, 4));
        let main = tree.main_line();
        assert_eq!(tree.main_line_san(), HUNG_QUEEN, "the main line is unchanged");
        let qh4 = tree.node(main[3]);
        assert_eq!(qh4.nags, [4]);
        assert!(qh4.comments[0].starts_with("Blunder. "), "{:?}", qh4.comments);
        assert!(main.iter().all(|&n| tree.node(n).eval.is_some()));
        let nf3 = tree.node(main[2]);
        assert_eq!(nf3.children().len(), 2, "the better move is a variation");
        // A tree of another game is left alone.
        let mut other = MoveTree::from_game(&game(&["d4"]));
        assert!(!review.annotate(&mut other, 4));
        assert!(other.node(other.main_line()[0]).eval.is_none());
    }

    #[test]
    fn background_review_reports_progress_and_stops() {
        let g = game(&HUNG_QUEEN);
        let (tx, rx) = mpsc::channel();
        let handle = spawn(Searcher::new(1), Review::new(&g), quick(), 0, move |p, e| {
            let _ = tx.send((p, e.clone()));
        })
        .expect("a thread");
        // A copy kept elsewhere, filled from the progress alone, is the review itself.
        let mut copy = Review::new(&g);
        let mut plies = Vec::new();
        for (p, e) in rx.iter() {
            plies.push(p.ply);
            assert!(copy.set_eval(p.ply, e));
            assert_eq!(copy.done(), p.done);
        }
        assert_eq!(plies, [0, 1, 2, 3, 4, 5]);
        let (_, review) = handle.join().expect("no panic");
        assert!(review.is_complete());
        assert_eq!(copy.evals(), review.evals());
        assert_eq!(copy.moves(), review.moves());
        assert!(!copy.set_eval(6, review.evals()[0].clone().expect("evaluated")));

        let handle = spawn(
            Searcher::new(1),
            Review::new(&Game::new(Position::new(Variant::Horde))),
            ReviewConfig { limits: Limits::infinite() },
            0,
            |_, _| {},
        )
        .expect("a thread");
        handle.stop();
        let (_, review) = handle.join().expect("no panic");
        assert!(!review.is_complete());
        assert_eq!(review.next_missing(), Some(0));
    }

    #[test]
    fn a_started_review_hands_its_work_back_when_dropped() {
        let g = Game::new(Position::new(Variant::Maharajah));
        let (tx, rx) = mpsc::channel();
        let task = start(
            Searcher::new(1),
            Review::new(&g),
            ReviewConfig { limits: Limits::infinite() },
            0,
            |_, _| {},
            move |searcher, review| drop(tx.send((searcher, review))),
        )
        .expect("a thread");
        // Dropping does not wait for a search that would never end by itself.
        drop(task);
        let (_, review) = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("handed back");
        assert_eq!(review.next_missing(), Some(0));

        let (tx, rx) = mpsc::channel();
        let task =
            start(Searcher::new(1), Review::new(&game(&HUNG_QUEEN)), quick(), 0, |_, _| {}, {
                move |_, review| drop(tx.send(review))
            })
            .expect("a thread");
        let review = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("done");
        assert!(review.is_complete());
        drop(task);
    }

    #[test]
    fn horde_and_maharajah_games_are_reviewed_alike() {
        // Horde: Black takes White's last pawn and wins by capture-all.
        let start = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/3r4/8/3P4 b - - 0 1")
            .expect("a Horde position");
        let mut g = Game::new(start);
        let mv = g.position().parse_san("Rxd1").expect("legal");
        g.play_unchecked(mv);
        let mut review = Review::new(&g);
        assert!(review.run(
            &mut Searcher::new(1),
            &quick(),
            0,
            &AtomicBool::new(false),
            &mut |_, _| {}
        ));
        assert_eq!(
            review.evals()[1].as_ref().map(|e| e.eval),
            Some(Eval::Mate { winner: Color::Black, moves: 0 })
        );
        assert_eq!(review.moves()[0].judgement, None);
        assert!((review.moves()[0].win_after - 100.0).abs() < 1e-9);

        // A Maharajah army (three Chancellors, two Archbishops) against the classic side.
        let start = Position::from_fen(
            Variant::Maharajah,
            "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1",
        )
        .expect("a Maharajah army");
        let mut g = Game::new(start);
        for san in ["Ab3", "e6", "Kf2"] {
            let mv = g.position().parse_san(san).expect("legal");
            g.play_unchecked(mv);
        }
        let mut review = Review::new(&g);
        assert!(review.run(
            &mut Searcher::new(1),
            &quick(),
            0,
            &AtomicBool::new(false),
            &mut |_, _| {}
        ));
        assert_eq!(review.moves().len(), 3);
        assert!(review.evals().iter().flatten().all(|e| e.depth >= 5));
        assert!(review.summary().white.accuracy.is_some());
    }
}
