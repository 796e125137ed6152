//! The messages, events and shared value types of the protocol.

use serde::{Deserialize, Serialize};

use crate::identity::{Challenge, PlayerKey};
use crate::{AccessCode, ByColor, ChaturajiMsg, Color, Variant};
use maharajah_ratings::{RatedGame, SpeedClass};

/// The Fischer time control is the engine's (one `TimeControl` for the server, the app and the
/// wire; its serde form is `{"base_ms":…,"increment_ms":…}`).
pub use maharajah_engine::TimeControl;

/// What a player asks for when creating a room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomOptions {
    /// Rules variant.
    #[serde(with = "crate::wire::variant")]
    pub variant: Variant,
    /// Clock; `None` for an untimed game (no clocks, no pauses).
    pub time_control: Option<TimeControl>,
    /// Maharajah only: each player builds an army privately (commit, then reveal).
    /// Otherwise the variant's standard start position is used.
    pub hidden_setup: bool,
    /// The creator's seat; `None` lets the server draw it at random.
    pub color: Option<Color>,
}

/// Messages from a client to the server.
///
/// The first message of a connection must be [`ClientMsg::Hello`]. Every action in a room carries
/// the secret `token` of the seat it acts for; a wrong token is refused with
/// [`ErrorCode::Forbidden`] and changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Opens the conversation; `version` must equal the server's [`crate::PROTOCOL_VERSION`].
    Hello {
        /// The client's protocol version.
        version: u32,
        /// Free text naming the client program, for logs.
        client: String,
        /// The client follows a [`ServerMsg::Redirect`] (reconnects to the address given and
        /// asks again). Absent (false) from older clients: a cluster node then forwards their
        /// connection to the room's node instead.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        redirects: bool,
    },
    /// Asks for a [`ServerMsg::Pong`] (round-trip time and server clock).
    Ping {
        /// Echoed back.
        nonce: u64,
    },
    /// Creates a room and takes a seat in it.
    CreateRoom {
        /// Variant, clock, setup and seat.
        options: RoomOptions,
        /// A rated game: both players must be identified ([`ClientMsg::Identify`]), and the
        /// result changes their ratings ([`RoomEvent::RatingsChanged`]). Absent: casual.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// Takes the free seat of a room.
    JoinRoom {
        /// The room's access code.
        code: AccessCode,
    },
    /// Comes back to a seat after a dropped connection.
    Rejoin {
        /// The room's access code.
        code: AccessCode,
        /// The seat's secret token, received in [`ServerMsg::Seated`].
        token: String,
        /// The last event number the client has seen (0 for none).
        last_seq: u64,
    },
    /// Hidden setup, step 1: the hex SHA-256 commitment of the army (see [`crate::army`]).
    Commit {
        /// Seat token.
        token: String,
        /// 64 hex digits.
        commitment: String,
    },
    /// Hidden setup, step 2 (only after both commitments are in): the army and its nonce.
    Reveal {
        /// Seat token.
        token: String,
        /// The army text (see [`crate::army`]).
        army: String,
        /// The 32-byte nonce, 64 hex digits.
        nonce: String,
    },
    /// Plays a move.
    Move {
        /// Seat token.
        token: String,
        /// Number of half-moves played before this one (0 for White's first move).
        ply: u32,
        /// The move in UCI notation, e.g. `e2e4`, `e7e8m`.
        uci: String,
    },
    /// Uses the seat's one pause (both clocks stop for up to 60 s).
    Pause {
        /// Seat token.
        token: String,
    },
    /// Ends the seat's own pause early.
    Resume {
        /// Seat token.
        token: String,
    },
    /// Resigns the game; before the game has started, leaves the room (no result).
    Resign {
        /// Seat token.
        token: String,
    },
    /// Offers a draw, or accepts the opponent's pending offer.
    OfferDraw {
        /// Seat token.
        token: String,
    },
    /// Declines the opponent's pending draw offer.
    DeclineDraw {
        /// Seat token.
        token: String,
    },
    /// Claims a draw by threefold repetition or the fifty-move rule (player to move).
    ClaimDraw {
        /// Seat token.
        token: String,
    },
    /// Subscribes to the lobby's open challenges (see [`crate::lobby`]): answered with
    /// `lobby_list`, then every change. A second subscribe replaces the filter and resends the
    /// list.
    LobbySubscribe {
        /// Only challenges of these games; empty for every game.
        #[serde(default)]
        games: Vec<crate::lobby::LobbyGame>,
    },
    /// Ends the lobby subscription.
    LobbyUnsubscribe,
    /// Posts a challenge (answered with `challenge_created`).
    CreateChallenge {
        /// Game, clock, rated or casual, colour.
        options: crate::lobby::ChallengeOptions,
        /// Chaturaji only (needed there): the client's device id, as `create_chaturaji`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device: Option<String>,
    },
    /// Withdraws one of this connection's challenges.
    CancelChallenge {
        /// The challenge.
        id: crate::lobby::ChallengeId,
    },
    /// Accepts a challenge: the room is made and both players are seated at once.
    AcceptChallenge {
        /// The challenge.
        id: crate::lobby::ChallengeId,
        /// Chaturaji only (needed there): the client's device id, as `join_chaturaji`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device: Option<String>,
    },
    /// Quick pairing: waits for an opponent of about the same rating for this game and clock.
    PlayNow {
        /// The game.
        game: crate::lobby::LobbyGame,
        /// The clock.
        time_control: TimeControl,
        /// Rated (needs an identified player; refused until the server has identities).
        #[serde(default)]
        rated: bool,
        /// Chaturaji only: seconds after which CPUs take the empty seats of a table of 2–3
        /// ([`crate::lobby::CPU_AFTER_S`]; absent: [`crate::lobby::DEFAULT_CPU_AFTER_S`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cpu_after_s: Option<u32>,
        /// Chaturaji only (needed there): the client's device id, as `create_chaturaji`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device: Option<String>,
    },
    /// Leaves the quick-pairing queue.
    CancelPlayNow,
    /// Creates a Chaturaji room and takes its first person seat (see [`crate::chaturaji`]).
    CreateChaturaji {
        /// The table: `players` says which seats are people (2–4) and which are CPU (with level).
        settings: maharajah_chaturaji::Settings,
        /// The client's stable random device id (16–128 characters): a dropped person who comes
        /// back from the same device gets their own seat back.
        device: String,
        /// Level of the CPU that plays for a person who dropped (default: the crate's default).
        #[serde(default)]
        stand_in: Option<maharajah_chaturaji::cpu::Level>,
        /// A rated table: every person must be identified; each game's places change their
        /// Chaturaji ratings ([`crate::ChaturajiEvent::RatingsChanged`]). Absent: casual.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// Takes a free person seat of a Chaturaji room, or — from a device that already holds a
    /// seat there — that same seat back (answered with its token).
    JoinChaturaji {
        /// The room's access code.
        code: AccessCode,
        /// The client's device id.
        device: String,
    },
    /// Comes back to a Chaturaji seat: the token and the device must both be the seat's.
    RejoinChaturaji {
        /// The room's access code.
        code: AccessCode,
        /// The seat token.
        token: String,
        /// The client's device id.
        device: String,
        /// The last event number the client has seen (0 for none).
        last_seq: u64,
    },
    /// A Chaturaji action of the token's seat. `step` is the number of game steps already
    /// played (rolls, moves, ends of turn, time-outs, resignations: the game record's length);
    /// resending the same action with the same `step` gets the same ack.
    ChaturajiAct {
        /// Seat token.
        token: String,
        /// The game step this action would be.
        step: u32,
        /// What to do.
        action: crate::chaturaji::ChaturajiAction,
    },
    /// After the game is over: starts the next game at the table (first seat rotated per the
    /// settings).
    ChaturajiRematch {
        /// Seat token.
        token: String,
    },
    /// Answers the [`Challenge`] of [`ServerMsg::Welcome`]: the connection acts for the player
    /// with this key from now on (answered with [`ServerMsg::Player`]). A wrong signature is
    /// refused with [`ErrorCode::BadSignature`]; the connection stays a guest and may try
    /// again. Optional: a connection that never identifies plays unrated, as before.
    Identify {
        /// The player's Ed25519 public key.
        key: PlayerKey,
        /// 128 hex digits: the signature of [`crate::identity::hello_message`] over the
        /// challenge's nonce and server name.
        signature: String,
    },
    /// Gives the identified player a display name (answered with [`ServerMsg::Player`]); see
    /// [`crate::identity::check_name`] for the rules. Refused with [`ErrorCode::InvalidName`],
    /// [`ErrorCode::NameTaken`] (the name or a look-alike belongs to someone else),
    /// [`ErrorCode::NotIdentified`], or [`ErrorCode::WrongPhase`] for a player who already has
    /// another name (names are permanent). The player's own name again is accepted.
    RegisterName {
        /// The name as the player typed it (its case is kept).
        name: String,
    },
    /// Watches room `code` (chess or Chaturaji) as a spectator: answered with the room's
    /// snapshot (`snapshot` or `chaturaji_snapshot`), then every event as the players get it
    /// (moves, clocks, presence, dice), until [`ClientMsg::Unwatch`], another `watch` or the end
    /// of the connection. A spectator holds no seat and acts for none. Nothing a spectator gets
    /// shows a hidden army before both are revealed (no event or snapshot does). Refused with
    /// [`ErrorCode::RoomNotFound`] or [`ErrorCode::TooManySpectators`]; failed attempts count
    /// against the address as failed joins do.
    Watch {
        /// The room's access code.
        code: AccessCode,
    },
    /// Stops watching (no answer; nothing if the connection was not watching).
    Unwatch,
    /// Asks for the leaderboard of a game and speed class (answered with `leaderboard`; see
    /// [`crate::listing`]).
    Leaderboard {
        /// The game.
        game: crate::lobby::LobbyGame,
        /// The speed class.
        speed: SpeedClass,
    },
    /// Asks for a player's profile by display name, found as names are (case- and
    /// look-alike-insensitive): answered with `profile`, or refused
    /// [`ErrorCode::PlayerNotFound`].
    Profile {
        /// The name.
        name: String,
    },
    /// Asks for a finished game's text (PGN, or the Chaturaji record): answered with
    /// `game_record`, or refused [`ErrorCode::GameNotFound`].
    GameRecord {
        /// The game's number, from a profile.
        id: crate::listing::GameId,
    },
    /// Asks for the games being played now (answered with `playing_now`).
    PlayingNow {
        /// Only games of these games; empty for every game.
        #[serde(default)]
        games: Vec<crate::lobby::LobbyGame>,
    },
    /// After a chess-family game has ended: offers the other seat a rematch with colours
    /// swapped, or accepts theirs (see [`crate::lobby`]). Refused [`ErrorCode::WrongPhase`]
    /// before the game has ended.
    Rematch {
        /// Seat token.
        token: String,
    },
}

impl ClientMsg {
    /// Every value of the `t` tag, in declaration order.
    pub const TAGS: &'static [&'static str] = &[
        "hello",
        "ping",
        "create_room",
        "join_room",
        "rejoin",
        "commit",
        "reveal",
        "move",
        "pause",
        "resume",
        "resign",
        "offer_draw",
        "decline_draw",
        "claim_draw",
        "lobby_subscribe",
        "lobby_unsubscribe",
        "create_challenge",
        "cancel_challenge",
        "accept_challenge",
        "play_now",
        "cancel_play_now",
        "create_chaturaji",
        "join_chaturaji",
        "rejoin_chaturaji",
        "chaturaji_act",
        "chaturaji_rematch",
        "identify",
        "register_name",
        "watch",
        "unwatch",
        "leaderboard",
        "profile",
        "game_record",
        "playing_now",
        "rematch",
    ];

    /// The seat token the message acts with, if it is a seat action.
    pub fn token(&self) -> Option<&str> {
        match self {
            ClientMsg::Rejoin { token, .. }
            | ClientMsg::Commit { token, .. }
            | ClientMsg::Reveal { token, .. }
            | ClientMsg::Move { token, .. }
            | ClientMsg::Pause { token }
            | ClientMsg::Resume { token }
            | ClientMsg::Resign { token }
            | ClientMsg::OfferDraw { token }
            | ClientMsg::DeclineDraw { token }
            | ClientMsg::ClaimDraw { token }
            | ClientMsg::RejoinChaturaji { token, .. }
            | ClientMsg::ChaturajiAct { token, .. }
            | ClientMsg::ChaturajiRematch { token }
            | ClientMsg::Rematch { token } => Some(token),
            ClientMsg::LobbySubscribe { .. }
            | ClientMsg::LobbyUnsubscribe
            | ClientMsg::CreateChallenge { .. }
            | ClientMsg::CancelChallenge { .. }
            | ClientMsg::AcceptChallenge { .. }
            | ClientMsg::PlayNow { .. }
            | ClientMsg::CancelPlayNow => None,
            ClientMsg::CreateChaturaji { .. } | ClientMsg::JoinChaturaji { .. } => None,
            ClientMsg::Hello { .. }
            | ClientMsg::Ping { .. }
            | ClientMsg::CreateRoom { .. }
            | ClientMsg::JoinRoom { .. }
            | ClientMsg::Identify { .. }
            | ClientMsg::RegisterName { .. }
            | ClientMsg::Watch { .. }
            | ClientMsg::Unwatch
            | ClientMsg::Leaderboard { .. }
            | ClientMsg::Profile { .. }
            | ClientMsg::GameRecord { .. }
            | ClientMsg::PlayingNow { .. } => None,
        }
    }
}

