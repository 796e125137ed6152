//! The analysis board as the app runs it: one [`Analysis`] session holding a [`MoveTree`],
//! opened from the local game, a saved or network game, a pasted PGN/FEN or two armies; live
//! engine analysis of the current node and a game review, both on background threads, their
//! news pushed as [`Push::AnalysisEngine`] and [`Push::Analysis`]. Commands only move the cursor
//! or the tree and start or stop threads: the engine never runs on a command's thread.
//!
//! Numbering: every view carries a `revision` (newer views have higher ones) and a `generation`
//! (the node being analysed); an engine update whose generation is not the view's is stale.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use maharajah_analysis::analyse::{self, AnalysisConfig, AnalysisUpdate, MAX_LINES};
use maharajah_analysis::judge::win_percent;
use maharajah_analysis::{
    from_annotated_pgn, review, to_annotated_pgn, Judgement, MoveReview, MoveTree, NodeId,
    PositionEval, Progress, Review, ReviewConfig, Task,
};
use maharajah_engine::search::{Limits, Searcher};
use maharajah_engine::{Army, Color, Game, Move, PgnTags, Position, Variant};
use serde::Deserialize;

use crate::chess::army;
use crate::chess::session::{board_of, position_from_fen, GameResult, Statuses};
use crate::error::AppError;
use crate::push::{Push, Sink};
use crate::record::GameRecord;

pub(crate) mod view;
pub use view::{
    AnalysisView, EngineView, EvalView, GraphPoint, LineView, ReviewView, SideView, TreeMove,
};

/// Transposition table of the analysis searcher, in megabytes.
const HASH_MB: usize = 16;

/// How far the live analysis of one node goes at most (it stops sooner when the node changes).
pub const LIVE_NODES: u64 = 3_000_000;

/// Moves of a better line the review writes into the tree as a variation.
const BETTER_LINE_MOVES: usize = 6;

/// Where an analysis board starts from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// The local game open on the game screen, at its current position.
    Current,
    /// A saved local game.
    Saved {
        /// Its row id.
        id: i64,
    },
    /// The network game (online or LAN) open now, finished or not.
    Net,
    /// Pasted text: an (annotated) PGN or a FEN.
    Text {
        /// The text.
        text: String,
    },
    /// The start position of two armies (the army builder's "analyse this start").
    Armies {
        /// White's army.
        white: Army,
        /// Black's army.
        black: Army,
    },
    /// The standard start of a variant.
    Start {
        /// The variant.
        variant: Variant,
    },
}

/// How hard the engine works (tests use small limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The live analysis of a node.
    pub live: Limits,
    /// Each position of a review.
    pub review: ReviewConfig,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { live: Limits::nodes(LIVE_NODES), review: ReviewConfig::default() }
    }
}

/// The open board.
struct Board {
    tree: MoveTree,
    tags: Vec<(String, String)>,
    lines: usize,
    generation: u64,
    engine: Option<EngineView>,
    /// The live engine's thread (dropping it stops it without waiting).
    running: Option<Task>,
    /// The review so far: the running review's evaluations are copied in as they come.
    review: Option<Review>,
    /// The review thread running now (dropping it stops it without waiting).
    reviewing: Option<Task>,
    /// The number of the latest review thread: only its news is taken.
    review_number: u64,
    /// That thread's progress.
    progress: Option<Progress>,
}

struct Shared {
    board: Mutex<Option<Board>>,
    spare: Mutex<Option<Searcher>>,
    counter: AtomicU64,
    revision: AtomicU64,
    settings: Mutex<Settings>,
    sink: Arc<dyn Sink>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn searcher(&self) -> Searcher {
        lock(&self.spare).take().unwrap_or_else(|| Searcher::new(HASH_MB))
    }

    fn next(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// The analysis board service (one board at a time). Cloning it is cheap (a handle).
#[derive(Clone)]
pub struct Analysis(Arc<Shared>);

impl std::fmt::Debug for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analysis").finish_non_exhaustive()
    }
}

fn no_board() -> AppError {
    AppError::new("no_analysis", "no analysis board is open")
}

fn glyph(nag: u8) -> Option<&'static str> {
    Some(match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        _ => return None,
    })
}

/// The game of a saved record.
///
/// # Errors
/// `bad_import` when its FEN or moves no longer replay.
pub fn game_of_record(record: &GameRecord) -> Result<Game, AppError> {
    let bad = |e: String| AppError::new("bad_import", format!("could not read the game: {e}"));
    let start =
        Position::from_fen(record.variant, &record.start_fen).map_err(|e| bad(e.to_string()))?;
    let mut game = Game::new(start);
    for &mv in &record.moves {
        game.play(mv).map_err(|e| bad(e.to_string()))?;
    }
    Ok(game)
}

