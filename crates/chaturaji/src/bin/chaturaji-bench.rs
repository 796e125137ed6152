//! Measures the strong CPU player: win rate against greedy capturers and against random movers
//! over seeded games (the strong player takes each seat in turn), and its decision time per turn.
//!
//! Usage: `chaturaji-bench [--games N] [--seed S] [--level LEVEL] [--vs LEVEL,LEVEL..]`
//! (levels: strong, medium, greedy, random; defaults: 100 games, seed 1, strong vs greedy,random).
//! Run it in release: `cargo run --release -p maharajah-chaturaji --bin chaturaji-bench`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::{BySeat, Game, Phase, Seat, Settings};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

struct Options {
    games: u64,
    seed: u64,
    level: Level,
    opponents: Vec<Level>,
}

fn parse_level(text: &str) -> Result<Level, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("unknown level {text}"))
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        games: 100,
        seed: 1,
        level: Level::Strong,
        opponents: vec![Level::Greedy, Level::Random],
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--games" => options.games = value()?.parse().map_err(|e| format!("--games: {e}"))?,
            "--seed" => options.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--level" => options.level = parse_level(&value()?)?,
            "--vs" => options.opponents = value()?.split(',').map(parse_level).collect::<Result<_, _>>()?,
            "-h" | "--help" => {
                return Err("usage: chaturaji-bench [--games N] [--seed S] [--level LEVEL] [--vs LEVEL,LEVEL..]   (levels: strong, medium, greedy, random)".into())
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

#[derive(Default)]
struct Tally {
    games: u64,
    outright: u64,
    shared_first: u64,
    place_sum: u64,
    points_sum: u64,
    turn_times: Vec<Duration>,
    moves: u64,
}

fn play(options: &Options, opponent: Level, tally: &mut Tally) {
    for i in 0..options.games {
        let hero = Seat::ALL[(i % 4) as usize];
        let levels = BySeat::from_fn(|s| if s == hero { options.level } else { opponent });
        let seed = options.seed.wrapping_mul(1_000_003).wrapping_add(i);
        let mut dice = ChaCha8Rng::seed_from_u64(seed);
        let mut cpu_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let Ok(mut game) = Game::new(Settings::default()) else { return };
        let mut turn_time = Duration::ZERO;
        while !game.is_over() {
            match game.phase() {
                Phase::Roll { seat } => {
                    if seat == hero {
                        turn_time = Duration::ZERO;
                    }
                    // A roll that leaves no usable die asks the player nothing: not a decision.
                    let _ = game.roll(&mut dice);
                }
                Phase::Move { seat } => {
                    let start = Instant::now();
                    let action = cpu::choose_action(&game, levels[seat], &mut cpu_rng);
                    if seat == hero {
                        turn_time += start.elapsed();
                        tally.moves += 1;
                    }
                    let applied = action.map(|a| game.apply(a));
                    if !matches!(applied, Some(Ok(_))) {
                        let _ = game.time_out();
                    }
                    if seat == hero && (game.to_move() != hero || game.is_over()) {
                        tally.turn_times.push(turn_time);
                    }
                }
                Phase::Over => break,
            }
        }
        let Some(outcome) = game.outcome() else { continue };
        let line = outcome.standings.iter().find(|s| s.seat == hero);
        let Some(line) = line else { continue };
        tally.games += 1;
        tally.place_sum += u64::from(line.place);
        tally.points_sum += u64::from(line.points);
        if line.place == 1 {
            let firsts = outcome.standings.iter().filter(|s| s.place == 1).count();
            if firsts == 1 {
                tally.outright += 1;
            } else {
                tally.shared_first += 1;
            }
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut all_times = Vec::new();
    println!(
        "| {:?} vs 3× | games | 1st (outright) | 1st (shared) | mean place | mean points |",
        options.level
    );
    println!("|---|---|---|---|---|---|");
    for &opponent in &options.opponents {
        let mut tally = Tally::default();
        play(&options, opponent, &mut tally);
        let g = tally.games.max(1) as f64;
        println!(
            "| {:?} | {} | {:.1}% | {:.1}% | {:.2} | {:.1} |",
            opponent,
            tally.games,
            100.0 * tally.outright as f64 / g,
            100.0 * tally.shared_first as f64 / g,
            tally.place_sum as f64 / g,
            tally.points_sum as f64 / g,
        );
        all_times.extend(tally.turn_times);
    }
    all_times.sort();
    if let Some(&max) = all_times.last() {
        let mean = all_times.iter().map(|&d| ms(d)).sum::<f64>() / all_times.len() as f64;
        let p95 = all_times[(all_times.len() * 95 / 100).min(all_times.len() - 1)];
        println!();
        println!(
            "Decision time per turn ({} turns): mean {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            all_times.len(),
            mean,
            ms(p95),
            ms(max)
        );
    }
    ExitCode::SUCCESS
}
