//! Unit tests of the game rules, one or more per rule and setting.

use super::*;
use crate::settings::{DiceUse, Promotion};

fn sq(s: &str) -> Square {
    s.parse().expect("test square")
}

fn mv(die: u8, from: &str, to: &str) -> Move {
    Move { die, from: sq(from), to: sq(to) }
}

/// A game from a list of pieces, `to_move` to roll.
fn position(pieces: &[(&str, Seat, Role)], to_move: Seat, settings: Settings) -> Game {
    let mut board = Board::empty();
    for &(s, seat, role) in pieces {
        board.set(sq(s), Some(Piece { seat, role }));
    }
    Game::from_position(settings, board, Some(to_move)).expect("valid settings")
}

/// Every seat keeps a king out of the way (far corners) so the game does not end by itself.
fn kings() -> Vec<(&'static str, Seat, Role)> {
    vec![
        ("a1", Seat::Red, Role::King),
        ("a8", Seat::Blue, Role::King),
        ("h8", Seat::Yellow, Role::King),
        ("h1", Seat::Green, Role::King),
    ]
}

fn with_kings(extra: &[(&'static str, Seat, Role)]) -> Vec<(&'static str, Seat, Role)> {
    let mut all = kings();
    all.extend_from_slice(extra);
    all
}

fn captured_points(events: &[Event]) -> u32 {
    events.iter().map(|e| if let Event::Captured { points, .. } = e { *points } else { 0 }).sum()
}

#[test]
fn new_game_waits_for_the_first_seat_to_roll() {
    let game = Game::new(Settings::default()).expect("default settings");
    assert_eq!(game.phase(), Phase::Roll { seat: Seat::Red });
    assert_eq!(game.round(), 1);
    assert_eq!(game.scores(), BySeat::default());
    assert!(game.legal_moves().is_empty());
    let blue_first = Settings { first_seat: Seat::Blue, ..Settings::default() };
    assert_eq!(Game::new(blue_first).expect("valid").to_move(), Seat::Blue);
}

#[test]
fn faces_outside_the_dice_are_refused() {
    let mut game = Game::new(Settings::default()).expect("valid");
    assert!(matches!(game.roll_with([7, 1]), Err(GameError::BadFace { face: 7, .. })));
    let mut long =
        Game::new(Settings { dice: crate::DiceKind::Long, ..Settings::default() }).expect("valid");
    assert!(matches!(long.roll_with([1, 3]), Err(GameError::BadFace { face: 1, .. })));
    assert!(matches!(long.roll_with([3, 6]), Err(GameError::BadFace { face: 6, .. })));
    assert_eq!(long.phase(), Phase::Roll { seat: Seat::Red });
    assert!(long.roll_with([3, 5]).is_ok());
}

#[test]
fn each_die_allows_only_its_class() {
    let mut game = Game::new(Settings::default()).expect("valid");
    game.roll_with([3, 2]).expect("roll");
    let moves = game.legal_moves();
    // Horse b1: a3, c3 (d2 holds Red's own pawn). Boat a1: c3 (b2 is jumped over).
    assert_eq!(moves, vec![mv(0, "b1", "c3"), mv(0, "b1", "a3"), mv(1, "a1", "c3")]);
    assert!(matches!(
        game.play(mv(0, "a1", "c3")),
        Err(GameError::IllegalMove { reason: MoveRejection::WrongClass, .. })
    ));
    assert!(matches!(
        game.play(mv(0, "a2", "a3")),
        Err(GameError::IllegalMove { reason: MoveRejection::WrongClass, .. })
    ));
}

#[test]
fn pawn_or_king_die_moves_either() {
    let mut game = Game::new(Settings::default()).expect("valid");
    game.roll_with([1, 5]).expect("roll");
    let moves = game.legal_moves();
    // Both dice show pawn-or-king, so moves are listed for die 0 only: four pawn steps; the king
    // on d1 is boxed in by its own pieces except e1 and e2.
    assert!(moves.iter().all(|m| m.die == 0));
    assert!(moves.contains(&mv(0, "a2", "a3")));
    assert!(moves.contains(&mv(0, "d1", "e1")));
    assert!(moves.contains(&mv(0, "d1", "e2")));
    assert_eq!(moves.len(), 6);
    // Either die may be named.
    game.play(mv(1, "d2", "d3")).expect("die 1 is fine too");
    game.play(mv(0, "d3", "d4")).expect("the same piece may move twice");
    assert_eq!(game.to_move(), Seat::Blue);
}

#[test]
fn errors_leave_the_game_untouched() {
    let mut game = Game::new(Settings::default()).expect("valid");
    let before = game.clone();
    assert_eq!(game.play(mv(0, "a2", "a3")), Err(GameError::NotRolled { seat: Seat::Red }));
    assert_eq!(game.end_turn(), Err(GameError::NotRolled { seat: Seat::Red }));
    assert_eq!(game, before);
    game.roll_with([1, 1]).expect("roll");
    let rolled = game.clone();
    assert_eq!(game.roll_with([1, 1]), Err(GameError::AlreadyRolled { seat: Seat::Red }));
    assert_eq!(game.play(mv(2, "a2", "a3")), Err(GameError::NoSuchDie { die: 2 }));
    assert!(matches!(
        game.play(mv(0, "e5", "e6")),
        Err(GameError::IllegalMove { reason: MoveRejection::EmptySquare, .. })
    ));
    assert!(matches!(
        game.play(mv(0, "e7", "e6")),
        Err(GameError::IllegalMove { reason: MoveRejection::NotYourPiece, .. })
    ));
    assert!(matches!(
        game.play(mv(0, "a2", "a4")),
        Err(GameError::IllegalMove { reason: MoveRejection::Unreachable, .. })
    ));
    assert_eq!(game, rolled);
    game.play(mv(0, "a2", "a3")).expect("legal");
    assert_eq!(game.play(mv(0, "b2", "b3")), Err(GameError::DieSpent { die: 0 }));
}

#[test]
fn no_seat_captures_its_own_piece() {
    let mut game = position(
        &with_kings(&[("d4", Seat::Red, Role::Elephant), ("d6", Seat::Red, Role::Pawn)]),
        Seat::Red,
        Settings::default(),
    );
    game.roll_with([4, 4]).expect("roll");
    assert!(!game.legal_moves().iter().any(|m| m.to == sq("d6") || m.to == sq("a1")));
    assert!(matches!(
        game.play(mv(0, "d4", "d6")),
        Err(GameError::IllegalMove { reason: MoveRejection::Unreachable, .. })
    ));
}

#[test]
fn blocked_dice_are_discarded_and_the_turn_ends() {
    let mut game = Game::new(Settings::default()).expect("valid");
    // Red's elephant on c1 is boxed in by b1, d1 and c2.
    let events = game.roll_with([4, 6]).expect("roll");
    let discarded: Vec<_> = events
        .iter()
        .filter_map(|e| {
            if let Event::DieDiscarded { die, reason, .. } = e {
                Some((*die, *reason))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(discarded, vec![(0, Unusable::Blocked), (1, Unusable::Blocked)]);
    assert_eq!(game.phase(), Phase::Roll { seat: Seat::Blue });
}

#[test]
fn a_die_with_no_piece_of_its_class_is_discarded_with_that_reason() {
    let mut game =
        position(&with_kings(&[("d4", Seat::Red, Role::Pawn)]), Seat::Red, Settings::default());
    game.roll_with([2, 1]).expect("roll");
    assert_eq!(game.die_usability(0), Some(Err(Unusable::NoPiece)));
    assert_eq!(game.die_usability(1), Some(Ok(())));
    assert!(game.legal_moves().iter().all(|m| m.die == 1));
    let events = game.play(mv(1, "d4", "d5")).expect("legal");
    assert!(events.contains(&Event::DieDiscarded { die: 0, face: 2, reason: Unusable::NoPiece }));
    assert_eq!(game.to_move(), Seat::Blue);
}

#[test]
fn a_die_blocked_at_the_roll_can_become_usable() {
    // Red's elephant on c1 is blocked by its own pawn on c2 until the pawn moves.
    let mut game = position(
        &with_kings(&[
            ("c1", Seat::Red, Role::Elephant),
            ("c2", Seat::Red, Role::Pawn),
            ("b1", Seat::Red, Role::Pawn),
            ("d1", Seat::Red, Role::Pawn),
        ]),
        Seat::Red,
        Settings::default(),
    );
    game.roll_with([4, 1]).expect("roll");
    assert_eq!(game.die_usability(0), Some(Err(Unusable::Blocked)));
    game.play(mv(1, "c2", "c3")).expect("pawn step");
    assert_eq!(game.phase(), Phase::Move { seat: Seat::Red });
    assert_eq!(game.die_usability(0), Some(Ok(())));
    game.play(mv(0, "c1", "c2")).expect("elephant now free");
    assert_eq!(game.to_move(), Seat::Blue);
}

#[test]
fn ending_the_turn_early_follows_the_dice_use_setting() {
    let mut game = Game::new(Settings::default()).expect("valid");
    game.roll_with([1, 3]).expect("roll");
    assert!(game.can_end_turn());
    let events = game.end_turn().expect("may leave dice unused");
    assert!(events.contains(&Event::DieDiscarded { die: 0, face: 1, reason: Unusable::Declined }));
    assert_eq!(game.to_move(), Seat::Blue);

    let must = Settings { dice_use: DiceUse::MustUseAll, ..Settings::default() };
    let mut game = Game::new(must).expect("valid");
    game.roll_with([1, 3]).expect("roll");
    assert!(!game.can_end_turn());
    assert_eq!(game.end_turn(), Err(GameError::MustUseDice));
    game.play(mv(0, "a2", "a3")).expect("legal");
    assert_eq!(game.end_turn(), Err(GameError::MustUseDice));
    game.play(mv(1, "b1", "c3")).expect("legal");
    assert_eq!(game.to_move(), Seat::Blue);
}

#[test]
fn captures_score_the_value_of_the_piece() {
    for (role, points) in
        [(Role::Pawn, 1), (Role::Boat, 2), (Role::Horse, 3), (Role::Elephant, 4), (Role::King, 5)]
    {
        let mut pieces =
            with_kings(&[("d4", Seat::Red, Role::Elephant), ("d7", Seat::Yellow, role)]);
        pieces.push(("c3", Seat::Blue, Role::King)); // a third king, so one capture does not end it
        let mut game = position(&pieces, Seat::Red, Settings::default());
        game.roll_with([4, 2]).expect("roll");
        let events = game.play(mv(0, "d4", "d7")).expect("capture");
        assert_eq!(game.scores().red, points, "{role}");
        assert_eq!(captured_points(&events), points);
        assert_eq!(
            game.board().get(sq("d7")),
            Some(Piece { seat: Seat::Red, role: Role::Elephant })
        );
    }
}

#[test]
fn a_player_without_a_king_plays_on() {
    let pieces = [
        ("a1", Seat::Red, Role::King),
        ("a8", Seat::Blue, Role::King),
        ("h8", Seat::Yellow, Role::King),
        ("h4", Seat::Green, Role::Pawn),
        ("d4", Seat::Red, Role::Pawn),
    ];
    let mut game = position(&pieces, Seat::Green, Settings::default());
    game.roll_with([1, 1]).expect("roll");
    assert!(!game.legal_moves().is_empty());
    game.play(mv(0, "h4", "g4")).expect("kingless seat moves its pawn");
    assert!(!game.is_over());
}

fn triumph_board(red_boat_from: &str) -> Vec<(&'static str, Seat, Role)> {
    let from: &'static str = Box::leak(red_boat_from.to_owned().into_boxed_str());
    with_kings(&[
        (from, Seat::Red, Role::Boat),
        ("e5", Seat::Blue, Role::Boat),
        ("d4", Seat::Yellow, Role::Boat),
        ("e4", Seat::Green, Role::Boat),
    ])
}

#[test]
fn boat_triumph_captures_the_other_three_boats() {
    let mut game = position(&triumph_board("b3"), Seat::Red, Settings::default());
    game.roll_with([2, 1]).expect("roll");
    let events = game.play(mv(0, "b3", "d5")).expect("boat jump");
    assert_eq!(game.scores().red, 6);
    assert_eq!(captured_points(&events), 6);
    let triumphs = events
        .iter()
        .filter(|e| matches!(e, Event::Captured { kind: CaptureKind::BoatTriumph, .. }))
        .count();
    assert_eq!(triumphs, 3);
    for s in ["e5", "d4", "e4"] {
        assert_eq!(game.board().get(sq(s)), None);
    }
    assert_eq!(game.board().get(sq("d5")), Some(Piece { seat: Seat::Red, role: Role::Boat }));
}

#[test]
fn boat_triumph_can_be_switched_off() {
    let settings = Settings { boat_triumph: false, ..Settings::default() };
    let mut game = position(&triumph_board("b3"), Seat::Red, settings);
    game.roll_with([2, 1]).expect("roll");
    game.play(mv(0, "b3", "d5")).expect("boat jump");
    assert_eq!(game.scores().red, 0);
    assert_eq!(game.board().pieces().filter(|(_, p)| p.role == Role::Boat).count(), 4);
}

#[test]
fn two_boats_of_one_seat_make_no_triumph() {
    let pieces = with_kings(&[
        ("b3", Seat::Red, Role::Boat),
        ("e5", Seat::Blue, Role::Boat),
        ("d4", Seat::Blue, Role::Boat),
        ("e4", Seat::Green, Role::Boat),
    ]);
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([2, 1]).expect("roll");
    game.play(mv(0, "b3", "d5")).expect("boat jump");
    assert_eq!(game.scores().red, 0);
}

#[test]
fn throne_points_are_scored_once_per_throne_when_on() {
    // Blue's throne is a5; Red's king steps onto it, off, and on again.
    let pieces = [
        ("b4", Seat::Red, Role::King),
        ("h8", Seat::Blue, Role::King),
        ("h7", Seat::Yellow, Role::King),
        ("h1", Seat::Green, Role::King),
    ];
    let on = Settings { throne_points: true, ..Settings::default() };
    let mut game = position(&pieces, Seat::Red, on);
    game.roll_with([1, 1]).expect("roll");
    let events = game.play(mv(0, "b4", "a5")).expect("onto the throne");
    assert!(events.contains(&Event::Throne { seat: Seat::Red, throne_of: Seat::Blue, points: 5 }));
    game.play(mv(1, "a5", "b4")).expect("off again");
    for _ in 0..3 {
        game.time_out().expect("others pass");
    }
    game.roll_with([1, 1]).expect("roll");
    game.play(mv(0, "b4", "a5")).expect("onto the throne again");
    assert_eq!(game.scores().red, 5);
    // Entering its own throne scores nothing.
    game.play(mv(1, "a5", "a4")).expect("step");

    let mut off = position(&pieces, Seat::Red, Settings::default());
    off.roll_with([1, 1]).expect("roll");
    off.play(mv(0, "b4", "a5")).expect("onto the throne");
    assert_eq!(off.scores().red, 0);
}

#[test]
fn capturing_a_king_on_its_throne_scores_both() {
    let pieces = [
        ("b4", Seat::Red, Role::King),
        ("a5", Seat::Blue, Role::King),
        ("h7", Seat::Yellow, Role::King),
        ("h1", Seat::Green, Role::King),
    ];
    let mut game =
        position(&pieces, Seat::Red, Settings { throne_points: true, ..Settings::default() });
    game.roll_with([1, 1]).expect("roll");
    game.play(mv(0, "b4", "a5")).expect("capture on the throne");
    assert_eq!(game.scores().red, 10);
}

#[test]
fn waiting_pawn_promotes_once_its_type_is_missing() {
    // Red's pawn reaches c8 (elephant mark) while Red still has an elephant: it waits.
    let pieces = with_kings(&[
        ("c7", Seat::Red, Role::Pawn),
        ("e2", Seat::Red, Role::Elephant),
        ("e4", Seat::Blue, Role::Elephant),
        ("g2", Seat::Red, Role::Pawn),
    ]);
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([1, 2]).expect("roll");
    let events = game.play(mv(0, "c7", "c8")).expect("pawn reaches the edge");
    assert!(!events.iter().any(|e| matches!(e, Event::Promoted { .. })));
    assert_eq!(game.board().get(sq("c8")), Some(Piece { seat: Seat::Red, role: Role::Pawn }));
    assert_eq!(game.to_move(), Seat::Blue);
    // Blue captures Red's elephant; the waiting pawn does not change on Blue's move.
    game.roll_with([4, 2]).expect("roll");
    game.play(mv(0, "e4", "e2")).expect("capture");
    assert_eq!(game.board().get(sq("c8")), Some(Piece { seat: Seat::Red, role: Role::Pawn }));
    game.time_out().expect("yellow passes");
    game.time_out().expect("green passes");
    // At the end of Red's next move it becomes an elephant.
    game.roll_with([1, 2]).expect("roll");
    let events = game.play(mv(0, "g2", "g3")).expect("any move");
    assert!(events.contains(&Event::Promoted {
        seat: Seat::Red,
        square: sq("c8"),
        role: Role::Elephant
    }));
    assert_eq!(game.board().get(sq("c8")), Some(Piece { seat: Seat::Red, role: Role::Elephant }));
}

#[test]
fn pawn_promotes_at_once_when_its_type_is_missing() {
    let pieces = with_kings(&[("b7", Seat::Red, Role::Pawn)]);
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([1, 2]).expect("roll");
    game.play(mv(0, "b7", "b8")).expect("edge");
    assert_eq!(game.board().get(sq("b8")), Some(Piece { seat: Seat::Red, role: Role::Horse }));
}

#[test]
fn pawn_on_a_king_square_becomes_king_only_when_its_king_is_gone() {
    // Yellow's pawns promote on rank 1; d1 and e1 are king squares.
    let pieces = [
        ("a8", Seat::Red, Role::King),
        ("b8", Seat::Blue, Role::King),
        ("h1", Seat::Green, Role::King),
        ("e2", Seat::Yellow, Role::Pawn),
    ];
    let mut game = position(&pieces, Seat::Yellow, Settings::default());
    game.roll_with([1, 2]).expect("roll");
    game.play(mv(0, "e2", "e1")).expect("edge");
    assert_eq!(game.board().get(sq("e1")), Some(Piece { seat: Seat::Yellow, role: Role::King }));
}

#[test]
fn promotion_always_changes_at_once_except_on_king_squares() {
    let always = Settings { promotion: Promotion::Always, ..Settings::default() };
    let pieces = with_kings(&[
        ("c7", Seat::Red, Role::Pawn),
        ("d7", Seat::Red, Role::Pawn),
        ("e2", Seat::Red, Role::Elephant),
    ]);
    let mut game = position(&pieces, Seat::Red, always);
    game.roll_with([1, 1]).expect("roll");
    let events = game.play(mv(0, "c7", "c8")).expect("edge");
    assert!(events.contains(&Event::Promoted {
        seat: Seat::Red,
        square: sq("c8"),
        role: Role::Elephant
    }));
    game.play(mv(1, "d7", "d8")).expect("edge");
    assert_eq!(game.board().get(sq("d8")), Some(Piece { seat: Seat::Red, role: Role::Pawn }));
    // Even without a king, the king-square pawn stays a pawn under "always".
    let no_king = [
        ("a8", Seat::Blue, Role::King),
        ("h8", Seat::Yellow, Role::King),
        ("h1", Seat::Green, Role::King),
        ("d7", Seat::Red, Role::Pawn),
        ("a2", Seat::Red, Role::Pawn),
    ];
    let mut game = position(
        &no_king,
        Seat::Red,
        Settings { promotion: Promotion::Always, ..Settings::default() },
    );
    game.roll_with([1, 1]).expect("roll");
    game.play(mv(0, "d7", "d8")).expect("edge");
    game.play(mv(1, "a2", "a3")).expect("another move");
    assert_eq!(game.board().get(sq("d8")), Some(Piece { seat: Seat::Red, role: Role::Pawn }));
}

#[test]
fn chaturaji_sets_the_score_to_54_and_ends_the_game() {
    let pieces = [
        ("a1", Seat::Red, Role::King),
        ("e1", Seat::Red, Role::Elephant),
        ("e3", Seat::Blue, Role::King),
        ("b8", Seat::Blue, Role::Pawn),
        ("e5", Seat::Yellow, Role::King),
        ("h6", Seat::Yellow, Role::Pawn),
        ("e8", Seat::Green, Role::King),
    ];
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([4, 4]).expect("roll");
    game.play(mv(0, "e1", "e3")).expect("takes Blue's king");
    game.play(mv(1, "e3", "e5")).expect("takes Yellow's king");
    assert!(!game.is_over(), "two kings are left");
    assert_eq!(game.scores().red, 10);
    // Kingless Blue and Yellow still have pawns and take their turns; Green has no boat.
    assert_eq!(game.to_move(), Seat::Blue);
    pass_turn(&mut game);
    pass_turn(&mut game);
    assert_eq!(game.to_move(), Seat::Green);
    game.roll_with([2, 2]).expect("green cannot move");
    assert_eq!(game.to_move(), Seat::Red);
    game.roll_with([4, 2]).expect("roll");
    let events = game.play(mv(0, "e5", "e8")).expect("takes Green's king");
    assert!(events.contains(&Event::Chaturaji { seat: Seat::Red, points: 54 }));
    assert_eq!(game.scores().red, 54);
    let outcome = game.outcome().expect("over");
    assert_eq!(outcome.reason, EndReason::Chaturaji { seat: Seat::Red });
    assert_eq!(outcome.standings[0].seat, Seat::Red);
    assert_eq!(game.phase(), Phase::Over);
    assert_eq!(game.roll_with([1, 1]), Err(GameError::GameOver));
}

#[test]
fn without_its_own_king_a_seat_gets_no_chaturaji() {
    let pieces = [
        ("e1", Seat::Red, Role::Elephant),
        ("e3", Seat::Blue, Role::King),
        ("h3", Seat::Green, Role::King),
    ];
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([4, 2]).expect("roll");
    game.play(mv(0, "e1", "e3")).expect("takes Blue's king");
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::OneKingLeft));
    assert_eq!(game.scores().red, 5);
}

#[test]
fn the_game_ends_when_one_king_is_left() {
    let pieces = [
        ("a1", Seat::Red, Role::King),
        ("e1", Seat::Red, Role::Elephant),
        ("e3", Seat::Blue, Role::King),
        ("a8", Seat::Yellow, Role::Pawn),
    ];
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([4, 4]).expect("roll");
    let events = game.play(mv(0, "e1", "e3")).expect("takes the last rival king");
    assert!(events.iter().any(|e| matches!(e, Event::GameOver { .. })));
    assert!(events.contains(&Event::DieDiscarded { die: 1, face: 4, reason: Unusable::GameOver }));
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::OneKingLeft));
}

fn pass_turn(game: &mut Game) {
    game.time_out().expect("turn passes");
}

#[test]
fn the_round_limit_ends_the_game() {
    let mut game = Game::new(Settings { round_limit: 2, ..Settings::default() }).expect("valid");
    for _ in 0..4 {
        pass_turn(&mut game);
    }
    assert_eq!(game.round(), 2);
    assert!(!game.is_over());
    for _ in 0..4 {
        pass_turn(&mut game);
    }
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::RoundLimit));
    assert_eq!(game.round(), 2);
}

