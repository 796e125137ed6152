//! The lobby's lists and online rematch over real WebSockets on 127.0.0.1: the leaderboard
//! (named players with a rated game only, best first), profiles found as names are with the
//! last games from the player's side and their PGN (kept across a restart), `player_not_found`,
//! the games playing now (players, spectators, the full flag, nothing of a hidden army), the
//! rematch with colours swapped and its offer lapsing when a player leaves, and lookups limited
//! per connection without closing it.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{options, Client, TestServer};
use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::*;
use maharajah_server::lobby::LobbyConfig;
use maharajah_server::Config;

const BLITZ: TimeControl = TimeControl { base_ms: 180_000, increment_ms: 2_000 };

fn new_secret() -> PlayerSecret {
    PlayerSecret::from_bytes(rand::random())
}

/// Lookups without a practical limit (tests poll for what a room's task records).
fn generous(db: Option<&Path>) -> Config {
    Config {
        db: db.map(Path::to_owned),
        lobby: LobbyConfig { lookup_burst: 1_000, ..LobbyConfig::default() },
        ..Config::default()
    }
}

async fn player(server: &TestServer, secret: &PlayerSecret, name: &str) -> Client {
    let mut c = Client::connect(server.addr).await;
    let challenge = c.challenge.clone().unwrap();
    let signature = secret.sign_hello(&challenge.nonce_bytes().unwrap(), &challenge.server);
    c.send(&ClientMsg::Identify { key: secret.public(), signature }).await;
    c.until("the player", |m| matches!(m, ServerMsg::Player { .. })).await;
    c.send(&ClientMsg::RegisterName { name: name.into() }).await;
    c.until("the named player", |m| matches!(m, ServerMsg::Player { .. })).await;
    c
}

async fn leaderboard(c: &mut Client, game: LobbyGame, speed: SpeedClass) -> Vec<LeaderboardEntry> {
    c.send(&ClientMsg::Leaderboard { game, speed }).await;
    match c.until_lobby("leaderboard", |m| matches!(m, LobbyMsg::Leaderboard { .. })).await {
        LobbyMsg::Leaderboard { players, game: g, speed: s } => {
            assert_eq!((g, s), (game, speed));
            players
        }
        _ => unreachable!(),
    }
}

async fn profile(c: &mut Client, name: &str) -> Profile {
    c.send(&ClientMsg::Profile { name: name.into() }).await;
    match c.until_lobby("profile", |m| matches!(m, LobbyMsg::Profile { .. })).await {
        LobbyMsg::Profile { profile } => *profile,
        _ => unreachable!(),
    }
}

