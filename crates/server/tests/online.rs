//! End-to-end over real WebSockets on 127.0.0.1: games, resync, forged tokens, hidden setup,
//! clocks driven by the server's own timer, pauses, the disconnect shield, bad frames.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use maharajah_protocol::army::{self, commitment};
use maharajah_protocol::*;
use maharajah_server::Config;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

async fn pair(server: &TestServer, opts: RoomOptions) -> (Client, Client) {
    let mut a = Client::connect(server.addr).await;
    let code = a.create(opts).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    (a, b)
}

fn is_moved(ply: u32) -> impl Fn(&RoomEvent) -> bool {
    move |e| matches!(e, RoomEvent::Moved { ply: p, .. } if *p == ply)
}

#[tokio::test]
async fn two_clients_play_a_short_game() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) = pair(&server, options(Variant::Chess, None, false, Color::White)).await;
    assert_eq!((w.seat, b.seat), (Some(Color::White), Some(Color::Black)));
    assert_eq!(w.code, b.code);
    assert_eq!(w.code.as_ref().unwrap().as_str().len(), 8);

    let ack = w.play(0, "f2f3").await;
    let ServerMsg::MoveAck { ply: 0, seq } = ack else { panic!("{ack:?}") };
    let e = b.until_event("white's move", is_moved(0)).await;
    let RoomEvent::Moved { fen, .. } = e else { unreachable!() };
    assert!(fen.starts_with("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b"));
    // Resent: the same acknowledgement, nothing new happens.
    assert_eq!(w.play(0, "f2f3").await, ServerMsg::MoveAck { ply: 0, seq });
    // Out of turn, stale, illegal.
    assert!(matches!(
        w.play(1, "e2e4").await,
        ServerMsg::Error { code: ErrorCode::NotYourTurn, .. }
    ));
    assert!(matches!(b.play(0, "e7e5").await, ServerMsg::Error { code: ErrorCode::StalePly, .. }));
    assert!(matches!(
        b.play(1, "e7e4").await,
        ServerMsg::Error { code: ErrorCode::IllegalMove, .. }
    ));
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));
    assert!(matches!(w.play(2, "g2g4").await, ServerMsg::MoveAck { ply: 2, .. }));
    assert!(matches!(b.play(3, "d8h4").await, ServerMsg::MoveAck { ply: 3, .. }));
    let mated = GameResult { outcome: Outcome::BlackWins, reason: EndReason::Checkmate };
    for c in [&mut w, &mut b] {
        let e = c.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
        assert_eq!(e, RoomEvent::GameOver { result: mated, clock: None });
    }
    assert_eq!(w.last_seq, b.last_seq, "both saw every event");
    server.stop().await;
}

#[tokio::test]
async fn forged_tokens_are_refused_and_change_nothing() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) = pair(&server, options(Variant::Chess, None, false, Color::White)).await;
    let code = w.code.clone().unwrap();
    // A move with the opponent's seat but a made-up token.
    w.send(&ClientMsg::Move { token: "00".repeat(32), ply: 0, uci: "e2e4".into() }).await;
    assert_eq!(w.until_error().await.0, ErrorCode::Forbidden);
    // Black tries to play White's move with its own token: not its turn.
    assert!(matches!(
        b.play(0, "e2e4").await,
        ServerMsg::Error { code: ErrorCode::NotYourTurn, .. }
    ));
    // A stranger cannot rejoin a seat without the token.
    let mut stranger = Client::connect(server.addr).await;
    stranger
        .send(&ClientMsg::Rejoin { code: code.clone(), token: "ab".repeat(32), last_seq: 0 })
        .await;
    assert_eq!(stranger.until_error().await.0, ErrorCode::Forbidden);
    // Nor act without a seat.
    stranger.send(&ClientMsg::Resign { token: w.token.clone() }).await;
    assert_eq!(stranger.until_error().await.0, ErrorCode::NotSeated);
    // Nor join a full room.
    stranger.send(&ClientMsg::JoinRoom { code }).await;
    assert_eq!(stranger.until_error().await.0, ErrorCode::RoomFull);
    // Nothing happened: White's first move is still ply 0.
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { ply: 0, .. }));
    server.stop().await;
}

