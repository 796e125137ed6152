//! Property tests: random seeded games always end, points equal what was captured (plus triumph,
//! throne and Chaturaji points), no seat captures its own piece, resigned armies never move, and
//! records replay exactly.
#![allow(clippy::unwrap_used)]

use maharajah_chaturaji::board::promotion_mark;
use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::settings::{DiceUse, Promotion};
use maharajah_chaturaji::{
    Action, BySeat, DiceKind, Event, Game, Phase, Record, Role, Seat, Settings, Step,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn settings_strategy() -> impl Strategy<Value = Settings> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        1u32..40,
        1u32..14,
        0usize..4,
    )
        .prop_map(|(long, always, triumph, throne, must, rounds, quiet, first)| Settings {
            dice: if long { DiceKind::Long } else { DiceKind::Cubic },
            promotion: if always { Promotion::Always } else { Promotion::OnlyMissingTypes },
            boat_triumph: triumph,
            throne_points: throne,
            dice_use: if must { DiceUse::MustUseAll } else { DiceUse::MayLeaveUnused },
            round_limit: rounds,
            no_capture_rounds: quiet,
            first_seat: Seat::ALL[first],
            ..Settings::default()
        })
}

fn level_strategy() -> impl Strategy<Value = Level> {
    prop_oneof![Just(Level::Random), Just(Level::Greedy), Just(Level::Medium)]
}