/// The profile once it lists `games` games (a room's task records a game just after its end).
async fn profile_with(c: &mut Client, name: &str, games: usize) -> Profile {
    for _ in 0..100 {
        let p = profile(c, name).await;
        if p.games.len() >= games {
            return p;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name}'s profile never listed {games} games");
}

async fn playing_now(c: &mut Client, games: Vec<LobbyGame>) -> Vec<LiveGame> {
    c.send(&ClientMsg::PlayingNow { games }).await;
    match c.until_lobby("playing_now", |m| matches!(m, LobbyMsg::PlayingNow { .. })).await {
        LobbyMsg::PlayingNow { games } => games,
        _ => unreachable!(),
    }
}

/// `lobby_matched`, `seated` and the snapshot.
async fn matched(c: &mut Client) -> (LobbyMsg, Snapshot) {
    let m = c.until_lobby("lobby_matched", |m| matches!(m, LobbyMsg::LobbyMatched { .. })).await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    match c.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await {
        ServerMsg::Snapshot { snapshot } => (m, *snapshot),
        _ => unreachable!(),
    }
}

async fn play_all(white: &mut Client, black: &mut Client, moves: &[&str]) {
    for (ply, uci) in moves.iter().enumerate() {
        let c = if ply % 2 == 0 { &mut *white } else { &mut *black };
        let ack = c.play(ply as u32, uci).await;
        assert!(matches!(ack, ServerMsg::MoveAck { .. }), "{uci}: {ack:?}");
    }
}

const SCHOLARS_MATE: [&str; 7] = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"];

#[tokio::test]
async fn leaderboard_and_profiles_with_pgn_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (alice, bob, carol) = (new_secret(), new_secret(), new_secret());
    let server = TestServer::start(generous(Some(&db))).await;

    // A rated blitz game from the lobby: Alice (White) mates Bob.
    let mut a = player(&server, &alice, "alice").await;
    let mut b = player(&server, &bob, "bob").await;
    let rated = ChallengeOptions {
        game: LobbyGame::Chess,
        time_control: Some(BLITZ),
        rated: true,
        color: ColorChoice::White,
        table: None,
    };
    a.send(&ClientMsg::CreateChallenge { options: rated, device: None }).await;
    let LobbyMsg::ChallengeCreated { challenge } =
        a.until_lobby("created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. })).await
    else {
        unreachable!()
    };
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: None }).await;
    matched(&mut a).await;
    matched(&mut b).await;
    play_all(&mut a, &mut b, &SCHOLARS_MATE).await;
    b.until_event("ratings", |e| matches!(e, RoomEvent::RatingsChanged { .. })).await;

    // A casual game: Carol creates, Alice joins and Carol resigns.
    let mut c = player(&server, &carol, "carol").await;
    let code = c.create(options(Variant::Horde, None, false, Color::White)).await;
    let mut a2 = player(&server, &alice, "alice").await;
    a2.join(&code).await;
    c.send(&ClientMsg::Resign { token: c.token.clone() }).await;
    a2.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;

    let mut guest = Client::connect(server.addr).await;
    let board = leaderboard(&mut guest, LobbyGame::Chess, SpeedClass::Blitz).await;
    let names: Vec<&str> = board.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"], "carol has no rated game: absent");
    assert!(board[0].rating > 1500 && board[1].rating < 1500, "{board:?}");
    assert!(board.iter().all(|e| e.games == 1 && e.provisional));
    assert!(leaderboard(&mut guest, LobbyGame::Horde, SpeedClass::Blitz).await.is_empty());

    // Found as names are: case and look-alikes do not matter.
    let p = profile_with(&mut guest, "AL1CE", 2).await;
    assert_eq!(p.name, "alice");
    assert_eq!(p.ratings.len(), 1);
    assert_eq!((p.ratings[0].game, p.ratings[0].speed), (RatedGame::Chess, SpeedClass::Blitz));
    let (casual, won) = (&p.games[0], &p.games[1]);
    assert_eq!(casual.game, LobbyGame::Horde, "latest first");
    assert_eq!(
        (casual.rated, casual.result, casual.rating),
        (false, Some(PlayerResult::Win), None)
    );
    assert_eq!(casual.opponents[0].name.as_deref(), Some("carol"));
    assert_eq!(casual.code, code);
    assert_eq!((won.game, won.rated, won.time_control), (LobbyGame::Chess, true, Some(BLITZ)));
    assert_eq!(won.result, Some(PlayerResult::Win));
    assert_eq!(won.opponents[0].name.as_deref(), Some("bob"));
    let diff = won.rating.unwrap();
    assert_eq!(diff.before, 1500);
    assert_eq!(diff.after, board[0].rating);
    let bobs = profile_with(&mut guest, "bob", 1).await;
    assert_eq!(bobs.games[0].result, Some(PlayerResult::Loss));
    assert!(bobs.games[0].rating.unwrap().after < 1500);

    guest.send(&ClientMsg::GameRecord { id: won.id }).await;
    let LobbyMsg::GameRecord { pgn, record, game, .. } =
        guest.until_lobby("record", |m| matches!(m, LobbyMsg::GameRecord { .. })).await
    else {
        unreachable!()
    };
    let pgn = pgn.unwrap();
    assert_eq!((game, record), (LobbyGame::Chess, None));
    assert!(pgn.contains("[White \"alice\"]") && pgn.contains("[Black \"bob\"]"), "{pgn}");
    assert!(pgn.contains("[Result \"1-0\"]") && pgn.contains("Qxf7#"), "{pgn}");
    guest.send(&ClientMsg::GameRecord { id: casual.id }).await;
    let LobbyMsg::GameRecord { pgn: resigned, .. } =
        guest.until_lobby("record", |m| matches!(m, LobbyMsg::GameRecord { .. })).await
    else {
        unreachable!()
    };
    let resigned = resigned.unwrap();
    assert!(resigned.contains("[Result \"0-1\"]") && resigned.trim_end().ends_with("0-1"));

    // Unknown names and games: clear codes, and the connection stays.
    guest.send(&ClientMsg::Profile { name: "nobody".into() }).await;
    assert_eq!(guest.until_error().await.0, ErrorCode::PlayerNotFound);
    guest.send(&ClientMsg::GameRecord { id: 999_999 }).await;
    assert_eq!(guest.until_error().await.0, ErrorCode::GameNotFound);
    assert_eq!(profile(&mut guest, "carol").await.games.len(), 1);

    for client in [a, b, c, a2, guest] {
        client.close().await;
    }
    server.stop().await;
    let server = TestServer::start(generous(Some(&db))).await;
    let mut guest = Client::connect(server.addr).await;
    let after = profile(&mut guest, "alice").await;
    assert_eq!(after, p, "the profile is back after a restart");
    assert_eq!(leaderboard(&mut guest, LobbyGame::Chess, SpeedClass::Blitz).await, board);
    guest.send(&ClientMsg::GameRecord { id: won.id }).await;
    let LobbyMsg::GameRecord { pgn: again, .. } =
        guest.until_lobby("record", |m| matches!(m, LobbyMsg::GameRecord { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(again.unwrap(), pgn);
    server.stop().await;
}

#[tokio::test]
async fn playing_now_lists_live_games_with_spectators_and_no_army() {
    let config = Config { spectators_per_room: 1, ..generous(None) };
    let server = TestServer::start(config).await;
    let alice = new_secret();
    let mut w = player(&server, &alice, "alice").await;
    let code = w.create(options(Variant::Maharajah, Some((300_000, 0)), true, Color::White)).await;
    let mut guest = Client::connect(server.addr).await;
    assert!(playing_now(&mut guest, Vec::new()).await.is_empty(), "waiting rooms are not live");
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    let commitment = "ab".repeat(32);
    w.send(&ClientMsg::Commit { token: w.token.clone(), commitment: commitment.clone() }).await;
    w.until("setup ack", |m| matches!(m, ServerMsg::SetupAck { .. })).await;

    let mut live = Vec::new();
    for _ in 0..100 {
        live = playing_now(&mut guest, vec![LobbyGame::Maharajah]).await;
        if !live.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(live.len(), 1);
    let g = &live[0];
    assert_eq!(
        (g.code.clone(), g.game, g.hidden_setup),
        (code.clone(), LobbyGame::Maharajah, true)
    );
    assert_eq!(g.time_control, Some(TimeControl { base_ms: 300_000, increment_ms: 0 }));
    assert_eq!(g.players[0].name.as_deref(), Some("alice"));
    assert_eq!(g.players[0].rating, Some(1500));
    assert_eq!(g.players[1], PlayerLabel { name: None, rating: None, cpu: false }, "a guest");
    assert_eq!((g.ply, g.spectators, g.full), (0, 0, false));
    let frame = encode(&ServerMsg::from(LobbyMsg::PlayingNow { games: live.clone() }));
    assert!(!frame.contains("arm") && !frame.contains(&commitment), "{frame}");
    assert!(playing_now(&mut guest, vec![LobbyGame::Chess]).await.is_empty(), "filtered");

    // A spectator fills the room (a cap of one here): the list says so.
    let mut watcher = Client::connect(server.addr).await;
    watcher.send(&ClientMsg::Watch { code: code.clone() }).await;
    watcher.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
    let mut full = false;
    for _ in 0..100 {
        let live = playing_now(&mut guest, Vec::new()).await;
        if live[0].spectators == 1 {
            full = live[0].full;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(full, "one spectator of one allowed");
    server.stop().await;
}

/// Resigns for `c` and waits until `other` hears the end.
async fn resign(c: &mut Client, other: &mut Client) {
    c.send(&ClientMsg::Resign { token: c.token.clone() }).await;
    other.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
}

async fn offered(c: &mut Client) -> Color {
    match c.until_lobby("rematch_offered", |m| matches!(m, LobbyMsg::RematchOffered { .. })).await {
        LobbyMsg::RematchOffered { by, .. } => by,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn a_rematch_swaps_colours_and_an_offer_lapses_when_its_player_leaves() {
    let server = TestServer::start(generous(None)).await;
    let mut w = Client::connect(server.addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 1_000)), false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;

    // Not before the end.
    w.send(&ClientMsg::Rematch { token: w.token.clone() }).await;
    assert_eq!(w.until_error().await.0, ErrorCode::WrongPhase);
    play_all(&mut w, &mut b, &["e2e4"]).await;
    resign(&mut w, &mut b).await;

    b.send(&ClientMsg::Rematch { token: b.token.clone() }).await;
    assert_eq!(offered(&mut w).await, Color::Black, "the other seat hears the offer");
    assert_eq!(offered(&mut b).await, Color::Black, "and the offer is acknowledged");
    w.send(&ClientMsg::Rematch { token: w.token.clone() }).await;
    let (m, snap) = matched(&mut w).await;
    let LobbyMsg::LobbyMatched { code: new, challenge, rematch_of } = m else { unreachable!() };
    assert_eq!((challenge, rematch_of), (None, Some(code.clone())));
    assert_ne!(new, code);
    assert_eq!(w.seat, Some(Color::Black), "colours swapped");
    assert_eq!(
        (snap.variant, snap.time_control),
        (Variant::Chess, Some(TimeControl { base_ms: 60_000, increment_ms: 1_000 }))
    );
    assert_eq!(snap.phase, Phase::Playing);
    assert_eq!(offered(&mut b).await, Color::White, "the answer is an offer too");
    matched(&mut b).await;
    assert_eq!(b.seat, Some(Color::White));
    assert_eq!(b.code, Some(new.clone()));
    // Both act in the new room at once.
    play_all(&mut b, &mut w, &["d2d4", "e7e5"]).await;

    // A second end; Black (w) offers and leaves: White hears the offer go.
    resign(&mut b, &mut w).await;
    w.send(&ClientMsg::Rematch { token: w.token.clone() }).await;
    assert_eq!(offered(&mut b).await, Color::Black);
    w.close().await;
    let withdrawn =
        b.until_lobby("withdrawn", |m| matches!(m, LobbyMsg::RematchWithdrawn { .. })).await;
    assert_eq!(withdrawn, LobbyMsg::RematchWithdrawn { code: new, by: Color::Black });
    server.stop().await;
}

#[tokio::test]
async fn lookups_are_rate_limited_and_the_connection_stays() {
    let server = TestServer::start(Config::default()).await;
    let mut c = Client::connect(server.addr).await;
    let burst = LobbyConfig::default().lookup_burst;
    let asks: Vec<ClientMsg> = (0..=burst)
        .map(|_| ClientMsg::Leaderboard { game: LobbyGame::Chess, speed: SpeedClass::Rapid })
        .collect();
    c.send_together(&asks).await;
    for _ in 0..burst {
        c.until_lobby("leaderboard", |m| matches!(m, LobbyMsg::Leaderboard { .. })).await;
    }
    let (code, message) = c.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited, "{message}");
    c.send(&ClientMsg::Ping { nonce: 7 }).await;
    c.until("pong", |m| matches!(m, ServerMsg::Pong { nonce: 7, .. })).await;
    server.stop().await;
}
