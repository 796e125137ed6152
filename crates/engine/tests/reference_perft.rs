//! Reads `shared/reference/perft.jsonl` (counts from an independent engine) so the reference data
//! is wired into the suite. The engine issue turns this into an exact perft comparison.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// One line of the reference file; see `shared/reference/README.md`.
#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
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