#[test]
fn rounds_count_from_the_first_seat() {
    let mut game =
        Game::new(Settings { first_seat: Seat::Yellow, ..Settings::default() }).expect("valid");
    assert_eq!(game.to_move(), Seat::Yellow);
    for (seat, round) in [(Seat::Green, 1), (Seat::Red, 1), (Seat::Blue, 1), (Seat::Yellow, 2)] {
        pass_turn(&mut game);
        assert_eq!((game.to_move(), game.round()), (seat, round));
    }
}

#[test]
fn rounds_without_capture_end_the_game_and_a_capture_resets_the_count() {
    let settings = Settings { no_capture_rounds: 1, ..Settings::default() };
    let mut game = Game::new(settings.clone()).expect("valid");
    for _ in 0..3 {
        pass_turn(&mut game);
    }
    assert!(!game.is_over());
    pass_turn(&mut game);
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::NoCaptures));

    let pieces = with_kings(&[("d4", Seat::Red, Role::Elephant), ("d6", Seat::Blue, Role::Pawn)]);
    let mut game = position(&pieces, Seat::Red, settings);
    game.roll_with([4, 2]).expect("roll");
    game.play(mv(0, "d4", "d6")).expect("capture");
    assert_eq!(game.turns_without_capture(), 0);
    for _ in 0..3 {
        pass_turn(&mut game);
    }
    assert!(!game.is_over());
    pass_turn(&mut game);
    assert!(game.is_over());
}

