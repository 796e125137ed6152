//! `maharajah-review` as a user runs it: the built binary on PGN files.

use std::path::PathBuf;
use std::process::{Command, Output};

fn review(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_maharajah-review"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A file of its own in the temporary directory.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("maharajah-review-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("a writable temporary directory");
    path
}

#[test]
fn a_hung_queen_is_marked_as_a_blunder() {
    let out = review(&[&data("hung-queen.pgn")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("Qh4??"), "{stdout}");
    assert!(stdout.contains("Blunder."), "{stdout}");
    assert!(stdout.contains("[%eval "), "{stdout}");
    assert!(stdout.contains("[Result \"1-0\"]") && stdout.trim_end().ends_with("1-0"), "{stdout}");
    assert!(stdout.contains("[Annotator \"maharajah-review"), "{stdout}");
    // No other move of the game is a blunder.
    let movetext = stdout.split_once("\n\n").map_or("", |(_, m)| m);
    assert_eq!(movetext.matches("??").count(), 1, "{stdout}");
    assert!(stderr.contains("Black (Ben): accuracy"), "{stderr}");
    assert!(stderr.contains("1 blunder (??)"), "{stderr}");
    assert!(stderr.contains("White (Ana): accuracy"), "{stderr}");
    // The output is itself a PGN the reviewer reads.
    let again = temp_file("again.pgn", &stdout);
    let out2 = review(&["--depth", "4", again.to_str().expect("utf-8 path")]);
    let _ = std::fs::remove_file(&again);
    assert!(out2.status.success(), "{}", String::from_utf8_lossy(&out2.stderr));
}

#[test]
fn limits_are_accepted_one_at_a_time() {
    let file = data("hung-queen.pgn");
    for args in [["--depth", "5"], ["--nodes", "20000"], ["--movetime", "20"]] {
        let out = review(&[args[0], args[1], &file]);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("Qh4??"), "{args:?}");
    }
    let both = review(&["--depth", "5", "--nodes", "100", &file]);
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("exclude each other"));
    let bad = review(&["--depth", "x", &file]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--depth needs a positive number"));
}

#[test]
fn a_missing_file_is_named_in_the_error() {
    let out = review(&["/nonexistent/game.pgn"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot read /nonexistent/game.pgn"), "{stderr}");
    assert!(out.stdout.is_empty());
    let none = review(&[]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no PGN file given"));
}

#[test]
fn a_bad_pgn_is_named_in_the_error() {
    let path = temp_file("bad.pgn", "[White \"A\"]\n\n1. e4 e5 2. Ke3 *\n");
    let out = review(&[path.to_str().expect("utf-8 path")]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not a valid PGN game: ply 3"), "{stderr}");
    assert!(stderr.contains("Ke3"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// The benchmark of BENCHMARKS.md (issue 17): a 60-move game at the default setting.
/// `cargo test --release -p maharajah-analysis --test cli -- --ignored --nocapture`
#[test]
#[ignore = "a benchmark: seconds of search"]
fn sixty_moves_review_within_twenty_seconds() {
    let started = std::time::Instant::now();
    let out = review(&[&data("sixty-moves.pgn")]);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    eprintln!("{stderr}wall {took:?}");
    assert!(stderr.contains("121 positions reviewed"), "{stderr}");
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
}
