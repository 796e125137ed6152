//! Bad frames give typed errors; every message round-trips; the tag lists match the enums.
#![allow(clippy::unwrap_used)]

use maharajah_protocol::*;

fn token() -> String {
    "t".repeat(64)
}

fn every_client_msg() -> Vec<ClientMsg> {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    vec![
        ClientMsg::Hello { version: PROTOCOL_VERSION, client: "test".into(), redirects: true },
        ClientMsg::Ping { nonce: 1 },
        ClientMsg::CreateRoom {
            options: RoomOptions {
                variant: Variant::Maharajah,
                time_control: Some(TimeControl { base_ms: 300_000, increment_ms: 2_000 }),
                hidden_setup: true,
                color: Some(Color::Black),
            },
            rated: true,
        },
        ClientMsg::JoinRoom { code: code.clone() },
        ClientMsg::Rejoin { code, token: token(), last_seq: 4 },
        ClientMsg::Commit { token: token(), commitment: "ab".repeat(32) },
        ClientMsg::Reveal { token: token(), army: "Ke1".into(), nonce: "cd".repeat(32) },
        ClientMsg::Move { token: token(), ply: 0, uci: "e2e4".into() },
        ClientMsg::Pause { token: token() },
        ClientMsg::Resume { token: token() },
        ClientMsg::Resign { token: token() },
        ClientMsg::OfferDraw { token: token() },
        ClientMsg::DeclineDraw { token: token() },
        ClientMsg::ClaimDraw { token: token() },
        ClientMsg::LobbySubscribe { games: vec![LobbyGame::Maharajah] },
        ClientMsg::LobbyUnsubscribe,
        ClientMsg::CreateChallenge {
            device: None,
            options: ChallengeOptions {
                table: None,
                game: LobbyGame::Chess,
                time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
                rated: false,
                color: ColorChoice::Black,
            },
        },
        ClientMsg::CancelChallenge { id: 7 },
        ClientMsg::AcceptChallenge { device: None, id: 7 },
        ClientMsg::PlayNow {
            cpu_after_s: None,
            device: None,
            game: LobbyGame::Horde,
            time_control: TimeControl { base_ms: 60_000, increment_ms: 0 },
            rated: false,
        },
        ClientMsg::CancelPlayNow,
        ClientMsg::CreateChaturaji {
            settings: maharajah_chaturaji::Settings::default(),
            device: "device-1".into(),
            stand_in: Some(maharajah_chaturaji::cpu::Level::Greedy),
            rated: true,
        },
        ClientMsg::JoinChaturaji { code: "ABCDEFGH".parse().unwrap(), device: "device-2".into() },
        ClientMsg::RejoinChaturaji {
            code: "ABCDEFGH".parse().unwrap(),
            token: token(),
            device: "device-2".into(),
            last_seq: 3,
        },
        ClientMsg::ChaturajiAct {
            token: token(),
            step: 0,
            action: maharajah_protocol::ChaturajiAction::Roll,
        },
        ClientMsg::ChaturajiRematch { token: token() },
        ClientMsg::Identify {
            key: maharajah_protocol::identity::PlayerSecret::from_bytes([1; 32]).public(),
            signature: "ab".repeat(64),
        },
        ClientMsg::RegisterName { name: "someone".into() },
        ClientMsg::Watch { code: "ABCDEFGH".parse().unwrap() },
        ClientMsg::Unwatch,
        ClientMsg::Leaderboard { game: LobbyGame::Chess, speed: SpeedClass::Blitz },
        ClientMsg::Profile { name: "someone".into() },
        ClientMsg::GameRecord { id: 3 },
        ClientMsg::PlayingNow { games: vec![LobbyGame::Chaturaji] },
        ClientMsg::Rematch { token: token() },
    ]
}

