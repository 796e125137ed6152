//! The Chaturaji room driven by hand with injected time.

use maharajah_chaturaji::game::Action as GameAction;
use maharajah_chaturaji::settings::{FirstSeatRule, Player, TurnTime};
use maharajah_chaturaji::{cpu, Phase, Seat, Settings, Step};
use maharajah_protocol::{ChaturajiAction, ChaturajiEvent, ErrorCode};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;

fn code() -> AccessCode {
    "ABCDEFGH".parse().expect("valid code")
}

/// Red, Blue, Yellow people; Green a Greedy CPU. Stand-ins play Random (fast in debug builds).
fn settings() -> Settings {
    let mut s = Settings::default();
    s.players.green = Player::Cpu { level: Level::Greedy };
    s.round_limit = 8;
    s
}

fn device(n: usize) -> String {
    format!("device-id-{n:08}")
}

/// A full room: three people seated (tokens t0, t1, t2), the game started at time 0.
fn full_room(settings: Settings) -> (ChaturajiRoom, Vec<String>) {
    let (mut room, seat) = ChaturajiRoom::new(
        code(),
        settings,
        Level::Random,
        "t0".into(),
        device(0),
        42,
        0,
        Lifetimes::default(),
    )
    .expect("valid room");
    assert_eq!(seat, Seat::Red);
    assert!(room.game().is_none());
    assert_eq!(room.join("t1".into(), device(1), 0).expect("free seat").0, Seat::Blue);
    assert!(room.game().is_none());
    assert_eq!(room.join("t2".into(), device(2), 0).expect("free seat").0, Seat::Yellow);
    assert!(room.game().is_some(), "the game starts once every person seat is taken");
    let err = room.join("t3".into(), device(3), 0).expect_err("no person seat left");
    assert_eq!(err.code, ErrorCode::RoomFull);
    (room, vec!["t0".into(), "t1".into(), "t2".into()])
}

fn token_of(seat: Seat, tokens: &[String]) -> &str {
    match seat {
        Seat::Red => &tokens[0],
        Seat::Blue => &tokens[1],
        Seat::Yellow => &tokens[2],
        Seat::Green => "",
    }
}

/// What a person at `seat` would do now (chosen by the crate's CPU).
fn person_choice(room: &ChaturajiRoom, rng: &mut ChaCha8Rng) -> ChaturajiAction {
    let game = room.game().expect("game").game();
    match game.phase() {
        Phase::Roll { .. } => ChaturajiAction::Roll,
        _ => match cpu::choose_action(game, Level::Greedy, rng) {
            Some(GameAction::Move(mv)) => ChaturajiAction::Move(mv),
            _ => ChaturajiAction::EndTurn,
        },
    }
}

/// Plays until the game is over or `max_steps` more steps were played; returns the time.
fn drive(room: &mut ChaturajiRoom, tokens: &[String], mut now: Millis, max_steps: usize) -> Millis {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let start = room.game().expect("game").record().actions.len();
    for _ in 0..10_000 {
        let g = room.game().expect("game");
        if g.game().is_over() || g.record().actions.len() >= start + max_steps {
            break;
        }
        let seat = g.game().to_move();
        if room.is_room_played(seat) {
            now = room.next_deadline();
            room.on_time(now);
        } else {
            now += 100;
            let step = g.record().actions.len() as u32;
            let action = person_choice(room, &mut rng);
            room.act(token_of(seat, tokens), step, action, now).expect("a legal action");
        }
    }
    now
}

fn events(room: &ChaturajiRoom) -> Vec<ChaturajiEvent> {
    room.events_after(0)
        .expect("ring holds everything")
        .into_iter()
        .map(|m| match m {
            ChaturajiMsg::ChaturajiEvent { event, .. } => event,
            other => panic!("not an event: {other:?}"),
        })
        .collect()
}

