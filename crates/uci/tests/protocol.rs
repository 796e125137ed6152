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

#[test]
fn d_prints_board_and_fen_and_ucinewgame_resets() {
    let out = run("position startpos moves e2e4\nd\nucinewgame\nd\nquit\n");
    assert!(
        out.contains("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        "{out}"
    );
    assert!(out.contains("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), "{out}");
    assert!(out.contains("| r | n | b | q | k | b | n | r | 8"), "{out}");
}

#[test]
fn perft_after_moves_matches_the_reference_en_passant_record() {
    // mh-58 of shared/reference/perft.jsonl: a variant game after seven plies, en passant open.
    let out = run("setoption name UCI_Variant value maharajah\n\
         position fen nbcnkrrb/pb1ppppp/8/8/8/8/PPPPPP1P/CBQNKBNN w - - 0 1 \
         moves h2h3 e7e5 h3h4 f7f6 d2d3 e5e4 f2f4\n\
         go perft 2\nquit\n");
    assert!(out.contains("e4f3: "), "the en-passant capture is listed: {out}");
    assert!(out.contains("Nodes searched: 877"), "{out}");
}
