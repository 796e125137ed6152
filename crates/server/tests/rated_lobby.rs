//! Rated games from the lobby over real WebSockets on 127.0.0.1, with the server's SQLite
//! store on disk: only identified players post, accept or seek rated games (a guest is refused
//! `not_identified`); the list shows the challenger's name, rating and provisional flag; quick
//! pairing uses each player's stored rating for the game and speed class within the widening
//! window and never pairs a player with themselves; a rated result changes both ratings exactly
//! once, survives a restart, and an aborted game changes none.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::rated::*;
use common::{Client, TestServer};
use maharajah_protocol::identity::{PlayerKey, PlayerSecret};
use maharajah_protocol::*;
use maharajah_server::players::{Players, StoredRating};
use maharajah_server::store::Store;
use maharajah_server::Config;

fn on_disk(db: &Path) -> Config {
    Config { db: Some(db.to_owned()), ..Config::default() }
}

fn rated_play_now(game: LobbyGame) -> ClientMsg {
    ClientMsg::PlayNow { cpu_after_s: None, device: None, game, time_control: BLITZ, rated: true }
}

/// The rating the lobby queued `c` with.
async fn queued(c: &mut Client) -> u32 {
    match c.until_lobby("pairing_queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await {
        LobbyMsg::PairingQueued { rating, rated, .. } => {
            assert!(rated);
            rating
        }
        _ => unreachable!(),
    }
}

/// Resigns again after the end: the room answers `game_over` after it has handled everything
/// before (its ratings included). The `ratings_changed` events read on the way.
async fn ratings_events_until_the_room_answers(c: &mut Client) -> usize {
    c.send(&ClientMsg::Resign { token: c.token.clone() }).await;
    let mut seen = 0;
    loop {
        match c.recv().await {
            ServerMsg::Error { code, .. } => {
                assert_eq!(code, ErrorCode::GameOver);
                return seen;
            }
            ServerMsg::Event { event: RoomEvent::RatingsChanged { .. }, .. } => seen += 1,
            _ => {}
        }
    }
}

/// A player to store before the server starts: key, name, ratings (`game/speed`, rating).
type Seeded<'a> = (PlayerKey, Option<&'a str>, &'a [(&'a str, f64)]);

