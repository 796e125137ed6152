//! The computer opponent: alpha-beta search, playing levels, the army builder and the bench.
//!
//! Pure like the rest of the crate: no wall clock, no hidden randomness, and no threads unless
//! asked for ([`Searcher::set_threads`]: Lazy SMP in scoped threads that end with the search,
//! sharing a lock-free transposition table). The caller hands in a stop flag (set it from any thread to end the search at once), a function telling
//! the time elapsed since the search started, and for the levels and the army builder a random
//! number generator.
//!
//! # Layout
//! * this module — [`Searcher`]: iterative deepening, principal-variation search with aspiration
//!   windows, transposition table (probed and stored in quiescence too), quiescence, move
//!   ordering (hash move, captures by MVV-LVA, killers, counter move, then quiet moves by history
//!   plus continuation history one and two plies back, and a bonus for moving a piece out of
//!   a cheaper piece's attack or a malus for moving one into it; a capture that loses material
//!   by static exchange comes after the killers; quiescence lists only captures and promotions
//!   out of check, and skips the losing captures), null-move pruning (never for a side with
//!   only pawns and king — Horde and pawn-heavy armies are zugzwang-prone), late-move
//!   reductions (more at expected cut nodes and where the side's evaluation is not improving;
//!   losing captures by half), internal iterative reduction
//!   (a deep node with no table move is searched a ply shallower), check extensions (a
//!   checking move that loses no material on its square by static exchange), singular
//!   extensions (a table move without which a shallower search falls clearly short is searched
//!   a ply deeper; multi-cut when the other moves reach beta anyway), reverse
//!   futility (to depth 6), late-move pruning (to depth 8, by whether the evaluation improves),
//!   futility on the reduced depth and static-exchange pruning near the leaves (the margins of
//!   reverse futility, futility and quiescence's delta pruning half as wide again in
//!   Maharajah's armies, whose static evaluation is a rougher guess: `margin_percent`), mate
//!   scores, a correction history that shifts the static evaluation by what searches of
//!   positions with the same pawns and the same material found (to a limit as much wider in
//!   Maharajah's armies as the margins: `corr_max`). [`Limits`]: depth, nodes,
//!   move time, clock, infinite.
//! * [`level`] — [`Level`] 1–8, [`pick_move_for_level`] and [`Level::move_time`].
//! * [`army`] — [`build_army`]: the computer's 39-point Maharajah army.
//! * [`bench`] — fixed positions searched to a fixed depth (deterministic node count).
//! * [`see`] — static exchange evaluation.
//!
//! # Example
//! ```
//! use std::sync::atomic::AtomicBool;
//! use std::time::Duration;
//! use maharajah_engine::search::{Limits, Searcher};
//! use maharajah_engine::{Game, Position, Variant};
//!
//! let game = Game::new(Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")?);
//! let mut searcher = Searcher::new(1);              // 1 MB hash, allocated once
//! let stop = AtomicBool::new(false);                // another thread may set it
//! let elapsed = || Duration::ZERO;                  // the app passes an Instant-based closure
//! let result = searcher.think(&game, &Limits::depth(3), &stop, &elapsed, &mut |_info| {});
//! assert_eq!(result.best_move.map(|m| m.to_string()).as_deref(), Some("a1a8"));
//! assert_eq!(result.score, maharajah_engine::search::Score::Mate(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod army;
pub mod bench;
mod cuckoo;
pub mod level;
pub mod see;
mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::eval::{evaluate_search, nnue, pawn_attacks_bb, role_value, PawnCache};
use crate::game::Game;
use crate::moves::{Move, MoveList, MAX_MOVES};
use crate::position::Position;
use crate::profile::{LossCondition, Variant};
use crate::types::{Bitboard, Color, Role, Square};
use crate::zobrist;

pub use army::build_army;
pub use level::{pick_move_for_level, Level};
use see::see;
use tt::{Bound, Table};

/// Deepest ply the search reaches (quiescence included).
pub const MAX_PLY: usize = 128;
/// Score of a mate at the root; a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
const INF: i32 = 32_000;
/// Depth from which a table move is tested for a singular extension.
const SINGULAR_DEPTH: i32 = 8;
/// Nodes between two looks at the stop flag and the clock.
const POLL: u64 = 1024;

/// A search score for people and protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move gets mated).
    Mate(i32),
}

impl Score {
    /// Converts an internal score (mates near ±[`MATE`]).
    #[must_use]
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

impl Score {
    /// Win, draw and loss chances in permille for the side to move (they sum to 1,000), from a
    /// simple model: `win = 1 / (1 + e^((200 − cp) / 100))`, `loss` the same for `−cp`, the
    /// rest a draw. It matches the logistic the evaluation was fitted to (an expected score of
    /// `1 / (1 + 10^(−0.88·cp/400))`: 0.74 at +200, 0.86 at +300) and gives a 76 % draw
    /// chance to a level position. Mates are certain.
    #[must_use]
    pub fn wdl(self) -> [u32; 3] {
        match self {
            Score::Mate(n) if n > 0 => [1000, 0, 0],
            Score::Mate(_) => [0, 0, 1000],
            Score::Cp(cp) => {
                let x = f64::from(cp.clamp(-4000, 4000));
                let chance = |x: f64| 1000.0 / (1.0 + ((200.0 - x) / 100.0).exp());
                let win = chance(x).round() as u32;
                let loss = chance(-x).round() as u32;
                [win, 1000 - win - loss, loss]
            }
        }
    }
}

impl std::fmt::Display for Score {
    /// UCI form: `cp 35`, `mate 2`, `mate -1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// A chess clock as UCI's `go` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// White's remaining time.
    pub wtime: Duration,
    /// Black's remaining time.
    pub btime: Duration,
    /// White's increment per move.
    pub winc: Duration,
    /// Black's increment per move.
    pub binc: Duration,
    /// Moves to the next time control, if any.
    pub movestogo: Option<u32>,
}

impl Clock {
    /// Time and increment of `color`.
    #[must_use]
    pub const fn of(&self, color: Color) -> (Duration, Duration) {
        match color {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        }
    }
}

/// When to stop thinking. Several limits combine: the first one reached ends the search. With
/// none at all the search runs to [`MAX_PLY`] or until stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes (exact: a node-limited search is deterministic).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// The game clock; the searcher budgets its own time from it.
    pub clock: Option<Clock>,
    /// Search until stopped (the other limits are ignored).
    pub infinite: bool,
    /// Stop as soon as a mate in this many moves (or fewer) is found (UCI `go mate`).
    pub mate: Option<u32>,
}

impl Limits {
    /// Search to `depth` plies.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// Search `nodes` nodes.
    #[must_use]
    pub fn nodes(nodes: u64) -> Limits {
        Limits { nodes: Some(nodes), ..Limits::default() }
    }

    /// Think for `time`.
    #[must_use]
    pub fn movetime(time: Duration) -> Limits {
        Limits { movetime: Some(time), ..Limits::default() }
    }

    /// Search until stopped.
    #[must_use]
    pub fn infinite() -> Limits {
        Limits { infinite: true, ..Limits::default() }
    }

    /// `(soft, hard)` time budgets for `color`: stop deepening after `soft`, abort at `hard`.
    fn budget(&self, color: Color) -> (Option<Duration>, Option<Duration>) {
        if self.infinite {
            return (None, None);
        }
        let mut soft: Option<Duration> = None;
        // A fixed move time is all used (UCI: "search exactly this long"): no soft budget, so
        // the search deepens until the hard limit aborts it, and the unfinished iteration's
        // best move counts once its first root move is done.
        let mut hard: Option<Duration> = self.movetime;
        if let Some(clock) = self.clock {
            let (left, inc) = clock.of(color);
            let overhead = Duration::from_millis(30).min(left / 4);
            let left = left.saturating_sub(overhead);
            let mtg = clock.movestogo.unwrap_or(30).clamp(1, 50);
            let base = left / mtg + inc * 3 / 4;
            let s = base.min(left / 2);
            let h = (base * 3).min(left / 3).max(s);
            soft = Some(soft.map_or(s, |x| x.min(s)));
            hard = Some(hard.map_or(h, |x| x.min(h)));
        }
        (soft, hard)
    }
}

