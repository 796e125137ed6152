//! Drives `maharajah-uci` searches: `go` limits, `stop`, `info` lines, options, `bench`.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use maharajah_engine::{Game, Move, Position, Variant};

/// Runs the program on `input` (stdin then closed) and returns its output.
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

/// An interactive session: write lines, read lines with a timeout.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_maharajah-uci"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads until a line starting with `prefix`; panics after `timeout`.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return (line, seen),
                Ok(line) => seen.push(line),
                Err(_) => panic!("no {prefix:?} within {timeout:?}; saw {seen:?}"),
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

fn bestmove(out: &str) -> Move {
    let line = out.lines().find(|l| l.starts_with("bestmove ")).unwrap_or_else(|| panic!("{out}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn go_depth_gives_a_legal_bestmove_in_every_variant() {
    let cases = [
        (Variant::Chess, "position startpos moves e2e4 e7e5 g1f3\ngo depth 5\n"),
        (
            Variant::Maharajah,
            "setoption name UCI_Variant value maharajah\n\
             position fen mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1 moves e2e4\ngo depth 4\n",
        ),
        (Variant::Horde, "setoption name UCI_Variant value horde\nposition startpos\ngo depth 4\n"),
    ];
    for (variant, input) in cases {
        let out = run(input);
        let mv = bestmove(&out);
        let mut game = Game::new(match variant {
            Variant::Maharajah => {
                Position::from_fen(variant, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1")
                    .unwrap()
            }
            v => Position::new(v),
        });
        let setup: &[&str] = match variant {
            Variant::Chess => &["e2e4", "e7e5", "g1f3"],
            Variant::Maharajah => &["e2e4"],
            Variant::Horde => &[],
        };
        for m in setup {
            game.play(m.parse().unwrap()).unwrap();
        }
        assert!(game.position().is_legal(mv), "{variant}: {mv}\n{out}");
        let info = out.lines().rfind(|l| l.starts_with("info depth")).unwrap();
        for field in ["depth", "seldepth", "score", "nodes", "nps", "time", "pv"] {
            assert!(info.split_whitespace().any(|w| w == field), "{field} missing: {info}");
        }
        assert!(info.contains("info depth 4") || info.contains("info depth 5"), "{info}");
    }
}

#[test]
fn mate_is_reported_as_mate() {
    let out = run("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 3\n");
    assert!(out.contains("score mate 1"), "{out}");
    assert_eq!(bestmove(&out).to_string(), "a1a8");
}

#[test]
fn stop_after_go_infinite_returns_a_bestmove_promptly() {
    let mut s = Session::start();
    s.send("uci");
    s.wait_for("uciok", Duration::from_secs(5));
    s.send("position startpos moves e2e4");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    // Still answers while thinking.
    s.send("isready");
    s.wait_for("readyok", Duration::from_secs(2));
    let sent = Instant::now();
    s.send("stop");
    let (line, _) = s.wait_for("bestmove", Duration::from_secs(2));
    assert!(sent.elapsed() < Duration::from_millis(500), "{:?}", sent.elapsed());
    let mv: Move = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let after = Position::new(Variant::Chess).play("e2e4".parse().unwrap()).unwrap();
    assert!(after.is_legal(mv), "{line}");
}

#[test]
fn clock_limits_answer_in_time() {
    let mut s = Session::start();
    // Playing the moves builds the attack tables; time only the search.
    s.send("position startpos moves d2d4");
    s.send("isready");
    s.wait_for("readyok", Duration::from_secs(5));
    let sent = Instant::now();
    s.send("go wtime 2000 btime 2000 winc 0 binc 0");
    s.wait_for("bestmove", Duration::from_secs(3));
    assert!(sent.elapsed() < Duration::from_millis(1500), "{:?}", sent.elapsed());
    let sent = Instant::now();
    s.send("go movetime 200");
    s.wait_for("bestmove", Duration::from_secs(3));
    assert!(sent.elapsed() < Duration::from_millis(800), "{:?}", sent.elapsed());
    s.send("go nodes 5000");
    let (_, infos) = s.wait_for("bestmove", Duration::from_secs(5));
    let last = infos.iter().rfind(|l| l.starts_with("info depth")).unwrap();
    let nodes: u64 =
        last.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().parse().unwrap();
    assert!(nodes <= 5000, "{last}");
}

#[test]
fn options_and_levels() {
    let out = run("uci\nsetoption name Hash value 8\nsetoption name Threads value 1\n\
         setoption name Level value 1\nposition startpos\ngo depth 6\nisready\n");
    for option in
        ["option name Hash", "option name Threads", "option name Level", "option name UCI_Variant"]
    {
        assert!(out.contains(option), "{option}: {out}");
    }
    assert!(!out.contains("error"), "{out}");
    // Level 1 caps the depth at 1 even when the GUI asks for 6.
    assert!(!out.contains("info depth 2"), "{out}");
    assert!(Position::new(Variant::Chess).is_legal(bestmove(&out)));
}

#[test]
fn bad_search_input_reports_errors() {
    let out = run("go depth x\ngo sideways\ngo nodes\nsetoption name Level value 9\n\
         setoption name Hash value 0\nsetoption name Threads value 0\nbench -3\nisready\n");
    assert_eq!(out.matches("info string error:").count(), 7, "{out}");
    assert!(out.contains("readyok"), "{out}");
    assert!(!out.contains("bestmove"), "{out}");
}

#[test]
fn bench_node_count_is_deterministic() {
    let nodes = |out: &str| {
        out.lines().find(|l| l.starts_with("Nodes searched:")).map(str::to_owned).unwrap()
    };
    let a = run("bench 4\n");
    let b = run("bench 4\n");
    assert_eq!(nodes(&a), nodes(&b));
    assert!(a.contains("Nodes/second:"), "{a}");
}

#[test]
fn back_to_back_commands_wait_for_the_running_search() {
    let out = run(
        "position startpos\ngo depth 3\ngo depth 2\nposition startpos moves e2e4\n\
         go nodes 2000\nposition fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1 moves a1a8\ngo depth 2\n",
    );
    let moves: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(moves.len(), 4, "{out}");
    // Checkmated: no move to play.
    assert_eq!(moves[3], "bestmove 0000", "{out}");
    assert!(!out.contains("error"), "{out}");
}

#[test]
fn threads_option_searches_with_helpers() {
    let out =
        run("uci\nsetoption name Threads value 3\nucinewgame\nposition startpos moves e2e4\n\
         go depth 8\nposition startpos\nbench 5 2\nsetoption name Threads value 65\nisready\n");
    assert!(out.contains("option name Threads type spin default 1 min 1 max 64"), "{out}");
    let mut pos = Position::new(Variant::Chess);
    pos.play_unchecked("e2e4".parse().unwrap());
    assert!(pos.is_legal(bestmove(&out)), "{out}");
    assert!(out.contains("info depth 8 "), "{out}");
    assert!(out.contains("Threads: 2"), "{out}");
    // (`position` waited for the search to reach depth 8.) Only the out-of-range count is an
    // error.
    assert_eq!(out.matches("info string error:").count(), 1, "{out}");
    assert!(out.contains("Threads must be a number from 1 to 64"), "{out}");
}
