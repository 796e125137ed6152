//! `maharajah-review [--nodes N | --depth D | --movetime MS] GAME.pgn`: reviews the first game
//! of a PGN file with the engine and writes it annotated (`[%eval …]`, `?!` / `?` / `??`, the
//! better lines as variations) to standard output, and a summary (accuracy and counts per side)
//! to standard error. The same review code as the app ([`maharajah_analysis::Review`]).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use maharajah_analysis::review::DEFAULT_NODES;
use maharajah_analysis::{from_annotated_pgn, to_annotated_pgn, Review, ReviewConfig, SideSummary};
use maharajah_engine::search::{Limits, Searcher};
use maharajah_engine::{Color, PgnTags};

const USAGE: &str = "usage: maharajah-review [--nodes N | --depth D | --movetime MS] GAME.pgn";

/// Longest better line written as a variation, in moves.
const BETTER_LINE: usize = 6;

/// What went wrong, and the exit status for it.
enum Failure {
    /// Bad command line (status 2).
    Usage(String),
    /// Bad input (status 1).
    Input(String),
}

fn parse_args(args: &[String]) -> Result<(ReviewConfig, String), Failure> {
    let mut limits: Option<(String, Limits)> = None;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let limit = match arg.as_str() {
            "-h" | "--help" => return Err(Failure::Usage(String::new())),
            "--nodes" | "--depth" | "--movetime" => {
                let value =
                    it.next().ok_or_else(|| Failure::Usage(format!("{arg} needs a number")))?;
                let n: u64 = value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    Failure::Usage(format!("{arg} needs a positive number, not {value:?}"))
                })?;
                match arg.as_str() {
                    "--nodes" => Limits::nodes(n),
                    "--depth" => Limits::depth(u32::try_from(n.min(100)).unwrap_or(100)),
                    _ => Limits::movetime(Duration::from_millis(n)),
                }
            }
            a if a.starts_with('-') && a != "-" => {
                return Err(Failure::Usage(format!("unknown option {a}")));
            }
            a => {
                if file.replace(a.to_owned()).is_some() {
                    return Err(Failure::Usage("give one PGN file".into()));
                }
                continue;
            }
        };
        if let Some((previous, _)) = limits.replace((arg.clone(), limit)) {
            return Err(Failure::Usage(format!("{previous} and {arg} exclude each other")));
        }
    }
    let file = file.ok_or_else(|| Failure::Usage("no PGN file given".into()))?;
    let limits = limits.map_or(Limits::nodes(DEFAULT_NODES), |(_, l)| l);
    Ok((ReviewConfig { limits }, file))
}

/// The PGN tag naming `color`'s player, and the word for the side.
const fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn side_line(color: Color, name: Option<&str>, s: &SideSummary) -> String {
    let side = side_name(color);
    let who = match name.filter(|n| !n.is_empty() && *n != "?") {
        Some(n) => format!("{side} ({n})"),
        None => side.to_owned(),
    };
    let accuracy = s.accuracy.map_or("-".to_owned(), |a| format!("{a:.1} %"));
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{who}: accuracy {accuracy}, {} (?!), {} (?), {} (??)",
        count(s.inaccuracies, "inaccuracy", "inaccuracies"),
        count(s.mistakes, "mistake", "mistakes"),
        count(s.blunders, "blunder", "blunders"),
    )
}

fn run(args: &[String]) -> Result<(), Failure> {
    let (config, file) = parse_args(args)?;
    let text = if file == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(&file)
    }
    .map_err(|e| Failure::Input(format!("cannot read {file}: {e}")))?;
    let mut game = from_annotated_pgn(&text)
        .map_err(|e| Failure::Input(format!("{file} is not a valid PGN game: {e}")))?;
    let main = game.tree.main_game();
    if main.moves().is_empty() {
        return Err(Failure::Input(format!("{file} has no moves to review")));
    }

    let mut review = Review::new(&main);
    let mut searcher = Searcher::default();
    let started = Instant::now();
    let mut stderr = std::io::stderr();
    let show_progress = stderr.is_terminal();
    review.run(&mut searcher, &config, 0, &AtomicBool::new(false), &mut |p, _| {
        if show_progress {
            let _ = write!(stderr, "\rreviewing: position {}/{}", p.done, p.total);
        }
    });
    let took = started.elapsed();
    if show_progress {
        let _ = write!(stderr, "\r\x1b[K");
    }
    review.annotate(&mut game.tree, BETTER_LINE);

    let mut tags = PgnTags { extra: game.tags.clone() };
    tags.extra.retain(|(k, _)| k != "Annotator");
    tags.extra
        .push(("Annotator".into(), format!("maharajah-review {}", maharajah_engine::VERSION)));
    print!("{}", to_annotated_pgn(&game.tree, &tags));

    let summary = review.summary();
    let mut out = String::new();
    for color in Color::ALL {
        out.push_str(&side_line(color, game.tag(side_name(color)), summary.get(color)));
        out.push('\n');
    }
    out.push_str(&format!(
        "{} positions reviewed in {:.1} s\n",
        review.evals().len(),
        took.as_secs_f64()
    ));
    let _ = stderr.write_all(out.as_bytes());
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("maharajah-review: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Input(msg)) => {
            eprintln!("maharajah-review: {msg}");
            ExitCode::FAILURE
        }
    }
}
