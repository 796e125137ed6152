//! Exact perft comparison against `shared/reference/perft.jsonl` (counts from an independent
//! engine): every record, every depth, after applying the record's optional `moves`.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use maharajah_engine::{Move, Position, Variant};

/// One line of the reference file; see `shared/reference/README.md`.
#[derive(Debug, serde::Deserialize)]
struct Record {
    id: String,
    variant: String,
    fen: String,
    #[serde(default)]
    moves: Vec<String>,
    perft: BTreeMap<String, u64>,
}

/// `../shared` beside the project, or `MAHARAJAH_SHARED` when set.
fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAHARAJAH_SHARED") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn load() -> Vec<Record> {
    let path = shared_dir().join("reference/perft.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: bad record: {e}", path.display(), i + 1))
        })
        .collect()
}

#[test]
fn reference_file_parses() {
    let records = load();
    assert!(records.len() >= 30, "expected the full reference set, got {}", records.len());
    for r in &records {
        assert!(["chess", "maharajah", "horde"].contains(&r.variant.as_str()), "{}", r.id);
        assert_eq!(r.fen.split_whitespace().count(), 6, "{}: FEN has six fields", r.id);
        assert!(!r.perft.is_empty(), "{}: no counts", r.id);
        for depth in r.perft.keys() {
            assert!(depth.parse::<u32>().is_ok(), "{}: depth {depth:?}", r.id);
        }
    }
}

/// The position of a record: its FEN with the listed moves played (each checked legal).
fn position_of(r: &Record) -> Position {
    let variant: Variant = r.variant.parse().unwrap();
    let mut pos = Position::from_fen(variant, &r.fen)
        .unwrap_or_else(|e| panic!("{}: FEN refused: {e}", r.id));
    for m in &r.moves {
        let mv: Move = m.parse().unwrap_or_else(|e| panic!("{}: {e}", r.id));
        pos = pos.play(mv).unwrap_or_else(|e| panic!("{}: {e}", r.id));
    }
    pos
}

#[test]
fn every_reference_line_matches_at_every_depth() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in load() {
        let pos = position_of(&r);
        for (depth, &expected) in &r.perft {
            let depth: u32 = depth.parse().unwrap();
            let got = pos.perft(depth);
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "{} depth {depth}: expected {expected}, got {got} ({pos})",
                    r.id
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} counts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
