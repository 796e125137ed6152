//! What the analysis screen is sent: the board, the tree, the review and the engine's word.
//! Kept apart from the service so that [`crate::push`] can name these views without importing
//! the service that pushes them.

use maharajah_analysis::analyse::AnalysisUpdate;
use maharajah_analysis::judge::win_percent;
use maharajah_analysis::{Eval, NodeId};
use maharajah_engine::{Color, Move, Variant};
use serde::Serialize;

use crate::chess::session::{BoardView, GameResult, Statuses};

/// An evaluation as the UI shows it: from White's side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalView {
    /// Centipawns (White's view), when it is not a mate.
    pub cp: Option<i32>,
    /// Moves to mate: positive when White mates, negative when Black does, 0 once mated.
    pub mate: Option<i32>,
    /// The side that mates, for a mate.
    pub winner: Option<Color>,
    /// White's winning chances, 0–100 (the evaluation bar and graph).
    pub white_win: f64,
    /// `+0.35`, `#3`, `#-2` (PGN's `[%eval]` form).
    pub text: String,
}

impl EvalView {
    /// The view of `eval`.
    #[must_use]
    pub fn of(eval: Eval) -> EvalView {
        let (cp, mate, winner) = match eval {
            Eval::Cp(cp) => (Some(cp), None, None),
            Eval::Mate { winner, moves } => {
                let n = i32::try_from(moves).unwrap_or(i32::MAX);
                (None, Some(if winner == Color::White { n } else { -n }), Some(winner))
            }
        };
        EvalView {
            cp,
            mate,
            winner,
            white_win: win_percent(eval, Color::White),
            text: eval.to_string(),
        }
    }
}

/// One engine line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineView {
    /// Depth searched.
    pub depth: u32,
    /// Its evaluation.
    pub eval: EvalView,
    /// Its moves in SAN.
    pub san: Vec<String>,
    /// Its moves (UCI).
    pub moves: Vec<Move>,
}

/// What the engine thinks of the current node (pushed as `analysis-engine` after every
/// iteration).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineView {
    /// The node's generation (see the module docs).
    pub generation: u64,
    /// The node analysed.
    pub node: usize,
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds thought.
    pub time_ms: u64,
    /// Best lines, best first.
    pub lines: Vec<LineView>,
    /// The best move (the arrow).
    pub best: Option<Move>,
    /// The best line's evaluation (the bar).
    pub eval: Option<EvalView>,
    /// `true` once the engine has stopped thinking about this node.
    pub finished: bool,
}

impl EngineView {
    pub(super) fn of(generation: u64, node: NodeId, update: &AnalysisUpdate) -> EngineView {
        EngineView {
            generation,
            node: node.index(),
            depth: update.depth,
            nodes: update.nodes,
            time_ms: u64::try_from(update.time.as_millis()).unwrap_or(u64::MAX),
            lines: update
                .lines
                .iter()
                .map(|l| LineView {
                    depth: l.depth,
                    eval: EvalView::of(l.eval),
                    san: l.san.clone(),
                    moves: l.moves.clone(),
                })
                .collect(),
            best: update.best_move(),
            eval: update.eval().map(EvalView::of),
            finished: update.finished,
        }
    }
}

/// One move of the tree, flattened in PGN order (a variation follows the move it replaces).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeMove {
    /// The node.
    pub id: usize,
    /// The node before it (0 is the start).
    pub parent: usize,
    /// Its ply (1 is the first move).
    pub ply: usize,
    /// Move number as PGN writes it.
    pub number: usize,
    /// The side that moved.
    pub color: Color,
    /// The move in SAN.
    pub san: String,
    /// The move (UCI).
    pub mv: Option<Move>,
    /// Nesting: 0 on the main line, 1 in a variation of it, …
    pub depth: usize,
    /// `true` for the first move of a variation.
    pub opens: bool,
    /// Variations that end after this move.
    pub closes: usize,
    /// On the main line.
    pub main: bool,
    /// The cursor is here.
    pub current: bool,
    /// Glyphs: `?!`, `?`, `??`, `!`, … (the review's and the imported ones).
    pub glyphs: Vec<String>,
    /// The review's judgement: `inaccuracy`, `mistake`, `blunder`.
    pub judgement: Option<&'static str>,
    /// The engine's better move (SAN) for a judged move.
    pub better: Option<String>,
    /// The evaluation after the move, once known.
    pub eval: Option<EvalView>,
    /// Comments after the move.
    pub comments: Vec<String>,
}

/// One point of the evaluation graph: a main-line position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphPoint {
    /// Plies played (0 is the start).
    pub ply: usize,
    /// The node (tap to jump).
    pub node: usize,
    /// White's winning chances, 0–100, once evaluated.
    pub white_win: Option<f64>,
}

/// A side's review figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SideView {
    /// Accuracy 0–100.
    pub accuracy: Option<f64>,
    /// `?!` count.
    pub inaccuracies: usize,
    /// `?` count.
    pub mistakes: usize,
    /// `??` count.
    pub blunders: usize,
}

/// The review as it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewView {
    /// The engine is reviewing now.
    pub running: bool,
    /// Positions evaluated.
    pub done: usize,
    /// Positions in the main line (moves + 1).
    pub total: usize,
    /// Every position is evaluated and the tree annotated (the review thread has ended).
    pub complete: bool,
    /// The evaluation graph, one point per main-line position.
    pub graph: Vec<GraphPoint>,
    /// White's figures.
    pub white: SideView,
    /// Black's figures.
    pub black: SideView,
}

/// Everything the analysis screen draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnalysisView {
    /// Grows with every view made: a lower revision than the one shown is stale.
    pub revision: u64,
    /// The current node's generation: engine updates carry it.
    pub generation: u64,
    /// The variant.
    pub variant: Variant,
    /// The board at the cursor.
    pub board: BoardView,
    /// Legal moves there.
    pub legal: Vec<Move>,
    /// FEN there.
    pub fen: String,
    /// The current node (0 is the start).
    pub node: usize,
    /// The cursor is at the start.
    pub at_start: bool,
    /// No move follows the cursor.
    pub at_end: bool,
    /// The cursor is on the main line.
    pub on_main_line: bool,
    /// The tree, flattened.
    pub moves: Vec<TreeMove>,
    /// Lines the engine shows (1–3).
    pub lines: usize,
    /// The engine's latest word on this node.
    pub engine: Option<EngineView>,
    /// The live engine is thinking.
    pub thinking: bool,
    /// The review, once started.
    pub review: Option<ReviewView>,
    /// Maharajah statuses.
    pub statuses: Option<Statuses>,
    /// How the game stands ended at the cursor, if the rules ended it.
    pub result: Option<GameResult>,
    /// Comments before the first move.
    pub intro: Vec<String>,
}
