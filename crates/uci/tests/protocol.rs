//! Drives the `maharajah-uci` binary over stdin/stdout.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::process::{Command, Stdio};

fn run(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_maharajah-uci"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn handshake() {
    let out = run("uci\nisready\nquit\n");
    assert!(out.contains("uciok"), "{out}");
    assert!(out.contains("readyok"), "{out}");
    assert!(out.contains("UCI_Variant"), "{out}");
}

#[test]
fn perft_divide_chess_start() {
    let out = run("position startpos\ngo perft 3\nquit\n");
    assert!(out.contains("Nodes searched: 8902"), "{out}");
    assert!(out.contains("e2e4: 600"), "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).count(), 20);
}

#[test]
fn maharajah_fen_with_moves_and_promotion_letter() {
    let out = run("setoption name UCI_Variant value maharajah\n\
         position fen rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1\n\
         go perft 2\n\
         position fen 4k3/1P6/8/8/8/8/8/M3K3 w - - 0 1 moves b7b8m\n\
         d\nquit\n");
    assert!(out.contains("Nodes searched: 1124"), "{out}");
    assert!(out.contains("Fen: 1M2k3/8/8/8/8/8/8/M3K3 b - - 0 1 vc -"), "{out}");
}

#[test]
fn horde_start() {
    let out = run("setoption name UCI_Variant value horde\nposition startpos\ngo perft 2\nquit\n");
    assert!(out.contains("Nodes searched: 128"), "{out}");
}

#[test]
fn bad_input_reports_and_keeps_running() {
    let out = run("bogus\nposition fen not-a-fen\nposition startpos moves e2e5\ngo perft x\n\
         setoption name UCI_Variant value shogi\nisready\nquit\n");
    assert_eq!(out.matches("info string error:").count(), 5, "{out}");
    assert!(out.contains("readyok"), "{out}");
}