#[test]
fn three_people_and_a_cpu_play_to_the_end() {
    let (mut room, tokens) = full_room(settings());
    drive(&mut room, &tokens, 0, usize::MAX);
    let game = room.game().expect("game").game();
    assert!(game.is_over());
    let evs = events(&room);
    assert!(
        matches!(evs.last(), Some(ChaturajiEvent::GameOver { outcome }) if outcome.standings.len() == 4)
    );
    let green_steps = evs
        .iter()
        .filter(|e| matches!(e, ChaturajiEvent::Played { seat: Seat::Green, by_room: true, .. }))
        .count();
    assert!(green_steps > 0, "the CPU seat played");
    // Snapshots and events fit in the protocol's frame limit.
    let snapshot = ChaturajiMsg::ChaturajiSnapshot { snapshot: Box::new(room.snapshot(0)) };
    let len = maharajah_protocol::encode(&snapshot).len();
    assert!(len < maharajah_protocol::MAX_FRAME_BYTES, "snapshot of {len} bytes");
    for m in room.events_after(0).expect("events") {
        assert!(maharajah_protocol::encode(&m).len() < maharajah_protocol::MAX_FRAME_BYTES);
    }
    // The stored record replays to the same game.
    let replay = room.game().expect("game").record().replay().expect("replays");
    assert_eq!(replay.violation, None);
    assert_eq!(&replay.game, game);
}

#[test]
fn refused_actions_change_nothing() {
    let (mut room, tokens) = full_room(settings());
    let before = room.snapshot(0);
    let forged = room.act("nope", 0, ChaturajiAction::Roll, 1).expect_err("forged token");
    assert_eq!(forged.code, ErrorCode::Forbidden);
    let out_of_turn = room.act(&tokens[1], 0, ChaturajiAction::Roll, 1).expect_err("Blue waits");
    assert_eq!(out_of_turn.code, ErrorCode::NotYourTurn);
    let future = room.act(&tokens[0], 5, ChaturajiAction::Roll, 1).expect_err("future step");
    assert_eq!(future.code, ErrorCode::StalePly);
    let early = room.act(&tokens[0], 0, ChaturajiAction::EndTurn, 1).expect_err("roll first");
    assert_eq!(early.code, ErrorCode::WrongPhase);
    assert_eq!(room.snapshot(0), before);
    // A roll, then the same roll resent: the same ack; an old step with another action: stale.
    let ack = room.act(&tokens[0], 0, ChaturajiAction::Roll, 2).expect("roll");
    assert_eq!(room.act(&tokens[0], 0, ChaturajiAction::Roll, 3).expect("resend"), ack);
    let seq = room.seq();
    let stale = room.act(&tokens[0], 0, ChaturajiAction::EndTurn, 4).expect_err("stale");
    assert_eq!(stale.code, ErrorCode::StalePly);
    assert_eq!(room.seq(), seq);
}

#[test]
fn a_dropped_person_is_played_by_the_cpu_until_they_return_from_the_same_device() {
    let (mut room, tokens) = full_room(settings());
    room.disconnect(Seat::Red, 10);
    assert!(room.is_room_played(Seat::Red));
    assert!(matches!(events(&room).last(), Some(ChaturajiEvent::CpuTookOver { seat: Seat::Red })));
    // The stand-in rolls for Red after the delay.
    assert_eq!(room.next_deadline(), 10 + CPU_DELAY_MS);
    room.on_time(10 + CPU_DELAY_MS);
    assert_eq!(room.game().expect("game").record().actions.len(), 1);
    // Red's token from another device is refused; the right device gets the seat back.
    let wrong = room.rejoin(&tokens[0], &device(9), 700).expect_err("other device");
    assert_eq!(wrong.code, ErrorCode::Forbidden);
    assert!(room.is_room_played(Seat::Red));
    let (seat, token) = room.join("fresh".into(), device(0), 700).expect("same device");
    assert_eq!((seat, token.as_str()), (Seat::Red, tokens[0].as_str()));
    assert!(!room.is_room_played(Seat::Red));
    assert!(matches!(events(&room).last(), Some(ChaturajiEvent::HandedBack { seat: Seat::Red })));
}

#[test]
fn the_turn_timer_discards_the_dice_and_passes_the_turn() {
    let s = Settings { turn_time: TurnTime::Seconds30, ..settings() };
    let (mut room, tokens) = full_room(s);
    room.act(&tokens[0], 0, ChaturajiAction::Roll, 1_000).expect("roll");
    assert_eq!(room.next_deadline(), 30_000);
    room.on_time(29_999);
    assert_eq!(room.game().expect("game").game().to_move(), Seat::Red);
    room.on_time(30_000);
    let g = room.game().expect("game");
    assert_eq!(g.record().actions.last(), Some(&Step::TimeOut));
    assert_eq!(g.game().to_move(), Seat::Blue);
    assert_eq!(room.turn_deadline(), Some(60_000), "Blue's turn started at the time-out");
}