/// Reads pasted text: an annotated PGN (comments, NAGs, variations kept) or a FEN.
///
/// # Errors
/// `bad_import` when it is neither.
pub fn read_text(text: &str) -> Result<(MoveTree, Vec<(String, String)>), AppError> {
    let text = text.trim();
    let bad = |e: String| AppError::new("bad_import", format!("could not read the game: {e}"));
    if text.is_empty() {
        return Err(bad("the text is empty".to_owned()));
    }
    let looks_like_fen = !text.contains('[')
        && text.split_whitespace().next().is_some_and(|board| board.matches('/').count() == 7);
    if looks_like_fen {
        let position = position_from_fen(text).map_err(|e| bad(e.to_string()))?;
        return Ok((MoveTree::new(position), Vec::new()));
    }
    let game = from_annotated_pgn(text).map_err(|e| bad(e.to_string()))?;
    // The engine writes these itself from the tree.
    let tags = game
        .tags
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_str(), "Variant" | "SetUp" | "FEN"))
        .collect();
    Ok((game.tree, tags))
}

impl Analysis {
    /// A service pushing to `sink`.
    #[must_use]
    pub fn new(sink: Arc<dyn Sink>) -> Analysis {
        Analysis(Arc::new(Shared {
            board: Mutex::new(None),
            spare: Mutex::new(None),
            counter: AtomicU64::new(0),
            revision: AtomicU64::new(0),
            settings: Mutex::new(Settings::default()),
            sink,
        }))
    }

    /// Changes how hard the engine works from the next analysis on.
    pub fn set_settings(&self, settings: Settings) {
        *lock(&self.0.settings) = settings;
    }

    /// Opens a board on `tree` (the cursor where it is), with PGN `tags` for the export, and
    /// starts the engine on the cursor's node. A board open before is closed.
    pub fn open_tree(&self, tree: MoveTree, tags: Vec<(String, String)>) -> AnalysisView {
        self.close();
        let mut guard = lock(&self.0.board);
        let board = guard.insert(Board {
            tree,
            tags,
            lines: 1,
            generation: 0,
            engine: None,
            running: None,
            review: None,
            reviewing: None,
            review_number: 0,
            progress: None,
        });
        restart(&self.0, board);
        view(&self.0, board)
    }

    /// Opens a board on `game`, the cursor at its last position (`at_end`) or at the start.
    pub fn open_game(
        &self,
        game: &Game,
        tags: Vec<(String, String)>,
        at_end: bool,
    ) -> AnalysisView {
        let mut tree = MoveTree::from_game(game);
        if at_end {
            tree.go_to_end();
        }
        self.open_tree(tree, tags)
    }

    /// Opens a board on pasted text (see [`read_text`]), the cursor at the start.
    ///
    /// # Errors
    /// `bad_import`.
    pub fn open_text(&self, text: &str) -> Result<AnalysisView, AppError> {
        let (tree, tags) = read_text(text)?;
        Ok(self.open_tree(tree, tags))
    }

    /// Opens a board on the start of two armies.
    ///
    /// # Errors
    /// `bad_start` naming the broken rules.
    pub fn open_armies(&self, white: &Army, black: &Army) -> Result<AnalysisView, AppError> {
        let start = army::start(white, black).map_err(|problems| {
            AppError::new(
                "bad_start",
                problems.iter().map(|p| p.message.clone()).collect::<Vec<_>>().join("; "),
            )
        })?;
        Ok(self.open_tree(MoveTree::new(start), Vec::new()))
    }

    /// Closes the board: the engine and the review stop (their threads end by themselves).
    pub fn close(&self) {
        drop(lock(&self.0.board).take());
    }

    /// The open board's view.
    #[must_use]
    pub fn view(&self) -> Option<AnalysisView> {
        let mut guard = lock(&self.0.board);
        guard.as_mut().map(|b| view(&self.0, b))
    }

    /// Runs `action` on the open board; when it moved the cursor, the engine restarts there.
    fn act(
        &self,
        action: impl FnOnce(&mut MoveTree) -> Result<(), AppError>,
    ) -> Result<AnalysisView, AppError> {
        let mut guard = lock(&self.0.board);
        let board = guard.as_mut().ok_or_else(no_board)?;
        let before = board.tree.current();
        action(&mut board.tree)?;
        if board.tree.current() != before || !board.tree.contains(before) {
            restart(&self.0, board);
        }
        Ok(view(&self.0, board))
    }

