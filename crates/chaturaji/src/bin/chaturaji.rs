//! `chaturaji`: replays a Chaturaji game record and prints the scores, the ranking and the first
//! rule violation, if any.
//!
//! Usage: `chaturaji RECORD.json` (or `-` for standard input), for example
//! `cargo run -p maharajah-chaturaji --bin chaturaji -- crates/chaturaji/records/sample.json`.
//! The record format is documented in `maharajah_chaturaji::record`. A record with verifiable
//! dice (`dice_proof`) has every link and every roll re-verified; a tampered roll or link is the
//! first violation.
//! Exit status: 0 when every action is legal, 1 at the first violation, 2 when the record cannot be
//! read (missing file, malformed JSON, wrong format or version, invalid settings).

use std::io::Read;
use std::process::ExitCode;

use maharajah_chaturaji::{Game, Phase, Record};

const USAGE: &str =
    "usage: chaturaji RECORD.json   (replays a Chaturaji game record; `-` reads standard input)";

fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

fn print_summary(game: &Game, applied: usize, total: usize) {
    println!("actions applied: {applied} of {total}");
    match (game.phase(), game.outcome()) {
        (_, Some(outcome)) => {
            println!("status: game over ({}) after round {}", outcome.reason, game.round())
        }
        (Phase::Roll { seat }, None) => {
            println!("status: in progress, round {}, {seat} to roll", game.round())
        }
        (Phase::Move { seat }, None) => {
            println!("status: in progress, round {}, {seat} to move", game.round())
        }
        (Phase::Over, None) => println!("status: over"),
    }
    let scores = game.scores();
    let line: Vec<String> =
        scores.iter().map(|(seat, points)| format!("{seat} {points}")).collect();
    println!("scores: {}", line.join(", "));
    println!("ranking:");
    for s in game.standings() {
        println!(
            "  {}. {} {} — {} points, {}, material {}{}",
            s.place,
            s.seat.symbol(),
            s.seat,
            s.points,
            if s.kept_king { "king kept" } else { "king lost" },
            s.material,
            if s.resigned { ", resigned" } else { "" },
        );
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        [path] => path,
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let text = match read_input(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let record = match Record::from_json(&text) {
        Ok(record) => record,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let replay = match record.replay() {
        Ok(replay) => replay,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    print_summary(&replay.game, replay.events.len(), record.actions.len());
    if let Some(proof) = &record.dice_proof {
        let rolls = record.actions[..replay.events.len()]
            .iter()
            .filter(|s| matches!(s, maharajah_chaturaji::Step::Roll { .. }))
            .count();
        println!(
            "dice: {rolls} rolls verified against the commitments of {} parties ({})",
            proof.parties.len(),
            proof.parties.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    match replay.violation {
        None => {
            println!("violation: none");
            ExitCode::SUCCESS
        }
        Some(v) => {
            println!("violation: {v}");
            ExitCode::from(1)
        }
    }
}
