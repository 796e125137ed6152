//! Verifiable Chaturaji dice over real WebSockets on 127.0.0.1, the real server and real
//! clients: every device commits and reveals by itself, every client checks every roll; a
//! server (or LAN host) that shows one changed roll is caught by every client; a device that
//! drops is out of the dice and its stand-in rolls with the remaining parties' links.
#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::fair::Link;
use maharajah_chaturaji::game::Action as GameAction;
use maharajah_chaturaji::settings::Player as SeatPlayer;
use maharajah_chaturaji::{Phase, Seat, Settings, Step};
use maharajah_net::chaturaji::{ChaturajiClient, ChaturajiNetEvent};
use maharajah_net::client::NetError;
use maharajah_protocol::chaturaji::{ChaturajiAction, ChaturajiEvent};
use maharajah_protocol::ErrorCode;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// Red and Blue are people, Yellow and Green Greedy CPUs; a short game.
fn settings() -> Settings {
    let mut s = Settings { round_limit: 3, ..Settings::default() };
    s.players[Seat::Yellow] = SeatPlayer::Cpu { level: Level::Greedy };
    s.players[Seat::Green] = SeatPlayer::Cpu { level: Level::Greedy };
    s
}

/// A man in the middle standing for a dishonest server or LAN host: it passes every frame
/// between the clients and the real server, except that in the first roll (step 0) it sends
/// to the clients it changes the first face. Returns its address.
async fn tampering_proxy(server: SocketAddr, tampered: Arc<AtomicBool>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let tampered = tampered.clone();
            tokio::spawn(async move {
                let Ok(client) = tokio_tungstenite::accept_async(tcp).await else { return };
                let url = format!("ws://{server}/");
                let Ok((upstream, _)) = tokio_tungstenite::connect_async(url).await else { return };
                let (mut to_client, mut from_client) = client.split();
                let (mut to_server, mut from_server) = upstream.split();
                let up = async move {
                    while let Some(Ok(m)) = from_client.next().await {
                        if to_server.send(m).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_server.close().await;
                };
                let down = async move {
                    while let Some(Ok(m)) = from_server.next().await {
                        let m = match m {
                            Message::Text(t) => Message::text(tamper(t.as_str(), &tampered)),
                            other => other,
                        };
                        if to_client.send(m).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_client.close().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    addr
}

/// The frame with the first face of roll step 0 changed, if it is that roll.
fn tamper(text: &str, tampered: &AtomicBool) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else { return text.into() };
    let is_event = v["t"] == "chaturaji_event";
    let event = &mut v["event"];
    let is_first_roll =
        is_event && event["e"] == "played" && event["step"] == 0 && event["action"]["t"] == "roll";
    let Some(face) = event["action"]["dice"][0].as_u64().filter(|_| is_first_roll) else {
        return text.into();
    };
    event["action"]["dice"][0] = serde_json::json!(face % 6 + 1);
    tampered.store(true, Ordering::SeqCst);
    v.to_string()
}

struct Person {
    client: ChaturajiClient,
    events: mpsc::UnboundedReceiver<ChaturajiNetEvent>,
    seen: Vec<ChaturajiNetEvent>,
}

impl Person {
    async fn connect(url: &str, device: &str) -> Person {
        let (client, events) = ChaturajiClient::connect(url, fast(), device).await.unwrap();
        Person { client, events, seen: Vec::new() }
    }

    fn drain(&mut self) {
        while let Ok(e) = self.events.try_recv() {
            self.seen.push(e);
        }
    }

    /// The links of every roll seen, with the seat and whether the room rolled.
    fn rolls(&self) -> Vec<(Seat, bool, Vec<Option<Link>>)> {
        self.seen
            .iter()
            .filter_map(|e| match e {
                ChaturajiNetEvent::Room {
                    event:
                        ChaturajiEvent::Played {
                            seat,
                            by_room,
                            action: Step::Roll { .. },
                            links: Some(links),
                            ..
                        },
                    ..
                } => Some((*seat, *by_room, links.clone())),
                _ => None,
            })
            .collect()
    }

    /// The links of the first roll the room made for `seat` (a stand-in's), once seen.
    fn room_roll_links(&self, seat: Seat) -> Option<Vec<Option<Link>>> {
        self.rolls().into_iter().find(|(s, by_room, _)| *s == seat && *by_room).map(|r| r.2)
    }
}

/// Red creates the table, Blue joins; both wait until the dice parties are fixed.
async fn table(url: &str) -> (Person, Person) {
    let red = Person::connect(url, "device-red-dice-0001").await;
    let seat = red.client.create_table(settings(), Some(Level::Greedy)).await.unwrap();
    let blue = Person::connect(url, "device-blue-dice-002").await;
    assert_eq!(blue.client.join_table(seat.code).await.unwrap().seat, Seat::Blue);
    (red, blue)
}

/// What a person plays now: roll, or the Greedy CPU's choice.
fn choice(p: &Person) -> ChaturajiAction {
    let table = p.client.table();
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

/// Plays the people's turns until `stop` holds (or the game ends).
async fn play_until(people: &mut [&mut Person], what: &str, stop: impl Fn(&[&mut Person]) -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        people.iter_mut().for_each(|p| p.drain());
        if stop(people) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out playing until {what}");
        let leader = people.iter().map(|p| p.client.table().steps).max().unwrap();
        let mover = people.iter().position(|p| {
            let t = p.client.table();
            t.steps == leader
                && t.game.as_ref().is_some_and(|g| !g.is_over())
                && t.game.as_ref().map(|g| g.to_move()) == t.seat.as_ref().map(|s| s.seat)
                && !t.seats.is_some_and(|s| s[t.seat.as_ref().unwrap().seat].cpu_playing)
        });
        match mover {
            Some(i) => match people[i].client.act(choice(people[i])).await {
                Ok(_) | Err(NetError::Server { code: ErrorCode::StalePly, .. }) => {}
                Err(e) => panic!("step {leader}: {e}"),
            },
            None => {
                if people.iter().any(|p| p.client.table().outcome.is_some()) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_verifies_every_roll_and_a_dropped_device_leaves_the_dice() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (mut red, mut blue) = table(&server.url()).await;
    // A few rounds: every roll verified by both clients, from the room's and both devices'
    // links.
    play_until(&mut [&mut red, &mut blue], "round 2", |ps| {
        ps.iter().all(|p| p.client.table().game.is_some_and(|g| g.round() >= 2))
    })
    .await;
    for p in [&red, &blue] {
        let t = p.client.table();
        assert_eq!(t.dice_alarm, None, "honest dice verify");
    }
    let rolls = red.rolls();
    assert!(rolls.len() >= 4, "{} rolls", rolls.len());
    assert!(
        rolls.iter().all(|(_, _, l)| l.len() == 3 && l.iter().all(Option::is_some)),
        "every roll has the links of the room, Red and Blue"
    );
    // Blue drops. Its stand-in's rolls come from the room's and Red's links, and Red's client
    // still verifies every roll.
    blue.client.close().await;
    red.seen.clear();
    play_until(&mut [&mut red], "the stand-in's roll for Blue", |ps| {
        ps[0].room_roll_links(Seat::Blue).is_some()
    })
    .await;
    let links = red.room_roll_links(Seat::Blue).expect("the stand-in rolled for Blue");
    assert_eq!(links.len(), 3, "room, Red, Blue");
    assert!(links[0].is_some() && links[1].is_some());
    assert_eq!(links[2], None, "Blue's device is out of the dice");
    play_until(&mut [&mut red], "the end", |ps| ps[0].client.table().outcome.is_some()).await;
    assert_eq!(red.client.table().dice_alarm, None);
    // Red's record of the game replays to the same end, every roll re-verified from the links
    // (what the `chaturaji` program does with it); one changed face does not.
    let record = red.client.record().expect("Red saw the whole game");
    let proof = record.dice_proof.as_ref().expect("verifiable dice");
    assert_eq!(proof.parties.len(), 3);
    let replay = record.replay().unwrap();
    assert_eq!(replay.violation, None);
    assert_eq!(Some(&replay.game), red.client.table().game.as_ref());
    let mut changed = record.clone();
    let at =
        changed.actions.iter().position(|s| matches!(s, Step::Roll { dice: Some(_) })).unwrap();
    let Step::Roll { dice: Some([a, b]) } = changed.actions[at] else { unreachable!() };
    changed.actions[at] = Step::Roll { dice: Some([a % 6 + 1, b]) };
    assert_eq!(changed.replay().unwrap().violation.map(|v| v.index), Some(at));
    red.client.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_changes_one_roll_is_caught_by_every_client() {
    let server = TestServer::start("127.0.0.1:0").await;
    let tampered = Arc::new(AtomicBool::new(false));
    let proxy = tampering_proxy(server.addr, tampered.clone()).await;
    let (mut red, mut blue) = table(&format!("ws://{proxy}/")).await;
    let wait = async {
        while [&red, &blue].iter().any(|p| p.client.table().game.is_none()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("both have the game");
    assert_eq!(red.client.table().dice_alarm, None, "nothing to see before the roll");
    red.client.roll().await.unwrap();
    let wait = async {
        while [&red, &blue].iter().any(|p| p.client.table().dice_alarm.is_none()) {
            red.drain();
            blue.drain();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("every client raises the alarm");
    assert!(tampered.load(Ordering::SeqCst));
    for p in [&red, &blue] {
        let alarm = p.client.table().dice_alarm.unwrap();
        assert_eq!(alarm.roll, 1, "{alarm:?}");
    }
    red.client.close().await;
    blue.client.close().await;
    server.stop().await;
}
