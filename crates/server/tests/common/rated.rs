//! Identified players, the lobby and rated games, for the tests that need them: identify with
//! an Ed25519 key, register a name, post and accept a rated challenge, read ratings, profiles
//! and the leaderboard.

use std::net::SocketAddr;

use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::*;

use super::Client;

/// A blitz clock (180 s + 2 s): rated games of the blitz class.
pub const BLITZ: TimeControl = TimeControl { base_ms: 180_000, increment_ms: 2_000 };

/// Fool's mate: Black mates on its second move.
pub const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

pub fn new_secret() -> PlayerSecret {
    PlayerSecret::from_bytes(rand::random())
}

/// Identifies `c` as `secret`'s player; the server's view of them.
pub async fn identify(c: &mut Client, secret: &PlayerSecret) -> PlayerView {
    let challenge = c.challenge.clone().expect("the welcome carries a challenge");
    let signature = secret.sign_hello(&challenge.nonce_bytes().unwrap(), &challenge.server);
    c.send(&ClientMsg::Identify { key: secret.public(), signature }).await;
    match c.until("the player", |m| matches!(m, ServerMsg::Player { .. })).await {
        ServerMsg::Player { player } => player,
        _ => unreachable!(),
    }
}

/// A connection to `addr` identified as `secret`'s player, named `name` if given.
pub async fn player(addr: SocketAddr, secret: &PlayerSecret, name: Option<&str>) -> Client {
    let mut c = Client::connect(addr).await;
    identify(&mut c, secret).await;
    if let Some(name) = name {
        c.send(&ClientMsg::RegisterName { name: name.into() }).await;
        match c.until("the named player", |m| matches!(m, ServerMsg::Player { .. })).await {
            ServerMsg::Player { player } => assert_eq!(player.name.as_deref(), Some(name)),
            _ => unreachable!(),
        }
    }
    c
}

pub fn rated_challenge(game: LobbyGame, color: ColorChoice) -> ClientMsg {
    ClientMsg::CreateChallenge {
        device: None,
        options: ChallengeOptions {
            table: None,
            game,
            time_control: Some(BLITZ),
            rated: true,
            color,
        },
    }
}

pub async fn created(c: &mut Client) -> Challenge {
    match c
        .until_lobby("challenge_created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. }))
        .await
    {
        LobbyMsg::ChallengeCreated { challenge } => challenge,
        _ => unreachable!(),
    }
}

/// `lobby_matched`, `seated` and the snapshot: the room's code and state.
pub async fn matched(c: &mut Client) -> (AccessCode, Snapshot) {
    c.until_lobby("lobby_matched", |m| matches!(m, LobbyMsg::LobbyMatched { .. })).await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
    match c.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await {
        ServerMsg::Snapshot { snapshot } => (c.code.clone().unwrap(), *snapshot),
        _ => unreachable!(),
    }
}

/// `white` posts a rated chess challenge (blitz, White) and `black` accepts it: the room.
pub async fn rated_game(white: &mut Client, black: &mut Client) -> AccessCode {
    white.send(&rated_challenge(LobbyGame::Chess, ColorChoice::White)).await;
    let posted = created(white).await;
    black.send(&ClientMsg::AcceptChallenge { device: None, id: posted.id }).await;
    let (code, snap) = matched(white).await;
    matched(black).await;
    assert_eq!((white.seat, black.seat), (Some(Color::White), Some(Color::Black)));
    assert_eq!(snap.phase, Phase::Playing);
    code
}

pub async fn ratings_changed(c: &mut Client) -> ByColor<RatingChange> {
    match c.until_event("ratings", |e| matches!(e, RoomEvent::RatingsChanged { .. })).await {
        RoomEvent::RatingsChanged { ratings } => *ratings,
        _ => unreachable!(),
    }
}

/// The profile of `name`, or `None` when the server knows no such player.
pub async fn profile(c: &mut Client, name: &str) -> Option<Profile> {
    c.send(&ClientMsg::Profile { name: name.into() }).await;
    let answer = c
        .until("profile", |m| {
            matches!(m, ServerMsg::Lobby(LobbyMsg::Profile { .. }) | ServerMsg::Error { .. })
        })
        .await;
    match answer {
        ServerMsg::Lobby(LobbyMsg::Profile { profile }) => Some(*profile),
        ServerMsg::Error { code: ErrorCode::PlayerNotFound, .. } => None,
        other => panic!("expected a profile, got {other:?}"),
    }
}

pub async fn leaderboard(
    c: &mut Client,
    game: LobbyGame,
    speed: SpeedClass,
) -> Vec<LeaderboardEntry> {
    c.send(&ClientMsg::Leaderboard { game, speed }).await;
    match c.until_lobby("leaderboard", |m| matches!(m, LobbyMsg::Leaderboard { .. })).await {
        LobbyMsg::Leaderboard { players, game: g, speed: s } => {
            assert_eq!((g, s), (game, speed));
            players
        }
        _ => unreachable!(),
    }
}
