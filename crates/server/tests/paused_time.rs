//! Minutes of game time in milliseconds of test time: the server's timers run on tokio's
//! paused clock, which jumps ahead whenever every task is waiting.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use maharajah_protocol::*;
use maharajah_server::Config;

fn patient() -> Config {
    // No keep-alive traffic: with a paused clock it would fire at every jump.
    Config {
        ping_interval: Duration::from_secs(24 * 3600),
        idle_timeout: Duration::from_secs(24 * 3600),
        ..Config::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_pause_ends_by_itself_after_60_seconds() {
    let server = TestServer::start(patient()).await;
    let mut w = Client::connect(server.addr).await;
    w.patience = Duration::from_secs(3600);
    let code = w.create(options(Variant::Chess, Some((300_000, 0)), false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.patience = Duration::from_secs(3600);
    b.join(&code).await;
    w.play(0, "e2e4").await;
    let t0 = tokio::time::Instant::now();
    b.send(&ClientMsg::Pause { token: b.token.clone() }).await;
    w.until_event("paused", |e| matches!(e, RoomEvent::Paused { .. })).await;
    let e = w.until_event("auto resume", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    let waited = t0.elapsed();
    assert!(waited >= Duration::from_secs(60) && waited < Duration::from_secs(61), "{waited:?}");
    let RoomEvent::Resumed { clock: Some(c) } = e else { panic!("{e:?}") };
    assert_eq!(c.running, Some(Color::Black));
    assert!(c.black_ms > 299_000, "the pause did not cost Black: {c:?}");
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_five_minute_flag_falls_on_the_server_timer() {
    let server = TestServer::start(patient()).await;
    let mut w = Client::connect(server.addr).await;
    w.patience = Duration::from_secs(3600);
    let code = w.create(options(Variant::Chess, Some((300_000, 2_000)), false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.patience = Duration::from_secs(3600);
    b.join(&code).await;
    w.play(0, "e2e4").await;
    b.play(1, "e7e5").await;
    let t0 = tokio::time::Instant::now();
    // White thinks forever; Black has nothing to do but wait.
    let e = b.until_event("flag", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    let RoomEvent::GameOver { result, clock } = e else { unreachable!() };
    assert_eq!(result, GameResult { outcome: Outcome::BlackWins, reason: EndReason::Timeout });
    let c = clock.unwrap();
    assert_eq!(c.white_ms, 0);
    assert!(c.black_ms > 300_000, "Black kept its increment: {c:?}");
    assert!(t0.elapsed() >= Duration::from_secs(299) && t0.elapsed() <= Duration::from_secs(302));
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_unjoined_room_expires() {
    let lifetimes = maharajah_server::Lifetimes {
        open: Duration::from_secs(600),
        ..maharajah_server::Lifetimes::default()
    };
    let server = TestServer::start(Config { lifetimes, ..patient() }).await;
    let mut a = Client::connect(server.addr).await;
    a.patience = Duration::from_secs(3600);
    let code = a.create(options(Variant::Chess, None, false, Color::White)).await;
    tokio::time::sleep(Duration::from_secs(599)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await; // still there after 9 min 59 s ...
    b.send(&ClientMsg::Resign { token: b.token.clone() }).await;
    b.until_event("over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    // ... and a finished room is kept 15 minutes for both to see the result, then forgotten.
    tokio::time::sleep(Duration::from_secs(15 * 60 + 1)).await;
    let mut c = Client::connect(server.addr).await;
    c.send(&ClientMsg::Rejoin { code: code.clone(), token: b.token.clone(), last_seq: 0 }).await;
    assert_eq!(c.until_error().await.0, ErrorCode::RoomNotFound);

    let code2 = a.create(options(Variant::Chess, None, false, Color::White)).await;
    tokio::time::sleep(Duration::from_secs(601)).await;
    c.send(&ClientMsg::JoinRoom { code: code2 }).await;
    assert_eq!(c.until_error().await.0, ErrorCode::RoomNotFound);
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_waiting_room_of_a_departed_creator_is_gone_after_its_deadline() {
    let server = TestServer::start(patient()).await;
    let mut a = Client::connect(server.addr).await;
    a.patience = Duration::from_secs(3600);
    let code = a.create(options(Variant::Chess, None, false, Color::White)).await;
    let token = a.token.clone();
    a.close().await;
    // Back after 9 minutes: the room is still there, and coming back keeps it.
    tokio::time::sleep(Duration::from_secs(9 * 60)).await;
    let mut a2 = Client::connect(server.addr).await;
    a2.patience = Duration::from_secs(3600);
    a2.send(&ClientMsg::Rejoin { code: code.clone(), token: token.clone(), last_seq: 0 }).await;
    a2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    tokio::time::sleep(Duration::from_secs(20 * 60)).await;
    a2.close().await;
    // Gone for good: 10 minutes later nobody can join it.
    tokio::time::sleep(Duration::from_secs(10 * 60 + 1)).await;
    let mut b = Client::connect(server.addr).await;
    b.patience = Duration::from_secs(3600);
    b.send(&ClientMsg::JoinRoom { code }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::RoomNotFound);
    server.stop().await;
}
