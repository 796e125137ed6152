//! `kill -9` of the server process mid-game, restart on the same database: both clients come
//! back, no acknowledged move is lost, and nobody's clock ran while the server was down.
#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use maharajah_protocol::*;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

async fn spawn_server(db: &Path) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_maharajah-server"))
        .args(["--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("the server announces its address")
        .unwrap()
        .unwrap();
    let addr = line.rsplit(' ').next().unwrap().parse().unwrap();
    (child, addr)
}

fn snapshot_of(m: ServerMsg) -> Snapshot {
    match m {
        ServerMsg::Snapshot { snapshot } => *snapshot,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

#[tokio::test]
async fn kill_9_mid_game_then_restart_recovers_the_room() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (mut server, addr) = spawn_server(&db).await;

    let mut w = Client::connect(addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 1_000)), false, Color::White)).await;
    let mut b = Client::connect(addr).await;
    b.join(&code).await;
    for (ply, uci) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
        let c = if ply % 2 == 0 { &mut w } else { &mut b };
        let ack = c.play(ply as u32, uci).await;
        assert!(matches!(ack, ServerMsg::MoveAck { .. }), "{ack:?}");
    }
    // The clocks as the server stored them with the last acknowledged move.
    let e = b.until_event("g1f3", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;
    let RoomEvent::Moved { clock: Some(stored), .. } = e else { panic!("{e:?}") };

    server.kill().await.unwrap(); // SIGKILL: no shutdown code runs
    tokio::time::sleep(Duration::from_millis(700)).await; // the outage
    let (mut server, addr) = spawn_server(&db).await;

    // White (not to move) returns first: the room is there, frozen for the outage.
    let mut w2 = Client::connect(addr).await;
    w2.send(&ClientMsg::Rejoin { code: code.clone(), token: w.token.clone(), last_seq: u64::MAX })
        .await;
    w2.until("seated", |m| matches!(m, ServerMsg::Seated { seat: Color::White, .. })).await;
    let snap = snapshot_of(w2.recv().await);
    assert_eq!(snap.moves, ["e2e4", "e7e5", "g1f3"], "no acknowledged move is lost");
    let pause = snap.pause.unwrap();
    assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::ServerRestart));
    let clock = snap.clock.unwrap();
    assert_eq!(
        (clock.white_ms, clock.black_ms, clock.running),
        (stored.white_ms, stored.black_ms, None)
    );
    assert!(snap.seats.white.pause_available && snap.seats.black.pause_available);

    // Black returns with its last event number and gets exactly what it missed.
    let mut b2 = Client::connect(addr).await;
    b2.last_seq = b.last_seq;
    b2.send(&ClientMsg::Rejoin {
        code: code.clone(),
        token: b.token.clone(),
        last_seq: b.last_seq,
    })
    .await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { seat: Color::Black, .. })).await;
    b2.until_event("restart pause", |e| {
        matches!(
            e,
            RoomEvent::Paused { pause: PauseView { reason: PauseReason::ServerRestart, .. }, .. }
        )
    })
    .await;
    let e = w2.until_event("resumed", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    let RoomEvent::Resumed { clock: Some(c) } = e else { panic!("{e:?}") };
    assert_eq!(c.running, Some(Color::Black));
    assert!(
        c.black_ms + 50 >= stored.black_ms,
        "the outage cost Black nothing: {c:?} vs {stored:?}"
    );

    // The game goes on from the server's position; a stale resend is still recognised.
    assert!(matches!(w2.play(2, "g1f3").await, ServerMsg::MoveAck { ply: 2, .. }));
    assert!(matches!(b2.play(3, "b8c6").await, ServerMsg::MoveAck { ply: 3, .. }));
    w2.until_event("b8c6", |e| matches!(e, RoomEvent::Moved { ply: 3, .. })).await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn a_clean_shutdown_and_restart_in_process_keeps_a_hidden_setup() {
    let dir = tempfile::tempdir().unwrap();
    let config = maharajah_server::Config {
        db: Some(dir.path().join("rooms.sqlite3")),
        ..maharajah_server::Config::default()
    };
    let server = TestServer::start(config.clone()).await;
    let mut w = Client::connect(server.addr).await;
    let code = w.create(options(Variant::Maharajah, None, true, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    let n = [3u8; 32];
    let c = army::commitment(CUSTOM_WHITE, &n).unwrap();
    w.send(&ClientMsg::Commit { token: w.token.clone(), commitment: c }).await;
    w.until("ack", |m| matches!(m, ServerMsg::SetupAck { .. })).await;
    server.stop().await;

    let server = TestServer::start(config).await;
    let mut w2 = Client::connect(server.addr).await;
    w2.send(&ClientMsg::Rejoin { code: code.clone(), token: w.token.clone(), last_seq: u64::MAX })
        .await;
    w2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let snap = snapshot_of(w2.recv().await);
    assert_eq!(snap.phase, Phase::Setup);
    assert!(snap.seats.white.committed && !snap.seats.black.committed);
    // Black commits, both reveal: the commitment made before the restart still binds White.
    let mut b2 = Client::connect(server.addr).await;
    b2.send(&ClientMsg::Rejoin { code, token: b.token.clone(), last_seq: 0 }).await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let nb = [4u8; 32];
    let cb = army::commitment(BLACK_ARMY, &nb).unwrap();
    b2.send(&ClientMsg::Commit { token: b.token.clone(), commitment: cb }).await;
    w2.until_event("reveal open", |e| matches!(e, RoomEvent::RevealOpen)).await;
    w2.send(&ClientMsg::Reveal {
        token: w.token.clone(),
        army: WHITE_ARMY.into(),
        nonce: hex::encode(n),
    })
    .await;
    assert_eq!(w2.until_error().await.0, ErrorCode::CommitmentMismatch);
    server.stop().await;
}

#[tokio::test]
async fn a_clean_shutdown_spends_nobodys_pause() {
    let dir = tempfile::tempdir().unwrap();
    let config = maharajah_server::Config {
        db: Some(dir.path().join("rooms.sqlite3")),
        ..maharajah_server::Config::default()
    };
    let server = TestServer::start(config.clone()).await;
    let mut w = Client::connect(server.addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "d2d4").await, ServerMsg::MoveAck { .. }));
    server.stop().await;
    assert!(matches!(b.until_error().await.0, ErrorCode::ShuttingDown));

    let server = TestServer::start(config).await;
    let mut b2 = Client::connect(server.addr).await;
    b2.send(&ClientMsg::Rejoin { code, token: b.token.clone(), last_seq: u64::MAX }).await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let snap = snapshot_of(b2.recv().await);
    assert!(snap.seats.white.pause_available && snap.seats.black.pause_available, "{snap:?}");
    assert_eq!(snap.clock.unwrap().running, Some(Color::Black), "Black is back: its clock runs");
    server.stop().await;
}