#[test]
fn resigned_armies_stay_frozen_and_capturable() {
    let pieces = with_kings(&[
        ("d4", Seat::Red, Role::Elephant),
        ("d6", Seat::Blue, Role::Horse),
        ("c3", Seat::Yellow, Role::King),
    ]);
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.resign(Seat::Blue).expect("blue resigns off turn");
    assert_eq!(game.resign(Seat::Blue), Err(GameError::AlreadyResigned { seat: Seat::Blue }));
    game.roll_with([4, 2]).expect("roll");
    game.play(mv(0, "d4", "d6")).expect("capture a resigned piece");
    assert_eq!(game.scores().red, 3);
    // Blue's turn is skipped.
    assert_eq!(game.to_move(), Seat::Yellow);
    let events = game.resign(Seat::Yellow).expect("yellow resigns on turn");
    assert!(
        events.contains(&Event::TurnSkipped { seat: Seat::Blue }) || game.to_move() == Seat::Green
    );
    assert_eq!(game.to_move(), Seat::Green);
    assert_eq!(game.board().get(sq("h8")), Some(Piece { seat: Seat::Yellow, role: Role::King }));
    let events = game.resign(Seat::Green).expect("third resignation");
    assert!(events.iter().any(|e| matches!(e, Event::GameOver { .. })));
    let outcome = game.outcome().expect("over");
    assert_eq!(outcome.reason, EndReason::Resignations);
    assert_eq!(outcome.standings[0].seat, Seat::Red);
}

