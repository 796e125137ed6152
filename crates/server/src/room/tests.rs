//! Unit tests of the room state machine, with time driven by hand.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::rooms::EVENT_RING;
use maharajah_protocol::army::commitment;

const W: &str = "wwww";
const B: &str = "bbbb";
const WHITE_ARMY: &str = "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
const BLACK_ARMY: &str = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";
const CUSTOM_WHITE: &str = "Pa1,Nb1,Bc1,Md1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";

fn options(variant: Variant, tc: Option<(u64, u64)>, hidden: bool) -> RoomOptions {
    RoomOptions {
        variant,
        time_control: tc.map(|(b, i)| TimeControl { base_ms: b, increment_ms: i }),
        hidden_setup: hidden,
        color: Some(Color::White),
    }
}

fn room(variant: Variant, tc: Option<(u64, u64)>, hidden: bool) -> Room {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let mut r = Room::new(
        code,
        &options(variant, tc, hidden),
        Color::White,
        W.into(),
        0,
        Lifetimes::default(),
    )
    .unwrap();
    assert_eq!(r.join(B.into(), 0).unwrap(), Color::Black);
    r
}

fn mv(r: &mut Room, token: &str, ply: u32, uci: &str, now: Millis) -> Result<Reply, RoomError> {
    r.act(token, Action::Move { ply, uci: uci.into() }, now)
}

fn code_of<T: std::fmt::Debug>(e: Result<T, RoomError>) -> ErrorCode {
    e.unwrap_err().code
}

fn events(r: &Room, after: u64) -> Vec<RoomEvent> {
    r.events_after(after)
        .unwrap()
        .into_iter()
        .map(|m| match m {
            ServerMsg::Event { event, .. } => event,
            other => panic!("not an event: {other:?}"),
        })
        .collect()
}

#[test]
fn a_short_game_with_every_kind_of_refusal() {
    let mut r = room(Variant::Chess, None, false);
    assert_eq!(r.phase(), Phase::Playing);
    assert_eq!(code_of(r.join("cccc".into(), 0)), ErrorCode::RoomFull);
    let seq0 = r.seq();
    assert_eq!(code_of(mv(&mut r, "forged", 0, "f2f3", 1)), ErrorCode::Forbidden);
    assert_eq!(code_of(mv(&mut r, B, 0, "e7e5", 1)), ErrorCode::NotYourTurn);
    assert_eq!(code_of(mv(&mut r, W, 1, "f2f3", 1)), ErrorCode::StalePly);
    assert_eq!(code_of(mv(&mut r, W, 0, "f2f5", 1)), ErrorCode::IllegalMove);
    assert_eq!(r.seq(), seq0, "refusals change nothing");
    let ack = mv(&mut r, W, 0, "f2f3", 1).unwrap();
    assert_eq!(ack, Reply::MoveAck { ply: 0, seq: seq0 + 1 });
    assert_eq!(mv(&mut r, W, 0, "f2f3", 2).unwrap(), ack, "a resent move is acknowledged again");
    assert_eq!(r.seq(), seq0 + 1);
    assert_eq!(code_of(mv(&mut r, W, 0, "g2g4", 2)), ErrorCode::StalePly);
    assert_eq!(code_of(mv(&mut r, B, 0, "f2f3", 2)), ErrorCode::StalePly, "not Black's move");
    mv(&mut r, B, 1, "e7e5", 3).unwrap();
    mv(&mut r, W, 2, "g2g4", 4).unwrap();
    mv(&mut r, B, 3, "d8h4", 5).unwrap();
    let result = GameResult { outcome: Outcome::BlackWins, reason: EndReason::Checkmate };
    assert_eq!(r.result(), Some(result));
    assert_eq!(code_of(mv(&mut r, W, 4, "a2a3", 6)), ErrorCode::GameOver);
    assert_eq!(mv(&mut r, B, 3, "d8h4", 6).unwrap(), Reply::MoveAck { ply: 3, seq: r.seq() - 1 });
    let last = events(&r, r.seq() - 1);
    assert_eq!(last, vec![RoomEvent::GameOver { result, clock: None }]);
    assert_eq!(r.snapshot(7).moves, ["f2f3", "e7e5", "g2g4", "d8h4"]);
}