#[tokio::test]
async fn reconnect_with_resync_from_missed_events_or_snapshot() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) = pair(&server, options(Variant::Chess, None, false, Color::White)).await;
    w.play(0, "e2e4").await;
    b.until_event("e4", is_moved(0)).await;
    let (code, token, seen) = (b.code.clone().unwrap(), b.token.clone(), b.last_seq);
    b.close().await;
    w.until_event("black left", |e| matches!(e, RoomEvent::Presence { connected: false, .. }))
        .await;
    // While Black is away, White's move waits: it is Black's turn.
    assert!(matches!(
        w.play(1, "d2d4").await,
        ServerMsg::Error { code: ErrorCode::NotYourTurn, .. }
    ));

    let mut b2 = Client::connect(server.addr).await;
    b2.last_seq = seen;
    b2.send(&ClientMsg::Rejoin { code: code.clone(), token: token.clone(), last_seq: seen }).await;
    let seated = b2.recv().await;
    assert!(matches!(seated, ServerMsg::Seated { seat: Color::Black, .. }), "{seated:?}");
    // Exactly the missed events: own departure and return.
    let m1 = b2.recv().await;
    let m2 = b2.recv().await;
    assert!(
        matches!(&m1, ServerMsg::Event { seq, event: RoomEvent::Presence { seat: Color::Black, connected: false }, .. } if *seq == seen + 1),
        "{m1:?}"
    );
    assert!(
        matches!(&m2, ServerMsg::Event { event: RoomEvent::Presence { connected: true, .. }, .. }),
        "{m2:?}"
    );
    assert!(matches!(b2.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));
    w.until_event("e5", is_moved(1)).await;
    b2.close().await;

    // A client claiming a future event number gets a full snapshot.
    let mut b3 = Client::connect(server.addr).await;
    b3.send(&ClientMsg::Rejoin { code, token, last_seq: 9_999 }).await;
    b3.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    match b3.recv().await {
        ServerMsg::Snapshot { snapshot } => {
            assert_eq!(snapshot.moves, ["e2e4", "e7e5"]);
            assert_eq!(snapshot.phase, Phase::Playing);
            assert!(snapshot.seats.white.connected && snapshot.seats.black.connected);
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn hidden_lock_in_ordering_and_tampered_reveal() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Maharajah, Some((60_000, 0)), true, Color::White)).await;
    let (nw, nb) = ([7u8; 32], [9u8; 32]);
    let cw = commitment(CUSTOM_WHITE, &nw).unwrap();
    let cb = commitment(BLACK_ARMY, &nb).unwrap();
    let cb_check = cb.clone();

    w.send(&ClientMsg::Commit { token: w.token.clone(), commitment: cw.clone() }).await;
    w.until("commit ack", |m| matches!(m, ServerMsg::SetupAck { .. })).await;
    let e = b.until_event("white committed", |e| matches!(e, RoomEvent::Committed { .. })).await;
    assert_eq!(e, RoomEvent::Committed { seat: Color::White, commitment: cw });
    // Revealing before the opponent has committed is refused.
    w.send(&ClientMsg::Reveal {
        token: w.token.clone(),
        army: CUSTOM_WHITE.into(),
        nonce: hex::encode(nw),
    })
    .await;
    assert_eq!(w.until_error().await.0, ErrorCode::WrongPhase);

    b.send(&ClientMsg::Commit { token: b.token.clone(), commitment: cb }).await;
    w.until_event("reveal open", |e| matches!(e, RoomEvent::RevealOpen)).await;
    // Tampered: a different army than committed.
    w.send(&ClientMsg::Reveal {
        token: w.token.clone(),
        army: WHITE_ARMY.into(),
        nonce: hex::encode(nw),
    })
    .await;
    assert_eq!(w.until_error().await.0, ErrorCode::CommitmentMismatch);
    w.send(&ClientMsg::Reveal {
        token: w.token.clone(),
        army: CUSTOM_WHITE.into(),
        nonce: hex::encode(nw),
    })
    .await;
    w.until("reveal ack", |m| matches!(m, ServerMsg::SetupAck { .. })).await;
    // Black learns that White revealed, but not the army.
    let revealed = b
        .until("white revealed", |m| {
            matches!(m, ServerMsg::Event { event: RoomEvent::Revealed { .. }, .. })
        })
        .await;
    assert!(!encode(&revealed).contains("Md1"));
    // Forged: Black reveals with White's... no, with a made-up token.
    b.send(&ClientMsg::Reveal {
        token: "11".repeat(32),
        army: BLACK_ARMY.into(),
        nonce: hex::encode(nb),
    })
    .await;
    assert_eq!(b.until_error().await.0, ErrorCode::Forbidden);
    b.send(&ClientMsg::Reveal {
        token: b.token.clone(),
        army: BLACK_ARMY.into(),
        nonce: hex::encode(nb),
    })
    .await;
    for c in [&mut w, &mut b] {
        let e = c.until_event("opened", |e| matches!(e, RoomEvent::ArmiesOpened { .. })).await;
        let RoomEvent::ArmiesOpened { armies, nonces } = e else { unreachable!() };
        assert_eq!(nonces.white, hex::encode(nw));
        let opens =
            army::opens(&cb_check, &armies.black, &army::parse_nonce(&nonces.black).unwrap());
        assert!(opens.unwrap(), "Black's army opens Black's commitment");
        let e = c.until_event("start", |e| matches!(e, RoomEvent::GameStarted { .. })).await;
        let RoomEvent::GameStarted { armies, start_fen, clock } = e else { unreachable!() };
        let armies = armies.unwrap();
        let canonical = army::canonical_army(BLACK_ARMY).unwrap();
        assert_eq!(
            (armies.white.as_str(), armies.black.as_str()),
            (CUSTOM_WHITE, canonical.as_str())
        );
        assert!(start_fen.contains('M'));
        assert_eq!(clock.unwrap().running, Some(Color::White));
    }
    assert!(matches!(w.play(0, "d1c3").await, ServerMsg::MoveAck { .. }), "the Maharajah leaps");
    server.stop().await;
}

