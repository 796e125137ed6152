//! A match between two UCI engines, refereed by this crate's rules: chess, Maharajah with random
//! legal 39-point armies, or Horde; games in pairs from the same start with colours swapped.
//!
//! ```text
//! cargo build --release -p maharajah-uci --example uci_match
//! nice -n 10 target/release/examples/uci_match --a target/release/maharajah-uci \
//!     --b /path/to/fairy-stockfish --variant maharajah --pairs 50 --movetime 100
//! ```
//!
//! Options: `--a PATH`, `--b PATH` (engines; `--a-opt NAME=VALUE` / `--b-opt` set UCI options,
//! repeatable), `--variant chess|maharajah|horde`, `--pairs N`, `--movetime MS` or `--nodes N` (the
//! same for both, unless `--b-nodes N` gives B a node limit of its own), `--seed S`,
//! `--max-plies N` (then a draw), `--concurrency N` (games at once), `--log FILE` (one line per
//! game, tab-separated: game number, which engine had White (`A`/`B`), result, how it ended, start
//! FEN, the moves, and the score the mover reported for each move, from White's view in centipawns,
//! mates as ±100000, `-` if none; `tune import` turns such logs into tuning positions), `--mirror`
//! (Maharajah: Black's random army is White's, mirrored, so the start is balanced), `--balanced CP`
//! (Maharajah: two independent random armies, kept only when this crate's engine, searching the
//! start for [`BALANCE_NODES`] nodes, scores it within CP centipawns of even; the others are drawn
//! again. The judge is the engine this program was built with, so a seed gives the same starts only
//! with the same build of `uci_match`).
//!
//! Starts: chess and Horde play four random legal plies from the start position; Maharajah draws
//! two random armies with [`Army::random`] (the same generator the app's "random army" uses). A
//! pair plays the start twice, each engine once with White.
//!
//! An engine whose `id name` contains "Fairy-Stockfish" gets Maharajah as a per-game variant in
//! an ini file it loads (`VariantPath`): the M/C/A pieces are its amazon, chancellor and
//! archbishop; each side's promotion set and double-step squares follow its status (classic:
//! Q R B N and its rank-2/7 pawns; variant: Q R B N M C A and the squares of all its pawns). It
//! gets plain six-field FEN; this engine gets its extended FEN. Fairy-Stockfish grants double
//! steps by square, not by pawn, so in rare lines it may allow a double step this crate refuses;
//! such a move ends the game without result and is counted as "void".
//!
//! Games end by the rules (mate, stalemate, insufficient material, fivefold, 75 moves), by a
//! claimable draw (threefold, fifty moves), by adjudication when both engines' last reported
//! scores agree a side is ahead by at least 10 pawns (or mates) for four plies running, or as a
//! draw after `--max-plies`. A score with its 95 % interval and the Elo difference are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use maharajah_engine::search::{Limits, Score, Searcher};
use maharajah_engine::{start_position, Army, Color, Game, Move, Outcome, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Options {
    a: String,
    b: String,
    a_opts: Vec<(String, String)>,
    b_opts: Vec<(String, String)>,
    variant: Variant,
    pairs: usize,
    movetime: Option<u64>,
    nodes: Option<u64>,
    b_nodes: Option<u64>,
    seed: u64,
    max_plies: usize,
    concurrency: usize,
    log: Option<String>,
    mirror: bool,
    balanced: Option<i32>,
}

fn options() -> Options {
    let mut o = Options {
        a: String::new(),
        b: String::new(),
        a_opts: Vec::new(),
        b_opts: Vec::new(),
        variant: Variant::Chess,
        pairs: 10,
        movetime: None,
        nodes: None,
        b_nodes: None,
        seed: 1,
        max_plies: 300,
        concurrency: 1,
        log: None,
        mirror: false,
        balanced: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        let n = || v.parse::<u64>().unwrap_or_else(|_| panic!("{} needs a number", args[i]));
        let opt = || {
            let (k, val) = v.split_once('=').expect("option as NAME=VALUE");
            (k.to_string(), val.to_string())
        };
        match args[i].as_str() {
            "--a" => o.a = v.clone(),
            "--b" => o.b = v.clone(),
            "--a-opt" => o.a_opts.push(opt()),
            "--b-opt" => o.b_opts.push(opt()),
            "--variant" => o.variant = v.parse().expect("chess, maharajah or horde"),
            "--pairs" => o.pairs = n() as usize,
            "--movetime" => o.movetime = Some(n()),
            "--nodes" => o.nodes = Some(n()),
            "--b-nodes" => o.b_nodes = Some(n()),
            "--seed" => o.seed = n(),
            "--max-plies" => o.max_plies = n() as usize,
            "--concurrency" => o.concurrency = n().max(1) as usize,
            "--log" => o.log = Some(v.clone()),
            "--balanced" => o.balanced = Some(n() as i32),
            "--mirror" => {
                o.mirror = true;
                i += 1;
                continue;
            }
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    assert!(!o.a.is_empty() && !o.b.is_empty(), "--a and --b name the engines");
    assert!(o.movetime.is_some() || o.nodes.is_some(), "give --movetime or --nodes");
    o
}

/// One running engine process.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    is_fairy: bool,
    ini: String,
    /// Maharajah games set up so far (Fairy-Stockfish never redefines a variant: each game
    /// gets a new name).
    games: usize,
}

impl Engine {
    fn start(path: &str, opts: &[(String, String)], tag: usize) -> Engine {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {path}: {e}"));
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut e = Engine {
            child,
            input,
            output,
            is_fairy: false,
            ini: format!(
                "{}/uci_match_{}_{tag}.ini",
                std::env::temp_dir().display(),
                std::process::id()
            ),
            games: 0,
        };
        e.send("uci");
        let mut fairy = false;
        e.until(|l| {
            if l.starts_with("id name") && l.contains("Fairy-Stockfish") {
                fairy = true;
            }
            l == "uciok"
        });
        e.is_fairy = fairy;
        for (k, v) in opts {
            e.send(&format!("setoption name {k} value {v}"));
        }
        e
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("engine stdin");
        self.input.flush().expect("engine stdin");
    }

    /// Reads lines until `done` says stop; returns the last line.
    fn until(&mut self, mut done: impl FnMut(&str) -> bool) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.output.read_line(&mut line).expect("engine stdout");
            assert!(n > 0, "engine closed its output");
            let l = line.trim_end();
            if done(l) {
                return l.to_string();
            }
        }
    }

    fn sync(&mut self) {
        self.send("isready");
        self.until(|l| l == "readyok");
    }

    /// Sets up a new game from `start`.
    fn new_game(&mut self, variant: Variant, start: &Position) {
        if self.is_fairy {
            let name = match variant {
                Variant::Chess => "chess".to_string(),
                Variant::Horde => "horde".to_string(),
                Variant::Maharajah => {
                    self.games += 1;
                    let name = format!("mhgame{}", self.games);
                    std::fs::write(&self.ini, start.fairy_stockfish_variant(&name))
                        .expect("write variant ini");
                    self.send(&format!("setoption name VariantPath value {}", self.ini));
                    name
                }
            };
            self.send(&format!("setoption name UCI_Variant value {name}"));
        } else {
            self.send(&format!("setoption name UCI_Variant value {variant}"));
        }
        self.send("ucinewgame");
        self.sync();
    }

    /// Asks for a move; returns the move text and the last reported score (side to move's view,
    /// mates as ±100,000).
    fn think(&mut self, start: &Position, moves: &[Move], go: &str) -> (String, Option<i32>) {
        let fen = if self.is_fairy { start.plain_fen() } else { start.to_string() };
        let mut line = format!("position fen {fen}");
        if !moves.is_empty() {
            line.push_str(" moves");
            for m in moves {
                line.push(' ');
                line.push_str(&m.to_string());
            }
        }
        self.send(&line);
        self.send(go);
        let mut score = None;
        let last = self.until(|l| {
            if l.starts_with("info") {
                let w: Vec<&str> = l.split_whitespace().collect();
                if let Some(i) = w.iter().position(|x| *x == "score") {
                    let bound =
                        w.get(i + 3).is_some_and(|b| *b == "lowerbound" || *b == "upperbound");
                    if !bound {
                        match (w.get(i + 1), w.get(i + 2).and_then(|v| v.parse::<i32>().ok())) {
                            (Some(&"cp"), Some(v)) => score = Some(v),
                            (Some(&"mate"), Some(v)) => {
                                score = Some(if v > 0 { 100_000 } else { -100_000 });
                            }
                            _ => {}
                        }
                    }
                }
            }
            l.starts_with("bestmove")
        });
        let mv = last.split_whitespace().nth(1).unwrap_or("0000").to_string();
        (mv, score)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.ini);
    }
}

