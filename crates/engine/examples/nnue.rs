//! Data generator and trainer of the evaluation network ([`maharajah_engine::eval::nnue`]).
//!
//! ```text
//! cargo build --release -p maharajah-engine --example nnue
//! tools/build-fairy-stockfish.sh /tmp/fsb
//! nnue gen --fsf /tmp/fsb/fairy-stockfish --games 23000 --nodes 800 --depth 7 --threads 2 \
//!     --seed 1 --out /tmp/chess.txt
//! nnue train /tmp/chess.txt --out crates/engine/src/eval/net.bin
//! nnue gen --fsf /tmp/fsb/fairy-stockfish --variant maharajah --our-values ... --out /tmp/mh.txt
//! nnue train /tmp/mh.txt --variant maharajah --epochs 15 --out crates/engine/src/eval/net-maharajah.bin
//! nnue gen --self-label --variant maharajah --balanced 100 --depth 7 ... --out /tmp/mh-self.txt
//! nnue show NET FILE [VARIANT]   # per label: the correction, the evaluation, their faded sum
//! ```
//!
//! `gen` plays this engine against itself at a fixed node count per move and has
//! Fairy-Stockfish (classical evaluation) search every position not in check to a fixed depth.
//! `--variant` (default chess) picks the starts: chess and Horde from eight to eleven random
//! plies, labelled from the eighth ply after those; Maharajah from two random armies
//! ([`maharajah_engine::Army::random`], as the app's "random army"), labelled from the start,
//! each game under its own Fairy-Stockfish variant
//! ([`maharajah_engine::Position::fairy_stockfish_variant`]). One move in ten of the first
//! thirty plies is random, so the games spread. With `--self-label` this engine's own search
//! (a 16 MB table, emptied at each game) labels instead, to the same depth, and no
//! Fairy-Stockfish is needed: in Maharajah, where Fairy-Stockfish plays no better than this
//! engine, its labels taught a network nothing that won games. `--our-values` gives
//! Fairy-Stockfish this crate's values of the archbishop, chancellor and Maharajah (in
//! proportion to its queen; it values the Maharajah, its amazon, at 1.06 queens where this
//! crate's tuned evaluation says 1.35), so its labels do not teach the network its own piece
//! values. `--balanced CP`
//! draws a start again while this engine, searching it for 20,000 nodes, scores it beyond CP
//! centipawns (as `uci_match --balanced` does). `--label-max-halfmove N` labels no position
//! whose fifty-move counter is beyond N, and `--decided CP` ends a game, won, once four labels
//! in a row score it beyond CP for the same side: `train` would drop both kinds (with
//! `--max-halfmove` and `--max-score`), and without them more than half the labels of a chess
//! file went to such positions. A position is kept
//! when Fairy-Stockfish's best move there is quiet (no capture, no promotion) and its score is
//! no mate; the line is `fen|score|result`: the FEN (plain for chess and Horde, extended for
//! Maharajah), the score in centipawns and the game's result (1, ½, 0), both from the side to
//! move's view. It appends to the file. Each game is deterministic from the seed and its
//! number; with several threads the games' order in the file is not.
//!
//! `train` reads such files (all of one `--variant`) and drops positions scored beyond
//! `--max-score` (default 500: lopsided positions pulled the network towards large corrections that
//! measured worse). It finds the factor between the labels' centipawns and this engine's (the one
//! that best fits the hand-written evaluation to the scores; `--ratio X` gives it instead), so the
//! network learns what the evaluation misses rather than a change of units, and holds out every
//! twentieth block of 2,000 lines (whole games). `--mirror` also trains on each training position
//! mirrored left to right where neither side may castle (the game is the same mirrored; twice the
//! positions for one labelling). The network's output is added to the hand-written evaluation
//! ([`maharajah_engine::eval::evaluate`]); it is fitted by Adam (`--lr`, default 0.002, falling to
//! 0.3× and 0.1× over the last third; `--batch` 4,096; `--epochs` 5; `--threads` 2) on the squared
//! error of `σ(evaluation / 400 + output)` against `σ(score / 400 / factor)`, blended with the
//! result by `--result-weight` (default 0), from random weights or from the network `--init NET`.
//! `--hidden N` sets the hidden layer's size (32, the default, 64, 128 or 256 neurons a
//! perspective; with `--init` the network's own, or a larger N: the network is widened, its
//! neurons kept and the new ones started at random with no weight to the output, so training
//! begins from exactly the network's evaluation).
//! Every input row is trained together with a shared row per (own or enemy, role), folded into the
//! rows when the network is written. The epoch with the lowest held-out error is written, quantised
//! ([`maharajah_engine::eval::nnue`] documents the format), and the mean difference the
//! quantisation makes is printed.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use maharajah_engine::eval::nnue::{self, FEATURES, HIDDEN, HIDDEN_SIZES, MAX_HIDDEN};
use maharajah_engine::search::{Limits, Score, SearchResult, Searcher};
use maharajah_engine::{start_position, Army, Color, Game, Position, Role, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}: cannot read {v}")))
}

