//! Player identities on a real server over loopback (issue #18 item 1): the signed challenge,
//! display names and their look-alikes, the recovery code on a second connection, and a
//! restart that keeps players and their ratings.
#![allow(clippy::unwrap_used)]

mod common;

use common::{options, Client, TestServer};
use maharajah_protocol::identity::{PlayerSecret, RecoveryCode};
use maharajah_protocol::*;

fn new_secret() -> PlayerSecret {
    PlayerSecret::from_bytes(rand::random())
}

/// Signs `c`'s challenge with `secret` and claims `key`.
async fn identify_as(c: &mut Client, secret: &PlayerSecret, key: identity::PlayerKey) {
    let challenge = c.challenge.clone().expect("the welcome carries a challenge");
    let nonce = challenge.nonce_bytes().unwrap();
    let signature = secret.sign_hello(&nonce, &challenge.server);
    c.send(&ClientMsg::Identify { key, signature }).await;
}

/// Identifies as `secret`'s player and returns the server's view of them.
async fn identify(c: &mut Client, secret: &PlayerSecret) -> PlayerView {
    identify_as(c, secret, secret.public()).await;
    match c.until("the player", |m| matches!(m, ServerMsg::Player { .. })).await {
        ServerMsg::Player { player } => player,
        other => panic!("expected the player, got {other:?}"),
    }
}

async fn register(c: &mut Client, name: &str) -> Result<PlayerView, (ErrorCode, String)> {
    c.send(&ClientMsg::RegisterName { name: name.into() }).await;
    match c.recv().await {
        ServerMsg::Player { player } => Ok(player),
        ServerMsg::Error { code, message } => Err((code, message)),
        other => panic!("expected the player or an error, got {other:?}"),
    }
}

#[tokio::test]
async fn signup_with_a_name() {
    let server = TestServer::start(maharajah_server::Config::default()).await;
    let mut c = Client::connect(server.addr).await;
    let challenge = c.challenge.clone().unwrap();
    assert_eq!(challenge.server, "maharajah");
    assert_eq!(challenge.nonce.len(), 64);
    let secret = new_secret();
    let me = identify(&mut c, &secret).await;
    assert_eq!(me, PlayerView { key: secret.public(), name: None, ratings: Vec::new() });
    let me = register(&mut c, "Alice_1").await.unwrap();
    assert_eq!(me.name.as_deref(), Some("Alice_1"));
    // The same name again is fine; another one is not (names are permanent).
    assert_eq!(register(&mut c, "Alice_1").await.unwrap().name.as_deref(), Some("Alice_1"));
    let (code, message) = register(&mut c, "Alice_2").await.unwrap_err();
    assert_eq!(code, ErrorCode::WrongPhase);
    assert!(message.contains("already called Alice_1"), "{message}");
    // Identifying twice on one connection is refused.
    identify_as(&mut c, &secret, secret.public()).await;
    assert_eq!(c.until_error().await.0, ErrorCode::WrongPhase);
    // Every connection gets its own challenge.
    let other = Client::connect(server.addr).await;
    assert_ne!(other.challenge.unwrap().nonce, challenge.nonce);
    server.stop().await;
}

#[tokio::test]
async fn a_signature_with_the_wrong_key_is_refused_and_the_guest_still_plays() {
    let server = TestServer::start(maharajah_server::Config::default()).await;
    let mut c = Client::connect(server.addr).await;
    let (alice, mallory) = (new_secret(), new_secret());
    // Mallory claims Alice's key with her own signature.
    identify_as(&mut c, &mallory, alice.public()).await;
    let (code, message) = c.until_error().await;
    assert_eq!(code, ErrorCode::BadSignature);
    assert!(message.contains("guest"), "{message}");
    // Not identified: no name.
    let (code, _) = register(&mut c, "alice").await.unwrap_err();
    assert_eq!(code, ErrorCode::NotIdentified);
    // A signature over another server's name is refused too.
    let challenge = c.challenge.clone().unwrap();
    let signature = alice.sign_hello(&challenge.nonce_bytes().unwrap(), "elsewhere");
    c.send(&ClientMsg::Identify { key: alice.public(), signature }).await;
    assert_eq!(c.until_error().await.0, ErrorCode::BadSignature);
    // The connection still plays as a guest, as clients without identities always have.
    let code = c.create(options(Variant::Chess, None, false, Color::White)).await;
    let mut b = Client::connect(server.addr).await;
    b.join(&code).await;
    c.play(0, "e2e4").await;
    // And a correct signature afterwards identifies it.
    assert_eq!(identify(&mut b, &alice).await.key, alice.public());
    server.stop().await;
}