/// Messages from the server to a client: the one server → client enum, for chess rooms, for
/// Chaturaji rooms ([`ServerMsg::Chaturaji`]) and for both (`welcome`, `pong`, `error`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to a matching [`ClientMsg::Hello`].
    Welcome {
        /// The server's protocol version.
        version: u32,
        /// The server program's version, for the About screen.
        server_version: String,
        /// The rules engine's version.
        engine_version: String,
        /// What to sign to identify as a player ([`ClientMsg::Identify`]); absent from servers
        /// older than identities (a client then stays a guest).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        challenge: Option<Challenge>,
    },
    /// Answer to [`ClientMsg::Ping`].
    Pong {
        /// The ping's nonce.
        nonce: u64,
        /// Milliseconds since the Unix epoch on the server.
        server_time_ms: u64,
    },
    /// The connection now acts for a seat (after create, join or rejoin). Followed by a
    /// [`ServerMsg::Snapshot`] or by the missed [`ServerMsg::Event`]s.
    Seated {
        /// The room.
        code: AccessCode,
        /// The seat.
        seat: Color,
        /// The seat's secret token: keep it to rejoin and to act.
        token: String,
    },
    /// The whole visible state of the room.
    Snapshot {
        /// The state.
        snapshot: Box<Snapshot>,
    },
    /// A numbered room event; `seq` grows by one per event, from 1.
    Event {
        /// The room.
        code: AccessCode,
        /// Event number.
        seq: u64,
        /// What happened.
        event: RoomEvent,
    },
    /// A move was accepted and stored (also sent again, identically, for a resent move).
    MoveAck {
        /// The move's ply.
        ply: u32,
        /// The move's event number.
        seq: u64,
    },
    /// A setup step (commit or reveal) was accepted and stored.
    SetupAck {
        /// `commit` or `reveal`.
        step: String,
    },
    /// The connection's player, after [`ClientMsg::Identify`] or [`ClientMsg::RegisterName`].
    Player {
        /// Key, name, ratings.
        player: PlayerView,
    },
    /// In a cluster, the room asked for (`join_room`, `rejoin`, `watch`, their Chaturaji
    /// forms) is held by another node: reconnect to `url` and ask again there. Nothing changed
    /// here; the server closes the connection after it. Sent only to a client whose `hello`
    /// said `redirects`.
    Redirect {
        /// The node's address (`ws://host:port` or `wss://…`).
        url: String,
    },
    /// A request failed; nothing changed.
    Error {
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// A message about a Chaturaji room, with its own `t` tags (`chaturaji_seated`,
    /// `chaturaji_snapshot`, `chaturaji_event`, `chaturaji_ack`; see [`crate::chaturaji`]).
    #[serde(untagged)]
    Chaturaji(ChaturajiMsg),
    /// A message about the lobby, with its own `t` tags (`lobby_list`, `lobby_added`,
    /// `lobby_removed`, `challenge_created`, `pairing_queued`, `pairing_cancelled`,
    /// `lobby_matched`, then the lists of [`crate::listing`], rematch offers and Chaturaji
    /// tables; see [`crate::lobby`]).
    #[serde(untagged)]
    Lobby(crate::lobby::LobbyMsg),
}

