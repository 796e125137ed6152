//! The Chaturaji seat client against the real server over 127.0.0.1: three people and a CPU seat
//! play to the end; one person drops, the room's CPU plays for them, and they come back from the
//! same device (token + device id) and get the seat back. Every client's replica of the game is
//! checked against the room's steps and against the others at the end.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::game::{Action as GameAction, LOG_LEN};
use maharajah_chaturaji::settings::Player as SeatPlayer;
use maharajah_chaturaji::{Phase, Seat, Settings};
use maharajah_net::chaturaji::{ChaturajiClient, ChaturajiNetEvent};
use maharajah_net::client::{CloseReason, NetError};
use maharajah_protocol::chaturaji::{ChaturajiAction, ChaturajiEvent};
use maharajah_protocol::ErrorCode;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tokio::sync::mpsc;

struct Person {
    client: ChaturajiClient,
    events: mpsc::UnboundedReceiver<ChaturajiNetEvent>,
    seen: Vec<ChaturajiNetEvent>,
}

impl Person {
    async fn connect(server: &TestServer, device: &str) -> Person {
        let (client, events) =
            ChaturajiClient::connect(&server.url(), fast(), device).await.unwrap();
        Person { client, events, seen: Vec::new() }
    }

    fn pump(&mut self) {
        while let Ok(e) = self.events.try_recv() {
            self.seen.push(e);
        }
    }

