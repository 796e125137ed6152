//! The Chaturaji room driven by hand with injected time.

use maharajah_chaturaji::fair::HashChain;
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

/// The hash chain the device of person seat `i` uses in game `game` (known seeds: tests only).
fn chain(room: &ChaturajiRoom, i: usize, game: u32) -> HashChain {
    let length = chain_length(&room.settings);
    HashChain::new(
        [u8::try_from(i * 16).expect("small") + u8::try_from(game).expect("small"); 32],
        length,
    )
}

/// Every person seat still connected commits to its chain for the current game.
fn commit_all(room: &mut ChaturajiRoom, tokens: &[String], now: Millis) {
    let game = room.game_number;
    for (i, token) in tokens.iter().enumerate() {
        let commitment = chain(room, i, game).commitment();
        let action = ChaturajiAction::Commit { game, commitment };
        assert_eq!(room.act(token, 0, action, now).expect("a commitment"), None);
    }
}

/// Every connected person seat the room asks for a link answers with its chain's.
fn answer_reveals(room: &mut ChaturajiRoom, tokens: &[String], now: Millis) {
    let Some(roll) = room.snapshot(now).fair.and_then(|f| f.reveal) else { return };
    let game = room.game_number;
    for (i, token) in tokens.iter().enumerate() {
        let seat = Seat::ALL[i];
        if !room.seats()[seat].connected {
            continue;
        }
        let link = chain(room, i, game).link(roll).expect("the chain covers the game");
        room.act(token, 0, ChaturajiAction::Reveal { roll, link }, now).expect("an honest link");
    }
}

/// The ack the room owes `seat` for a roll made after its links came in.
fn owed_ack(room: &mut ChaturajiRoom, seat: Seat) -> (u32, u64) {
    let replies = room.take_replies();
    match replies.as_slice() {
        [(s, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiAck { step, seq }))] if *s == seat => {
            (*step, *seq)
        }
        other => panic!("expected one ack for {seat}, got {other:?}"),
    }
}

/// A full room: three people seated (tokens t0, t1, t2), the game started at time 0 and the
/// three devices committed to their dice chains.
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
    let tokens = vec!["t0".into(), "t1".into(), "t2".into()];
    assert!(room.snapshot(0).fair.is_some_and(|f| f.committing));
    commit_all(&mut room, &tokens, 0);
    let Some(ChaturajiEvent::DiceCommitted { proof }) = events(&room).last().cloned() else {
        panic!("the parties are fixed once every seated device committed");
    };
    let names: Vec<&str> = proof.parties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["room", "red", "blue", "yellow"]);
    (room, tokens)
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
        if g.game().is_over() || g.record().actions.len() >= start.saturating_add(max_steps) {
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
        answer_reveals(room, tokens, now);
        room.take_replies();
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
    // The stored record replays to the same game, every roll re-verified from the links.
    let record = room.game().expect("game").record().clone();
    let proof = record.dice_proof.as_ref().expect("verifiable dice");
    assert_eq!(proof.parties.len(), 4);
    assert!(proof.rolls.iter().all(|r| r.iter().all(Option::is_some)), "nobody was dropped");
    let replay = record.replay().expect("replays");
    assert_eq!(replay.violation, None);
    assert_eq!(&replay.game, game);
    // A record with one roll's faces changed does not verify.
    let mut tampered = record.clone();
    let (index, faces) = tampered
        .actions
        .iter_mut()
        .enumerate()
        .find_map(|(i, s)| match s {
            Step::Roll { dice: Some(d) } => Some((i, d)),
            _ => None,
        })
        .expect("a roll with faces");
    faces[0] = faces[0] % 6 + 1;
    let violation = tampered.replay().expect("replays").violation.expect("caught");
    assert_eq!(violation.index, index);
    assert!(
        matches!(violation.error, maharajah_chaturaji::StepError::RollMismatch { .. }),
        "{violation}"
    );
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
    // A roll (acknowledged once every device revealed its link), then the same roll resent:
    // the same ack; an old step with another action: stale.
    assert_eq!(room.act(&tokens[0], 0, ChaturajiAction::Roll, 2).expect("roll"), None);
    assert_eq!(room.act(&tokens[0], 0, ChaturajiAction::Roll, 2).expect("resend"), None);
    answer_reveals(&mut room, &tokens, 2);
    let ack = owed_ack(&mut room, Seat::Red);
    assert_eq!(room.act(&tokens[0], 0, ChaturajiAction::Roll, 3).expect("resend"), Some(ack));
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
    // The stand-in rolls for Red after the delay, with the links of the room, Blue and
    // Yellow: Red's device is gone, so it is out of the dice (nobody picks the stand-in's roll).
    assert_eq!(room.next_deadline(), 10 + CPU_DELAY_MS);
    room.on_time(10 + CPU_DELAY_MS);
    answer_reveals(&mut room, &tokens, 10 + CPU_DELAY_MS);
    let record = room.game().expect("game").record();
    assert_eq!(record.actions.len(), 1);
    let links = &record.dice_proof.as_ref().expect("verifiable dice").rolls[0];
    assert_eq!(links.iter().map(Option::is_some).collect::<Vec<_>>(), [true, false, true, true]);
    // Red's token from another device is refused; the right device gets the seat back.
    let wrong = room.rejoin(&tokens[0], &device(9), 700).expect_err("other device");
    assert_eq!(wrong.code, ErrorCode::Forbidden);
    assert!(room.is_room_played(Seat::Red));
    // The room keeps only a digest of Red's token, so the seat comes back under the fresh one;
    // the old token stops acting (the seat's newest connection is the one that counts).
    let (seat, token) = room.join("fresh".into(), device(0), 700).expect("same device");
    assert_eq!((seat, token.as_str()), (Seat::Red, "fresh"));
    assert_eq!(room.seat_of("fresh"), Some(Seat::Red));
    assert_eq!(room.seat_of(&tokens[0]), None);
    assert!(!room.is_room_played(Seat::Red));
    assert!(matches!(events(&room).last(), Some(ChaturajiEvent::HandedBack { seat: Seat::Red })));
}

