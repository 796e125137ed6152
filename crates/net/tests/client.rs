//! The client against the real server over 127.0.0.1: a game with drops, reconnects and resync;
//! refused moves; hidden setup with adversarial reveals; garbage from a fake server.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use maharajah_net::client::{CloseReason, Connection, NetError, NetEvent};
use maharajah_net::setup::{HiddenSetup, SetupError};
use maharajah_protocol::army::canonical_army;
use maharajah_protocol::{
    decode_client, encode, ClientMsg, Color, EndReason, ErrorCode, Outcome, Phase, RoomEvent,
    ServerMsg, Variant,
};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

async fn pair(
    server: &TestServer,
    options: maharajah_protocol::RoomOptions,
) -> (Connection, mpsc::UnboundedReceiver<NetEvent>, Connection, mpsc::UnboundedReceiver<NetEvent>)
{
    let (host, he) = Connection::connect(&server.url(), fast()).await.unwrap();
    let hs = host.create_room(options).await.unwrap();
    let (guest, ge) = Connection::connect(&server.url(), fast()).await.unwrap();
    let gs = guest.join_room(hs.code.clone()).await.unwrap();
    assert_eq!(gs.seat, hs.seat.other());
    assert_eq!(gs.code, hs.code);
    (host, he, guest, ge)
}