impl ServerMsg {
    /// Every value of the `t` tag, in declaration order (the Chaturaji, then the lobby tags
    /// last).
    pub const TAGS: &'static [&'static str] = &[
        "welcome",
        "pong",
        "seated",
        "snapshot",
        "event",
        "move_ack",
        "setup_ack",
        "player",
        "redirect",
        "error",
        "chaturaji_seated",
        "chaturaji_snapshot",
        "chaturaji_event",
        "chaturaji_ack",
        "lobby_list",
        "lobby_added",
        "lobby_removed",
        "challenge_created",
        "pairing_queued",
        "pairing_cancelled",
        "lobby_matched",
        "leaderboard",
        "profile",
        "game_record",
        "playing_now",
        "rematch_offered",
        "rematch_withdrawn",
        "table_joined",
        "lobby_updated",
    ];

    /// Shorthand for [`ServerMsg::Error`].
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error { code, message: message.into() }
    }
}

macro_rules! error_codes {
    ($($(#[$doc:meta])* $name:ident => $text:literal,)*) => {
        /// What can go wrong, for programs to branch on. Every error also carries a human message.
        /// The wire name of each code is [`ErrorCode::as_str`] (snake case).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $text)] $name,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The code's name on the wire, e.g. `"room_not_found"`: what programs (and the
            /// app's message catalogue) match on.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $text,)*
                }
            }
        }
    };
}