/// One progress report, sent after each completed iteration (and when the search ends).
#[derive(Debug, Clone, Copy)]
pub struct Info<'a> {
    /// Depth completed.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score of the best line.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started (from the caller's clock).
    pub time: Duration,
    /// Transposition table use in permille.
    pub hashfull: u32,
    /// Which line this is, from 1 (the best) to [`Searcher::set_multipv`]'s count.
    pub multipv: u32,
    /// The principal variation, best move first.
    pub pv: &'a [Move],
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` when the side to move has no legal move.
    pub best_move: Option<Move>,
    /// Score of `best_move` from the side to move's point of view.
    pub score: Score,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken (from the caller's clock).
    pub time: Duration,
}

/// Per-ply scratch space, allocated once with the searcher.
struct Ply {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
    quiets: [Move; 64],
}

/// What one search is allowed to do, borrowed for its duration.
struct Control<'a> {
    /// The transposition table, shared by every thread of the search.
    tt: &'a Table,
    stop: &'a AtomicBool,
    elapsed: &'a dyn Fn() -> Duration,
    hard: Option<Duration>,
    nodes: u64,
    /// Nodes searched by all threads, each publishing its count every [`POLL`] nodes.
    searched: &'a AtomicU64,
}

/// Everything one search thread owns: history, killers, scratch space, the current line.
struct Worker {
    history: Box<[[i32; 64]; 128]>,
    /// Continuation history: how a quiet move (piece and target square) did after the move one
    /// or two plies before it, indexed `[earlier * PIECE_SQUARES + this]` by [`piece_square`].
    cont: Box<[i16]>,
    /// The move that refuted each (piece, target square) last: counter moves.
    counter: Box<[Option<Move>]>,
    /// The piece and target square of the move made at each ply ([`NO_PIECE_SQUARE`] for a
    /// null move), for the continuation history.
    stack: [u16; MAX_PLY + 2],
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// The score of a draw for the side to move, by colour ([`Searcher::set_contempt`]).
    draw: [i32; 2],
    plies: Vec<Ply>,
    pv: Vec<[Move; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Hashes of the game so far and of the current line, for repetition.
    line: Vec<u64>,
    lmr: [[u8; 64]; 64],
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    root_noise: Vec<(Move, i32)>,
    /// Root moves the search may play (UCI `searchmoves`); empty for all.
    search_moves: Vec<Move>,
    /// Root moves left out of this iteration: the better lines of a multi-PV search.
    excluded: Vec<Move>,
    /// The table move a singular-extension search at that ply leaves out (`NO_MOVE`: none).
    singular: [Move; MAX_PLY],
    /// How many best lines to search and report (at least 1).
    multipv: usize,
    /// Correction history: for each side to move and pawn structure ([`pawn_index`]), how far
    /// searches found the static evaluation off, in [`CORR_GRAIN`]ths of a centipawn.
    corr: Box<[i32]>,
    /// The same by material ([`material_index`]).
    corr_material: Box<[i32]>,
    /// Pawn structures evaluated recently (a cache: the evaluation is the same without it).
    pawns: PawnCache,
    /// The network's hidden layer at each ply of the current line ([`carried`]).
    nn: Vec<nnue::Accumulator>,
    /// The corrected static evaluation at each ply of the current line (`-INF` in check).
    evals: [i32; MAX_PLY + 2],
    /// The evaluation margins of this search's pruning in percent of chess's
    /// ([`margin_percent`]).
    margin: i32,
    /// The largest correction of this search's variant ([`corr_max`]), in centipawns.
    corr_max: i32,
}

/// A search engine with its memory: transposition table, and per thread history, killers and
/// scratch space, all allocated by [`Searcher::new`] and [`Searcher::set_threads`]; thinking
/// allocates nothing inside the search loop.
///
/// Keep one per game: the table and history carry over from move to move. Call
/// [`Searcher::clear`] for a new game.
///
/// With more than one thread ([`Searcher::set_threads`]) the search is *Lazy SMP*: helper
/// threads search the same position at staggered depths and share only the lock-free
/// transposition table; the main thread's iterations decide the move. Helpers live in scoped
/// threads that end with the search. A multi-threaded search is not deterministic: node limits
/// count every thread's nodes, and the move may differ from run to run.
pub struct Searcher {
    tt: Table,
    main: Worker,
    helpers: Vec<Worker>,
    /// What a draw costs the side to move at the root, in centipawns ([`Searcher::set_contempt`]).
    contempt: i32,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("threads", &self.threads())
            .field("hashfull", &self.tt.hashfull())
            .finish_non_exhaustive()
    }
}

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new(16)
    }
}

const NO_MOVE: Move = Move::new(Square::A1, Square::A1);

/// (colour, role, square) combinations: the index space of [`piece_square`].
const PIECE_SQUARES: usize = 2 * 9 * 64;
/// The stack entry of a null move (no continuation).
const NO_PIECE_SQUARE: u16 = u16::MAX;

/// Ordering score of a capture that loses material in the exchange, before `10 · victim −
/// attacker` ([`Worker::generate_ordered`]): after the killers and the counter move
/// (800,000 and up), above every quiet move's history (about ±50,000).
const LOSING_CAPTURE: i32 = 500_000;
/// The ordering scores a losing capture can have.
const LOSING_CAPTURES: std::ops::Range<i32> = LOSING_CAPTURE - 100_000..LOSING_CAPTURE + 200_000;

/// Index of the piece making `mv` (moving side, role) and its target square.
#[inline]
fn piece_square(pos: &Position, mv: Move) -> u16 {
    piece_row(pos, mv.from) + mv.to.index() as u16
}

/// [`piece_square`] of a move from `from` to a1: the side to move's piece on `from`, whose
/// moves' indices follow by target square.
#[inline]
fn piece_row(pos: &Position, from: Square) -> u16 {
    let role = pos.role_at(from).map_or(0, Role::index);
    ((pos.turn() as usize * 9 + role) * 64) as u16
}

/// Slots of each correction history table per side to move (pawn structures, material).
const CORR_SIZE: usize = 1 << 14;
/// Fixed-point scale of a correction history entry: entries hold centipawns times this.
const CORR_GRAIN: i32 = 256;
/// The largest correction in chess, in centipawns ([`corr_max`]).
const CORR_MAX: i32 = 64;

/// The correction history slot of `pos`: the side to move and a hash of both sides' pawns.
#[inline]
fn pawn_index(pos: &Position) -> usize {
    let pawns = pos.by_role(Role::Pawn);
    let white = (pawns & pos.by_color(Color::White)).0;
    let black = (pawns & pos.by_color(Color::Black)).0;
    let h = white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let h = (h ^ h >> 31).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    pos.turn() as usize * CORR_SIZE + (h >> (64 - 14)) as usize
}

/// The material correction slot of `pos`: the side to move and a hash of how many pieces of
/// each role each side has.
#[inline]
fn material_index(pos: &Position) -> usize {
    let mut h = 0u64;
    for color in Color::ALL {
        // The counts the position keeps, equal to `(by_color & by_role).count()`.
        let counts = &pos.psq.counts[color as usize];
        for role in Role::ALL {
            h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(counts[role.index()]);
        }
    }
    let h = (h ^ h >> 31).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    pos.turn() as usize * CORR_SIZE + (h >> (64 - 14)) as usize
}

/// Most threads [`Searcher::set_threads`] accepts.
pub const MAX_THREADS: usize = 64;

/// The largest contempt [`Searcher::set_contempt`] takes, in centipawns.
pub const MAX_CONTEMPT: i32 = 200;

/// Stack of a helper thread: the recursion keeps a position per ply.
const HELPER_STACK: usize = 16 * 1024 * 1024;

/// Depth skipping of the helper threads (Lazy SMP): helper `i` (from 1) skips depth `d` when
/// `(d + PHASE[j]) / SIZE[j]` is odd, `j = (i - 1) % 20`, so the helpers spread over the next
/// few depths instead of all searching the main thread's.
const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// The evaluation margins of the pruning (reverse futility, futility, quiescence's delta
/// pruning) for a search of `root`, in percent of chess's, for which they were tuned. Random
/// Maharajah armies make the static evaluation a worse guess of a search's score: against this
/// engine's own depth-7 scores of quiet positions its error is about twice chess's (median
/// 120 centipawns against 58; BENCHMARKS.md, "Engine, session 39"), so the margins widen with it.
fn margin_percent(root: &Position) -> i32 {
    if variant_armies(root) {
        MAHARAJAH_MARGIN
    } else {
        100
    }
}

/// Whether `pos` is a Maharajah game of variant armies: its rules are Maharajah's (a game from
/// the orthodox arrays plays by chess's), where the search plays with [`MAHARAJAH_MARGIN`] and
/// [`MAHARAJAH_CONTEMPT`].
fn variant_armies(pos: &Position) -> bool {
    pos.rules().variant == Variant::Maharajah
}

/// [`margin_percent`] for a Maharajah game of variant armies.
const MAHARAJAH_MARGIN: i32 = 150;

/// The largest correction the correction history makes in a search of `root`, in centipawns:
/// [`CORR_MAX`] scaled like the pruning margins ([`margin_percent`]), so half as large again in
/// Maharajah's armies, whose static evaluation errs by more and for a whole game (an army's
/// worth is misjudged in every position of it).
fn corr_max(root: &Position) -> i32 {
    CORR_MAX * margin_percent(root) / 100
}

/// The contempt ([`Searcher::set_contempt`]) the computer plays `pos`'s game with:
/// [`MAHARAJAH_CONTEMPT`] in a Maharajah game of variant armies, 0 (a draw is even) otherwise.
/// Random armies give many early perpetual checks, and against Fairy-Stockfish this engine
/// scored more by playing on (BENCHMARKS.md, "Engine, session 39"). Analysis keeps 0: a
/// contempt shifts every drawn line's score.
#[must_use]
pub fn play_contempt(pos: &Position) -> i32 {
    if variant_armies(pos) {
        MAHARAJAH_CONTEMPT
    } else {
        0
    }
}

/// [`play_contempt`] in a Maharajah game of variant armies, in centipawns.
pub const MAHARAJAH_CONTEMPT: i32 = 50;

/// `net`'s score of `pos` at `ply`, with `nn` the hidden layers of the line (one per ply). The
/// layer at `ply` is had from the ply above's by the pieces that differ (most often the
/// parent's: one move), so a node costs a few rows rather than one per piece; the score is
/// [`nnue::Network::evaluate`]'s.
fn carried(net: &nnue::Network, nn: &mut [nnue::Accumulator], pos: &Position, ply: usize) -> i32 {
    if ply == 0 {
        net.refresh(pos, &mut nn[0]);
    } else {
        let (above, here) = nn.split_at_mut(ply);
        net.update(&above[ply - 1], pos, &mut here[0]);
    }
    net.output(&nn[ply], pos.turn())
}

