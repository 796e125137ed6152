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

/// The words after `key` in an `info` line, parsed.
fn field<T: std::str::FromStr>(line: &str, key: &str) -> Option<T> {
    line.split_whitespace().skip_while(|w| *w != key).nth(1).and_then(|w| w.parse().ok())
}

#[test]
fn uci_elo_changes_the_level() {
    let out = run("uci\nisready\n");
    let elo_option = out.lines().find(|l| l.starts_with("option name UCI_Elo ")).unwrap();
    let lo: u32 = field(elo_option, "min").unwrap();
    let hi: u32 = field(elo_option, "max").unwrap();
    assert!(lo < hi, "{elo_option}");
    assert!(out.contains("option name UCI_LimitStrength type check default false"), "{out}");
    // The weakest rating is level 1, whose depth cap (1) holds even when the GUI asks for 5.
    let weak = run(&format!(
        "setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value {lo}\n\
         position startpos\ngo depth 5\nisready\n"
    ));
    assert!(weak.contains("info depth 1 "), "{weak}");
    assert!(!weak.contains("info depth 2 "), "{weak}");
    // The same rating with UCI_LimitStrength off, or the strongest rating, is the full engine.
    for input in [
        format!("setoption name UCI_Elo value {lo}\nposition startpos\ngo depth 5\nisready\n"),
        format!(
            "setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value {hi}\n\
             position startpos\ngo depth 5\nisready\n"
        ),
    ] {
        let full = run(&input);
        assert!(full.contains("info depth 5 "), "{full}");
    }
    let bad = run(&format!(
        "setoption name UCI_Elo value {}\nsetoption name UCI_LimitStrength value maybe\nisready\n",
        hi + 1
    ));
    assert_eq!(bad.matches("info string error:").count(), 2, "{bad}");
}

#[test]
fn contempt_prices_a_draw() {
    let out = run("uci\nisready\n");
    assert!(out.contains("option name Contempt type spin default 0 min -200 max 200"), "{out}");
    // Every move White has reaches the fifty-move rule: the score is the draw's price. Until
    // set, the contempt is the computer's own: 0 in chess, 50 in a Maharajah game of variant
    // armies (Black's chancellor), unless set there too.
    let draw = "position fen 4k3/8/8/8/8/8/r7/4K3 w - - 99 80\ngo depth 4\n";
    let maharajah = "setoption name UCI_Variant value maharajah\n\
                     position fen 4k3/8/8/8/8/8/c7/4K3 w - - 99 80\ngo depth 4\n";
    let set =
        |contempt: i32, then: &str| format!("setoption name Contempt value {contempt}\n{then}");
    for (input, score) in [
        (set(0, draw), "score cp 0 "),
        (set(30, draw), "score cp -30 "),
        (set(-30, draw), "score cp 30 "),
        (draw.to_string(), "score cp 0 "),
        (maharajah.to_string(), "score cp -50 "),
        (set(0, maharajah), "score cp 0 "),
    ] {
        let out = run(&input);
        let last = out.lines().rfind(|l| l.starts_with("info depth 4 ")).unwrap_or("");
        assert!(last.contains(score), "{input}: {out}");
    }
    let bad = run("setoption name Contempt value 201\nsetoption name Contempt value x\nisready\n");
    assert_eq!(bad.matches("info string error: Contempt must be").count(), 2, "{bad}");
}

#[test]
fn multipv_reports_distinct_lines() {
    let out = run("setoption name MultiPV value 3\nposition startpos moves e2e4\ngo depth 5\n");
    let last: Vec<&str> = out.lines().filter(|l| l.starts_with("info depth 5 ")).collect();
    assert_eq!(last.len(), 3, "{out}");
    let mut firsts = Vec::new();
    for (k, line) in last.iter().enumerate() {
        assert_eq!(field::<usize>(line, "multipv"), Some(k + 1), "{line}");
        firsts.push(line.split_whitespace().skip_while(|w| *w != "pv").nth(1).unwrap());
    }
    firsts.sort_unstable();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{out}");
    // The move played is the first line's.
    let best = bestmove(&out).to_string();
    assert!(last[0].contains(&format!(" pv {best}")), "{out}");
    // Back to one line.
    let one = run("setoption name MultiPV value 1\nposition startpos\ngo depth 4\n");
    assert!(!one.contains("multipv 2"), "{one}");
}

