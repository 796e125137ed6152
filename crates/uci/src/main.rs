//! `maharajah-uci`: the engine as a UCI program, for other GUIs, engine matches, perft and the
//! search benchmark.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `setoption name <option> [value <v>]`,
//! `position startpos|fen <fen> [moves ...]`, `go` with `depth`, `nodes`, `movetime`, `wtime`,
//! `btime`, `winc`, `binc`, `movestogo`, `mate`, `searchmoves <moves...>`, `ponder`, `infinite`
//! (or `go perft <n>`), `ponderhit`, `stop`, `bench [depth [threads]]`, `d`, `quit`.
//!
//! Options: `Hash` (MB), `Clear Hash` (button), `Threads`, `MultiPV`, `Ponder` (the GUI may
//! send `go ponder`), `Contempt` (centipawns a draw costs the engine, `Searcher::set_contempt`;
//! until set, `search::play_contempt` of the position: 50 in a Maharajah game of variant
//! armies, 0 otherwise, which is the default the option shows), `Level` (1–8),
//! `UCI_LimitStrength` with `UCI_Elo` (the level whose approximate rating is nearest,
//! `Level::approx_elo`; it overrides `Level` while on),
//! `UCI_ShowWDL` (`wdl` in `info` lines, from `Score::wdl`), `UCI_Variant`.
//!
//! The search runs on a worker thread, so `stop`, `ponderhit` and `isready` are answered while
//! it thinks. A `position` or `go` that arrives while a bounded search runs waits for its
//! `bestmove`; during `go infinite` or `go ponder` it is refused until `stop` (or `ponderhit`).
//! While pondering, the clock does not run: after `ponderhit` the search gets its normal time
//! budget from that moment, and a search that ends before `ponderhit` holds its `bestmove`
//! back until then. Bad input gets an `info string error: ...` line and the program keeps
//! running. `Threads` above 1 searches with Lazy SMP (helper threads sharing the hash table);
//! `bench` uses one thread unless given a count, so its node count stays deterministic.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use maharajah_engine::search::{
    self, Clock, Info, Level, Limits, SearchResult, Searcher, MAX_CONTEMPT, MAX_THREADS,
};
use maharajah_engine::{Game, Move, Position, Variant};

const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 4096;
const MAX_MULTIPV: usize = 256;
/// `ponder_hit` while the search is still pondering.
const PONDERING: u64 = u64::MAX;

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
    /// Microseconds from the search's start to `ponderhit`; [`PONDERING`] until then (and for
    /// a search that was not started with `go ponder`, 0).
    ponder_hit: Arc<AtomicU64>,
    started: Instant,
    handle: JoinHandle<Searcher>,
}

impl Running {
    /// `true` while the search waits for `stop` (`go infinite`) or `ponderhit` (`go ponder`).
    fn is_open_ended(&self) -> bool {
        !self.done.load(Ordering::Acquire)
            && (self.infinite || self.ponder_hit.load(Ordering::Acquire) == PONDERING)
    }
}

/// Session state: options, the game so far, and the searcher (lent to the worker while it runs).
struct Session {
    variant: Variant,
    game: Game,
    level: Level,
    hash_mb: usize,
    threads: usize,
    multipv: usize,
    /// `None` until `setoption name Contempt`: then `search::play_contempt` of the position.
    contempt: Option<i32>,
    limit_strength: bool,
    elo: u32,
    show_wdl: bool,
    searcher: Option<Searcher>,
    running: Option<Running>,
}

/// Lowest and highest `UCI_Elo`: the ratings of the weakest and the strongest level.
fn elo_range() -> (u32, u32) {
    (Level::WEAKEST.approx_elo(), Level::STRONGEST.approx_elo())
}