#[test]
fn a_stored_room_recovers_and_continues_identically() {
    let (mut room, tokens) = full_room(settings());
    let now = drive(&mut room, &tokens, 0, 40);
    let record = room.to_record(now);
    let json = serde_json::to_string(&record).expect("serialises");
    let back: ChaturajiRecord = serde_json::from_str(&json).expect("parses");
    let mut recovered = ChaturajiRoom::from_record(back, now, Lifetimes::default()).expect("ok");
    assert_eq!(recovered.game().map(|g| g.game()), room.game().map(|g| g.game()));
    assert_eq!(recovered.seq(), room.seq());
    for (i, seat) in [Seat::Red, Seat::Blue, Seat::Yellow].into_iter().enumerate() {
        recovered.rejoin(&tokens[i], &device(i), now).expect("rejoin");
        assert!(recovered.seats()[seat].connected);
    }
    let mut original = room.clone();
    drive(&mut original, &tokens, now, usize::MAX);
    drive(&mut recovered, &tokens, now, usize::MAX);
    assert_eq!(
        original.game().expect("game").record(),
        recovered.game().expect("game").record(),
        "the same dice and the same CPU choices"
    );
}

#[test]
fn a_rematch_rotates_the_first_seat() {
    let (mut room, tokens) = full_room(settings());
    let refused = room.rematch(&tokens[1], 0).expect_err("game still on");
    assert_eq!(refused.code, ErrorCode::WrongPhase);
    drive(&mut room, &tokens, 0, usize::MAX);
    room.rematch(&tokens[1], 1_000_000).expect("rematch");
    let g = room.game().expect("game").game();
    assert_eq!(g.to_move(), Seat::Blue);
    assert!(matches!(events(&room).last(), Some(ChaturajiEvent::GameStarted { game: 2, .. })));
    let fixed = Settings { first_seat_rule: FirstSeatRule::Fixed, ..settings() };
    let (mut room, tokens) = full_room(fixed);
    drive(&mut room, &tokens, 0, usize::MAX);
    room.rematch(&tokens[0], 1_000_000).expect("rematch");
    assert_eq!(room.game().expect("game").game().to_move(), Seat::Red);
}

#[test]
fn settings_need_two_people_and_a_device_id() {
    let mut s = Settings::default();
    for seat in [Seat::Blue, Seat::Yellow, Seat::Green] {
        s.players[seat] = Player::Cpu { level: Level::Random };
    }
    let one = ChaturajiRoom::new(
        code(),
        s,
        Level::Random,
        "t".into(),
        device(0),
        1,
        0,
        Lifetimes::default(),
    );
    assert_eq!(one.map(|_| ()).expect_err("one person").code, ErrorCode::InvalidOptions);
    let short = ChaturajiRoom::new(
        code(),
        settings(),
        Level::Random,
        "t".into(),
        "x".into(),
        1,
        0,
        Lifetimes::default(),
    );
    assert_eq!(short.map(|_| ()).expect_err("short device").code, ErrorCode::Malformed);
}

#[test]
fn after_a_restart_absent_people_get_a_stand_in_only_after_the_grace() {
    let (mut room, tokens) = full_room(settings());
    let now = drive(&mut room, &tokens, 0, 5);
    let lifetimes = Lifetimes::default();
    let mut back = ChaturajiRoom::from_record(room.to_record(now), 0, lifetimes).expect("ok");
    assert!(Seat::ALL.iter().all(|&s| !back.seats()[s].connected));
    assert!(!back.is_room_played(Seat::Red));
    let grace = ms(lifetimes.recovery_grace);
    back.rejoin(&tokens[1], &device(1), 10).expect("Blue is back");
    back.on_time(grace - 1);
    assert!(!back.is_room_played(Seat::Red));
    back.on_time(grace);
    assert!(back.is_room_played(Seat::Red) && back.is_room_played(Seat::Yellow));
    assert!(!back.is_room_played(Seat::Blue), "Blue came back in time");
    // Events after the restart continue the numbering; older ones need a snapshot.
    assert_eq!(back.events_after(0), None);
    assert!(back.events_after(room.seq()).is_some_and(|e| !e.is_empty()));
}