fn every_server_msg() -> Vec<ServerMsg> {
    let code: AccessCode = "ABCDEFGH".parse().unwrap();
    let clock = Some(ClockView { white_ms: 1, black_ms: 2, running: Some(Color::White) });
    let seat = SeatView {
        taken: true,
        connected: false,
        pause_available: true,
        committed: false,
        revealed: false,
    };
    vec![
        ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            server_version: "0".into(),
            engine_version: "0".into(),
            challenge: None,
        },
        ServerMsg::Pong { nonce: 3, server_time_ms: 9 },
        ServerMsg::Seated { code: code.clone(), seat: Color::White, token: token() },
        ServerMsg::Snapshot {
            snapshot: Box::new(Snapshot {
                code: code.clone(),
                seq: 3,
                variant: Variant::Horde,
                time_control: None,
                hidden_setup: false,
                phase: Phase::Playing,
                seats: ByColor { white: seat, black: seat },
                armies: None,
                commitments: ByColor { white: Some("ab".repeat(32)), black: None },
                nonces: None,
                start_fen: Some("x".into()),
                moves: vec!["e2e4".into()],
                fen: Some("y".into()),
                clock,
                pause: Some(PauseView {
                    by: Color::Black,
                    reason: PauseReason::Disconnected,
                    remaining_ms: 60_000,
                }),
                draw_offer: None,
                result: Some(GameResult { outcome: Outcome::Draw, reason: EndReason::Agreement }),
            }),
        },
        ServerMsg::Event { code, seq: 1, event: RoomEvent::SetupStarted },
        ServerMsg::MoveAck { ply: 0, seq: 5 },
        ServerMsg::SetupAck { step: "commit".into() },
        ServerMsg::Player {
            player: PlayerView {
                key: maharajah_protocol::identity::PlayerSecret::from_bytes([1; 32]).public(),
                name: Some("someone".into()),
                ratings: Vec::new(),
            },
        },
        ServerMsg::Redirect { url: "ws://10.0.0.2:7878".into() },
        ServerMsg::error(ErrorCode::IllegalMove, "no"),
        ChaturajiMsg::ChaturajiSeated {
            code: "ABCDEFGH".parse().unwrap(),
            seat: maharajah_chaturaji::Seat::Blue,
            token: token(),
        }
        .into(),
        ChaturajiMsg::ChaturajiSnapshot {
            snapshot: Box::new(ChaturajiSnapshot {
                code: "ABCDEFGH".parse().unwrap(),
                seq: 1,
                game_number: 0,
                settings: maharajah_chaturaji::Settings::default(),
                seats: maharajah_chaturaji::BySeat::splat(ChaturajiSeatView {
                    person: true,
                    taken: false,
                    connected: false,
                    cpu_playing: false,
                }),
                game: None,
                steps: 0,
                dice: None,
                turn_remaining_ms: None,
                fair: None,
                log: Default::default(),
            }),
        }
        .into(),
        ChaturajiMsg::ChaturajiEvent {
            code: "ABCDEFGH".parse().unwrap(),
            seq: 2,
            event: ChaturajiEvent::CpuTookOver { seat: maharajah_chaturaji::Seat::Green },
        }
        .into(),
        ChaturajiMsg::ChaturajiAck { step: 4, seq: 9 }.into(),
        LobbyMsg::LobbyList {
            challenges: vec![
                Challenge {
                    table: None,
                    id: 7,
                    game: LobbyGame::Chess,
                    time_control: None,
                    rated: false,
                    color: ColorChoice::Random,
                    creator: None,
                    rating: 1500,
                    provisional: false,
                },
                Challenge {
                    table: None,
                    id: 8,
                    game: LobbyGame::Horde,
                    time_control: Some(TimeControl { base_ms: 60_000, increment_ms: 0 }),
                    rated: true,
                    color: ColorChoice::White,
                    creator: Some("Ana".into()),
                    rating: 1688,
                    provisional: true,
                },
            ],
        }
        .into(),
        LobbyMsg::LobbyAdded {
            challenge: Challenge {
                table: None,
                id: 7,
                game: LobbyGame::Chess,
                time_control: None,
                rated: false,
                color: ColorChoice::Random,
                creator: None,
                rating: 1500,
                provisional: false,
            },
        }
        .into(),
        LobbyMsg::LobbyRemoved { id: 7, reason: RemovedReason::Accepted }.into(),
        LobbyMsg::ChallengeCreated {
            challenge: Challenge {
                table: None,
                id: 7,
                game: LobbyGame::Chess,
                time_control: None,
                rated: false,
                color: ColorChoice::Random,
                creator: None,
                rating: 1500,
                provisional: false,
            },
        }
        .into(),
        LobbyMsg::PairingQueued {
            game: LobbyGame::Maharajah,
            time_control: TimeControl { base_ms: 300_000, increment_ms: 3_000 },
            rated: false,
            rating: 1500,
        }
        .into(),
        LobbyMsg::PairingCancelled.into(),
        LobbyMsg::LobbyMatched {
            rematch_of: None,
            code: "ABCDEFGH".parse().unwrap(),
            challenge: Some(7),
        }
        .into(),
        LobbyMsg::Leaderboard {
            game: LobbyGame::Horde,
            speed: SpeedClass::Rapid,
            players: vec![LeaderboardEntry {
                name: "Ana".into(),
                rating: 1712,
                deviation: 80,
                provisional: false,
                games: 12,
            }],
        }
        .into(),
        LobbyMsg::Profile {
            profile: Box::new(Profile {
                name: "Ana".into(),
                ratings: Vec::new(),
                games: vec![GameSummary {
                    id: 4,
                    code: "ABCDEFGH".parse().unwrap(),
                    game: LobbyGame::Chaturaji,
                    hidden_setup: false,
                    time_control: None,
                    rated: false,
                    opponents: vec![PlayerLabel { name: None, rating: None, cpu: true }],
                    result: None,
                    place: Some(2),
                    rating: None,
                    ended_ms: 5,
                }],
            }),
        }
        .into(),
        LobbyMsg::GameRecord {
            id: 4,
            game: LobbyGame::Chess,
            pgn: Some("1. e4 *".into()),
            record: None,
        }
        .into(),
        LobbyMsg::PlayingNow { games: Vec::new() }.into(),
        LobbyMsg::RematchOffered { code: "ABCDEFGH".parse().unwrap(), by: Color::Black }.into(),
        LobbyMsg::RematchWithdrawn { code: "ABCDEFGH".parse().unwrap(), by: Color::White }.into(),
        LobbyMsg::TableJoined { challenge: table_challenge(2) }.into(),
        LobbyMsg::LobbyUpdated { challenge: table_challenge(3) }.into(),
    ]
}