/// Plays a game with the given levels, sometimes ending turns early, timing out or resigning,
/// checking the invariants after every action. Returns the record.
fn play_checked(settings: Settings, levels: BySeat<Level>, seed: u64, chaos: bool) -> Record {
    let mut game = Game::new(settings.clone()).unwrap();
    let mut record = Record::new(settings, Some(seed));
    let mut dice = ChaCha8Rng::seed_from_u64(seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1));
    // Points each seat earned by events, to compare with the scores.
    let mut earned = BySeat::<u32>::default();
    let mut captured = 0;
    let mut steps = 0;
    while !game.is_over() {
        steps += 1;
        assert!(steps < 10_000, "a game must end");
        let before = game.clone();
        let action = match game.phase() {
            Phase::Roll { .. } => {
                let kind = game.settings().dice;
                Action::Roll { dice: [kind.roll(&mut dice), kind.roll(&mut dice)] }
            }
            Phase::Move { seat } => {
                let r: u32 = if chaos { rng.random_range(0..100) } else { 100 };
                if r < 2 {
                    Action::Resign { seat: Seat::ALL[rng.random_range(0..4)] }
                } else if r < 4 {
                    Action::TimeOut
                } else if r < 8 && game.can_end_turn() {
                    Action::EndTurn
                } else {
                    cpu::choose_action(&game, levels[seat], &mut rng).unwrap()
                }
            }
            Phase::Over => unreachable!(),
        };
        let events = match game.apply(action) {
            Ok(events) => events,
            Err(e) => {
                // Only a repeated resignation may be refused here.
                assert!(matches!(action, Action::Resign { .. }), "{action:?} refused: {e}");
                assert_eq!(game, before);
                continue;
            }
        };
        let step = match action {
            Action::Roll { .. } => Step::Roll { dice: None },
            other => Step::from(other),
        };
        record.actions.push(step);
        for event in &events {
            match *event {
                Event::Captured { by, piece, points, .. } => {
                    assert_ne!(by, piece.seat, "no seat captures its own piece");
                    assert_eq!(points, piece.role.value());
                    earned[by] += points;
                }
                Event::Throne { seat, points, .. } => {
                    assert!(game.settings().throne_points);
                    earned[seat] += points;
                }
                Event::Chaturaji { seat, points } => {
                    assert!(points >= 54);
                    earned[seat] = points;
                }
                Event::Moved { seat, .. } => {
                    assert!(!before.resigned()[seat], "resigned armies are frozen")
                }
                _ => {}
            }
        }
        assert_eq!(game.scores(), earned, "points equal what was captured");
        // Every piece that left the board was captured (captured pieces never return).
        captured += events.iter().filter(|e| matches!(e, Event::Captured { .. })).count();
        assert_eq!(game.board().pieces().count() + captured, 32);
        // After each of its owner's moves, no pawn waits on the far edge when it could promote.
        if let Some(Event::Moved { seat, .. }) = events.first() {
            for (square, piece) in game.board().pieces_of(*seat) {
                let Some(mark) = promotion_mark(*seat, square) else { continue };
                if piece.role != Role::Pawn {
                    continue;
                }
                match game.settings().promotion {
                    Promotion::OnlyMissingTypes => {
                        assert!(
                            game.board().has_role(*seat, mark),
                            "{seat} pawn on {square} should be a {mark}"
                        )
                    }
                    Promotion::Always => assert_eq!(mark, Role::King, "{seat} pawn on {square}"),
                }
            }
        }
        // Resigned pieces never move: every square of a resigned seat is unchanged or captured.
        for seat in Seat::ALL.into_iter().filter(|&s| before.resigned()[s]) {
            for (square, piece) in game.board().pieces_of(seat) {
                assert_eq!(before.board().get(square), Some(piece));
            }
        }
    }
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.standings.len(), 4);
    assert_eq!(outcome.standings[0].place, 1);
    assert!(game.round() <= game.settings().round_limit);
    record
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_end_with_consistent_scores(
        settings in settings_strategy(),
        levels in (level_strategy(), level_strategy(), level_strategy(), level_strategy()),
        seed in any::<u64>(),
        chaos in any::<bool>(),
    ) {
        let levels = BySeat { red: levels.0, blue: levels.1, yellow: levels.2, green: levels.3 };
        let record = play_checked(settings, levels, seed, chaos);
        // The record replays to the same end, and survives a JSON round trip.
        let text = record.to_json();
        let parsed = Record::from_json(&text).unwrap();
        prop_assert_eq!(&parsed, &record);
        let replay = parsed.replay().unwrap();
        prop_assert!(replay.violation.is_none(), "{:?}", replay.violation);
        prop_assert!(replay.game.is_over());
    }

    #[test]
    fn records_replay_the_exact_game(seed in any::<u64>(), long in any::<bool>()) {
        let settings = Settings { dice: if long { DiceKind::Long } else { DiceKind::Cubic }, ..Settings::default() };
        let game = Game::new(settings.clone()).unwrap();
        let mut dice = ChaCha8Rng::seed_from_u64(seed);
        let mut rng = ChaCha8Rng::seed_from_u64(!seed);
        let (end, actions) = cpu::play_out(game, BySeat::splat(Level::Greedy), &mut dice, &mut rng);
        // Recorded with explicit dice and no seed ...
        let mut explicit = Record::new(settings.clone(), None);
        explicit.actions = actions.iter().map(|&a| Step::from(a)).collect();
        let replay = explicit.replay().unwrap();
        prop_assert!(replay.violation.is_none());
        prop_assert_eq!(&replay.game, &end);
        // ... and with the seed only.
        let mut seeded = Record::new(settings, Some(seed));
        seeded.actions = actions
            .iter()
            .map(|&a| if let Action::Roll { .. } = a { Step::Roll { dice: None } } else { Step::from(a) })
            .collect();
        let replay = seeded.replay().unwrap();
        prop_assert!(replay.violation.is_none());
        prop_assert_eq!(&replay.game, &end);
    }

    #[test]
    fn a_tampered_roll_is_the_first_violation(seed in any::<u64>()) {
        let settings = Settings::default();
        let game = Game::new(settings.clone()).unwrap();
        let mut dice = ChaCha8Rng::seed_from_u64(seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        let (_, actions) = cpu::play_out(game, BySeat::splat(Level::Random), &mut dice, &mut rng);
        let mut record = Record::new(settings, Some(seed));
        record.actions = actions.iter().map(|&a| Step::from(a)).collect();
        let rolls: Vec<usize> = record.actions.iter().enumerate()
            .filter(|(_, s)| matches!(s, Step::Roll { .. })).map(|(i, _)| i).collect();
        let target = rolls[rolls.len() / 2];
        if let Step::Roll { dice: Some(d) } = &mut record.actions[target] {
            d[0] = if d[0] == 6 { 5 } else { d[0] + 1 };
        }
        let replay = record.replay().unwrap();
        let violation = replay.violation.unwrap();
        prop_assert_eq!(violation.index, target);
    }
}
