//! The client's replica is the server's room: folding a room's numbered events
//! ([`Snapshot::apply`], [`ChaturajiSnapshot::apply`]) into an earlier snapshot gives the room's
//! own snapshot, for random games (moves, hidden setup, pauses, draws, drops, time passing).
#![allow(clippy::unwrap_used)]

use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{cpu::Level, Seat, Settings};
use maharajah_engine::Position;
use maharajah_protocol::army::{army_text, commitment};
use maharajah_protocol::*;
use maharajah_server::chaturaji::ChaturajiRoom;
use maharajah_server::room::{Action, Room};
use maharajah_server::Lifetimes;
use proptest::prelude::*;

fn code() -> AccessCode {
    "ABCDEFGH".parse().unwrap()
}

fn token(c: Color) -> &'static str {
    match c {
        Color::White => "white-token",
        Color::Black => "black-token",
    }
}

/// The room's events after `seq`, as (number, event).
fn events_after(room: &Room, seq: u64) -> Vec<(u64, RoomEvent)> {
    room.events_after(seq)
        .unwrap()
        .into_iter()
        .map(|m| match m {
            ServerMsg::Event { seq, event, .. } => (seq, event),
            other => panic!("not an event: {other:?}"),
        })
        .collect()
}

fn fold(mut replica: Snapshot, events: &[(u64, RoomEvent)]) -> Snapshot {
    for (seq, event) in events {
        assert_eq!(*seq, replica.seq + 1, "events come in order without gaps");
        replica.apply(*seq, event);
    }
    replica
}

/// One step of a random chess room; `pick` chooses among the legal moves.
fn chess_step(room: &mut Room, op: u8, pick: usize, now: &mut u64) {
    let snap = room.snapshot(*now);
    let to_move = snap
        .fen
        .as_ref()
        .and_then(|f| Position::from_fen(snap.variant, f).ok())
        .map_or(Color::White, |p| p.turn());
    let other = to_move.other();
    let act = |room: &mut Room, c: Color, a: Action, now: u64| {
        let _ = room.act(token(c), a, now);
    };
    match op % 14 {
        0 => {
            let _ = room.join(token(Color::Black).into(), *now);
        }
        1..=4 => {
            if let Some(pos) =
                snap.fen.as_ref().and_then(|f| Position::from_fen(snap.variant, f).ok())
            {
                let moves = pos.legal_moves();
                if !moves.is_empty() {
                    let mv = moves[pick % moves.len()];
                    let ply = snap.next_ply();
                    act(room, to_move, Action::Move { ply, uci: mv.to_string() }, *now);
                }
            }
        }
        5 => room.disconnect(if pick % 2 == 0 { to_move } else { other }, *now),
        6 => room.connect(if pick % 2 == 0 { to_move } else { other }, *now),
        7 => act(room, if pick % 2 == 0 { to_move } else { other }, Action::Pause, *now),
        8 => act(room, if pick % 2 == 0 { to_move } else { other }, Action::Resume, *now),
        9 => act(room, if pick % 2 == 0 { to_move } else { other }, Action::OfferDraw, *now),
        10 => act(room, if pick % 2 == 0 { to_move } else { other }, Action::DeclineDraw, *now),
        11 => {
            // Time passes: pauses end by themselves, flags fall.
            *now += [500, 5_000, 61_000, 200_000][pick % 4];
            room.on_time(*now);
        }
        12 => {
            // Hidden setup: each side commits to, then reveals, its orthodox army.
            let c = if pick % 2 == 0 { Color::White } else { Color::Black };
            let army = army_text(&Army::orthodox(c));
            let nonce = [u8::from(c == Color::White) + 1; 32];
            if snap.seats.get(c).committed {
                let nonce = hex(&nonce);
                act(room, c, Action::Reveal { army, nonce }, *now);
            } else {
                let commitment = commitment(&army, &nonce).unwrap();
                act(room, c, Action::Commit { commitment }, *now);
            }
        }
        _ => {
            if pick % 8 == 0 {
                act(room, if pick % 2 == 0 { to_move } else { other }, Action::Resign, *now);
            } else {
                act(room, to_move, Action::ClaimDraw, *now);
            }
        }
    }
}