/// Nodes of the search that judges a `--balanced` start.
const BALANCE_NODES: u64 = 50_000;

/// The score of `pos` for the side to move after a [`BALANCE_NODES`] search; mates count as
/// far beyond any balance limit.
fn judge(pos: &Position) -> i32 {
    let mut searcher = Searcher::new(8);
    let stop = AtomicBool::new(false);
    let result = searcher.think_position(
        pos,
        &[],
        &Limits::nodes(BALANCE_NODES),
        &stop,
        &|| Duration::ZERO,
        &mut |_| {},
    );
    match result.score {
        Score::Cp(cp) => cp,
        Score::Mate(_) => i32::MAX,
    }
}

fn opening(o: &Options, rng: &mut ChaCha8Rng) -> Position {
    match o.variant {
        Variant::Maharajah => loop {
            let w = Army::random(Color::White, rng);
            let b = if o.mirror { w.mirrored() } else { Army::random(Color::Black, rng) };
            if let Ok(p) = start_position(&w, &b) {
                if !o.balanced.is_some_and(|cp| judge(&p).abs() > cp) {
                    break p;
                }
            }
        },
        v => loop {
            let mut pos = Position::new(v);
            for _ in 0..4 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            if !pos.legal_moves().is_empty() {
                break pos;
            }
        },
    }
}