#[test]
fn the_turn_timer_discards_the_dice_and_passes_the_turn() {
    let s = Settings { turn_time: TurnTime::Seconds30, ..settings() };
    let (mut room, tokens) = full_room(s);
    room.act(&tokens[0], 0, ChaturajiAction::Roll, 1_000).expect("roll");
    answer_reveals(&mut room, &tokens, 1_000);
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
    // The snapshot's log is the last steps' events as the room sent them, after a restart too.
    let sent: Vec<Event> = events(&room)
        .into_iter()
        .flat_map(|e| match e {
            ChaturajiEvent::Played { events, .. } => events,
            _ => Vec::new(),
        })
        .collect();
    let log = room.snapshot(now).log;
    assert_eq!(log.len(), maharajah_chaturaji::game::LOG_LEN, "40 steps fill the log");
    assert_eq!(Vec::from(log.clone()), sent[sent.len() - log.len()..]);
    assert_eq!(recovered.snapshot(now).log, log);
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
    // A new game, new chains: the devices commit again.
    assert!(room.snapshot(1_000_000).fair.is_some_and(|f| f.committing));
    commit_all(&mut room, &tokens, 1_000_000);
    assert!(matches!(events(&room).last(), Some(ChaturajiEvent::DiceCommitted { .. })));
    let fixed = Settings { first_seat_rule: FirstSeatRule::Fixed, ..settings() };
    let (mut room, tokens) = full_room(fixed);
    drive(&mut room, &tokens, 0, usize::MAX);
    room.rematch(&tokens[0], 1_000_000).expect("rematch");
    commit_all(&mut room, &tokens, 1_000_000);
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

#[test]
fn a_link_that_does_not_verify_is_refused_and_changes_nothing() {
    let (mut room, tokens) = full_room(settings());
    room.act(&tokens[0], 0, ChaturajiAction::Roll, 1).expect("roll");
    let before = room.snapshot(1);
    assert_eq!(before.fair.as_ref().and_then(|f| f.reveal), Some(1));
    // Blue sends a link of another chain, then Red its second link instead of the first.
    let forged = chain(&room, 3, 1).link(1).expect("link");
    let refused = room
        .act(&tokens[1], 0, ChaturajiAction::Reveal { roll: 1, link: forged }, 2)
        .expect_err("not Blue's chain");
    assert_eq!(refused.code, ErrorCode::IllegalMove);
    let skipped = chain(&room, 0, 1).link(2).expect("link");
    let refused = room
        .act(&tokens[0], 0, ChaturajiAction::Reveal { roll: 1, link: skipped }, 2)
        .expect_err("not Red's next link");
    assert_eq!(refused.code, ErrorCode::IllegalMove);
    assert_eq!(room.snapshot(1), before);
    // A reveal for a roll nobody asked for, or from a seat that is no party, is ignored.
    let link = chain(&room, 0, 1).link(2).expect("link");
    assert_eq!(room.act(&tokens[0], 0, ChaturajiAction::Reveal { roll: 2, link }, 2), Ok(None));
    assert_eq!(room.snapshot(1), before);
}

#[test]
fn a_device_that_misses_the_reveal_window_is_out_of_the_dice_for_the_rest_of_the_game() {
    let (mut room, tokens) = full_room(settings());
    room.act(&tokens[0], 0, ChaturajiAction::Roll, 1_000).expect("roll");
    // Red and Blue reveal; Yellow stays silent.
    for (i, token) in tokens.iter().enumerate().take(2) {
        let link = chain(&room, i, 1).link(1).expect("link");
        room.act(token, 0, ChaturajiAction::Reveal { roll: 1, link }, 1_100).expect("ok");
    }
    assert_eq!(room.game().expect("game").record().actions.len(), 0, "waiting for Yellow");
    assert!(room.take_replies().is_empty());
    assert_eq!(room.next_deadline(), 1_000 + REVEAL_WINDOW_MS);
    room.on_time(1_000 + REVEAL_WINDOW_MS);
    let (step, _) = owed_ack(&mut room, Seat::Red);
    assert_eq!(step, 0);
    let record = room.game().expect("game").record();
    let links = &record.dice_proof.as_ref().expect("dice").rolls[0];
    assert_eq!(links.iter().map(Option::is_some).collect::<Vec<_>>(), [true, true, true, false]);
    // Yellow's late link changes nothing, and the next rolls do not wait for Yellow.
    let late = chain(&room, 2, 1).link(1).expect("link");
    let seq = room.seq();
    assert_eq!(
        room.act(&tokens[2], 0, ChaturajiAction::Reveal { roll: 1, link: late }, 5_000),
        Ok(None)
    );
    assert_eq!(room.seq(), seq);
    let now = drive(&mut room, &tokens, 5_000, usize::MAX);
    let record = room.game().expect("game").record();
    assert!(room.game().expect("game").game().is_over());
    if std::env::var_os("CHATURAJI_NETWORKED_WRITE").is_some() {
        // The networked game the `chaturaji` replay program's tests re-verify.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../chaturaji/records/networked.json");
        std::fs::write(path, record.to_json() + "\n").expect("writes the fixture");
    }
    let rolls = &record.dice_proof.as_ref().expect("dice").rolls;
    assert!(rolls.len() > 2);
    assert!(rolls.iter().all(|r| r[3].is_none()), "Yellow stays out");
    assert!(rolls.iter().all(|r| r[0].is_some() && r[1].is_some() && r[2].is_some()));
    assert_eq!(record.replay().expect("replays").violation, None);
    assert!(now > 5_000);
}

#[test]
fn without_commitments_the_window_closes_and_the_room_rolls_alone_verifiably() {
    let (mut room, seat) = ChaturajiRoom::new(
        code(),
        settings(),
        Level::Random,
        "t0".into(),
        device(0),
        42,
        0,
        Lifetimes::default(),
    )
    .expect("valid room");
    assert_eq!(seat, Seat::Red);
    room.join("t1".into(), device(1), 0).expect("seat");
    room.join("t2".into(), device(2), 0).expect("seat");
    // Red rolls before anyone committed: the roll waits for the commit window.
    assert_eq!(room.act("t0", 0, ChaturajiAction::Roll, 10), Ok(None));
    assert_eq!(room.next_deadline(), COMMIT_WINDOW_MS);
    room.on_time(COMMIT_WINDOW_MS);
    let (step, seq) = owed_ack(&mut room, Seat::Red);
    assert_eq!(step, 0);
    let evs = events(&room);
    assert!(
        matches!(&evs[evs.len() - 2], ChaturajiEvent::DiceCommitted { proof } if proof.parties.len() == 1)
    );
    assert!(
        matches!(evs.last(), Some(ChaturajiEvent::Played { links: Some(l), .. }) if l.len() == 1)
    );
    assert_eq!(seq, room.seq());
    assert_eq!(room.game().expect("game").record().replay().expect("ok").violation, None);
}

#[test]
fn a_waiting_table_whose_people_left_is_dropped_after_the_abandon_deadline() {
    let life = Lifetimes::default();
    let away = ms(life.abandoned);
    let (mut room, seat) =
        ChaturajiRoom::new(code(), settings(), Level::Random, "t0".into(), device(0), 42, 0, life)
            .expect("valid room");
    assert_eq!(room.join("t1".into(), device(1), 0).expect("free seat").0, Seat::Blue);
    room.disconnect(seat, 100);
    assert!(!room.is_expired(100 + away), "Blue is still there");
    room.disconnect(Seat::Blue, 200);
    assert_eq!(room.next_deadline(), 200 + away);
    assert!(!room.is_expired(200 + away - 1));
    assert!(room.is_expired(200 + away), "nobody came back for {away} ms");
}

#[test]
fn a_restarted_table_keeps_its_original_expiry() {
    let life = Lifetimes::default();
    let created = 1_700_000_000_000;
    let (room, _) = ChaturajiRoom::new(
        code(),
        settings(),
        Level::Random,
        "t0".into(),
        device(0),
        42,
        created,
        life,
    )
    .expect("valid room");
    let rec = room.to_record(created + 5_000);
    let restarted = created + 3_600_000;
    let mut back = ChaturajiRoom::from_record(rec.clone(), restarted, life).expect("recovers");
    assert!(back.is_expired(restarted + ms(life.abandoned)), "nobody came back after the restart");
    back.connect(Seat::Red, restarted + 1);
    assert!(!back.is_expired(created + ms(life.open) - 1));
    assert!(back.is_expired(created + ms(life.open)), "the expiry is not counted from the restart");
    let old = ChaturajiRecord { expires_at: None, ..rec };
    let mut back = ChaturajiRoom::from_record(old, restarted, life).expect("recovers");
    back.connect(Seat::Red, restarted + 1);
    assert!(!back.is_expired(restarted + ms(life.open) - 5_001), "older records: from the restart");
}

#[test]
#[allow(clippy::unwrap_used)]
fn a_rated_table_rates_each_games_places_once() {
    use maharajah_protocol::identity::PlayerSecret;
    let key = |seed| PlayerSecret::from_bytes([seed; 32]).public();
    let (room, seat) = ChaturajiRoom::new(
        code(),
        settings(),
        Level::Random,
        "t0".into(),
        device(0),
        42,
        0,
        Lifetimes::default(),
    )
    .expect("valid room");
    let mut room = room.rated_for(seat, key(1));
    // A guest, or a player already seated, cannot take a seat at a rated table.
    let guest = room.join_as("t1".into(), device(1), None, 0).unwrap_err();
    assert_eq!(guest.code, ErrorCode::NotIdentified);
    let twin = room.join_as("t1".into(), device(1), Some(key(1)), 0).unwrap_err();
    assert_eq!(twin.code, ErrorCode::Forbidden);
    assert_eq!(room.join_as("t1".into(), device(1), Some(key(2)), 0).unwrap().0, Seat::Blue);
    assert_eq!(room.join_as("t2".into(), device(2), Some(key(3)), 0).unwrap().0, Seat::Yellow);
    let tokens = vec!["t0".to_owned(), "t1".into(), "t2".into()];
    commit_all(&mut room, &tokens, 0);
    assert_eq!(room.rating_due(), None, "not over yet");
    let now = drive(&mut room, &tokens, 0, usize::MAX);

    // Three people (the CPU's Green seat does not count), by their places.
    let due = room.rating_due().expect("a rating is due");
    assert_eq!(due.rating.to_string(), "chaturaji/classical");
    assert_eq!(due.players, vec![key(1), key(2), key(3)]);
    let standings = room.game().unwrap().game().standings();
    let place = |seat| standings.iter().find(|l| l.seat == seat).unwrap().place;
    assert_eq!(due.places, vec![place(Seat::Red), place(Seat::Blue), place(Seat::Yellow)]);
    let mut players = crate::players::Players::default();
    let applied = players.apply(&due, 0);
    let before = room.seq();
    room.record_ratings(&applied.changes);
    assert_eq!(room.rating_due(), None, "once per game");
    let evs: Vec<ChaturajiEvent> = events(&room).into_iter().skip(before as usize).collect();
    let [ChaturajiEvent::RatingsChanged { ratings }] = &evs[..] else {
        panic!("expected the ratings, got {evs:?}");
    };
    assert_eq!(ratings.green, None);
    assert_eq!(ratings.red, Some(applied.changes[0]));
    assert_eq!(ratings.yellow.unwrap().player, key(3));
    // The best place gains, the worst loses (unless they share it).
    let best = due.places.iter().min().unwrap();
    let worst = due.places.iter().max().unwrap();
    if best != worst {
        for (change, p) in applied.changes.iter().zip(&due.places) {
            if p == best {
                assert!(change.after > change.before, "{change:?}");
            }
            if p == worst {
                assert!(change.after < change.before, "{change:?}");
            }
        }
    }
    // The record keeps it applied; the next game is due again once over.
    let mut room =
        ChaturajiRoom::from_record(room.to_record(now), now, Lifetimes::default()).unwrap();
    assert_eq!(room.rating_due(), None);
    room.rematch("t0", now).unwrap();
    assert_eq!(room.rating_due(), None);
}