    /// Plays a move (UCI such as `e2e4`, or SAN) at the cursor: follows the move if the tree
    /// has it, else adds a variation.
    ///
    /// # Errors
    /// `no_analysis`; `bad_move` when it is not legal there.
    pub fn play(&self, text: &str) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            let text = text.trim();
            let bad = || AppError::new("bad_move", format!("{text:?} is not a move here"));
            let position = tree.position();
            let mv = match text.parse::<Move>() {
                Ok(mv) if position.is_legal(mv) => mv,
                _ => position.parse_san(text).map_err(|_| bad())?,
            };
            tree.play(mv).map(drop).map_err(|_| bad())
        })
    }

    /// One move back.
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn back(&self) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.back();
            Ok(())
        })
    }

    /// One move forward (along the line the cursor is on).
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn forward(&self) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.forward();
            Ok(())
        })
    }

    /// To the start.
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn first(&self) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.go_to_start();
            Ok(())
        })
    }

    /// To the end of the line the cursor is on.
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn last(&self) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.go_to_end();
            Ok(())
        })
    }

    /// To node `id`.
    ///
    /// # Errors
    /// `no_analysis`; `no_node` when the tree has no such node.
    pub fn go_to(&self, id: usize) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.go_to(NodeId::from_index(id))
                .then_some(())
                .ok_or_else(|| AppError::new("no_node", format!("no move {id} here")))
        })
    }

    /// Makes node `id`'s line the main line.
    ///
    /// # Errors
    /// `no_analysis`; `no_node`.
    pub fn promote(&self, id: usize) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.promote(NodeId::from_index(id))
                .then_some(())
                .ok_or_else(|| AppError::new("no_node", format!("no move {id} here")))
        })
    }

    /// Deletes node `id` and what follows it (the cursor goes to its parent if it was inside).
    ///
    /// # Errors
    /// `no_analysis`; `no_node` (the start cannot be deleted).
    pub fn delete(&self, id: usize) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.delete(NodeId::from_index(id))
                .then_some(())
                .ok_or_else(|| AppError::new("no_node", format!("no move {id} to delete")))
        })
    }

    /// Back to the main line (where the cursor's variation branched off).
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn main_line(&self) -> Result<AnalysisView, AppError> {
        self.act(|tree| {
            tree.to_main_line();
            Ok(())
        })
    }

    /// Shows `lines` engine lines (1–3); the engine restarts.
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn set_lines(&self, lines: usize) -> Result<AnalysisView, AppError> {
        let mut guard = lock(&self.0.board);
        let board = guard.as_mut().ok_or_else(no_board)?;
        board.lines = lines.clamp(1, MAX_LINES);
        restart(&self.0, board);
        Ok(view(&self.0, board))
    }

    /// Starts (or resumes) the review of the main line in the background; progress is pushed
    /// as `analysis` views. The live engine rests meanwhile.
    ///
    /// # Errors
    /// `no_analysis`; `internal` when no thread can be started.
    pub fn review(&self) -> Result<AnalysisView, AppError> {
        let mut guard = lock(&self.0.board);
        let board = guard.as_mut().ok_or_else(no_board)?;
        if board.reviewing.is_some() {
            return Ok(view(&self.0, board));
        }
        let game = board.tree.main_game();
        let review = match board.review.take() {
            Some(r) if same_game(r.game(), &game) => r,
            _ => Review::new(&game),
        };
        if review.is_complete() {
            // Annotated when it completed.
            board.review = Some(review);
            return Ok(view(&self.0, board));
        }
        board.running = None;
        board.engine = None;
        let number = self.0.next();
        let from = review.next_missing().unwrap_or(0);
        board.progress =
            Some(Progress { done: review.done(), total: game.moves().len() + 1, ply: from });
        board.review = Some(review.clone());
        board.review_number = number;
        let config = lock(&self.0.settings).review;
        let (news, end) = (Arc::downgrade(&self.0), Arc::downgrade(&self.0));
        let task = review::start(
            self.0.searcher(),
            review,
            config,
            from,
            move |progress, eval| reviewed(&news, number, progress, eval),
            move |searcher, review| review_ended(&end, number, searcher, review),
        )
        .map_err(|e| AppError::new("internal", format!("could not start the review: {e}")))?;
        board.reviewing = Some(task);
        Ok(view(&self.0, board))
    }

    /// Stops the review (what is done is kept: [`Analysis::review`] resumes it).
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn stop_review(&self) -> Result<AnalysisView, AppError> {
        let mut guard = lock(&self.0.board);
        let board = guard.as_mut().ok_or_else(no_board)?;
        if board.reviewing.take().is_some() {
            board.progress = None;
            restart(&self.0, board);
        }
        Ok(view(&self.0, board))
    }

    /// The board as annotated PGN (evaluations, NAGs, comments, variations).
    ///
    /// # Errors
    /// `no_analysis`.
    pub fn pgn(&self) -> Result<String, AppError> {
        let guard = lock(&self.0.board);
        let board = guard.as_ref().ok_or_else(no_board)?;
        // A complete review is written into the tree already.
        Ok(to_annotated_pgn(&board.tree, &PgnTags { extra: board.tags.clone() }))
    }
}

fn same_game(a: &Game, b: &Game) -> bool {
    a.moves() == b.moves() && a.start().to_string() == b.start().to_string()
}

/// One position of the running review `number` is evaluated: the board's copy of the review
/// takes it (so the graph and the marks show the part done) and the view is pushed.
fn reviewed(shared: &Weak<Shared>, number: u64, progress: Progress, eval: &PositionEval) {
    let Some(shared) = shared.upgrade() else { return };
    let view = {
        let mut guard = lock(&shared.board);
        match guard.as_mut() {
            Some(board) if board.review_number == number && board.reviewing.is_some() => {
                board.progress = Some(progress);
                if let Some(review) = board.review.as_mut() {
                    review.set_eval(progress.ply, eval.clone());
                }
                Some(view(&shared, board))
            }
            _ => None,
        }
    };
    if let Some(view) = view {
        shared.sink.push(Push::Analysis(Box::new(view)));
    }
}

