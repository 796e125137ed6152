//! Self-play ladder: neighbouring computer levels play each other from varied starts (chess,
//! random 39-point Maharajah armies, Horde), colours swapped in pairs, and an Elo table is
//! printed in Markdown for BENCHMARKS.md (Maharajah starts: a random 39-point army against its
//! mirror image). With `--armies N` it instead measures the army
//! builder: the same level with a built army against a random army.
//!
//! ```text
//! cargo run --release -p maharajah-engine --example ladder -- --games 40 --threads 2
//! cargo run --release -p maharajah-engine --example ladder -- --armies 40 --threads 2
//! ```
//!
//! Node caps are each level's own caps divided by `--scale` (so the ladder finishes in minutes)
//! but never below 12,000 nodes or the level's own cap if that is smaller (levels 1–4 therefore
//! play with their real caps); level 8, which has no cap of its own (it plays by time), gets
//! three times level 7's ladder cap. With the default `--scale 1` every level 1–7 plays with exactly
//! its own caps. Moves are chosen
//! by node count only, so a run is reproducible from its `--seed` whatever the machine load.
//! Games end by the rules, by a claimable draw (threefold, fifty moves), by adjudication when
//! both sides' last scores agree that one side is winning by 9 pawns or a mate, or as a draw
//! after `--max-plies`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use maharajah_engine::search::{build_army, pick_move_for_level, Level, Limits, Score, Searcher};
use maharajah_engine::{start_position, Army, Color, Game, Outcome, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Options {
    games: usize,
    scale: u64,
    threads: usize,
    seed: u64,
    max_plies: usize,
    armies: usize,
    from: u8,
    to: u8,
}

fn options() -> Options {
    let mut o = Options {
        games: 24,
        scale: 1,
        threads: 1,
        seed: 1,
        max_plies: 240,
        armies: 0,
        from: 1,
        to: 8,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).map(String::as_str).unwrap_or("");
        let n = || v.parse::<u64>().expect("numeric option value");
        match args[i].as_str() {
            "--games" => o.games = n() as usize,
            "--scale" => o.scale = n().max(1),
            "--threads" => o.threads = n().max(1) as usize,
            "--seed" => o.seed = n(),
            "--max-plies" => o.max_plies = n() as usize,
            "--armies" => o.armies = n() as usize,
            "--from" => o.from = n() as u8,
            "--to" => o.to = n() as u8,
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    o
}

/// Scaled caps never drop below this (or below the level's own cap if smaller), so the cheap
/// low levels play with their real caps.
const FLOOR: u64 = 12_000;

/// The limits a level plays with in the ladder.
fn ladder_limits(level: Level, scale: u64) -> Limits {
    let own = level.search_limits();
    let nodes = match own.nodes {
        Some(n) => (n / scale).max(n.min(FLOOR)),
        None => 3 * (ladder_limits(Level::new(7), scale).nodes.unwrap_or(FLOOR)),
    };
    Limits { nodes: Some(nodes.max(100)), ..own }
}

/// A start position: game `index` of a pair picks the variant; `rng` the armies or first moves.
fn opening(index: usize, rng: &mut ChaCha8Rng) -> Position {
    match index % 3 {
        0 | 2 => {
            let variant = if index % 3 == 0 { Variant::Chess } else { Variant::Horde };
            let mut pos = Position::new(variant);
            for _ in 0..2 {
                let moves = pos.legal_moves();
                pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            pos
        }
        // A random army against its own mirror image: two independent random armies are
        // usually decided by the first move (a piece hangs), which says little about levels.
        _ => loop {
            let w = Army::random(Color::White, rng);
            if let Ok(p) = start_position(&w, &w.mirrored()) {
                break p;
            }
        },
    }
}

struct Player {
    level: Level,
    limits: Limits,
    searcher: Searcher,
    rng: ChaCha8Rng,
}

/// Plays one game; returns White's score (1, ½, 0) and the number of plies.
fn play(start: Position, white: &mut Player, black: &mut Player, max_plies: usize) -> (f64, usize) {
    let stop = AtomicBool::new(false);
    let mut game = Game::new(start);
    let mut last_score = [0i32; 2];
    loop {
        let plies = game.moves().len();
        match game.outcome() {
            Some(Outcome::Decisive { winner, .. }) => {
                return (if winner == Color::White { 1.0 } else { 0.0 }, plies)
            }
            Some(Outcome::Draw { .. }) => return (0.5, plies),
            None => {}
        }
        if game.claimable_draw().is_some() || plies >= max_plies {
            return (0.5, plies);
        }
        let turn = game.position().turn();
        let p = if turn == Color::White { &mut *white } else { &mut *black };
        let r = pick_move_for_level(
            &mut p.searcher,
            &game,
            p.level,
            &p.limits,
            &mut p.rng,
            &stop,
            &|| Duration::ZERO,
            &mut |_| {},
        );
        let cp = match r.score {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 30_000,
            Score::Mate(_) => -30_000,
        };
        let me = turn as usize;
        last_score[me] = cp;
        if plies >= 2 && cp >= 900 && last_score[1 - me] <= -900 {
            return (if turn == Color::White { 1.0 } else { 0.0 }, plies);
        }
        game.play_unchecked(r.best_move.expect("a game in progress has a legal move"));
    }
}

fn elo(score: f64, games: f64) -> f64 {
    let s = score.clamp(0.5 / games, 1.0 - 0.5 / games);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Approximate 95% interval of an Elo difference from W/D/L counts.
fn elo_error(w: f64, d: f64, l: f64) -> f64 {
    let n = w + d + l;
    let s = (w + d / 2.0) / n;
    let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
    let se = (var / n).sqrt();
    let lo = elo(s - 1.96 * se, n);
    let hi = elo(s + 1.96 * se, n);
    (hi - lo) / 2.0
}

/// One game job: which pair, which game of the pair.
#[derive(Clone, Copy)]
struct Job {
    pair: usize,
    game: usize,
}

fn main() {
    let o = options();
    maharajah_engine::attacks::init();
    if o.armies > 0 {
        return armies(&o);
    }
    let levels: Vec<u8> = (o.from..=o.to).collect();
    let pairs: Vec<(u8, u8)> = levels.windows(2).map(|w| (w[0], w[1])).collect();
    let jobs: Vec<Job> = (0..pairs.len())
        .rev()
        .flat_map(|pair| (0..o.games).map(move |game| Job { pair, game }))
        .collect();
    // results[pair] = (wins, draws, losses) of the higher level, plies.
    let results = Mutex::new(vec![(0.0f64, 0.0f64, 0.0f64, 0usize); pairs.len()]);
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..o.threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&job) = jobs.get(i) else { break };
                let (lo, hi) = pairs[job.pair];
                // Seeded by the pair's lower level, so a pair replays the same with any --from.
                let seed = o.seed ^ (u64::from(lo) << 32) ^ (job.game as u64 / 2);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let start = opening(job.game / 2, &mut rng);
                let mk = |n: u8, salt: u64| Player {
                    level: Level::new(n),
                    limits: ladder_limits(Level::new(n), o.scale),
                    searcher: Searcher::new(2),
                    rng: ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31).wrapping_add(salt)),
                };
                let (mut a, mut b) = (mk(hi, job.game as u64), mk(lo, 1000 + job.game as u64));
                // Even games: the higher level is White; odd: Black, from the same start.
                let hi_white = job.game % 2 == 0;
                let (w, plies) = if hi_white {
                    play(start, &mut a, &mut b, o.max_plies)
                } else {
                    play(start, &mut b, &mut a, o.max_plies)
                };
                let hi_score = if hi_white { w } else { 1.0 - w };
                let mut r = results.lock().unwrap();
                let e = &mut r[job.pair];
                if hi_score > 0.75 {
                    e.0 += 1.0;
                } else if hi_score > 0.25 {
                    e.1 += 1.0;
                } else {
                    e.2 += 1.0;
                }
                e.3 += plies;
            });
        }
    });
    let results = results.into_inner().unwrap();
    println!(
        "Ladder: {} games per pair, node caps / {}, seed {}, {} threads, {:.0} s\n",
        o.games,
        o.scale,
        o.seed,
        o.threads,
        started.elapsed().as_secs_f64()
    );
    println!(
        "| level | nodes/move | vs level below (W-D-L) | score | Elo diff | Elo (level 1 = 0) |"
    );
    println!("|---|---|---|---|---|---|");
    let first = Level::new(o.from);
    println!(
        "| {} | {} | — | — | — | 0 |",
        o.from,
        ladder_limits(first, o.scale).nodes.unwrap_or(0)
    );
    let mut total = 0.0;
    for (i, &(_, hi)) in pairs.iter().enumerate() {
        let (w, d, l, plies) = results[i];
        let n = w + d + l;
        let s = (w + d / 2.0) / n;
        let diff = elo(s, n);
        total += diff;
        println!(
            "| {hi} | {} | {w}-{d}-{l} (avg {} plies) | {:.0} % | {:+.0} ± {:.0} | {:.0} |",
            ladder_limits(Level::new(hi), o.scale).nodes.unwrap_or(0),
            plies / n as usize,
            100.0 * s,
            diff,
            elo_error(w, d, l),
            total
        );
    }
}