fn text_arg<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    maharajah_engine::attacks::init();
    match args.first().map(String::as_str) {
        Some("gen") => generate(&args),
        Some("train") => train(&args),
        Some("show") => show(&args),
        _ => eprintln!(
            "usage: nnue gen (--fsf PATH | --self-label) [--variant V] [--our-values] [--balanced CP] [--label-max-halfmove N] [--decided CP] --games N --nodes N --depth D --threads N \
             --seed S --out FILE\n\
             \x20      nnue train FILE... [--variant V] [--init NET] [--epochs N] [--threads N] \
             [--lr X] [--batch N] [--hidden N] [--buckets N] [--result-weight W] [--max-score CP] [--ratio X] [--mirror] [--decay X] [--seed S] \
             --out FILE\n\
             \x20      nnue show NET FILE [VARIANT]"
        ),
    }
}

/// A Fairy-Stockfish process.
struct Fsf {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    /// Where this process's Maharajah variants are written.
    ini: String,
    /// Maharajah games set up so far (Fairy-Stockfish never redefines a variant, so each
    /// game's has a new name).
    games: usize,
    /// Lines added to each Maharajah variant (the compound pieces' values).
    extra: String,
}

/// Numbers the Fairy-Stockfish processes (each writes its own variant file).
static PROCESSES: AtomicUsize = AtomicUsize::new(0);

impl Fsf {
    fn start(path: &str, extra: String) -> Fsf {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Fairy-Stockfish");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let ini = format!(
            "{}/nnue_gen_{}_{}.ini",
            std::env::temp_dir().display(),
            std::process::id(),
            PROCESSES.fetch_add(1, Ordering::Relaxed)
        );
        let mut e = Fsf { child, input, output, ini, games: 0, extra };
        e.send("uci");
        e.until(|l| l == "uciok");
        e.send("setoption name Hash value 16");
        e.send("isready");
        e.until(|l| l == "readyok");
        e
    }

    fn send(&mut self, s: &str) {
        writeln!(self.input, "{s}").expect("write to Fairy-Stockfish");
        self.input.flush().expect("flush");
    }

    fn until(&mut self, mut done: impl FnMut(&str) -> bool) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.output.read_line(&mut line).expect("Fairy-Stockfish output");
            assert!(n > 0, "Fairy-Stockfish closed its output");
            let l = line.trim_end();
            if done(l) {
                return l.to_string();
            }
        }
    }

    /// Starts a game from `start`: chess, Horde, or a Maharajah game under its own variant.
    fn new_game(&mut self, start: &Position) {
        let name = match start.rules().variant {
            Variant::Maharajah => {
                self.games += 1;
                let name = format!("mhgame{}", self.games);
                let ini = start.fairy_stockfish_variant(&name) + &self.extra;
                std::fs::write(&self.ini, ini).expect("write the variant file");
                self.send(&format!("setoption name VariantPath value {}", self.ini));
                name
            }
            v => v.to_string(),
        };
        self.send(&format!("setoption name UCI_Variant value {name}"));
        self.send("ucinewgame");
    }

    /// Searches `fen` to `depth`; the best move's text and the score (side to move's view;
    /// `None` for a mate score).
    fn label(&mut self, fen: &str, depth: u32) -> (String, Option<i32>) {
        self.send(&format!("position fen {fen}"));
        self.send(&format!("go depth {depth}"));
        let mut score = None;
        let last = self.until(|l| {
            if l.starts_with("info") && !l.contains("bound") {
                let w: Vec<&str> = l.split_whitespace().collect();
                if let Some(i) = w.iter().position(|x| *x == "score") {
                    score = match (w.get(i + 1), w.get(i + 2).and_then(|v| v.parse::<i32>().ok())) {
                        (Some(&"cp"), Some(v)) => Some(v),
                        _ => None,
                    };
                }
            }
            l.starts_with("bestmove")
        });
        (last.split_whitespace().nth(1).unwrap_or("0000").to_string(), score)
    }
}

impl Drop for Fsf {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.ini);
    }
}

/// Who labels the positions: Fairy-Stockfish, or (`--self-label`) this engine's own search.
enum Labeller {
    Fsf(Fsf),
    Own(Box<Searcher>),
}

impl Labeller {
    /// Readies the labeller for a game from `start` (Fairy-Stockfish's variant; an empty
    /// table for this engine, so a game's labels are the same whichever thread makes them).
    fn new_game(&mut self, start: &Position) {
        match self {
            Labeller::Fsf(f) => f.new_game(start),
            Labeller::Own(s) => s.clear(),
        }
    }

    /// Searches `pos` to `depth`; the best move's text and the score (side to move's view;
    /// `None` for a mate score).
    fn label(&mut self, pos: &Position, depth: u32) -> (String, Option<i32>) {
        match self {
            Labeller::Fsf(f) => f.label(&pos.plain_fen(), depth),
            Labeller::Own(s) => {
                let r = search(s, pos, &Limits::depth(depth));
                let best = r.best_move.map_or_else(|| "0000".to_string(), |m| m.to_string());
                let score = match r.score {
                    Score::Cp(s) => Some(s),
                    Score::Mate(_) => None,
                };
                (best, score)
            }
        }
    }
}

/// `searcher`'s result for `pos` (no history) within `limits`, never stopped early.
fn search(searcher: &mut Searcher, pos: &Position, limits: &Limits) -> SearchResult {
    let stop = AtomicBool::new(false);
    searcher.think_position(pos, &[], limits, &stop, &|| Duration::ZERO, &mut |_| {})
}

