//! Texel tuning of the evaluation weights from self-play or from games between other engines.
//!
//! ```text
//! cargo run --release -p maharajah-engine --example tune -- gen --games 800 --nodes 4000 \
//!     --threads 2 --seed 1 --out /tmp/positions.txt
//! cargo run --release -p maharajah-engine --example tune -- import --variant horde \
//!     --out /tmp/positions.txt /tmp/match.log
//! cargo run --release -p maharajah-engine --example tune -- fit /tmp/positions.txt --threads 2
//! ```
//!
//! `gen` plays the full engine against itself at a fixed node count per move (deterministic
//! from the seed) from rotating starts: chess after eight random plies, two independent random
//! 39-point Maharajah armies, a random army against its own mirror image, and Horde after four
//! random plies. It writes one line per position, `variant|fen|result` (White's score 1, ½ or
//! 0), keeping positions from ply 8 on where the side to move is not in check and the engine's
//! move is quiet (no capture, no promotion), so the static evaluation is meaningful. Games end
//! by the rules, a claimable draw, adjudication (both sides' scores agree on 9 pawns or mate)
//! or as a draw at 300 plies.
//!
//! `import` reads the game logs of `crates/uci/examples/uci_match.rs --log` (for instance
//! Fairy-Stockfish against itself) and keeps positions by the same rules, adding a fourth
//! field: the search score the moving engine reported there (White's view, `-` if none).
//!
//! `fit` reads the positions, drops those where the side to move has a capture that wins
//! material by static exchange (not quiet), first finds the scale `K` that best maps the
//! current evaluation to results (`1 / (1 + 10^(−K·eval/400))`; on the positions with both
//! kings, so a biased Horde term cannot shrink the whole scale, or on all of them if none has
//! both; `--k` fixes it), then minimises the mean squared error over every weight of
//! [`Weights::params_mut`] by local search (Texel's method: try each weight ± step, keep what
//! lowers the error; steps 8, 4, 2, 1), holding out every tenth position to report the error
//! on unseen positions. `--fixed-material` leaves the material values alone; `--only a,b`
//! tunes only the weights whose names start with `a` or `b`; `--rounds N` refits `K` and
//! tunes again N times; `--score-weight W` blends the stored search scores into the target,
//! `(1 − W) · result + W · 1 / (1 + 10^(−Ks·score/400))`, with `Ks` fitted to the results
//! first. `--network` fits the evaluation the search uses: the network's correction
//! ([`maharajah_engine::eval::network_for`]) is added to every position's evaluation (it reads
//! only where the pieces stand, so it is computed once). It prints the new weights as a Rust
//! expression for `eval.rs`.
//!
//! `nnue gen`'s files (`fen|score|result`, the side to move's view) become `fit`'s by
//! `awk -F'|' '{split($1,a," "); s=$2; r=$3; if (a[2]=="b") {s=-s; r=1-r}; print "chess|" $1 "|" r "|" s}'`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use maharajah_engine::eval::{evaluate_with, network_for, Weights, WEIGHTS};
use maharajah_engine::search::see::see;
use maharajah_engine::search::{Limits, Score, Searcher};
use maharajah_engine::{start_position, Army, Color, Game, Position, Variant};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

mod common;

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name} needs a number")))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    maharajah_engine::attacks::init();
    match args.first().map(String::as_str) {
        Some("gen") => generate(&args),
        Some("import") => import(&args),
        Some("fit") => fit(&args),
        _ => eprintln!(
            "usage: tune gen --games N --nodes N --threads N --seed S --out FILE\n\
             \x20      tune import --variant V --out FILE LOG...\n\
             \x20      tune fit FILE [--threads N] [--sweeps N] [--fixed-material] \
             [--only PREFIX,...] [--score-weight W] [--k K] [--rounds N] [--network] [--diag]"
        ),
    }
}

fn start(index: usize, rng: &mut ChaCha8Rng) -> (Variant, Position) {
    let random_plies = |variant: Variant, plies: usize, rng: &mut ChaCha8Rng| loop {
        let mut pos = Position::new(variant);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if pos.has_legal_moves() {
            break pos;
        }
    };
    match index % 4 {
        0 => (Variant::Chess, random_plies(Variant::Chess, 8, rng)),
        3 => (Variant::Horde, random_plies(Variant::Horde, 4, rng)),
        k => loop {
            let w = Army::random(Color::White, rng);
            let b = if k == 1 { Army::random(Color::Black, rng) } else { w.mirrored() };
            if let Ok(p) = start_position(&w, &b) {
                break (Variant::Maharajah, p);
            }
        },
    }
}