/// The review thread `number` has ended (complete, or stopped): the searcher is kept for the
/// next analysis and, if the board still waits for this thread, the review goes back to it
/// (annotated into the tree once complete; a later review resumes a partial one), the live
/// engine starts again and the view is pushed.
fn review_ended(shared: &Weak<Shared>, number: u64, searcher: Searcher, review: Review) {
    let Some(shared) = shared.upgrade() else { return };
    *lock(&shared.spare) = Some(searcher);
    let view = {
        let mut guard = lock(&shared.board);
        match guard.as_mut() {
            Some(board) if board.review_number == number => {
                if board.reviewing.take().is_some() {
                    restart(&shared, board);
                }
                board.progress = None;
                if review.is_complete() {
                    review.annotate(&mut board.tree, BETTER_LINE_MOVES);
                }
                board.review = Some(review);
                Some(view(&shared, board))
            }
            _ => None,
        }
    };
    if let Some(view) = view {
        shared.sink.push(Push::Analysis(Box::new(view)));
    }
}

/// A new generation for the cursor's node: the engine's old word is forgotten and, unless a
/// review runs, the engine starts there.
fn restart(shared: &Arc<Shared>, board: &mut Board) {
    board.running = None;
    board.generation = shared.next();
    board.engine = None;
    if board.reviewing.is_some() {
        return;
    }
    let generation = board.generation;
    let node = board.tree.current();
    let game = board.tree.game_at(node);
    let config = AnalysisConfig { lines: board.lines, limits: lock(&shared.settings).live };
    let weak = Arc::downgrade(shared);
    let on_update = move |update: &AnalysisUpdate| {
        let Some(shared) = weak.upgrade() else { return };
        let engine = EngineView::of(generation, node, update);
        {
            let mut guard = lock(&shared.board);
            match guard.as_mut() {
                Some(board) if board.generation == generation => {
                    board.engine = Some(engine.clone());
                }
                _ => return,
            }
        }
        shared.sink.push(Push::AnalysisEngine(engine));
    };
    let end = Arc::downgrade(shared);
    let then = move |searcher: Searcher, _: AnalysisUpdate| {
        if let Some(shared) = end.upgrade() {
            *lock(&shared.spare) = Some(searcher);
        }
    };
    board.running = analyse::start(shared.searcher(), game, config, on_update, then).ok();
}

/// The view of `board` (a new revision).
fn view(shared: &Shared, board: &Board) -> AnalysisView {
    let tree = &board.tree;
    let current = tree.current();
    let node = tree.current_node();
    let position = node.position();
    let game = tree.game_at(current);
    let main = tree.main_game();
    let review = board.review.as_ref().filter(|r| same_game(r.game(), &main));
    let reviewed: HashMap<NodeId, MoveReview> = match review {
        Some(r) => {
            let line = tree.main_line();
            r.moves().into_iter().filter_map(|m| Some((*line.get(m.ply - 1)?, m))).collect()
        }
        None => HashMap::new(),
    };
    let mut moves = Vec::new();
    flatten(tree, tree.root(), 0, &reviewed, &mut moves);
    let finished = game.outcome();
    AnalysisView {
        revision: shared.revision.fetch_add(1, Ordering::Relaxed) + 1,
        generation: board.generation,
        variant: position.rules().variant,
        board: board_of(position, node.mv(), tree.path(current).len() - 1),
        legal: if finished.is_some() {
            Vec::new()
        } else {
            position.legal_moves().iter().copied().collect()
        },
        fen: position.to_string(),
        node: current.index(),
        at_start: current == tree.root(),
        at_end: node.children().is_empty(),
        on_main_line: tree.is_main_line(current),
        moves,
        lines: board.lines,
        engine: board.engine.clone(),
        thinking: board.running.as_ref().is_some_and(|h| !h.is_finished()),
        review: review.map(|r| review_view(tree, r, board)),
        statuses: match (
            position.rules().side(Color::White).status,
            position.rules().side(Color::Black).status,
        ) {
            (Some(white), Some(black)) => Some(Statuses { white, black }),
            _ => None,
        },
        result: finished.map(GameResult::from_outcome),
        intro: tree.node(tree.root()).comments.clone(),
    }
}

fn review_view(tree: &MoveTree, review: &Review, board: &Board) -> ReviewView {
    let line = tree.main_line();
    let graph = review
        .evals()
        .iter()
        .enumerate()
        .map(|(ply, e)| GraphPoint {
            ply,
            node: if ply == 0 {
                tree.root().index()
            } else {
                line.get(ply - 1).map_or(0, |n| n.index())
            },
            white_win: e.as_ref().map(|e| win_percent(e.eval, Color::White)),
        })
        .collect();
    let summary = review.summary();
    let side = |s: maharajah_analysis::SideSummary| SideView {
        accuracy: s.accuracy,
        inaccuracies: s.inaccuracies,
        mistakes: s.mistakes,
        blunders: s.blunders,
    };
    let running = board.reviewing.is_some();
    ReviewView {
        running,
        done: board.progress.filter(|_| running).map_or(review.done(), |p| p.done),
        total: review.evals().len(),
        // Complete once the thread has ended and annotated the tree (the last position's news
        // comes first: an export right after it would miss the marks).
        complete: !running && review.is_complete(),
        graph,
        white: side(summary.white),
        black: side(summary.black),
    }
}

