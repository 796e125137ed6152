//! What the engine's data tools (`tune gen`, `nnue gen`) share: playing many games on several
//! threads into one file, and when a self-play game is over.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use maharajah_engine::{Color, Game, Outcome};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Plays games `0..games` on `threads` threads and writes their lines to `out`, one game's lines
/// together. Each thread makes its own state with `init` (an engine process, a searcher); `play`
/// gets it, the game's number and a generator seeded from `seed` and that number (so a game is
/// the same whichever thread plays it), and returns the game's lines. Progress is printed every
/// `every` games.
pub fn play_games<S>(
    games: usize,
    threads: usize,
    seed: u64,
    every: usize,
    out: std::fs::File,
    init: impl Fn() -> S + Sync,
    play: impl Fn(&mut S, usize, &mut ChaCha8Rng) -> Vec<String> + Sync,
) {
    let file = Mutex::new(out);
    let next = AtomicUsize::new(0);
    let count = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut state = init();
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games {
                        break;
                    }
                    let mut rng =
                        ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9) ^ g as u64);
                    let lines = play(&mut state, g, &mut rng);
                    let mut f = file.lock().unwrap();
                    for line in &lines {
                        writeln!(f, "{line}").expect("write");
                    }
                    let n = count.fetch_add(lines.len(), Ordering::Relaxed) + lines.len();
                    if g % every == every - 1 {
                        eprintln!(
                            "{} games, {n} positions, {:.0} s",
                            g + 1,
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    eprintln!("done: {} positions from {games} games", count.load(Ordering::Relaxed));
}

/// White's score if the game is over for self-play: ended by the rules, a claimable draw, or
/// `max_plies` moves played (a draw).
pub fn finished(game: &Game, max_plies: usize) -> Option<f64> {
    match game.outcome() {
        Some(Outcome::Decisive { winner, .. }) => {
            Some(if winner == Color::White { 1.0 } else { 0.0 })
        }
        Some(Outcome::Draw { .. }) => Some(0.5),
        None if game.claimable_draw().is_some() || game.moves().len() >= max_plies => Some(0.5),
        None => None,
    }
}