fn is_moved(e: &NetEvent, ply: u32) -> bool {
    matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: p, .. }, .. } if *p == ply)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_drop_reconnect_resync_finish() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (white, mut we, black, mut be) =
        pair(&server, room(Variant::Chess, false, Color::White)).await;
    until_phase(&black, &mut be, Phase::Playing).await;

    assert_eq!(white.play("f2f3").await.unwrap().ply, 0);
    until(&mut be, "f2f3", |e| is_moved(e, 0)).await;
    assert_eq!(black.play("e7e5").await.unwrap().ply, 1);
    // White plays at the ply its own replica knows: let e7e5 reach it first.
    until(&mut we, "e7e5", |e| is_moved(e, 1)).await;

    // Black's Wi-Fi drops during White's turn; White moves meanwhile.
    black.drop_link();
    until(&mut be, "disconnect", |e| matches!(e, NetEvent::Disconnected { .. })).await;
    assert_eq!(white.play("g2g4").await.unwrap().ply, 2);
    until(&mut be, "rejoin", |e| matches!(e, NetEvent::Rejoined { .. })).await;
    until(&mut be, "the move missed", |e| is_moved(e, 2)).await;
    assert_eq!(black.room().moves(), ["f2f3", "e7e5", "g2g4"]);

    // A move in flight when the link drops is sent again and stored once.
    let mover = black.clone();
    let play = tokio::spawn(async move { mover.play("d8h4").await });
    black.drop_link();
    let ack = tokio::time::timeout(WAIT, play).await;
    if ack.is_err() {
        panic!("resent move never acked; events: {:#?}", drain(&mut be));
    }
    let ack = ack.unwrap().unwrap().unwrap();
    assert_eq!(ack.ply, 3);

    let over = |e: &RoomEvent| matches!(e, RoomEvent::GameOver { .. });
    for events in [&mut we, &mut be] {
        match until_room(events, "game over", over).await {
            RoomEvent::GameOver { result, .. } => {
                assert_eq!(result.outcome, Outcome::BlackWins);
                assert_eq!(result.reason, EndReason::Checkmate);
            }
            _ => unreachable!(),
        }
    }
    assert_eq!(white.room().moves(), black.room().moves());
    assert_eq!(black.room().moves().len(), 4);
    // Both replicas end at the same event. One that follows the game's end (the server seeing
    // Black's old link close, a presence change) may still be on its way to one of them.
    let same_seq = async {
        while white.room().last_seq != black.room().last_seq {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    if tokio::time::timeout(WAIT, same_seq).await.is_err() {
        panic!("the replicas stay apart: {} and {}", white.room().last_seq, black.room().last_seq);
    }
    // Across both drops no event was delivered twice.
    let mut seen = Vec::new();
    let mut black_events = drain(&mut be);
    black_events.retain(|e| matches!(e, NetEvent::Room { .. }));
    for e in black_events {
        if let NetEvent::Room { seq, .. } = e {
            assert!(!seen.contains(&seq));
            seen.push(seq);
        }
    }
    white.close().await;
    black.close().await;
    until(&mut be, "closed", |e| matches!(e, NetEvent::Closed(CloseReason::ByUser))).await;
    server.stop().await;
}

#[tokio::test]
async fn refused_moves_change_nothing() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (lonely, _) = Connection::connect(&server.url(), fast()).await.unwrap();
    assert_eq!(lonely.play("e2e4").await, Err(NetError::NotSeated));

    let (white, _we, black, mut be) =
        pair(&server, room(Variant::Chess, false, Color::White)).await;
    until_phase(&black, &mut be, Phase::Playing).await;
    fn code<T: std::fmt::Debug>(r: Result<T, NetError>) -> ErrorCode {
        match r {
            Err(NetError::Server { code, .. }) => code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(code(white.play("e2e5").await), ErrorCode::IllegalMove);
    assert_eq!(code(white.play("garbage").await), ErrorCode::IllegalMove);
    assert_eq!(code(black.play("e7e5").await), ErrorCode::NotYourTurn);
    assert!(matches!(
        white.create_room(room(Variant::Chess, false, Color::White)).await,
        Err(NetError::AlreadySeated(_))
    ));
    assert!(white.room().moves().is_empty());
    assert_eq!(white.play("e2e4").await.unwrap().ply, 0);
    assert!(white.ping().await.unwrap() < Duration::from_secs(1));
    assert_eq!(code(white.pause().await), ErrorCode::NoClock);
    white.resign().await.unwrap();
    until_room(&mut be, "resignation", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    server.stop().await;
}

#[tokio::test]
async fn hidden_setup_commit_reveal_with_adversarial_reveals() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (host, mut he, guest, mut ge) =
        pair(&server, room(Variant::Maharajah, true, Color::White)).await;
    let mut hs = HiddenSetup::new(Color::White, WHITE_ARMY).unwrap();
    let mut gs = HiddenSetup::new(Color::Black, CUSTOM_BLACK).unwrap();
    until_phase(&guest, &mut ge, Phase::Setup).await;

    // The client will not open before both commitments are in…
    assert_eq!(gs.reveal(), Err(SetupError::NotCommitted));
    guest.commit(gs.commitment()).await.unwrap();
    feed(&mut ge, &mut gs, |s, _| s.reveal() != Err(SetupError::NotCommitted)).await;
    assert_eq!(gs.reveal(), Err(SetupError::OpponentNotCommitted));
    // …and a modified client that reveals anyway is refused by the server.
    let nonce = "00".repeat(32);
    let early = guest.reveal(CUSTOM_BLACK, &nonce).await.unwrap_err();
    assert!(matches!(early, NetError::Server { code: ErrorCode::WrongPhase, .. }), "{early:?}");

    host.commit(hs.commitment()).await.unwrap();
    feed(&mut he, &mut hs, |s, _| s.is_ready_to_reveal()).await;
    feed(&mut ge, &mut gs, |s, _| s.is_ready_to_reveal()).await;
    assert_eq!(gs.opponent_commitment(), Some(hs.commitment()));

    // A forged reveal (another army with the real nonce) does not open the commitment.
    let (army, nonce) = gs.reveal().unwrap();
    let forged = guest.reveal(BLACK_ARMY, &nonce).await.unwrap_err();
    assert!(
        matches!(forged, NetError::Server { code: ErrorCode::CommitmentMismatch, .. }),
        "{forged:?}"
    );
    guest.reveal(&army, &nonce).await.unwrap();
    gs.mark_revealed();
    let (army, nonce) = hs.reveal().unwrap();
    host.reveal(&army, &nonce).await.unwrap();
    hs.mark_revealed();

    let hv = feed(&mut he, &mut hs, |_, v| v.is_some()).await.unwrap();
    let gv = feed(&mut ge, &mut gs, |_, v| v.is_some()).await.unwrap();
    assert_eq!(hv.opponent_army, canonical_army(CUSTOM_BLACK).unwrap());
    assert_eq!(gv.opponent_army, canonical_army(WHITE_ARMY).unwrap());
    assert!(hv.commitment_checked, "the host checked the guest's army against its commitment");
    assert!(gv.commitment_checked, "the guest checked the host's army against its commitment");

    host.play("e2e4").await.unwrap();
    until(&mut ge, "e2e4", |e| is_moved(e, 0)).await;
    guest.play("e7e5").await.unwrap();
    guest.resign().await.unwrap();
    until_room(&mut he, "result", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    assert_eq!(host.room().result().unwrap().outcome, Outcome::WhiteWins);
    server.stop().await;
}

#[tokio::test]
async fn garbage_frames_to_the_server_do_not_disturb_the_game() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (white, _we, black, mut be) =
        pair(&server, room(Variant::Chess, false, Color::White)).await;
    let (mut raw, _) = tokio_tungstenite::connect_async(server.url()).await.unwrap();
    let hello = ClientMsg::Hello {
        version: maharajah_protocol::PROTOCOL_VERSION,
        client: "raw".into(),
        redirects: false,
    };
    raw.send(Message::text(encode(&hello))).await.unwrap();
    for junk in ["{{{", "{\"t\":\"teleport\"}", "{\"t\":\"move\",\"ply\":\"x\"}", ""] {
        raw.send(Message::text(junk)).await.unwrap();
    }
    raw.send(Message::binary(vec![0u8, 159, 146, 150])).await.unwrap();
    let mut codes = Vec::new();
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(500), raw.next()).await {
        if let Message::Text(t) = m {
            if let Ok(ServerMsg::Error { code, .. }) = maharajah_protocol::decode_server(t.as_str())
            {
                codes.push(code);
            }
        }
    }
    assert!(codes.contains(&ErrorCode::Malformed), "{codes:?}");
    assert!(codes.contains(&ErrorCode::UnknownMessage), "{codes:?}");
    white.play("e2e4").await.unwrap();
    until(&mut be, "the move", |e| is_moved(e, 0)).await;
    black.play("e7e5").await.unwrap();
    server.stop().await;
}

/// A fake server: welcome, then the given frames, then pongs for pings.
async fn fake_server(frames: Vec<Message>, first: Option<ServerMsg>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let _hello = ws.next().await;
        let first = first.unwrap_or(ServerMsg::Welcome {
            version: maharajah_protocol::PROTOCOL_VERSION,
            server_version: "fake".into(),
            engine_version: "fake".into(),
            challenge: None,
        });
        ws.send(Message::text(encode(&first))).await.unwrap();
        for f in frames {
            ws.send(f).await.unwrap();
        }
        while let Some(Ok(Message::Text(t))) = ws.next().await {
            if let Ok(ClientMsg::Ping { nonce }) = decode_client(t.as_str()) {
                let pong = ServerMsg::Pong { nonce, server_time_ms: 0 };
                if ws.send(Message::text(encode(&pong))).await.is_err() {
                    break;
                }
            }
        }
    });
    format!("ws://{addr}/")
}