/// Appends the moves after `at` in PGN order: the continuation's move, then each variation
/// (opened and closed), then the rest of the continuation.
fn flatten(
    tree: &MoveTree,
    at: NodeId,
    depth: usize,
    reviewed: &HashMap<NodeId, MoveReview>,
    out: &mut Vec<TreeMove>,
) {
    let children = tree.node(at).children();
    let Some(&first) = children.first() else { return };
    out.push(tree_move(tree, first, depth, false, reviewed));
    for &variation in &children[1..] {
        out.push(tree_move(tree, variation, depth + 1, true, reviewed));
        flatten(tree, variation, depth + 1, reviewed, out);
        if let Some(last) = out.last_mut() {
            last.closes += 1;
        }
    }
    flatten(tree, first, depth, reviewed, out);
}

fn tree_move(
    tree: &MoveTree,
    id: NodeId,
    depth: usize,
    opens: bool,
    reviewed: &HashMap<NodeId, MoveReview>,
) -> TreeMove {
    let node = tree.node(id);
    let parent = node.parent().unwrap_or(tree.root());
    let before = tree.node(parent).position();
    let ply = tree.path(id).len() - 1;
    let review = reviewed.get(&id);
    let judgement = review.and_then(|r| r.judgement);
    let mut glyphs: Vec<String> = Vec::new();
    if let Some(j) = judgement {
        glyphs.push(j.glyph().to_owned());
    }
    for &nag in &node.nags {
        if let Some(g) = glyph(nag) {
            if Judgement::from_nag(nag).is_none() || (judgement.is_none() && review.is_none()) {
                glyphs.push(g.to_owned());
            }
        }
    }
    glyphs.dedup();
    let eval = review.map(|r| r.eval_after).or(node.eval);
    TreeMove {
        id: id.index(),
        parent: parent.index(),
        ply,
        number: usize::try_from(before.fullmove_number()).unwrap_or(0),
        color: before.turn(),
        san: node.san().to_owned(),
        mv: node.mv(),
        depth,
        opens,
        closes: 0,
        main: tree.is_main_line(id),
        current: tree.current() == id,
        glyphs,
        judgement: judgement.map(|j| match j {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }),
        better: judgement
            .and_then(|_| review.and_then(|r| r.better_san.as_ref()?.first().cloned())),
        eval: eval.map(EvalView::of),
        comments: node.comments.clone(),
    }
}

impl crate::Services {
    /// Saves the analysis board's annotated PGN (evaluations, NAGs, comments, variations) as
    /// `maharajah-analysis-<date>.pgn` in the folder game exports go to (a new name when that
    /// file exists); returns the file's path.
    ///
    /// # Errors
    /// `no_analysis`, `write_failed`.
    pub fn analysis_save_pgn(&self) -> Result<String, AppError> {
        let text = self.analysis.pgn()?;
        let date = crate::chess::local::pgn_date(self.chess.unix()).replace('.', "-");
        let name = format!("maharajah-analysis-{date}");
        let path =
            crate::chess::local::write_pgn_file(self.chess.export_dir(), &name, true, &text)?;
        Ok(path.display().to_string())
    }

    /// Opens the analysis board on `source` (the cursor at the position the game is at; at the
    /// start for pasted text and armies).
    ///
    /// # Errors
    /// `no_game` (no local or network game open), `storage`, `bad_import`, `bad_start`.
    pub fn analysis_open(&self, source: Source) -> Result<AnalysisView, AppError> {
        match source {
            Source::Current => {
                let (game, names) = {
                    let core = self.chess.core();
                    let game = core
                        .game()
                        .cloned()
                        .ok_or_else(|| AppError::from(crate::error::CoreError::NoGame))?;
                    (game, core.names().cloned().unwrap_or_default())
                };
                Ok(self.analysis.open_game(&game, name_tags(&names), true))
            }
            Source::Saved { id } => {
                let record = self
                    .chess
                    .core()
                    .store()
                    .load(id)
                    .map_err(|e| AppError::from(crate::error::CoreError::Store(e)))?;
                let game = game_of_record(&record)?;
                let mut tags = name_tags(&record.names);
                if let Some(result) = record.result {
                    tags.push(("Result".to_owned(), result.pgn().to_owned()));
                }
                Ok(self.analysis.open_game(&game, tags, true))
            }
            Source::Net => {
                let game = self
                    .net
                    .game()
                    .ok_or_else(|| AppError::new("no_game", "no network game is open"))?;
                Ok(self.analysis.open_game(&game, Vec::new(), true))
            }
            Source::Text { text } => self.analysis.open_text(&text),
            Source::Armies { white, black } => self.analysis.open_armies(&white, &black),
            Source::Start { variant } => {
                Ok(self.analysis.open_tree(MoveTree::new(Position::new(variant)), Vec::new()))
            }
        }
    }
}