/// Stores the players with their names and ratings (a small deviation, 30 games), as earlier
/// games would have left them.
async fn seed(db: &Path, players: &[Seeded<'_>]) {
    let (store, _) = Store::open_lazy(db).unwrap();
    let mut registry = Players::default();
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as u64;
    let mut rows = Vec::new();
    for &(key, name, ratings) in players {
        if let Some(name) = name {
            registry.register(key, name, now).unwrap();
        }
        let record = registry.entry(key, now);
        for &(rating_key, rating) in ratings {
            let rating = maharajah_ratings::Rating { rating, deviation: 60.0, volatility: 0.06 };
            let stored = StoredRating { rating, games: 30, updated_ms: now };
            record.ratings.insert(rating_key.into(), stored);
        }
        rows.push(record.row().unwrap());
    }
    store.queue_players(rows).unwrap().unwrap().wait().await.unwrap();
}

#[tokio::test]
async fn a_rated_challenge_changes_both_ratings_once_and_a_restart_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (alice, bob) = (new_secret(), new_secret());
    let server = TestServer::start(on_disk(&db)).await;
    let mut watcher = Client::connect(server.addr).await;
    watcher.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    watcher.until_lobby("list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;

    // A guest cannot post a rated challenge.
    let mut guest = Client::connect(server.addr).await;
    guest.send(&rated_challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let (code, message) = guest.until_error().await;
    assert_eq!(code, ErrorCode::NotIdentified, "{message}");

    let mut a = player(server.addr, &alice, Some("alice")).await;
    a.send(&rated_challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let posted = created(&mut a).await;
    assert!(posted.rated);
    assert_eq!(
        (posted.creator.as_deref(), posted.rating, posted.provisional),
        (Some("alice"), 1500, true),
        "a new player: the default rating, provisional"
    );
    let seen = watcher.until_lobby("added", |m| matches!(m, LobbyMsg::LobbyAdded { .. }));
    assert_eq!(seen.await, LobbyMsg::LobbyAdded { challenge: posted.clone() });

    // Neither a guest nor Alice on another connection can take it; it stays open.
    guest.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    assert_eq!(guest.until_error().await.0, ErrorCode::NotIdentified);
    let mut twin = player(server.addr, &alice, None).await;
    twin.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    assert_eq!(twin.until_error().await.0, ErrorCode::Forbidden);
    let mut late = Client::connect(server.addr).await;
    late.send(&ClientMsg::LobbySubscribe { games: vec![LobbyGame::Chess] }).await;
    let listed = late.until_lobby("list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;
    assert_eq!(listed, LobbyMsg::LobbyList { challenges: vec![posted.clone()] });

    let mut b = player(server.addr, &bob, None).await;
    b.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (code, snap) = matched(&mut a).await;
    matched(&mut b).await;
    assert_eq!((a.seat, b.seat), (Some(Color::White), Some(Color::Black)));
    assert_eq!((snap.phase, snap.time_control), (Phase::Playing, Some(BLITZ)));
    // Fool's mate: Black (Bob) wins.
    for (ply, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut a } else { &mut b };
        assert!(matches!(mover.play(ply as u32, uci).await, ServerMsg::MoveAck { .. }));
    }
    let change = ratings_changed(&mut a).await;
    assert_eq!(ratings_changed(&mut b).await, change);
    assert_eq!((change.white.player, change.black.player), (alice.public(), bob.public()));
    assert_eq!((change.white.game, change.white.speed), (RatedGame::Chess, SpeedClass::Blitz));
    assert_eq!((change.white.before, change.black.before), (1500, 1500));
    assert!(change.white.after < 1500 && change.black.after > 1500, "{change:?}");
    // Exactly once: nothing more by the time the room answers the next request.
    assert_eq!(ratings_events_until_the_room_answers(&mut a).await, 0);
    assert_eq!(ratings_events_until_the_room_answers(&mut b).await, 0);
    let token = b.token.clone();
    drop((a, b, twin, guest, watcher, late));
    server.stop().await;

    let server = TestServer::start(on_disk(&db)).await;
    // Bob comes back to the finished room; its rating is not applied again.
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::Rejoin { code, token: token.clone(), last_seq: 0 }).await;
    b.token = token;
    b.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
    assert_eq!(ratings_events_until_the_room_answers(&mut b).await, 0);
    for (secret, after) in [(&alice, change.white.after), (&bob, change.black.after)] {
        let mut c = Client::connect(server.addr).await;
        let me = identify(&mut c, secret).await;
        assert_eq!(me.ratings.len(), 1);
        let r = me.ratings[0];
        assert_eq!(
            (r.game, r.speed, r.rating, r.games),
            (RatedGame::Chess, SpeedClass::Blitz, after, 1)
        );
    }
    // The lobby shows Alice's new rating on her next challenge.
    let mut a = player(server.addr, &alice, None).await;
    a.send(&rated_challenge(LobbyGame::Chess, ColorChoice::Random)).await;
    let next = created(&mut a).await;
    assert_eq!((next.creator.as_deref(), next.rating), (Some("alice"), change.white.after));
    server.stop().await;
}

#[tokio::test]
async fn an_aborted_rated_game_changes_no_rating() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (alice, bob) = (new_secret(), new_secret());
    let server = TestServer::start(on_disk(&db)).await;
    let mut a = player(server.addr, &alice, None).await;
    let mut b = player(server.addr, &bob, None).await;
    // A rated Maharajah game starts with the hidden lock-in; Alice leaves during it.
    a.send(&rated_challenge(LobbyGame::Maharajah, ColorChoice::Black)).await;
    let posted = created(&mut a).await;
    b.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (_, snap) = matched(&mut a).await;
    matched(&mut b).await;
    assert_eq!((snap.phase, snap.hidden_setup), (Phase::Setup, true));
    a.send(&ClientMsg::Resign { token: a.token.clone() }).await;
    let over = b.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    assert!(
        matches!(over, RoomEvent::GameOver { result, .. } if result.outcome == Outcome::Annulled),
        "{over:?}"
    );
    assert_eq!(ratings_events_until_the_room_answers(&mut b).await, 0);
    drop((a, b));
    server.stop().await;
    // Nor after a restart.
    let server = TestServer::start(on_disk(&db)).await;
    for secret in [&alice, &bob] {
        let me = identify(&mut Client::connect(server.addr).await, secret).await;
        assert!(me.ratings.is_empty(), "{me:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn rated_quick_pairing_uses_each_players_rating_within_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (ana, ben, cy) = (new_secret(), new_secret(), new_secret());
    seed(
        &db,
        &[
            (ana.public(), Some("Ana"), &[("chess/blitz", 1420.0), ("horde/blitz", 1811.4)]),
            (ben.public(), None, &[("chess/blitz", 1570.0)]),
            (cy.public(), None, &[("chess/blitz", 2600.0)]),
        ],
    )
    .await;
    let server = TestServer::start(on_disk(&db)).await;

    // The list shows the rating of the challenge's game and speed class, not provisional.
    let mut a = player(server.addr, &ana, None).await;
    a.send(&rated_challenge(LobbyGame::Horde, ColorChoice::White)).await;
    let posted = created(&mut a).await;
    assert_eq!(
        (posted.creator.as_deref(), posted.rating, posted.provisional),
        (Some("Ana"), 1811, false)
    );
    a.send(&ClientMsg::CancelChallenge { id: posted.id }).await;
    a.until_lobby("removed", |m| matches!(m, LobbyMsg::LobbyRemoved { .. })).await;

    // A guest cannot seek a rated game.
    let mut guest = Client::connect(server.addr).await;
    guest.send(&rated_play_now(LobbyGame::Chess)).await;
    assert_eq!(guest.until_error().await.0, ErrorCode::NotIdentified);

    // Cy, 1180 points from Ana: over the widest window.
    let mut c = player(server.addr, &cy, None).await;
    c.send(&rated_play_now(LobbyGame::Chess)).await;
    assert_eq!(queued(&mut c).await, 2600);
    a.send(&rated_play_now(LobbyGame::Chess)).await;
    assert_eq!(queued(&mut a).await, 1420);
    // Ana on a second connection, the same rating: never paired with herself.
    let mut twin = player(server.addr, &ana, None).await;
    twin.send(&rated_play_now(LobbyGame::Chess)).await;
    assert_eq!(queued(&mut twin).await, 1420);
    // A casual seeker of the same rating is in another pool.
    let mut casual = player(server.addr, &new_secret(), None).await;
    casual
        .send(&ClientMsg::PlayNow {
            cpu_after_s: None,
            device: None,
            game: LobbyGame::Chess,
            time_control: BLITZ,
            rated: false,
        })
        .await;
    casual.until_lobby("queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await;
    let nothing = twin.try_recv(Duration::from_millis(300)).await;
    assert!(nothing.is_none(), "{nothing:?}");
    twin.send(&ClientMsg::CancelPlayNow).await;
    twin.until_lobby("cancelled", |m| matches!(m, LobbyMsg::PairingCancelled)).await;

    // Ben, 150 points from Ana: not until the window has widened to 150 (after 1 s).
    let mut b = player(server.addr, &ben, None).await;
    b.send(&rated_play_now(LobbyGame::Chess)).await;
    assert_eq!(queued(&mut b).await, 1570);
    let early = a.try_recv(Duration::from_millis(700)).await;
    assert!(early.is_none(), "paired before the window covered 150 points: {early:?}");
    let (code_a, snap) = matched(&mut a).await;
    let (code_b, _) = matched(&mut b).await;
    assert_eq!(code_a, code_b);
    assert_eq!(snap.phase, Phase::Playing);

    // The room is rated with both stored ratings: the loser's resignation changes them.
    let (winner, loser) =
        if a.seat == Some(Color::White) { (&mut b, &mut a) } else { (&mut a, &mut b) };
    loser.send(&ClientMsg::Resign { token: loser.token.clone() }).await;
    let change = ratings_changed(winner).await;
    let ana_seat = if a_is(&change, &ana) { change.white } else { change.black };
    let ben_seat = if a_is(&change, &ana) { change.black } else { change.white };
    assert_eq!((ana_seat.before, ben_seat.before), (1420, 1570));
    assert_eq!((ana_seat.speed, ana_seat.provisional), (SpeedClass::Blitz, false));
    // Cy and the casual seeker are still waiting.
    assert!(c.try_recv(Duration::from_millis(100)).await.is_none());
    assert!(casual.try_recv(Duration::from_millis(1)).await.is_none());
    server.stop().await;
}

fn a_is(change: &ByColor<RatingChange>, secret: &PlayerSecret) -> bool {
    change.white.player == secret.public()
}