error_codes! {
    /// The peers speak different protocol versions; the connection closes.
    VersionMismatch => "version_mismatch",
    /// Something other than `hello` came first.
    HelloRequired => "hello_required",
    /// The frame is not valid JSON or its fields do not fit the message.
    Malformed => "malformed",
    /// The `t` tag names no known message.
    UnknownMessage => "unknown_message",
    /// The frame is larger than [`crate::MAX_FRAME_BYTES`].
    FrameTooLarge => "frame_too_large",
    /// Too many messages or attempts; slow down.
    RateLimited => "rate_limited",
    /// No room has this code (or it expired).
    RoomNotFound => "room_not_found",
    /// Both seats are taken (Chaturaji: every person seat).
    RoomFull => "room_full",
    /// No open challenge has this number (it was taken, cancelled, or never existed).
    ChallengeNotFound => "challenge_not_found",
    /// The connection already has the most open challenges allowed; cancel one first.
    TooManyChallenges => "too_many_challenges",
    /// The token does not belong to a seat of this room.
    Forbidden => "forbidden",
    /// The connection has not taken a seat yet.
    NotSeated => "not_seated",
    /// The request does not fit the room's current phase.
    WrongPhase => "wrong_phase",
    /// It is the opponent's turn.
    NotYourTurn => "not_your_turn",
    /// The move's ply is not the next ply (an old or a future move).
    StalePly => "stale_ply",
    /// The move is not legal in the current position.
    IllegalMove => "illegal_move",
    /// The game is paused.
    GamePaused => "game_paused",
    /// The room has no clock, so there is nothing to pause.
    NoClock => "no_clock",
    /// The seat has already used its pause.
    PauseUsed => "pause_used",
    /// There is no pause of this seat to end.
    NotPaused => "not_paused",
    /// The seat has already committed (or revealed).
    AlreadyCommitted => "already_committed",
    /// A commitment or nonce is not the right hex text, or an army text is malformed.
    BadCommitment => "bad_commitment",
    /// The reveal does not open the seat's commitment.
    CommitmentMismatch => "commitment_mismatch",
    /// The army breaks the army rules.
    InvalidArmy => "invalid_army",
    /// The room options are not allowed (e.g. hidden setup for standard chess).
    InvalidOptions => "invalid_options",
    /// The game is over.
    GameOver => "game_over",
    /// No draw can be claimed, declined or accepted now.
    NoDraw => "no_draw",
    /// The identity's key or signature does not verify (a wrong key, a forged or stale
    /// signature); the connection stays a guest.
    BadSignature => "bad_signature",
    /// The request needs an identified player ([`ClientMsg::Identify`] first).
    NotIdentified => "not_identified",
    /// The display name breaks the name rules (the message says which).
    InvalidName => "invalid_name",
    /// The display name, or one that looks like it, belongs to another player.
    NameTaken => "name_taken",
    /// The room has as many spectators as the server allows.
    TooManySpectators => "too_many_spectators",
    /// The server cannot do this now (e.g. the rules engine lacks a feature).
    Unavailable => "unavailable",
    /// The server is shutting down.
    ShuttingDown => "shutting_down",
    /// A bug or storage failure on the server; nothing changed.
    Internal => "internal",
    /// No player has this display name (nor one that looks like it).
    PlayerNotFound => "player_not_found",
    /// No finished game has this number.
    GameNotFound => "game_not_found",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The phase of a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// One seat is free.
    WaitingForOpponent,
    /// Hidden setup: both seated, commitments and reveals being collected.
    Setup,
    /// The game is on.
    Playing,
    /// The game has ended (see the result).
    Finished,
}

