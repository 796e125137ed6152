//! The search benchmark: fixed positions of all three variants searched to a fixed depth with a
//! fresh table each, so the total node count is the same on every machine and every run.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::{Limits, SearchResult, Searcher};
use crate::game::Game;
use crate::position::Position;
use crate::profile::Variant;

/// Depth used by `maharajah-uci bench` when none is given.
pub const DEFAULT_DEPTH: u32 = 9;

/// The benchmark positions: variant and FEN.
pub const POSITIONS: [(Variant, &str); 10] = [
    (Variant::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    (Variant::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    (Variant::Chess, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"),
    (Variant::Chess, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    (Variant::Maharajah, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1"),
    (Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/2PPPP2/RNBMKBNR w kq - 0 1"),
    (Variant::Maharajah, "r1bqk2r/ppp2ppp/2n5/3pp3/3P4/2P5/PP1A1PPP/ANBCK1NA b kq - 0 6"),
    (Variant::Maharajah, "4k3/8/8/3m4/8/8/2C5/4K3 w - - 0 1"),
    (Variant::Horde, "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"),
    (
        Variant::Horde,
        "r1bqkb1r/pp1ppppp/2n2n2/1Pp2PP1/P1PPP2P/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 4",
    ),
];

/// Searches every benchmark position to `depth` (fresh tables, no time limit) and returns the
/// results in order. The caller times the call.
///
/// # Panics
/// Never: the built-in FENs are valid (checked by a test).
#[must_use]
pub fn run(depth: u32) -> Vec<SearchResult> {
    run_with_threads(depth, 1)
}

/// Like [`run`] with `threads` search threads (Lazy SMP): the time to reach the depth shows
/// what the helpers buy; the node count is no longer deterministic above one thread.
#[must_use]
pub fn run_with_threads(depth: u32, threads: usize) -> Vec<SearchResult> {
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(16);
    searcher.set_threads(threads);
    POSITIONS
        .iter()
        .filter_map(|(variant, fen)| Position::from_fen(*variant, fen).ok())
        .map(|pos| {
            searcher.clear();
            searcher.think(
                &Game::new(pos),
                &Limits::depth(depth),
                &stop,
                &|| Duration::ZERO,
                &mut |_| {},
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse() {
        for (variant, fen) in POSITIONS {
            let pos = Position::from_fen(variant, fen);
            assert!(pos.is_ok(), "{fen}: {pos:?}");
        }
    }

    #[test]
    fn node_count_is_deterministic() {
        let a: u64 = run(3).iter().map(|r| r.nodes).sum();
        let b: u64 = run(3).iter().map(|r| r.nodes).sum();
        assert_eq!(a, b);
        assert!(a > 1000, "{a}");
    }
}