#[tokio::test]
async fn names_and_their_look_alikes_are_refused_with_the_reason() {
    let server = TestServer::start(maharajah_server::Config::default()).await;
    let mut a = Client::connect(server.addr).await;
    identify(&mut a, &new_secret()).await;
    register(&mut a, "Magnus").await.unwrap();
    let mut b = Client::connect(server.addr).await;
    identify(&mut b, &new_secret()).await;
    for look_alike in ["magnus", "MAGNUS", "rnagnus", "Magnu5", "MAGNVS"] {
        let (code, message) = register(&mut b, look_alike).await.unwrap_err();
        assert_eq!(code, ErrorCode::NameTaken, "{look_alike}");
        assert!(message.contains("Magnus"), "{look_alike}: {message}");
    }
    let cases = [
        ("ab", "at least 3"),
        ("abcdefghijklmnopqrstuvwxyz", "at most 20"),
        ("bad name", "' '"),
        ("ñandú", "'ñ'"),
        ("-dash", "starts and ends"),
    ];
    for (name, reason) in cases {
        let (code, message) = register(&mut b, name).await.unwrap_err();
        assert_eq!(code, ErrorCode::InvalidName, "{name}");
        assert!(message.contains(reason), "{name}: {message}");
    }
    assert_eq!(register(&mut b, "Magnolia").await.unwrap().name.as_deref(), Some("Magnolia"));
    server.stop().await;
}

#[tokio::test]
async fn the_recovery_code_brings_the_same_player_to_a_second_connection() {
    let server = TestServer::start(maharajah_server::Config::default()).await;
    let secret = new_secret();
    let mut first = Client::connect(server.addr).await;
    identify(&mut first, &secret).await;
    register(&mut first, "traveller").await.unwrap();
    let shown = RecoveryCode::of(&secret).to_string();
    // The new device: the code typed in lower case with spaces, a typo caught first.
    let mut typo: Vec<char> = shown.chars().collect();
    typo[3] = if typo[3] == 'A' { 'B' } else { 'A' };
    let typo: String = typo.into_iter().collect();
    assert!(typo.parse::<RecoveryCode>().is_err());
    let typed = shown.to_lowercase().replace('-', " ");
    let rebuilt = typed.parse::<RecoveryCode>().unwrap().secret();
    let mut second = Client::connect(server.addr).await;
    let me = identify(&mut second, &rebuilt).await;
    assert_eq!(me.key, secret.public());
    assert_eq!(me.name.as_deref(), Some("traveller"));
    server.stop().await;
}

#[tokio::test]
async fn a_restart_keeps_players_names_and_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let config = || maharajah_server::Config {
        db: Some(db.clone()),
        server_name: "play.example.org".into(),
        ..maharajah_server::Config::default()
    };
    let secret = new_secret();
    let server = TestServer::start(config()).await;
    let mut c = Client::connect(server.addr).await;
    assert_eq!(c.challenge.clone().unwrap().server, "play.example.org");
    identify(&mut c, &secret).await;
    register(&mut c, "Survivor").await.unwrap();
    drop(c);
    server.stop().await;

    // A rating, as the game's end stores it (in the same table, the same record).
    {
        use maharajah_server::players::{Players, StoredRating};
        let (store, stored) = maharajah_server::store::Store::open_lazy(&db).unwrap();
        let (mut players, bad) = Players::from_rows(stored.read_players().unwrap());
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(players.len(), 1);
        let record = players.entry(secret.public(), 0);
        let rating =
            maharajah_ratings::Rating { rating: 1641.4, deviation: 72.0, volatility: 0.06 };
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
                as u64;
        record
            .ratings
            .insert("chess/blitz".into(), StoredRating { rating, games: 9, updated_ms: now });
        let row = record.row().unwrap();
        store.queue_players(vec![row]).unwrap().unwrap().wait().await.unwrap();
    }

    let server = TestServer::start(config()).await;
    let mut c = Client::connect(server.addr).await;
    let me = identify(&mut c, &secret).await;
    assert_eq!(me.name.as_deref(), Some("Survivor"));
    assert_eq!(
        me.ratings,
        vec![RatingView {
            game: RatedGame::Chess,
            speed: SpeedClass::Blitz,
            rating: 1641,
            deviation: 72,
            provisional: false,
            games: 9,
        }]
    );
    // The name is still taken after the restart, look-alikes too.
    let mut other = Client::connect(server.addr).await;
    identify(&mut other, &new_secret()).await;
    let (code, _) = register(&mut other, "surv1vor").await.unwrap_err();
    assert_eq!(code, ErrorCode::NameTaken);
    server.stop().await;
}