impl Worker {
    fn new() -> Worker {
        let mut lmr = [[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                let v = 0.5 + (d as f64).ln() * (m as f64).ln() / 1.7;
                *r = v.clamp(0.0, 63.0) as u8;
            }
        }
        let plies = (0..MAX_PLY + 1)
            .map(|_| Ply { moves: MoveList::new(), scores: [0; MAX_MOVES], quiets: [NO_MOVE; 64] })
            .collect();
        Worker {
            history: Box::new([[0; 64]; 128]),
            cont: vec![0; PIECE_SQUARES * PIECE_SQUARES].into_boxed_slice(),
            counter: vec![None; PIECE_SQUARES].into_boxed_slice(),
            stack: [NO_PIECE_SQUARE; MAX_PLY + 2],
            killers: [[None; 2]; MAX_PLY],
            draw: [0; 2],
            plies,
            pv: vec![[NO_MOVE; MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            line: Vec::with_capacity(1024),
            lmr,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            root_noise: Vec::new(),
            search_moves: Vec::new(),
            excluded: Vec::with_capacity(MAX_MOVES),
            singular: [NO_MOVE; MAX_PLY],
            multipv: 1,
            corr: vec![0; 2 * CORR_SIZE].into_boxed_slice(),
            corr_material: vec![0; 2 * CORR_SIZE].into_boxed_slice(),
            pawns: PawnCache::new(),
            nn: vec![nnue::Accumulator::new(); MAX_PLY + 1],
            evals: [-INF; MAX_PLY + 2],
            margin: 100,
            corr_max: CORR_MAX,
        }
    }

    /// The evaluation the search uses ([`evaluate_search`]), the network's correction scored
    /// from the hidden layer carried to `ply` ([`carried`]).
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let nn = &mut self.nn;
        evaluate_search(pos, &mut self.pawns, |net| carried(net, nn, pos, ply))
    }

    /// The static evaluation `raw` of `pos` corrected by what searches of positions with the
    /// same pawns and with the same material found (correction history).
    #[inline]
    fn corrected(&self, pos: &Position, raw: i32) -> i32 {
        (raw + self.correction(pos)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// What [`Worker::corrected`] adds to a raw evaluation of `pos`.
    #[inline]
    fn correction(&self, pos: &Position) -> i32 {
        // Each table estimates the whole error; their mean is the correction.
        (self.corr[pawn_index(pos)] + self.corr_material[material_index(pos)]) / (2 * CORR_GRAIN)
    }

    /// Moves the corrections of `pos`'s pawn structure and material towards `best - raw` (a
    /// search result against the raw static evaluation), by more for a deeper search: each
    /// entry is a moving average of the errors seen, limited to this search's [`corr_max`].
    fn update_correction(&mut self, pos: &Position, raw: i32, best: i32, depth: i32) {
        let target = (best - raw).clamp(-self.corr_max, self.corr_max) * CORR_GRAIN;
        let weight = (depth + 1).min(16);
        for e in [&mut self.corr[pawn_index(pos)], &mut self.corr_material[material_index(pos)]] {
            *e = (*e * (256 - weight) + target * weight) / 256;
        }
    }

    fn clear(&mut self) {
        self.history.iter_mut().for_each(|row| row.fill(0));
        self.cont.fill(0);
        self.counter.fill(None);
        self.killers = [[None; 2]; MAX_PLY];
        self.corr.fill(0);
        self.corr_material.fill(0);
    }

    /// `cp`, an evaluation margin of the pruning, for this search's variant ([`margin_percent`]).
    #[inline]
    fn margin(&self, cp: i32) -> i32 {
        cp * self.margin / 100
    }

    /// Readies the worker for a search of `root` after `history`.
    fn prepare(&mut self, root: &Position, history: &[u64], contempt: i32) {
        self.margin = margin_percent(root);
        self.corr_max = corr_max(root);
        self.draw[root.turn() as usize] = -contempt;
        self.draw[root.turn().other() as usize] = contempt;
        self.line.clear();
        let keep = (root.halfmove_clock() as usize).min(history.len());
        self.line.extend_from_slice(&history[history.len() - keep..]);
        self.line.push(root.hash());
        self.line.reserve(MAX_PLY + 8);
        self.nodes = 0;
        self.seldepth = 0;
        self.aborted = false;
        self.pv_len = [0; MAX_PLY + 1];
        self.killers = [[None; 2]; MAX_PLY];
        // The history and continuation history carry over whole from the last move's search
        // (cleared only by `clear`, a new game).
    }

    /// One iteration at `depth` with an aspiration window around `prev` (the last iteration's
    /// score); widens the window until the score falls inside or the search is aborted.
    fn aspiration(&mut self, ctl: &Control<'_>, root: &Position, depth: u32, prev: i32) -> i32 {
        let d = depth as i32;
        let mut delta = 30;
        let (mut alpha, mut beta) =
            if depth >= 4 { (prev - delta, prev + delta) } else { (-INF, INF) };
        loop {
            let v = self.search(ctl, root, d, 0, alpha, beta, false, false);
            if self.aborted {
                return v;
            }
            if v <= alpha {
                alpha = (alpha - delta).max(-INF);
                beta = (alpha + beta) / 2;
            } else if v >= beta {
                beta = (beta + delta).min(INF);
            } else {
                return v;
            }
            delta += delta;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// A helper thread's iterative deepening: staggered depths until stopped or `max_depth`.
    fn help(&mut self, ctl: &Control<'_>, root: &Position, max_depth: u32, id: usize) {
        let j = (id - 1) % SKIP_SIZE.len();
        let mut score = 0;
        for depth in 1..=max_depth {
            if (depth + SKIP_PHASE[j]) / SKIP_SIZE[j] % 2 == 1 {
                continue;
            }
            let v = self.aspiration(ctl, root, depth, score);
            if self.aborted {
                break;
            }
            score = v;
        }
    }
}

impl Searcher {
    /// A one-thread searcher with a transposition table of about `hash_mb` megabytes (at least 1).
    #[must_use]
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher { tt: Table::new(hash_mb), main: Worker::new(), helpers: Vec::new(), contempt: 0 }
    }

    /// Searches with `threads` threads (clamped to 1..=[`MAX_THREADS`]) from the next search on;
    /// each extra thread allocates its own scratch space (about 1 MB) here, once.
    pub fn set_threads(&mut self, threads: usize) {
        let n = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(n);
        while self.helpers.len() < n {
            self.helpers.push(Worker::new());
        }
    }

    /// How many threads a search uses.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Forgets the previous game: clears the table, history and killers (keeps the memory).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.main.clear();
        self.helpers.iter_mut().for_each(Worker::clear);
    }

    /// Scores every draw the search sees (repetition, the fifty-move rule, stalemate,
    /// insufficient material) as `cp` centipawns below even for the side to move at the root
    /// and as much above for the other side, from the next search on: with `cp > 0` the
    /// engine plays on rather than take a draw unless every other move is worse by `cp`. 0
    /// (the default) scores a draw as even; the score reported for a drawn line is `-cp`.
    /// Clamped to ±[`MAX_CONTEMPT`].
    pub fn set_contempt(&mut self, cp: i32) {
        self.contempt = cp.clamp(-MAX_CONTEMPT, MAX_CONTEMPT);
    }

    /// Sets the score added to each root move (playing levels); empty for none.
    pub(crate) fn set_root_noise(&mut self, noise: impl IntoIterator<Item = (Move, i32)>) {
        self.main.root_noise.clear();
        self.main.root_noise.extend(noise);
    }

    /// Searches and reports the best `lines` root moves (UCI `MultiPV`; clamped to at least 1)
    /// from the next search on. The result and the move played are the best line's; each
    /// further line is searched with the better ones left out, so it costs about one more
    /// search per line.
    pub fn set_multipv(&mut self, lines: usize) {
        self.main.multipv = lines.max(1);
    }

    /// Restricts the root to `moves` from the next search on (UCI `go searchmoves`); moves that
    /// are not legal in the searched position are ignored, and an empty list (or one with no
    /// legal move) allows every move.
    pub fn set_search_moves(&mut self, moves: &[Move]) {
        self.main.search_moves.clear();
        self.main.search_moves.extend_from_slice(moves);
    }

    /// Searches the current position of `game` (its history counts for repetitions) within
    /// `limits`.
    ///
    /// * `stop` — set it (from any thread) to end the search at once; the best move found so far
    ///   is returned.
    /// * `elapsed` — time since the search started; only called every few thousand nodes. Pass
    ///   `|| start.elapsed()` with a `std::time::Instant`, or a fake clock in tests.
    /// * `info` — called after every completed iteration.
    ///
    /// The result's `best_move` is legal in the position whenever there is a legal move: even a
    /// search stopped at once returns the first legal move in the hash/ordering order.
    pub fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        elapsed: &dyn Fn() -> Duration,
        info: &mut dyn FnMut(&Info<'_>),
    ) -> SearchResult {
        let hashes = game_hashes(game);
        self.think_position(game.position(), &hashes, limits, stop, elapsed, info)
    }

    /// Like [`Searcher::think`], for a position with an explicit history: `history` holds the
    /// hashes of earlier positions of the game, oldest first (it may be empty).
    pub fn think_position(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        elapsed: &dyn Fn() -> Duration,
        info: &mut dyn FnMut(&Info<'_>),
    ) -> SearchResult {
        let max_depth = if limits.infinite {
            MAX_PLY as u32 - 1
        } else {
            limits.depth.unwrap_or(MAX_PLY as u32 - 1).clamp(1, MAX_PLY as u32 - 1)
        };
        self.tt.new_search();
        self.main.prepare(root, history, self.contempt);

        let mut legal = root.legal_moves();
        self.main.search_moves.retain(|m| legal.contains(m));
        if !self.main.search_moves.is_empty() {
            let allowed = &self.main.search_moves;
            legal.retain(|m| allowed.contains(m));
        }
        let mut result = SearchResult {
            best_move: legal.first().copied(),
            score: Score::Cp(0),
            pv: legal.first().copied().into_iter().collect(),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            time: Duration::ZERO,
        };
        if legal.is_empty() {
            result.score = if root.is_check() { Score::Mate(0) } else { Score::Cp(0) };
            return result;
        }
        if let Some(mv) =
            self.tt.probe(root.hash()).and_then(|h| h.mv).filter(|m| legal.contains(m))
        {
            result.best_move = Some(mv);
            result.pv = vec![mv];
        }

        let searched = AtomicU64::new(0);
        let node_limit = if limits.infinite { u64::MAX } else { limits.nodes.unwrap_or(u64::MAX) };
        let ctl = Control {
            tt: &self.tt,
            stop,
            elapsed,
            hard: limits.budget(root.turn()).1,
            nodes: node_limit,
            searched: &searched,
        };
        let main = &mut self.main;
        if self.helpers.is_empty() {
            main.iterate(&ctl, root, limits, max_depth, legal.len(), info, &mut result);
        } else {
            let helpers_stop = AtomicBool::new(false);
            let tt = &self.tt;
            std::thread::scope(|s| {
                for (i, helper) in self.helpers.iter_mut().enumerate() {
                    helper.prepare(root, history, self.contempt);
                    helper.root_noise.clone_from(&main.root_noise);
                    helper.search_moves.clone_from(&main.search_moves);
                    let (helpers_stop, searched) = (&helpers_stop, &searched);
                    let spawned = std::thread::Builder::new()
                        .name(format!("search helper {}", i + 1))
                        .stack_size(HELPER_STACK)
                        .spawn_scoped(s, move || {
                            let ctl = Control {
                                tt,
                                stop: helpers_stop,
                                elapsed: &|| Duration::ZERO,
                                hard: None,
                                nodes: node_limit,
                                searched,
                            };
                            // Helpers go past a depth limit (only the main thread keeps it): deeper
                            // entries help its last iteration.
                            helper.help(&ctl, root, MAX_PLY as u32 - 1, i + 1);
                        });
                    // A thread the system refuses only makes the search narrower.
                    drop(spawned);
                }
                main.iterate(&ctl, root, limits, max_depth, legal.len(), info, &mut result);
                helpers_stop.store(true, Ordering::Relaxed);
            });
            result.nodes += self.helpers.iter().map(|h| h.nodes).sum::<u64>();
        }
        result.time = elapsed();
        result
    }
}

impl Worker {
    /// The main thread's iterative deepening: fills `result` after every completed iteration
    /// and reports it to `info`.
    #[allow(clippy::too_many_arguments)]
    fn iterate(
        &mut self,
        ctl: &Control<'_>,
        root: &Position,
        limits: &Limits,
        max_depth: u32,
        legal_count: usize,
        info: &mut dyn FnMut(&Info<'_>),
        result: &mut SearchResult,
    ) {
        let soft = limits.budget(root.turn()).0;
        let lines = self.multipv.min(legal_count).max(1);
        // Each line's last score, the centre of its next aspiration window.
        let mut scores = [0i32; MAX_MOVES];
        let mut score = 0;
        'deepening: for depth in 1..=max_depth {
            self.excluded.clear();
            for (line, line_score) in scores.iter_mut().enumerate().take(lines) {
                let v = self.aspiration(ctl, root, depth, *line_score);
                // An aborted iteration still counts for its best move if one root move finished
                // and raised alpha (the PV move first, so it is at least as good as the last
                // result).
                if self.aborted {
                    if line == 0 && self.pv_len[0] > 0 {
                        result.best_move = Some(self.pv[0][0]);
                        result.pv = self.pv[0][..self.pv_len[0]].to_vec();
                    }
                    break 'deepening;
                }
                *line_score = v;
                let pv = &self.pv[0][..self.pv_len[0]];
                let Some(&first) = pv.first() else { break };
                self.excluded.push(first);
                if line == 0 {
                    score = v;
                    result.best_move = Some(first);
                    result.pv = pv.to_vec();
                    result.depth = depth;
                    result.score = Score::from_internal(score);
                    result.seldepth = self.seldepth as u32;
                }
                info(&Info {
                    depth,
                    seldepth: self.seldepth as u32,
                    score: Score::from_internal(v),
                    nodes: self.total_nodes(ctl),
                    time: (ctl.elapsed)(),
                    hashfull: ctl.tt.hashfull(),
                    multipv: line as u32 + 1,
                    pv,
                });
            }
            self.excluded.clear();
            let now = (ctl.elapsed)();
            // Stop deepening when the next iteration would likely overrun the soft budget, or
            // a forced mate has been found within the depth searched.
            let timed = soft.is_some() || ctl.hard.is_some();
            if soft.is_some_and(|s| now >= s / 2) || (legal_count == 1 && timed) {
                break;
            }
            if self.total_nodes(ctl) >= ctl.nodes {
                break;
            }
            if let Some(n) = limits.mate {
                if score >= MATE_BOUND && ((MATE - score + 1) / 2) as u32 <= n {
                    break;
                }
            }
            if !limits.infinite
                && score.abs() >= MATE_BOUND
                && (MATE - score.abs()) as u32 <= depth
                && limits.depth.is_none()
            {
                break;
            }
        }
        self.excluded.clear();
        result.nodes = self.nodes;
    }

    /// Nodes of every thread: what all have published and this thread's unpublished rest
    /// (exact with one thread).
    #[inline]
    fn total_nodes(&self, ctl: &Control<'_>) -> u64 {
        ctl.searched.load(Ordering::Relaxed) + self.nodes % POLL
    }

    /// `true` once the search must end: stop flag, node limit or hard time limit.
    #[inline]
    fn poll(&mut self, ctl: &Control<'_>) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= ctl.nodes {
            self.aborted = true;
        } else if self.nodes % POLL == 0 {
            // Every thread counts towards a node limit; each may overrun it by one interval.
            if ctl.searched.fetch_add(POLL, Ordering::Relaxed) + POLL >= ctl.nodes
                || ctl.stop.load(Ordering::Relaxed)
            {
                self.aborted = true;
            } else if let Some(h) = ctl.hard {
                if (ctl.elapsed)() >= h {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    /// `true` if the position repeats one of the same side since the last irreversible move.
    fn is_repetition(&self, pos: &Position) -> bool {
        let n = self.line.len();
        let window = (pos.halfmove_clock() as usize).min(n.saturating_sub(1));
        let hash = pos.hash();
        (4..=window).step_by(2).any(|back| self.line[n - 1 - back] == hash)
    }

    /// Whether `pos` (the line's last position) is a draw already: the fifty-move rule, a
    /// repetition, or no mating material on the board.
    fn is_drawn(&self, pos: &Position) -> bool {
        pos.halfmove_clock() >= 100 || self.is_repetition(pos) || pos.is_insufficient_material()
    }

    /// A move back to a position of the line is at least a draw for the side to move: `alpha`
    /// rises to the draw's score, and that score is the node's when it reaches `beta`.
    fn upcoming_draw(&self, pos: &Position, ply: usize, alpha: &mut i32, beta: i32) -> Option<i32> {
        let draw = self.draw[pos.turn() as usize];
        if *alpha >= draw {
            return None;
        }
        // Not past a null move: the positions before it had the other side to move.
        let since_null = (0..ply).rev().position(|p| self.stack[p] == NO_PIECE_SQUARE);
        let reach = (pos.halfmove_clock() as usize).min(since_null.unwrap_or(usize::MAX));
        if !cuckoo::upcoming_repetition(pos, &self.line, reach) {
            return None;
        }
        *alpha = draw;
        (draw >= beta).then_some(draw)
    }

    /// The score of `pos` searched `depth` plies deep within `(alpha, beta)`. `cut`: a node
    /// expected to fail high (a zero-window child of a move after the first, or the first
    /// move's child of an expected all-node), reduced more by the late-move reduction.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        ctl: &Control<'_>,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        allow_null: bool,
        cut: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        let in_check = pos.is_check();
        if depth <= 0 {
            return self.qsearch(ctl, pos, ply, alpha, beta);
        }
        if self.aborted {
            return 0;
        }
        self.nodes += 1;
        if self.poll(ctl) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;
        let us = pos.turn();

        if is_wiped_out(pos) {
            return -MATE + ply as i32;
        }
        if ply > 0 {
            if self.is_drawn(pos) {
                return self.draw[us as usize];
            }
            if let Some(v) = self.upcoming_draw(pos, ply, &mut alpha, beta) {
                return v;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }

        let key = pos.hash();
        let hit = ctl.tt.probe(key);
        let tt_move = hit.and_then(|h| h.mv);
        // A search of this node without its table move (singular extension, below): the
        // table's bound is the whole node's, so it neither cuts nor is stored.
        let skipping = self.singular[ply] != NO_MOVE;
        if let Some(h) = hit.filter(|_| !skipping) {
            if !pv_node && ply > 0 && h.depth >= depth {
                let s = score_from_tt(h.score, ply);
                let usable = match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        // The table keeps the raw evaluation; the search uses it corrected.
        let raw_eval = if in_check {
            -INF
        } else {
            hit.and_then(|h| h.eval).unwrap_or_else(|| self.evaluate(pos, ply))
        };
        let static_eval = if in_check { -INF } else { self.corrected(pos, raw_eval) };
        self.evals[ply] = static_eval;
        let improving = !in_check
            && if ply >= 2 && self.evals[ply - 2] != -INF {
                static_eval > self.evals[ply - 2]
            } else if ply >= 4 && self.evals[ply - 4] != -INF {
                static_eval > self.evals[ply - 4]
            } else {
                true
            };
        let imp = i32::from(improving);

        if !pv_node && !in_check && ply > 0 {
            // Reverse futility: far above beta near the leaves.
            if depth <= 6
                && beta.abs() < MATE_BOUND
                && static_eval - self.margin(90 * (depth - imp)) >= beta
            {
                return static_eval;
            }
            // Null move, never for a side with fewer than two pieces besides pawns and king
            // (zugzwang), and verified by a normal reduced search at high depth.
            if allow_null
                && !skipping
                && depth >= 3
                && static_eval >= beta
                && beta.abs() < MATE_BOUND
                && has_pieces(pos, us)
            {
                let r = 3 + depth / 6 + ((static_eval - beta) / 200).min(2);
                let mut child = pos.clone();
                child.play_null();
                ctl.tt.prefetch(child.hash());
                self.stack[ply] = NO_PIECE_SQUARE;
                self.line.push(child.hash());
                let v = -self.search(
                    ctl,
                    &child,
                    depth - 1 - r,
                    ply + 1,
                    -beta,
                    -beta + 1,
                    false,
                    !cut,
                );
                self.line.pop();
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    if depth < 10 {
                        return if v >= MATE_BOUND { beta } else { v };
                    }
                    let verified =
                        self.search(ctl, pos, depth - 1 - r, ply, beta - 1, beta, false, false);
                    if self.aborted {
                        return 0;
                    }
                    if verified >= beta {
                        return if v >= MATE_BOUND { beta } else { v };
                    }
                }
            }
        }

        // Internal iterative reduction: with no move from the table a deep node is searched a
        // ply shallower (its move ordering is a guess, and the next visit has a table move).
        if depth >= 4 && tt_move.is_none() && !in_check {
            depth -= 1;
        }

        // Singular extension: a table move that a lower bound or exact score says is good, and
        // without which a shallower search falls clearly short of that score, is the only
        // move here: it is searched a ply deeper. If even the other moves reach beta, the
        // node fails high without a search of its own (multi-cut). Done before the move list
        // is made: the search without the move uses this ply's list.
        let mut extend = NO_MOVE;
        if let (Some(h), Some(mv)) = (hit, tt_move) {
            let tt_score = score_from_tt(h.score, ply);
            if !skipping
                && ply > 0
                && ply < MAX_PLY / 2
                && depth >= SINGULAR_DEPTH
                && h.depth >= depth - 3
                && h.bound != Bound::Upper
                && tt_score.abs() < MATE_BOUND
            {
                let s_beta = tt_score - 2 * depth;
                self.singular[ply] = mv;
                let v = self.search(ctl, pos, (depth - 1) / 2, ply, s_beta - 1, s_beta, false, cut);
                self.singular[ply] = NO_MOVE;
                self.pv_len[ply] = 0;
                if self.aborted {
                    return 0;
                }
                if v < s_beta {
                    extend = mv;
                } else if s_beta >= beta && !pv_node {
                    return s_beta;
                }
            }
        }

        self.generate_ordered(pos, ply, tt_move);
        let count = self.plies[ply].moves.len();
        if count == 0 {
            return if in_check { -MATE + ply as i32 } else { self.draw[pos.turn() as usize] };
        }

        let alpha_orig = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut quiets = 0usize;
        let killers = self.killers[ply];
        for i in 0..count {
            let mv = self.pick(ply, i, count);
            if ply == 0 && !self.is_root_allowed(mv) {
                continue;
            }
            if skipping && mv == self.singular[ply] {
                continue;
            }
            // The child's table slot starts loading while this move is weighed and made.
            ctl.tt.prefetch(pos.hash_after(mv));
            let capture = pos.is_capture(mv);
            let quiet = !capture && mv.promotion.is_none();
            // A plain move's check is seen without making it, so a pruned move costs no copy.
            let mut made = None;
            let gives_check = match gives_check_plain(pos, mv) {
                Some(check) => check,
                None => {
                    let mut child = pos.clone();
                    child.play_unchecked(mv);
                    let check = child.is_check();
                    made = Some(child);
                    check
                }
            };

            // The late-move reduction's table entry for this move (futility and the reduction).
            let table_r = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
            if !pv_node && !in_check && quiet && !gives_check && best > -MATE_BOUND && ply > 0 {
                // Late-move pruning: after enough moves (twice as many while the side's
                // evaluation improves) the rest are dropped.
                if depth <= 8 && searched >= ((3 + depth * depth) / (2 - imp)) as usize {
                    continue;
                }
                // Futility on the depth the move would be searched at after its reduction.
                let reduced = (depth - table_r).max(1);
                if reduced <= 6 && static_eval + self.margin(140 * reduced) <= alpha {
                    continue;
                }
            }
            // Static exchange pruning near the leaves: a move that loses material on its
            // square (a quiet move into a capture, a losing capture) is not worth a search.
            if !pv_node && !in_check && !gives_check && ply > 0 && best > -MATE_BOUND && depth <= 4
            {
                let threshold = if quiet { -50 * depth * depth } else { -100 * depth };
                if see(pos, mv) < threshold {
                    continue;
                }
            }

            let child = made.unwrap_or_else(|| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                child
            });
            let noise = if ply == 0 { self.noise_of(mv) } else { 0 };
            self.stack[ply] = piece_square(pos, mv);
            self.line.push(child.hash());
            // Extended: the singular table move, and a check that does not lose material on
            // its square (a sacrificial check is searched at the usual depth).
            let extended = mv == extend || (gives_check && ply < MAX_PLY / 2 && see(pos, mv) >= 0);
            let new_depth = depth - 1 + i32::from(extended);
            let mut v;
            if searched == 0 {
                v = -self.search(
                    ctl,
                    &child,
                    new_depth,
                    ply + 1,
                    noise - beta,
                    noise - alpha,
                    true,
                    !pv_node && !cut,
                ) + noise;
            } else {
                let mut r = 0;
                // Quiet moves, and captures that lose material in the exchange (by half).
                let losing_capture =
                    capture && LOSING_CAPTURES.contains(&self.plies[ply].scores[i]);
                if depth >= 3
                    && (quiet || losing_capture)
                    && !gives_check
                    && !in_check
                    && searched >= 2
                {
                    r = table_r;
                    if losing_capture {
                        r /= 2;
                    } else {
                        if pv_node {
                            r -= 1;
                        }
                        // A side whose evaluation is not improving is reduced more.
                        if !improving {
                            r += 1;
                        }
                        if killers.contains(&Some(mv)) {
                            r -= 1;
                        }
                        // A move with a good history is reduced less, a bad one more.
                        r -= self.quiet_score(pos, ply, mv) / 8_000;
                    }
                    // A node expected to fail high is reduced more.
                    if cut {
                        r += 2;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                v = -self.search(
                    ctl,
                    &child,
                    new_depth - r,
                    ply + 1,
                    noise - alpha - 1,
                    noise - alpha,
                    true,
                    true,
                ) + noise;
                if v > alpha && r > 0 {
                    v = -self.search(
                        ctl,
                        &child,
                        new_depth,
                        ply + 1,
                        noise - alpha - 1,
                        noise - alpha,
                        true,
                        !cut,
                    ) + noise;
                }
                if v > alpha && v < beta {
                    v = -self.search(
                        ctl,
                        &child,
                        new_depth,
                        ply + 1,
                        noise - beta,
                        noise - alpha,
                        true,
                        false,
                    ) + noise;
                }
            }
            self.line.pop();
            if self.aborted {
                return 0;
            }
            searched += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(mv);
                    alpha = v;
                    self.update_pv(ply, mv);
                    if v >= beta {
                        if quiet {
                            self.reward_quiet(pos, ply, mv, depth, quiets);
                        }
                        break;
                    }
                }
            }
            if quiet && quiets < 64 {
                self.plies[ply].quiets[quiets] = mv;
                quiets += 1;
            }
        }
        if searched == 0 && skipping {
            // Nothing but the table move: it is singular.
            return alpha_orig;
        }
        if searched == 0 {
            // Everything was pruned (or, at the root, left out): fall back to the static
            // evaluation.
            return static_eval.max(alpha_orig);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // A restricted root (levels' noise, multi-PV, search moves) says nothing true about
        // the position.
        let whole = (ply > 0 && !skipping)
            || (self.root_noise.is_empty()
                && self.excluded.is_empty()
                && self.search_moves.is_empty());
        // A quiet or no best move whose score the bound pins on the right side of the static
        // evaluation tells how far off that evaluation was.
        if whole
            && !in_check
            && !best_move.is_some_and(|m| pos.is_capture(m) || m.promotion.is_some())
            && best.abs() < MATE_BOUND
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.update_correction(pos, raw_eval, best, depth);
        }
        if whole {
            ctl.tt.store(key, best_move, score_to_tt(best, ply), Some(raw_eval), depth, bound);
        }
        best
    }

    fn qsearch(
        &mut self,
        ctl: &Control<'_>,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if self.aborted {
            return 0;
        }
        self.nodes += 1;
        if self.poll(ctl) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if is_wiped_out(pos) {
            return -MATE + ply as i32;
        }
        // A leaf the search handed over (its key tops the line) is drawn, or can be drawn, as
        // in the search: a quiet move at the horizon may repeat. Deeper, a capture or a check
        // evasion made here is not on the line.
        if ply > 0 && self.line.last() == Some(&pos.hash()) {
            if self.is_drawn(pos) {
                return self.draw[pos.turn() as usize];
            }
            if let Some(v) = self.upcoming_draw(pos, ply, &mut alpha, beta) {
                return v;
            }
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }
        let in_check = pos.is_check();
        // The table: any entry is deep enough here; its stored evaluation saves one.
        let key = pos.hash();
        let hit = ctl.tt.probe(key);
        let pv_node = beta - alpha > 1;
        if let Some(h) = hit {
            let s = score_from_tt(h.score, ply);
            let usable = match h.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if usable && !pv_node {
                return s;
            }
        }
        let alpha_orig = alpha;
        let mut best = -INF;
        // The evaluation: the table's, else the full one (every variant has a network now, and
        // the network has no cheap estimate, so quiescence's old lazy shortcut never applies).
        let (raw_eval, static_eval) = if in_check {
            (-INF, -INF)
        } else {
            let correction = self.correction(pos);
            let raw = hit.and_then(|h| h.eval).unwrap_or_else(|| self.evaluate(pos, ply));
            (raw, (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1))
        };
        // A searched score is nearer the truth than the evaluation: an exact table score
        // replaces the stand-pat, a lower bound above it or an upper bound below it tightens it.
        let stand = match hit {
            Some(h) if !in_check => {
                let s = score_from_tt(h.score, ply);
                let better = match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s > static_eval,
                    Bound::Upper => s < static_eval,
                };
                if better && s.abs() < MATE_BOUND {
                    s
                } else {
                    static_eval
                }
            }
            _ => static_eval,
        };
        if !in_check {
            if stand >= beta {
                if hit.is_none() {
                    ctl.tt.store(
                        key,
                        None,
                        score_to_tt(stand, ply),
                        Some(raw_eval),
                        0,
                        Bound::Lower,
                    );
                }
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        // Generate the legal moves (all of them in check; otherwise the noisy ones, and whether
        // there is any, to see stalemate), keep the ones worth a look.
        let promos_best = best_promotion(pos);
        {
            let p = &mut self.plies[ply];
            let any = if in_check {
                fill_legal(pos, &mut p.moves);
                !p.moves.is_empty()
            } else {
                // Out of check only captures and promotions are searched: list just those.
                let moves = &mut p.moves;
                moves.retain(|_| false);
                pos.for_each_noisy_move(|m| moves.push(m))
            };
            if !any {
                return if in_check { -MATE + ply as i32 } else { self.draw[pos.turn() as usize] };
            }
        }
        let mut n = 0;
        let total = self.plies[ply].moves.len();
        for i in 0..total {
            let mv = self.plies[ply].moves[i];
            let victim = captured_role(pos, mv);
            let score = if in_check {
                match victim {
                    Some(v) => 1_000_000 + 10 * role_value(v) - attacker_rank(pos, mv),
                    None => 0,
                }
            } else {
                let promo_ok = mv.promotion == Some(promos_best);
                if victim.is_none() && !promo_ok {
                    continue;
                }
                if mv.promotion.is_some() && !promo_ok {
                    continue;
                }
                // Delta pruning: even winning the piece cannot reach alpha.
                let gain = victim.map_or(0, role_value)
                    + mv.promotion.map_or(0, |r| role_value(r) - role_value(Role::Pawn));
                if stand + gain + self.margin(200) < alpha {
                    continue;
                }
                // A capture that loses material in the exchange is not worth a look.
                if victim.is_some_and(|v| role_value(v) < attacker_rank(pos, mv))
                    && see(pos, mv) < 0
                {
                    continue;
                }
                10 * gain - attacker_rank(pos, mv)
            };
            let p = &mut self.plies[ply];
            p.moves.as_mut_slice()[n] = mv;
            p.scores[n] = score;
            n += 1;
        }
        let mut best_move = None;
        for i in 0..n {
            let mv = self.pick(ply, i, n);
            ctl.tt.prefetch(pos.hash_after(mv));
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let v = -self.qsearch(ctl, &child, ply + 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = Some(mv);
                    self.update_pv(ply, mv);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if best == -INF {
            // In check with every evasion pruned cannot happen (evasions are all kept).
            return alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval = Some(if in_check { best } else { raw_eval });
        ctl.tt.store(key, best_move, score_to_tt(best, ply), eval, 0, bound);
        best
    }

    /// `true` if the root move `mv` is searched: among the search moves (if any) and not left
    /// out for a better line.
    #[inline]
    fn is_root_allowed(&self, mv: Move) -> bool {
        !self.excluded.contains(&mv)
            && (self.search_moves.is_empty() || self.search_moves.contains(&mv))
    }

    fn noise_of(&self, mv: Move) -> i32 {
        self.root_noise.iter().find(|(m, _)| *m == mv).map_or(0, |(_, n)| *n)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[0] = mv;
        let child = &tail[0];
        row[1..=child_len].copy_from_slice(&child[..child_len]);
        // Rows are stored relative to their ply: row[ply][0] is the move at `ply`.
        self.pv_len[ply] = child_len + 1;
    }

    fn reward_quiet(&mut self, pos: &Position, ply: usize, mv: Move, depth: i32, tried: usize) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        // Large enough against the ±16,384 bound that the history follows recent cut-offs
        // (and moves the late-move reduction) within a search, not only over many.
        let bonus = (32 * depth * depth + 128 * depth - 128).min(2400);
        let c = pos.turn() as usize * 64;
        update_history(&mut self.history[c + mv.from.index()][mv.to.index()], bonus);
        self.update_cont(pos, ply, mv, bonus);
        if let Some(prev) = self.earlier(ply, 1) {
            self.counter[prev] = Some(mv);
        }
        for j in 0..tried {
            let q = self.plies[ply].quiets[j];
            update_history(&mut self.history[c + q.from.index()][q.to.index()], -bonus);
            self.update_cont(pos, ply, q, -bonus);
        }
    }

    /// The piece-square index of the move `back` plies before `ply`, if there was one (not a
    /// null move, not before the root).
    #[inline]
    fn earlier(&self, ply: usize, back: usize) -> Option<usize> {
        let at = ply.checked_sub(back)?;
        let ps = self.stack[at];
        (ps != NO_PIECE_SQUARE).then_some(usize::from(ps))
    }

    fn update_cont(&mut self, pos: &Position, ply: usize, mv: Move, bonus: i32) {
        let this = usize::from(piece_square(pos, mv));
        for back in [1, 2] {
            if let Some(prev) = self.earlier(ply, back) {
                let h = &mut self.cont[prev * PIECE_SQUARES + this];
                let mut v = i32::from(*h);
                update_history(&mut v, bonus);
                *h = v as i16;
            }
        }
    }

    /// Ordering score of a quiet move: its history plus its continuation histories.
    #[inline]
    fn quiet_score(&self, pos: &Position, ply: usize, mv: Move) -> i32 {
        self.quiet_score_in(&self.cont_rows(ply), pos.turn(), piece_square(pos, mv), mv)
    }

    /// Where the continuation history rows of the moves one and two plies before `ply` start
    /// in `cont` (none before the root or after a null move).
    #[inline]
    fn cont_rows(&self, ply: usize) -> [Option<usize>; 2] {
        [1, 2].map(|back| self.earlier(ply, back).map(|prev| prev * PIECE_SQUARES))
    }

    /// [`Worker::quiet_score`] of `mv` by `turn`, with the rows of [`Worker::cont_rows`] and
    /// the move's [`piece_square`] `this` already found.
    #[inline]
    fn quiet_score_in(&self, rows: &[Option<usize>; 2], turn: Color, this: u16, mv: Move) -> i32 {
        let mut score = self.history[turn as usize * 64 + mv.from.index()][mv.to.index()];
        for row in rows.iter().flatten() {
            score += i32::from(self.cont[row + usize::from(this)]);
        }
        score
    }

    /// Fills the ply's move list with scored legal moves.
    fn generate_ordered(&mut self, pos: &Position, ply: usize, tt_move: Option<Move>) {
        let killers = self.killers[ply];
        let counter = self.earlier(ply, 1).and_then(|prev| self.counter[prev]);
        let rows = self.cont_rows(ply);
        let turn = pos.turn();
        // The moves come grouped by the piece that makes them: its role is looked up once.
        let mut from = None;
        let mut piece = 0;
        let mut threat = None;
        let mut maps: Option<[Bitboard; 3]> = None;
        fill_legal(pos, &mut self.plies[ply].moves);
        for i in 0..self.plies[ply].moves.len() {
            let mv = self.plies[ply].moves[i];
            self.plies[ply].scores[i] = if Some(mv) == tt_move {
                i32::MAX
            } else if let Some(victim) = captured_role(pos, mv) {
                let attacker = attacker_rank(pos, mv);
                // A capture that loses material in the exchange on its square (SEE < 0) goes
                // below the killers; a capture of a dearer or equal piece cannot lose.
                if role_value(victim) < attacker && see(pos, mv) < 0 {
                    LOSING_CAPTURE + 10 * role_value(victim) - attacker
                } else {
                    2_000_000 + 10 * role_value(victim) - attacker
                }
            } else if let Some(r) = mv.promotion {
                1_500_000 + role_value(r)
            } else if Some(mv) == killers[0] {
                1_000_000
            } else if Some(mv) == killers[1] {
                900_000
            } else if Some(mv) == counter {
                800_000
            } else {
                let maps = maps.get_or_insert_with(|| threat_maps(pos));
                if from != Some(mv.from) {
                    from = Some(mv.from);
                    piece = piece_row(pos, mv.from);
                    threat = threat_class(pos, mv.from);
                }
                self.quiet_score_in(&rows, turn, piece + mv.to.index() as u16, mv)
                    + threat_bonus(maps, threat, mv)
            };
        }
    }

    /// Selection sort step: brings the best remaining move to position `i` and returns it.
    #[inline]
    fn pick(&mut self, ply: usize, i: usize, n: usize) -> Move {
        let p = &mut self.plies[ply];
        // The first of the highest scores left, found in two passes that vectorise (the
        // highest, then where it first is) rather than one compare and branch per move.
        let rest = &p.scores[i..n];
        let top = rest.iter().copied().max().unwrap_or(i32::MIN);
        let best = i + rest.iter().position(|&s| s == top).unwrap_or(0);
        p.scores.swap(i, best);
        p.moves.as_mut_slice().swap(i, best);
        p.moves[i]
    }
}

/// Replaces the contents of `list` with the legal moves of `pos`, in generation order, without
/// building (and copying) a fresh list.
#[inline]
fn fill_legal(pos: &Position, list: &mut MoveList) {
    list.retain(|_| false);
    pos.for_each_legal_move(|m| list.push(m));
}

/// Whether `mv` (legal) gives check, for a plain move (no castling, en passant or promotion:
/// `None` for those): the moved piece attacks the enemy king from its target square, or it
/// uncovers one of ours.
#[inline]
fn gives_check_plain(pos: &Position, mv: Move) -> Option<bool> {
    if mv.promotion.is_some() || pos.is_en_passant(mv) || pos.is_castling(mv) {
        return None;
    }
    let us = pos.turn();
    let Some(king) = pos.king_of(us.other()) else { return Some(false) };
    let role = pos.role_at(mv.from)?;
    let occupied = pos.occupied().without(mv.from).with(mv.to);
    let direct = Position::attacks_of(us, role, mv.to, occupied).contains(king);
    // The enemy king is not attacked before our move: only a line through `from` can open.
    let uncovered = pos.uncovers(king, mv.from, us, occupied);
    Some(direct || uncovered)
}

#[inline]
fn update_history(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / 16_384;
}

/// Squares the opponent of the side to move attacks with pawns; with pawns, knights and
/// bishops; with those and rooks (Stockfish's threat maps for ordering quiet moves).
fn threat_maps(pos: &Position) -> [Bitboard; 3] {
    let them = pos.turn().other();
    let occupied = pos.occupied();
    let theirs = pos.by_color(them);
    let by_pawn = pawn_attacks_bb(them, theirs & pos.by_role(Role::Pawn));
    let mut by_minor = by_pawn;
    for role in [Role::Knight, Role::Bishop] {
        for sq in theirs & pos.by_role(role) {
            by_minor |= Position::attacks_of(them, role, sq, occupied);
        }
    }
    let mut by_rook = by_minor;
    for sq in theirs & pos.by_role(Role::Rook) {
        by_rook |= Position::attacks_of(them, Role::Rook, sq, occupied);
    }
    [by_pawn, by_minor, by_rook]
}

/// Which of [`threat_maps`] endangers the piece on `from`: 0 for a minor piece (pawns), 1 for a
/// rook (minor pieces), 2 for a queen or a compound piece (rooks); none for a pawn or the king.
#[inline]
fn threat_class(pos: &Position, from: Square) -> Option<usize> {
    match pos.role_at(from)? {
        Role::Knight | Role::Bishop => Some(0),
        Role::Rook => Some(1),
        Role::Queen | Role::Archbishop | Role::Chancellor | Role::Maharajah => Some(2),
        Role::Pawn | Role::King => None,
    }
}

/// Ordering bonus of a quiet move for the threats on its piece: a piece attacked by a cheaper
/// one gains for leaving to a square that is not; a piece that is safe loses for stepping into
/// such an attack (Stockfish's `threatenedPieces`).
#[inline]
fn threat_bonus(maps: &[Bitboard; 3], class: Option<usize>, mv: Move) -> i32 {
    const BONUS: [i32; 3] = [15_000, 25_000, 50_000];
    let Some(class) = class else { return 0 };
    let map = maps[class];
    match (map.contains(mv.from), map.contains(mv.to)) {
        (true, false) => BONUS[class],
        (false, true) => -BONUS[class],
        _ => 0,
    }
}

/// The role captured by `mv`, en passant included.
#[inline]
fn captured_role(pos: &Position, mv: Move) -> Option<Role> {
    if pos.by_color(pos.turn().other()).contains(mv.to) {
        pos.role_at(mv.to)
    } else if pos.is_en_passant(mv) {
        Some(Role::Pawn)
    } else {
        None
    }
}

/// The moving piece's value (for the "least valuable attacker" half of MVV-LVA).
#[inline]
fn attacker_rank(pos: &Position, mv: Move) -> i32 {
    pos.role_at(mv.from).map_or(0, |r| if r == Role::King { 0 } else { role_value(r) })
}

/// The strongest promotion the side to move has (queen, or Maharajah for a variant side).
fn best_promotion(pos: &Position) -> Role {
    let set = pos.rules().side(pos.turn()).promotions;
    if set.contains(Role::Maharajah) {
        Role::Maharajah
    } else {
        Role::Queen
    }
}

/// The side to move has lost by having every piece captured (Horde's White).
#[inline]
fn is_wiped_out(pos: &Position) -> bool {
    let us = pos.turn();
    pos.rules().side(us).loses_when == LossCondition::AllPiecesCaptured
        && pos.by_color(us).is_empty()
}

/// `true` if `color` has at least two pieces other than pawns and king: below that, zugzwang is
/// too common for null-move pruning (pawn endings, Horde, a lone minor piece).
#[inline]
fn has_pieces(pos: &Position, color: Color) -> bool {
    (pos.by_color(color) & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King)).has_more_than_one()
}

fn score_to_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v + ply as i32
    } else if v <= -MATE_BOUND {
        v - ply as i32
    } else {
        v
    }
}

fn score_from_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v - ply as i32
    } else if v <= -MATE_BOUND {
        v + ply as i32
    } else {
        v
    }
}

/// Hashes of every position of `game` before the current one, oldest first.
#[must_use]
pub fn game_hashes(game: &Game) -> Vec<u64> {
    let mut pos = game.start().clone();
    let mut out = Vec::with_capacity(game.moves().len());
    for mv in game.moves() {
        out.push(pos.hash());
        pos.play_unchecked(*mv);
    }
    out
}

/// Search-only helpers on the position, kept beside the search.
impl Position {
    /// Passes the move to the opponent (null-move pruning). Never a legal chess move: only for
    /// positions where the side to move is not in check.
    pub(crate) fn play_null(&mut self) {
        let mut hash = self.hash ^ zobrist::black_to_move();
        if let Some(ep) = self.ep_square.take() {
            hash ^= zobrist::en_passant(ep.file());
        }
        self.hash = hash;
        self.turn = self.turn.other();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    fn best(variant: Variant, fen: &str, depth: u32) -> SearchResult {
        let pos = Position::from_fen(variant, fen).expect("test FEN is valid");
        let stop = AtomicBool::new(false);
        Searcher::new(1).think(
            &Game::new(pos),
            &Limits::depth(depth),
            &stop,
            &|| Duration::ZERO,
            &mut |_| {},
        )
    }

    #[test]
    fn quiet_moves_are_ordered_by_the_threats_on_their_pieces() {
        let bonus = |variant, fen: &str, uci: &str| {
            let pos = Position::from_fen(variant, fen).expect("test FEN is valid");
            let mv = *pos.legal_moves().iter().find(|m| m.to_string() == uci).expect(uci);
            threat_bonus(&threat_maps(&pos), threat_class(&pos, mv.from), mv)
        };
        // A knight a pawn attacks gains for leaving; a safe rook loses for stepping into the
        // pawn's reach and nothing for a safe square; the king and pawns are never weighed.
        let fen = "4k3/8/8/4p3/3N4/8/8/4KR2 w - - 0 1";
        assert_eq!(bonus(Variant::Chess, fen, "d4b5"), 15_000);
        assert_eq!(bonus(Variant::Chess, fen, "f1f4"), -25_000);
        assert_eq!(bonus(Variant::Chess, fen, "f1f2"), 0);
        assert_eq!(bonus(Variant::Chess, fen, "e1e2"), 0);
        // A Maharajah a rook attacks gains for leaving its line; along it, nothing changes.
        let fen = "4k3/8/8/8/r2M4/8/8/4K3 w - - 0 1";
        assert_eq!(bonus(Variant::Maharajah, fen, "d4d5"), 50_000);
        assert_eq!(bonus(Variant::Maharajah, fen, "d4b4"), 0);
        // A knight a bishop attacks is not threatened by a cheaper piece.
        assert_eq!(bonus(Variant::Chess, "4k3/8/8/8/3N4/8/1b6/4K3 w - - 0 1", "d4b5"), 0);
    }

    #[test]
    fn plain_checks_are_seen_without_making_the_move() {
        let roots = [
            (
                Variant::Chess,
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            ),
            (Variant::Chess, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
            (Variant::Chess, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"),
            (Variant::Maharajah, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1"),
            (Variant::Maharajah, "4k3/8/8/3A4/8/8/8/C3K2M w - - 0 1"),
            (Variant::Horde, "r3k2r/p2n1ppp/8/1PP2PP1/P1PN1P1P/2P5/8/8 b kq - 0 1"),
            // Discovered checks: along a file, a diagonal, by compound pieces.
            (Variant::Chess, "4k3/8/8/8/4N3/8/1B6/4R1K1 w - - 0 1"),
            (Variant::Maharajah, "4k3/8/2P5/8/4B3/8/8/M3C1K1 w - - 0 1"),
            (Variant::Maharajah, "6k1/8/4N3/8/2A5/8/8/6K1 w - - 0 1"),
        ];
        let (mut checks, mut discovered) = (0, 0);
        for (variant, fen) in roots {
            let root = Position::from_fen(variant, fen).expect("test FEN is valid");
            let mut positions = vec![root.clone()];
            for &mv in root.legal_moves().iter() {
                positions.push(root.clone().play(mv).expect("generated moves are legal"));
            }
            for pos in positions {
                for &mv in pos.legal_moves().iter() {
                    let mut child = pos.clone();
                    child.play_unchecked(mv);
                    if let Some(check) = gives_check_plain(&pos, mv) {
                        assert_eq!(check, child.is_check(), "{mv} in {pos}");
                        checks += usize::from(check);
                        let (us, occupied) = (pos.turn(), child.occupied());
                        if let (Some(king), Some(role)) =
                            (pos.king_of(us.other()), pos.role_at(mv.from))
                        {
                            let direct = Position::attacks_of(us, role, mv.to, occupied);
                            discovered += usize::from(check && !direct.contains(king));
                        }
                    }
                }
            }
        }
        assert!(checks > 50, "{checks}");
        assert!(discovered > 20, "discovered checks seen: {discovered}");
    }

    #[test]
    fn correction_history_learns_the_evaluations_error_per_pawns_and_material() {
        let mut worker = Worker::new();
        let pos = Position::new(Variant::Chess);
        let other = Position::from_fen(Variant::Chess, "4k3/pp6/8/8/8/8/6PP/4K2R w - - 0 1")
            .expect("test FEN is valid");
        assert_eq!(worker.corrected(&pos, 10), 10);
        // Searches keep finding the position 40 cp better than its evaluation of 10.
        for _ in 0..200 {
            worker.update_correction(&pos, 10, 50, 8);
        }
        assert!((45..=50).contains(&worker.corrected(&pos, 10)), "{}", worker.corrected(&pos, 10));
        assert_eq!(worker.corrected(&other, 10), 10, "other pawns and material: no correction");
        // A huge error is learnt only up to the limit.
        for _ in 0..200 {
            worker.update_correction(&pos, 0, 5_000, 8);
        }
        let learnt = worker.corrected(&pos, 0);
        assert!((CORR_MAX - 2..=CORR_MAX).contains(&learnt), "{learnt}");
        worker.clear();
        assert_eq!(worker.corrected(&pos, 10), 10);
        // Variant armies learn a larger error, up to their own limit.
        let armies = Position::from_fen(
            Variant::Maharajah,
            "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1",
        )
        .expect("test FEN is valid");
        worker.prepare(&armies, &[], 0);
        for _ in 0..400 {
            worker.update_correction(&armies, 0, 5_000, 8);
        }
        let learnt = worker.corrected(&armies, 0);
        assert!((94..=96).contains(&learnt), "{learnt}");
        // A search of chess afterwards goes back to chess's.
        worker.clear();
        worker.prepare(&pos, &[], 0);
        for _ in 0..400 {
            worker.update_correction(&pos, 0, 5_000, 8);
        }
        let learnt = worker.corrected(&pos, 0);
        assert!((CORR_MAX - 2..=CORR_MAX).contains(&learnt), "{learnt}");
    }

    #[test]
    fn scores_convert_to_mate_distances() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_internal(35), Score::Cp(35));
    }

    #[test]
    fn null_move_keeps_the_hash_consistent() {
        let mut pos = Position::new(Variant::Chess);
        pos.play_null();
        assert_eq!(pos.hash(), pos.compute_hash());
        assert_eq!(pos.turn(), Color::Black);
    }

    #[test]
    fn back_rank_mate() {
        let r = best(Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 3);
        assert_eq!(r.score, Score::Mate(1));
        assert_eq!(r.best_move.map(|m| m.to_string()).as_deref(), Some("a1a8"));
    }

    #[test]
    fn random_maharajah_armies_prune_wider_and_play_on_past_a_draw() {
        let pos = |variant, fen: &str| Position::from_fen(variant, fen).expect("test FEN is valid");
        const ORTHODOX: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        const HORDE: &str =
            "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1";
        // Both orthodox arrays in a Maharajah game are a game of chess: chess's margins.
        for (variant, fen) in
            [(Variant::Chess, ORTHODOX), (Variant::Maharajah, ORTHODOX), (Variant::Horde, HORDE)]
        {
            assert_eq!(margin_percent(&pos(variant, fen)), 100, "{fen}");
            assert_eq!(play_contempt(&pos(variant, fen)), 0, "{fen}");
            assert_eq!(corr_max(&pos(variant, fen)), CORR_MAX, "{fen}");
        }
        let armies = pos(Variant::Maharajah, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1");
        assert_eq!(margin_percent(&armies), 150);
        assert_eq!(play_contempt(&armies), 50);
        assert_eq!(corr_max(&armies), 96);
    }

    #[test]
    fn contempt_prices_a_draw_for_the_side_at_the_root() {
        // White's every move reaches the fifty-move rule: the position is a draw, worth what
        // the contempt says to White.
        let pos = Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/r7/4K3 w - - 99 80")
            .expect("test FEN is valid");
        let game = Game::new(pos);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(1);
        for (contempt, score) in [(0, 0), (25, -25), (-40, 40), (500, -MAX_CONTEMPT)] {
            searcher.set_contempt(contempt);
            searcher.clear();
            let r =
                searcher.think(&game, &Limits::depth(4), &stop, &|| Duration::ZERO, &mut |_| {});
            assert_eq!(r.score, Score::Cp(score), "contempt {contempt}");
        }
    }

    #[test]
    fn a_repetition_at_the_horizon_is_a_draw() {
        // White, a queen and a rook down, has knighted out and back once already: Nf3 again
        // repeats a position of the game. Even a one-ply search, whose replies are left to the
        // quiescence search, scores it as the draw it is.
        let start = "r2qk3/8/8/8/8/8/8/4K1N1 w - - 0 1";
        let mut game =
            Game::new(Position::from_fen(Variant::Chess, start).expect("test FEN is valid"));
        for uci in ["g1f3", "e8f7", "f3g1", "f7e8"] {
            let mv =
                *game.position().legal_moves().iter().find(|m| m.to_string() == uci).expect(uci);
            game.play(mv).expect("a legal move");
        }
        let stop = AtomicBool::new(false);
        for depth in 1..=4 {
            let r = Searcher::new(1).think(
                &game,
                &Limits::depth(depth),
                &stop,
                &|| Duration::ZERO,
                &mut |_| {},
            );
            assert_eq!(r.score, Score::Cp(0), "depth {depth}");
            assert_eq!(
                r.best_move.map(|m| m.to_string()).as_deref(),
                Some("g1f3"),
                "depth {depth}"
            );
        }
    }

    #[test]
    fn multipv_and_search_moves_shape_the_root() {
        let pos = Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
            .expect("test FEN is valid");
        let game = Game::new(pos);
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(1);
        searcher.set_multipv(3);
        let mut lines: Vec<(u32, u32, Move, Score)> = Vec::new();
        let r = searcher.think(&game, &Limits::depth(4), &stop, &|| Duration::ZERO, &mut |i| {
            lines.push((i.depth, i.multipv, i.pv[0], i.score));
        });
        assert_eq!(r.score, Score::Mate(1));
        let last: Vec<_> = lines.iter().filter(|l| l.0 == 4).collect();
        assert_eq!(last.iter().map(|l| l.1).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(last[0].2.to_string(), "a1a8");
        assert!(last[1].2 != last[0].2 && last[2].2 != last[1].2 && last[2].2 != last[0].2);
        assert!(last[1].3 != Score::Mate(1), "only one move mates: {last:?}");
        // Without the mating move the best is something else, and the table keeps no root
        // entry from the restricted search that could mislead the next one.
        searcher.set_multipv(1);
        searcher.set_search_moves(&["g1f1".parse().expect("move")]);
        let r = searcher.think(&game, &Limits::depth(4), &stop, &|| Duration::ZERO, &mut |_| {});
        assert_eq!(r.best_move.map(|m| m.to_string()).as_deref(), Some("g1f1"));
        searcher.set_search_moves(&[]);
        let r = searcher.think(&game, &Limits::depth(2), &stop, &|| Duration::ZERO, &mut |_| {});
        assert_eq!(r.best_move.map(|m| m.to_string()).as_deref(), Some("a1a8"));
    }

    #[test]
    fn go_mate_stops_once_the_mate_is_found() {
        let pos = Position::from_fen(Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
            .expect("test FEN is valid");
        let stop = AtomicBool::new(false);
        let limits = Limits { mate: Some(1), ..Limits::default() };
        let r = Searcher::new(1).think(
            &Game::new(pos),
            &limits,
            &stop,
            &|| Duration::ZERO,
            &mut |_| {},
        );
        assert_eq!(r.score, Score::Mate(1));
        assert!(r.depth <= 3, "stopped at depth {}", r.depth);
    }

    #[test]
    fn wdl_sums_to_a_thousand_and_follows_the_score() {
        for cp in [-5000, -300, -1, 0, 1, 150, 300, 5000] {
            let [w, d, l] = Score::Cp(cp).wdl();
            assert_eq!(w + d + l, 1000, "{cp}");
            assert!((cp > 0) == (w > l) || cp == 0, "{cp}: {w} {d} {l}");
        }
        assert_eq!(Score::Cp(0).wdl()[0], Score::Cp(0).wdl()[2]);
        assert!(Score::Cp(300).wdl()[0] > Score::Cp(100).wdl()[0]);
        assert_eq!(Score::Mate(2).wdl(), [1000, 0, 0]);
        assert_eq!(Score::Mate(-1).wdl(), [0, 0, 1000]);
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_time_left() {
        let clock = Clock {
            wtime: Duration::from_secs(60),
            btime: Duration::from_secs(1),
            ..Clock::default()
        };
        let limits = Limits { clock: Some(clock), ..Limits::default() };
        let (soft, hard) = limits.budget(Color::White);
        let (soft, hard) = (soft.expect("clock gives a budget"), hard.expect("and a hard limit"));
        assert!(soft >= Duration::from_secs(1) && soft <= Duration::from_secs(3), "{soft:?}");
        assert!(hard >= soft && hard <= Duration::from_secs(20), "{hard:?}");
        let (soft_b, _) = limits.budget(Color::Black);
        assert!(soft_b.expect("clock") < Duration::from_millis(100));
    }
}