#[derive(Clone, Copy, PartialEq)]
enum End {
    /// White's score.
    Score(f64),
    /// A move the referee refused (engine name).
    Void,
}

/// A finished game: how it ended, why, the moves, and each move's reported score (White's view).
type Played = (End, String, Vec<Move>, Vec<Option<i32>>);

/// Plays one game; `white` has White, and `a_white` says whether that is engine A.
fn play(
    o: &Options,
    start: &Position,
    white: &mut Engine,
    black: &mut Engine,
    a_white: bool,
) -> Played {
    white.new_game(o.variant, start);
    black.new_game(o.variant, start);
    let go_a = match (o.movetime, o.nodes) {
        (Some(t), _) => format!("go movetime {t}"),
        (None, Some(n)) => format!("go nodes {n}"),
        _ => unreachable!("checked in options"),
    };
    let go_b = o.b_nodes.map_or_else(|| go_a.clone(), |n| format!("go nodes {n}"));
    let (go_white, go_black) = if a_white { (&go_a, &go_b) } else { (&go_b, &go_a) };
    let mut game = Game::new(start.clone());
    let mut streak = [0usize; 2];
    let mut last = [0i32; 2];
    let mut scores = Vec::new();
    loop {
        match game.outcome() {
            Some(Outcome::Decisive { winner, .. }) => {
                let s = if winner == Color::White { 1.0 } else { 0.0 };
                return (End::Score(s), "rules".into(), game.moves().to_vec(), scores);
            }
            Some(Outcome::Draw { .. }) => {
                return (End::Score(0.5), "rules draw".into(), game.moves().to_vec(), scores)
            }
            None => {}
        }
        if game.claimable_draw().is_some() {
            return (End::Score(0.5), "claimable draw".into(), game.moves().to_vec(), scores);
        }
        if game.moves().len() >= o.max_plies {
            return (End::Score(0.5), "max plies".into(), game.moves().to_vec(), scores);
        }
        let turn = game.position().turn();
        let engine = if turn == Color::White { &mut *white } else { &mut *black };
        let name = if turn == Color::White { "white" } else { "black" };
        let go = if turn == Color::White { go_white } else { go_black };
        let (text, score) = engine.think(start, game.moves(), go);
        let Ok(mv) = text.parse::<Move>() else {
            return (End::Void, format!("{name} sent {text:?}"), game.moves().to_vec(), scores);
        };
        if let Err(e) = game.play(mv) {
            return (
                End::Void,
                format!("{name} played illegal {}", e.mv),
                game.moves().to_vec(),
                scores,
            );
        }
        let me = turn as usize;
        last[me] = score.unwrap_or(0);
        scores.push(score.map(|v| if turn == Color::White { v } else { -v }));
        // Adjudicate when both sides agree, four plies running, that `turn` is winning big.
        if last[me] >= 1000 && last[1 - me] <= -1000 {
            streak[me] += 1;
            streak[1 - me] = 0;
        } else if last[me] <= -1000 && last[1 - me] >= 1000 {
            streak[1 - me] += 1;
            streak[me] = 0;
        } else {
            streak = [0, 0];
        }
        for c in [Color::White, Color::Black] {
            if streak[c as usize] >= 4 {
                let s = if c == Color::White { 1.0 } else { 0.0 };
                return (End::Score(s), "adjudicated".into(), game.moves().to_vec(), scores);
            }
        }
    }
}

fn elo(s: f64) -> f64 {
    -400.0 * (1.0 / s.clamp(1e-3, 1.0 - 1e-3) - 1.0).log10()
}

