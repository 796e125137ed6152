//! SAN parser on a few positions: errors, never panics; a parsed move writes and reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maharajah_engine::{Position, Variant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let positions = [
        (Variant::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        (Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1"),
        (Variant::Maharajah, "4k3/1P6/8/8/8/8/8/CC2K1A1 w - - 0 1"),
        (
            Variant::Horde,
            "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
        ),
    ];
    for (variant, fen) in positions {
        let pos = Position::from_fen(variant, fen).expect("fixed FEN is valid");
        if let Ok(mv) = pos.parse_san(text) {
            assert!(pos.is_legal(mv));
            assert_eq!(pos.parse_san(&pos.san(mv)), Ok(mv));
        }
    }
});