#[test]
fn time_out_discards_the_unused_dice() {
    let mut game = Game::new(Settings::default()).expect("valid");
    game.roll_with([1, 3]).expect("roll");
    game.play(mv(0, "a2", "a3")).expect("legal");
    let events = game.time_out().expect("time runs out");
    assert!(events.contains(&Event::DieDiscarded {
        die: 1,
        face: 3,
        reason: Unusable::TimeRanOut
    }));
    assert_eq!(game.phase(), Phase::Roll { seat: Seat::Blue });
}

#[test]
fn game_state_round_trips_through_json() {
    let mut game = Game::new(Settings::default()).expect("valid");
    game.roll_with([1, 3]).expect("roll");
    game.play(mv(0, "a2", "a3")).expect("legal");
    let json = serde_json::to_string(&game).expect("serialises");
    let back: Game = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(back, game);
    let error = serde_json::to_value(GameError::MustUseDice).expect("error serialises");
    assert_eq!(error["code"], "must_use_dice");
}

#[test]
fn legal_actions_list_moves_and_end_of_turn() {
    let mut game = Game::new(Settings::default()).expect("valid");
    assert!(game.legal_actions().is_empty(), "the table rolls");
    game.roll_with([3, 3]).expect("roll");
    let actions = game.legal_actions();
    assert_eq!(actions.last(), Some(&Action::EndTurn));
    assert_eq!(actions.len(), game.legal_moves().len() + 1);
    let must = Settings { dice_use: DiceUse::MustUseAll, ..Settings::default() };
    let mut game = Game::new(must).expect("valid");
    game.roll_with([3, 3]).expect("roll");
    assert!(!game.legal_actions().contains(&Action::EndTurn));
}