/// Why a pause started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseReason {
    /// The player asked for it.
    Requested,
    /// The player's connection dropped while their clock ran (the disconnect shield).
    Disconnected,
    /// The server restarted; clocks stay frozen until the player to move is back (or the
    /// recovery grace ends). Uses nobody's pause.
    ServerRestart,
}

/// The clocks as of the moment the message was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// White's remaining time, milliseconds.
    pub white_ms: u64,
    /// Black's remaining time, milliseconds.
    pub black_ms: u64,
    /// The side whose clock is running, if any (none while paused or before/after the game).
    pub running: Option<Color>,
}

impl ClockView {
    /// The wire view of `clock` at `now` (on the clock owner's timeline).
    #[must_use]
    pub fn of(clock: &maharajah_engine::Clock, now: maharajah_engine::clock::Millis) -> ClockView {
        ClockView {
            white_ms: clock.remaining(Color::White, now),
            black_ms: clock.remaining(Color::Black, now),
            running: clock.running(),
        }
    }
}

/// A pause in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PauseView {
    /// Whose pause it is (for a server restart: the side to move).
    pub by: Color,
    /// Why it started.
    pub reason: PauseReason,
    /// Milliseconds until the game resumes by itself.
    pub remaining_ms: u64,
}

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
    /// No result: the flag fell before the flagged player's first move, or a player left
    /// before the game started.
    Annulled,
}

