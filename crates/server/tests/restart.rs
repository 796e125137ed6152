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
    let addr = announced_address(&mut child).await;
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
async fn a_restart_keeps_a_rooms_original_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let lifetimes = maharajah_server::Lifetimes {
        open: Duration::from_secs(3),
        ..maharajah_server::Lifetimes::default()
    };
    let config = maharajah_server::Config {
        db: Some(dir.path().join("rooms.sqlite3")),
        lifetimes,
        ..maharajah_server::Config::default()
    };
    let created = std::time::Instant::now();
    let server = TestServer::start(config.clone()).await;
    let mut w = Client::connect(server.addr).await;
    let code = w.create(options(Variant::Chess, None, false, Color::White)).await;
    server.stop().await;
    // Down for 1.5 s: if the restart counted the 3 s again, the room would live until 4.5 s.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let server = TestServer::start(config).await;
    let mut c = Client::connect(server.addr).await;
    c.send(&ClientMsg::Rejoin { code: code.clone(), token: w.token.clone(), last_seq: 0 }).await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    assert!(created.elapsed() < Duration::from_millis(2_900), "the check ran in time");
    tokio::time::sleep(Duration::from_millis(3_600).saturating_sub(created.elapsed())).await;
    let mut d = Client::connect(server.addr).await;
    d.send(&ClientMsg::JoinRoom { code }).await;
    assert_eq!(d.until_error().await.0, ErrorCode::RoomNotFound, "expired 3 s after creation");
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

/// The database holds no seat token (only digests) and only its owner may read it; after a
/// `kill -9` and a restart the players still get their seats back with their tokens.
#[tokio::test]
async fn the_database_keeps_no_token_and_is_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (mut server, addr) = spawn_server(&db).await;
    let mut w = Client::connect(addr).await;
    let code = w.create(options(Variant::Chess, None, false, Color::White)).await;
    let mut b = Client::connect(addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    server.kill().await.unwrap();

    let mut files = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        for token in [&w.token, &b.token] {
            let found = bytes.windows(token.len()).any(|window| window == token.as_bytes());
            assert!(!found, "{} holds a seat token", path.display());
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "{} has mode {mode:o}", path.display());
        }
        files += 1;
    }
    assert!(files >= 1);

    let (_server, addr) = spawn_server(&db).await;
    let mut b2 = Client::connect(addr).await;
    b2.send(&ClientMsg::Rejoin { code, token: b.token.clone(), last_seq: 0 }).await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { seat: Color::Black, .. })).await;
}

/// SIGTERM drains: `/readyz` says ready before, the players are told the server is shutting
/// down, the process exits 0, and what was acknowledged is there after the restart.
#[tokio::test]
async fn sigterm_drains_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let mut child = Command::new(env!("CARGO_BIN_EXE_maharajah-server"))
        .args(["--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let wait = Duration::from_secs(10);
    let line = tokio::time::timeout(wait, out.next_line()).await.unwrap().unwrap().unwrap();
    let addr: SocketAddr = line.rsplit(' ').next().unwrap().parse().unwrap();
    let admin: SocketAddr = loop {
        let line = tokio::time::timeout(wait, err.next_line()).await.unwrap().unwrap().unwrap();
        if let Some(rest) = line.split("admin endpoints on http://").nth(1) {
            break rest.trim_end_matches('/').parse().unwrap();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = err.next_line().await {} });
    until_ready(admin).await;

    let mut w = Client::connect(addr).await;
    let code = w.create(options(Variant::Chess, None, false, Color::White)).await;
    let mut b = Client::connect(addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    let pid = child.id().unwrap().to_string();
    let term = Command::new("kill").args(["-TERM", &pid]).status().await.unwrap();
    assert!(term.success());
    assert_eq!(w.until_error().await.0, ErrorCode::ShuttingDown);
    let status = tokio::time::timeout(wait, child.wait()).await.expect("it exits").unwrap();
    assert!(status.success(), "{status}");

    let (_server, addr) = spawn_server(&db).await;
    let mut b2 = Client::connect(addr).await;
    b2.send(&ClientMsg::Rejoin { code, token: b.token.clone(), last_seq: u64::MAX }).await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let snapshot =
        snapshot_of(b2.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await);
    assert_eq!(snapshot.moves, ["e2e4"]);
}

/// Writes `n` stored chess rooms (both seats taken, one move played) straight into `db`, as a
/// server that went down with them open would have left them, in one transaction. The access
/// code and Black's token of the last one come back.
fn store_rooms(db: &Path, n: u32) -> (AccessCode, String) {
    use maharajah_server::room::Room;
    use maharajah_server::rooms::Lifetimes;
    // Creates the tables.
    drop(maharajah_server::store::Store::open(db).unwrap());
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    let opts = options(Variant::Chess, Some((300_000, 2_000)), false, Color::White);
    // Rooms live on the server's timeline, Unix milliseconds: stored now, they expire tomorrow.
    let now = u64::try_from(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis(),
    )
    .unwrap();
    let mut last = None;
    for i in 0..n {
        let b = i.to_le_bytes();
        let code =
            AccessCode::from_indices([b[0], b[0] >> 5, b[1], b[1] >> 5, b[2], b[2] >> 5, 7, 9]);
        let black = format!("{i:064x}");
        let life = Lifetimes::default();
        let mut room =
            Room::new(code.clone(), &opts, Color::White, "w".repeat(64), now, life).unwrap();
        room.join(black.clone(), now).unwrap();
        let record = serde_json::to_string(&room.to_record(now)).unwrap();
        tx.execute(
            "INSERT INTO rooms (code, record) VALUES (?1, ?2)",
            rusqlite::params![code.as_str(), record],
        )
        .unwrap();
        last = Some((code, black));
    }
    tx.commit().unwrap();
    last.unwrap()
}

/// A restart with 20,000 stored rooms answers `hello` at once (the rooms come back beside
/// serving, not before), and a stored room's player gets the seat back (the join waits for
/// the rooms rather than being told the room does not exist).
#[tokio::test]
async fn a_restart_with_many_stored_rooms_answers_hello_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (code, black) = store_rooms(&db, 20_000);
    let (_server, addr) = spawn_server(&db).await;
    let listening = std::time::Instant::now();
    let mut c = Client::connect(addr).await;
    let hello = listening.elapsed();
    assert!(hello < Duration::from_secs(1), "first welcome after {hello:?}");
    c.send(&ClientMsg::Rejoin { code, token: black, last_seq: u64::MAX }).await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { seat: Color::Black, .. })).await;
    let snapshot =
        snapshot_of(c.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await);
    assert_eq!(snapshot.phase, Phase::Playing);
}

