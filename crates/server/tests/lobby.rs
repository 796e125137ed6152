//! The lobby over real WebSockets on 127.0.0.1: challenges posted, listed, accepted, cancelled
//! and dropped with their creators; the cap and the rate limit; quick pairing by rating window
//! (on tokio's paused clock); forged and malformed lobby frames.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use maharajah_protocol::*;
use maharajah_server::{Config, LobbyConfig, LobbyPlayer, RatingSource};

const BLITZ: TimeControl = TimeControl { base_ms: 180_000, increment_ms: 2_000 };

/// No keep-alive traffic: with a paused clock it would fire at every jump.
fn patient() -> Config {
    Config {
        ping_interval: Duration::from_secs(24 * 3600),
        idle_timeout: Duration::from_secs(24 * 3600),
        ..Config::default()
    }
}

fn challenge(game: LobbyGame, color: ColorChoice) -> ClientMsg {
    ClientMsg::CreateChallenge {
        device: None,
        options: ChallengeOptions {
            table: None,
            game,
            time_control: Some(BLITZ),
            rated: false,
            color,
        },
    }
}

fn play_now(game: LobbyGame) -> ClientMsg {
    ClientMsg::PlayNow { cpu_after_s: None, device: None, game, time_control: BLITZ, rated: false }
}