#[tokio::test]
async fn the_server_timer_detects_a_flag_and_annuls_before_a_first_move() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Chess, Some((300, 0)), false, Color::White)).await;
    // Nobody moves and nobody reports anything: the server's own timer ends the game.
    for c in [&mut w, &mut b] {
        let e = c.until_event("flag", |e| matches!(e, RoomEvent::GameOver { .. })).await;
        let RoomEvent::GameOver { result, clock } = e else { unreachable!() };
        assert_eq!(
            result,
            GameResult { outcome: Outcome::Annulled, reason: EndReason::TimeoutBeforeFirstMove }
        );
        assert_eq!(clock.unwrap().white_ms, 0);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_flag_after_both_first_moves_loses() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Chess, Some((3_000, 0)), false, Color::White)).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { .. }));
    let e = b.until_event("flag", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    let RoomEvent::GameOver { result, .. } = e else { unreachable!() };
    assert_eq!(result, GameResult { outcome: Outcome::BlackWins, reason: EndReason::Timeout });
    server.stop().await;
}

#[tokio::test]
async fn pause_and_early_resume() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) =
        pair(&server, options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    w.play(0, "e2e4").await;
    b.send(&ClientMsg::Pause { token: b.token.clone() }).await;
    for c in [&mut w, &mut b] {
        let e = c.until_event("paused", |e| matches!(e, RoomEvent::Paused { .. })).await;
        let RoomEvent::Paused { pause, clock } = e else { unreachable!() };
        assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::Requested));
        assert!(pause.remaining_ms > 59_000 && pause.remaining_ms <= 60_000);
        assert_eq!(clock.unwrap().running, None);
    }
    assert!(matches!(
        b.play(1, "e7e5").await,
        ServerMsg::Error { code: ErrorCode::GamePaused, .. }
    ));
    w.send(&ClientMsg::Resume { token: w.token.clone() }).await;
    assert_eq!(w.until_error().await.0, ErrorCode::NotPaused, "only the pauser resumes early");
    b.send(&ClientMsg::Resume { token: b.token.clone() }).await;
    let e = w.until_event("resumed", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    assert!(matches!(
        e,
        RoomEvent::Resumed { clock: Some(ClockView { running: Some(Color::Black), .. }) }
    ));
    b.send(&ClientMsg::Pause { token: b.token.clone() }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::PauseUsed);
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { .. }));
    server.stop().await;
}

