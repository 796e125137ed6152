//! PGN import: errors, never panics; an imported game exports and re-imports to the same moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maharajah_engine::{from_pgn, to_pgn, PgnTags};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(pgn) = from_pgn(text) {
        let out = to_pgn(&pgn.game, &PgnTags::default());
        let back = from_pgn(&out).expect("own PGN reads back");
        assert_eq!(back.game.moves(), pgn.game.moves());
    }
});