async fn created(c: &mut Client) -> Challenge {
    match c
        .until_lobby("challenge_created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. }))
        .await
    {
        LobbyMsg::ChallengeCreated { challenge } => challenge,
        _ => unreachable!(),
    }
}

async fn list(c: &mut Client) -> Vec<Challenge> {
    match c.until_lobby("lobby_list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await {
        LobbyMsg::LobbyList { challenges } => challenges,
        _ => unreachable!(),
    }
}

async fn removed(c: &mut Client) -> (ChallengeId, RemovedReason) {
    match c.until_lobby("lobby_removed", |m| matches!(m, LobbyMsg::LobbyRemoved { .. })).await {
        LobbyMsg::LobbyRemoved { id, reason } => (id, reason),
        _ => unreachable!(),
    }
}

/// `lobby_matched`, `seated` and the snapshot: the room's code, the challenge and the state.
async fn matched(c: &mut Client) -> (AccessCode, Option<ChallengeId>, Snapshot) {
    let LobbyMsg::LobbyMatched { code, challenge, .. } =
        c.until_lobby("lobby_matched", |m| matches!(m, LobbyMsg::LobbyMatched { .. })).await
    else {
        unreachable!()
    };
    c.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    assert_eq!(c.code.as_ref(), Some(&code), "seated in the matched room");
    match c.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await {
        ServerMsg::Snapshot { snapshot } => (code, challenge, *snapshot),
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn a_posted_challenge_is_listed_accepted_and_played() {
    let server = TestServer::start(Config::default()).await;
    let mut a = Client::connect(server.addr).await;
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert!(list(&mut b).await.is_empty());

    a.send(&challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let posted = created(&mut a).await;
    assert_eq!(
        (posted.game, posted.time_control, posted.rated),
        (LobbyGame::Chess, Some(BLITZ), false)
    );
    assert_eq!(
        (posted.color, posted.rating, posted.creator.as_deref()),
        (ColorChoice::White, 1500, None)
    );
    let seen = b.until_lobby("lobby_added", |m| matches!(m, LobbyMsg::LobbyAdded { .. })).await;
    assert_eq!(seen, LobbyMsg::LobbyAdded { challenge: posted.clone() });

    b.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (code_a, from_a, snap_a) = matched(&mut a).await;
    let (code_b, from_b, snap_b) = matched(&mut b).await;
    assert_eq!(code_a, code_b, "both in the same room");
    assert_eq!((from_a, from_b), (Some(posted.id), Some(posted.id)));
    assert_eq!((a.seat, b.seat), (Some(Color::White), Some(Color::Black)));
    assert_ne!(a.token, b.token);
    for snap in [&snap_a, &snap_b] {
        assert_eq!(
            (snap.phase, snap.variant, snap.time_control),
            (Phase::Playing, Variant::Chess, Some(BLITZ))
        );
        assert!(snap.seats.white.taken && snap.seats.black.taken);
    }
    assert_eq!(removed(&mut b).await, (posted.id, RemovedReason::Accepted));

    assert!(matches!(a.play(0, "e2e4").await, ServerMsg::MoveAck { ply: 0, .. }));
    let e = b.until_event("moved", |e| matches!(e, RoomEvent::Moved { .. })).await;
    assert!(matches!(e, RoomEvent::Moved { ply: 0, ref uci, .. } if uci == "e2e4"));
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));

    // A Maharajah challenge goes to the hidden lock-in, the challenger in the colour it chose.
    let mut c = Client::connect(server.addr).await;
    let mut d = Client::connect(server.addr).await;
    c.send(&challenge(LobbyGame::Maharajah, ColorChoice::Black)).await;
    let posted = created(&mut c).await;
    d.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (_, _, snap) = matched(&mut c).await;
    matched(&mut d).await;
    assert_eq!(
        (snap.phase, snap.variant, snap.hidden_setup),
        (Phase::Setup, Variant::Maharajah, true)
    );
    assert_eq!((c.seat, d.seat), (Some(Color::Black), Some(Color::White)));
    c.send(&ClientMsg::Commit { token: c.token.clone(), commitment: "ab".repeat(32) }).await;
    let e = d.until_event("committed", |e| matches!(e, RoomEvent::Committed { .. })).await;
    assert!(matches!(e, RoomEvent::Committed { seat: Color::Black, .. }));
    server.stop().await;
}

#[tokio::test]
async fn cancel_and_disconnect_remove_a_challenge_for_subscribers() {
    let server = TestServer::start(Config::default()).await;
    let mut watcher = Client::connect(server.addr).await;
    watcher.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert!(list(&mut watcher).await.is_empty());
    let mut horde_only = Client::connect(server.addr).await;
    horde_only.send(&ClientMsg::LobbySubscribe { games: vec![LobbyGame::Horde] }).await;
    assert!(list(&mut horde_only).await.is_empty());

    let mut a = Client::connect(server.addr).await;
    a.send(&challenge(LobbyGame::Chess, ColorChoice::Random)).await;
    let first = created(&mut a).await;
    a.send(&challenge(LobbyGame::Horde, ColorChoice::Black)).await;
    let second = created(&mut a).await;
    for expected in [&first, &second] {
        let m = watcher.until_lobby("added", |m| matches!(m, LobbyMsg::LobbyAdded { .. })).await;
        assert_eq!(m, LobbyMsg::LobbyAdded { challenge: expected.clone() });
    }
    // A filtered subscriber sees the Horde challenge only.
    let m = horde_only.until_lobby("added", |m| matches!(m, LobbyMsg::LobbyAdded { .. })).await;
    assert_eq!(m, LobbyMsg::LobbyAdded { challenge: second.clone() });
    let mut late = Client::connect(server.addr).await;
    late.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert_eq!(list(&mut late).await, vec![first.clone(), second.clone()]);

    a.send(&ClientMsg::CancelChallenge { id: first.id }).await;
    assert_eq!(removed(&mut watcher).await, (first.id, RemovedReason::Cancelled));
    assert_eq!(removed(&mut a).await, (first.id, RemovedReason::Cancelled), "the creator is told");
    assert_eq!(removed(&mut late).await, (first.id, RemovedReason::Cancelled));

    a.close().await;
    assert_eq!(removed(&mut watcher).await, (second.id, RemovedReason::CreatorLeft));
    assert_eq!(removed(&mut horde_only).await, (second.id, RemovedReason::CreatorLeft));
    assert_eq!(removed(&mut late).await, (second.id, RemovedReason::CreatorLeft));
    watcher.send(&ClientMsg::AcceptChallenge { device: None, id: second.id }).await;
    assert_eq!(watcher.until_error().await.0, ErrorCode::ChallengeNotFound);
    let mut fresh = Client::connect(server.addr).await;
    fresh.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert!(list(&mut fresh).await.is_empty());

    // An unsubscribed connection hears of no more challenges.
    watcher.send(&ClientMsg::LobbyUnsubscribe).await;
    fresh.send(&challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let third = created(&mut fresh).await;
    late.until("added", |m| matches!(m, ServerMsg::Lobby(LobbyMsg::LobbyAdded { .. }))).await;
    watcher.send(&ClientMsg::Ping { nonce: 5 }).await;
    let next = watcher.recv().await;
    assert!(matches!(next, ServerMsg::Pong { nonce: 5, .. }), "no lobby_added: {next:?}");
    assert!(third.id > second.id);
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_cap_and_the_rate_limit_refuse_with_their_codes() {
    let server = TestServer::start(patient()).await;
    let mut a = Client::connect(server.addr).await;
    a.patience = Duration::from_secs(3600);
    let mut ids = Vec::new();
    for _ in 0..3 {
        a.send(&challenge(LobbyGame::Chess, ColorChoice::Random)).await;
        ids.push(created(&mut a).await.id);
    }
    // Request 4: over the cap of 3 open challenges.
    a.send(&challenge(LobbyGame::Horde, ColorChoice::Random)).await;
    assert_eq!(a.until_error().await.0, ErrorCode::TooManyChallenges);
    // Cancelling is not a request; with one cancelled, request 5 posts again.
    a.send(&ClientMsg::CancelChallenge { id: ids[0] }).await;
    removed(&mut a).await;
    a.send(&challenge(LobbyGame::Horde, ColorChoice::Random)).await;
    created(&mut a).await;
    // Request 6 (a refused one counts too), then the bucket of 6 is empty.
    a.send(&ClientMsg::AcceptChallenge { device: None, id: 999 }).await;
    assert_eq!(a.until_error().await.0, ErrorCode::ChallengeNotFound);
    a.send(&play_now(LobbyGame::Chess)).await;
    let (code, message) = a.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited, "{message}");
    a.send(&ClientMsg::AcceptChallenge { device: None, id: ids[1] }).await;
    assert_eq!(a.until_error().await.0, ErrorCode::RateLimited);
    // One request comes back every 3 s (20 a minute).
    tokio::time::sleep(Duration::from_millis(2_900)).await;
    a.send(&play_now(LobbyGame::Chess)).await;
    assert_eq!(a.until_error().await.0, ErrorCode::RateLimited);
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.send(&play_now(LobbyGame::Chess)).await;
    a.until_lobby("queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await;

    // Rated games are for identified players only (a guest is told so); Chaturaji tables are
    // not offered yet.
    let mut b = Client::connect(server.addr).await;
    b.patience = Duration::from_secs(3600);
    let rated = ChallengeOptions {
        table: None,
        game: LobbyGame::Chess,
        time_control: None,
        rated: true,
        color: ColorChoice::White,
    };
    b.send(&ClientMsg::CreateChallenge { device: None, options: rated }).await;
    let (code, message) = b.until_error().await;
    assert_eq!(code, ErrorCode::NotIdentified);
    assert!(message.contains("identity"), "{message}");
    b.send(&ClientMsg::PlayNow {
        cpu_after_s: None,
        device: None,
        game: LobbyGame::Chess,
        time_control: BLITZ,
        rated: true,
    })
    .await;
    assert_eq!(b.until_error().await.0, ErrorCode::NotIdentified);
    // A Chaturaji table needs the device id its seats are bound to.
    b.send(&challenge(LobbyGame::Chaturaji, ColorChoice::Random)).await;
    assert_eq!(b.until_error().await.0, ErrorCode::InvalidOptions);
    server.stop().await;
}

/// Ratings by client address (behind the test's trusted proxy): the tests' stand-in for the
/// ratings of identified players.
struct ByAddress(HashMap<IpAddr, u32>);

impl RatingSource for ByAddress {
    fn rating(&self, player: &LobbyPlayer, _: LobbyGame, _: Option<TimeControl>) -> u32 {
        self.0.get(&player.ip).copied().unwrap_or(1500)
    }
}

async fn seeker(server: &TestServer, address: &str, game: LobbyGame) -> Client {
    let mut c = Client::connect_forwarded(server.addr, address).await;
    c.patience = Duration::from_secs(3600);
    c.send(&play_now(game)).await;
    c.until_lobby("queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await;
    c
}

#[tokio::test(start_paused = true)]
async fn quick_pairing_follows_the_widening_rating_window() {
    let ratings: HashMap<IpAddr, u32> =
        [("10.0.0.1", 1500), ("10.0.0.2", 1550), ("10.0.0.3", 1700), ("10.0.0.4", 2600)]
            .into_iter()
            .map(|(ip, r)| (ip.parse().unwrap(), r))
            .collect();
    let config = Config {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        lobby: LobbyConfig { ratings: Arc::new(ByAddress(ratings)), ..LobbyConfig::default() },
        ..patient()
    };
    let server = TestServer::start(config).await;

    // 50 points apart: within the first window, paired at once.
    let t0 = tokio::time::Instant::now();
    let mut a = seeker(&server, "10.0.0.1", LobbyGame::Chess).await;
    let mut b = seeker(&server, "10.0.0.2", LobbyGame::Chess).await;
    let (code_a, from, _) = matched(&mut a).await;
    let (code_b, _, snap) = matched(&mut b).await;
    assert_eq!((code_a, from), (code_b, None));
    assert_eq!(t0.elapsed(), Duration::ZERO, "no wait at all");
    assert_eq!(snap.phase, Phase::Playing);
    assert_ne!(a.seat, b.seat);
    let (white, black) =
        if a.seat == Some(Color::White) { (&mut a, &mut b) } else { (&mut b, &mut a) };
    assert!(matches!(white.play(0, "d2d4").await, ServerMsg::MoveAck { .. }));
    black.until_event("moved", |e| matches!(e, RoomEvent::Moved { .. })).await;

    // 200 points apart: not until the newcomer's window has widened to 200, after 2 s.
    let mut c = seeker(&server, "10.0.0.1", LobbyGame::Chess).await;
    // Another game's seeker of the same rating is no match.
    let mut h = seeker(&server, "10.0.0.1", LobbyGame::Horde).await;
    let mut d = seeker(&server, "10.0.0.3", LobbyGame::Chess).await;
    let t1 = tokio::time::Instant::now();
    let early = c.try_recv(Duration::from_millis(1_900)).await;
    assert!(early.is_none(), "paired before the window covered 200 points: {early:?}");
    let (code_c, _, _) = matched(&mut c).await;
    let waited = t1.elapsed();
    assert!(
        waited >= Duration::from_millis(1_990) && waited <= Duration::from_millis(2_010),
        "{waited:?}"
    );
    let (code_d, _, _) = matched(&mut d).await;
    assert_eq!(code_c, code_d);

    // 1100 points apart: over the widest window, never paired.
    let mut e = seeker(&server, "10.0.0.4", LobbyGame::Horde).await;
    let nothing = h.try_recv(Duration::from_secs(120)).await;
    assert!(nothing.is_none(), "{nothing:?}");
    assert!(e.try_recv(Duration::from_millis(1)).await.is_none());
    h.send(&ClientMsg::CancelPlayNow).await;
    h.until_lobby("cancelled", |m| matches!(m, LobbyMsg::PairingCancelled)).await;
    // After the cancel a new Horde seeker at 2600 pairs with e at once.
    let mut f = seeker(&server, "10.0.0.4", LobbyGame::Horde).await;
    let (code_e, _, _) = matched(&mut e).await;
    let (code_f, _, _) = matched(&mut f).await;
    assert_eq!(code_e, code_f);
    server.stop().await;
}

#[tokio::test]
async fn forged_and_malformed_lobby_frames_are_refused_and_the_server_goes_on() {
    let server = TestServer::start(Config::default()).await;
    let mut a = Client::connect(server.addr).await;
    a.send(&challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let mine = created(&mut a).await;

    let mut m = Client::connect(server.addr).await;
    for (frame, code) in [
        (r#"{"t":"accept_challenge","id":"one"}"#, ErrorCode::Malformed),
        (r#"{"t":"accept_challenge"}"#, ErrorCode::Malformed),
        (
            r#"{"t":"create_challenge","options":{"game":"shogi","time_control":null}}"#,
            ErrorCode::Malformed,
        ),
        (
            r#"{"t":"create_challenge","options":{"game":"chess","time_control":null,"color":"green"}}"#,
            ErrorCode::Malformed,
        ),
        (r#"{"t":"lobby_subscribe","games":"chess"}"#, ErrorCode::Malformed),
        (r#"{"t":"play_now","game":"chess"}"#, ErrorCode::Malformed),
        (r#"{"t":"lobby_subscrib"}"#, ErrorCode::UnknownMessage),
    ] {
        m.send_raw(frame).await;
        let (got, message) = m.until_error().await;
        assert_eq!(got, code, "{frame}: {message}");
    }
    // Forged: another's challenge cannot be cancelled (and is not told apart from a missing
    // one), one's own cannot be accepted, an impossible clock is refused.
    m.send(&ClientMsg::CancelChallenge { id: mine.id }).await;
    assert_eq!(m.until_error().await.0, ErrorCode::ChallengeNotFound);
    m.send(&ClientMsg::CancelChallenge { id: 424_242 }).await;
    assert_eq!(m.until_error().await.0, ErrorCode::ChallengeNotFound);
    a.send(&ClientMsg::AcceptChallenge { device: None, id: mine.id }).await;
    assert_eq!(a.until_error().await.0, ErrorCode::Forbidden);
    let zero = TimeControl { base_ms: 0, increment_ms: 0 };
    m.send(&ClientMsg::PlayNow {
        cpu_after_s: None,
        device: None,
        game: LobbyGame::Chess,
        time_control: zero,
        rated: false,
    })
    .await;
    assert_eq!(m.until_error().await.0, ErrorCode::InvalidOptions);

    // The server goes on: the challenge is still open, and it can still be accepted.
    m.send(&ClientMsg::Ping { nonce: 9 }).await;
    assert!(matches!(m.recv().await, ServerMsg::Pong { nonce: 9, .. }));
    m.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert_eq!(list(&mut m).await, vec![mine.clone()]);
    m.send(&ClientMsg::AcceptChallenge { device: None, id: mine.id }).await;
    let (code_m, _, _) = matched(&mut m).await;
    let (code_a, _, _) = matched(&mut a).await;
    assert_eq!(code_m, code_a);
    assert!(matches!(a.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    server.stop().await;
}

/// Challenges live with their connections, but a room made from the lobby is an ordinary
/// stored room: after a restart both players rejoin it with their tokens and play on.
#[tokio::test]
async fn a_room_made_from_the_lobby_survives_a_restart_and_challenges_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config { db: Some(dir.path().join("rooms.sqlite3")), ..Config::default() };
    let server = TestServer::start(config.clone()).await;
    let mut a = Client::connect(server.addr).await;
    let mut b = Client::connect(server.addr).await;
    a.send(&challenge(LobbyGame::Horde, ColorChoice::White)).await;
    let posted = created(&mut a).await;
    b.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (code, _, _) = matched(&mut a).await;
    matched(&mut b).await;
    assert!(matches!(a.play(0, "a4a5").await, ServerMsg::MoveAck { .. }));
    let mut c = Client::connect(server.addr).await;
    c.send(&challenge(LobbyGame::Chess, ColorChoice::Random)).await;
    created(&mut c).await;
    server.stop().await;

    let server = TestServer::start(config).await;
    let mut watcher = Client::connect(server.addr).await;
    watcher.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    assert!(list(&mut watcher).await.is_empty(), "open challenges do not survive a restart");
    let mut a2 = Client::connect(server.addr).await;
    a2.send(&ClientMsg::Rejoin { code: code.clone(), token: a.token.clone(), last_seq: 0 }).await;
    a2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let ServerMsg::Snapshot { snapshot } =
        a2.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(
        (snapshot.variant, snapshot.moves.clone()),
        (Variant::Horde, vec!["a4a5".to_owned()])
    );
    let mut b2 = Client::connect(server.addr).await;
    b2.send(&ClientMsg::Rejoin { code, token: b.token.clone(), last_seq: 0 }).await;
    b2.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    assert!(matches!(b2.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));
    server.stop().await;
}