/// Fairy-Stockfish's queen, middlegame and endgame (its `types.h`).
const FSF_QUEEN: (i32, i32) = (2538, 2682);

/// `pieceValueMg` / `pieceValueEg` lines giving Fairy-Stockfish this crate's values of the
/// archbishop, chancellor and Maharajah (amazon), in proportion to its queen.
fn compound_values() -> String {
    let m = maharajah_engine::eval::MATERIAL;
    let q = m[Role::Queen.index()];
    let value = |r: Role, mg: bool| {
        let (ours, queen, theirs) = if mg {
            (m[r.index()].0, q.0, FSF_QUEEN.0)
        } else {
            (m[r.index()].1, q.1, FSF_QUEEN.1)
        };
        (i64::from(ours) * i64::from(theirs) / i64::from(queen)).to_string()
    };
    let line = |name: &str, mg: bool| {
        let pieces: Vec<String> =
            [(Role::Archbishop, 'a'), (Role::Chancellor, 'c'), (Role::Maharajah, 'm')]
                .iter()
                .map(|&(r, c)| format!("{c}:{}", value(r, mg)))
                .collect();
        format!("{name} = {}\n", pieces.join(" "))
    };
    line("pieceValueMg", true) + &line("pieceValueEg", false)
}

/// Nodes of the search that judges a `--balanced` start.
const BALANCE_NODES: u64 = 20_000;

/// A start for a data game: chess or Horde after eight to eleven random plies, or two random
/// Maharajah armies (the app's "random army").
fn start(variant: Variant, rng: &mut ChaCha8Rng) -> Position {
    if variant == Variant::Maharajah {
        loop {
            let w = Army::random(Color::White, rng);
            let b = Army::random(Color::Black, rng);
            if let Ok(p) = start_position(&w, &b) {
                return p;
            }
        }
    }
    loop {
        let mut pos = Position::new(variant);
        for _ in 0..rng.random_range(8..12) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if pos.has_legal_moves() {
            return pos;
        }
    }
}

/// Plays one game and labels its positions; returns `(fen, score)` pairs (side to move's view)
/// with the side to move of each, and White's result. Positions are labelled from ply `first`.
fn play_and_label(
    labeller: &mut Labeller,
    searcher: &mut Searcher,
    rng: &mut ChaCha8Rng,
    recipe: &Recipe,
) -> (Vec<(String, i32, Color)>, f64) {
    let Recipe { variant, nodes, depth, balanced, max_halfmove, decided } = *recipe;
    let stop = AtomicBool::new(false);
    // Each game starts from an empty table, so it is the same whichever thread plays it.
    searcher.clear();
    let mut first_pos = start(variant, rng);
    // `--balanced CP`: starts this engine scores beyond CP after a short search are drawn
    // again (as `uci_match --balanced` does), so the games are like the ones that decide
    // matches rather than the lopsided ones most random armies give.
    while let Some(cp) = balanced {
        let r = search(searcher, &first_pos, &Limits::nodes(BALANCE_NODES));
        if matches!(r.score, Score::Cp(s) if s.abs() <= cp) {
            break;
        }
        first_pos = start(variant, rng);
    }
    if balanced.is_some() {
        searcher.clear();
    }
    let mut game = Game::new(first_pos);
    // Chess's random plies are followed by eight more before labelling; a Maharajah start is
    // already spread by its armies, and judging it is the network's first job.
    let first = if variant == Variant::Maharajah { 0 } else { 8 };
    let mut kept = Vec::new();
    // Consecutive labels beyond `decided`, and the side they favour.
    let mut lopsided = (0u32, Color::White);
    labeller.new_game(game.position());
    loop {
        let plies = game.moves().len();
        if let Some(white) = common::finished(&game, 300) {
            return (kept, white);
        }
        let pos = game.position().clone();
        let mut adjudicate = None;
        if plies >= first && !pos.is_check() && pos.halfmove_clock() <= max_halfmove {
            let (best, score) = labeller.label(&pos, depth);
            match score {
                Some(s) if s.abs() > decided => {
                    let favoured = if s > 0 { pos.turn() } else { pos.turn().other() };
                    lopsided = (if lopsided.1 == favoured { lopsided.0 + 1 } else { 1 }, favoured);
                    if lopsided.0 >= DECIDED_LABELS {
                        return (kept, if favoured == Color::White { 1.0 } else { 0.0 });
                    }
                }
                _ => lopsided.0 = 0,
            }
            let quiet = pos
                .legal_moves()
                .iter()
                .find(|m| m.to_string() == best)
                .is_some_and(|m| !pos.is_capture(*m) && m.promotion.is_none());
            match score {
                // The FEN is plain for chess, extended for Maharajah (its statuses and
                // unmoved pawns).
                Some(s) if quiet => kept.push((pos.to_string(), s, pos.turn())),
                Some(_) => {}
                // A mate seen: the game is decided.
                None => adjudicate = Some(pos.turn()),
            }
        }
        let r =
            searcher.think(&game, &Limits::nodes(nodes), &stop, &|| Duration::ZERO, &mut |_| {});
        let mut mv = r.best_move.expect("a game in progress has a legal move");
        if let Some(side) = adjudicate {
            // Let the search's own score say who mates.
            if let Score::Mate(n) = r.score {
                let winner = if n > 0 { side } else { side.other() };
                return (kept, if winner == Color::White { 1.0 } else { 0.0 });
            }
        }
        if plies < 30 && rng.random_range(0..10) == 0 {
            let moves = pos.legal_moves();
            mv = moves[rng.random_range(0..moves.len())];
        }
        game.play_unchecked(mv);
    }
}