fn main() {
    let o = options();
    let games = 2 * o.pairs;
    // (wins, draws, losses) of engine A, voids.
    let totals = Mutex::new((0.0f64, 0.0f64, 0.0f64, 0usize));
    // A's score in each game (None: void or not played), for the pair statistics.
    let per_game = Mutex::new(vec![None::<f64>; games]);
    let log = o.log.as_ref().map(|p| Mutex::new(std::fs::File::create(p).expect("log file")));
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for worker in 0..o.concurrency {
            let (o, totals, log, next, per_game) = (&o, &totals, &log, &next, &per_game);
            s.spawn(move || {
                let mut a = Engine::start(&o.a, &o.a_opts, 2 * worker);
                let mut b = Engine::start(&o.b, &o.b_opts, 2 * worker + 1);
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games {
                        break;
                    }
                    let mut rng =
                        ChaCha8Rng::seed_from_u64(o.seed.wrapping_mul(1_000_003) ^ (g / 2) as u64);
                    let start = opening(o, &mut rng);
                    let a_white = g % 2 == 0;
                    let (end, why, moves, scores) = if a_white {
                        play(o, &start, &mut a, &mut b, true)
                    } else {
                        play(o, &start, &mut b, &mut a, false)
                    };
                    let mut t = totals.lock().unwrap();
                    let result = match end {
                        End::Void => {
                            t.3 += 1;
                            "*".to_string()
                        }
                        End::Score(w) => {
                            let sa = if a_white { w } else { 1.0 - w };
                            per_game.lock().unwrap()[g] = Some(sa);
                            if sa > 0.75 {
                                t.0 += 1.0;
                            } else if sa > 0.25 {
                                t.1 += 1.0;
                            } else {
                                t.2 += 1.0;
                            }
                            match w {
                                w if w > 0.75 => "1-0".into(),
                                w if w < 0.25 => "0-1".into(),
                                _ => "1/2-1/2".into(),
                            }
                        }
                    };
                    let (w, d, l, v) = *t;
                    eprintln!(
                        "game {g} ({} white): {result} {why}, {} plies; A {w}-{d}-{l}, void {v}",
                        if a_white { "A" } else { "B" },
                        moves.len()
                    );
                    drop(t);
                    if let Some(log) = log {
                        let mv: Vec<String> = moves.iter().map(ToString::to_string).collect();
                        let sc: Vec<String> = scores
                            .iter()
                            .map(|s| s.map_or_else(|| "-".to_string(), |v| v.to_string()))
                            .collect();
                        let mut f = log.lock().unwrap();
                        let white = if a_white { "A" } else { "B" };
                        writeln!(
                            f,
                            "{g}\t{white}\t{result}\t{why}\t{start}\t{}\t{}",
                            mv.join(" "),
                            sc.join(" ")
                        )
                        .expect("log");
                    }
                }
            });
        }
    });
    let (w, d, l, v) = totals.into_inner().unwrap();
    let n = w + d + l;
    let s = (w + d / 2.0) / n;
    let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
    let se = (var / n).sqrt();
    // Pairs share a start, so their two games are not independent: the error bar from the
    // spread of pair scores (pentanomial) is the honest one.
    let per_game = per_game.into_inner().unwrap();
    let pair_scores: Vec<f64> = per_game
        .chunks(2)
        .filter_map(|p| match p {
            [Some(x), Some(y)] => Some((x + y) / 2.0),
            _ => None,
        })
        .collect();
    let np = pair_scores.len() as f64;
    let mean = pair_scores.iter().sum::<f64>() / np;
    let pvar = pair_scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / np;
    let pse = (pvar / np).sqrt();
    let mut counts = [0usize; 5];
    for x in &pair_scores {
        counts[(x * 4.0).round() as usize] += 1;
    }
    let mut limit = match (o.movetime, o.nodes) {
        (Some(t), _) => format!("movetime {t} ms"),
        (_, Some(nodes)) => format!("{nodes} nodes"),
        _ => String::new(),
    };
    if let Some(n) = o.b_nodes {
        limit = format!("{limit} (B: {n} nodes)");
    }
    println!(
        "{} games of {} at {limit} (seed {}): A {w}-{d}-{l} (W-D-L), void {v}; \
         A scores {:.1} % ± {:.1} % (95 %), Elo {:+.0} [{:+.0}, {:+.0}]; {:.0} s",
        n,
        o.variant,
        o.seed,
        100.0 * s,
        196.0 * se,
        elo(s),
        elo(s - 1.96 * se),
        elo(s + 1.96 * se),
        started.elapsed().as_secs_f64()
    );
    println!(
        "pairs (A's pair score 0, 0.5, 1, 1.5, 2): {counts:?}; by pairs A scores {:.1} % ± {:.1} % \
         (95 %), Elo {:+.0} [{:+.0}, {:+.0}]",
        100.0 * mean,
        196.0 * pse,
        elo(mean),
        elo(mean - 1.96 * pse),
        elo(mean + 1.96 * pse)
    );
}
