//! FEN parser: malformed input is an error, never a panic; accepted input round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maharajah_engine::{Position, Variant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for variant in [Variant::Chess, Variant::Maharajah, Variant::Horde] {
        if let Ok(pos) = Position::from_fen(variant, text) {
            let fen = pos.to_string();
            let back = Position::from_fen(pos.rules().variant, &fen).expect("own FEN reads back");
            assert_eq!(back, pos);
            let _ = pos.legal_moves();
            let _ = pos.outcome();
        }
    }
});
