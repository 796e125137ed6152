//! The app's identity and lobby against the real server library on 127.0.0.1: the key made once
//! and kept across a reopened store, every connection identified by itself, a name registered
//! (and the server's refusals), a recovery code moving the player to a second store, and a rated
//! challenge posted by one app, accepted by another, played to mate, with the rating change in
//! both game views.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::Server;

use std::path::PathBuf;
use std::time::Duration;

use maharajah_app::chess::online::{NetPlay, NetView};
use maharajah_app::identity::Identity;
use maharajah_app::lobby::{Lobby, LobbyLink, LobbyView};
use maharajah_app::store::Store;
use maharajah_protocol::{
    ChallengeOptions, Color, ColorChoice, LobbyGame, Phase, PlayerResult, SpeedClass, TimeControl,
};

const WAIT: Duration = Duration::from_secs(20);

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("maharajah-lobby-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("app.sqlite");
    let _ = std::fs::remove_file(&path);
    path
}

/// One app's online side on `store`: its identity, game session and lobby.
fn app(store: Store) -> (Lobby, NetPlay) {
    let identity = Identity::new(store.clone(), maharajah_app::time::system());
    let net = NetPlay::new(|_| {});
    let lobby = Lobby::new(identity, net.clone(), store, std::env::temp_dir(), |_| {});
    (lobby, net)
}