    /// Waits until an event satisfying `f` has been seen (now or before).
    async fn until(&mut self, what: &str, f: impl Fn(&ChaturajiNetEvent) -> bool) {
        let wait = async {
            loop {
                self.pump();
                if self.seen.iter().any(&f) {
                    return;
                }
                match self.events.recv().await {
                    Some(e) => self.seen.push(e),
                    None => panic!("events closed waiting for {what}"),
                }
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
    }

    fn seat(&self) -> Seat {
        self.client.table().seat.unwrap().seat
    }
}

fn table_event(e: &ChaturajiNetEvent, f: impl Fn(&ChaturajiEvent) -> bool) -> bool {
    matches!(e, ChaturajiNetEvent::Room { event, .. } if f(event))
}

/// Red, Blue and Yellow are people; Green is a Greedy CPU; a short game.
fn settings(rounds: u32) -> Settings {
    let mut s = Settings { round_limit: rounds, ..Settings::default() };
    s.players[Seat::Green] = SeatPlayer::Cpu { level: Level::Greedy };
    s
}

/// What a person plays now: roll, or the Greedy CPU's choice as if they tapped it.
fn choice(person: &Person) -> ChaturajiAction {
    let table = person.client.table();
    let game = table.game.unwrap();
    if let Phase::Roll { .. } = game.phase() {
        return ChaturajiAction::Roll;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(table.steps));
    match cpu::choose_action(&game, Level::Greedy, &mut rng) {
        Some(GameAction::Move(mv)) => ChaturajiAction::Move(mv),
        _ => ChaturajiAction::EndTurn,
    }
}

/// Plays with the present people until `stop` holds for the leading replica or the game ends;
/// seats without a present person are the room's.
async fn play_until(people: &mut [&mut Person], what: &str, stop: impl Fn(&[&mut Person]) -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        for p in people.iter_mut() {
            p.pump();
        }
        if stop(people) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out playing until {what}");
        let leader = people.iter().map(|p| p.client.table().steps).max().unwrap();
        let turn = people.iter().find_map(|p| {
            let t = p.client.table();
            let game = t.game.as_ref()?;
            (t.steps == leader && !game.is_over()).then(|| game.to_move())
        });
        let Some(seat) = turn else {
            if people.iter().any(|p| p.client.table().game.as_ref().is_some_and(|g| g.is_over())) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
            continue;
        };
        match people.iter().position(|p| p.seat() == seat && p.client.table().steps == leader) {
            Some(i) => {
                let action = choice(people[i]);
                let ack = people[i].client.act(action).await;
                match ack {
                    Ok(a) => assert_eq!(a.step, leader, "the action is stored at its step"),
                    // The stand-in may have played this step for a seat just handed back.
                    Err(NetError::Server { code: ErrorCode::StalePly, .. }) => {}
                    Err(e) => panic!("{seat:?} at step {leader}: {e}"),
                }
            }
            None => tokio::time::sleep(Duration::from_millis(30)).await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_people_and_a_cpu_play_to_the_end_through_a_drop_and_a_return() {
    let server = TestServer::start("127.0.0.1:0").await;
    let mut red = Person::connect(&server, "device-red-000000001").await;
    let seat = red.client.create_table(settings(4), Some(Level::Greedy)).await.unwrap();
    assert_eq!(seat.seat, Seat::Red);
    let code = seat.code.clone();
    let mut blue = Person::connect(&server, "device-blue-00000002").await;
    assert_eq!(blue.client.join_table(code.clone()).await.unwrap().seat, Seat::Blue);
    let mut yellow = Person::connect(&server, "device-yellow-000003").await;
    assert_eq!(yellow.client.join_table(code.clone()).await.unwrap().seat, Seat::Yellow);
    // A fourth person finds no free seat: Green is the CPU's.
    let late = Person::connect(&server, "device-late-00000004").await;
    match late.client.join_table(code.clone()).await {
        Err(NetError::Server { code: ErrorCode::RoomFull, .. }) => {}
        other => panic!("expected room_full, got {other:?}"),
    }
    let wait = async {
        while [&red, &blue, &yellow].iter().any(|p| p.client.table().game.is_none()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("every replica has the game");

    // Acting out of turn is refused and changes nothing.
    match blue.client.roll().await {
        Err(NetError::Server { code: ErrorCode::NotYourTurn, .. }) => {}
        other => panic!("expected not_your_turn, got {other:?}"),
    }

    // Red plays its first turn; the turn passes to Blue.
    play_until(&mut [&mut red, &mut blue, &mut yellow], "Blue's turn", |ps| {
        ps[0].client.table().game.is_some_and(|g| g.to_move() == Seat::Blue)
    })
    .await;

    // Blue drops (closes the app). The room's CPU stands in and plays Blue's turn.
    let blue_seat = blue.client.table().seat.unwrap();
    let blue_device = blue.client.device().to_owned();
    blue.client.close().await;
    red.until("the stand-in", |e| {
        table_event(e, |e| matches!(e, ChaturajiEvent::CpuTookOver { seat: Seat::Blue }))
    })
    .await;
    play_until(&mut [&mut red, &mut yellow], "the CPU playing Blue", |ps| {
        ps[0].seen.iter().any(|e| {
            table_event(e, |e| {
                matches!(e, ChaturajiEvent::Played { seat: Seat::Blue, by_room: true, .. })
            })
        }) && ps[0].client.table().game.is_some_and(|g| g.to_move() != Seat::Blue)
    })
    .await;
    // Blue's token from another device is refused.
    let (thief, mut thief_events) = ChaturajiClient::resume(
        &server.url(),
        fast(),
        "device-other-0000009",
        blue_seat.clone(),
        0,
    )
    .await
    .unwrap();
    let refused = tokio::time::timeout(WAIT, async {
        loop {
            match thief_events.recv().await {
                Some(ChaturajiNetEvent::Closed(reason)) => return reason,
                Some(_) => {}
                None => panic!("events ended without a close"),
            }
        }
    })
    .await
    .unwrap();
    assert!(
        matches!(refused, CloseReason::SeatLost { code: ErrorCode::Forbidden, .. }),
        "{refused:?}"
    );
    drop(thief);

    // Blue comes back from the same device with the token: the seat is handed back.
    let last_seq = blue.client.table().last_seq;
    let (client, events) =
        ChaturajiClient::resume(&server.url(), fast(), &blue_device, blue_seat.clone(), last_seq)
            .await
            .unwrap();
    let mut blue = Person { client, events, seen: Vec::new() };
    blue.until("rejoined", |e| matches!(e, ChaturajiNetEvent::Rejoined { .. })).await;
    red.until("the seat handed back", |e| {
        table_event(e, |e| matches!(e, ChaturajiEvent::HandedBack { seat: Seat::Blue }))
    })
    .await;
    assert_eq!(blue.seat(), Seat::Blue);
    let wait = async {
        while blue.client.table().steps < red.client.table().steps {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("Blue catches up with the missed steps");

    // Blue plays its own turns again, to the end of the game.
    let before = red.client.table().steps;
    play_until(&mut [&mut red, &mut blue, &mut yellow], "the end", |ps| {
        ps.iter().all(|p| p.client.table().outcome.is_some())
    })
    .await;
    let by_blue_itself = red.seen.iter().any(|e| {
        matches!(e, ChaturajiNetEvent::Room { event: ChaturajiEvent::Played { seat: Seat::Blue, by_room: false, step, .. }, .. } if *step >= before)
    });
    assert!(by_blue_itself, "Blue played its own turn after coming back");

    // Every replica agrees on the finished game; the ranking lists four seats. `play_until` returns
    // as soon as one replica sees the end, so wait until every replica has the last step and the
    // outcome before comparing them.
    let wait = async {
        while [&red, &blue, &yellow].iter().any(|p| {
            let t = p.client.table();
            t.outcome.is_none() || !t.game.as_ref().is_some_and(|g| g.is_over())
        }) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("replicas catch up");
    let game = red.client.table().game.unwrap();
    assert!(game.is_over());
    for p in [&blue, &yellow] {
        assert_eq!(p.client.table().game.as_ref(), Some(&game));
    }
    let outcome = red.client.table().outcome.unwrap();
    assert_eq!(outcome.standings.len(), 4);
    assert_eq!(Some(&outcome), game.outcome());
    let green = red.seen.iter().any(|e| {
        table_event(e, |e| {
            matches!(e, ChaturajiEvent::Played { seat: Seat::Green, by_room: true, .. })
        })
    });
    assert!(green, "the CPU seat played its turns");
    // Red's log holds the game's last events, as the room played them (the game is over: no
    // more come).
    red.pump();
    let played: Vec<_> = red
        .seen
        .iter()
        .filter_map(|e| match e {
            ChaturajiNetEvent::Room { event: ChaturajiEvent::Played { events, .. }, .. } => {
                Some(events.iter().cloned())
            }
            _ => None,
        })
        .flatten()
        .collect();
    assert!(played.len() > LOG_LEN, "a game of four rounds has more events than the log keeps");
    let log: Vec<_> = red.client.table().log.into_iter().collect();
    assert_eq!(log, played[played.len() - LOG_LEN..], "the log is the last {LOG_LEN} events");

    for p in [&red, &blue, &yellow] {
        p.client.close().await;
    }
    late.client.close().await;
    server.stop().await;
}