/// The rating change of a rated game's end, as both players see it.
async fn ratings_changed(c: &mut Client) -> ByColor<RatingChange> {
    match c.until_event("ratings", |e| matches!(e, RoomEvent::RatingsChanged { .. })).await {
        RoomEvent::RatingsChanged { ratings } => *ratings,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn a_rated_game_changes_both_ratings_once_and_a_restart_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let config =
        || maharajah_server::Config { db: Some(db.clone()), ..maharajah_server::Config::default() };
    let (alice, bob) = (new_secret(), new_secret());
    let server = TestServer::start(config()).await;
    let blitz = options(Variant::Chess, Some((180_000, 2_000)), false, Color::White);

    // A guest can neither create nor join a rated game.
    let mut guest = Client::connect(server.addr).await;
    guest.send(&ClientMsg::CreateRoom { options: blitz.clone(), rated: true }).await;
    assert_eq!(guest.until_error().await.0, ErrorCode::NotIdentified);

    let mut w = Client::connect(server.addr).await;
    identify(&mut w, &alice).await;
    register(&mut w, "alice").await.unwrap();
    w.send(&ClientMsg::CreateRoom { options: blitz.clone(), rated: true }).await;
    w.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    let code = w.code.clone().unwrap();
    guest.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
    let (refused, message) = guest.until_error().await;
    assert_eq!(refused, ErrorCode::NotIdentified, "{message}");
    // Nor can Alice play herself from a second connection.
    let mut twin = Client::connect(server.addr).await;
    identify(&mut twin, &alice).await;
    twin.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
    assert_eq!(twin.until_error().await.0, ErrorCode::Forbidden);

    let mut b = Client::connect(server.addr).await;
    identify(&mut b, &bob).await;
    b.join(&code).await;
    // Fool's mate: Black wins.
    for (ply, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut w } else { &mut b };
        assert!(matches!(mover.play(ply as u32, uci).await, ServerMsg::MoveAck { .. }));
    }
    let over = w.until_event("game over", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    assert!(
        matches!(over, RoomEvent::GameOver { result, .. } if result.outcome == Outcome::BlackWins)
    );
    let change = ratings_changed(&mut w).await;
    assert_eq!(ratings_changed(&mut b).await, change);
    assert_eq!((change.white.player, change.black.player), (alice.public(), bob.public()));
    assert_eq!((change.white.game, change.white.speed), (RatedGame::Chess, SpeedClass::Blitz));
    assert_eq!((change.white.before, change.black.before), (1500, 1500));
    assert!(change.white.after < 1500 && change.black.after > 1500, "{change:?}");
    assert!(change.white.provisional, "one game: still provisional");
    let token = b.token.clone();
    drop((w, b, twin, guest));
    server.stop().await;

    let server = TestServer::start(config()).await;
    // Bob comes back to the finished room: its rating was applied once, before the restart.
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::Rejoin { code, token, last_seq: 0 }).await;
    b.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
    let mut w = Client::connect(server.addr).await;
    let me = identify(&mut w, &alice).await;
    assert_eq!(me.name.as_deref(), Some("alice"));
    assert_eq!(me.ratings.len(), 1);
    let r = me.ratings[0];
    assert_eq!((r.game, r.speed, r.games), (RatedGame::Chess, SpeedClass::Blitz, 1));
    assert_eq!(r.rating, change.white.after);
    assert_eq!(
        identify(&mut Client::connect(server.addr).await, &bob).await.ratings[0].rating,
        change.black.after
    );
    server.stop().await;
}
