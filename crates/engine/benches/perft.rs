//! Perft speed, single thread: the chess start position at depth 6 and every Maharajah position
//! of `shared/reference/perft.jsonl` at depth 5. Leaves at the last ply are counted without being
//! played (bulk counting), as in Fairy-Stockfish's perft.
//!
//! Run: `cargo bench -p maharajah-engine --bench perft` (add `-- quick` for depth 5 / 4).
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::PathBuf;
use std::time::Instant;

use maharajah_engine::{Move, Position, Variant};

#[derive(serde::Deserialize)]
struct Record {
    id: String,
    variant: String,
    fen: String,
    #[serde(default)]
    moves: Vec<String>,
}

fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAHARAJAH_SHARED") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn run(label: &str, pos: &Position, depth: u32) -> (u64, f64) {
    let t = Instant::now();
    let nodes = pos.perft(depth);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{label:<18} depth {depth}  {nodes:>12} nodes  {secs:>7.3} s  {:>7.2} M nodes/s",
        nodes as f64 / secs / 1e6
    );
    (nodes, secs)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    maharajah_engine::attacks::init();
    let chess = Position::new(Variant::Chess);
    run("chess-startpos", &chess, if quick { 5 } else { 6 });

    let text = std::fs::read_to_string(shared_dir().join("reference/perft.jsonl")).unwrap();
    let (mut nodes, mut secs) = (0u64, 0f64);
    let mut rates = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Record = serde_json::from_str(line).unwrap();
        if r.variant != "maharajah" {
            continue;
        }
        let mut pos = Position::from_fen(Variant::Maharajah, &r.fen).unwrap();
        for m in &r.moves {
            pos = pos.play(m.parse::<Move>().unwrap()).unwrap();
        }
        let (n, s) = run(&r.id, &pos, if quick { 4 } else { 5 });
        nodes += n;
        secs += s;
        rates.push(n as f64 / s / 1e6);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "maharajah total: {nodes} nodes in {secs:.2} s = {:.2} M nodes/s (per position: min {:.2}, median {:.2}, max {:.2})",
        nodes as f64 / secs / 1e6,
        rates.first().copied().unwrap_or(0.0),
        rates.get(rates.len() / 2).copied().unwrap_or(0.0),
        rates.last().copied().unwrap_or(0.0)
    );
}