/// How `gen` plays and labels its games.
#[derive(Clone, Copy)]
struct Recipe {
    variant: Variant,
    /// This engine's nodes a move.
    nodes: u64,
    /// Fairy-Stockfish's depth a label.
    depth: u32,
    /// `--balanced CP`.
    balanced: Option<i32>,
    /// `--label-max-halfmove`: positions whose fifty-move counter is beyond this (which
    /// `train --max-halfmove` would drop) are not labelled.
    max_halfmove: u32,
    /// `--decided CP`: a game ends, won, after [`DECIDED_LABELS`] labels in a row beyond this
    /// for the same side (`train --max-score` drops the rest of such a game anyway).
    decided: i32,
}

/// Labels in a row beyond [`Recipe::decided`] that end a game.
const DECIDED_LABELS: u32 = 4;

fn generate(args: &[String]) {
    let self_label = args.iter().any(|a| a == "--self-label");
    let fsf_path = text_arg(args, "--fsf");
    assert!(self_label || fsf_path.is_some(), "gen needs --fsf PATH or --self-label");
    let games: usize = arg(args, "--games", 100);
    let threads: usize = arg(args, "--threads", 1usize).max(1);
    let seed: u64 = arg(args, "--seed", 1);
    let recipe = Recipe {
        variant: arg(args, "--variant", Variant::Chess),
        nodes: arg(args, "--nodes", 800),
        depth: arg(args, "--depth", 7),
        balanced: text_arg(args, "--balanced").map(|v| v.parse().expect("--balanced CP")),
        max_halfmove: arg(args, "--label-max-halfmove", u32::MAX),
        decided: arg(args, "--decided", i32::MAX),
    };
    let out = text_arg(args, "--out").expect("--out FILE");
    let file =
        std::fs::OpenOptions::new().create(true).append(true).open(out).expect("output file");
    // Fairy-Stockfish values the amazon (this crate's Maharajah) at 1.06 queens where this
    // crate's tuned evaluation says 1.35, and its labels would teach the network that. With
    // `--our-values` the compound pieces get this crate's values, scaled by the queen.
    let extra =
        if args.iter().any(|a| a == "--our-values") { compound_values() } else { String::new() };
    if !extra.is_empty() {
        eprint!("Maharajah variants get:\n{extra}");
    }
    let init = || {
        let labeller = if self_label {
            Labeller::Own(Box::new(Searcher::new(16)))
        } else {
            Labeller::Fsf(Fsf::start(fsf_path.expect("--fsf PATH"), extra.clone()))
        };
        (labeller, Searcher::new(4))
    };
    common::play_games(games, threads, seed, 20, file, init, |(labeller, searcher), _, rng| {
        let (kept, white) = play_and_label(labeller, searcher, rng, &recipe);
        kept.iter()
            .map(|(fen, score, turn)| {
                let result = if *turn == Color::White { white } else { 1.0 - white };
                format!("{fen}|{score}|{result}")
            })
            .collect()
    });
}

/// Training positions: each one's features for the side to move and for the other side, and
/// the target in `[0, 1]`.
struct Data {
    features: Vec<u16>,
    start: Vec<u32>,
    target: Vec<f32>,
    /// The positions (held-out set only), to compare the quantised network with the float one.
    fens: Vec<String>,
    /// The hand-written evaluation of each position / 400 (side to move's view), which the
    /// network's output is added to.
    base: Vec<f32>,
    /// Each position's output bucket ([`nnue::bucket`]).
    bucket: Vec<u8>,
}

impl Data {
    fn len(&self) -> usize {
        self.target.len()
    }

    /// The features of position `i`: (side to move's view, the other side's view).
    fn views(&self, i: usize) -> (&[u16], &[u16]) {
        let (a, b) = (self.start[i] as usize, self.start[i + 1] as usize);
        let n = (b - a) / 2;
        (&self.features[a..a + n], &self.features[a + n..b])
    }
}

/// Which positions `load` keeps.
struct Filter {
    variant: Variant,
    /// Positions scored beyond this (centipawns) are dropped.
    max_score: f32,
    /// Positions whose fifty-move counter is beyond this are dropped.
    max_halfmove: u32,
    /// `--ratio`: the labels' centipawns per the evaluation's, given rather than fitted.
    ratio: Option<f32>,
    /// `--mirror`: each training position without castling rights is also learnt mirrored
    /// left to right (files a and h swapped), which changes nothing in the game.
    mirror: bool,
}