#[tokio::test]
async fn garbage_from_a_server_is_reported_and_ignored() {
    let frames = vec![
        Message::text("not json"),
        Message::binary(vec![1u8, 2, 3]),
        Message::text("{\"t\":\"teleport\"}"),
        Message::text("x".repeat(100_000)),
    ];
    let url = fake_server(frames, None).await;
    let (conn, mut events) = Connection::connect(&url, fast()).await.unwrap();
    let mut violations = 0;
    while violations < 4 {
        until(&mut events, "violation", |e| matches!(e, NetEvent::ProtocolViolation(_))).await;
        violations += 1;
    }
    assert!(conn.ping().await.is_ok(), "the connection survives garbage");
}

#[tokio::test]
async fn a_version_mismatch_is_refused_with_the_servers_words() {
    let refusal = ServerMsg::error(ErrorCode::VersionMismatch, "please update the app");
    let url = fake_server(vec![], Some(refusal)).await;
    match Connection::connect(&url, fast()).await {
        Err(NetError::VersionMismatch(m)) => assert_eq!(m, "please update the app"),
        other => panic!("expected a version mismatch, got {other:?}"),
    }
}

#[tokio::test]
async fn a_vanished_host_is_retried_with_growing_backoff() {
    let server = TestServer::start("127.0.0.1:0").await;
    let (white, mut we, _black, _be) =
        pair(&server, room(Variant::Chess, false, Color::White)).await;
    server.stop().await;
    let mut delays = Vec::new();
    while delays.len() < 5 {
        if let NetEvent::Disconnected { retry_in, .. } =
            until(&mut we, "retry", |e| matches!(e, NetEvent::Disconnected { .. })).await
        {
            delays.push(retry_in);
        }
    }
    assert!(delays.windows(2).all(|w| w[0] <= w[1]), "{delays:?}");
    assert_eq!(delays.last(), Some(&fast().backoff_max));
    white.close().await;
    until(&mut we, "closed", |e| matches!(e, NetEvent::Closed(CloseReason::ByUser))).await;
    assert_eq!(white.play("e2e4").await, Err(NetError::Closed));
}