#[test]
fn fischer_clock_and_flag_win() {
    let mut r = room(Variant::Chess, Some((10_000, 1_000)), false);
    mv(&mut r, W, 0, "e2e4", 2_000).unwrap();
    mv(&mut r, B, 1, "e7e5", 5_000).unwrap();
    let c = r.snapshot(5_000).clock.unwrap();
    assert_eq!((c.white_ms, c.black_ms, c.running), (9_000, 8_000, Some(Color::White)));
    // White's flag falls at 5_000 + 9_000; the room says when to wake up.
    assert_eq!(r.next_deadline(), 14_000);
    r.on_time(13_999);
    assert_eq!(r.result(), None);
    r.on_time(14_000);
    assert_eq!(
        r.result(),
        Some(GameResult { outcome: Outcome::BlackWins, reason: EndReason::Timeout })
    );
}

#[test]
fn a_late_move_loses_instead_of_being_accepted() {
    let mut r = room(Variant::Chess, Some((10_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    mv(&mut r, B, 1, "e7e5", 1_000).unwrap();
    assert_eq!(code_of(mv(&mut r, W, 2, "d2d4", 50_000)), ErrorCode::GameOver);
    assert_eq!(r.result().unwrap().reason, EndReason::Timeout);
    assert_eq!(r.snapshot(50_000).moves.len(), 2);
}

#[test]
fn flag_before_first_move_annuls() {
    let mut r = room(Variant::Chess, Some((5_000, 0)), false);
    r.on_time(5_000);
    let annulled =
        GameResult { outcome: Outcome::Annulled, reason: EndReason::TimeoutBeforeFirstMove };
    assert_eq!(r.result(), Some(annulled));

    // Black never makes a first move either.
    let mut r = room(Variant::Chess, Some((5_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    r.on_time(6_000);
    assert_eq!(r.result(), Some(annulled));
}

#[test]
fn flag_decision_table() {
    use Color::*;
    let annul =
        GameResult { outcome: Outcome::Annulled, reason: EndReason::TimeoutBeforeFirstMove };
    assert_eq!(flag_result(White, false, true), annul);
    assert_eq!(flag_result(Black, false, false), annul);
    assert_eq!(
        flag_result(White, true, false),
        GameResult { outcome: Outcome::Draw, reason: EndReason::TimeoutVsInsufficientMaterial }
    );
    assert_eq!(
        flag_result(White, true, true),
        GameResult { outcome: Outcome::BlackWins, reason: EndReason::Timeout }
    );
    assert_eq!(
        flag_result(Black, true, true),
        GameResult { outcome: Outcome::WhiteWins, reason: EndReason::Timeout }
    );
}

#[test]
fn one_pause_per_player_freezes_both_clocks() {
    let mut r = room(Variant::Chess, Some((60_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    let before = r.seq();
    r.act(W, Action::Pause, 2_000).unwrap();
    let ev = events(&r, before);
    let pause =
        PauseView { by: Color::White, reason: PauseReason::Requested, remaining_ms: PAUSE_MS };
    let frozen = ClockView { white_ms: 59_000, black_ms: 59_000, running: None };
    assert_eq!(ev, vec![RoomEvent::Paused { pause, clock: Some(frozen) }]);
    // Frozen: nothing runs, the countdown is shown, Black cannot move.
    let s = r.snapshot(32_000);
    assert_eq!(s.clock, Some(frozen));
    assert_eq!(s.pause.unwrap().remaining_ms, 30_000);
    assert_eq!(code_of(mv(&mut r, B, 1, "e7e5", 3_000)), ErrorCode::GamePaused);
    assert_eq!(code_of(r.act(B, Action::Resume, 3_000)), ErrorCode::NotPaused, "not Black's pause");
    assert_eq!(code_of(r.act(B, Action::Pause, 3_000)), ErrorCode::GamePaused);
    // Early resume by the pauser.
    r.act(W, Action::Resume, 12_000).unwrap();
    assert_eq!(r.snapshot(12_000).clock.unwrap().running, Some(Color::Black));
    assert_eq!(code_of(r.act(W, Action::Pause, 13_000)), ErrorCode::PauseUsed);
    // Black's pause ends by itself after 60 s.
    r.act(B, Action::Pause, 20_000).unwrap();
    assert_eq!(r.next_deadline(), 80_000);
    r.on_time(79_999);
    assert!(r.snapshot(79_999).pause.is_some());
    r.on_time(80_000);
    let s = r.snapshot(80_000);
    assert!(s.pause.is_none());
    assert_eq!(
        s.clock.unwrap(),
        ClockView { white_ms: 59_000, black_ms: 51_000, running: Some(Color::Black) }
    );
    assert!(!s.seats.white.pause_available && !s.seats.black.pause_available);
}

#[test]
fn untimed_games_have_no_pause() {
    let mut r = room(Variant::Chess, None, false);
    assert_eq!(code_of(r.act(W, Action::Pause, 0)), ErrorCode::NoClock);
}

#[test]
fn disconnect_shield_then_the_clock_runs() {
    let mut r = room(Variant::Chess, Some((100_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    mv(&mut r, B, 1, "e7e5", 2_000).unwrap();
    // White (to move) drops: the shield pauses for White.
    r.disconnect(Color::White, 3_000);
    let s = r.snapshot(3_000);
    assert_eq!(s.pause.unwrap().reason, PauseReason::Disconnected);
    assert_eq!(s.clock.unwrap().running, None);
    assert!(!s.seats.white.pause_available);
    // Back after 20 s: the pause ends.
    r.connect(Color::White, 23_000);
    let s = r.snapshot(23_000);
    assert!(s.pause.is_none());
    assert_eq!(s.clock.unwrap().white_ms, 98_000);
    // Dropping again: the pause is spent, White's clock just runs; Black waits.
    r.disconnect(Color::White, 24_000);
    assert!(r.snapshot(24_000).pause.is_none());
    r.on_time(24_000 + 97_000);
    assert_eq!(
        r.result(),
        Some(GameResult { outcome: Outcome::BlackWins, reason: EndReason::Timeout })
    );
}

#[test]
fn shield_starts_when_an_absent_players_clock_starts_and_ends_at_60s() {
    let mut r = room(Variant::Chess, Some((100_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    mv(&mut r, B, 1, "e7e5", 2_000).unwrap();
    r.disconnect(Color::Black, 3_000);
    assert!(r.snapshot(3_000).pause.is_none(), "White's clock runs, White is here");
    mv(&mut r, W, 2, "g1f3", 4_000).unwrap();
    let p = r.snapshot(4_000).pause.unwrap();
    assert_eq!((p.by, p.reason), (Color::Black, PauseReason::Disconnected));
    r.on_time(64_000);
    let s = r.snapshot(64_000);
    assert!(s.pause.is_none());
    assert_eq!(s.clock.unwrap().running, Some(Color::Black));
    // Black never returns: Black loses on time, however the connection looks.
    r.on_time(64_000 + 98_999);
    assert_eq!(r.result(), None);
    r.on_time(64_000 + 99_000);
    assert_eq!(r.result().unwrap().outcome, Outcome::WhiteWins);
}

fn nonce(b: u8) -> String {
    hex::encode([b; 32])
}

#[test]
fn hidden_setup_commit_then_reveal() {
    let mut r = room(Variant::Maharajah, Some((60_000, 0)), true);
    assert_eq!(r.phase(), Phase::Setup);
    let start = r.seq();
    let cw = commitment(CUSTOM_WHITE, &[1; 32]).unwrap();
    let cb = commitment(BLACK_ARMY, &[2; 32]).unwrap();
    let reveal = |army: &str, n: u8| Action::Reveal { army: army.into(), nonce: nonce(n) };
    assert_eq!(code_of(r.act(W, reveal(CUSTOM_WHITE, 1), 0)), ErrorCode::WrongPhase);
    assert_eq!(code_of(mv(&mut r, W, 0, "e2e4", 0)), ErrorCode::WrongPhase);
    assert_eq!(
        code_of(r.act(W, Action::Commit { commitment: "xyz".into() }, 0)),
        ErrorCode::BadCommitment
    );
    r.act(W, Action::Commit { commitment: cw.clone() }, 0).unwrap();
    assert_eq!(
        code_of(r.act(W, Action::Commit { commitment: cb.clone() }, 0)),
        ErrorCode::AlreadyCommitted
    );
    // Before the opponent commits, no reveal.
    assert_eq!(code_of(r.act(W, reveal(CUSTOM_WHITE, 1), 0)), ErrorCode::WrongPhase);
    let cb2 = cb.clone();
    r.act(B, Action::Commit { commitment: cb }, 0).unwrap();
    assert_eq!(r.snapshot(0).commitments.black.as_deref(), Some(cb2.as_str()));
    assert_eq!(r.snapshot(0).nonces, None);
    // Tampered reveals: another army, another nonce.
    assert_eq!(code_of(r.act(W, reveal(WHITE_ARMY, 1), 0)), ErrorCode::CommitmentMismatch);
    assert_eq!(code_of(r.act(W, reveal(CUSTOM_WHITE, 9), 0)), ErrorCode::CommitmentMismatch);
    r.act(W, reveal(CUSTOM_WHITE, 1), 0).unwrap();
    // White's army is nowhere in what Black can see until Black has revealed too.
    let seen = serde_json::to_string(&(events(&r, start), r.snapshot(0))).unwrap();
    assert!(!seen.contains("Md1"), "{seen}");
    assert!(!seen.contains(&nonce(1)), "no nonce before both reveals: {seen}");
    assert!(r.snapshot(0).seats.white.revealed);
    let before = r.seq();
    r.act(B, reveal(BLACK_ARMY, 2), 0).unwrap();
    assert_eq!(r.phase(), Phase::Playing);
    // Both nonces are published with both armies: each side can check the other itself.
    let opened = events(&r, before)
        .into_iter()
        .find_map(|e| match e {
            RoomEvent::ArmiesOpened { armies, nonces } => Some((armies, nonces)),
            _ => None,
        })
        .unwrap();
    let (armies, nonces) = opened;
    for (c, army, n) in [(&cw, &armies.white, &nonces.white), (&cb2, &armies.black, &nonces.black)]
    {
        assert!(army::opens(c, army, &army::parse_nonce(n).unwrap()).unwrap());
    }
    assert_eq!(r.snapshot(0).nonces, Some(nonces));
    let s = r.snapshot(0);
    assert_eq!(s.armies.unwrap().white, CUSTOM_WHITE);
    assert!(s.fen.unwrap().contains('M'));
    mv(&mut r, W, 0, "d1d3", 0).unwrap_err(); // blocked by the d2 pawn
    mv(&mut r, W, 0, "d1c3", 0).unwrap(); // the Maharajah leaps like a knight
}

#[test]
fn a_reveal_breaking_the_army_rules_is_refused() {
    let mut r = room(Variant::Maharajah, None, true);
    let cheat = WHITE_ARMY.replace("Qd1", "Md1"); // 43 points
    r.act(W, Action::Commit { commitment: commitment(&cheat, &[1; 32]).unwrap() }, 0).unwrap();
    r.act(B, Action::Commit { commitment: commitment(BLACK_ARMY, &[2; 32]).unwrap() }, 0).unwrap();
    let e = r.act(W, Action::Reveal { army: cheat, nonce: nonce(1) }, 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArmy);
    assert!(e.message.contains("43"), "{}", e.message);
    assert!(!r.snapshot(0).seats.white.revealed);
    // Bound to an army it can never reveal, White can still leave: no result.
    r.act(W, Action::Resign, 0).unwrap();
    assert_eq!(
        r.result(),
        Some(GameResult { outcome: Outcome::Annulled, reason: EndReason::Resignation })
    );
    assert_eq!(r.phase(), Phase::Finished);
}

#[test]
fn hidden_setup_only_for_maharajah() {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let e = Room::new(
        code,
        &options(Variant::Chess, None, true),
        Color::White,
        W.into(),
        0,
        Lifetimes::default(),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidOptions);
}

#[test]
fn resync_from_ring_or_snapshot() {
    let mut r = room(Variant::Chess, None, false);
    let s = r.seq();
    assert_eq!(r.events_after(s).unwrap(), vec![]);
    assert!(r.events_after(s + 1).is_none(), "a future seq needs a snapshot");
    assert_eq!(r.events_after(0).unwrap().len() as u64, s);
    // Shuffle knights until the ring has forgotten the start.
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for ply in 0..(EVENT_RING as u32 + 8) {
        mv(&mut r, if ply % 2 == 0 { W } else { B }, ply, moves[ply as usize % 4], 0).unwrap();
        if r.result().is_some() {
            break; // fivefold repetition
        }
    }
    assert!(r.seq() > EVENT_RING as u64 || r.result().is_some());
    if r.seq() > EVENT_RING as u64 {
        assert!(r.events_after(0).is_none());
        assert_eq!(r.events_after(r.seq() - 3).unwrap().len(), 3);
    }
}

#[test]
fn draw_offers_resignation_and_claims() {
    let mut r = room(Variant::Chess, None, false);
    assert_eq!(code_of(r.act(W, Action::DeclineDraw, 0)), ErrorCode::NoDraw);
    assert_eq!(code_of(r.act(W, Action::ClaimDraw, 0)), ErrorCode::NoDraw);
    r.act(W, Action::OfferDraw, 0).unwrap();
    r.act(B, Action::DeclineDraw, 0).unwrap();
    r.act(W, Action::OfferDraw, 0).unwrap();
    r.act(B, Action::OfferDraw, 0).unwrap();
    assert_eq!(
        r.result(),
        Some(GameResult { outcome: Outcome::Draw, reason: EndReason::Agreement })
    );

    let mut r = room(Variant::Chess, None, false);
    for (ply, m) in
        ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"].iter().enumerate()
    {
        mv(&mut r, if ply % 2 == 0 { W } else { B }, ply as u32, m, 0).unwrap();
    }
    // The start position has now occurred three times.
    r.act(W, Action::ClaimDraw, 0).unwrap();
    assert_eq!(r.result().unwrap().reason, EndReason::ThreefoldRepetition);

    let mut r = room(Variant::Chess, None, false);
    assert_eq!(code_of(r.act(B, Action::ClaimDraw, 0)), ErrorCode::NotYourTurn);
    r.act(B, Action::Resign, 0).unwrap();
    assert_eq!(
        r.result(),
        Some(GameResult { outcome: Outcome::WhiteWins, reason: EndReason::Resignation })
    );
    assert_eq!(code_of(r.act(W, Action::Resign, 0)), ErrorCode::GameOver);
}

#[test]
fn a_restart_freezes_clocks_until_the_side_to_move_returns() {
    let mut r = room(Variant::Chess, Some((100_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 10_000).unwrap();
    mv(&mut r, B, 1, "e7e5", 30_000).unwrap();
    // White thinks 40 s, then the server dies: the stored state is as of Black's move.
    let record = r.to_record(30_000);
    let json = serde_json::to_string(&record).unwrap();
    let back: RoomRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back, record);
    let mut r2 = Room::from_record(back, 5_000, Lifetimes::default()).unwrap();
    let s = r2.snapshot(5_000);
    assert_eq!(s.moves, ["e2e4", "e7e5"]);
    assert_eq!(s.seq, r.seq() + 1, "the restart pause is an event");
    assert_eq!(s.pause.unwrap().reason, PauseReason::ServerRestart);
    assert!(s.seats.white.pause_available && s.seats.black.pause_available, "nobody's pause spent");
    assert_eq!(s.clock.unwrap(), ClockView { white_ms: 90_000, black_ms: 80_000, running: None });
    // Black comes back first: still frozen. White comes back: White's clock runs.
    r2.connect(Color::Black, 50_000);
    assert!(r2.snapshot(50_000).pause.is_some());
    r2.connect(Color::White, 60_000);
    let s = r2.snapshot(61_000);
    assert!(s.pause.is_none());
    assert_eq!(s.clock.unwrap().white_ms, 89_000);
    assert_eq!(code_of(mv(&mut r2, W, 1, "e7e5", 61_000)), ErrorCode::StalePly);
    mv(&mut r2, W, 2, "g1f3", 61_000).unwrap();
}

#[test]
fn recovery_grace_ends_and_then_the_shield_applies() {
    let mut r = room(Variant::Chess, Some((100_000, 0)), false);
    mv(&mut r, W, 0, "e2e4", 0).unwrap();
    let life = Lifetimes::default();
    let mut r2 = Room::from_record(r.to_record(0), 0, life).unwrap();
    let grace = ms(life.recovery_grace);
    assert_eq!(r2.next_deadline(), grace);
    r2.on_time(grace);
    let p = r2.snapshot(grace).pause.unwrap();
    assert_eq!((p.by, p.reason), (Color::Black, PauseReason::Disconnected));
}

#[test]
fn rooms_expire() {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let life = Lifetimes::default();
    let mut r =
        Room::new(code, &options(Variant::Chess, None, false), Color::White, W.into(), 0, life)
            .unwrap();
    assert_eq!(r.next_deadline(), ms(life.open));
    r.touch(1_000);
    assert_eq!(r.expires_at(), ms(life.open), "waiting rooms count from creation");
    assert!(r.is_expired(ms(life.open)));
    r.join(B.into(), 10).unwrap();
    r.act(B, Action::Resign, 20).unwrap();
    assert_eq!(r.expires_at(), 20 + ms(life.finished));
}

#[test]
fn a_waiting_room_whose_creator_left_is_dropped_after_the_abandon_deadline() {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let life = Lifetimes::default();
    let away = ms(life.abandoned);
    let mut r =
        Room::new(code, &options(Variant::Chess, None, false), Color::White, W.into(), 0, life)
            .unwrap();
    r.disconnect(Color::White, 1_000);
    assert_eq!(r.next_deadline(), 1_000 + away, "woken when the creator has been away long enough");
    assert!(!r.is_expired(1_000 + away - 1));
    // Coming back in time keeps the room; leaving again starts the deadline again.
    r.connect(Color::White, 2_000);
    assert!(!r.is_expired(1_000 + away));
    assert_eq!(r.next_deadline(), ms(life.open));
    r.disconnect(Color::White, 5_000);
    assert!(!r.is_expired(5_000 + away - 1));
    assert!(r.is_expired(5_000 + away), "gone {away} ms after its creator left");
}

#[test]
fn an_opponent_joining_ends_the_abandon_deadline() {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let life = Lifetimes::default();
    let mut r =
        Room::new(code, &options(Variant::Chess, None, false), Color::White, W.into(), 0, life)
            .unwrap();
    r.disconnect(Color::White, 0);
    r.join(B.into(), 10).unwrap();
    r.disconnect(Color::Black, 20);
    assert!(!r.is_expired(ms(life.abandoned) + 1), "a started game is not a waiting room");
}

#[test]
fn a_restart_keeps_the_original_expiry() {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let life = Lifetimes::default();
    let created = 1_700_000_000_000;
    let r = Room::new(
        code,
        &options(Variant::Chess, None, false),
        Color::White,
        W.into(),
        created,
        life,
    )
    .unwrap();
    let rec = r.to_record(created + 1_000);
    let restarted = created + 3_600_000;
    let back = Room::from_record(rec.clone(), restarted, life).unwrap();
    assert_eq!(back.expires_at(), created + ms(life.open), "not counted again from the restart");
    // A record written before expiries were stored still gets a lifetime from the restart.
    let old = RoomRecord { expires_at: None, ..rec };
    let back = Room::from_record(old, restarted, life).unwrap();
    assert_eq!(back.expires_at(), restarted + ms(life.open));
    // Nobody is connected after a restart: the creator has the abandon deadline to come back.
    assert!(back.is_expired(restarted + ms(life.abandoned)));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn action() -> impl Strategy<Value = Action> {
        let uci = proptest::sample::select(vec![
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d4", "xx", "e1g1", "a7a8q", "",
        ]);
        prop_oneof![
            (0u32..8, uci).prop_map(|(ply, u)| Action::Move { ply, uci: u.to_owned() }),
            Just(Action::Pause),
            Just(Action::Resume),
            Just(Action::Resign),
            Just(Action::OfferDraw),
            Just(Action::DeclineDraw),
            Just(Action::ClaimDraw),
            "[0-9a-f]{0,64}".prop_map(|c| Action::Commit { commitment: c }),
            ("[KQPM][a-h][1-8](,[KQPM][a-h][1-8]){0,3}", "[0-9a-f]{64}")
                .prop_map(|(army, nonce)| Action::Reveal { army, nonce }),
        ]
    }

    #[derive(Clone, Debug)]
    enum Step {
        Act(usize, Action),
        Connect(bool, bool),
        Time,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0usize..3, action()).prop_map(|(who, a)| Step::Act(who, a)),
            1 => (any::<bool>(), any::<bool>()).prop_map(|(w, up)| Step::Connect(w, up)),
            1 => Just(Step::Time),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whatever arrives, in any order and at any time: no panic, events numbered without
        /// gaps, moves never lost, a result never changes, a refusal changes nothing but time.
        #[test]
        fn any_sequence_keeps_the_invariants(
            hidden in any::<bool>(),
            steps in proptest::collection::vec((step(), 0u64..90_000), 1..60),
        ) {
            let variant = if hidden { Variant::Maharajah } else { Variant::Chess };
            let mut r = room(variant, Some((120_000, 1_000)), hidden);
            let mut now = 0;
            let mut result = None;
            for (s, dt) in steps {
                now += dt;
                let before_seq = r.seq();
                let before_moves = r.snapshot(now).moves;
                match s {
                    Step::Act(who, a) => {
                        let token = [W, B, "forged"][who];
                        let mut probe = r.clone();
                        probe.on_time(now);
                        let timed = probe.seq();
                        if r.act(token, a, now).is_err() && who != 2 {
                            prop_assert_eq!(r.seq(), timed, "a refusal only applies time");
                        }
                        if who == 2 {
                            prop_assert_eq!(r.seq(), before_seq, "a forged token changes nothing");
                        }
                    }
                    Step::Connect(white, up) => {
                        let seat = if white { Color::White } else { Color::Black };
                        if up { r.connect(seat, now) } else { r.disconnect(seat, now) }
                    }
                    Step::Time => r.on_time(now),
                }
                prop_assert!(r.seq() >= before_seq);
                let evs = r.events_after(before_seq).unwrap();
                prop_assert_eq!(evs.len() as u64, r.seq() - before_seq);
                let s = r.snapshot(now);
                prop_assert!(s.moves.starts_with(&before_moves));
                if let Some(res) = result {
                    prop_assert_eq!(s.result, Some(res));
                }
                result = s.result;
                if let Some(c) = s.clock {
                    prop_assert!(c.running.is_none() || (s.pause.is_none() && s.result.is_none()));
                }
                // The room asks to be woken up no later than the running flag can fall.
                if let Some(c) = s.clock {
                    if let Some(side) = c.running {
                        let left = if side == Color::White { c.white_ms } else { c.black_ms };
                        prop_assert!(r.next_deadline() <= now + left);
                    }
                }
                if let Some(p) = s.pause {
                    prop_assert!(r.next_deadline() <= now + p.remaining_ms);
                }
            }
        }
    }
}

#[test]
fn armies_valid_alone_but_not_together_restart_the_setup() {
    // White's queen on e2 looks up an open e-file at Black's king: Black would start in check.
    let white = "Pa1,Pb1,Pc1,Pd1,Ke1,Pf1,Pg1,Ph1,Rc2,Md2,Qe2,Rf2";
    let black = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Nf7,Pg7";
    let mut r = room(Variant::Maharajah, None, true);
    r.act(W, Action::Commit { commitment: commitment(white, &[1; 32]).unwrap() }, 0).unwrap();
    r.act(B, Action::Commit { commitment: commitment(black, &[2; 32]).unwrap() }, 0).unwrap();
    r.act(W, Action::Reveal { army: white.into(), nonce: nonce(1) }, 0).unwrap();
    let before = r.seq();
    r.act(B, Action::Reveal { army: black.into(), nonce: nonce(2) }, 0).unwrap();
    let ev = events(&r, before);
    assert!(
        matches!(&ev[1], RoomEvent::SetupRejected { reason } if reason.contains("check")),
        "{ev:?}"
    );
    assert!(!format!("{ev:?}").contains("e2"), "no square of either army leaks: {ev:?}");
    assert_eq!(ev[2], RoomEvent::SetupStarted);
    let s = r.snapshot(0);
    assert_eq!(s.phase, Phase::Setup);
    assert!(!s.seats.white.committed && !s.seats.black.committed);
    assert!(s.armies.is_none());
    // Both may commit afresh.
    r.act(W, Action::Commit { commitment: commitment(CUSTOM_WHITE, &[3; 32]).unwrap() }, 0)
        .unwrap();
}

#[test]
fn probing_the_hidden_army_costs_rounds_and_the_third_failure_annuls() {
    // The probe: a queen on e2 fails against an open e-file. Each failure is one bit, so the
    // rounds are few and counted, and they survive a restart.
    let white = "Pa1,Pb1,Pc1,Pd1,Ke1,Pf1,Pg1,Ph1,Rc2,Md2,Qe2,Rf2";
    let black = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Nf7,Pg7";
    let mut r = room(Variant::Maharajah, None, true);
    let mut reasons = Vec::new();
    for round in 0..SETUP_ROUNDS {
        let n = u8::try_from(round).unwrap() * 2;
        r.act(W, Action::Commit { commitment: commitment(white, &[n + 1; 32]).unwrap() }, 0)
            .unwrap();
        r.act(B, Action::Commit { commitment: commitment(black, &[n + 2; 32]).unwrap() }, 0)
            .unwrap();
        r.act(W, Action::Reveal { army: white.into(), nonce: nonce(n + 1) }, 0).unwrap();
        let before = r.seq();
        r.act(B, Action::Reveal { army: black.into(), nonce: nonce(n + 2) }, 0).unwrap();
        reasons.push(events(&r, before));
        if round == 0 {
            r = Room::from_record(r.to_record(0), 0, Lifetimes::default()).unwrap();
        }
    }
    assert!(
        matches!(&reasons[0][1], RoomEvent::SetupRejected { reason } if reason.contains("2 more tries")),
        "{:?}",
        reasons[0]
    );
    assert!(
        matches!(&reasons[1][1], RoomEvent::SetupRejected { reason } if reason.contains("1 more try")),
        "{:?}",
        reasons[1]
    );
    let last = &reasons[2];
    assert!(
        last.iter().any(|e| matches!(e, RoomEvent::GameOver { result, .. }
            if *result == GameResult { outcome: Outcome::Annulled, reason: EndReason::SetupFailed })),
        "the third failure annuls: {last:?}"
    );
    assert_eq!(r.phase(), Phase::Finished);
    assert!(r.snapshot(0).armies.is_none(), "neither army is shown");
}

#[test]
fn records_keep_token_digests_and_old_plain_records_still_seat_their_players() {
    let mut r = room(Variant::Chess, None, false);
    mv(&mut r, W, 0, "e2e4", 1_000).unwrap();
    let record = r.to_record(1_000);
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains(W) && !json.contains(B), "{json}");
    // A record written before digests holds the plain tokens: its players still get in.
    let mut old = record;
    old.tokens = ByColor { white: Some(W.to_owned()), black: Some(B.to_owned()) };
    let mut back = Room::from_record(old, 2_000, Lifetimes::default()).unwrap();
    assert_eq!(back.seat_of(W), Some(Color::White));
    assert_eq!(back.seat_of(B), Some(Color::Black));
    assert_eq!(back.seat_of("wrong"), None);
    assert!(!serde_json::to_string(&back.to_record(2_000)).unwrap().contains(W));
    back.connect(Color::Black, 2_000);
    back.connect(Color::White, 2_000);
    assert!(mv(&mut back, B, 1, "e7e5", 3_000).is_ok());
}

fn rated_room(tc: Option<(u64, u64)>) -> Room {
    use maharajah_protocol::identity::PlayerSecret;
    let key = |seed| PlayerSecret::from_bytes([seed; 32]).public();
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let mut r = Room::new(
        code,
        &options(Variant::Horde, tc, false),
        Color::White,
        W.into(),
        0,
        Lifetimes::default(),
    )
    .unwrap()
    .rated_for(Color::White, key(1));
    // A guest, or the creator again, cannot take the other seat of a rated room.
    assert_eq!(code_of(r.join_as(B.into(), None, 0)), ErrorCode::NotIdentified);
    assert_eq!(code_of(r.join_as(B.into(), Some(key(1)), 0)), ErrorCode::Forbidden);
    assert_eq!(r.join_as(B.into(), Some(key(2)), 0).unwrap(), Color::Black);
    r
}

#[test]
fn a_rated_result_is_due_once_and_an_annulled_one_never() {
    // Annulled (White's flag before a first move): no rating changes.
    let mut r = rated_room(Some((5_000, 0)));
    r.on_time(5_000);
    assert_eq!(r.result().unwrap().outcome, Outcome::Annulled);
    assert_eq!(r.rating_due(), None);

    // A resignation in a 10+0 Horde game: rapid, Black first.
    let mut r = rated_room(Some((600_000, 0)));
    mv(&mut r, W, 0, "a4a5", 1_000).unwrap();
    assert_eq!(r.rating_due(), None, "not over yet");
    r.act(W, Action::Resign, 2_000).unwrap();
    let due = r.rating_due().unwrap();
    assert_eq!(due.rating.to_string(), "horde/rapid");
    assert_eq!(due.places, vec![2, 1]);
    let mut players = crate::players::Players::default();
    let applied = players.apply(&due, 0);
    let before = r.seq();
    r.record_ratings(&applied.changes);
    assert_eq!(r.rating_due(), None, "applied once");
    assert!(matches!(&events(&r, before)[..], [RoomEvent::RatingsChanged { ratings }]
        if ratings.black.after > 1500 && ratings.white.after < 1500));
    // The record keeps it applied across a restart.
    let back = Room::from_record(r.to_record(3_000), 3_000, Lifetimes::default()).unwrap();
    assert!(back.is_rated());
    assert_eq!(back.rating_due(), None);

    // A casual room never has a rating due.
    let mut r = room(Variant::Chess, None, false);
    r.act(W, Action::Resign, 1_000).unwrap();
    assert_eq!(r.rating_due(), None);
}
