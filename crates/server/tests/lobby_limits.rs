//! The lobby's limits beyond one connection's, over real WebSockets on 127.0.0.1: open
//! challenges per identified player (over all their connections) and per address, lobby
//! requests and lookups per address. Each refusal has a clear code and the connection stays.
#![allow(clippy::unwrap_used)]

mod common;

use common::{Client, TestServer};
use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::*;
use maharajah_server::lobby::LobbyConfig;
use maharajah_server::Config;

fn with(lobby: LobbyConfig) -> Config {
    Config { lobby, ..Config::default() }
}

fn challenge() -> ClientMsg {
    ClientMsg::CreateChallenge {
        options: ChallengeOptions {
            game: LobbyGame::Chess,
            time_control: None,
            rated: false,
            color: ColorChoice::Random,
            table: None,
        },
        device: None,
    }
}

async fn created(c: &mut Client) {
    c.until("challenge_created", |m| {
        matches!(m, ServerMsg::Lobby(LobbyMsg::ChallengeCreated { .. }))
    })
    .await;
}

/// The connection still answers.
async fn alive(c: &mut Client) {
    c.send(&ClientMsg::Ping { nonce: 42 }).await;
    c.until("pong", |m| matches!(m, ServerMsg::Pong { nonce: 42, .. })).await;
}

async fn identified(server: &TestServer, secret: &PlayerSecret) -> Client {
    let mut c = Client::connect(server.addr).await;
    let challenge = c.challenge.clone().unwrap();
    let signature = secret.sign_hello(&challenge.nonce_bytes().unwrap(), &challenge.server);
    c.send(&ClientMsg::Identify { key: secret.public(), signature }).await;
    c.until("the player", |m| matches!(m, ServerMsg::Player { .. })).await;
    c
}

#[tokio::test]
async fn a_player_has_three_open_challenges_over_all_connections() {
    let server = TestServer::start(with(LobbyConfig::default())).await;
    let alice = PlayerSecret::from_bytes(rand::random());
    let mut one = identified(&server, &alice).await;
    let mut two = identified(&server, &alice).await;
    for _ in 0..2 {
        one.send(&challenge()).await;
        created(&mut one).await;
    }
    two.send(&challenge()).await;
    created(&mut two).await;
    two.send(&challenge()).await;
    let (code, message) = two.until_error().await;
    assert_eq!(code, ErrorCode::TooManyChallenges, "{message}");
    alive(&mut two).await;
    // A guest on its own connection is not held back by Alice's challenges.
    let mut guest = Client::connect(server.addr).await;
    guest.send(&challenge()).await;
    created(&mut guest).await;
    server.stop().await;
}

#[tokio::test]
async fn one_address_has_a_cap_of_open_challenges() {
    let lobby = LobbyConfig { challenges_per_address: 2, ..LobbyConfig::default() };
    let server = TestServer::start(with(lobby)).await;
    let mut a = Client::connect(server.addr).await;
    let mut b = Client::connect(server.addr).await;
    a.send(&challenge()).await;
    created(&mut a).await;
    b.send(&challenge()).await;
    created(&mut b).await;
    b.send(&challenge()).await;
    let (code, message) = b.until_error().await;
    assert_eq!(code, ErrorCode::TooManyChallenges, "{message}");
    alive(&mut b).await;
    // When a connection goes, its challenges go and the address may post again.
    a.close().await;
    let mut posted = false;
    for _ in 0..50 {
        b.send(&challenge()).await;
        match b.recv().await {
            ServerMsg::Lobby(LobbyMsg::ChallengeCreated { .. }) => {
                posted = true;
                break;
            }
            ServerMsg::Error { code: ErrorCode::TooManyChallenges, .. } => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(posted);
    server.stop().await;
}

#[tokio::test]
async fn lobby_requests_and_lookups_are_counted_per_address() {
    let lobby = LobbyConfig {
        requests_per_address_per_minute: 3,
        lookups_per_address_per_minute: 2,
        ..LobbyConfig::default()
    };
    let server = TestServer::start(with(lobby)).await;
    let play_now = ClientMsg::PlayNow {
        game: LobbyGame::Horde,
        time_control: TimeControl { base_ms: 60_000, increment_ms: 0 },
        rated: false,
        cpu_after_s: None,
        device: None,
    };
    // Three connections, one request each: fresh connections do not bring fresh requests.
    let mut clients = Vec::new();
    for _ in 0..3 {
        let mut c = Client::connect(server.addr).await;
        c.send(&play_now).await;
        c.until("queued or matched", |m| matches!(m, ServerMsg::Lobby(_))).await;
        clients.push(c);
    }
    let mut fourth = Client::connect(server.addr).await;
    fourth.send(&challenge()).await;
    let (code, message) = fourth.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited, "{message}");
    assert!(message.contains("address"), "{message}");
    alive(&mut fourth).await;

    let lookup = ClientMsg::Leaderboard { game: LobbyGame::Chess, speed: SpeedClass::Blitz };
    for c in clients.iter_mut().take(2) {
        c.send(&lookup).await;
        c.until("leaderboard", |m| matches!(m, ServerMsg::Lobby(LobbyMsg::Leaderboard { .. })))
            .await;
    }
    fourth.send(&ClientMsg::Profile { name: "someone".into() }).await;
    let (code, message) = fourth.until_error().await;
    assert_eq!(code, ErrorCode::RateLimited, "{message}");
    alive(&mut fourth).await;
    server.stop().await;
}