/// Recovery figures for BENCHMARKS.md: `MAHARAJAH_ROOMS=100000 cargo test --release -p
/// maharajah-server --test restart -- --ignored --nocapture recovery_timings`.
#[tokio::test]
#[ignore = "a benchmark: run by hand, see BENCHMARKS.md"]
async fn recovery_timings() {
    let n = std::env::var("MAHARAJAH_ROOMS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (code, black) = store_rooms(&db, n);
    let started = std::time::Instant::now();
    let (_server, addr) = spawn_server(&db).await;
    let listening = started.elapsed();
    let mut c = Client::connect(addr).await;
    let hello = started.elapsed();
    c.send(&ClientMsg::Rejoin { code, token: black, last_seq: u64::MAX }).await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let ready = started.elapsed();
    println!(
        "{n} stored rooms: listening {listening:?}, first welcome {hello:?}, \
         every room back (a rejoin of the last one seated) {ready:?}"
    );
}

/// With a low open-files limit (`prlimit`), the cap sits below it: connections over the cap
/// are refused politely instead of the process running out of descriptors. Forced past the
/// limit (`--max-connections` above it), the accept loop keeps retrying instead of giving up,
/// and a new client is served once descriptors are free again.
#[tokio::test]
async fn descriptor_exhaustion_never_stops_the_server() {
    let start = |max: Option<&str>| {
        let mut cmd = Command::new("prlimit");
        cmd.arg("--nofile=100:100").arg(env!("CARGO_BIN_EXE_maharajah-server"));
        cmd.args(["--listen", "127.0.0.1:0", "--memory"]);
        if let Some(max) = max {
            // Every socket comes from 127.0.0.1: the per-address cap (64) would otherwise
            // close them before the descriptors run out, and, racing the closes of the dropped
            // ones, could refuse the client that should be served.
            cmd.args(["--max-connections", max, "--max-connections-per-ip", max]);
        }
        cmd.stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
        cmd.spawn().unwrap()
    };

    // The cap: 100 descriptors less the reserve of 64 leaves 36 connections.
    let mut child = start(None);
    let addr = announced_address(&mut child).await;
    let mut held = Vec::new();
    for _ in 0..36 {
        held.push(Client::connect(addr).await);
    }
    for _ in 0..10 {
        let mut over = Client::connect_raw(addr).await;
        assert_eq!(over.until_error().await.0, ErrorCode::Unavailable);
    }
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = Client::connect(addr).await;
    again.send(&ClientMsg::Ping { nonce: 3 }).await;
    assert!(matches!(again.recv().await, ServerMsg::Pong { nonce: 3, .. }));
    drop((held, again));
    child.kill().await.unwrap();

    // Past the limit: raw sockets fill every descriptor; accepting fails for a while.
    let mut child = start(Some("1000"));
    let addr = announced_address(&mut child).await;
    let mut sockets = Vec::new();
    for _ in 0..150 {
        if let Ok(s) = tokio::net::TcpStream::connect(addr).await {
            sockets.push(s);
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(child.try_wait().unwrap().is_none(), "the server is still running");
    drop(sockets);
    let served = tokio::time::timeout(Duration::from_secs(10), Client::connect(addr)).await;
    assert!(served.is_ok(), "a new client is served once descriptors are free");
    assert!(child.try_wait().unwrap().is_none());
}