async fn until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(t) = f() {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn name(view: &LobbyView) -> Option<&str> {
    view.player.as_ref().and_then(|p| p.name.as_deref())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_is_made_once_identifies_itself_and_registers_a_name() {
    let server = Server::start().await;
    let path = temp_db("name");
    let (lobby, _) = app(Store::open(&path).unwrap());
    let opened = lobby.open(&server.url).await.expect("the lobby opens");
    assert_eq!(opened.link, LobbyLink::Connected);
    let key = opened.identity.clone().expect("a key was made").key;
    assert_eq!(opened.player.as_ref().map(|p| p.key.to_string()), Some(key.clone()));
    assert_eq!(name(&opened), None);
    let refused = lobby.register_name("x").await.expect_err("too short");
    assert_eq!(refused.code, "invalid_name");
    let named = lobby.register_name("Alice").await.expect("a name");
    assert_eq!(name(&named), Some("Alice"));
    lobby.close().await;

    // Another player cannot take a look-alike of it.
    let (other, _) = app(Store::in_memory().unwrap());
    other.open(&server.url).await.unwrap();
    let taken = other.register_name("ALICE").await.expect_err("taken");
    assert_eq!(taken.code, "name_taken");

    // Reopened: the same key, known to the server by its name again.
    let (again, _) = app(Store::open(&path).unwrap());
    let reopened = again.open(&server.url).await.unwrap();
    assert_eq!(reopened.identity.as_ref().map(|i| i.key.clone()), Some(key));
    assert_eq!(name(&reopened), Some("Alice"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recovery_code_moves_the_player_to_another_store() {
    let server = Server::start().await;
    let (first, _) = app(Store::in_memory().unwrap());
    first.open(&server.url).await.unwrap();
    first.register_name("Bobby").await.unwrap();
    let code = first.identity().recovery_code().expect("a code");
    first.close().await;

    let (second, _) = app(Store::open(&temp_db("recovered")).unwrap());
    let own = second.identity().view().unwrap().key;
    let moved = second.identity().recover(&code).expect("recovered");
    assert_ne!(moved.key, own);
    let opened = second.open(&server.url).await.unwrap();
    assert_eq!(name(&opened), Some("Bobby"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_challenge_accepted_is_played_and_changes_ratings() {
    let server = Server::start().await;
    let (alice, alice_net) = app(Store::in_memory().unwrap());
    let (bob, bob_net) = app(Store::in_memory().unwrap());
    alice.open(&server.url).await.unwrap();
    alice.register_name("Alice").await.unwrap();
    bob.open(&server.url).await.unwrap();
    bob.register_name("Bob").await.unwrap();

    let options = ChallengeOptions {
        game: LobbyGame::Chess,
        time_control: Some(TimeControl { base_ms: 300_000, increment_ms: 0 }),
        rated: true,
        color: ColorChoice::White,
        table: None,
    };
    // The answer already lists it: the connection folded `challenge_created` before the answer.
    let posted = alice.create(options).await.expect("posted");
    let mine = posted.challenges.iter().find(|c| c.mine).expect("ours is listed").challenge.id;
    // Bob sees it live, with Alice's name, not as his own.
    let listed =
        until("Bob's list", || bob.view().challenges.into_iter().find(|c| c.challenge.id == mine))
            .await;
    assert!(!listed.mine);
    assert_eq!(listed.challenge.creator.as_deref(), Some("Alice"));

    let bob_view = bob.accept(mine).await.expect("accepted");
    assert_eq!(bob_view.seat, Some(Color::Black));
    let seated =
        |net: &NetPlay| net.view().filter(|v| v.phase == Some(Phase::Playing) && v.game.is_some());
    let alice_view = until("Alice's game", || seated(&alice_net)).await;
    assert_eq!(alice_view.seat, Some(Color::White));
    assert!(alice_view.server_version.is_some(), "the lobby's welcome carries over to the game");
    assert_eq!(alice_view.code, bob_view.code);
    assert_eq!(alice.view().matched, alice_view.code);

    for (net, mv) in
        [(&alice_net, "f2f3"), (&bob_net, "e7e5"), (&alice_net, "g2g4"), (&bob_net, "d8h4")]
    {
        until(mv, || net.view().filter(|v| v.my_turn)).await;
        net.play(mv).await.expect(mv);
    }
    let changed = |net: &NetPlay| net.view().filter(|v| v.ratings_changed.is_some());
    let alice_end: NetView = until("Alice's rating change", || changed(&alice_net)).await;
    let ratings = alice_end.ratings_changed.unwrap();
    assert!(ratings.white.after < ratings.white.before, "the loser goes down");
    assert!(ratings.black.after > ratings.black.before, "the winner goes up");
    let bob_end = until("Bob's rating change", || changed(&bob_net)).await;
    assert_eq!(bob_end.ratings_changed, Some(ratings));

    // The lists: Bob above Alice on the leaderboard; Alice's profile has the game and its PGN.
    let board = alice.leaderboard(LobbyGame::Chess, SpeedClass::Blitz).await.expect("leaderboard");
    let order: Vec<&str> = board.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(order, ["Bob", "Alice"]);
    let profile = bob.profile("alice").await.expect("a profile");
    assert_eq!(profile.name, "Alice");
    let game = profile.games.first().expect("the game");
    assert_eq!(game.result, Some(PlayerResult::Loss));
    assert_eq!(
        game.rating.map(|r| (r.before, r.after)),
        Some((ratings.white.before, ratings.white.after))
    );
    let path = bob.save_pgn(game.id).await.expect("the PGN saved");
    let pgn = std::fs::read_to_string(&path).expect("the file");
    assert!(pgn.contains("f3") && pgn.contains("Qh4#") && pgn.contains("0-1"), "{pgn}");
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        bob.profile("nobody-here").await.map_err(|e| e.code),
        Err("player_not_found".into())
    );

    // A rematch, colours swapped: both offer, both land in the new room.
    let offered = alice_net.rematch().await.expect("offered");
    assert_eq!(offered.rematch_offer, Some(Color::White));
    until("Bob sees the offer", || {
        bob_net.view().filter(|v| v.rematch_offer == Some(Color::White))
    })
    .await;
    bob_net.rematch().await.expect("accepted");
    let old = alice_view.code.clone();
    let moved = |net: &NetPlay| {
        net.view().filter(|v| v.code != old && v.phase == Some(Phase::Playing) && v.game.is_some())
    };
    let alice_again = until("Alice's rematch", || moved(&alice_net)).await;
    let bob_again = until("Bob's rematch", || moved(&bob_net)).await;
    assert_eq!(alice_again.seat, Some(Color::Black));
    assert_eq!(bob_again.seat, Some(Color::White));
    assert_eq!(alice_again.code, bob_again.code);
    assert_eq!((alice_again.ratings_changed, alice_again.result), (None, None));
    bob_net.play("e2e4").await.expect("the new game goes on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_now_pairs_two_players_and_a_spectator_watches_their_game() {
    let server = Server::start().await;
    let (ann, ann_net) = app(Store::in_memory().unwrap());
    let (cy, cy_net) = app(Store::in_memory().unwrap());
    ann.open(&server.url).await.unwrap();
    cy.open(&server.url).await.unwrap();
    let blitz = TimeControl { base_ms: 180_000, increment_ms: 2_000 };
    let waiting = ann.play_now(LobbyGame::Chess, blitz, false).await.expect("queued");
    assert_eq!(
        waiting.seeking.map(|s| s.game),
        Some(LobbyGame::Chess),
        "the answer shows the wait"
    );
    // A cancel leaves the queue; queued again, the second player completes the pair.
    assert_eq!(ann.cancel_play_now().await.expect("cancelled").seeking, None);
    ann.play_now(LobbyGame::Chess, blitz, false).await.unwrap();
    cy.play_now(LobbyGame::Chess, blitz, false).await.unwrap();
    let seated = |net: &NetPlay| net.view().filter(|v| v.phase == Some(Phase::Playing));
    let a = until("Ann's game", || seated(&ann_net)).await;
    let c = until("Cy's game", || seated(&cy_net)).await;
    assert_eq!(a.code, c.code);
    assert_ne!(a.seat, c.seat);
    assert_eq!(ann.view().matched, a.code, "the lobby says where the game went");

    // A third app watches by code: the board, no seat, moves as they come.
    let (_, eve_net) = app(Store::in_memory().unwrap());
    let code = a.code.clone().expect("a room code");
    let watching = eve_net
        .watch(&server.url, &code, maharajah_net::ConnectOptions::default())
        .await
        .expect("watching");
    assert!(watching.watching && watching.seat.is_none());
    assert_eq!(watching.code.as_deref(), Some(code.as_str()));
    let white = if a.seat == Some(Color::White) { &ann_net } else { &cy_net };
    white.play("e2e4").await.expect("a move");
    let seen = until("the spectator sees e4", || {
        eve_net.view().filter(|v| v.game.as_ref().is_some_and(|g| g.history == ["e4"]))
    })
    .await;
    assert!(!seen.my_turn);
    assert!(eve_net.play("e7e5").await.is_err(), "a spectator acts for no seat");
    // The spectator's link drops: it watches again by itself and sees the next move.
    eve_net.current_connection().expect("the watch").drop_link();
    until("the drop seen", || {
        eve_net
            .view()
            .filter(|v| matches!(v.link, maharajah_app::chess::online::Link::Reconnecting { .. }))
    })
    .await;
    until("back", || {
        eve_net.view().filter(|v| v.link == maharajah_app::chess::online::Link::Connected)
    })
    .await;
    let black = if std::ptr::eq(white, &ann_net) { &cy_net } else { &ann_net };
    until("Black's turn", || black.view().filter(|v| v.my_turn)).await;
    black.play("e7e5").await.expect("a reply");
    until("the spectator, back, sees e5", || {
        eve_net.view().filter(|v| v.game.as_ref().is_some_and(|g| g.history.len() == 2))
    })
    .await;
}
