//! Verifiable dice end to end: a game whose rolls come from three parties' hash chains is
//! recorded, replays and verifies (library and `chaturaji` program), and a tampered roll or link
//! is reported.
#![allow(clippy::unwrap_used)]

use std::process::Command;

use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::fair::{chain_length, DiceError, DiceProof, HashChain, Party};
use maharajah_chaturaji::{Phase, Record, RecordedGame, Settings, Step, StepError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A finished game with verified dice: the room and two devices each commit to a chain; device
/// "blue" misses its reveal on the 30th roll and is dropped from the dice.
fn verified_record() -> Record {
    let settings = Settings { round_limit: 12, ..Settings::default() };
    let length = chain_length(&settings);
    let chains: Vec<HashChain> =
        (1..=3u8).map(|i| HashChain::new([i.wrapping_mul(77); 32], length)).collect();
    let parties = ["room", "red", "blue"]
        .iter()
        .zip(&chains)
        .map(|(name, c)| Party { name: (*name).to_owned(), commitment: c.commitment() })
        .collect();
    let mut live = RecordedGame::new_verified(settings, DiceProof::new(length, parties)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut turn = 0;
    while !live.game().is_over() {
        if let Phase::Roll { .. } = live.game().phase() {
            turn += 1;
            let links = chains
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 2 && turn >= 30 { None } else { c.link(turn) })
                .collect();
            live.roll_revealed(links).unwrap();
        } else {
            let action = cpu::choose_action(live.game(), Level::Greedy, &mut rng).unwrap();
            live.act(action).unwrap();
        }
    }
    assert!(turn > 30, "the game outlasts the drop ({turn} rolls)");
    live.record().clone()
}

fn rolls(record: &Record) -> Vec<usize> {
    let steps = record.actions.iter().enumerate();
    steps.filter(|(_, s)| matches!(s, Step::Roll { .. })).map(|(i, _)| i).collect()
}

#[test]
fn a_verified_game_replays_and_a_tampered_roll_is_found() {
    let record = verified_record();
    let back = Record::from_json(&record.to_json()).unwrap();
    assert_eq!(back, record);
    let replay = back.replay().unwrap();
    assert_eq!(replay.violation, None);
    assert!(replay.game.is_over());

    // The room changes the faces of one roll: the replay names it.
    let mut forged = record.clone();
    let at = rolls(&forged)[7];
    let Step::Roll { dice: Some(faces) } = forged.actions[at] else { panic!("a roll") };
    let other = if faces[0] == 6 { 1 } else { faces[0] + 1 };
    forged.actions[at] = Step::Roll { dice: Some([other, faces[1]]) };
    let violation = forged.replay().unwrap().violation.unwrap();
    assert_eq!(violation.index, at);
    assert!(
        matches!(violation.error, StepError::RollMismatch { recorded, .. } if recorded == [other, faces[1]])
    );

    // Or a party's link: it no longer hashes to the previous one.
    let mut forged = record.clone();
    let proof = forged.dice_proof.as_mut().unwrap();
    let link = proof.rolls[4][1].as_mut().unwrap();
    link.0[0] ^= 0x80;
    let violation = forged.replay().unwrap().violation.unwrap();
    assert_eq!(violation.index, rolls(&record)[4]);
    assert_eq!(violation.error, StepError::Unverified(DiceError::BadLink { party: 1, turn: 5 }));

    // Resuming checks the same way.
    assert!(RecordedGame::resume(record).is_ok());
}

#[test]
fn seeded_rolls_are_refused_in_a_verified_game() {
    let chain = HashChain::new([1; 32], 8);
    let party = Party { name: "room".into(), commitment: chain.commitment() };
    let settings = Settings { round_limit: 2, ..Settings::default() };
    let mut live = RecordedGame::new_verified(settings, DiceProof::new(8, vec![party])).unwrap();
    assert_eq!(live.roll(), Err(StepError::MissingLinks));
    assert!(live.act(maharajah_chaturaji::Action::Roll { dice: [1, 1] }).is_err());
    assert!(live.roll_revealed(vec![chain.link(1)]).is_ok());
    assert!(
        live.record().actions.len() == 1
            && live.record().dice_proof.as_ref().unwrap().rolls.len() == 1
    );
}

#[test]
fn the_replay_program_verifies_the_dice_and_reports_a_tampered_roll() {
    let dir = std::env::temp_dir().join(format!("chaturaji-fair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = verified_record();
    let good = dir.join("verified.json");
    std::fs::write(&good, record.to_json()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_chaturaji")).arg(&good).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("violation: none"), "{text}");
    assert!(
        text.contains("rolls verified against the commitments of 3 parties (room, red, blue)"),
        "{text}"
    );

    let mut forged = record;
    let at = rolls(&forged)[2];
    let Step::Roll { dice: Some([a, b]) } = forged.actions[at] else { panic!("a roll") };
    forged.actions[at] = Step::Roll { dice: Some([b, if a == 6 { 1 } else { a + 1 }]) };
    let bad = dir.join("forged.json");
    std::fs::write(&bad, forged.to_json()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_chaturaji")).arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("differ from the verified roll"), "{text}");
}
