//! Spectators over real WebSockets on 127.0.0.1: `watch` by room code gives the snapshot and
//! then the live events (moves, presence, the end), a spectator acts for no seat, a Maharajah
//! game shows nothing of either army until both are revealed, and the per-room cap. (Chaturaji
//! spectators and their dice: `chaturaji.rs`.)
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use maharajah_protocol::army::commitment;
use maharajah_protocol::*;
use maharajah_server::Config;

async fn pair(server: &TestServer, opts: RoomOptions) -> (Client, Client) {
    let mut a = Client::connect(server.addr).await;
    let code = a.create(opts).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    (a, b)
}

/// A connection watching `code`; the snapshot it was sent.
async fn watcher(server: &TestServer, code: &AccessCode) -> (Client, Snapshot) {
    let mut c = Client::connect(server.addr).await;
    c.send(&ClientMsg::Watch { code: code.clone() }).await;
    match c.until("the room's snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await {
        ServerMsg::Snapshot { snapshot } => (c, *snapshot),
        _ => unreachable!(),
    }
}

/// Pings and reads up to the pong: every message that came before it.
async fn up_to_pong(c: &mut Client, nonce: u64) -> Vec<ServerMsg> {
    c.send(&ClientMsg::Ping { nonce }).await;
    let mut before = Vec::new();
    loop {
        match c.recv().await {
            ServerMsg::Pong { nonce: n, .. } if n == nonce => return before,
            other => before.push(other),
        }
    }
}

#[tokio::test]
async fn a_spectator_sees_moves_presence_and_the_end_and_can_do_nothing() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Chess, Some((300_000, 0)), false, Color::White)).await;
    let code = w.code.clone().unwrap();
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));

    let (mut s, snap) = watcher(&server, &code).await;
    assert_eq!((snap.code.clone(), snap.phase), (code.clone(), Phase::Playing));
    assert_eq!(snap.moves, vec!["e2e4".to_owned()]);
    assert!(snap.seats.white.connected && snap.seats.black.connected);
    assert!(snap.clock.is_some());
    assert_eq!((s.seat, s.token.as_str()), (None, ""), "a spectator holds no seat");

    // Live moves.
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { .. }));
    let e = s.until_event("black's move", |e| matches!(e, RoomEvent::Moved { .. })).await;
    assert!(matches!(e, RoomEvent::Moved { ply: 1, ref uci, .. } if uci == "e7e5"));

    // No action is taken from a spectator, not even with a seat's token.
    s.send(&ClientMsg::Move { token: w.token.clone(), ply: 2, uci: "g1f3".into() }).await;
    assert_eq!(s.until_error().await.0, ErrorCode::NotSeated);
    s.send(&ClientMsg::Resign { token: b.token.clone() }).await;
    assert_eq!(s.until_error().await.0, ErrorCode::NotSeated);
    s.send(&ClientMsg::OfferDraw { token: String::new() }).await;
    assert_eq!(s.until_error().await.0, ErrorCode::NotSeated);
    assert!(matches!(w.play(2, "g1f3").await, ServerMsg::MoveAck { ply: 2, .. }), "White plays on");
    s.until_event("white's move", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;

    // Presence: Black drops and comes back.
    let token = b.token.clone();
    b.close().await;
    let e = s.until_event("black away", |e| matches!(e, RoomEvent::Presence { .. })).await;
    assert!(matches!(e, RoomEvent::Presence { seat: Color::Black, connected: false }), "{e:?}");
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::Rejoin { code: code.clone(), token, last_seq: 0 }).await;
    b.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let e = s.until_event("black back", |e| matches!(e, RoomEvent::Presence { .. })).await;
    assert!(matches!(e, RoomEvent::Presence { seat: Color::Black, connected: true }), "{e:?}");

    // The end, as the players see it.
    b.send(&ClientMsg::Resign { token: b.token.clone() }).await;
    let e = s.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    assert!(
        matches!(e, RoomEvent::GameOver { result, .. } if result.outcome == Outcome::WhiteWins)
    );

    // An unknown code is refused; the connection goes on.
    let mut lost = Client::connect(server.addr).await;
    lost.send(&ClientMsg::Watch { code: "ZZZZZZZZ".parse().unwrap() }).await;
    assert_eq!(lost.until_error().await.0, ErrorCode::RoomNotFound);
    lost.send_raw(r#"{"t":"watch","code":"abc"}"#).await;
    assert_eq!(lost.until_error().await.0, ErrorCode::Malformed);
    assert!(up_to_pong(&mut lost, 3).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_spectator_sees_no_army_until_both_are_revealed() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Maharajah, Some((60_000, 0)), true, Color::White)).await;
    let code = w.code.clone().unwrap();
    let (mut early, snap) = watcher(&server, &code).await;
    assert_eq!((snap.phase, snap.armies.clone()), (Phase::Setup, None));
    let (nw, nb) = ([7u8; 32], [9u8; 32]);
    w.send(&ClientMsg::Commit {
        token: w.token.clone(),
        commitment: commitment(CUSTOM_WHITE, &nw).unwrap(),
    })
    .await;
    b.send(&ClientMsg::Commit {
        token: b.token.clone(),
        commitment: commitment(BLACK_ARMY, &nb).unwrap(),
    })
    .await;
    w.until_event("reveal open", |e| matches!(e, RoomEvent::RevealOpen)).await;
    let reveal = ClientMsg::Reveal {
        token: w.token.clone(),
        army: CUSTOM_WHITE.into(),
        nonce: hex::encode(nw),
    };
    w.send(&reveal).await;
    w.until("reveal ack", |m| matches!(m, ServerMsg::SetupAck { .. })).await;
    early.until_event("white revealed", |e| matches!(e, RoomEvent::Revealed { .. })).await;
    // A spectator arriving now, with White's army revealed to the room but not Black's.
    let (mut late, snap) = watcher(&server, &code).await;
    assert_eq!(snap.armies, None);
    assert!(!encode(&ServerMsg::Snapshot { snapshot: Box::new(snap) }).contains("Md1"));

    b.send(&ClientMsg::Reveal {
        token: b.token.clone(),
        army: BLACK_ARMY.into(),
        nonce: hex::encode(nb),
    })
    .await;
    for s in [&mut early, &mut late] {
        // Everything before `armies_opened` is free of White's army (its Maharajah on d1).
        let mut seen = Vec::new();
        let opened = loop {
            let m = s.recv().await;
            if let ServerMsg::Event { event: RoomEvent::ArmiesOpened { armies, .. }, .. } = &m {
                break armies.clone();
            }
            seen.push(m);
        };
        for m in &seen {
            let text = encode(m);
            assert!(!text.contains("Md1"), "a hidden army leaked: {text}");
            assert!(!matches!(m, ServerMsg::Event { event: RoomEvent::GameStarted { .. }, .. }));
        }
        assert_eq!(opened.white, CUSTOM_WHITE);
        let e = s.until_event("start", |e| matches!(e, RoomEvent::GameStarted { .. })).await;
        assert!(matches!(e, RoomEvent::GameStarted { armies: Some(_), .. }));
    }
    // A spectator from now on gets both armies in the snapshot.
    let (_, snap) = watcher(&server, &code).await;
    assert_eq!(snap.armies.map(|a| a.white), Some(CUSTOM_WHITE.to_owned()));
    server.stop().await;
}

