//! Analysis board and game review for every variant the engine plays (chess, Maharajah armies,
//! Horde), on top of `maharajah-engine`. No Tauri and no I/O: an app calls it from a background
//! thread; the `maharajah-review` program is a thin command line over [`review`] and [`pgn`].
//!
//! # Layout
//! * [`tree`] — [`MoveTree`]: main line, variations, comments, NAGs, evaluations, a cursor.
//! * [`eval`] — [`Eval`]: an evaluation from White's side, in `[%eval …]` form.
//! * [`judge`] — lichess's win-probability model: [`judge::win_percent`], [`Judgement`]
//!   (inaccuracy / mistake / blunder) and move accuracy.
//! * [`analyse`] — engine analysis of one position: best lines (MultiPV 1–3), updates as it
//!   deepens, [`analyse::spawn`] in the background with an [`AnalysisHandle`] to stop it, or
//!   [`analyse::start`] as a [`Task`] that nobody waits for.
//! * [`pgn`] — annotated PGN: [`pgn::to_annotated_pgn`] and [`pgn::from_annotated_pgn`] keep
//!   comments, `[%eval …]`, NAGs and variations (the tags are the engine's).
//! * [`review`] — [`Review`] of a whole game: progress, cancel and resume, per-move judgement,
//!   the better move, accuracy per side; [`review::spawn`] / [`review::start`] in the
//!   background.
//! * [`worker`] — [`Task`] (a thread handing its result to a callback; stopping never waits)
//!   and [`Worker`] (the same, its result waited for).
//!
//! # Threads
//! Everything here is `Send`: an app keeps one `Searcher` per screen, hands it to
//! [`analyse::start`] or [`review::start`] with a callback for the news (which may forward to
//! a channel) and one for the end, calls `stop()` on the task when the screen closes (never
//! waiting), and gets the searcher back in the end callback. A program that waits for the
//! result uses [`analyse::spawn`] / [`review::spawn`] and `join()` or `finish()`.

pub mod analyse;
pub mod eval;
pub mod judge;
pub mod pgn;
pub mod review;
pub mod tree;
pub mod worker;

pub use analyse::{AnalysisConfig, AnalysisHandle, AnalysisUpdate, Line};
pub use eval::{Eval, ParseEvalError, PovEval};
pub use judge::Judgement;
pub use pgn::{from_annotated_pgn, to_annotated_pgn, AnnotatedGame};
pub use review::{
    MoveReview, PositionEval, Progress, Review, ReviewConfig, ReviewHandle, SideSummary,
};
pub use tree::{IllegalMove, MoveTree, Node, NodeId};
pub use worker::{SpawnError, Task, Worker};