impl Outcome {
    /// The outcome in which `c` wins.
    pub fn win_for(c: Color) -> Outcome {
        match c {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// A flag fell. (`time` is how the app's store wrote it before there was one vocabulary.)
    #[serde(alias = "time")]
    Timeout,
    /// A flag fell but the opponent has no mating material.
    #[serde(alias = "time_vs_insufficient_material")]
    TimeoutVsInsufficientMaterial,
    /// The flag fell before the flagged player's first move.
    TimeoutBeforeFirstMove,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Threefold repetition, claimed.
    ThreefoldRepetition,
    /// Fivefold repetition.
    FivefoldRepetition,
    /// Fifty-move rule, claimed.
    FiftyMoves,
    /// Seventy-five-move rule.
    SeventyFiveMoves,
    /// Every piece of a side was captured (Horde).
    AllPiecesCaptured,
    /// A player resigned.
    Resignation,
    /// Both players agreed to a draw.
    Agreement,
    /// Hidden setup: the two armies could not start together in [`SETUP_ROUNDS`] rounds, so
    /// the game is annulled (each failed round tells a prober one bit about the hidden army).
    SetupFailed,
}

/// How many hidden-setup rounds a room allows before the game is annulled as
/// [`EndReason::SetupFailed`].
pub const SETUP_ROUNDS: u32 = 3;

/// The end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Who won, or draw, or annulled.
    pub outcome: Outcome,
    /// Why.
    pub reason: EndReason,
}

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 14] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::Timeout,
        EndReason::TimeoutVsInsufficientMaterial,
        EndReason::TimeoutBeforeFirstMove,
        EndReason::InsufficientMaterial,
        EndReason::ThreefoldRepetition,
        EndReason::FivefoldRepetition,
        EndReason::FiftyMoves,
        EndReason::SeventyFiveMoves,
        EndReason::AllPiecesCaptured,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::SetupFailed,
    ];

    /// The wire name (as serde writes it), also the UI's i18n key `reason.<name>`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Timeout => "timeout",
            EndReason::TimeoutVsInsufficientMaterial => "timeout_vs_insufficient_material",
            EndReason::TimeoutBeforeFirstMove => "timeout_before_first_move",
            EndReason::InsufficientMaterial => "insufficient_material",
            EndReason::ThreefoldRepetition => "threefold_repetition",
            EndReason::FivefoldRepetition => "fivefold_repetition",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::SeventyFiveMoves => "seventy_five_moves",
            EndReason::AllPiecesCaptured => "all_pieces_captured",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::SetupFailed => "setup_failed",
        }
    }
}

impl From<maharajah_engine::WinReason> for EndReason {
    fn from(r: maharajah_engine::WinReason) -> EndReason {
        match r {
            maharajah_engine::WinReason::Checkmate => EndReason::Checkmate,
            maharajah_engine::WinReason::AllPiecesCaptured => EndReason::AllPiecesCaptured,
        }
    }
}

impl From<maharajah_engine::DrawReason> for EndReason {
    fn from(r: maharajah_engine::DrawReason) -> EndReason {
        use maharajah_engine::DrawReason as D;
        match r {
            D::Stalemate => EndReason::Stalemate,
            D::InsufficientMaterial => EndReason::InsufficientMaterial,
            D::SeventyFiveMoves => EndReason::SeventyFiveMoves,
            D::FivefoldRepetition => EndReason::FivefoldRepetition,
            D::FiftyMoves => EndReason::FiftyMoves,
            D::ThreefoldRepetition => EndReason::ThreefoldRepetition,
        }
    }
}

impl From<maharajah_engine::Outcome> for GameResult {
    /// The result of a game that ended by the rules on the board (mate, stalemate, automatic
    /// draws); time, resignation and agreement are the room's.
    fn from(o: maharajah_engine::Outcome) -> GameResult {
        match o {
            maharajah_engine::Outcome::Decisive { winner, reason } => {
                GameResult { outcome: Outcome::win_for(winner), reason: reason.into() }
            }
            maharajah_engine::Outcome::Draw { reason } => {
                GameResult { outcome: Outcome::Draw, reason: reason.into() }
            }
        }
    }
}

