//! Our PGN export opened by Fairy-Stockfish (through pyffish): every move of random
//! Maharajah games, and of a classic game exported as chess `From Position`, must be legal there
//! and written as Fairy-Stockfish writes it. Runs `fairy-stockfish/check_pgn.py` with the Python
//! in `MAHARAJAH_PYTHON` (`./x test` installs pyffish in a virtual environment and sets it) or
//! `python3`. Without pyffish it is skipped with a note, unless `MAHARAJAH_PYTHON` is set.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use maharajah_engine::{start_position, to_pgn, Army, Color, Game, PgnTags, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A game of up to `plies` random legal moves from `start`.
fn random_game(start: Position, plies: usize, rng: &mut ChaCha8Rng) -> Game {
    let mut game = Game::new(start);
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(mv).unwrap();
    }
    game
}

/// A game as the checker reads it: the PGN and its moves in UCI notation.
fn entry(game: &Game) -> serde_json::Value {
    let uci: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
    serde_json::json!({ "pgn": to_pgn(game, &PgnTags::default()), "uci": uci })
}

fn games() -> Vec<serde_json::Value> {
    let mut pgns = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for _ in 0..12 {
        let white = Army::random(Color::White, &mut rng);
        let black = Army::random(Color::Black, &mut rng);
        let Ok(start) = start_position(&white, &black) else { continue };
        let game = random_game(start, 80, &mut rng);
        pgns.push(entry(&game));
    }
    // Two classic sides without a pawn on a home rank: exported as chess From Position.
    let classic = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBRN w Qkq - 0 1";
    let game = random_game(Position::from_fen(Variant::Maharajah, classic).unwrap(), 60, &mut rng);
    let pgn = entry(&game);
    assert!(pgn["pgn"].as_str().unwrap().contains("[Variant \"From Position\"]"), "{pgn}");
    pgns.push(pgn);
    let maharajah = |p: &&serde_json::Value| {
        p["pgn"].as_str().is_some_and(|t| t.contains("[Variant \"Maharajah\"]"))
    };
    assert!(pgns.iter().filter(maharajah).count() >= 8);
    pgns
}

#[test]
fn exported_games_are_legal_in_fairy_stockfish() {
    let asked = std::env::var_os("MAHARAJAH_PYTHON");
    let python = asked.clone().unwrap_or_else(|| "python3".into());
    let has_pyffish = Command::new(&python)
        .args(["-c", "import pyffish"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_pyffish {
        assert!(asked.is_none(), "MAHARAJAH_PYTHON={python:?} has no pyffish");
        eprintln!(
            "SKIPPED: the Fairy-Stockfish check needs python3 with pyffish (`pip install \
             pyffish`, or `./x test`, which installs it)"
        );
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fairy-stockfish/check_pgn.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_string(&games()).unwrap();
    // Kept for a rerun by hand: `python3 fairy-stockfish/check_pgn.py < FILE`.
    let kept = std::env::temp_dir().join("maharajah-fairy-stockfish-games.json");
    std::fs::write(&kept, &input).unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(out.status.success(), "Fairy-Stockfish disagrees ({}):\n{report}", kept.display());
    assert!(report.contains("disagreements 0"), "{report}");
}
