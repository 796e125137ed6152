//! `maharajah-uci`: the engine as a UCI program, for other GUIs, engine matches, perft and the
//! search benchmark.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `setoption name <Hash|Threads|Level|UCI_Variant>
//! value <v>`, `position startpos|fen <fen> [moves ...]`, `go` with `depth`, `nodes`,
//! `movetime`, `wtime`, `btime`, `winc`, `binc`, `movestogo`, `infinite` (or `go perft <n>`),
//! `stop`, `bench [depth [threads]]`, `d`, `quit`. The search runs on a worker thread, so `stop`
//! and `isready` are answered while it thinks. A `position` or `go` that arrives while a bounded
//! search runs waits for its `bestmove`; during `go infinite` it is refused until `stop`. Bad
//! input gets an `info string error: ...` line and the program keeps running. `Threads` above 1
//! searches with Lazy SMP (helper threads sharing the hash table); `bench` uses one thread
//! unless given a count, so its node count stays deterministic.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use maharajah_engine::search::{
    self, Clock, Info, Level, Limits, SearchResult, Searcher, MAX_THREADS,
};
use maharajah_engine::{Game, Move, Position, Variant};

const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 4096;

/// Writes one line to stdout (locked per line: the worker thread writes too).
fn emit(line: &str) {
    let mut out = io::stdout().lock();
    // A closed stdout means the GUI is gone; nothing useful remains to do with the error.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A search running on its worker thread.
struct Running {
    stop: Arc<AtomicBool>,
    /// Set just before `bestmove` is printed.
    done: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<Searcher>,
}

/// Session state: options, the game so far, and the searcher (lent to the worker while it runs).
struct Session {
    variant: Variant,
    game: Game,
    level: Level,
    hash_mb: usize,
    threads: usize,
    searcher: Option<Searcher>,
    running: Option<Running>,
}

impl Session {
    fn new() -> Session {
        Session {
            variant: Variant::Chess,
            game: Game::new(Position::new(Variant::Chess)),
            level: Level::STRONGEST,
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            searcher: Some(Searcher::new(DEFAULT_HASH_MB)),
            running: None,
        }
    }

    /// Handles one line; returns `false` on `quit`.
    fn handle(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { return true };
        let result: Result<(), String> = match cmd {
            "uci" => {
                emit(&format!("id name Maharajah {}", maharajah_engine::VERSION));
                emit("id author Maharajah developers");
                emit(&format!(
                    "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
                ));
                emit(&format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"));
                emit("option name Level type spin default 8 min 1 max 8");
                emit("option name UCI_Variant type combo default chess var chess var maharajah var horde");
                emit("uciok");
                Ok(())
            }
            "isready" => {
                emit("readyok");
                Ok(())
            }
            "ucinewgame" => {
                self.finish(true);
                self.game = Game::new(Position::new(self.variant));
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
                Ok(())
            }
            "setoption" => self.setoption(&words[1..]),
            "position" => self.set_position(&words[1..]),
            "go" => self.go(&words[1..]),
            "stop" => {
                self.finish(true);
                Ok(())
            }
            "bench" => self.bench(&words[1..]),
            "d" => {
                let pos = self.game.position();
                let mut text = pos.board_string();
                text.push_str(&format!("Fen: {pos}\nKey: {:016x}\n", pos.hash()));
                let checkers: Vec<String> = pos.checkers().map(|s| s.to_string()).collect();
                text.push_str(&format!("Checkers: {}", checkers.join(" ")));
                emit(&text);
                Ok(())
            }
            "quit" => {
                self.finish(true);
                return false;
            }
            "ponderhit" | "debug" => Ok(()),
            other => Err(format!("unknown command {other:?}")),
        };
        if let Err(e) = result {
            emit(&format!("info string error: {e}"));
        }
        true
    }

    /// Waits for a running search; with `stop` it is told to stop first. Gets the searcher back.
    fn finish(&mut self, stop: bool) {
        if let Some(run) = self.running.take() {
            if stop || run.infinite {
                run.stop.store(true, Ordering::Relaxed);
            }
            match run.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    emit("info string error: search thread failed; a new searcher is used");
                    self.searcher = Some(self.new_searcher());
                }
            }
        }
    }

    /// `true` while a `go infinite` search has not printed its bestmove.
    fn is_searching_infinite(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.infinite && !r.done.load(Ordering::Acquire))
    }

    /// A fresh searcher with the session's hash size and thread count.
    fn new_searcher(&self) -> Searcher {
        let mut searcher = Searcher::new(self.hash_mb);
        searcher.set_threads(self.threads);
        searcher
    }

    fn setoption(&mut self, args: &[&str]) -> Result<(), String> {
        // setoption name <name...> value <value...>
        let name_at = args.iter().position(|w| *w == "name").ok_or("setoption without name")?;
        let value_at = args.iter().position(|w| *w == "value");
        let name = args[name_at + 1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|v| args[v + 1..].join(" ")).unwrap_or_default();
        let number = |min: usize, max: usize| -> Result<usize, String> {
            value.parse::<usize>().ok().filter(|v| (min..=max).contains(v)).ok_or_else(|| {
                format!("{name} must be a number from {min} to {max}, not {value:?}")
            })
        };
        if name.eq_ignore_ascii_case("UCI_Variant") {
            let variant: Variant = value.parse().map_err(|e| format!("{e}"))?;
            self.finish(true);
            self.variant = variant;
            self.game = Game::new(Position::new(self.variant));
            Ok(())
        } else if name.eq_ignore_ascii_case("Hash") {
            let mb = number(1, MAX_HASH_MB)?;
            self.finish(true);
            self.hash_mb = mb;
            self.searcher = Some(self.new_searcher());
            Ok(())
        } else if name.eq_ignore_ascii_case("Threads") {
            let n = number(1, MAX_THREADS)?;
            self.finish(true);
            self.threads = n;
            if let Some(searcher) = self.searcher.as_mut() {
                searcher.set_threads(n);
            }
            Ok(())
        } else if name.eq_ignore_ascii_case("Level") {
            let n = number(1, 8)?;
            self.level = Level::new(n as u8);
            Ok(())
        } else {
            Err(format!("unknown option {name:?}"))
        }
    }

    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        let moves_at = args.iter().position(|w| *w == "moves").unwrap_or(args.len());
        let start = match args.first() {
            Some(&"startpos") => Position::new(self.variant),
            Some(&"fen") => {
                let fen = args[1..moves_at].join(" ");
                Position::from_fen(self.variant, &fen).map_err(|e| e.to_string())?
            }
            _ => return Err("position needs startpos or fen".into()),
        };
        let mut game = Game::new(start);
        for text in args.iter().skip(moves_at + 1) {
            let mv: Move = text.parse().map_err(|e| format!("{e}"))?;
            game.play(mv).map_err(|e| format!("illegal move {} in {}", e.mv, e.position))?;
        }
        if self.is_searching_infinite() {
            return Err("cannot change the position during go infinite (send stop first)".into());
        }
        // A bounded search still running is waited for: its bestmove comes first.
        self.finish(false);
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> Result<(), String> {
        if let ["perft", n] = args {
            return self.perft(n);
        }
        let limits = parse_limits(args)?;
        if self.is_searching_infinite() {
            return Err("already searching with go infinite (send stop first)".into());
        }
        self.finish(false);
        let mut searcher = self.searcher.take().unwrap_or_else(|| self.new_searcher());
        let game = self.game.clone();
        let level = self.level;
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = Arc::clone(&stop);
        let done = Arc::new(AtomicBool::new(false));
        let worker_done = Arc::clone(&done);
        let infinite = limits.infinite;
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(32 * 1024 * 1024)
            .spawn(move || {
                let start = Instant::now();
                let elapsed = move || start.elapsed();
                let result =
                    run_search(&mut searcher, &game, level, &limits, &worker_stop, &elapsed);
                if infinite {
                    // UCI: after `go infinite` the best move waits for `stop`.
                    while !worker_stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
                let best = result.best_move.map_or_else(|| "0000".to_string(), |m| m.to_string());
                worker_done.store(true, Ordering::Release);
                match result.pv.get(1) {
                    Some(ponder) => emit(&format!("bestmove {best} ponder {ponder}")),
                    None => emit(&format!("bestmove {best}")),
                }
                searcher
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        self.running = Some(Running { stop, done, infinite, handle });
        Ok(())
    }

    fn perft(&mut self, n: &str) -> Result<(), String> {
        let depth: u32 = n.parse().map_err(|_| format!("bad depth {n:?}"))?;
        if depth == 0 {
            return Err("perft depth must be at least 1".into());
        }
        let mut total = 0;
        let mut text = String::new();
        for (mv, count) in self.game.position().divide(depth) {
            text.push_str(&format!("{mv}: {count}\n"));
            total += count;
        }
        text.push_str(&format!("Nodes searched: {total}"));
        emit(&text);
        Ok(())
    }

    fn bench(&mut self, args: &[&str]) -> Result<(), String> {
        let depth = match args.first() {
            None => search::bench::DEFAULT_DEPTH,
            Some(d) => {
                d.parse().ok().filter(|d| (1..=30).contains(d)).ok_or(format!("bad depth {d:?}"))?
            }
        };
        let threads = match args.get(1) {
            None => 1,
            Some(t) => t
                .parse()
                .ok()
                .filter(|t| (1..=MAX_THREADS).contains(t))
                .ok_or(format!("bad thread count {t:?} (1 to {MAX_THREADS})"))?,
        };
        self.finish(true);
        let start = Instant::now();
        let results = search::bench::run_with_threads(depth, threads);
        let time = start.elapsed();
        let nodes: u64 = results.iter().map(|r| r.nodes).sum();
        for ((variant, fen), r) in search::bench::POSITIONS.iter().zip(&results) {
            let best = r.best_move.map_or_else(|| "0000".to_string(), |m| m.to_string());
            emit(&format!(
                "info string {variant} {fen}: bestmove {best} {} nodes {}",
                r.score, r.nodes
            ));
        }
        emit(&format!("Depth: {depth}"));
        emit(&format!("Threads: {threads}"));
        emit(&format!("Nodes searched: {nodes}"));
        emit(&format!("Time: {} ms", time.as_millis()));
        emit(&format!("Nodes/second: {}", nps(nodes, time)));
        Ok(())
    }
}

/// Runs one search at the session's level and prints `info` lines.
fn run_search(
    searcher: &mut Searcher,
    game: &Game,
    level: Level,
    limits: &Limits,
    stop: &AtomicBool,
    elapsed: &dyn Fn() -> Duration,
) -> SearchResult {
    let mut info = |i: &Info<'_>| emit(&info_line(i));
    if level == Level::STRONGEST {
        return searcher.think(game, limits, stop, elapsed, &mut info);
    }
    // A weaker level keeps its own caps under whatever the GUI asked for.
    let caps = level.search_limits();
    let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let limits = Limits {
        depth: min(limits.depth.map(u64::from), caps.depth.map(u64::from)).map(|d| d as u32),
        nodes: min(limits.nodes, caps.nodes),
        ..*limits
    };
    search::pick_move_for_level(
        searcher,
        game,
        level,
        &limits,
        &mut rand::rng(),
        stop,
        elapsed,
        &mut info,
    )
}

fn nps(nodes: u64, time: Duration) -> u64 {
    (u128::from(nodes) * 1000 / time.as_millis().max(1)) as u64
}

fn info_line(i: &Info<'_>) -> String {
    let pv: Vec<String> = i.pv.iter().map(ToString::to_string).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {} pv {}",
        i.depth,
        i.seldepth,
        i.score,
        i.nodes,
        nps(i.nodes, i.time),
        i.time.as_millis(),
        i.hashfull,
        pv.join(" ")
    )
}

/// Parses the arguments of `go` (everything except `perft`).
fn parse_limits(args: &[&str]) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut it = args.iter();
    while let Some(&word) = it.next() {
        let mut value = || -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("go {word} needs a value"))?;
            // Some GUIs send negative times when a clock has run out: read them as zero.
            if let Some(neg) = v.strip_prefix('-') {
                return neg
                    .parse::<u64>()
                    .map(|_| 0)
                    .map_err(|_| format!("bad {word} value {v:?}"));
            }
            v.parse::<u64>().map_err(|_| format!("bad {word} value {v:?}"))
        };
        let ms = Duration::from_millis;
        match word {
            "depth" => limits.depth = Some(value()?.clamp(1, 127) as u32),
            "nodes" => limits.nodes = Some(value()?.max(1)),
            "movetime" => limits.movetime = Some(ms(value()?)),
            "wtime" => (clock.wtime, has_clock) = (ms(value()?), true),
            "btime" => (clock.btime, has_clock) = (ms(value()?), true),
            "winc" => clock.winc = ms(value()?),
            "binc" => clock.binc = ms(value()?),
            "movestogo" => clock.movestogo = Some(value()?.clamp(1, 1000) as u32),
            "infinite" => limits.infinite = true,
            "ponder" => {}
            "perft" => return Err("use `go perft <depth>`".into()),
            other => return Err(format!("unknown go parameter {other:?}")),
        }
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    Ok(limits)
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut session = Session::new();
    for line in stdin.lock().lines() {
        if !session.handle(&line?) {
            return Ok(());
        }
    }
    // End of input: let a bounded search finish and print its move; stop an infinite one.
    session.finish(false);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_arguments() {
        let l = parse_limits(&["wtime", "1000", "btime", "-5", "winc", "10", "movestogo", "3"])
            .expect("valid go");
        let clock = l.clock.expect("clock given");
        assert_eq!(clock.wtime, Duration::from_secs(1));
        assert_eq!(clock.btime, Duration::ZERO);
        assert_eq!(clock.movestogo, Some(3));
        assert_eq!(parse_limits(&["depth", "5"]).expect("valid").depth, Some(5));
        assert!(parse_limits(&["depth"]).is_err());
        assert!(parse_limits(&["nodes", "x"]).is_err());
        assert!(parse_limits(&["sideways"]).is_err());
        assert!(parse_limits(&["infinite"]).expect("valid").infinite);
    }
}