/// `fen` with files a and h swapped (the board, the en-passant square and the unmoved pawns'
/// squares), or `None` where a side may still castle: castling is the one rule that is not the
/// same mirrored.
fn mirror_fen(fen: &str) -> Option<String> {
    let swap = |sq: &str| -> String {
        sq.as_bytes()
            .chunks(2)
            .map(|c| format!("{}{}", (b'a' + b'h' - c[0]) as char, c[1] as char))
            .collect()
    };
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    if fields.len() < 4 || fields[2] != "-" {
        return None;
    }
    fields[0] = fields[0]
        .split('/')
        .map(|rank| rank.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    if fields[3] != "-" {
        fields[3] = swap(&fields[3]);
    }
    if let Some(unmoved) = fields.get_mut(7) {
        if unmoved != "-" {
            *unmoved = swap(unmoved);
        }
    }
    Some(fields.join(" "))
}

/// Usable lines are held out in whole blocks of this many (so whole games: positions of one
/// game are too alike to test on each other)...
const HELD_BLOCK: usize = 2000;
/// ...one block in this many, the last.
const HELD_EVERY: usize = 20;

fn load(files: &[&str], filter: &Filter, result_weight: f32, buckets: usize) -> (Data, Data) {
    let empty = || Data {
        features: Vec::new(),
        start: vec![0],
        target: Vec::new(),
        base: Vec::new(),
        fens: Vec::new(),
        bucket: Vec::new(),
    };
    let (mut train, mut held) = (empty(), empty());
    // The label (score) and the result, per position of each set.
    let mut labels: [Vec<(f32, f32)>; 2] = [Vec::new(), Vec::new()];
    let mut line_no = 0usize;
    for file in files {
        let f = BufReader::new(std::fs::File::open(file).expect("data file"));
        for line in f.lines() {
            let line = line.expect("read");
            let mut parts = line.split('|');
            let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Ok(score), Ok(result)) = (score.parse::<f32>(), result.parse::<f32>()) else {
                continue;
            };
            // Lopsided positions teach little and pull the network towards large corrections.
            if score.abs() > filter.max_score {
                continue;
            }
            let Ok(pos) = Position::from_fen(filter.variant, fen) else { continue };
            // Fairy-Stockfish damps its scores as the fifty-move counter runs (by
            // `(100 - counter) / 100`), which the network cannot see.
            if pos.halfmove_clock() > filter.max_halfmove {
                continue;
            }
            line_no += 1;
            let is_held = (line_no / HELD_BLOCK) % HELD_EVERY == HELD_EVERY - 1;
            let d = if is_held { &mut held } else { &mut train };
            let mirrored = (filter.mirror && !is_held)
                .then(|| mirror_fen(fen))
                .flatten()
                .and_then(|m| Position::from_fen(filter.variant, &m).ok());
            for pos in std::iter::once(pos).chain(mirrored) {
                let us = pos.turn();
                for view in [us, us.other()] {
                    for (sq, piece) in pos.pieces() {
                        d.features.push(nnue::feature(view, piece, sq) as u16);
                    }
                }
                d.start.push(d.features.len() as u32);
                d.base.push(maharajah_engine::eval::evaluate(&pos) as f32 / 400.0);
                d.bucket.push(nnue::bucket(pos.occupied().count(), buckets) as u8);
                labels[usize::from(is_held)].push((score, result));
            }
            if is_held {
                d.fens.push(fen.to_string());
            }
        }
    }
    // Too few usable lines hold nothing out, and every held-out error would be 0 / 0.
    if labels[0].is_empty() || labels[1].is_empty() {
        eprintln!(
            "nnue train: {} training and {} held-out positions; it needs more than {} usable \
             lines (FEN|score|result within --max-score and --max-halfmove) to hold one block \
             of {HELD_BLOCK} out",
            labels[0].len(),
            labels[1].len(),
            HELD_BLOCK * (HELD_EVERY - 1)
        );
        std::process::exit(2);
    }
    // A labeller's centipawns are not the hand-written evaluation's: find the factor that best
    // maps its scores onto the evaluation's scale, so the network learns what the evaluation
    // misses rather than a change of units.
    let fit = |ratio: f32| -> f64 {
        train
            .base
            .iter()
            .zip(&labels[0])
            .map(|(b, (score, _))| {
                let e = sigmoid(*b) - sigmoid(score / 400.0 / ratio);
                f64::from(e * e)
            })
            .sum::<f64>()
    };
    let ratio = filter.ratio.unwrap_or_else(|| {
        (50..=300).map(|r| r as f32 / 100.0).min_by(|a, b| fit(*a).total_cmp(&fit(*b))).unwrap()
    });
    eprintln!("the labels' scores are {ratio:.2} times this engine's evaluation");
    for (d, l) in [(&mut train, &labels[0]), (&mut held, &labels[1])] {
        d.target = l
            .iter()
            .map(|(score, result)| {
                (1.0 - result_weight) * sigmoid(score / 400.0 / ratio) + result_weight * result
            })
            .collect();
    }
    let hce: f64 = held
        .base
        .iter()
        .zip(&held.target)
        .map(|(b, t)| f64::from((sigmoid(*b) - t) * (sigmoid(*b) - t)))
        .sum::<f64>()
        / held.len().max(1) as f64;
    eprintln!("the hand-written evaluation's held-out error: {hce:.6}");
    (train, held)
}

/// The network in floating point.
#[derive(Clone)]
struct Params {
    /// `(FEATURES + FACTORS) × hidden`.
    w1: Vec<f32>,
    /// One a hidden neuron: its length is the hidden size.
    b1: Vec<f32>,
    /// `2 × hidden` a bucket.
    w2: Vec<f32>,
    /// One a bucket.
    b2: Vec<f32>,
}