#[tokio::test]
async fn the_spectator_cap_and_unwatch() {
    let config = Config { spectators_per_room: 1, ..Config::default() };
    let server = TestServer::start(config).await;
    let (mut w, _b) =
        pair(&server, options(Variant::Horde, Some((300_000, 0)), false, Color::White)).await;
    let code = w.code.clone().unwrap();
    let (mut first, _) = watcher(&server, &code).await;
    let mut second = Client::connect(server.addr).await;
    second.send(&ClientMsg::Watch { code: code.clone() }).await;
    let (refused, message) = second.until_error().await;
    assert_eq!(refused, ErrorCode::TooManySpectators, "{message}");
    // Watching the same room again from the same connection is no second spectator.
    first.send(&ClientMsg::Watch { code: code.clone() }).await;
    first.until("a fresh snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;

    // The first leaves (its `unwatch` reaches the room before its pong comes back).
    first.send(&ClientMsg::Unwatch).await;
    assert!(up_to_pong(&mut first, 1).await.is_empty());
    second.send(&ClientMsg::Watch { code: code.clone() }).await;
    second.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
    assert!(matches!(w.play(0, "a4a5").await, ServerMsg::MoveAck { .. }));
    second.until_event("the move", |e| matches!(e, RoomEvent::Moved { .. })).await;
    // The event reached the spectators before the mover's ack: none came to the first.
    let after = up_to_pong(&mut first, 2).await;
    assert!(after.is_empty(), "an unwatched room still talks: {after:?}");
    // A spectator's ping goes through the room, in order with its events.
    let before = up_to_pong(&mut second, 3).await;
    assert!(before.is_empty(), "{before:?}");
    // A closed spectator frees its place (once the server has noticed the close).
    second.close().await;
    let mut third = Client::connect(server.addr).await;
    let mut tries = 0;
    let snap = loop {
        third.send(&ClientMsg::Watch { code: code.clone() }).await;
        let answer = third
            .until("snapshot or refusal", |m| {
                matches!(m, ServerMsg::Snapshot { .. } | ServerMsg::Error { .. })
            })
            .await;
        match answer {
            ServerMsg::Snapshot { snapshot } => break snapshot,
            ServerMsg::Error { code: ErrorCode::TooManySpectators, .. } if tries < 40 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => panic!("the closed spectator's place is still taken: {other:?}"),
        }
    };
    assert_eq!(snap.moves, vec!["a4a5".to_owned()]);
    server.stop().await;
}