fn table_challenge(joined: u8) -> Challenge {
    Challenge {
        id: 9,
        game: LobbyGame::Chaturaji,
        time_control: None,
        rated: false,
        color: ColorChoice::Random,
        creator: None,
        rating: 1500,
        provisional: false,
        table: Some(TableView { people: 3, joined, cpu_after_s: 60 }),
    }
}

fn tag_of(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["t"].as_str().unwrap().to_owned()
}

#[test]
fn every_message_round_trips_and_tag_lists_are_complete() {
    let client = every_client_msg();
    let tags: Vec<String> = client.iter().map(|m| tag_of(&encode(m))).collect();
    assert_eq!(tags, ClientMsg::TAGS);
    for m in client {
        assert_eq!(decode_client(&encode(&m)).unwrap(), m);
    }
    let server = every_server_msg();
    let tags: Vec<String> = server.iter().map(|m| tag_of(&encode(m))).collect();
    assert_eq!(tags, ServerMsg::TAGS);
    for m in server {
        assert_eq!(decode_server(&encode(&m)).unwrap(), m);
    }
}

#[test]
fn bad_frames_give_typed_errors() {
    let cases: &[(&str, ErrorCode)] = &[
        ("", ErrorCode::Malformed),
        ("{", ErrorCode::Malformed),
        ("not json", ErrorCode::Malformed),
        ("[1,2]", ErrorCode::Malformed),
        ("\"hello\"", ErrorCode::Malformed),
        ("{}", ErrorCode::Malformed),
        (r#"{"t":5}"#, ErrorCode::Malformed),
        (r#"{"t":"launch_missiles"}"#, ErrorCode::UnknownMessage),
        (r#"{"t":"welcome","version":1}"#, ErrorCode::UnknownMessage),
        (r#"{"t":"hello"}"#, ErrorCode::Malformed),
        (r#"{"t":"hello","version":"one","client":"x"}"#, ErrorCode::Malformed),
        (r#"{"t":"hello","version":-1,"client":"x"}"#, ErrorCode::Malformed),
        (r#"{"t":"move","token":"x","ply":-1,"uci":"e2e4"}"#, ErrorCode::Malformed),
        (r#"{"t":"join_room","code":"OOOOOOOO"}"#, ErrorCode::Malformed),
        (r#"{"t":"join_room","code":"ABC"}"#, ErrorCode::Malformed),
        (
            r#"{"t":"create_room","options":{"variant":"shogi","time_control":null,"hidden_setup":false,"color":null}}"#,
            ErrorCode::Malformed,
        ),
    ];
    for (frame, code) in cases {
        let err = decode_client(frame).unwrap_err();
        assert_eq!(err.code(), *code, "frame {frame:?} gave {err}");
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn oversize_frames_are_refused_before_parsing() {
    let big = format!(r#"{{"t":"ping","nonce":1,"pad":"{}"}}"#, "x".repeat(MAX_FRAME_BYTES));
    let err = decode_client(&big).unwrap_err();
    assert_eq!(err.code(), ErrorCode::FrameTooLarge);
    assert!(
        matches!(err, DecodeError::TooLarge { len, max } if len == big.len() && max == MAX_FRAME_BYTES)
    );
    // Garbage that is too large is reported as too large, not as malformed.
    assert_eq!(
        decode_client(&"{".repeat(MAX_FRAME_BYTES + 1)).unwrap_err().code(),
        ErrorCode::FrameTooLarge
    );
    // Unknown extra fields within the limit are ignored (forward compatibility).
    assert_eq!(
        decode_client(r#"{"t":"ping","nonce":1,"pad":"x"}"#).unwrap(),
        ClientMsg::Ping { nonce: 1 }
    );
}

#[test]
fn version_mismatch_message_is_readable() {
    let m = version_mismatch_message(PROTOCOL_VERSION + 1, PROTOCOL_VERSION);
    assert!(m.contains("server"));
    let e = ServerMsg::error(ErrorCode::VersionMismatch, m);
    assert!(encode(&e).contains("\"code\":\"version_mismatch\""));
}
