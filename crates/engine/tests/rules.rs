//! One group of tests per section of rules/maharajah.md and rules/horde.md.
#![allow(clippy::unwrap_used)]

use maharajah_engine::{
    start_position, Army, ArmyRule, Color, DrawReason, Game, Move, Outcome, Position, Role, Square,
    StartError, Status, Variant, WinReason,
};

fn mh(fen: &str) -> Position {
    Position::from_fen(Variant::Maharajah, fen).unwrap()
}

fn uci(s: &str) -> Move {
    s.parse().unwrap()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn play(pos: Position, moves: &[&str]) -> Position {
    moves.iter().fold(pos, |p, m| p.play(uci(m)).unwrap())
}

fn has(pos: &Position, m: &str) -> bool {
    pos.legal_moves().contains(&uci(m))
}

// §1 Compound pieces -------------------------------------------------------------------------

#[test]
fn compound_pieces_move_as_unions_of_their_parts() {
    // Lone pieces on d4 with kings in the corners: queen 27 + knight 8 = 35 for the Maharajah.
    for (letter, expected) in [('M', 27 + 8), ('C', 14 + 8), ('A', 13 + 8)] {
        let pos = mh(&format!("8/7k/8/8/3{letter}4/8/8/K7 w - - 0 1"));
        let from_d4 = pos.legal_moves().iter().filter(|m| m.from == sq("d4")).count();
        // The a1 king blocks one diagonal square for M and A (a1 itself).
        let blocked = usize::from(letter != 'C');
        assert_eq!(from_d4, expected - blocked, "{letter}");
    }
    // Sliding parts are blocked; the knight part leaps.
    let pos = mh("7k/8/8/8/8/2PPP3/2PMP3/4K3 w - - 0 1");
    let from_d2: Vec<Square> =
        pos.legal_moves().iter().filter(|m| m.from == sq("d2")).map(|m| m.to).collect();
    assert!(
        from_d2.contains(&sq("c4")) && from_d2.contains(&sq("e4")) && from_d2.contains(&sq("b1"))
    );
    assert!(!from_d2.contains(&sq("d4")) && !from_d2.contains(&sq("b4")));
}

#[test]
fn compound_pieces_give_check_with_both_parts() {
    assert!(mh("4k3/8/3A4/8/8/8/8/4K3 b - - 0 1").is_check()); // knight part
    assert!(mh("4k3/8/8/1A6/8/8/8/4K3 b - - 0 1").is_check()); // bishop part
    assert!(!mh("4k3/8/8/8/8/8/8/4KC2 b - - 0 1").is_check());
    assert!(mh("4k3/8/8/8/4C3/8/8/4K3 b - - 0 1").is_check()); // rook part
    assert!(!mh("4k3/8/8/8/8/8/8/M3K3 b - - 0 1").is_check());
    assert!(mh("4k3/8/8/8/M7/8/8/4K3 b - - 0 1").is_check()); // diagonal a4-e8
}

// §4 Status ----------------------------------------------------------------------------------

#[test]
fn status_follows_each_sides_starting_material() {
    let pos = mh("rq1mk1aa/8/8/8/8/8/8/QPPRKRNQ w - - 0 1");
    assert_eq!(pos.rules().side(Color::White).status, Some(Status::Classic));
    assert_eq!(pos.rules().side(Color::Black).status, Some(Status::Variant));
    // Promoting to a compound piece later does not change a classic side's status.
    let pos = mh("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let promotions: Vec<Role> = pos.legal_moves().iter().filter_map(|m| m.promotion).collect();
    assert_eq!(promotions, vec![Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);
}

#[test]
fn castling_in_a_mixed_game() {
    // White classic (orthodox pieces only) may castle; Black plays the variant and never castles.
    let pos = mh("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    assert!(has(&pos, "e1g1") && has(&pos, "e1c1"), "orthodox pieces: both sides classic");
    let mixed = mh("r3k2r/ppppmppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    assert_eq!(mixed.rules().side(Color::Black).status, Some(Status::Variant));
    assert!(has(&mixed, "e1g1") && has(&mixed, "e1c1"), "classic White castles in a mixed game");
    assert_eq!(mixed.castling_rights().0 & 0b1100, 0, "variant Black has no castling rights");
    let after = play(mixed, &["e1g1"]);
    assert_eq!(after.piece_at(sq("f1")).map(|p| p.role), Some(Role::Rook));
    assert_eq!(after.piece_at(sq("g1")).map(|p| p.role), Some(Role::King));
    assert!(!has(&after, "e8g8") && !has(&after, "e8c8"));
    // The usual conditions: no castling through an attacked square.
    let attacked = mh("r3k2r/pppppppp/8/8/8/5c2/PPPPP1PP/R3K2R w KQkq - 0 1");
    assert!(!has(&attacked, "e1g1"), "f1 is attacked by the chancellor's rook part");
    // A variant side never castles even with king and rook at home.
    let variant = mh("rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RN1AK2R w KQkq - 0 1");
    assert!(!has(&variant, "e1g1"));
}

#[test]
fn promotion_sets_follow_the_promoting_side() {
    let pos = mh("4k3/P7/8/8/8/8/8/A3K3 w - - 0 1");
    let promos: Vec<Role> = pos.legal_moves().iter().filter_map(|m| m.promotion).collect();
    assert_eq!(promos.len(), 7);
    for r in [Role::Maharajah, Role::Chancellor, Role::Archbishop] {
        assert!(promos.contains(&r));
    }
    let after = play(pos, &["a7a8m"]);
    assert_eq!(after.piece_at(sq("a8")).map(|p| p.role), Some(Role::Maharajah));
    assert!(after.is_check());
    // Chess and Horde promote to the orthodox four only.
    let chess = Position::from_fen(Variant::Chess, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    assert_eq!(chess.legal_moves().iter().filter(|m| m.promotion.is_some()).count(), 4);
    assert!(chess.clone().play(uci("a7a8m")).is_err());
}

#[test]
fn classic_pawn_on_rank_one_may_not_double_step() {
    // White classic with a pawn on a1; Black variant.
    let pos = mh("m3k3/8/8/8/8/8/8/P3K3 w - - 0 1");
    assert_eq!(pos.rules().side(Color::White).status, Some(Status::Classic));
    assert!(has(&pos, "a1a2") && !has(&pos, "a1a3"));
    // After stepping to rank 2 it has used its first move.
    let pos = play(pos, &["a1a2", "a8b8"]);
    assert!(has(&pos, "a2a3") && !has(&pos, "a2a4"));
    // A classic pawn that started on rank 2 may.
    let pos = mh("m3k3/8/8/8/8/8/P7/4K3 w - - 0 1");
    assert!(has(&pos, "a2a4"));
}

#[test]
fn variant_pawn_double_steps_from_its_start_square_once() {
    // White variant pawns on b1 (rank 1) and c3 (rank 3).
    let pos = mh("4k3/8/8/8/8/2P5/8/AP2K3 w - - 0 1");
    assert!(has(&pos, "b1b3") && has(&pos, "c3c5"));
    // After one step the right is gone, even on another pawn's starting rank.
    let pos = play(pos, &["b1b2", "e8d8"]);
    assert!(has(&pos, "b2b3") && !has(&pos, "b2b4"));
    // Moved pawns leave the unmoved set.
    let pos = mh("4k3/8/8/8/8/8/8/P1P1K2A w - - 0 1");
    let pos = play(pos, &["c1c3", "e8d8", "a1a2", "d8e8"]);
    assert!(!pos.unmoved_pawns().contains(sq("c1")) && !pos.unmoved_pawns().contains(sq("a2")));
    assert!(!has(&pos, "a2a4"));
}

#[test]
fn recapturing_pawn_on_a_vacated_start_square_has_no_double_step() {
    // White c1 pawn (unmoved) captures onto d2, the start square of a pawn that has left.
    let pos = mh("4k3/8/8/8/8/8/3n4/2P1K2A w - - 0 1 vv c1");
    assert!(has(&pos, "c1d2"));
    let pos = play(pos, &["c1d2", "e8d8"]);
    assert!(has(&pos, "d2d3") && !has(&pos, "d2d4"), "the capturing pawn has moved");
}

#[test]
fn en_passant_after_any_double_step() {
    // Variant White pawn double-steps from rank 1: b1-b3; Black pawn on c3 takes en passant on b2.
    let pos = mh("4k3/8/8/8/8/2p5/8/AP2K3 w - - 0 1 vv b1");
    let pos = play(pos, &["b1b3"]);
    assert_eq!(pos.ep_square(), Some(sq("b2")));
    assert!(has(&pos, "c3b2"));
    let after = play(pos.clone(), &["c3b2"]);
    assert!(after.piece_at(sq("b3")).is_none(), "the double-stepped pawn is captured");
    // Only on the very next move.
    let pos = play(pos, &["e8d8", "a1c2"]);
    assert!(!has(&pos, "c3b2"));
    // Black variant pawn from rank 8: g8-g6, White h6 takes on g7.
    let pos = mh("4k1p1/8/7P/8/8/8/8/A3K3 b - - 0 1 vv g8");
    let pos = play(pos, &["g8g6"]);
    assert!(has(&pos, "h6g7"));
}

#[test]
fn en_passant_square_only_when_the_capture_is_legal() {
    // b5xc6 would expose the a5 king to the h5 rook: no en-passant square, same hash as a
    // position reached without the double step.
    let pos = Position::from_fen(Variant::Chess, "4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1").unwrap();
    let after = play(pos, &["c7c5"]);
    assert_eq!(after.ep_square(), None);
    assert!(after.to_string().contains(" w - - 0 2"), "{after}");
    let direct = Position::from_fen(Variant::Chess, "4k3/8/8/KPp4r/8/8/8/8 w - - 0 2").unwrap();
    assert_eq!(after.hash(), direct.hash());
    // Without the pin the square is kept and the capture is legal.
    let pos = Position::from_fen(Variant::Chess, "4k3/2p5/8/1P5r/8/8/8/K7 b - - 0 1").unwrap();
    let after = play(pos, &["c7c5"]);
    assert_eq!(after.ep_square(), Some(sq("c6")));
    assert!(has(&after, "b5c6"));
}

#[test]
fn horde_rank_one_double_step_has_no_en_passant() {
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/1p6/8/P7 w - - 0 1").unwrap();
    let pos = play(pos, &["a1a3"]);
    assert_eq!(pos.ep_square(), None);
    assert!(!has(&pos, "b3a2"));
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/1p6/8/P7/8 w - - 0 1").unwrap();
    let pos = play(pos, &["a2a4"]);
    assert!(has(&pos, "b4a3"));
    // A Horde pawn that stepped from rank 1 to rank 2 may still double-step (rank rule).
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/8/8/P7 w - - 0 1").unwrap();
    let pos = play(pos, &["a1a2", "e8d8"]);
    assert!(has(&pos, "a2a4"));
}

#[test]
fn fen_en_passant_square_must_follow_the_movers_double_step_rule() {
    // Chess: a white pawn on e6 cannot have double-stepped from e4; the square is dropped.
    let pos = Position::from_fen(Variant::Chess, "4k3/8/3pP3/8/8/8/8/4K3 b - e5 0 1").unwrap();
    assert_eq!(pos.ep_square(), None);
    assert_eq!(pos.legal_moves().len(), 4, "no d6e5");
    assert!(!has(&pos, "d6e5"));
    // The square of a real double step is kept.
    let pos = Position::from_fen(Variant::Chess, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
    assert_eq!(pos.ep_square(), Some(sq("d6")));
    // Horde: a double step from rank 1 allows no en passant, from rank 2 it does.
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/3pP3/8/8 b - e2 0 1").unwrap();
    assert_eq!(pos.ep_square(), None);
    assert!(!has(&pos, "d3e2"));
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/3pP3/8/8/8 b - e3 0 1").unwrap();
    assert!(has(&pos, "d4e3"));
    // A classic Maharajah side double-steps only from rank 2, a variant side from any square
    // where its pawns may start.
    let classic = "4k3/8/8/8/8/3pP3/8/R5K1 b - e2 0 1 cv -";
    assert_eq!(mh(classic).ep_square(), None);
    let variant = "4k3/8/8/8/8/3pP3/8/A5K1 b - e2 0 1 vc -";
    assert_eq!(mh(variant).ep_square(), Some(sq("e2")), "a variant pawn may start on rank 1");
    // ... but only in its own half: no white pawn starts on e5, no black pawn on e4.
    let far = "4k3/3pP3/8/8/8/8/8/A3K3 b - e6 0 1 vv -";
    assert_eq!(mh(far).ep_square(), None);
    let black = "4k3/8/8/8/8/8/3Pp3/A3K3 w - e3 0 2 vv -";
    assert_eq!(mh(black).ep_square(), None);
}

// §2–3 Armies and start validation ------------------------------------------------------------

#[test]
fn orthodox_army_is_legal_and_gives_standard_rules() {
    let w = Army::orthodox(Color::White);
    let b = Army::orthodox(Color::Black);
    assert_eq!(w.points_spent(), 39);
    assert!(w.validate().is_ok() && b.validate().is_ok());
    assert_eq!(w.mirrored(), b);
    assert_eq!(w.to_string(), "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR");
    assert!("8/8/8/8/8/8/PPPPPPPP/RNBQKBNr".parse::<Army>().is_err());
    let pos = start_position(&w, &b).unwrap();
    assert_eq!(pos.rules().variant, Variant::Chess);
    assert_eq!(pos.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

#[test]
fn army_refusals_name_rule_and_squares() {
    let mut w = Army::orthodox(Color::White);
    w.set(sq("d1"), Some(Role::Maharajah)); // 39 - 9 + 13 = 43
    let e = w.validate().unwrap_err();
    assert_eq!(e.rule, ArmyRule::Budget { spent: 43 });
    assert_eq!(e.to_string(), "White spends 43 of 39 points");

    let mut b = Army::orthodox(Color::Black);
    b.set(sq("a7"), None);
    b.set(sq("h7"), None);
    b.set(sq("f6"), Some(Role::Pawn));
    b.set(sq("e6"), Some(Role::Pawn));
    let e = b.validate().unwrap_err();
    assert_eq!(e.rule, ArmyRule::FillFromHome { rank: 7 });
    assert_eq!(e.to_string(), "Black: pieces on e6, f6 while rank 7 has empty squares: a7, h7");

    let mut w = Army::orthodox(Color::White);
    w.set(sq("e1"), None);
    w.set(sq("d1"), Some(Role::King));
    w.set(sq("e2"), Some(Role::Queen));
    let errs = w.errors();
    assert!(errs.iter().any(|e| e.rule == ArmyRule::King && e.squares == vec![sq("d1")]));

    let mut w = Army::new(Color::White);
    w.set(sq("a5"), Some(Role::Pawn));
    assert!(w.errors().iter().any(|e| e.rule == ArmyRule::OwnHalf && e.squares == vec![sq("a5")]));
}

#[test]
fn army_errors_name_the_squares_in_plain_words() {
    let mut b = Army::new(Color::Black);
    b.set(sq("e4"), Some(Role::Pawn));
    let own_half = b.errors().into_iter().find(|e| e.rule == ArmyRule::OwnHalf).unwrap();
    assert_eq!(own_half.to_string(), "Black: piece on e4 outside ranks 5-8");
    b.set(sq("d4"), Some(Role::Pawn));
    let own_half = b.errors().into_iter().find(|e| e.rule == ArmyRule::OwnHalf).unwrap();
    assert_eq!(own_half.to_string(), "Black: pieces on d4, e4 outside ranks 5-8");
}

#[test]
fn six_field_maharajah_fen_is_a_position_not_a_checked_start() {
    // 42 points for White: read as a position (no start rules), refused as a start.
    let pos = mh("rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBAN w kq - 0 1");
    assert_eq!(pos.rules().side(Color::White).status, Some(Status::Variant));
    let err = maharajah_engine::army::check_start(&pos).unwrap_err();
    assert_eq!(err.to_string(), "White spends 42 of 39 points");
    // A legal army start passes.
    let pos = mh("rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1");
    assert_eq!(maharajah_engine::army::check_start(&pos), Ok(()));
}

#[test]
fn thirty_nine_pawns_never_fit() {
    let mut w = Army::new(Color::White);
    for s in Square::all().filter(|s| s.rank() < 4 && *s != Square::E1) {
        w.set(s, Some(Role::Pawn));
    }
    assert_eq!(w.points_spent(), 31);
    assert!(w.placeable_squares().is_empty());
    assert!(w.errors().iter().any(|e| e.rule == ArmyRule::Budget { spent: 31 }));
}

#[test]
fn builder_helpers() {
    let mut w = Army::new(Color::White);
    assert_eq!(w.points_left(), 39);
    assert_eq!(w.placeable_squares().count(), 7);
    assert_eq!(w.status(), Status::Classic);
    w.set(sq("a1"), Some(Role::Archbishop));
    assert_eq!(w.points_left(), 33);
    assert_eq!(w.status(), Status::Variant);
    let b = Army::new(Color::Black);
    assert!(b.placeable_squares().contains(sq("a8")));
    assert!(!b.placeable_squares().contains(sq("a7")));
}

#[test]
fn random_armies_are_legal_and_reproducible() {
    use rand::SeedableRng;
    for seed in 0..300u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let w = Army::random(Color::White, &mut rng);
        assert_eq!(w.validate(), Ok(()), "seed {seed}: {w:?}");
        let b = Army::random(Color::Black, &mut rng);
        assert_eq!(b.validate(), Ok(()), "seed {seed}");
        assert!(w.mirrored().validate().is_ok());
        assert_eq!(w.to_string().parse::<Army>(), Ok(w.clone()));
        assert_eq!(b.to_string().parse::<Army>(), Ok(b.clone()));
        let mut again = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        assert_eq!(Army::random(Color::White, &mut again), w);
    }
}

fn army(color: Color, pieces: &[(&str, Role)]) -> Army {
    let mut a = Army::new(color);
    for (s, r) in pieces {
        a.set(sq(s), Some(*r));
    }
    a
}

#[test]
fn mixed_start_gets_statuses_and_classic_castling() {
    use Role::*;
    // White variant: 7 pawns on rank 1, then M Q C P P on rank 2 (7 + 13 + 9 + 8 + 2 = 39).
    let w = army(
        Color::White,
        &[
            ("a1", Pawn),
            ("b1", Pawn),
            ("c1", Pawn),
            ("d1", Pawn),
            ("f1", Pawn),
            ("g1", Pawn),
            ("h1", Pawn),
            ("a2", Maharajah),
            ("b2", Queen),
            ("c2", Chancellor),
            ("d2", Pawn),
            ("e2", Pawn),
        ],
    );
    assert_eq!(w.validate(), Ok(()));
    let pos = start_position(&w, &Army::orthodox(Color::Black)).unwrap();
    assert_eq!(pos.rules().variant, Variant::Maharajah);
    assert_eq!(pos.rules().side(Color::White).status, Some(Status::Variant));
    assert_eq!(pos.rules().side(Color::Black).status, Some(Status::Classic));
    assert!(
        pos.castling_rights().has(Color::Black, true)
            && pos.castling_rights().has(Color::Black, false)
    );
    assert_eq!(pos.unmoved_pawns().count(), 9 + 8, "every white pawn and Black's rank-7 pawns");
    // The extended FEN carries it all and reads back the same position.
    let again = Position::from_fen(Variant::Maharajah, &pos.to_string()).unwrap();
    assert_eq!(again, pos);
}

#[test]
fn start_refuses_a_king_in_check() {
    use Role::*;
    // White chancellor on e2 looks up an open e-file at the black king.
    let w = army(
        Color::White,
        &[
            ("a1", Pawn),
            ("b1", Pawn),
            ("c1", Pawn),
            ("d1", Pawn),
            ("f1", Pawn),
            ("g1", Pawn),
            ("h1", Pawn),
            ("a2", Queen),
            ("b2", Queen),
            ("c2", Knight),
            ("d2", Bishop),
            ("e2", Chancellor),
        ],
    );
    assert_eq!(w.validate(), Ok(()));
    let b = army(
        Color::Black,
        &[
            ("a8", Maharajah),
            ("b8", Pawn),
            ("c8", Pawn),
            ("d8", Pawn),
            ("f8", Pawn),
            ("g8", Queen),
            ("h8", Queen),
            ("a7", Pawn),
            ("b7", Pawn),
            ("c7", Pawn),
            ("d7", Pawn),
        ],
    );
    assert_eq!(b.validate(), Ok(()));
    match start_position(&w, &b) {
        Err(StartError::InCheck { color: Color::Black, checkers }) => {
            assert_eq!(checkers, vec![sq("e2")])
        }
        other => panic!("expected a check refusal, got {other:?}"),
    }
    // Both armies' faults are listed together.
    let mut bad = Army::orthodox(Color::White);
    bad.set(sq("a1"), Some(Maharajah));
    match start_position(&bad, &Army::orthodox(Color::White)) {
        Err(StartError::Army(errors)) => {
            assert!(errors.iter().any(|e| e.rule == ArmyRule::Budget { spent: 47 }));
            assert!(errors
                .iter()
                .any(|e| e.rule == ArmyRule::WrongColor && e.color == Color::Black));
        }
        other => panic!("expected army errors, got {other:?}"),
    }
}

// §6 Game end ---------------------------------------------------------------------------------

#[test]
fn checkmate_and_stalemate() {
    let mate = mh("4k3/8/4K3/8/8/8/8/M7 w - - 0 1");
    let after = play(mate, &["a1a8"]);
    assert_eq!(
        after.outcome(),
        Some(Outcome::Decisive { winner: Color::White, reason: WinReason::Checkmate })
    );
    let stale = Position::from_fen(Variant::Chess, "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1").unwrap();
    assert_eq!(stale.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
}

#[test]
fn insufficient_material_and_mating_material() {
    let chess = |fen: &str| Position::from_fen(Variant::Chess, fen).unwrap();
    assert!(chess("4k3/8/8/8/8/8/8/4K3 w - - 0 1").is_insufficient_material());
    assert!(chess("4k3/8/8/8/8/8/8/4KN2 w - - 0 1").is_insufficient_material());
    assert!(
        chess("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1").is_insufficient_material(),
        "same-coloured bishops"
    );
    assert!(!chess("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1").is_insufficient_material());
    assert!(!chess("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1").is_insufficient_material());
    for letter in ['A', 'C', 'M'] {
        let pos = mh(&format!("4k3/8/8/8/8/8/8/{letter}3K3 w - - 0 1"));
        assert!(!pos.is_insufficient_material(), "{letter} alone can mate");
        assert!(pos.has_mating_material(Color::White));
    }
    let pos = mh("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1");
    assert!(!pos.has_mating_material(Color::White) && !pos.has_mating_material(Color::Black));
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial }));
}

#[test]
fn move_count_rules() {
    let fifty = Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/8/R3K3 w - - 100 80").unwrap();
    let game = Game::new(fifty.clone());
    assert_eq!(game.outcome(), None);
    assert_eq!(game.claimable_draw(), Some(DrawReason::FiftyMoves));
    let seventy_five =
        Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/8/R3K3 w - - 150 100").unwrap();
    assert_eq!(
        seventy_five.outcome(),
        Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves })
    );
    // Checkmate on the 75th move still wins.
    let mate = Position::from_fen(Variant::Chess, "k7/8/1K6/8/8/8/8/7R w - - 149 100").unwrap();
    let mate = play(mate, &["h1h8"]);
    assert_eq!(
        mate.outcome(),
        Some(Outcome::Decisive { winner: Color::White, reason: WinReason::Checkmate })
    );
}

#[test]
fn repetition_threefold_claimable_fivefold_automatic() {
    let mut game = Game::new(Position::new(Variant::Chess));
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for _ in 0..2 {
        for m in cycle {
            game.play(uci(m)).unwrap();
        }
    }
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.claimable_draw(), Some(DrawReason::ThreefoldRepetition));
    assert_eq!(game.outcome(), None);
    for _ in 0..2 {
        for m in cycle {
            game.play(uci(m)).unwrap();
        }
    }
    assert_eq!(game.outcome(), Some(Outcome::Draw { reason: DrawReason::FivefoldRepetition }));
    assert!(game.play(uci("e2e4")).is_err(), "a finished game takes no moves");
    assert_eq!(game.undo(), Some(uci("f6g8")));
    assert_eq!(game.outcome(), None);
}

// Horde -----------------------------------------------------------------------------------------

#[test]
fn horde_rules() {
    let start = Position::new(Variant::Horde);
    assert_eq!(start.king_of(Color::White), None);
    assert!(!start.is_check());
    assert_eq!(start.legal_moves().len(), 8);
    // Black wins by capturing the last white piece.
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/8/1q6/P7 b - - 0 1").unwrap();
    let pos = play(pos, &["b2a1"]);
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Decisive { winner: Color::Black, reason: WinReason::AllPiecesCaptured })
    );
    // Not while White still has a promoted piece.
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/8/1q6/P6Q b - - 0 1").unwrap();
    assert_eq!(play(pos, &["b2a1"]).outcome(), None);
    // Blocked pawns, no White move: stalemate.
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/p7/P7/8 w - - 0 1").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
    // White wins by mate; Black castles normally.
    let pos = Position::from_fen(Variant::Horde, "r3k2r/8/8/8/8/8/8/PPPPPPPP b kq - 0 1").unwrap();
    assert!(has(&pos, "e8g8") && has(&pos, "e8c8"));
    // No insufficient-material draw in Horde.
    let pos = Position::from_fen(Variant::Horde, "4k3/8/8/8/8/8/8/P7 w - - 0 1").unwrap();
    assert!(!pos.is_insufficient_material());
}