/// Army builder against random armies: both sides at level 6 (scaled caps); the builder side
/// takes `build_army(color, Level 8)`, the other `Army::random`; colours alternate.
fn armies(o: &Options) {
    let next = AtomicUsize::new(0);
    let totals = Mutex::new((0.0f64, 0.0f64, 0.0f64));
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..o.threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= o.armies {
                    break;
                }
                let mut rng = ChaCha8Rng::seed_from_u64(o.seed.wrapping_add(i as u64 * 7919));
                let built_white = i % 2 == 0;
                let (w, b) = if built_white {
                    (
                        build_army(Color::White, Level::STRONGEST, &mut rng),
                        Army::random(Color::Black, &mut rng),
                    )
                } else {
                    (
                        Army::random(Color::White, &mut rng),
                        build_army(Color::Black, Level::STRONGEST, &mut rng),
                    )
                };
                let Ok(start) = start_position(&w, &b) else { continue };
                let level = Level::new(6);
                let mk = |salt| Player {
                    level,
                    limits: ladder_limits(level, o.scale),
                    searcher: Searcher::new(2),
                    rng: ChaCha8Rng::seed_from_u64(salt),
                };
                let (mut pw, mut pb) = (mk(i as u64), mk(i as u64 + 1));
                let (score, _) = play(start, &mut pw, &mut pb, o.max_plies);
                let built = if built_white { score } else { 1.0 - score };
                let mut t = totals.lock().unwrap();
                if built > 0.75 {
                    t.0 += 1.0;
                } else if built > 0.25 {
                    t.1 += 1.0;
                } else {
                    t.2 += 1.0;
                }
            });
        }
    });
    let (w, d, l) = totals.into_inner().unwrap();
    let n = w + d + l;
    let s = (w + d / 2.0) / n;
    println!(
        "Army builder (level 8 choice) vs random armies, both played at level 6 (nodes / {}): \
         {w}-{d}-{l}, score {:.0} %, Elo {:+.0} ± {:.0}, {:.0} s",
        o.scale,
        100.0 * s,
        elo(s, n),
        elo_error(w, d, l),
        started.elapsed().as_secs_f64()
    );
}