impl Params {
    fn zero(buckets: usize, hidden: usize) -> Params {
        Params {
            w1: vec![0.0; (FEATURES + FACTORS) * hidden],
            b1: vec![0.0; hidden],
            w2: vec![0.0; buckets * 2 * hidden],
            b2: vec![0.0; buckets],
        }
    }

    /// Neurons of the hidden layer, per perspective.
    fn hidden(&self) -> usize {
        self.b1.len()
    }

    fn random(rng: &mut ChaCha8Rng, buckets: usize, hidden: usize) -> Params {
        let mut p = Params::zero(buckets, hidden);
        let mut u = |scale: f32| (rng.random::<f32>() * 2.0 - 1.0) * scale;
        for w in &mut p.w1[..FEATURES * hidden] {
            *w = u(0.15);
        }
        for b in &mut p.b1 {
            *b = 0.3 + u(0.1);
        }
        for w in &mut p.w2 {
            *w = u(0.02);
        }
        p
    }

    /// The float weights of a network file, with zero shared rows (to train on from there),
    /// with `buckets` output buckets: a network of fewer has its own repeated.
    fn from_network(bytes: &[u8], buckets: usize) -> Params {
        let net = nnue::Network::from_bytes(bytes).expect("a network file");
        let (w1, b1, w2, b2) = net.weights();
        let mut p = Params::zero(buckets, net.hidden());
        let qa = nnue::QA as f32;
        for (w, q) in p.w1.iter_mut().zip(w1).chain(p.b1.iter_mut().zip(b1)) {
            *w = f32::from(*q) / qa;
        }
        for (w, q) in p.w2.iter_mut().zip(w2.iter().cycle()) {
            *w = f32::from(*q) / nnue::QB as f32;
        }
        for (b, q) in p.b2.iter_mut().zip(b2.iter().cycle()) {
            *b = *q as f32 / (nnue::QA * nnue::QB) as f32;
        }
        p
    }

    /// This network with `hidden` neurons a perspective (more than its own): its neurons keep
    /// their weights, the new ones start as [`Params::random`]'s with no weight to the output,
    /// so the widened network evaluates exactly as this one.
    fn widen(&self, rng: &mut ChaCha8Rng, hidden: usize) -> Params {
        let old = self.hidden();
        assert!(hidden > old, "--hidden {hidden} with --init: a network of {old} can only widen");
        let buckets = self.b2.len();
        let mut p = Params::random(rng, buckets, hidden);
        for (row, old_row) in p.w1.chunks_mut(hidden).zip(self.w1.chunks(old)) {
            row[..old].copy_from_slice(old_row);
        }
        p.b1[..old].copy_from_slice(&self.b1);
        p.w2.fill(0.0);
        for (half, old_half) in p.w2.chunks_mut(hidden).zip(self.w2.chunks(old)) {
            half[..old].copy_from_slice(old_half);
        }
        p.b2.copy_from_slice(&self.b2);
        p
    }

    fn slices_mut(&mut self) -> [&mut [f32]; 4] {
        [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2]
    }
}

/// Shared rows of the training: one per (own or enemy, role), added to the row of every
/// square of that piece (so what a piece is worth anywhere is learnt from all its squares),
/// folded into the square rows when the network is written.
const FACTORS: usize = FEATURES / 64;

fn rows(f: u16) -> [usize; 2] {
    let f = usize::from(f);
    [f, FEATURES + f / 64]
}