/// The PGN `White` / `Black` tags of the players who gave their names (pass-and-play).
fn name_tags(names: &crate::record::Names) -> Vec<(String, String)> {
    [("White", &names.white), ("Black", &names.black)]
        .into_iter()
        .filter_map(|(tag, name)| name.clone().map(|name| (tag.to_owned(), name)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{self, Receiver};
    use std::time::Duration;

    use super::*;

    /// 1. e4 e5 2. Nf3 Qh4?? 3. Nxh4: Black hangs the queen.
    const HUNG_QUEEN: &str = "1. e4 e5 2. Nf3 Qh4 3. Nxh4 *";

    fn board() -> (Analysis, Receiver<Push>) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let analysis = Analysis::new(Arc::new(move |push: Push| drop(lock(&tx).send(push))));
        analysis.set_settings(Settings {
            live: Limits::depth(4),
            review: ReviewConfig { limits: Limits::depth(5) },
        });
        (analysis, rx)
    }

    /// Waits for the first push that `want` accepts.
    fn wait<T>(rx: &Receiver<Push>, mut want: impl FnMut(Push) -> Option<T>) -> T {
        loop {
            let push = rx.recv_timeout(Duration::from_secs(60)).expect("a push in time");
            if let Some(found) = want(push) {
                return found;
            }
        }
    }

    fn done_review(rx: &Receiver<Push>) -> AnalysisView {
        wait(rx, |p| match p {
            Push::Analysis(v) if v.review.as_ref().is_some_and(|r| !r.running) => Some(*v),
            _ => None,
        })
    }

    #[test]
    fn the_engine_finds_the_mate_in_the_background_and_stale_words_are_dropped() {
        let (analysis, rx) = board();
        let view = analysis.open_text("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").expect("a FEN");
        assert_eq!(view.variant, Variant::Chess);
        let engine = wait(&rx, |p| match p {
            Push::AnalysisEngine(e) if e.finished => Some(e),
            _ => None,
        });
        assert_eq!(engine.generation, view.generation);
        assert_eq!(engine.best, Some("a1a8".parse().expect("uci")));
        assert_eq!(engine.lines[0].san[0], "Ra8#");
        assert_eq!(engine.eval.as_ref().and_then(|e| e.mate), Some(1));
        assert_eq!(analysis.view().expect("open").engine, Some(engine.clone()));
        // A move starts a new generation; the board shows nothing of the old one.
        let after = analysis.play("a1a8").expect("legal");
        assert_ne!(after.generation, view.generation);
        assert!(after.engine.as_ref().is_none_or(|e| e.generation == after.generation));
        assert_eq!(after.result.map(|r| r.winner), Some(Some(Color::White)));
        assert!(after.legal.is_empty());
        analysis.close();
        assert!(analysis.view().is_none());
        assert_eq!(analysis.back().map(|_| ()).expect_err("refused").code, "no_analysis");
    }

    #[test]
    fn variations_are_made_flattened_promoted_deleted_and_left() {
        let (analysis, _rx) = board();
        analysis.open_tree(MoveTree::new(Position::new(Variant::Chess)), Vec::new());
        analysis.play("e2e4").expect("legal");
        analysis.play("e5").expect("legal");
        analysis.play("Nf3").expect("legal");
        analysis.back().expect("open");
        let v = analysis.play("Nc3").expect("legal");
        assert!(!v.on_main_line);
        let sans: Vec<_> =
            v.moves.iter().map(|m| (m.san.as_str(), m.depth, m.opens, m.closes)).collect();
        assert_eq!(
            sans,
            [("e4", 0, false, 0), ("e5", 0, false, 0), ("Nf3", 0, false, 0), ("Nc3", 1, true, 1)]
        );
        let nc3 = v.node;
        assert!(v.moves.iter().any(|m| m.id == nc3 && m.current && !m.main));
        assert_eq!(analysis.play("x9").map(|_| ()).expect_err("refused").code, "bad_move");
        // Back to the main line: the cursor goes where the variation branched off (after e5).
        let v = analysis.main_line().expect("open");
        assert!(v.on_main_line);
        assert_eq!(v.board.ply, 2);
        let v = analysis.last().expect("open");
        assert_eq!(v.board.ply, 3);
        assert_eq!(v.moves.iter().find(|m| m.current).map(|m| m.san.as_str()), Some("Nf3"));
        // Promote Nc3: it is the main line now.
        let v = analysis.promote(nc3).expect("a node");
        assert_eq!(
            v.moves.iter().filter(|m| m.main).map(|m| m.san.as_str()).collect::<Vec<_>>(),
            ["e4", "e5", "Nc3"]
        );
        let v = analysis.delete(nc3).expect("a node");
        assert!(v.moves.iter().all(|m| m.id != nc3));
        assert_eq!(v.moves.len(), 3);
        let v = analysis.first().expect("open");
        assert!(v.at_start);
        let v = analysis.forward().expect("open");
        assert_eq!(v.board.ply, 1);
        assert_eq!(analysis.go_to(999).map(|_| ()).expect_err("refused").code, "no_node");
        assert!(analysis.go_to(0).expect("the start").at_start);
    }

    #[test]
    fn a_review_marks_the_hung_queen_and_the_export_reads_back() {
        let (analysis, rx) = board();
        let opened = analysis.open_text(HUNG_QUEEN).expect("a PGN");
        assert_eq!(opened.moves.len(), 5);
        let started = analysis.review().expect("open");
        assert!(started.review.as_ref().is_some_and(|r| r.running && r.total == 6));
        assert!(started.engine.is_none(), "the live engine rests during a review");
        let done = done_review(&rx);
        let review = done.review.as_ref().expect("a review");
        assert!(review.complete);
        assert_eq!(review.done, 6);
        assert_eq!(review.graph.len(), 6);
        assert!(review.graph.iter().all(|p| p.white_win.is_some()));
        assert_eq!(review.black.blunders, 1);
        assert!(review.white.accuracy.is_some_and(|a| a > review.black.accuracy.unwrap_or(100.0)));
        let qh4 = done.moves.iter().find(|m| m.san == "Qh4" && m.main).expect("Qh4");
        assert_eq!(qh4.judgement, Some("blunder"));
        assert_eq!(qh4.glyphs, ["??"]);
        assert!(qh4.better.is_some());
        assert!(qh4.eval.is_some());
        // The better line is a variation now.
        assert!(done.moves.iter().any(|m| !m.main));

        let pgn = analysis.pgn().expect("open");
        assert!(pgn.contains("Qh4??"), "{pgn}");
        assert!(pgn.contains("[%eval"), "{pgn}");
        assert_eq!(pgn.matches("Blunder.").count(), 1, "{pgn}");
        let back = analysis.open_text(&pgn).expect("its own export");
        let qh4 = back.moves.iter().find(|m| m.san == "Qh4" && m.main).expect("Qh4");
        assert_eq!(qh4.glyphs, ["??"]);
        assert!(qh4.eval.is_some());
        assert_eq!(back.moves.len(), done.moves.len());
        assert_eq!(analysis.pgn().expect("open"), pgn);
    }

    #[test]
    fn a_stopped_review_resumes_where_it_stopped() {
        let (analysis, rx) = board();
        analysis.set_settings(Settings {
            live: Limits::depth(2),
            review: ReviewConfig { limits: Limits::depth(6) },
        });
        analysis.open_text("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *").expect("a PGN");
        analysis.review().expect("open");
        // Wait for some progress, then stop.
        let part = wait(&rx, |p| match p {
            Push::Analysis(v) if v.review.as_ref().is_some_and(|r| r.done >= 2) => v.review,
            _ => None,
        });
        // The graph draws the part done as it goes: the first `done` points, no others.
        assert!(part.running && !part.complete);
        let drawn: Vec<_> = part.graph.iter().map(|p| p.white_win.is_some()).collect();
        assert_eq!(drawn.iter().filter(|&&d| d).count(), part.done, "{drawn:?}");
        assert!(drawn[..part.done].iter().all(|&d| d), "{drawn:?}");
        let stopped = analysis.stop_review().expect("open");
        assert!(stopped.review.as_ref().is_some_and(|r| !r.running));
        let kept = done_review(&rx);
        let partial = kept.review.expect("kept").done;
        assert!(partial >= 2);
        let resumed = analysis.review().expect("open");
        assert!(resumed.review.as_ref().is_some_and(|r| r.running && r.done == partial));
        let done = done_review(&rx);
        assert!(done.review.is_some_and(|r| r.complete && r.done == 11));
    }

    #[test]
    fn armies_and_variants_open_at_their_start() {
        let (analysis, _rx) = board();
        let white = Army::orthodox(Color::White);
        let black = Army::orthodox(Color::Black);
        let v = analysis.open_armies(&white, &black).expect("a legal start");
        assert!(v.at_start && v.at_end);
        assert!(!v.legal.is_empty());
        let v = analysis.open_tree(MoveTree::new(Position::new(Variant::Horde)), Vec::new());
        assert_eq!(v.variant, Variant::Horde);
        assert_eq!(
            analysis.open_text("not a game").map(|_| ()).expect_err("refused").code,
            "bad_import"
        );
    }

    #[test]
    fn the_app_opens_the_board_on_its_local_game_a_saved_game_and_a_start() {
        use crate::chess::session::Opponent;
        let dir = std::env::temp_dir().join(format!("maharajah-analysis-{}", std::process::id()));
        let app = crate::App::open(
            &dir.join("games.sqlite"),
            &dir,
            crate::lan::LanConfig::loopback(),
            crate::time::system(),
            Arc::new(|_: Push| {}),
        )
        .expect("an app");
        assert_eq!(
            app.analysis_open(Source::Current).map(|_| ()).expect_err("no game").code,
            "no_game"
        );
        let game = app
            .chess
            .act(|core, now, unix| {
                core.new_variant_game(Variant::Chess, Opponent::Human, None, now, unix)
            })
            .expect("a game");
        for mv in ["e2e4", "e7e5"] {
            app.chess.act(|core, now, unix| core.play(mv, now, unix)).expect("legal");
        }
        let current = app.analysis_open(Source::Current).expect("the open game");
        assert_eq!(current.board.ply, 2, "the cursor at the game's position");
        assert!(current.at_end);
        assert_eq!(current.moves.iter().map(|m| m.san.as_str()).collect::<Vec<_>>(), ["e4", "e5"]);
        let saved = app.analysis_open(Source::Saved { id: game.id }).expect("the saved game");
        assert_eq!(saved.fen, current.fen);
        let missing =
            app.analysis_open(Source::Saved { id: 9999 }).map(|_| ()).expect_err("no such game");
        assert_eq!(missing.code, "storage");
        let net = app.analysis_open(Source::Net).map(|_| ()).expect_err("no network game");
        assert_eq!(net.code, "no_game");
        let horde = app.analysis_open(Source::Start { variant: Variant::Horde }).expect("a start");
        assert_eq!(horde.variant, Variant::Horde);
        app.analysis.close();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_analysis_export_of_a_named_game_tags_its_players() {
        use crate::chess::session::{Names, Opponent};
        let dir =
            std::env::temp_dir().join(format!("maharajah-analysis-names-{}", std::process::id()));
        let app = crate::App::open(
            &dir.join("games.sqlite"),
            &dir,
            crate::lan::LanConfig::loopback(),
            crate::time::system(),
            Arc::new(|_: Push| {}),
        )
        .expect("an app");
        let names = Names { white: Some("Ana".to_owned()), black: None };
        let game = app
            .chess
            .act(|core, now, unix| {
                let start = Position::new(Variant::Chess);
                core.new_named_game(start, Opponent::Human, &names, None, now, unix)
            })
            .expect("a game");
        app.chess.act(|core, now, unix| core.play("e4", now, unix)).expect("legal");
        for source in [Source::Current, Source::Saved { id: game.id }] {
            app.analysis_open(source).expect("opens");
            let pgn = app.analysis.pgn().expect("a board");
            assert!(pgn.contains("[White \"Ana\"]\n[Black \"?\"]"), "{pgn}");
        }
        app.analysis.close();
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The app's review path at the default setting (BENCHMARKS.md, issue 17): a 60-move game
    /// through `Analysis::review`, the views pushed as it goes. A figure, printed; run with
    /// `cargo test -p maharajah-app --lib -- --ignored sixty --nocapture`.
    #[test]
    #[ignore = "a benchmark: seconds of engine time"]
    fn sixty_moves_reviewed_through_the_app() {
        let (analysis, rx) = board();
        analysis.set_settings(Settings::default());
        let pgn = include_str!("../../analysis/tests/data/sixty-moves.pgn");
        analysis.open_text(pgn).expect("the 60-move game");
        let started = std::time::Instant::now();
        analysis.review().expect("open");
        let mut pushes = 0;
        let done = wait(&rx, |p| match p {
            Push::Analysis(v) => {
                pushes += 1;
                v.review.filter(|r| !r.running)
            }
            _ => None,
        });
        let wall = started.elapsed();
        assert!(done.complete && done.total == 121, "{} of {}", done.done, done.total);
        println!(
            "review of 60 moves through the app: {:.1} s, {pushes} views pushed",
            wall.as_secs_f64()
        );
        analysis.close();
    }

    #[test]
    fn the_annotated_pgn_is_saved_where_game_exports_go() {
        let dir =
            std::env::temp_dir().join(format!("maharajah-analysis-save-{}", std::process::id()));
        let exports = dir.join("exports");
        let app = crate::App::open(
            &dir.join("games.sqlite"),
            &exports,
            crate::lan::LanConfig::loopback(),
            crate::time::system(),
            Arc::new(|_: Push| {}),
        )
        .expect("an app");
        assert_eq!(app.analysis_save_pgn().expect_err("no board").code, "no_analysis");
        app.analysis.set_settings(Settings {
            live: Limits::depth(2),
            review: ReviewConfig { limits: Limits::depth(3) },
        });
        app.analysis.open_text("1. e4 { a comment } e5 (1... c5 $5) 2. Nf3?! *").expect("a PGN");
        let first = std::path::PathBuf::from(app.analysis_save_pgn().expect("saved"));
        assert!(first.starts_with(&exports), "{first:?}");
        let name = first.file_name().and_then(|n| n.to_str()).expect("a name").to_owned();
        assert!(name.starts_with("maharajah-analysis-") && name.ends_with(".pgn"), "{name}");
        let text = std::fs::read_to_string(&first).expect("reads");
        assert_eq!(text, app.analysis.pgn().expect("open"));
        assert!(
            text.contains("a comment") && text.contains("(1... c5!?") && text.contains("Nf3?!"),
            "{text}"
        );
        // Saving again keeps the first file.
        let second = std::path::PathBuf::from(app.analysis_save_pgn().expect("saved"));
        assert_ne!(first, second);
        assert!(first.exists() && second.exists());
        // The file reads back as the same board.
        let back = app.analysis.open_text(&text).expect("its own file");
        assert_eq!(back.moves.len(), 4);
        app.analysis.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
