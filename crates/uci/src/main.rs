//! `maharajah-uci`: the engine as a UCI program, for other GUIs, engine matches and perft.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `setoption name UCI_Variant value
//! chess|maharajah|horde`, `position startpos|fen <fen> [moves ...]`, `go perft <n>`, `d`, `quit`.
//! Bad input gets an `info string error: ...` line and the program keeps running.

use std::io::{self, BufRead, Write};

use maharajah_engine::{Move, Position, Variant};

/// Session state: the chosen variant and the current position.
struct Session {
    variant: Variant,
    position: Position,
}

impl Session {
    fn new() -> Session {
        Session { variant: Variant::Chess, position: Position::new(Variant::Chess) }
    }

    /// Handles one line; returns `false` on `quit`.
    fn handle(&mut self, line: &str, out: &mut impl Write) -> io::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { return Ok(true) };
        let result: Result<(), String> = match cmd {
            "uci" => {
                writeln!(out, "id name Maharajah {}", maharajah_engine::VERSION)?;
                writeln!(out, "id author Maharajah developers")?;
                writeln!(out, "option name UCI_Variant type combo default chess var chess var maharajah var horde")?;
                writeln!(out, "uciok")?;
                Ok(())
            }
            "isready" => {
                writeln!(out, "readyok")?;
                Ok(())
            }
            "ucinewgame" => {
                self.position = Position::new(self.variant);
                Ok(())
            }
            "setoption" => self.setoption(&words[1..]),
            "position" => self.set_position(&words[1..]),
            "go" => self.go(&words[1..], out),
            "d" => {
                write!(out, "{}", self.position.board_string())?;
                writeln!(out, "Fen: {}", self.position)?;
                writeln!(out, "Key: {:016x}", self.position.hash())?;
                let checkers: Vec<String> =
                    self.position.checkers().map(|s| s.to_string()).collect();
                writeln!(out, "Checkers: {}", checkers.join(" "))?;
                Ok(())
            }
            "quit" => return Ok(false),
            "stop" | "ponderhit" | "debug" => Ok(()),
            other => Err(format!("unknown command {other:?}")),
        };
        if let Err(e) = result {
            writeln!(out, "info string error: {e}")?;
        }
        out.flush()?;
        Ok(true)
    }

    fn setoption(&mut self, args: &[&str]) -> Result<(), String> {
        // setoption name <name...> value <value...>
        let name_at = args.iter().position(|w| *w == "name").ok_or("setoption without name")?;
        let value_at = args.iter().position(|w| *w == "value");
        let name = args[name_at + 1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|v| args[v + 1..].join(" ")).unwrap_or_default();
        if name.eq_ignore_ascii_case("UCI_Variant") {
            self.variant = value.parse().map_err(|e| format!("{e}"))?;
            self.position = Position::new(self.variant);
            Ok(())
        } else {
            Err(format!("unknown option {name:?}"))
        }
    }

    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        let moves_at = args.iter().position(|w| *w == "moves").unwrap_or(args.len());
        let mut pos = match args.first() {
            Some(&"startpos") => Position::new(self.variant),
            Some(&"fen") => {
                let fen = args[1..moves_at].join(" ");
                Position::from_fen(self.variant, &fen).map_err(|e| e.to_string())?
            }
            _ => return Err("position needs startpos or fen".into()),
        };
        for text in args.iter().skip(moves_at + 1) {
            let mv: Move = text.parse().map_err(|e| format!("{e}"))?;
            pos = pos.play(mv).map_err(|e| format!("illegal move {} in {}", e.mv, e.position))?;
        }
        self.position = pos;
        Ok(())
    }

    fn go(&mut self, args: &[&str], out: &mut impl Write) -> Result<(), String> {
        match args {
            ["perft", n] => {
                let depth: u32 = n.parse().map_err(|_| format!("bad depth {n:?}"))?;
                if depth == 0 {
                    return Err("perft depth must be at least 1".into());
                }
                let mut total = 0;
                for (mv, count) in self.position.divide(depth) {
                    writeln!(out, "{mv}: {count}").map_err(|e| e.to_string())?;
                    total += count;
                }
                writeln!(out, "Nodes searched: {total}").map_err(|e| e.to_string())?;
                Ok(())
            }
            _ => Err("only `go perft <depth>` is supported (search comes later)".into()),
        }
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut session = Session::new();
    for line in stdin.lock().lines() {
        if !session.handle(&line?, &mut out)? {
            break;
        }
    }
    Ok(())
}