/// A player as the server knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerView {
    /// The player's public key.
    pub key: PlayerKey,
    /// The display name, once registered.
    pub name: Option<String>,
    /// The player's ratings, one per game and speed class played rated (others are the
    /// default 1500, provisional).
    pub ratings: Vec<RatingView>,
}

/// One rating of a player, rounded for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingView {
    /// The game.
    pub game: RatedGame,
    /// The speed class.
    pub speed: SpeedClass,
    /// The rating, rounded.
    pub rating: u32,
    /// The rating deviation as of now (grown with inactivity), rounded.
    pub deviation: u32,
    /// Whether the deviation is above 110 ([`maharajah_ratings::PROVISIONAL_DEVIATION`]).
    pub provisional: bool,
    /// Rated games played.
    pub games: u32,
}

/// What one seat looks like to everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Someone has taken the seat.
    pub taken: bool,
    /// The seat's player is connected now.
    pub connected: bool,
    /// The seat still has its one pause.
    pub pause_available: bool,
    /// Hidden setup: the seat has committed.
    pub committed: bool,
    /// Hidden setup: the seat has revealed (the army itself stays hidden until both have).
    pub revealed: bool,
}

/// The whole visible state of a room, for a client that joins or missed too many events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The room.
    pub code: AccessCode,
    /// The number of the last event included in this state.
    pub seq: u64,
    /// Variant, clock, setup as created.
    #[serde(with = "crate::wire::variant")]
    pub variant: Variant,
    /// The time control, if any.
    pub time_control: Option<TimeControl>,
    /// Hidden setup.
    pub hidden_setup: bool,
    /// Phase.
    pub phase: Phase,
    /// Both seats.
    pub seats: ByColor<SeatView>,
    /// Both armies, once both are revealed (hidden setup only).
    pub armies: Option<ByColor<String>>,
    /// Hidden setup: each seat's commitment, once made.
    #[serde(default)]
    pub commitments: ByColor<Option<String>>,
    /// Hidden setup: both nonces (hex), once both armies are revealed, so each side can check
    /// the other's army against its commitment.
    #[serde(default)]
    pub nonces: Option<ByColor<String>>,
    /// The starting position (FEN), once the game has started.
    pub start_fen: Option<String>,
    /// The moves played, UCI.
    pub moves: Vec<String>,
    /// The current position (FEN), once the game has started.
    pub fen: Option<String>,
    /// The clocks (timed games).
    pub clock: Option<ClockView>,
    /// The pause in progress.
    pub pause: Option<PauseView>,
    /// A pending draw offer and who made it.
    pub draw_offer: Option<Color>,
    /// The result, once finished.
    pub result: Option<GameResult>,
}

/// Something that happened in a room. Broadcast to both seats inside [`ServerMsg::Event`].
/// No event ever carries an army before both armies are revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum RoomEvent {
    /// A player took a seat.
    SeatTaken {
        /// The seat.
        seat: Color,
    },
    /// A seat's connection came or went. Informational: it never decides a result.
    Presence {
        /// The seat.
        seat: Color,
        /// Connected now.
        connected: bool,
    },
    /// Hidden setup started (both seated): each side now commits.
    SetupStarted,
    /// A seat committed to its army.
    Committed {
        /// The seat.
        seat: Color,
        /// Its commitment, so the opponent can check the reveal too.
        commitment: String,
    },
    /// Both commitments are in: reveal now.
    RevealOpen,
    /// A seat revealed an army that opens its commitment and obeys the rules (the army itself
    /// is held back until both have revealed).
    Revealed {
        /// The seat.
        seat: Color,
    },
    /// Both armies were valid alone but together may not start (e.g. a king in check):
    /// commitments and reveals are cleared and setup starts over.
    SetupRejected {
        /// Why, for people.
        reason: String,
    },
    /// Hidden setup: both reveals are in and valid. Sent just before `game_started`, with the
    /// nonces, so each side can check the other's army against its commitment itself.
    ArmiesOpened {
        /// Both armies (canonical text).
        armies: ByColor<String>,
        /// Both nonces (hex).
        nonces: ByColor<String>,
    },
    /// The game started.
    GameStarted {
        /// Starting position.
        start_fen: String,
        /// Both armies (hidden setup only), revealed together.
        armies: Option<ByColor<String>>,
        /// The clocks.
        clock: Option<ClockView>,
    },
    /// A move was played.
    Moved {
        /// Its ply (0 for White's first move).
        ply: u32,
        /// UCI.
        uci: String,
        /// The position after it.
        fen: String,
        /// The clocks after it.
        clock: Option<ClockView>,
    },
    /// The game is paused.
    Paused {
        /// Details and countdown.
        pause: PauseView,
        /// The frozen clocks.
        clock: Option<ClockView>,
    },
    /// The game resumed.
    Resumed {
        /// The clocks, running again.
        clock: Option<ClockView>,
    },
    /// A draw was offered.
    DrawOffered {
        /// By whom.
        by: Color,
    },
    /// A draw offer was declined (or lapsed with a move).
    DrawDeclined {
        /// By whom.
        by: Color,
    },
    /// The game ended.
    GameOver {
        /// The result.
        result: GameResult,
        /// The final clocks.
        clock: Option<ClockView>,
    },
    /// A rated game's result changed both players' ratings (right after `game_over`; never for
    /// an annulled game).
    RatingsChanged {
        /// Each seat's change (boxed: the event stays small).
        ratings: Box<ByColor<RatingChange>>,
    },
}