#[tokio::test]
async fn disconnect_shield_pauses_for_the_absent_player_once() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, b) =
        pair(&server, options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    w.play(0, "e2e4").await;
    let (code, token) = (b.code.clone().unwrap(), b.token.clone());
    b.close().await;
    let e = w.until_event("shield", |e| matches!(e, RoomEvent::Paused { .. })).await;
    let RoomEvent::Paused { pause, .. } = e else { unreachable!() };
    assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::Disconnected));
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::Rejoin { code: code.clone(), token: token.clone(), last_seq: 0 }).await;
    w.until_event("resumed on return", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    w.drain_pending();
    b.close().await;
    // The pause is spent: this time Black's clock runs while Black is away.
    let e = w
        .until_event("presence", |e| matches!(e, RoomEvent::Presence { connected: false, .. }))
        .await;
    assert_eq!(e, RoomEvent::Presence { seat: Color::Black, connected: false });
    assert!(w.try_recv(Duration::from_millis(300)).await.is_none(), "no pause this time");
    // A client that lost its state sends a number the server does not know: full snapshot.
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::Rejoin { code, token, last_seq: u64::MAX }).await;
    let snap = b.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
    let ServerMsg::Snapshot { snapshot } = snap else { unreachable!() };
    assert!(snapshot.pause.is_none());
    assert_eq!(snapshot.clock.unwrap().running, Some(Color::Black));
    assert!(snapshot.clock.unwrap().black_ms < 60_000 - 250);
    server.stop().await;
}