/// Sums the hidden layer of one view into `acc` (as long as the hidden layer).
fn accumulate(p: &Params, feats: &[u16], acc: &mut [f32]) {
    let h = p.hidden();
    acc.copy_from_slice(&p.b1);
    for &f in feats {
        for r in rows(f) {
            let row = &p.w1[r * h..(r + 1) * h];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
    }
}

/// Output of the network (in units of 400 centipawns) for one position.
fn forward(p: &Params, d: &Data, i: usize, acc: &mut [[f32; MAX_HIDDEN]; 2]) -> f32 {
    let h = p.hidden();
    let (us, them) = d.views(i);
    accumulate(p, us, &mut acc[0][..h]);
    accumulate(p, them, &mut acc[1][..h]);
    let b = usize::from(d.bucket[i]);
    let w2 = &p.w2[b * 2 * h..(b + 1) * 2 * h];
    let mut y = p.b2[b] + d.base[i];
    for (k, a) in acc.iter().enumerate() {
        for (x, w) in a[..h].iter().zip(&w2[k * h..(k + 1) * h]) {
            let c = x.clamp(0.0, 1.0);
            y += c * c * w;
        }
    }
    y
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Adds the gradient of the squared error over `indices` to `g`; returns the summed error.
fn gradient(p: &Params, d: &Data, indices: &[u32], g: &mut Params) -> f64 {
    let h = p.hidden();
    let mut acc = [[0.0f32; MAX_HIDDEN]; 2];
    let mut err = 0.0f64;
    let mut dacc = [[0.0f32; MAX_HIDDEN]; 2];
    for &i in indices {
        let i = i as usize;
        let y = forward(p, d, i, &mut acc);
        let s = sigmoid(y);
        let e = s - d.target[i];
        err += f64::from(e * e);
        let dy = 2.0 * e * s * (1.0 - s);
        let b = usize::from(d.bucket[i]);
        g.b2[b] += dy;
        for k in 0..2 {
            let at = (2 * b + k) * h;
            let w2 = &p.w2[at..at + h];
            let g2 = &mut g.w2[at..at + h];
            for j in 0..h {
                let x = acc[k][j];
                let c = x.clamp(0.0, 1.0);
                g2[j] += dy * c * c;
                dacc[k][j] = if x > 0.0 && x < 1.0 { dy * w2[j] * 2.0 * c } else { 0.0 };
            }
        }
        let (us, them) = d.views(i);
        for (k, feats) in [us, them].into_iter().enumerate() {
            for (b, da) in g.b1.iter_mut().zip(&dacc[k]) {
                *b += da;
            }
            for &f in feats {
                for r in rows(f) {
                    let row = &mut g.w1[r * h..(r + 1) * h];
                    for (w, da) in row.iter_mut().zip(&dacc[k]) {
                        *w += da;
                    }
                }
            }
        }
    }
    err
}

fn error(p: &Params, d: &Data, threads: usize) -> f64 {
    let n = d.len();
    let chunk = n.div_ceil(threads);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut acc = [[0.0f32; MAX_HIDDEN]; 2];
                    let mut e = 0.0f64;
                    for i in t * chunk..((t + 1) * chunk).min(n) {
                        let x = sigmoid(forward(p, d, i, &mut acc)) - d.target[i];
                        e += f64::from(x * x);
                    }
                    e
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total / n as f64
}

fn train(args: &[String]) {
    let files: Vec<&str> =
        args[1..].iter().take_while(|a| !a.starts_with("--")).map(String::as_str).collect();
    let epochs: usize = arg(args, "--epochs", 5);
    let threads: usize = arg(args, "--threads", 2usize).max(1);
    let lr0: f32 = arg(args, "--lr", 0.002);
    let result_weight: f32 = arg(args, "--result-weight", 0.0);
    let seed: u64 = arg(args, "--seed", 1);
    let batch: usize = arg(args, "--batch", 4096);
    let decay: f32 = arg(args, "--decay", 0.0);
    let out = text_arg(args, "--out").expect("--out FILE");
    let started = Instant::now();
    let max_score: f32 = arg(args, "--max-score", 500.0);
    let variant: Variant = arg(args, "--variant", Variant::Chess);
    let max_halfmove: u32 = arg(args, "--max-halfmove", u32::MAX);
    let buckets: usize = arg(args, "--buckets", 1usize);
    let hidden: usize = arg(args, "--hidden", HIDDEN);
    assert!(HIDDEN_SIZES.contains(&hidden), "--hidden: one of {HIDDEN_SIZES:?}");
    let ratio = text_arg(args, "--ratio").map(|v| v.parse::<f32>().expect("--ratio X"));
    let mirror = args.iter().any(|a| a == "--mirror");
    assert!((1..=nnue::MAX_BUCKETS).contains(&buckets), "--buckets: 1 to {}", nnue::MAX_BUCKETS);
    let (data, held) = load(
        &files,
        &Filter { variant, max_score, max_halfmove, ratio, mirror },
        result_weight,
        buckets,
    );
    eprintln!(
        "{} training positions, {} held out, loaded in {:.0} s",
        data.len(),
        held.len(),
        started.elapsed().as_secs_f64()
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // `--init NET`: start from another network (say chess's for Maharajah) instead of random
    // weights.
    let mut p = match text_arg(args, "--init") {
        Some(net) => {
            let p =
                Params::from_network(&std::fs::read(net).expect("--init network file"), buckets);
            match text_arg(args, "--hidden") {
                Some(_) if hidden != p.hidden() => p.widen(&mut rng, hidden),
                _ => p,
            }
        }
        None => Params::random(&mut rng, buckets, hidden),
    };
    let hidden = p.hidden();
    eprintln!("{hidden} hidden neurons a perspective, {buckets} output buckets");
    let mut m = Params::zero(buckets, hidden);
    let mut v = Params::zero(buckets, hidden);
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut step = 0i32;
    let mut order: Vec<u32> = (0..data.len() as u32).collect();
    let mut grads: Vec<Params> = (0..threads).map(|_| Params::zero(buckets, hidden)).collect();
    let mut best = (error(&p, &held, threads), p.clone(), 0);
    eprintln!("start: held-out error {:.6}", best.0);
    for epoch in 0..epochs {
        // Step decay: the rate falls tenfold over the last third.
        let lr = if epoch * 3 < epochs * 2 {
            lr0
        } else if epoch * 6 < epochs * 5 {
            lr0 * 0.3
        } else {
            lr0 * 0.1
        };
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let mut train_err = 0.0f64;
        for b in order.chunks(batch) {
            let chunk = b.len().div_ceil(threads);
            let p_ref = &p;
            let d_ref = &data;
            train_err += std::thread::scope(|s| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(b.chunks(chunk))
                    .map(|(g, idx)| {
                        s.spawn(move || {
                            for sl in g.slices_mut() {
                                sl.fill(0.0);
                            }
                            gradient(p_ref, d_ref, idx, g)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum::<f64>()
            });
            let used = b.len().div_ceil(chunk);
            let (first, rest) = grads.split_at_mut(1);
            for other in &mut rest[..used - 1] {
                for (a, o) in first[0].slices_mut().into_iter().zip(other.slices_mut()) {
                    for (x, y) in a.iter_mut().zip(o.iter()) {
                        *x += y;
                    }
                }
            }
            step += 1;
            let scale = 1.0 / b.len() as f32;
            let bc1 = 1.0 - beta1.powi(step);
            let bc2 = 1.0 - beta2.powi(step);
            for (((w, g), m), v) in p
                .slices_mut()
                .into_iter()
                .zip(first[0].slices_mut())
                .zip(m.slices_mut())
                .zip(v.slices_mut())
            {
                for j in 0..w.len() {
                    let gj = g[j] * scale;
                    m[j] = beta1 * m[j] + (1.0 - beta1) * gj;
                    v[j] = beta2 * v[j] + (1.0 - beta2) * gj * gj;
                    w[j] -= lr * ((m[j] / bc1) / ((v[j] / bc2).sqrt() + eps) + decay * w[j]);
                    w[j] = w[j].clamp(-1.98, 1.98);
                }
            }
        }
        let held_err = error(&p, &held, threads);
        eprintln!(
            "epoch {}: lr {lr}, training error {:.6}, held-out error {:.6}, {:.0} s",
            epoch + 1,
            train_err / data.len() as f64,
            held_err,
            started.elapsed().as_secs_f64()
        );
        if held_err < best.0 {
            best = (held_err, p.clone(), epoch + 1);
        }
    }
    // The epoch that generalised best is the one written.
    let p = best.1;
    eprintln!("keeping epoch {} (held-out error {:.6})", best.2, best.0);
    let mut folded = p.w1[..FEATURES * hidden].to_vec();
    for f in 0..FEATURES {
        let factor = FEATURES + f / 64;
        for j in 0..hidden {
            folded[f * hidden + j] += p.w1[factor * hidden + j];
        }
    }
    let bytes = nnue::quantise(&folded, &p.b1, &p.w2, &p.b2);
    // How far quantisation moves the output (centipawns, over the held-out positions).
    let net = nnue::Network::from_bytes(&bytes).expect("the network just written");
    let mut acc = [[0.0f32; MAX_HIDDEN]; 2];
    let mut diff = 0.0f64;
    for (i, fen) in held.fens.iter().enumerate() {
        let pos = Position::from_fen(variant, fen).expect("a held-out position");
        let float = (forward(&p, &held, i, &mut acc) - held.base[i]) * 400.0;
        diff += f64::from((float - net.evaluate(&pos) as f32).abs());
    }
    eprintln!("quantisation: {:.2} cp mean absolute difference", diff / held.len().max(1) as f64);
    std::fs::write(out, bytes).expect("write the network");
    eprintln!("wrote {out}");
}

/// Prints, beside each label of a data file, the network's correction, the hand-written
/// evaluation and what the search would use: their sum, the correction faded beyond the
/// variant's reach (`nnue show NET FILE [VARIANT]`).
fn show(args: &[String]) {
    let variant: Variant = args.get(3).map_or(Variant::Chess, |v| v.parse().expect("a variant"));
    let net = nnue::Network::from_bytes(&std::fs::read(&args[1]).expect("network file"))
        .expect("a network")
        .with_reach(nnue::reach(variant));
    let f = BufReader::new(std::fs::File::open(&args[2]).expect("data file"));
    for line in f.lines().take(100000) {
        let line = line.expect("read");
        let fen = line.split('|').next().unwrap();
        let pos = Position::from_fen(variant, fen).expect("fen");
        let (correction, hand) = (net.evaluate(&pos), maharajah_engine::eval::evaluate(&pos));
        let faded = net.fade(hand, correction);
        println!("{line}  net {correction}  hce {hand}  searched {}", hand + faded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_widened_network_evaluates_as_the_network() {
        maharajah_engine::attacks::init();
        let bytes = include_bytes!("../src/eval/net.bin");
        let net = nnue::Network::from_bytes(bytes).expect("chess's network");
        let p = Params::from_network(bytes, 1);
        let wide = p.widen(&mut ChaCha8Rng::seed_from_u64(7), 128);
        let old = p.hidden();
        let mut new_inputs = wide.w1[..FEATURES * 128].chunks(128).flat_map(|row| &row[old..]);
        assert!(new_inputs.any(|w| *w != 0.0), "the new neurons start at random");
        let mut new_outputs = wide.w2.chunks(128).flat_map(|half| &half[old..]);
        assert!(new_outputs.all(|w| *w == 0.0), "and with no weight to the output");
        let wide = nnue::quantise(&wide.w1[..FEATURES * 128], &wide.b1, &wide.w2, &wide.b2);
        let wide = nnue::Network::from_bytes(&wide).expect("the widened network");
        assert!(net.hidden() < 128 && wide.hidden() == 128, "{} → {}", net.hidden(), wide.hidden());
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "8/5k2/8/3Q4/8/8/2K5/8 b - - 0 60",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let pos = Position::from_fen(Variant::Chess, fen).expect("a position");
            assert_eq!(wide.evaluate(&pos), net.evaluate(&pos), "{fen}");
        }
    }
}
