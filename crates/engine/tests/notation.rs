//! FEN, SAN, UCI and PGN examples (rules/maharajah.md §7).
#![allow(clippy::unwrap_used)]

use maharajah_engine::{
    from_pgn, to_pgn, Color, FenError, Game, Move, PgnTags, Position, Role, SanError, Status,
    Variant,
};

fn mh(fen: &str) -> Position {
    Position::from_fen(Variant::Maharajah, fen).unwrap()
}

#[test]
fn fen_letters_and_extended_fields() {
    let fen = "m2ck1rm/8/8/8/8/8/1PPP2P1/PNPRKMNQ w - - 0 1";
    let pos = mh(fen);
    assert_eq!(pos.plain_fen(), fen);
    // Plain 6-field FEN = start position: every White pawn unmoved, both sides variant.
    assert_eq!(pos.to_string(), format!("{fen} vv a1c1b2c2d2g2"));
    // Extended FEN round-trips, including a classic side and a pawn that has moved.
    let ext = "4k3/p7/8/8/8/8/1P6/P3K2M w - - 0 1 vc b2";
    let pos = mh(ext);
    assert_eq!(pos.to_string(), "4k3/p7/8/8/8/8/1P6/P3K2M w - - 0 1 vc b2");
    assert!(!pos.legal_moves().contains(&"a1a3".parse().unwrap()));
    // The classic black a7 pawn was not listed: it may not double-step.
    let pos = pos.play("b2b3".parse().unwrap()).unwrap();
    assert!(!pos.legal_moves().contains(&"a7a5".parse().unwrap()));
    // Orthodox start in Maharajah = standard chess, plain FEN.
    let pos = mh("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(pos.rules().variant, Variant::Chess);
    assert_eq!(pos.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

#[test]
fn fairy_stockfish_variant_follows_each_sides_status() {
    // White variant (its pawns' squares, every promotion), Black classic (rank 7, Q R B N).
    let pos = mh("rnbqkbnr/pppppppp/8/8/8/8/1P6/P3K2M w kq - 0 1 vc a1b2a7b7c7d7e7f7g7h7");
    let ini = pos.fairy_stockfish_variant("mhgame1");
    assert!(ini.starts_with("[mhgame1:chess]\n"), "{ini}");
    for line in [
        "amazon = m",
        "chancellor = c",
        "archbishop = a",
        "promotionPieceTypesWhite = qrbnmca",
        "promotionPieceTypesBlack = qrbn",
        "doubleStepRegionWhite = a1 b2",
        "doubleStepRegionBlack = a7 b7 c7 d7 e7 f7 g7 h7",
    ] {
        assert!(ini.lines().any(|l| l == line), "{line} missing from {ini}");
    }
    // A side with no unmoved pawns has no double-step squares.
    let bare = mh("4k3/8/8/8/8/8/8/4K2M w - - 0 1 vv -");
    assert!(bare.fairy_stockfish_variant("x").contains("doubleStepRegionWhite = -\n"));
}

#[test]
fn fen_refusals() {
    let bad = |fen: &str| Position::from_fen(Variant::Maharajah, fen).unwrap_err();
    assert!(matches!(bad("8/8/8/8/8/8/8/8 w - - 0 1"), FenError::Illegal(_)));
    assert!(matches!(bad("4k3/8/8/8/8/8/8/4K3 x - - 0 1"), FenError::Turn(_)));
    assert!(matches!(bad("4k3/8/8/8/8/8/8/4K2Z w - - 0 1"), FenError::Board(_)));
    assert!(matches!(bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 vx -"), FenError::Status(_)));
    assert!(matches!(bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 vv a2"), FenError::Unmoved(_)));
    assert!(matches!(bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 vv"), FenError::FieldCount(7)));
    assert!(matches!(bad("P3k3/8/8/8/8/8/8/4K3 w - - 0 1"), FenError::Illegal(_)));
    assert!(matches!(bad("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"), FenError::Illegal(_)));
    assert!(matches!(bad("4k3/9/8/8/8/8/8/4K3 w - - 0 1"), FenError::Board(_)));
}

#[test]
fn uci_moves() {
    let mv: Move = "e7e8m".parse().unwrap();
    assert_eq!(mv.promotion, Some(Role::Maharajah));
    assert_eq!(mv.to_string(), "e7e8m");
    assert!("e7e8k".parse::<Move>().is_err());
    assert!("e9e8".parse::<Move>().is_err());
    assert!("".parse::<Move>().is_err());
}

#[test]
fn san_letters_disambiguation_and_suffixes() {
    let pos = mh("4k3/1P6/8/8/8/8/8/CC2K1A1 w - - 0 1");
    let m = |s: &str| s.parse::<Move>().unwrap();
    // Both chancellors reach b3? a1 knight-leaps to b3, b1 slides to b3: disambiguate by file.
    assert_eq!(pos.san(m("a1b3")), "Cab3");
    assert_eq!(pos.san(m("b1b3")), "Cbb3");
    assert_eq!(pos.san(m("g1f3")), "Af3");
    assert_eq!(pos.san(m("b7b8a")), "b8=A");
    assert_eq!(pos.san(m("b7b8c")), "b8=C+");
    assert_eq!(pos.parse_san("b8=M+"), Ok(m("b7b8m")));
    assert_eq!(pos.parse_san("b8M"), Ok(m("b7b8m")));
    assert_eq!(pos.parse_san("Cab3"), Ok(m("a1b3")));
    assert!(matches!(pos.parse_san("Cb3"), Err(SanError::Ambiguous(_))));
    assert!(matches!(pos.parse_san("Qd4"), Err(SanError::Illegal(_))));
    assert!(matches!(pos.parse_san("zz"), Err(SanError::Syntax(_))));
    // Mate suffix.
    let pos = mh("k7/8/1K6/8/8/8/8/7C w - - 0 1");
    assert_eq!(pos.san(m("h1h8")), "Ch8#");
    // Castling.
    let pos = Position::from_fen(Variant::Chess, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(pos.san(m("e1g1")), "O-O");
    assert_eq!(pos.san(m("e1c1")), "O-O-O");
    assert_eq!(pos.parse_san("0-0-0"), Ok(m("e1c1")));
}

#[test]
fn pgn_export_carries_variant_setup_and_fen() {
    let start = mh("rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1");
    let mut game = Game::new(start.clone());
    for s in ["Ab3", "e5", "Cxa7"] {
        let mv = game.position().parse_san(s).unwrap();
        game.play(mv).unwrap();
    }
    let tags = PgnTags { extra: vec![("White".into(), "Ana \"A\"".into())] };
    let text = to_pgn(&game, &tags);
    assert!(text.contains("[Variant \"Maharajah\"]"), "{text}");
    assert!(text.contains("[SetUp \"1\"]"), "{text}");
    assert!(text.contains(&format!("[FEN \"{start}\"]")), "{text}");
    assert!(text.contains("[White \"Ana \\\"A\\\"\"]"), "{text}");
    assert!(text.contains("1. Ab3 e5 2. Cxa7 *"), "{text}");
    let back = from_pgn(&text).unwrap();
    assert_eq!(back.game.moves(), game.moves());
    assert!(back.tags.contains(&("White".to_owned(), "Ana \"A\"".to_owned())));
    // A standard game has no Variant, SetUp or FEN tag.
    let chess = to_pgn(&Game::new(Position::new(Variant::Chess)), &PgnTags::default());
    assert!(!chess.contains("Variant") && !chess.contains("FEN"), "{chess}");
}

#[test]
fn pgn_import_tolerates_comments_nags_and_variations() {
    let text = r#"[Event "Casual"]
[Site "?"]
[Result "1-0"]

1. e4 {best by test} e5 $1 2. Qh5 (2. Nf3 Nc6 (2... d6) 3. Bb5) 2... Nc6?! ; a line comment
3. Bc4 Nf6?? 4. Qxf7# 1-0
"#;
    let pgn = from_pgn(text).unwrap();
    assert_eq!(pgn.game.moves().len(), 7);
    assert!(pgn.game.position().is_checkmate());
    assert!(from_pgn("1. e4 e5 2. Ke3").is_err());
    assert!(from_pgn("1. e4 { unterminated").is_err());
    assert!(from_pgn("[Variant \"Shogi\"]\n1. e4").is_err());
    // Horde from its own start.
    let horde = from_pgn("[Variant \"Horde\"]\n\n1. b6 axb6 *").unwrap();
    assert_eq!(horde.game.moves().len(), 2);
}

#[test]
fn pgn_writes_the_seven_tag_roster_first_in_order() {
    let game = Game::new(Position::new(Variant::Chess));
    let extra = [("TimeControl", "300+2"), ("Round", "3"), ("Black", "Bo"), ("Event", "Club")];
    let tags = PgnTags { extra: extra.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect() };
    let text = to_pgn(&game, &tags);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix('[').and_then(|l| l.split(' ').next()))
        .collect();
    assert_eq!(
        names,
        ["Event", "Site", "Date", "Round", "White", "Black", "Result", "TimeControl"],
        "{text}"
    );
    assert!(text.contains("[Event \"Club\"]\n[Site \"?\"]") && text.contains("[Round \"3\"]"));
    assert!(text.contains("[Black \"Bo\"]\n[Result \"*\"]\n[TimeControl \"300+2\"]"), "{text}");
}

#[test]
fn pgn_from_position_is_chess_from_the_fen_tag() {
    // As lichess exports a chess game from a set-up position.
    let text = r#"[Event "Casual"]
[Variant "From Position"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 *
"#;
    let pgn = from_pgn(text).unwrap();
    assert_eq!(pgn.game.start().rules().variant, Variant::Chess);
    assert_eq!(pgn.game.moves().len(), 2);
    assert_eq!(pgn.game.position().to_string(), "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2");
}

#[test]
fn classic_sides_that_play_like_chess_export_as_from_position() {
    // Two classic armies, no pawn on a home rank: chess rules exactly, so plain FEN.
    let pos = mh("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBRN w Qkq - 0 1");
    assert_eq!(pos.rules().side(Color::White).status, Some(Status::Classic));
    assert!(pos.is_plain_chess());
    let mut game = Game::new(pos.clone());
    for s in ["e4", "e5", "Ng3", "d5"] {
        let mv = game.position().parse_san(s).unwrap();
        game.play(mv).unwrap();
    }
    let text = to_pgn(&game, &PgnTags::default());
    assert!(text.contains("[Variant \"From Position\"]"), "{text}");
    assert!(text.contains(&format!("[FEN \"{}\"]", pos.plain_fen())), "{text}");
    assert!(!text.contains(" cc "), "plain six-field FEN: {text}");
    // It comes back as the Maharajah game it was...
    let back = from_pgn(&text).unwrap();
    assert_eq!(back.game.position(), game.position());
    // ... and, without our tag, as the same chess game (what lichess reads).
    let foreign = text.replace("[Maharajah \"cc\"]\n", "");
    let chess = from_pgn(&foreign).unwrap();
    assert_eq!(chess.game.start().rules().variant, Variant::Chess);
    assert_eq!(chess.game.position().plain_fen(), game.position().plain_fen());
    // A classic pawn on its home rank keeps the extended FEN (its double-step right differs).
    let rank_one = mh("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNP w Qkq - 0 1");
    assert!(!rank_one.is_plain_chess());
    let text = to_pgn(&Game::new(rank_one), &PgnTags::default());
    assert!(text.contains("[Variant \"Maharajah\"]"), "{text}");
    // A variant side never exports as chess.
    assert!(!mh("rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1").is_plain_chess());
}