/// A server that welcomes every connection and refuses the rejoin that follows (as one under
/// attack refuses with `rate_limited`): the client's back-off grows instead of restarting at
/// its first step after each welcome.
#[tokio::test]
async fn a_refused_rejoin_backs_off_like_a_failed_connect() {
    use maharajah_net::client::SeatCredentials;
    use maharajah_protocol::AccessCode;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else { return };
                let _hello = ws.next().await;
                let welcome = ServerMsg::Welcome {
                    version: maharajah_protocol::PROTOCOL_VERSION,
                    server_version: "fake".into(),
                    engine_version: "fake".into(),
                    challenge: None,
                };
                let _ = ws.send(Message::text(encode(&welcome))).await;
                let _rejoin = ws.next().await;
                let refusal = ServerMsg::error(ErrorCode::RateLimited, "too many failed attempts");
                let _ = ws.send(Message::text(encode(&refusal))).await;
                while let Some(Ok(_)) = ws.next().await {}
            });
        }
    });
    let code: AccessCode = "ABCD2345".parse().unwrap();
    let seat = SeatCredentials { code, seat: Color::White, token: "t".into() };
    let (conn, mut events) = Connection::resume(&url, fast(), seat, 0).await.unwrap();
    let mut delays = Vec::new();
    while delays.len() < 5 {
        if let NetEvent::Disconnected { retry_in, .. } =
            until(&mut events, "retry", |e| matches!(e, NetEvent::Disconnected { .. })).await
        {
            delays.push(retry_in);
        }
    }
    assert!(delays.windows(2).all(|w| w[0] <= w[1]), "{delays:?}");
    assert_eq!(delays.last(), Some(&fast().backoff_max), "{delays:?}");
    conn.close().await;
}

