//! Dumps random Maharajah positions (random armies, then random legal moves) with their rules
//! and perft-2 divide, for `tools/fs_diff.py` to compare against Fairy-Stockfish (pyffish).
//!
//! `cargo run -p maharajah-engine --example fs_diff_dump -- <count> <seed> > /tmp/diff.txt`
#![allow(clippy::unwrap_used)]

use maharajah_engine::{start_position, Army, Color, Game};
use rand::{Rng, SeedableRng};

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().unwrap_or(0));
    let count = args.next().unwrap_or(100);
    let seed = args.next().unwrap_or(0);
    for i in 0..count {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(i));
        let start = loop {
            let w = Army::random(Color::White, &mut rng);
            let b = Army::random(Color::Black, &mut rng);
            if let Ok(p) = start_position(&w, &b) {
                break p;
            }
        };
        let mut game = Game::new(start);
        for _ in 0..rng.random_range(0..90) {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_moves();
            game.play(moves[rng.random_range(0..moves.len())]).unwrap();
        }
        let pos = game.position();
        let promos =
            |c: Color| pos.rules().side(c).promotions.iter().map(|r| r.char()).collect::<String>();
        let unmoved = |c: Color| {
            (pos.unmoved_pawns() & pos.by_color(c))
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut divide: Vec<String> =
            pos.divide(2).into_iter().map(|(m, c)| format!("{m}:{c}")).collect();
        divide.sort();
        println!(
            "{}|{}|{}|{}|{}|{}",
            pos.plain_fen(),
            promos(Color::White),
            promos(Color::Black),
            unmoved(Color::White),
            unmoved(Color::Black),
            divide.join(",")
        );
    }
}
