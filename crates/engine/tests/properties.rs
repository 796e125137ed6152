//! Property tests over random legal games in chess, Horde and random-army Maharajah.
#![allow(clippy::unwrap_used)]

use maharajah_engine::{
    from_pgn, start_position, to_pgn, Army, Color, Game, PgnTags, Position, Variant,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A start position: chess, Horde, or a Maharajah game from two random armies.
fn start(kind: u8, rng: &mut ChaCha8Rng) -> Position {
    match kind % 3 {
        0 => Position::new(Variant::Chess),
        1 => Position::new(Variant::Horde),
        _ => loop {
            let w = Army::random(Color::White, rng);
            let b = Army::random(Color::Black, rng);
            if let Ok(p) = start_position(&w, &b) {
                break p;
            }
        },
    }
}

/// Plays up to `plies` random legal moves; calls `check` on every position before each move.
fn random_game(kind: u8, seed: u64, plies: usize, mut check: impl FnMut(&Position)) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(start(kind, &mut rng));
    for _ in 0..plies {
        check(game.position());
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(mv).unwrap();
    }
    check(game.position());
    game
}

/// The king of the side that just moved is not attacked: an independent legality check.
fn mover_king_safe(after: &Position) -> bool {
    let mover = after.turn().other();
    match after.king_of(mover) {
        Some(k) => after.attackers_to(k, after.turn(), after.occupied()).is_empty(),
        None => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn copy_make_keeps_parent_and_incremental_hash(kind in 0u8..3, seed in any::<u64>(), plies in 0usize..120) {
        random_game(kind, seed, plies, |pos| {
            assert_eq!(pos.hash(), pos.compute_hash(), "{pos}");
            let before = pos.clone();
            for mv in pos.legal_moves().iter() {
                let mut child = pos.clone();
                child.play_unchecked(*mv);
                assert_eq!(child.hash(), child.compute_hash(), "{pos} {mv}");
                assert!(mover_king_safe(&child), "{pos}: {mv} leaves the king attacked");
                assert!(pos.is_legal(*mv));
            }
            assert_eq!(*pos, before);
            assert_eq!(pos.legal_moves().len() as u64, pos.count_legal_moves());
        });
    }

    #[test]
    fn undo_restores_position_and_hash(kind in 0u8..3, seed in any::<u64>(), plies in 1usize..80) {
        let mut game = random_game(kind, seed, plies, |_| {});
        let mut positions = Vec::new();
        let mut replay = game.start().clone();
        positions.push(replay.clone());
        for mv in game.moves() {
            replay.play_unchecked(*mv);
            positions.push(replay.clone());
        }
        while game.undo().is_some() {
            let expected = &positions[game.moves().len()];
            prop_assert_eq!(game.position(), expected);
            prop_assert_eq!(game.position().hash(), expected.hash());
        }
    }

    #[test]
    fn fen_round_trips(kind in 0u8..3, seed in any::<u64>(), plies in 0usize..120) {
        random_game(kind, seed, plies, |pos| {
            let fen = pos.to_string();
            let back = Position::from_fen(pos.rules().variant, &fen).unwrap();
            assert_eq!(&back, pos, "{fen}");
            assert_eq!(back.hash(), pos.hash());
            assert_eq!(back.to_string(), fen);
        });
    }

    #[test]
    fn san_round_trips(kind in 0u8..3, seed in any::<u64>(), plies in 0usize..100) {
        random_game(kind, seed, plies, |pos| {
            for mv in pos.legal_moves().iter() {
                let san = pos.san(*mv);
                assert_eq!(pos.parse_san(&san), Ok(*mv), "{pos}: {san}");
            }
        });
    }

    #[test]
    fn pgn_round_trips(kind in 0u8..3, seed in any::<u64>(), plies in 0usize..100) {
        let game = random_game(kind, seed, plies, |_| {});
        let text = to_pgn(&game, &PgnTags::default());
        let back = from_pgn(&text).unwrap();
        prop_assert_eq!(back.game.moves(), game.moves());
        prop_assert_eq!(back.game.position(), game.position());
    }
}