/// Whether an event carries the clocks (and the pause countdown) as of its moment.
fn carries_clock(e: &RoomEvent) -> bool {
    matches!(
        e,
        RoomEvent::GameStarted { .. }
            | RoomEvent::Moved { .. }
            | RoomEvent::Paused { .. }
            | RoomEvent::Resumed { .. }
            | RoomEvent::GameOver { .. }
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn options(variant: u8, timed: bool, hidden: bool) -> RoomOptions {
    let variant = [Variant::Chess, Variant::Maharajah, Variant::Horde][usize::from(variant % 3)];
    RoomOptions {
        variant,
        time_control: timed.then_some(TimeControl { base_ms: 60_000, increment_ms: 1_000 }),
        hidden_setup: hidden && variant == Variant::Maharajah,
        color: Some(Color::White),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn folding_a_chess_rooms_events_gives_its_snapshot(
        variant in 0u8..3,
        timed in any::<bool>(),
        hidden in any::<bool>(),
        ops in proptest::collection::vec((any::<u8>(), any::<usize>()), 0..60),
    ) {
        let options = options(variant, timed, hidden);
        let mut now = 1_000u64;
        let mut room =
            Room::new(code(), &options, Color::White, token(Color::White).into(), now, Lifetimes::default())
                .unwrap();
        // (snapshot number, snapshot) taken along the way, to fold from as a rejoining client.
        let mut taken = vec![Snapshot::new(code(), &options)];
        // When the last event that carries the clocks (and a pause's countdown) happened.
        let mut clocks_at = now;
        for (op, pick) in ops {
            let before = room.seq();
            chess_step(&mut room, op, pick, &mut now);
            prop_assume!(room.seq() < 100, "the event ring holds every event");
            if events_after(&room, before).iter().any(|(_, e)| carries_clock(e)) {
                clocks_at = now;
            }
            if pick % 5 == 0 {
                taken.push(room.snapshot(clocks_at));
            }
        }
        // Clocks and pause countdowns in the room's snapshot are as of the time asked for; the
        // events carry them as of the moment they happened.
        let expected = room.snapshot(clocks_at);
        for start in taken {
            let from = start.seq;
            let replica = fold(start, &events_after(&room, from));
            prop_assert_eq!(&replica, &expected, "folded from seq {}", from);
        }
    }
}

/// The room's Chaturaji events after `seq`.
fn chaturaji_events_after(room: &ChaturajiRoom, seq: u64) -> Vec<(u64, ChaturajiEvent)> {
    room.events_after(seq)
        .unwrap()
        .into_iter()
        .map(|m| match m {
            ChaturajiMsg::ChaturajiEvent { seq, event, .. } => (seq, event),
            other => panic!("not an event: {other:?}"),
        })
        .collect()
}

const DEVICES: [&str; 2] = ["device-red-0123456789", "device-blue-0123456789"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn folding_a_chaturaji_rooms_events_gives_its_snapshot(
        ops in proptest::collection::vec((any::<u8>(), any::<usize>()), 0..40),
        seed in any::<u64>(),
    ) {
        let mut settings = Settings::default();
        settings.players.yellow = Player::Cpu { level: Level::Random };
        settings.players.green = Player::Cpu { level: Level::Random };
        let now = 1_000u64;
        let (mut room, _) = ChaturajiRoom::new(
            code(),
            settings,
            Level::Random,
            "red-token".into(),
            DEVICES[0].into(),
            seed,
            now,
            Lifetimes::default(),
        )
        .unwrap();
        let mut taken = vec![room.snapshot(now)];
        let mut now = now;
        for (op, pick) in ops {
            let snap = room.snapshot(now);
            let to_move = snap.game.as_ref().map(|g| g.to_move());
            let tok = match to_move {
                Some(Seat::Blue) => "blue-token",
                _ => "red-token",
            };
            match op % 6 {
                0 => {
                    let _ = room.join("blue-token".into(), DEVICES[1].into(), now);
                }
                1 => {
                    let _ = room.act(tok, snap.steps, ChaturajiAction::Roll, now);
                }
                2 | 3 => {
                    if let Some(game) = &snap.game {
                        let moves = game.legal_moves();
                        if moves.is_empty() {
                            let _ = room.act(tok, snap.steps, ChaturajiAction::EndTurn, now);
                        } else {
                            let mv = moves[pick % moves.len()];
                            let _ = room.act(tok, snap.steps, ChaturajiAction::Move(mv), now);
                        }
                    }
                }
                4 => {
                    let seat = if pick % 2 == 0 { Seat::Red } else { Seat::Blue };
                    if pick % 4 < 2 {
                        room.disconnect(seat, now);
                    } else {
                        room.connect(seat, now);
                    }
                }
                _ => {
                    // Time passes: CPU seats and stand-ins play.
                    now += [200, 2_000, 20_000][pick % 3];
                    room.on_time(now);
                }
            }
            if pick % 4 == 0 {
                taken.push(room.snapshot(now));
            }
            prop_assume!(room.seq() < 120, "the event ring holds every event");
        }
        let expected = room.snapshot(now);
        for start in taken {
            let from = start.seq;
            let mut replica = start;
            for (seq, event) in chaturaji_events_after(&room, from) {
                replica.apply(seq, &event).unwrap();
            }
            prop_assert_eq!(&replica, &expected, "folded from seq {}", from);
        }
    }
}
