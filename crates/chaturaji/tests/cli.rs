//! The `chaturaji` command line: valid records, rule violations and malformed input.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::{BySeat, Game, Move, Record, Settings, Step};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chaturaji-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &PathBuf) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chaturaji")).arg(path).output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn finished_record() -> Record {
    let settings = Settings::default();
    let mut dice = ChaCha8Rng::seed_from_u64(11);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let game = Game::new(settings.clone()).unwrap();
    let (_, actions) = cpu::play_out(game, BySeat::splat(Level::Greedy), &mut dice, &mut rng);
    let mut record = Record::new(settings, Some(11));
    record.actions = actions.into_iter().map(Step::from).collect();
    record
}

#[test]
fn a_legal_record_prints_scores_and_ranking() {
    let record = finished_record();
    let (code, out, err) = run(&write("legal.json", &record.to_json()));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("status: game over"), "{out}");
    assert!(out.contains("scores: red "), "{out}");
    assert!(out.contains("ranking:"), "{out}");
    assert!(out.contains("  1. "), "{out}");
    assert!(out.contains("violation: none"), "{out}");
}

#[test]
fn an_illegal_move_is_reported_as_the_first_violation() {
    let text = r#"{
      "format": "chaturaji-record", "version": 1,
      "actions": [
        { "t": "roll", "dice": [3, 1] },
        { "t": "move", "die": 0, "from": "b1", "to": "c3" },
        { "t": "move", "die": 1, "from": "a2", "to": "a4" },
        { "t": "move", "die": 1, "from": "a2", "to": "a3" }
      ]
    }"#;
    let (code, out, err) = run(&write("illegal.json", text));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("actions applied: 2 of 4"), "{out}");
    assert!(out.contains("violation: action 2"), "{out}");
    assert!(out.contains("cannot move there"), "{out}");
    assert!(out.contains("by red"), "{out}");
}

#[test]
fn a_move_out_of_turn_is_a_violation() {
    let mut record = Record::new(Settings::default(), None);
    record.actions.push(Step::Move(Move {
        die: 0,
        from: "a2".parse().unwrap(),
        to: "a3".parse().unwrap(),
    }));
    let (code, out, _) = run(&write("unrolled.json", &record.to_json()));
    assert_eq!(code, 1);
    assert!(out.contains("must roll the dice first"), "{out}");
}

#[test]
fn malformed_input_gets_a_message_not_a_panic() {
    let cases = [
        ("empty.json", "", "malformed record"),
        ("garbage.json", "not json at all", "malformed record"),
        ("array.json", "[1, 2, 3]", "malformed record"),
        ("format.json", r#"{"format":"pgn","version":1,"actions":[]}"#, "not a Chaturaji record"),
        (
            "version.json",
            r#"{"format":"chaturaji-record","version":2,"actions":[]}"#,
            "unsupported record version",
        ),
        (
            "square.json",
            r#"{"format":"chaturaji-record","version":1,"actions":[{"t":"move","die":0,"from":"z9","to":"a3"}]}"#,
            "invalid square",
        ),
        (
            "step.json",
            r#"{"format":"chaturaji-record","version":1,"actions":[{"t":"fly"}]}"#,
            "malformed record",
        ),
        (
            "settings.json",
            r#"{"format":"chaturaji-record","version":1,"settings":{"round_limit":0},"actions":[]}"#,
            "round limit",
        ),
        (
            "die.json",
            r#"{"format":"chaturaji-record","version":1,"actions":[{"t":"roll","dice":[1,999]}]}"#,
            "malformed record",
        ),
    ];
    for (name, text, message) in cases {
        let (code, out, err) = run(&write(name, text));
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(message), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, _, err) = run(&PathBuf::from("/nonexistent/record.json"));
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn a_bad_face_is_a_violation() {
    let text = r#"{"format":"chaturaji-record","version":1,"settings":{"dice":"long"},
      "actions":[{"t":"roll","dice":[1,3]}]}"#;
    let (code, out, _) = run(&write("face.json", text));
    assert_eq!(code, 1);
    assert!(out.contains("face 1 does not exist on long dice"), "{out}");
}

#[test]
fn the_sample_record_replays_cleanly() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("records/sample.json");
    let (code, out, err) = run(&path);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("actions applied: 53 of 53"), "{out}");
    assert!(out.contains("status: game over (at most one king is left) after round 5"), "{out}");
    assert!(out.contains("scores: red 12, blue 17, yellow 4, green 1"), "{out}");
    assert!(out.contains("1. ▲ blue — 17 points, king lost, material 9"), "{out}");
}

/// A game played through a `maharajah-server` room with verifiable dice (three devices and the
/// room; Yellow's device missed its first reveal and was dropped), as the server stored it.
/// Regenerate with `CHATURAJI_NETWORKED_WRITE=1 cargo test -p maharajah-server --lib
/// misses_the_reveal_window`.
fn networked() -> (PathBuf, Record) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("records/networked.json");
    let record = Record::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, record)
}

#[test]
fn the_replay_program_verifies_a_saved_networked_game() {
    let (path, record) = networked();
    let proof = record.dice_proof.as_ref().expect("a networked record has a dice proof");
    assert!(record.seed.is_none(), "no seed: the dice come from the parties' links");
    assert!(proof.rolls.iter().skip(1).all(|r| r[3].is_none()), "Yellow stays dropped");
    let (code, out, err) = run(&path);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("status: game over"), "{out}");
    assert!(
        out.contains(&format!(
            "dice: {} rolls verified against the commitments of 4 parties (room, red, blue, yellow)",
            proof.rolls.len()
        )),
        "{out}"
    );
    assert!(out.contains("violation: none"), "{out}");
}

#[test]
fn the_replay_program_rejects_a_networked_game_with_a_changed_roll_or_link() {
    let (_, record) = networked();
    let rolls: Vec<usize> = (0..record.actions.len())
        .filter(|&i| matches!(record.actions[i], Step::Roll { dice: Some(_) }))
        .collect();
    // One face changed.
    let mut changed = record.clone();
    let at = rolls[rolls.len() / 2];
    let Step::Roll { dice: Some([a, b]) } = changed.actions[at] else { panic!("a roll") };
    changed.actions[at] = Step::Roll { dice: Some([a % 6 + 1, b]) };
    let (code, out, _) = run(&write("networked-face.json", &changed.to_json()));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("violation: action {at} ")), "{out}");
    assert!(out.contains("differ from the verified roll"), "{out}");
    // One link of the room replaced by another value.
    let mut forged = record;
    let proof = forged.dice_proof.as_mut().unwrap();
    let link = proof.rolls[2][0].as_mut().unwrap();
    link.0[0] ^= 1;
    let (code, out, _) = run(&write("networked-link.json", &forged.to_json()));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not verify"), "{out}");
}