impl Session {
    fn new() -> Session {
        Session {
            variant: Variant::Chess,
            game: Game::new(Position::new(Variant::Chess)),
            level: Level::STRONGEST,
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            contempt: None,
            limit_strength: false,
            elo: elo_range().1,
            show_wdl: false,
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
                emit("option name Clear Hash type button");
                emit(&format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"));
                emit(&format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"));
                emit("option name Ponder type check default false");
                emit(&format!(
                    "option name Contempt type spin default 0 min -{MAX_CONTEMPT} max {MAX_CONTEMPT}"
                ));
                emit("option name Level type spin default 8 min 1 max 8");
                emit("option name UCI_LimitStrength type check default false");
                let (lo, hi) = elo_range();
                emit(&format!("option name UCI_Elo type spin default {hi} min {lo} max {hi}"));
                emit("option name UCI_ShowWDL type check default false");
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
            "ponderhit" => {
                if let Some(run) = &self.running {
                    let micros = run.started.elapsed().as_micros().min(u128::from(PONDERING - 1));
                    // Only a pondering search takes the hit; a later one is left alone.
                    let _ = run.ponder_hit.compare_exchange(
                        PONDERING,
                        micros as u64,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    );
                }
                Ok(())
            }
            "debug" => Ok(()),
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

    /// `true` while a `go infinite` or `go ponder` search waits for `stop` or `ponderhit`.
    fn is_searching_infinite(&self) -> bool {
        self.running.as_ref().is_some_and(Running::is_open_ended)
    }

    /// The level searches play at: from `UCI_Elo` while `UCI_LimitStrength` is on, else
    /// `Level`.
    fn effective_level(&self) -> Level {
        if self.limit_strength {
            Level::from_elo(self.elo)
        } else {
            self.level
        }
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
        let check = || -> Result<bool, String> {
            match value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("{name} must be true or false, not {value:?}")),
            }
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
        } else if name.eq_ignore_ascii_case("Clear Hash") {
            self.finish(true);
            if let Some(searcher) = self.searcher.as_mut() {
                searcher.clear();
            }
            Ok(())
        } else if name.eq_ignore_ascii_case("MultiPV") {
            self.multipv = number(1, MAX_MULTIPV)?;
            Ok(())
        } else if name.eq_ignore_ascii_case("Contempt") {
            self.contempt = Some(
                value.parse::<i32>().ok().filter(|v| v.abs() <= MAX_CONTEMPT).ok_or_else(|| {
                    format!(
                        "Contempt must be a number from -{MAX_CONTEMPT} to {MAX_CONTEMPT}, \
                         not {value:?}"
                    )
                })?,
            );
            Ok(())
        } else if name.eq_ignore_ascii_case("Ponder") {
            check().map(|_| ())
        } else if name.eq_ignore_ascii_case("UCI_LimitStrength") {
            self.limit_strength = check()?;
            Ok(())
        } else if name.eq_ignore_ascii_case("UCI_Elo") {
            let (lo, hi) = elo_range();
            self.elo = number(lo as usize, hi as usize)? as u32;
            Ok(())
        } else if name.eq_ignore_ascii_case("UCI_ShowWDL") {
            self.show_wdl = check()?;
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
        let go = parse_go(args)?;
        if self.is_searching_infinite() {
            return Err("already searching with go infinite or go ponder (send stop first)".into());
        }
        let pos = self.game.position();
        let search_moves = go
            .search_moves
            .iter()
            .map(|text| {
                let mv: Move = text.parse().map_err(|e| format!("{e}"))?;
                if pos.is_legal(mv) {
                    Ok(mv)
                } else {
                    Err(format!("searchmoves: {mv} is not legal in {pos}"))
                }
            })
            .collect::<Result<Vec<Move>, String>>()?;
        let limits = go.limits;
        self.finish(false);
        let mut searcher = self.searcher.take().unwrap_or_else(|| self.new_searcher());
        searcher.set_multipv(self.multipv);
        searcher.set_contempt(
            self.contempt.unwrap_or_else(|| search::play_contempt(self.game.position())),
        );
        searcher.set_search_moves(&search_moves);
        let game = self.game.clone();
        let level = self.effective_level();
        let show_wdl = self.show_wdl;
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = Arc::clone(&stop);
        let done = Arc::new(AtomicBool::new(false));
        let worker_done = Arc::clone(&done);
        let infinite = limits.infinite;
        let ponder_hit = Arc::new(AtomicU64::new(if go.ponder { PONDERING } else { 0 }));
        let worker_hit = Arc::clone(&ponder_hit);
        let started = Instant::now();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(32 * 1024 * 1024)
            .spawn(move || {
                // The search's clock stands still while pondering and runs from `ponderhit`.
                let hit = &worker_hit;
                let elapsed = move || match hit.load(Ordering::Acquire) {
                    PONDERING => Duration::ZERO,
                    at => started.elapsed().saturating_sub(Duration::from_micros(at)),
                };
                let mut info = |i: &Info<'_>| emit(&info_line(i, started.elapsed(), show_wdl));
                let result = run_search(
                    &mut searcher,
                    &game,
                    level,
                    &limits,
                    &worker_stop,
                    &elapsed,
                    &mut info,
                );
                // UCI: after `go infinite` the best move waits for `stop`, after `go ponder`
                // for `ponderhit` or `stop`.
                while (infinite || worker_hit.load(Ordering::Acquire) == PONDERING)
                    && !worker_stop.load(Ordering::Relaxed)
                {
                    std::thread::sleep(Duration::from_millis(2));
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
        self.running = Some(Running { stop, done, infinite, ponder_hit, started, handle });
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

/// Runs one search at `level`, reporting to `info`.
fn run_search(
    searcher: &mut Searcher,
    game: &Game,
    level: Level,
    limits: &Limits,
    stop: &AtomicBool,
    elapsed: &dyn Fn() -> Duration,
    info: &mut dyn FnMut(&Info<'_>),
) -> SearchResult {
    if level == Level::STRONGEST {
        return searcher.think(game, limits, stop, elapsed, info);
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
        info,
    )
}

fn nps(nodes: u64, time: Duration) -> u64 {
    (u128::from(nodes) * 1000 / time.as_millis().max(1)) as u64
}

/// One `info` line; `wall` is the real time since `go` (the search's own clock stands still
/// while pondering).
fn info_line(i: &Info<'_>, wall: Duration, show_wdl: bool) -> String {
    let pv: Vec<String> = i.pv.iter().map(ToString::to_string).collect();
    let wdl = if show_wdl {
        let [w, d, l] = i.score.wdl();
        format!(" wdl {w} {d} {l}")
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {} multipv {} score {}{wdl} nodes {} nps {} hashfull {} time {} \
         pv {}",
        i.depth,
        i.seldepth,
        i.multipv,
        i.score,
        i.nodes,
        nps(i.nodes, wall),
        i.hashfull,
        wall.as_millis(),
        pv.join(" ")
    )
}

/// A parsed `go` command.
#[derive(Debug, Default)]
struct Go {
    limits: Limits,
    /// The `searchmoves` as written (checked against the position by the caller).
    search_moves: Vec<String>,
    ponder: bool,
}

/// Parses the arguments of `go` (everything except `perft`) into limits.
#[cfg(test)]
fn parse_limits(args: &[&str]) -> Result<Limits, String> {
    parse_go(args).map(|go| go.limits)
}

/// Parses the arguments of `go` (everything except `perft`).
fn parse_go(args: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut limits = Limits::default();
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut it = args.iter().peekable();
    while let Some(&word) = it.next() {
        if word == "searchmoves" {
            // Every following word that reads as a move (UCI lists them last, but be lenient).
            while let Some(&&text) = it.peek() {
                if text.parse::<Move>().is_err() {
                    break;
                }
                go.search_moves.push(text.to_string());
                it.next();
            }
            continue;
        }
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
            "mate" => limits.mate = Some(value()?.clamp(1, 63) as u32),
            "infinite" => limits.infinite = true,
            "ponder" => go.ponder = true,
            "perft" => return Err("use `go perft <depth>`".into()),
            other => return Err(format!("unknown go parameter {other:?}")),
        }
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    go.limits = limits;
    Ok(go)
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
        let go = parse_go(&["ponder", "mate", "3", "searchmoves", "e2e4", "d2d4", "depth", "2"])
            .expect("valid");
        assert!(go.ponder);
        assert_eq!(go.limits.mate, Some(3));
        assert_eq!(go.limits.depth, Some(2));
        assert_eq!(go.search_moves, ["e2e4", "d2d4"]);
        assert!(parse_go(&["mate"]).is_err());
    }
}