#[test]
fn searchmoves_restrict_the_root() {
    // Rook takes on a8 mates at once, but only a king move is allowed.
    let out = run("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\n\
         go depth 4 searchmoves g1f1 h2h3\n");
    let best = bestmove(&out).to_string();
    assert!(best == "g1f1" || best == "h2h3", "{out}");
    assert!(!out.contains("score mate 1"), "{out}");
    let bad = run("position startpos\ngo depth 2 searchmoves e2e5\nisready\n");
    assert!(bad.contains("info string error:"), "{bad}");
    assert!(!bad.contains("bestmove"), "{bad}");
}

#[test]
fn go_mate_stops_at_the_mate() {
    let start = Instant::now();
    let out = run("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo mate 1\n");
    assert!(out.contains("score mate 1"), "{out}");
    assert_eq!(bestmove(&out).to_string(), "a1a8");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
}

#[test]
fn info_lines_show_hashfull_nps_seldepth_and_wdl() {
    let out = run("setoption name UCI_ShowWDL value true\nposition startpos\ngo depth 4\n");
    let info = out.lines().rfind(|l| l.starts_with("info depth 4 ")).unwrap();
    for key in ["seldepth", "nps", "hashfull", "wdl", "multipv"] {
        assert!(info.split_whitespace().any(|w| w == key), "{key} missing: {info}");
    }
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "wdl").unwrap();
    let wdl: Vec<u32> = words[at + 1..at + 4].iter().map(|w| w.parse().unwrap()).collect();
    assert_eq!(wdl.iter().sum::<u32>(), 1000, "{info}");
    assert!(wdl[1] > wdl[0] && wdl[1] > wdl[2], "a level start is most likely a draw: {info}");
    let mate = run("setoption name UCI_ShowWDL value true\n\
         position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 3\n");
    assert!(mate.contains("score mate 1 wdl 1000 0 0"), "{mate}");
    let plain = run("position startpos\ngo depth 3\n");
    assert!(!plain.contains("wdl"), "{plain}");
}

#[test]
fn ponder_waits_for_ponderhit_then_uses_the_clock() {
    let mut s = Session::start();
    s.send("uci");
    let (_, options) = s.wait_for("uciok", Duration::from_secs(5));
    assert!(options.iter().any(|l| l == "option name Ponder type check default false"));
    assert!(options.iter().any(|l| l == "option name Clear Hash type button"));
    s.send("setoption name Ponder value true");
    s.send("setoption name Clear Hash");
    s.send("position startpos moves e2e4 e7e5");
    s.send("go ponder wtime 1000 btime 1000");
    // Pondering: the clock stands still, so no bestmove comes however long it takes.
    std::thread::sleep(Duration::from_millis(1200));
    s.send("isready");
    let (_, seen) = s.wait_for("readyok", Duration::from_secs(2));
    assert!(!seen.iter().any(|l| l.starts_with("bestmove")), "{seen:?}");
    // A position during ponder is refused (the GUI must send ponderhit or stop first).
    s.send("position startpos");
    s.wait_for("info string error:", Duration::from_secs(2));
    let hit = Instant::now();
    s.send("ponderhit");
    let (line, _) = s.wait_for("bestmove", Duration::from_secs(3));
    // After ponderhit the search has its budget from the 1 s clock: a fraction of it.
    assert!(hit.elapsed() < Duration::from_millis(900), "{:?}", hit.elapsed());
    let mut pos = Position::new(Variant::Chess);
    pos.play_unchecked("e2e4".parse().unwrap());
    pos.play_unchecked("e7e5".parse().unwrap());
    assert!(pos.is_legal(line.split_whitespace().nth(1).unwrap().parse().unwrap()), "{line}");
    // Ponder then stop (the opponent played another move): the bestmove comes at once.
    s.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    s.send("stop");
    s.wait_for("bestmove", Duration::from_secs(2));
    assert!(sent.elapsed() < Duration::from_millis(500), "{:?}", sent.elapsed());
    s.send("isready");
    let (_, seen) = s.wait_for("readyok", Duration::from_secs(2));
    assert!(!seen.iter().any(|l| l.contains("error")), "{seen:?}");
}
