//! Dumps random Maharajah positions (random armies, then random legal moves) with their rules
//! and perft-2 divide, for `tools/fs_diff.py` to compare against Fairy-Stockfish (pyffish).
//!
//! `cargo run -p maharajah-engine --example fs_diff_dump -- <count> <seed> [chess|horde|maharajah]`
//! (default maharajah; chess and Horde games start from their start positions).
#![allow(clippy::unwrap_used)]

use maharajah_engine::{start_position, Army, Color, Game, Position, Variant};
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = args.first().and_then(|a| a.parse().ok()).unwrap_or(100u64);
    let seed = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0u64);
    let variant: Variant = args.get(2).map_or(Variant::Maharajah, |a| a.parse().unwrap());
    for i in 0..count {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(i));
        let start = if variant != Variant::Maharajah {
            Position::new(variant)
        } else {
            loop {
                let w = Army::random(Color::White, &mut rng);
                let b = Army::random(Color::Black, &mut rng);
                if let Ok(p) = start_position(&w, &b) {
                    break p;
                }
            }
        };
        let mut game = Game::new(start);
        for _ in 0..rng.random_range(0..120) {
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