/// How one player's rating changed with a rated game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The player.
    pub player: PlayerKey,
    /// Which rating.
    pub game: RatedGame,
    /// Its speed class.
    pub speed: SpeedClass,
    /// The rating before the game, rounded.
    pub before: u32,
    /// The rating after it, rounded.
    pub after: u32,
    /// The deviation after it, rounded.
    pub deviation: u32,
    /// Whether the new rating is provisional (deviation above 110).
    pub provisional: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_end_reasons_name_is_its_wire_form_and_old_spellings_still_read() {
        for r in EndReason::ALL {
            assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{}\"", r.name()));
            let back: EndReason = serde_json::from_str(&format!("\"{}\"", r.name())).unwrap();
            assert_eq!(back, r);
        }
        let old: EndReason = serde_json::from_str("\"time\"").unwrap();
        assert_eq!(old, EndReason::Timeout);
        let old: EndReason = serde_json::from_str("\"time_vs_insufficient_material\"").unwrap();
        assert_eq!(old, EndReason::TimeoutVsInsufficientMaterial);
    }

    #[test]
    fn clock_view_reads_the_engine_clock() {
        use maharajah_engine::Clock;
        let tc = TimeControl { base_ms: 10_000, increment_ms: 2_000 };
        let mut c = Clock::new(tc);
        c.start(Color::White, 0);
        c.press(3_000).unwrap();
        c.press(4_000).unwrap();
        assert_eq!(
            ClockView::of(&c, 4_000),
            ClockView { white_ms: 9_000, black_ms: 11_000, running: Some(Color::White) }
        );
        let recovered = Clock::with_remaining(tc, ByColor { white: 5, black: 7 });
        assert_eq!(
            ClockView::of(&recovered, 123),
            ClockView { white_ms: 5, black_ms: 7, running: None }
        );
    }

    #[test]
    fn error_code_names_are_the_wire_names() {
        assert_eq!(ErrorCode::ALL.len(), 37);
        for &code in ErrorCode::ALL {
            let wire = serde_json::to_string(&code).unwrap();
            assert_eq!(wire, format!("\"{}\"", code.as_str()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&wire).unwrap(), code);
            assert_eq!(code.to_string(), code.as_str());
        }
        assert_eq!(ErrorCode::RoomNotFound.as_str(), "room_not_found");
    }

    #[test]
    fn variants_decode_by_their_exact_wire_names_only() {
        let options = |v: &str| {
            format!(r#"{{"variant":"{v}","time_control":null,"hidden_setup":false,"color":null}}"#)
        };
        for v in [Variant::Chess, Variant::Maharajah, Variant::Horde] {
            let o: RoomOptions = serde_json::from_str(&options(v.name())).unwrap();
            assert_eq!(o.variant, v);
        }
        for v in ["standard", "Chess", "HORDE", "shogi"] {
            assert!(serde_json::from_str::<RoomOptions>(&options(v)).is_err(), "{v}");
        }
    }

    #[test]
    fn engine_results_map_to_wire_results() {
        let mate = maharajah_engine::Outcome::Decisive {
            winner: Color::Black,
            reason: maharajah_engine::WinReason::Checkmate,
        };
        assert_eq!(
            GameResult::from(mate),
            GameResult { outcome: Outcome::BlackWins, reason: EndReason::Checkmate }
        );
        let draw = maharajah_engine::Outcome::Draw {
            reason: maharajah_engine::DrawReason::ThreefoldRepetition,
        };
        assert_eq!(
            GameResult::from(draw),
            GameResult { outcome: Outcome::Draw, reason: EndReason::ThreefoldRepetition }
        );
    }
}