/// Plays one self-play game; returns the kept positions (variant, FEN) and White's score.
fn self_play((variant, start): (Variant, Position), nodes: u64) -> (Vec<(Variant, String)>, f64) {
    let mut searcher = Searcher::new(4);
    let stop = AtomicBool::new(false);
    let mut game = Game::new(start);
    let mut kept = Vec::new();
    let mut last = [0i32; 2];
    loop {
        let plies = game.moves().len();
        if let Some(white) = common::finished(&game, 300) {
            return (kept, white);
        }
        let r =
            searcher.think(&game, &Limits::nodes(nodes), &stop, &|| Duration::ZERO, &mut |_| {});
        let mv = r.best_move.expect("a game in progress has a legal move");
        let pos = game.position();
        if plies >= 8 && !pos.is_check() && !pos.is_capture(mv) && mv.promotion.is_none() {
            kept.push((variant, pos.to_string()));
        }
        let turn = pos.turn();
        let cp = match r.score {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 30_000,
            Score::Mate(_) => -30_000,
        };
        last[turn as usize] = cp;
        if plies >= 2 && cp >= 900 && last[1 - turn as usize] <= -900 {
            return (kept, if turn == Color::White { 1.0 } else { 0.0 });
        }
        game.play_unchecked(mv);
    }
}

fn generate(args: &[String]) {
    let games = arg(args, "--games", 100) as usize;
    let nodes = arg(args, "--nodes", 4000);
    let threads = arg(args, "--threads", 1).max(1) as usize;
    let seed = arg(args, "--seed", 1);
    let out =
        args.iter().position(|a| a == "--out").and_then(|i| args.get(i + 1)).expect("--out FILE");
    let file = std::fs::File::create(out).expect("output file");
    common::play_games(
        games,
        threads,
        seed,
        50,
        file,
        || (),
        |(), g, rng| {
            let (kept, result) = self_play(start(g, rng), nodes);
            kept.iter().map(|(variant, fen)| format!("{variant}|{fen}|{result}")).collect()
        },
    );
}

/// Turns `uci_match --log` files into position lines: replays every game with a result, keeps
/// the positions from ply 8 on where the side to move is not in check and the move played is
/// quiet, and writes `variant|fen|result|score`, where `score` is what the engine that moved
/// reported for that position (White's view, centipawns; `-` if it reported none).
fn import(args: &[String]) {
    let value =
        |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let variant: Variant = value("--variant")
        .expect("--variant chess|maharajah|horde")
        .parse()
        .expect("--variant chess, maharajah or horde");
    let out = value("--out").expect("--out FILE");
    let mut logs = Vec::new();
    let mut i = 1;
    while i < args.len() {
        if args[i].starts_with("--") {
            i += 2;
        } else {
            logs.push(args[i].clone());
            i += 1;
        }
    }
    assert!(!logs.is_empty(), "name at least one uci_match log");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&out).expect("output file"));
    let (mut games, mut kept) = (0, 0);
    for log in &logs {
        let file = std::fs::File::open(log).unwrap_or_else(|e| panic!("{log}: {e}"));
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.expect("read log");
            let fields: Vec<&str> = line.split('\t').collect();
            let [_, _, result, _, fen, moves, rest @ ..] = fields.as_slice() else {
                panic!("{log}:{}: not a uci_match log line", n + 1);
            };
            let result = match *result {
                "1-0" => "1",
                "0-1" => "0",
                "1/2-1/2" => "0.5",
                _ => continue, // void
            };
            let scores: Vec<&str> = rest.first().map_or(Vec::new(), |s| s.split(' ').collect());
            let mut pos = Position::from_fen(variant, fen)
                .unwrap_or_else(|e| panic!("{log}:{}: start FEN: {e}", n + 1));
            games += 1;
            for (ply, text) in moves.split_whitespace().enumerate() {
                let mv = text
                    .parse()
                    .ok()
                    .filter(|m| pos.legal_moves().contains(m))
                    .unwrap_or_else(|| panic!("{log}:{}: illegal move {text}", n + 1));
                if ply >= 8 && !pos.is_check() && !pos.is_capture(mv) && mv.promotion.is_none() {
                    let score = scores.get(ply).copied().unwrap_or("-");
                    writeln!(f, "{variant}|{pos}|{result}|{score}").expect("write");
                    kept += 1;
                }
                pos.play_unchecked(mv);
            }
        }
    }
    eprintln!("{kept} positions from {games} games");
}