#[test]
fn chaturaji_keeps_a_score_already_above_54() {
    let pieces = [
        ("a1", Seat::Red, Role::King),
        ("e1", Seat::Red, Role::Elephant),
        ("e3", Seat::Blue, Role::King),
        ("e5", Seat::Yellow, Role::King),
        ("e8", Seat::Green, Role::King),
    ];
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.kings_taken[Seat::Red][Seat::Blue] = true;
    game.kings_taken[Seat::Red][Seat::Yellow] = true;
    game.board.set(sq("e3"), None);
    game.board.set(sq("e5"), None);
    game.scores[Seat::Red] = 60;
    game.roll_with([4, 2]).expect("roll");
    let events = game.play(mv(0, "e1", "e8")).expect("takes the last king");
    assert!(events.contains(&Event::Chaturaji { seat: Seat::Red, points: 65 }));
    assert_eq!(game.scores().red, 65);
}

#[test]
fn actions_have_a_stable_json_form() {
    let action = Action::Move(mv(1, "a2", "a3"));
    let json = serde_json::to_string(&action).expect("serialises");
    assert_eq!(json, r#"{"t":"move","die":1,"from":"a2","to":"a3"}"#);
    assert_eq!(serde_json::from_str::<Action>(&json).expect("parses"), action);
    let roll = serde_json::to_string(&Action::Roll { dice: [3, 6] }).expect("serialises");
    assert_eq!(roll, r#"{"t":"roll","dice":[3,6]}"#);
    let resign = serde_json::to_string(&Action::Resign { seat: Seat::Green }).expect("serialises");
    assert_eq!(resign, r#"{"t":"resign","seat":"green"}"#);
}

#[test]
fn a_third_seats_capture_can_complete_another_seats_chaturaji() {
    // Red takes Blue's and Yellow's kings, then one of Green's two kings; kingless Yellow then
    // takes Green's last king. Red personally took a king of every rival and kept its own.
    let pieces = [
        ("a1", Seat::Red, Role::King),
        ("c3", Seat::Red, Role::Elephant),
        ("c6", Seat::Blue, Role::King),
        ("f6", Seat::Yellow, Role::King),
        ("h4", Seat::Yellow, Role::Elephant),
        ("f8", Seat::Green, Role::King),
        ("h1", Seat::Green, Role::King),
    ];
    let mut game = position(&pieces, Seat::Red, Settings::default());
    game.roll_with([4, 4]).expect("roll");
    game.play(mv(0, "c3", "c6")).expect("takes Blue's king");
    game.play(mv(1, "c6", "f6")).expect("takes Yellow's king");
    // Blue has no piece left and is skipped; Yellow and Green have no boat.
    assert_eq!(game.to_move(), Seat::Yellow);
    game.roll_with([2, 2]).expect("yellow cannot move");
    game.roll_with([2, 2]).expect("green cannot move");
    assert_eq!(game.to_move(), Seat::Red);
    game.roll_with([4, 2]).expect("roll");
    game.play(mv(0, "f6", "f8")).expect("takes one of Green's kings");
    assert!(!game.is_over(), "Green still has a king");
    assert_eq!(game.to_move(), Seat::Yellow);
    game.roll_with([4, 2]).expect("roll");
    let events = game.play(mv(0, "h4", "h1")).expect("Yellow takes Green's last king");
    assert!(events.contains(&Event::Chaturaji { seat: Seat::Red, points: 54 }), "{events:?}");
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::Chaturaji { seat: Seat::Red }));
    assert_eq!(game.scores().red, 54);
    assert_eq!(game.scores().yellow, 5);
}

#[test]
fn the_no_capture_end_happens_in_the_last_round_played() {
    let settings = Settings { no_capture_rounds: 12, ..Settings::default() };
    let mut game = Game::new(settings).expect("valid");
    for _ in 0..4 * 12 {
        pass_turn(&mut game);
    }
    assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::NoCaptures));
    assert_eq!(game.round(), 12, "12 rounds were played");
}

#[test]
fn rounds_start_with_the_first_mover_of_a_custom_position() {
    // Settings say Red first, but the position starts with Blue: round 1 is Blue, Yellow, Green,
    // Red.
    let mut game = position(&kings(), Seat::Blue, Settings::default());
    for (seat, round) in [(Seat::Yellow, 1), (Seat::Green, 1), (Seat::Red, 1), (Seat::Blue, 2)] {
        pass_turn(&mut game);
        assert_eq!((game.to_move(), game.round()), (seat, round));
    }
    // The state round-trips with that seat; a default game's JSON has no extra field.
    let json = serde_json::to_string(&game).expect("serialises");
    assert_eq!(serde_json::from_str::<Game>(&json).expect("parses"), game);
    let plain =
        serde_json::to_string(&Game::new(Settings::default()).expect("valid")).expect("serialises");
    assert!(!plain.contains("round_start"), "{plain}");
}