/// A modified host (a fake server) that tampers with the hidden setup: the guest's client
/// refuses the start with a clear reason.
#[tokio::test]
async fn a_modified_host_cannot_tamper_with_the_lock_in() {
    use maharajah_net::client::SeatCredentials;
    use maharajah_net::setup::RevealError;
    use maharajah_protocol::{AccessCode, ByColor};

    let code: AccessCode = "ABCD2345".parse().unwrap();
    let guest_setup = HiddenSetup::with_nonce(Color::Black, CUSTOM_BLACK, [5; 32]).unwrap();
    let host_setup = HiddenSetup::with_nonce(Color::White, WHITE_ARMY, [6; 32]).unwrap();
    let event = |seq: u64, event: RoomEvent| ServerMsg::Event { code: code.clone(), seq, event };
    let committed = |seat: Color, c: &str| RoomEvent::Committed { seat, commitment: c.to_owned() };
    let start = |white: &str, black: &str| RoomEvent::GameStarted {
        start_fen: String::new(),
        armies: Some(ByColor { white: white.to_owned(), black: black.to_owned() }),
        clock: None,
    };
    let seated = ServerMsg::Seated { code: code.clone(), seat: Color::Black, token: "t".into() };
    let opening = [
        seated,
        event(1, RoomEvent::SetupStarted),
        event(2, committed(Color::White, host_setup.commitment())),
        event(3, committed(Color::Black, guest_setup.commitment())),
        event(4, RoomEvent::RevealOpen),
    ];
    let altered_black = BLACK_ARMY;
    let illegal_white = WHITE_ARMY.replace("Pa2", "Qa2");
    let cases: Vec<(Vec<ServerMsg>, RevealError)> = vec![
        // The host publishes another army for the guest than the one it locked in.
        (vec![event(5, start(WHITE_ARMY, altered_black))], RevealError::OwnArmyAltered),
        // The host's own army breaks the rules.
        (
            vec![event(5, start(&illegal_white, CUSTOM_BLACK))],
            RevealError::InvalidArmy { seat: Color::White, reason: String::new() },
        ),
        // The host changes its commitment after the reveal opened (after seeing ours).
        (
            vec![event(5, committed(Color::White, &"ab".repeat(32)))],
            RevealError::LateCommitment(Color::White),
        ),
    ];
    for (tail, expected) in cases {
        let frames: Vec<Message> =
            opening.iter().chain(tail.iter()).map(|m| Message::text(encode(m))).collect();
        let url = fake_server(frames, None).await;
        let seat = SeatCredentials { code: code.clone(), seat: Color::Black, token: "t".into() };
        let (_conn, mut events) = Connection::resume(&url, fast(), seat, 0).await.unwrap();
        let mut setup = guest_setup.clone();
        let wait = async {
            loop {
                if let Some(NetEvent::Room { event, .. }) = events.recv().await {
                    if let Err(e) = setup.observe(&event) {
                        return e;
                    }
                }
            }
        };
        let err = tokio::time::timeout(WAIT, wait).await.expect("the tampering is noticed");
        match (&err, &expected) {
            (RevealError::InvalidArmy { seat, .. }, RevealError::InvalidArmy { seat: s, .. }) => {
                assert_eq!(seat, s)
            }
            _ => assert_eq!(err, expected),
        }
        assert!(!err.to_string().is_empty());
    }
}

/// A client given several addresses (the nodes of one service) skips one that does not answer
/// and, when the server it reached goes away, reconnects through the next one.
#[tokio::test]
async fn several_addresses_are_tried_in_turn() {
    // A port nobody listens on any more.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let a = TestServer::start("127.0.0.1:0").await;
    let b = TestServer::start("127.0.0.1:0").await;
    let url = format!("ws://{dead}/, {} {}", a.url(), b.url());
    let (client, mut events) = Connection::connect(&url, fast()).await.unwrap();
    until(&mut events, "connected", |e| matches!(e, NetEvent::Connected { .. })).await;
    // The room is on `a`: a guest who knows only `a` joins it.
    let seat = client.create_room(room(Variant::Chess, false, Color::White)).await.unwrap();
    let (guest, _ge) = Connection::connect(&a.url(), fast()).await.unwrap();
    assert_eq!(guest.join_room(seat.code.clone()).await.unwrap().seat, Color::Black);

    a.stop().await;
    until(&mut events, "the drop", |e| matches!(e, NetEvent::Disconnected { .. })).await;
    // Only `b` answers now.
    until(&mut events, "reconnected", |e| matches!(e, NetEvent::Connected { .. })).await;
    // `b` (another single server, not a node of a's cluster) has no such room.
    let refused = |e: &NetEvent| {
        matches!(e, NetEvent::Closed(CloseReason::SeatLost { code: ErrorCode::RoomNotFound, .. }))
    };
    until(&mut events, "the room is not on b", refused).await;
    b.stop().await;
}