/// Mean squared error of the weights' predictions over `data`, in parallel.
fn error(data: &[(Position, f64, i32)], w: &Weights, k: f64, threads: usize) -> f64 {
    let chunk = data.len().div_ceil(threads).max(1);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(pos, result, network)| {
                            let v = evaluate_with(pos, w) + network;
                            let white = if pos.turn() == Color::White { v } else { -v };
                            let p = 1.0 / (1.0 + 10f64.powf(-k * f64::from(white) / 400.0));
                            (result - p).powi(2)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total / data.len() as f64
}

/// The K in 0.01…2.1 that minimises `err`, by a coarse then a fine scan.
fn scan_k(err: impl Fn(f64) -> f64) -> f64 {
    let mut k = 1.0;
    let mut best = f64::MAX;
    for step in [0.1, 0.01] {
        let centre = k;
        for i in -10..=10 {
            let kk = centre + f64::from(i) * step;
            if kk <= 0.0 {
                continue;
            }
            let e = err(kk);
            if e < best {
                best = e;
                k = kk;
            }
        }
    }
    k
}

fn fit(args: &[String]) {
    let path = args.get(1).expect("fit FILE");
    let threads = arg(args, "--threads", 1).max(1) as usize;
    let max_sweeps = arg(args, "--sweeps", 30) as usize;
    let fixed_material = args.iter().any(|a| a == "--fixed-material");
    // `--only a,b`: tune only the weights whose names start with one of these.
    let only: Vec<String> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    // `--score-weight W`: the target is (1 − W) · result + W · the result predicted from the
    // search score stored with the position (see `import`), a less noisy label.
    let score_weight: f64 = args
        .iter()
        .position(|a| a == "--score-weight")
        .and_then(|i| args.get(i + 1))
        .map_or(0.0, |v| v.parse().expect("--score-weight needs a number from 0 to 1"));
    assert!((0.0..=1.0).contains(&score_weight), "--score-weight is between 0 and 1");
    let fixed_k: Option<f64> = args
        .iter()
        .position(|a| a == "--k")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("--k needs a number"));
    let rounds = arg(args, "--rounds", 1).max(1) as usize;
    // `--network`: the evaluation being fitted is the search's, the hand-written one plus the
    // network's correction where one applies; the correction is fixed (it reads only where
    // the pieces stand), so it is computed once per position.
    let with_network = args.iter().any(|a| a == "--network");
    let mut train = Vec::new();
    let mut test = Vec::new();
    // (search score, result) of every position that has a score, to fit the score's scale.
    let mut scored = Vec::new();
    let file = std::fs::File::open(path).expect("positions file");
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.expect("read");
        let mut parts = line.split('|');
        let (Some(v), Some(fen), Some(r)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let score: Option<f64> =
            parts.next().and_then(|s| s.parse::<f64>().ok()).map(|s| s.clamp(-3000.0, 3000.0));
        let variant: Variant = v.parse().expect("variant");
        let pos = Position::from_fen(variant, fen).expect("FEN written by gen");
        // Keep only quiet positions: the side to move has no capture that wins material
        // (the static evaluation cannot see such a gain).
        if pos.legal_moves().iter().any(|&m| pos.is_capture(m) && see(&pos, m) > 0) {
            continue;
        }
        let result: f64 = r.parse().expect("result");
        if let Some(sc) = score {
            scored.push((sc, result));
        }
        if i % 10 == 9 {
            test.push((pos, result, score));
        } else {
            train.push((pos, result, score));
        }
    }
    eprintln!("{} training positions, {} held out", train.len(), test.len());
    // The search scores' own scale: the K that maps them to the results best.
    let sigmoid = |k: f64, cp: f64| 1.0 / (1.0 + 10f64.powf(-k * cp / 400.0));
    let ks = if score_weight > 0.0 {
        assert!(!scored.is_empty(), "--score-weight needs positions with scores (tune import)");
        let err = |k: f64| {
            scored.iter().map(|&(sc, r)| (r - sigmoid(k, sc)).powi(2)).sum::<f64>()
                / scored.len() as f64
        };
        let ks = scan_k(err);
        eprintln!("search scores: K = {ks:.2}, error {:.6}", err(ks));
        ks
    } else {
        1.0
    };
    let target = |(pos, result, score): (Position, f64, Option<f64>)| {
        let t = match score {
            Some(sc) => (1.0 - score_weight) * result + score_weight * sigmoid(ks, sc),
            None => result,
        };
        let correction =
            if with_network { network_for(&pos).map_or(0, |net| net.evaluate(&pos)) } else { 0 };
        (pos, t, correction)
    };
    let train: Vec<(Position, f64, i32)> = train.into_iter().map(target).collect();
    let test: Vec<(Position, f64, i32)> = test.into_iter().map(target).collect();
    if args.iter().any(|a| a == "--diag") {
        // Mean result by evaluation bucket (White's view, the network's correction included
        // with `--network`), to see how well the scale fits.
        let mut buckets = std::collections::BTreeMap::<i32, (usize, f64)>::new();
        for (pos, result, network) in &train {
            let v = evaluate_with(pos, &WEIGHTS) + network;
            let white = if pos.turn() == Color::White { v } else { -v };
            let b = (white / 200).clamp(-8, 8);
            let e = buckets.entry(b).or_default();
            e.0 += 1;
            e.1 += result;
        }
        for (b, (n, sum)) in buckets {
            eprintln!("eval {:+5}..: {n:6} positions, White scores {:.2}", b * 200, sum / n as f64);
        }
        return;
    }
    let mut w = WEIGHTS.clone();
    // The scale K: fixed by `--k`, else fitted on the positions where both sides have a king
    // (the hand-set Horde terms are biased, see the README, and fitting K to them would shrink
    // the whole scale) or, with none (Horde-only data), on all positions, then refitted after
    // each round of weight tuning (`--rounds`).
    let kinged: Vec<(Position, f64, i32)> =
        train.iter().filter(|(p, _, _)| p.king_of(Color::White).is_some()).cloned().collect();
    let k_data = if kinged.is_empty() { &train } else { &kinged };
    let mut k = fixed_k.unwrap_or_else(|| scan_k(|k| error(k_data, &w, k, threads)));
    let test_before = error(&test, &w, k, threads);
    eprintln!(
        "K = {k:.2}; error train {:.6}, held out {test_before:.6}",
        error(&train, &w, k, threads)
    );
    let started = Instant::now();
    let count = w.params_mut().len();
    for round in 0..rounds {
        if round > 0 && fixed_k.is_none() {
            k = scan_k(|k| error(k_data, &w, k, threads));
            eprintln!("round {round}: K = {k:.2}");
        }
        let mut best = error(&train, &w, k, threads);
        for step in [8, 4, 2, 1] {
            for sweep in 0..max_sweeps {
                let mut improved = false;
                for i in 0..count {
                    let name = w.params_mut()[i].0.clone();
                    if fixed_material && name.starts_with("material")
                        || !only.is_empty() && !only.iter().any(|p| name.starts_with(p.as_str()))
                    {
                        continue;
                    }
                    for delta in [step, -step] {
                        *w.params_mut()[i].1 += delta;
                        let e = error(&train, &w, k, threads);
                        if e < best {
                            best = e;
                            improved = true;
                            break;
                        }
                        *w.params_mut()[i].1 -= delta;
                    }
                }
                eprintln!(
                    "step {step} sweep {sweep}: train {best:.6}, held out {:.6}, {:.0} s",
                    error(&test, &w, k, threads),
                    started.elapsed().as_secs_f64()
                );
                if !improved {
                    break;
                }
            }
        }
    }
    let test_after = error(&test, &w, k, threads);
    println!("// K = {k:.2}; held-out error {test_before:.6} -> {test_after:.6}");
    let mut base = WEIGHTS.clone();
    let old: Vec<(String, i32)> = base.params_mut().into_iter().map(|(n, v)| (n, *v)).collect();
    for ((name, new), (_, was)) in w.params_mut().into_iter().zip(old) {
        if *new != was {
            println!("// {name}: {was} -> {new}");
        }
    }
    println!("{w:#?}");
}