#[tokio::test]
async fn bad_frames_get_typed_errors() {
    let server = TestServer::start(Config::default()).await;
    // Something other than hello first.
    let mut c = Client::connect_raw(server.addr).await;
    c.send(&ClientMsg::Ping { nonce: 1 }).await;
    assert_eq!(c.until_error().await.0, ErrorCode::HelloRequired);
    assert!(c.is_closed_by_server().await);
    // Another protocol version: a message both sides can show, then close.
    let mut c = Client::connect_raw(server.addr).await;
    c.send(&ClientMsg::Hello {
        version: PROTOCOL_VERSION + 1,
        client: "future".into(),
        redirects: false,
    })
    .await;
    let (code, message) = c.until_error().await;
    assert_eq!(code, ErrorCode::VersionMismatch);
    assert!(message.contains(&format!("version {}", PROTOCOL_VERSION + 1)), "{message}");
    assert!(c.is_closed_by_server().await);
    // After hello, bad frames are answered and the connection stays usable.
    let mut c = Client::connect(server.addr).await;
    let cases = [
        ("{not json".to_owned(), ErrorCode::Malformed),
        (r#"{"t":"teleport"}"#.to_owned(), ErrorCode::UnknownMessage),
        (r#"{"t":"move","ply":"x"}"#.to_owned(), ErrorCode::Malformed),
        (r#"{"t":"join_room","code":"ABCDEFGH"}"#.to_owned(), ErrorCode::RoomNotFound),
        (
            format!(r#"{{"t":"ping","nonce":1,"pad":"{}"}}"#, "x".repeat(MAX_FRAME_BYTES)),
            ErrorCode::FrameTooLarge,
        ),
    ];
    for (frame, expected) in cases {
        c.send_raw(&frame).await;
        assert_eq!(c.until_error().await.0, expected, "{}", &frame[..frame.len().min(40)]);
    }
    c.send(&ClientMsg::Ping { nonce: 42 }).await;
    assert!(matches!(c.recv().await, ServerMsg::Pong { nonce: 42, .. }));
    // Far too large: the connection ends.
    c.send_raw(&"x".repeat(8 * MAX_FRAME_BYTES)).await;
    assert!(c.is_closed_by_server().await);
    server.stop().await;
}

#[tokio::test]
async fn failed_joins_are_rate_limited_per_address() {
    let server =
        TestServer::start(Config { join_failures_per_minute: 3, ..Config::default() }).await;
    let mut c = Client::connect(server.addr).await;
    let code: AccessCode = "ZZZZZZZZ".parse().unwrap();
    for _ in 0..3 {
        c.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
        assert_eq!(c.until_error().await.0, ErrorCode::RoomNotFound);
    }
    c.send(&ClientMsg::JoinRoom { code }).await;
    assert_eq!(c.until_error().await.0, ErrorCode::RateLimited);
    server.stop().await;
}

/// Another client on the same address (the opponent on the same Wi-Fi, a carrier NAT) floods
/// bad joins and bad rejoins: a seated player's rejoin with its valid token still succeeds,
/// while the flooder's guesses, room codes and tokens alike, all get `rate_limited`.
#[tokio::test]
async fn a_valid_rejoin_is_not_locked_out_by_another_clients_failures() {
    let server =
        TestServer::start(Config { join_failures_per_minute: 3, ..Config::default() }).await;
    let (mut w, mut b) = pair(&server, options(Variant::Chess, None, false, Color::White)).await;
    w.play(0, "e2e4").await;
    b.until_event("e4", is_moved(0)).await;
    let (code, token, seen) = (b.code.clone().unwrap(), b.token.clone(), b.last_seq);
    b.close().await;

    let mut flooder = Client::connect(server.addr).await;
    let missing: AccessCode = "ZZZZZZZZ".parse().unwrap();
    for _ in 0..20 {
        flooder.send(&ClientMsg::JoinRoom { code: missing.clone() }).await;
        flooder.until_error().await;
    }
    flooder.send(&ClientMsg::JoinRoom { code: missing.clone() }).await;
    assert_eq!(flooder.until_error().await.0, ErrorCode::RateLimited);
    // Over the limit, a guessed rejoin learns nothing: no room and a wrong token look alike.
    let wrong = ClientMsg::Rejoin { code: code.clone(), token: "ab".repeat(32), last_seq: 0 };
    flooder.send(&wrong).await;
    assert_eq!(flooder.until_error().await.0, ErrorCode::RateLimited);
    flooder.send(&ClientMsg::Rejoin { code: missing, token: "ab".repeat(32), last_seq: 0 }).await;
    assert_eq!(flooder.until_error().await.0, ErrorCode::RateLimited);

    let mut b2 = Client::connect(server.addr).await;
    b2.last_seq = seen;
    b2.send(&ClientMsg::Rejoin { code, token, last_seq: seen }).await;
    let seated = b2.recv().await;
    assert!(matches!(seated, ServerMsg::Seated { seat: Color::Black, .. }), "{seated:?}");
    server.stop().await;
}

/// Three failed joins from `c` (the limit in these tests), then the fourth is refused.
async fn flood(c: &mut Client, missing: &AccessCode) {
    let join = ClientMsg::JoinRoom { code: missing.clone() };
    for _ in 0..3 {
        c.send(&join).await;
        assert_eq!(c.until_error().await.0, ErrorCode::RoomNotFound);
    }
    c.send(&join).await;
    assert_eq!(c.until_error().await.0, ErrorCode::RateLimited);
}

/// Behind a trusted proxy each forwarded client has its own limits; from anyone else the
/// `X-Forwarded-For` header is ignored (a client cannot escape its limits by sending one).
#[tokio::test]
async fn limits_follow_the_forwarded_address_from_trusted_proxies_only() {
    let missing: AccessCode = "ZZZZZZZZ".parse().unwrap();
    let limits =
        Config { join_failures_per_minute: 3, max_connections_per_ip: 2, ..Config::default() };
    let proxied = TestServer::start(Config {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..limits.clone()
    })
    .await;
    let mut a = Client::connect_forwarded(proxied.addr, "10.0.0.1").await;
    flood(&mut a, &missing).await;
    // Another client behind the same proxy is not limited by the first one's failures…
    let mut b = Client::connect_forwarded(proxied.addr, "203.0.113.9, 10.0.0.2").await;
    b.send(&ClientMsg::JoinRoom { code: missing.clone() }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::RoomNotFound);
    // …and connections are counted per forwarded client: 10.0.0.1 has two, a third is refused.
    let _a2 = Client::connect_forwarded(proxied.addr, "10.0.0.1").await;
    let mut request = format!("ws://{}", proxied.addr).into_client_request().unwrap();
    request.headers_mut().insert("x-forwarded-for", "10.0.0.1".parse().unwrap());
    let mut a3 = Client::connect_with(request).await;
    assert_eq!(a3.until_error().await.0, ErrorCode::RateLimited);
    assert!(a3.is_closed_by_server().await);
    proxied.stop().await;

    let direct = TestServer::start(limits).await;
    let mut a = Client::connect_forwarded(direct.addr, "10.0.0.1").await;
    flood(&mut a, &missing).await;
    let mut b = Client::connect_forwarded(direct.addr, "10.0.0.2").await;
    b.send(&ClientMsg::JoinRoom { code: missing }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::RateLimited, "the header is not trusted");
    direct.stop().await;
}

/// Binary frames count like text ones: a flood of them is rate limited and, past the
/// refusal cut-off, the connection is closed.
#[tokio::test]
async fn a_flood_of_binary_frames_is_cut_off() {
    let server = TestServer::start(Config::default()).await;
    let mut c = Client::connect(server.addr).await;
    let mut sent = 0;
    while sent < 1_000 && c.send_binary(vec![0; 16]).await {
        sent += 1;
    }
    let mut codes = Vec::new();
    while let Some(msg) = c.try_recv(Duration::from_secs(2)).await {
        if let ServerMsg::Error { code, .. } = msg {
            codes.push(code);
        }
    }
    let limited = codes.iter().filter(|c| **c == ErrorCode::RateLimited).count();
    assert!(limited > 0, "{sent} sent, {} refusals, none rate_limited", codes.len());
    assert!(codes.len() <= 101, "the cut-off after 100 refusals: {}", codes.len());
    assert!(c.is_closed_by_server().await, "{sent} binary frames sent");
    server.stop().await;
}

/// One live connection per seat, the newest: after a player rejoins from a second socket, the
/// first can no longer act with the same token.
#[tokio::test]
async fn a_seat_acts_from_its_newest_connection_only() {
    let server = TestServer::start(Config::default()).await;
    let (mut w, mut b) = pair(&server, options(Variant::Chess, None, false, Color::White)).await;
    let (code, token) = (w.code.clone().unwrap(), w.token.clone());
    let mut w2 = Client::connect(server.addr).await;
    w2.send(&ClientMsg::Rejoin { code: code.clone(), token: token.clone(), last_seq: 0 }).await;
    w2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    assert_eq!(w.until_error().await.0, ErrorCode::Forbidden, "told the seat moved on");
    let stale = w.play(0, "e2e4").await;
    assert!(matches!(stale, ServerMsg::Error { code: ErrorCode::Forbidden, .. }), "{stale:?}");
    assert!(matches!(w2.play(0, "d2d4").await, ServerMsg::MoveAck { .. }));
    let moved = b.until_event("d4", is_moved(0)).await;
    assert!(matches!(moved, RoomEvent::Moved { ref uci, .. } if uci == "d2d4"), "{moved:?}");
    server.stop().await;
}

/// The admin endpoints: health, readiness, and metrics that follow what happens (connections,
/// rooms by state, moves, refusals by code, commit latency with durable storage).
#[tokio::test]
async fn admin_endpoints_report_health_readiness_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let admin = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = admin.local_addr().unwrap();
    let db = Some(dir.path().join("rooms.sqlite3"));
    let server = TestServer::start_with(Config { db, ..Config::default() }, Some(admin)).await;
    let mut w = Client::connect(server.addr).await;
    assert_eq!(http_get(at, "/healthz").await.0, 200);
    // Ready once the (here: no) stored rooms are back, which happens beside serving.
    until_ready(at).await;
    assert_eq!(http_get(at, "/nope").await.0, 404);

    let code = w.create(options(Variant::Chess, None, false, Color::White)).await;
    let (_, body) = http_get(at, "/metrics").await;
    assert_eq!(metric(&body, "maharajah_connections"), Some(1.0), "{body}");
    assert_eq!(metric(&body, r#"maharajah_rooms{state="waiting"}"#), Some(1.0), "{body}");
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    w.until_event("started", |e| matches!(e, RoomEvent::GameStarted { .. })).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    // A move out of turn, and a join of a missing room: two refusals by code.
    assert!(matches!(w.play(1, "d2d4").await, ServerMsg::Error { .. }));
    b.send(&ClientMsg::JoinRoom { code: "ZZZZZZZZ".parse().unwrap() }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::RoomNotFound);

    let (_, body) = http_get(at, "/metrics").await;
    assert_eq!(metric(&body, "maharajah_connections"), Some(2.0), "{body}");
    assert_eq!(metric(&body, r#"maharajah_rooms{state="waiting"}"#), Some(0.0), "{body}");
    assert_eq!(metric(&body, r#"maharajah_rooms{state="playing"}"#), Some(1.0), "{body}");
    assert_eq!(metric(&body, "maharajah_moves_total"), Some(1.0), "{body}");
    assert_eq!(metric(&body, r#"maharajah_refusals_total{code="room_not_found"}"#), Some(1.0));
    assert!(body.contains(r#"maharajah_refusals_total{code="not_your_turn"} 1"#), "{body}");
    let commits = metric(&body, "maharajah_commit_seconds_count").unwrap_or(0.0);
    assert!(commits >= 3.0, "create, join, move were stored: {body}");
    assert_eq!(metric(&body, r#"maharajah_commit_seconds_bucket{le="+Inf"}"#), Some(commits));
    assert!(!body.contains(&w.token) && !body.contains("127.0.0.1"), "no secrets: {body}");
    w.close().await;
    b.close().await;
    server.stop().await;
}

/// A connection that never says hello is closed after the hello deadline, even while it
/// keeps answering and sending pings.
#[tokio::test]
async fn a_connection_without_hello_is_closed_after_the_deadline() {
    let config = Config { hello_timeout: Duration::from_millis(300), ..Config::default() };
    let server = TestServer::start(config).await;
    let mut silent = Client::connect_raw(server.addr).await;
    let mut pinging = true;
    for _ in 0..10 {
        pinging &= silent.send_ping().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let closed = !pinging || silent.is_closed_by_server().await;
    assert!(closed, "still open a second after a 300 ms hello deadline");
    // One that says hello in time stays.
    let mut c = Client::connect(server.addr).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    c.send(&ClientMsg::Ping { nonce: 7 }).await;
    assert!(matches!(c.recv().await, ServerMsg::Pong { nonce: 7, .. }));
    server.stop().await;
}

/// Over the connection cap a new connection is told `unavailable` and closed; the ones open
/// are served, and a place that frees up is taken again.
#[tokio::test]
async fn over_the_connection_cap_new_ones_are_refused_politely() {
    let server = TestServer::start(Config { max_connections: Some(3), ..Config::default() }).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(Client::connect(server.addr).await);
    }
    let mut over = Client::connect_raw(server.addr).await;
    assert_eq!(over.until_error().await.0, ErrorCode::Unavailable);
    assert!(over.is_closed_by_server().await);
    held[0].send(&ClientMsg::Ping { nonce: 1 }).await;
    assert!(matches!(held[0].recv().await, ServerMsg::Pong { nonce: 1, .. }));
    held.pop().unwrap().close().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let _again = Client::connect(server.addr).await;
    server.stop().await;
}

#[tokio::test]
async fn room_creation_is_rate_limited_per_address() {
    let server =
        TestServer::start(Config { rooms_per_minute_per_ip: 2, ..Config::default() }).await;
    let mut c = Client::connect(server.addr).await;
    c.create(options(Variant::Chess, None, false, Color::White)).await;
    c.create(options(Variant::Horde, None, false, Color::Black)).await;
    c.send(&ClientMsg::CreateRoom {
        options: options(Variant::Chess, None, false, Color::White),
        rated: false,
    })
    .await;
    assert_eq!(c.until_error().await.0, ErrorCode::RateLimited);
    server.stop().await;
}

#[tokio::test]
async fn one_address_may_keep_only_so_many_rooms_waiting() {
    let server = TestServer::start(Config { waiting_rooms_per_ip: 2, ..Config::default() }).await;
    let mut c = Client::connect(server.addr).await;
    let first = c.create(options(Variant::Chess, None, false, Color::White)).await;
    c.create(options(Variant::Horde, None, false, Color::Black)).await;
    c.send(&ClientMsg::CreateRoom {
        options: options(Variant::Chess, None, false, Color::White),
        rated: false,
    })
    .await;
    let (code, message) = c.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited);
    assert!(message.contains("2 rooms from your address already wait"), "{message}");
    // Once somebody joins one of them it no longer waits, and there is room for a new one.
    let mut other = Client::connect(server.addr).await;
    other.join(&first).await;
    let mut again = None;
    for _ in 0..50 {
        c.send(&ClientMsg::CreateRoom {
            options: options(Variant::Chess, None, false, Color::White),
            rated: false,
        })
        .await;
        match c
            .until("an answer", |m| matches!(m, ServerMsg::Seated { .. } | ServerMsg::Error { .. }))
            .await
        {
            ServerMsg::Seated { code, .. } => {
                again = Some(code);
                break;
            }
            // The room's task counts the join a moment after the joiner's answer.
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(again.is_some(), "a new room once one of the two has an opponent");
    server.stop().await;
}

#[tokio::test]
async fn a_silent_connection_is_noticed_and_the_shield_starts() {
    let config = Config {
        ping_interval: Duration::from_millis(500),
        idle_timeout: Duration::from_millis(3_000),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let (mut w, b) =
        pair(&server, options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    // Black's phone vanishes: the socket stays open but nothing answers the server's pings.
    let e = w.until_event("shield", |e| matches!(e, RoomEvent::Paused { .. })).await;
    let RoomEvent::Paused { pause, .. } = e else { unreachable!() };
    assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::Disconnected));
    // White, who keeps reading (and so answers pings), is still connected.
    w.send(&ClientMsg::Ping { nonce: 5 }).await;
    w.until("pong", |m| matches!(m, ServerMsg::Pong { nonce: 5, .. })).await;
    drop(b);
    server.stop().await;
}

#[tokio::test]
async fn floods_are_rate_limited_and_connections_capped_per_address() {
    let config = Config { messages_per_second: 5, max_connections_per_ip: 2, ..Config::default() };
    let server = TestServer::start(config).await;
    let mut c = Client::connect(server.addr).await;
    for nonce in 0..30 {
        c.send(&ClientMsg::Ping { nonce }).await;
    }
    let (code, _) = c.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited);
    // A second connection from the same address is fine, a third is not.
    let _second = Client::connect(server.addr).await;
    let connect = tokio_tungstenite::connect_async(format!("ws://{}", server.addr)).await;
    match connect {
        Err(_) => {}
        Ok((mut ws, _)) => {
            use futures_util::StreamExt;
            let next = tokio::time::timeout(Duration::from_secs(5), ws.next()).await.unwrap();
            assert!(!matches!(next, Some(Ok(tokio_tungstenite::tungstenite::Message::Text(_)))));
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_right_behind_a_refused_action_is_answered_after_the_refusal() {
    // The client's barrier: an action the room refuses, then a ping in the same segment. The
    // room's refusal must come first, or the client would take the pong as success.
    let server = TestServer::start(Config::default()).await;
    let mut w = Client::connect(server.addr).await;
    let code = w.create(options(Variant::Chess, None, false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    for nonce in 1..=10 {
        let pause = ClientMsg::Pause { token: w.token.clone() };
        w.send_together(&[pause, ClientMsg::Ping { nonce }]).await;
        let first = w
            .until("the refusal or the pong", |m| {
                matches!(m, ServerMsg::Error { .. } | ServerMsg::Pong { .. })
            })
            .await;
        assert!(
            matches!(first, ServerMsg::Error { code: ErrorCode::NoClock, .. }),
            "round {nonce}: {first:?}"
        );
        w.until("the pong", |m| matches!(m, ServerMsg::Pong { nonce: n, .. } if *n == nonce)).await;
    }
    server.stop().await;
}
