//! The wire stays byte-identical: every message kind of both directions (chess and Chaturaji,
//! with every variant of every nested payload) is built by hand, serialised and compared byte
//! for byte with the recorded frames in `tests/wire_frames.jsonl`; each recorded frame then
//! decodes back to the same value and re-encodes to the same bytes.
//!
//! The frames were recorded from the types as they stood before the protocol adopted the
//! engine's vocabulary; a change of the types must leave this file untouched. To record again
//! (only for a deliberate protocol change, with a new `PROTOCOL_VERSION`):
//! `WIRE_FRAMES_WRITE=1 cargo test -p maharajah-protocol --test wire`.
#![allow(clippy::unwrap_used)]

use maharajah_chaturaji::{cpu::Level, Game, Seat, Settings};
use maharajah_protocol::*;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wire_frames.jsonl");

/// A message of one direction.
#[derive(Debug)]
enum Frame {
    /// Client to server.
    Client(ClientMsg),
    /// Server to client (chess, Chaturaji and shared messages).
    Server(ServerMsg),
}

impl Frame {
    fn encode(&self) -> String {
        match self {
            Frame::Client(m) => encode(m),
            Frame::Server(m) => encode(m),
        }
    }

    /// Decodes `text` as a frame of this one's direction and checks it equals this one.
    fn check_decodes(&self, text: &str) {
        match self {
            Frame::Client(m) => assert_eq!(&decode_client(text).unwrap(), m, "{text}"),
            Frame::Server(m) => assert_eq!(&decode_server(text).unwrap(), m, "{text}"),
        }
    }
}

fn token() -> String {
    "0123456789abcdef".repeat(4)
}

fn code() -> AccessCode {
    "ABCDEFGH".parse().unwrap()
}

fn army_white() -> String {
    "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2".into()
}

fn army_black() -> String {
    "Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7,Ra8,Nb8,Bc8,Md8,Ke8,Bf8,Ng8,Rh8".into()
}

fn clock(running: Option<Color>) -> Option<ClockView> {
    Some(ClockView { white_ms: 299_500, black_ms: 301_250, running })
}

fn client_frames() -> Vec<ClientMsg> {
    let options = |variant, time_control, hidden_setup, color| RoomOptions {
        variant,
        time_control,
        hidden_setup,
        color,
    };
    let tc = Some(TimeControl { base_ms: 300_000, increment_ms: 2_000 });
    let mut table = Settings::default();
    table.players.green = maharajah_chaturaji::settings::Player::Cpu { level: Level::Medium };
    table.turn_time = maharajah_chaturaji::settings::TurnTime::Seconds30;
    let mv = maharajah_chaturaji::Move {
        die: 1,
        from: "b1".parse().unwrap(),
        to: "c3".parse().unwrap(),
    };
    vec![
        ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "maharajah-app/0.1.0".into(),
            redirects: false,
        },
        ClientMsg::Ping { nonce: u64::MAX },
        ClientMsg::CreateRoom {
            options: options(Variant::Maharajah, tc, true, Some(Color::Black)),
            rated: false,
        },
        ClientMsg::CreateRoom { options: options(Variant::Chess, None, false, None), rated: false },
        ClientMsg::CreateRoom {
            options: options(Variant::Horde, tc, false, Some(Color::White)),
            rated: false,
        },
        ClientMsg::JoinRoom { code: code() },
        ClientMsg::Rejoin { code: code(), token: token(), last_seq: 0 },
        ClientMsg::Rejoin { code: code(), token: token(), last_seq: 17 },
        ClientMsg::Commit { token: token(), commitment: "ab".repeat(32) },
        ClientMsg::Reveal { token: token(), army: army_white(), nonce: "cd".repeat(32) },
        ClientMsg::Move { token: token(), ply: 0, uci: "e2e4".into() },
        ClientMsg::Move { token: token(), ply: 41, uci: "e7e8m".into() },
        ClientMsg::Pause { token: token() },
        ClientMsg::Resume { token: token() },
        ClientMsg::Resign { token: token() },
        ClientMsg::OfferDraw { token: token() },
        ClientMsg::DeclineDraw { token: token() },
        ClientMsg::ClaimDraw { token: token() },
        ClientMsg::CreateChaturaji {
            settings: Settings::default(),
            device: "device-0123456789abcdef".into(),
            stand_in: None,
            rated: false,
        },
        ClientMsg::CreateChaturaji {
            settings: table,
            device: "device-0123456789abcdef".into(),
            stand_in: Some(Level::Greedy),
            rated: false,
        },
        ClientMsg::JoinChaturaji { code: code(), device: "device-fedcba9876543210".into() },
        ClientMsg::RejoinChaturaji {
            code: code(),
            token: token(),
            device: "device-fedcba9876543210".into(),
            last_seq: 3,
        },
        ClientMsg::ChaturajiAct { token: token(), step: 0, action: ChaturajiAction::Roll },
        ClientMsg::ChaturajiAct { token: token(), step: 1, action: ChaturajiAction::Move(mv) },
        ClientMsg::ChaturajiAct { token: token(), step: 2, action: ChaturajiAction::EndTurn },
        ClientMsg::ChaturajiAct { token: token(), step: 3, action: ChaturajiAction::Resign },
        ClientMsg::ChaturajiRematch { token: token() },
    ]
}

fn seat_view(taken: bool, connected: bool) -> SeatView {
    SeatView { taken, connected, pause_available: !connected, committed: taken, revealed: false }
}

fn room_events() -> Vec<RoomEvent> {
    let pause =
        PauseView { by: Color::Black, reason: PauseReason::Requested, remaining_ms: 59_000 };
    let mut events = vec![
        RoomEvent::SeatTaken { seat: Color::Black },
        RoomEvent::Presence { seat: Color::White, connected: false },
        RoomEvent::Presence { seat: Color::Black, connected: true },
        RoomEvent::SetupStarted,
        RoomEvent::Committed { seat: Color::White, commitment: "ef".repeat(32) },
        RoomEvent::RevealOpen,
        RoomEvent::Revealed { seat: Color::Black },
        RoomEvent::SetupRejected { reason: "White's king is in check".into() },
        RoomEvent::ArmiesOpened {
            armies: ByColor { white: army_white(), black: army_black() },
            nonces: ByColor { white: "01".repeat(32), black: "02".repeat(32) },
        },
        RoomEvent::GameStarted {
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            armies: None,
            clock: clock(Some(Color::White)),
        },
        RoomEvent::GameStarted {
            start_fen: "rnbmkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            armies: Some(ByColor { white: army_white(), black: army_black() }),
            clock: None,
        },
        RoomEvent::Moved {
            ply: 0,
            uci: "e2e4".into(),
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
            clock: clock(Some(Color::Black)),
        },
        RoomEvent::Moved { ply: 1, uci: "e7e5".into(), fen: "x".into(), clock: None },
        RoomEvent::Paused { pause, clock: clock(None) },
        RoomEvent::Paused {
            pause: PauseView { reason: PauseReason::Disconnected, ..pause },
            clock: clock(None),
        },
        RoomEvent::Paused {
            pause: PauseView { reason: PauseReason::ServerRestart, by: Color::White, ..pause },
            clock: None,
        },
        RoomEvent::Resumed { clock: clock(Some(Color::White)) },
        RoomEvent::Resumed { clock: None },
        RoomEvent::DrawOffered { by: Color::White },
        RoomEvent::DrawDeclined { by: Color::Black },
    ];
    let results = [
        (Outcome::WhiteWins, EndReason::Checkmate),
        (Outcome::Draw, EndReason::Stalemate),
        (Outcome::BlackWins, EndReason::Timeout),
        (Outcome::Draw, EndReason::TimeoutVsInsufficientMaterial),
        (Outcome::Annulled, EndReason::TimeoutBeforeFirstMove),
        (Outcome::Draw, EndReason::InsufficientMaterial),
        (Outcome::Draw, EndReason::ThreefoldRepetition),
        (Outcome::Draw, EndReason::FivefoldRepetition),
        (Outcome::Draw, EndReason::FiftyMoves),
        (Outcome::Draw, EndReason::SeventyFiveMoves),
        (Outcome::BlackWins, EndReason::AllPiecesCaptured),
        (Outcome::WhiteWins, EndReason::Resignation),
        (Outcome::Draw, EndReason::Agreement),
        (Outcome::Annulled, EndReason::Resignation),
    ];
    for (i, (outcome, reason)) in results.into_iter().enumerate() {
        let clock = if i % 2 == 0 { clock(None) } else { None };
        events.push(RoomEvent::GameOver { result: GameResult { outcome, reason }, clock });
    }
    events
}

fn server_frames() -> Vec<ServerMsg> {
    let mut out = vec![
        ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            server_version: "0.1.0".into(),
            engine_version: "0.1.0".into(),
            challenge: None,
        },
        ServerMsg::Pong { nonce: 7, server_time_ms: 1_764_600_000_123 },
        ServerMsg::Seated { code: code(), seat: Color::White, token: token() },
        ServerMsg::Seated { code: code(), seat: Color::Black, token: token() },
        ServerMsg::Snapshot {
            snapshot: Box::new(Snapshot {
                code: code(),
                seq: 1,
                variant: Variant::Chess,
                time_control: None,
                hidden_setup: false,
                phase: Phase::WaitingForOpponent,
                seats: ByColor { white: seat_view(true, true), black: seat_view(false, false) },
                armies: None,
                commitments: ByColor { white: None, black: None },
                nonces: None,
                start_fen: None,
                moves: vec![],
                fen: None,
                clock: None,
                pause: None,
                draw_offer: None,
                result: None,
            }),
        },
        ServerMsg::Snapshot {
            snapshot: Box::new(Snapshot {
                code: code(),
                seq: 4,
                variant: Variant::Maharajah,
                time_control: Some(TimeControl { base_ms: 600_000, increment_ms: 0 }),
                hidden_setup: true,
                phase: Phase::Setup,
                seats: ByColor { white: seat_view(true, true), black: seat_view(true, false) },
                armies: None,
                commitments: ByColor { white: Some("ab".repeat(32)), black: None },
                nonces: None,
                start_fen: None,
                moves: vec![],
                fen: None,
                clock: clock(None),
                pause: None,
                draw_offer: None,
                result: None,
            }),
        },
        ServerMsg::Snapshot {
            snapshot: Box::new(Snapshot {
                code: code(),
                seq: 12,
                variant: Variant::Maharajah,
                time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
                hidden_setup: true,
                phase: Phase::Playing,
                seats: ByColor { white: seat_view(true, true), black: seat_view(true, true) },
                armies: Some(ByColor { white: army_white(), black: army_black() }),
                commitments: ByColor { white: Some("ab".repeat(32)), black: Some("cd".repeat(32)) },
                nonces: Some(ByColor { white: "01".repeat(32), black: "02".repeat(32) }),
                start_fen: Some("start".into()),
                moves: vec!["e2e4".into(), "e7e5".into()],
                fen: Some("now".into()),
                clock: clock(Some(Color::White)),
                pause: Some(PauseView {
                    by: Color::White,
                    reason: PauseReason::ServerRestart,
                    remaining_ms: 30_000,
                }),
                draw_offer: Some(Color::Black),
                result: None,
            }),
        },
        ServerMsg::Snapshot {
            snapshot: Box::new(Snapshot {
                code: code(),
                seq: 30,
                variant: Variant::Horde,
                time_control: None,
                hidden_setup: false,
                phase: Phase::Finished,
                seats: ByColor { white: seat_view(true, false), black: seat_view(true, true) },
                armies: None,
                commitments: ByColor::default(),
                nonces: None,
                start_fen: Some("horde".into()),
                moves: vec!["d2d4".into()],
                fen: Some("end".into()),
                clock: None,
                pause: None,
                draw_offer: None,
                result: Some(GameResult {
                    outcome: Outcome::BlackWins,
                    reason: EndReason::AllPiecesCaptured,
                }),
            }),
        },
    ];
    for (i, event) in room_events().into_iter().enumerate() {
        out.push(ServerMsg::Event { code: code(), seq: i as u64 + 1, event });
    }
    out.push(ServerMsg::MoveAck { ply: 0, seq: 5 });
    out.push(ServerMsg::SetupAck { step: "commit".into() });
    out.push(ServerMsg::SetupAck { step: "reveal".into() });
    let codes = [
        ErrorCode::VersionMismatch,
        ErrorCode::HelloRequired,
        ErrorCode::Malformed,
        ErrorCode::UnknownMessage,
        ErrorCode::FrameTooLarge,
        ErrorCode::RateLimited,
        ErrorCode::RoomNotFound,
        ErrorCode::RoomFull,
        ErrorCode::Forbidden,
        ErrorCode::NotSeated,
        ErrorCode::WrongPhase,
        ErrorCode::NotYourTurn,
        ErrorCode::StalePly,
        ErrorCode::IllegalMove,
        ErrorCode::GamePaused,
        ErrorCode::NoClock,
        ErrorCode::PauseUsed,
        ErrorCode::NotPaused,
        ErrorCode::AlreadyCommitted,
        ErrorCode::BadCommitment,
        ErrorCode::CommitmentMismatch,
        ErrorCode::InvalidArmy,
        ErrorCode::InvalidOptions,
        ErrorCode::GameOver,
        ErrorCode::NoDraw,
        ErrorCode::Unavailable,
        ErrorCode::ShuttingDown,
        ErrorCode::Internal,
    ];
    for code in codes {
        out.push(ServerMsg::error(code, format!("\"{code:?}\" — ¿qué?\n")));
    }
    out
}

fn chaturaji_seat(person: bool, taken: bool) -> ChaturajiSeatView {
    ChaturajiSeatView { person, taken, connected: taken, cpu_playing: !taken }
}

/// A real game driven to every kind of step, with the events each step reported.
fn chaturaji_frames() -> Vec<ChaturajiMsg> {
    let mut settings = Settings::default();
    settings.players.yellow = maharajah_chaturaji::settings::Player::Cpu { level: Level::Random };
    let seats = maharajah_chaturaji::BySeat {
        red: chaturaji_seat(true, true),
        blue: chaturaji_seat(true, false),
        yellow: chaturaji_seat(false, false),
        green: chaturaji_seat(true, true),
    };
    let mut out = vec![
        ChaturajiMsg::ChaturajiSeated { code: code(), seat: Seat::Red, token: token() },
        ChaturajiMsg::ChaturajiSeated { code: code(), seat: Seat::Green, token: token() },
        ChaturajiMsg::ChaturajiSnapshot {
            snapshot: Box::new(ChaturajiSnapshot {
                code: code(),
                seq: 2,
                game_number: 0,
                settings: settings.clone(),
                seats,
                game: None,
                steps: 0,
                dice: None,
                turn_remaining_ms: None,
                fair: None,
                log: Default::default(),
            }),
        },
    ];
    let mut seq = 0;
    let mut event = |event| {
        seq += 1;
        ChaturajiMsg::ChaturajiEvent { code: code(), seq, event }
    };
    out.push(event(ChaturajiEvent::SeatTaken { seat: Seat::Blue }));
    out.push(event(ChaturajiEvent::Presence { seat: Seat::Blue, connected: false }));
    out.push(event(ChaturajiEvent::Presence { seat: Seat::Blue, connected: true }));
    out.push(event(ChaturajiEvent::CpuTookOver { seat: Seat::Green }));
    out.push(event(ChaturajiEvent::HandedBack { seat: Seat::Green }));
    out.push(event(ChaturajiEvent::GameStarted {
        game: 1,
        settings: settings.clone(),
        turn_ms: Some(30_000),
    }));
    out.push(event(ChaturajiEvent::GameStarted {
        game: 2,
        settings: settings.for_next_game(),
        turn_ms: None,
    }));

    let mut game = Game::new(settings.clone()).unwrap();
    let mut step = 0u32;
    let mut played = |game: &Game, seat, by_room, action, events| {
        let e = ChaturajiEvent::Played {
            step,
            seat,
            by_room,
            action,
            events,
            dice: DieView::of(game),
            scores: game.scores(),
            to_move: game.to_move(),
            round: game.round(),
            turn_remaining_ms: if by_room { None } else { Some(12_345) },
            links: None,
        };
        step += 1;
        e
    };
    use maharajah_chaturaji::record::Step;
    let seat = game.to_move();
    let events = game.roll_with([1, 3]).unwrap();
    out.push(event(played(&game, seat, false, Step::Roll { dice: Some([1, 3]) }, events)));
    let snapshot_mid = game.clone();
    let mv = game.legal_moves()[0];
    let events = game.play(mv).unwrap();
    out.push(event(played(&game, seat, false, Step::Move(mv), events)));
    if !game.can_end_turn() {
        let mv = game.legal_moves()[0];
        let events = game.play(mv).unwrap();
        out.push(event(played(&game, seat, true, Step::Move(mv), events)));
    } else {
        let events = game.end_turn().unwrap();
        out.push(event(played(&game, seat, false, Step::EndTurn, events)));
    }
    let seat = game.to_move();
    let events = game.roll_with([2, 6]).unwrap();
    out.push(event(played(&game, seat, true, Step::Roll { dice: Some([2, 6]) }, events)));
    if matches!(game.phase(), maharajah_chaturaji::game::Phase::Move { .. }) {
        let events = game.time_out().unwrap();
        out.push(event(played(&game, seat, true, Step::TimeOut, events)));
    }
    for seat in [Seat::Blue, Seat::Yellow, Seat::Green] {
        let events = game.resign(seat).unwrap();
        out.push(event(played(&game, seat, false, Step::Resign { seat }, events)));
    }
    let outcome = game.outcome().unwrap().clone();
    out.push(event(ChaturajiEvent::GameOver { outcome }));

    out.push(ChaturajiMsg::ChaturajiSnapshot {
        snapshot: Box::new(ChaturajiSnapshot {
            code: code(),
            seq: 9,
            game_number: 1,
            settings: settings.clone(),
            seats,
            dice: DieView::of(&snapshot_mid),
            game: Some(snapshot_mid),
            steps: 1,
            turn_remaining_ms: Some(29_000),
            fair: None,
            log: Default::default(),
        }),
    });
    out.push(ChaturajiMsg::ChaturajiSnapshot {
        snapshot: Box::new(ChaturajiSnapshot {
            code: code(),
            seq: 20,
            game_number: 1,
            settings,
            seats,
            dice: None,
            game: Some(game),
            steps: step,
            turn_remaining_ms: None,
            fair: None,
            log: Default::default(),
        }),
    });
    out.push(ChaturajiMsg::ChaturajiAck { step: 0, seq: 8 });
    out
}

fn every_frame() -> Vec<Frame> {
    let mut out: Vec<Frame> = client_frames().into_iter().map(Frame::Client).collect();
    out.extend(server_frames().into_iter().map(Frame::Server));
    out.extend(chaturaji_frames().into_iter().map(|m| Frame::Server(m.into())));
    // Added with the verifiable dice (issue 16): appended, so every older line stays as it was.
    out.extend(fair_dice_frames());
    // Added with the lobby (issue 18), appended the same way; the protocol version stays, as a
    // client that never uses the lobby sees none of these.
    out.extend(lobby_frames());
    // Added with player identities and ratings (issue 18), appended after the lobby's; the
    // protocol version stays, as a client that never identifies sees none of these (a
    // `challenge` in `welcome` and `rated` in `create_room` are new fields, which older clients
    // skip, and which are left out when absent or false).
    out.extend(identity_frames());
    // Added with rated lobby games (issue 18): a challenger's provisional rating, appended last.
    out.extend(rated_lobby_frames());
    // Added with spectators (issue 18): `watch`, `unwatch` and their refusal, appended last.
    out.extend(spectator_frames());
    // Added with the lobby's lists, rematches and Chaturaji tables (issue 18), appended last;
    // new fields of older messages are left out when absent, so older lines stay as they were.
    out.extend(listing_frames());
    // Added with cluster redirects (issue 19), appended last; the protocol version stays, as
    // only a client that asks for them gets one.
    out.extend(redirect_frames());
    out
}

/// The frames of the leaderboard, profiles, game records, the games playing now, online
/// rematch and Chaturaji tables in the lobby, and their new error codes.
fn listing_frames() -> Vec<Frame> {
    let lobby = |m: LobbyMsg| Frame::Server(m.into());
    let per_turn = TimeControl { base_ms: 0, increment_ms: 30_000 };
    let table = Challenge {
        id: 21,
        game: LobbyGame::Chaturaji,
        time_control: Some(per_turn),
        rated: false,
        color: ColorChoice::Random,
        creator: Some("Ana".into()),
        rating: 1500,
        provisional: true,
        table: Some(TableView { people: 3, joined: 1, cpu_after_s: 45 }),
    };
    let named = |name: &str, rating| PlayerLabel {
        name: Some(name.into()),
        rating: Some(rating),
        cpu: false,
    };
    let guest = PlayerLabel { name: None, rating: None, cpu: false };
    let cpu = PlayerLabel { name: None, rating: None, cpu: true };
    vec![
        Frame::Client(ClientMsg::Leaderboard {
            game: LobbyGame::Maharajah,
            speed: SpeedClass::Blitz,
        }),
        lobby(LobbyMsg::Leaderboard {
            game: LobbyGame::Maharajah,
            speed: SpeedClass::Blitz,
            players: vec![
                LeaderboardEntry {
                    name: "Ana".into(),
                    rating: 1811,
                    deviation: 62,
                    provisional: false,
                    games: 40,
                },
                LeaderboardEntry {
                    name: "Bo".into(),
                    rating: 1620,
                    deviation: 140,
                    provisional: true,
                    games: 3,
                },
            ],
        }),
        Frame::Client(ClientMsg::Profile { name: "ana".into() }),
        lobby(LobbyMsg::Profile {
            profile: Box::new(Profile {
                name: "Ana".into(),
                ratings: vec![RatingView {
                    game: RatedGame::Maharajah,
                    speed: SpeedClass::Blitz,
                    rating: 1811,
                    deviation: 62,
                    provisional: false,
                    games: 40,
                }],
                games: vec![
                    GameSummary {
                        id: 901,
                        code: code(),
                        game: LobbyGame::Maharajah,
                        hidden_setup: true,
                        time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
                        rated: true,
                        opponents: vec![named("Bo", 1620)],
                        result: Some(PlayerResult::Win),
                        place: None,
                        rating: Some(RatingDiff { before: 1803, after: 1811 }),
                        ended_ms: 1_790_000_000_000,
                    },
                    GameSummary {
                        id: 900,
                        code: "BCDEFGHJ".parse().unwrap(),
                        game: LobbyGame::Chaturaji,
                        hidden_setup: false,
                        time_control: Some(per_turn),
                        rated: false,
                        opponents: vec![guest.clone(), cpu.clone(), cpu.clone()],
                        result: None,
                        place: Some(1),
                        rating: None,
                        ended_ms: 1_789_999_000_000,
                    },
                ],
            }),
        }),
        Frame::Server(ServerMsg::error(ErrorCode::PlayerNotFound, "no player is called \"Zed\"")),
        Frame::Client(ClientMsg::GameRecord { id: 901 }),
        lobby(LobbyMsg::GameRecord {
            id: 901,
            game: LobbyGame::Chess,
            pgn: Some("[Event \"Online\"]\n\n1. e4 e5 *\n".into()),
            record: None,
        }),
        lobby(LobbyMsg::GameRecord {
            id: 900,
            game: LobbyGame::Chaturaji,
            pgn: None,
            record: Some("{\"format\":\"chaturaji-record\"}".into()),
        }),
        Frame::Server(ServerMsg::error(ErrorCode::GameNotFound, "no game 77")),
        Frame::Client(ClientMsg::PlayingNow { games: Vec::new() }),
        Frame::Client(ClientMsg::PlayingNow {
            games: vec![LobbyGame::Chess, LobbyGame::Chaturaji],
        }),
        lobby(LobbyMsg::PlayingNow {
            games: vec![
                LiveGame {
                    code: code(),
                    game: LobbyGame::Maharajah,
                    hidden_setup: true,
                    time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
                    rated: true,
                    players: vec![named("Ana", 1811), named("Bo", 1620)],
                    ply: 0,
                    spectators: 200,
                    full: true,
                },
                LiveGame {
                    code: "BCDEFGHJ".parse().unwrap(),
                    game: LobbyGame::Chaturaji,
                    hidden_setup: false,
                    time_control: None,
                    rated: false,
                    players: vec![named("Ana", 1500), guest, cpu.clone(), cpu],
                    ply: 17,
                    spectators: 3,
                    full: false,
                },
            ],
        }),
        Frame::Client(ClientMsg::Rematch { token: token() }),
        lobby(LobbyMsg::RematchOffered { code: code(), by: Color::White }),
        lobby(LobbyMsg::RematchWithdrawn { code: code(), by: Color::Black }),
        lobby(LobbyMsg::LobbyMatched {
            code: "BCDEFGHJ".parse().unwrap(),
            challenge: None,
            rematch_of: Some(code()),
        }),
        Frame::Client(ClientMsg::CreateChallenge {
            options: ChallengeOptions {
                game: LobbyGame::Chaturaji,
                time_control: Some(per_turn),
                rated: false,
                color: ColorChoice::Random,
                table: Some(TableOptions { people: 3, cpu_after_s: 45 }),
            },
            device: Some("device-0123456789abcdef".into()),
        }),
        Frame::Client(ClientMsg::AcceptChallenge {
            id: 21,
            device: Some("device-fedcba9876543210".into()),
        }),
        Frame::Client(ClientMsg::PlayNow {
            game: LobbyGame::Chaturaji,
            time_control: TimeControl { base_ms: 0, increment_ms: 0 },
            rated: false,
            cpu_after_s: Some(30),
            device: Some("device-0123456789abcdef".into()),
        }),
        lobby(LobbyMsg::ChallengeCreated { challenge: table.clone() }),
        lobby(LobbyMsg::TableJoined {
            challenge: Challenge {
                table: Some(TableView { people: 3, joined: 2, cpu_after_s: 45 }),
                ..table.clone()
            },
        }),
        lobby(LobbyMsg::LobbyUpdated {
            challenge: Challenge {
                table: Some(TableView { people: 3, joined: 2, cpu_after_s: 45 }),
                ..table
            },
        }),
    ]
}

/// The frames of spectators: watching a room, leaving it, and the cap's refusal (a spectator
/// otherwise gets the room's ordinary `snapshot` and events).
fn spectator_frames() -> Vec<Frame> {
    vec![
        Frame::Client(ClientMsg::Watch { code: code() }),
        Frame::Client(ClientMsg::Unwatch),
        Frame::Server(ServerMsg::error(ErrorCode::TooManySpectators, "200 are watching")),
    ]
}

/// The frames of rated lobby games: a rated challenge of a named player with a provisional
/// rating, rated quick pairing, and a guest's rated challenge refused.
fn rated_lobby_frames() -> Vec<Frame> {
    let rapid = TimeControl { base_ms: 600_000, increment_ms: 0 };
    let challenge = Challenge {
        table: None,
        id: 15,
        game: LobbyGame::Chess,
        time_control: Some(rapid),
        rated: true,
        color: ColorChoice::Random,
        creator: Some("Magnus_C".into()),
        rating: 1662,
        provisional: true,
    };
    vec![
        Frame::Server(LobbyMsg::LobbyAdded { challenge: challenge.clone() }.into()),
        Frame::Server(
            LobbyMsg::LobbyList {
                challenges: vec![Challenge { provisional: false, rating: 1840, ..challenge }],
            }
            .into(),
        ),
        Frame::Client(ClientMsg::PlayNow {
            cpu_after_s: None,
            device: None,
            game: LobbyGame::Maharajah,
            time_control: rapid,
            rated: true,
        }),
        Frame::Server(
            LobbyMsg::PairingQueued {
                game: LobbyGame::Maharajah,
                time_control: rapid,
                rated: true,
                rating: 1612,
            }
            .into(),
        ),
        Frame::Server(ServerMsg::error(
            ErrorCode::NotIdentified,
            "rated games need a player identity",
        )),
    ]
}

/// The frames of the lobby: subscription, challenges, quick pairing, the match, the new codes.
fn lobby_frames() -> Vec<Frame> {
    let blitz = TimeControl { base_ms: 180_000, increment_ms: 2_000 };
    let challenge = |id, game, time_control, color, creator: Option<&str>, rating| Challenge {
        table: None,
        id,
        game,
        time_control,
        rated: false,
        color,
        creator: creator.map(str::to_owned),
        rating,
        provisional: false,
    };
    let open = challenge(12, LobbyGame::Maharajah, Some(blitz), ColorChoice::White, None, 1500);
    let lobby = |m: LobbyMsg| Frame::Server(m.into());
    vec![
        Frame::Client(ClientMsg::LobbySubscribe { games: Vec::new() }),
        Frame::Client(ClientMsg::LobbySubscribe {
            games: vec![LobbyGame::Chess, LobbyGame::Maharajah, LobbyGame::Horde],
        }),
        Frame::Client(ClientMsg::LobbyUnsubscribe),
        Frame::Client(ClientMsg::CreateChallenge {
            device: None,
            options: ChallengeOptions {
                table: None,
                game: LobbyGame::Maharajah,
                time_control: Some(blitz),
                rated: false,
                color: ColorChoice::White,
            },
        }),
        Frame::Client(ClientMsg::CreateChallenge {
            device: None,
            options: ChallengeOptions {
                table: None,
                game: LobbyGame::Chess,
                time_control: None,
                rated: true,
                color: ColorChoice::Random,
            },
        }),
        Frame::Client(ClientMsg::CancelChallenge { id: 12 }),
        Frame::Client(ClientMsg::AcceptChallenge { device: None, id: 12 }),
        Frame::Client(ClientMsg::PlayNow {
            cpu_after_s: None,
            device: None,
            game: LobbyGame::Horde,
            time_control: blitz,
            rated: false,
        }),
        Frame::Client(ClientMsg::CancelPlayNow),
        lobby(LobbyMsg::LobbyList {
            challenges: vec![
                open.clone(),
                challenge(13, LobbyGame::Chess, None, ColorChoice::Random, Some("Ana"), 1732),
            ],
        }),
        lobby(LobbyMsg::LobbyAdded {
            challenge: challenge(14, LobbyGame::Horde, Some(blitz), ColorChoice::Black, None, 1500),
        }),
        lobby(LobbyMsg::LobbyRemoved { id: 12, reason: RemovedReason::Cancelled }),
        lobby(LobbyMsg::LobbyRemoved { id: 12, reason: RemovedReason::Accepted }),
        lobby(LobbyMsg::LobbyRemoved { id: 12, reason: RemovedReason::CreatorLeft }),
        lobby(LobbyMsg::LobbyRemoved { id: 12, reason: RemovedReason::Withdrawn }),
        lobby(LobbyMsg::ChallengeCreated { challenge: open }),
        lobby(LobbyMsg::PairingQueued {
            game: LobbyGame::Chess,
            time_control: blitz,
            rated: false,
            rating: 1500,
        }),
        lobby(LobbyMsg::PairingCancelled),
        lobby(LobbyMsg::LobbyMatched { rematch_of: None, code: code(), challenge: Some(12) }),
        lobby(LobbyMsg::LobbyMatched { rematch_of: None, code: code(), challenge: None }),
        Frame::Server(ServerMsg::error(ErrorCode::ChallengeNotFound, "no such challenge")),
        Frame::Server(ServerMsg::error(ErrorCode::TooManyChallenges, "three are open")),
    ]
}

/// The frames of player identities: the challenge in `welcome`, `identify`, `register_name`,
/// `player` and the new error codes.
fn identity_frames() -> Vec<Frame> {
    use maharajah_protocol::identity::{Challenge, PlayerSecret};
    let secret = PlayerSecret::from_bytes([7; 32]);
    let nonce = [9; 32];
    let key = secret.public();
    vec![
        Frame::Server(ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            server_version: "0.1.0".into(),
            engine_version: "0.1.0".into(),
            challenge: Some(Challenge { nonce: hex::encode(nonce), server: "maharajah".into() }),
        }),
        Frame::Client(ClientMsg::Identify {
            key,
            signature: secret.sign_hello(&nonce, "maharajah"),
        }),
        Frame::Client(ClientMsg::RegisterName { name: "Magnus_C".into() }),
        Frame::Client(ClientMsg::CreateRoom {
            options: RoomOptions {
                variant: Variant::Chess,
                time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
                hidden_setup: false,
                color: None,
            },
            rated: true,
        }),
        Frame::Server(ServerMsg::Event {
            code: code(),
            seq: 9,
            event: RoomEvent::RatingsChanged {
                ratings: Box::new(ByColor {
                    white: RatingChange {
                        player: key,
                        game: RatedGame::Chess,
                        speed: SpeedClass::Blitz,
                        before: 1500,
                        after: 1662,
                        deviation: 290,
                        provisional: true,
                    },
                    black: RatingChange {
                        player: PlayerSecret::from_bytes([8; 32]).public(),
                        game: RatedGame::Chess,
                        speed: SpeedClass::Blitz,
                        before: 1500,
                        after: 1338,
                        deviation: 290,
                        provisional: true,
                    },
                }),
            },
        }),
        Frame::Server(ServerMsg::Player {
            player: PlayerView { key, name: None, ratings: Vec::new() },
        }),
        Frame::Server(ServerMsg::Player {
            player: PlayerView {
                key,
                name: Some("Magnus_C".into()),
                ratings: vec![RatingView {
                    game: RatedGame::Chaturaji,
                    speed: SpeedClass::Rapid,
                    rating: 1612,
                    deviation: 87,
                    provisional: false,
                    games: 14,
                }],
            },
        }),
        Frame::Client(ClientMsg::CreateChaturaji {
            settings: Settings::default(),
            device: "device-0123456789abcdef".into(),
            stand_in: None,
            rated: true,
        }),
        Frame::Server(
            ChaturajiMsg::ChaturajiEvent {
                code: code(),
                seq: 90,
                event: ChaturajiEvent::RatingsChanged {
                    ratings: Box::new(maharajah_chaturaji::BySeat {
                        red: Some(RatingChange {
                            player: key,
                            game: RatedGame::Chaturaji,
                            speed: SpeedClass::Rapid,
                            before: 1500,
                            after: 1581,
                            deviation: 301,
                            provisional: true,
                        }),
                        blue: None,
                        yellow: None,
                        green: None,
                    }),
                },
            }
            .into(),
        ),
        Frame::Server(ServerMsg::error(ErrorCode::BadSignature, "wrong key")),
        Frame::Server(ServerMsg::error(ErrorCode::NotIdentified, "identify first")),
        Frame::Server(ServerMsg::error(ErrorCode::InvalidName, "too short")),
        Frame::Server(ServerMsg::error(ErrorCode::NameTaken, "taken")),
    ]
}

/// The frames of verifiable Chaturaji dice: commitments, reveals, the committed proof, a
/// reveal request, a roll with its links and a snapshot with the dice so far.
fn fair_dice_frames() -> Vec<Frame> {
    use maharajah_chaturaji::fair::{DiceProof, HashChain, Party};
    use maharajah_chaturaji::record::Step;
    let room = HashChain::new([1; 32], 120);
    let red = HashChain::new([2; 32], 120);
    let link = |c: &HashChain, t| c.link(t).unwrap();
    let proof = DiceProof::new(
        120,
        vec![
            Party { name: "room".into(), commitment: room.commitment() },
            Party { name: "red".into(), commitment: red.commitment() },
        ],
    );
    let settings = Settings::default();
    let mut game = Game::new(settings.clone()).unwrap();
    let mut verifier = proof.verifier(settings.dice);
    let links = vec![Some(link(&room, 1)), Some(link(&red, 1))];
    let faces = verifier.roll(&links).unwrap();
    let events = game.roll_with(faces).unwrap();
    let mut fair = FairDice { committing: false, proof: proof.clone(), reveal: None };
    fair.proof.rolls.push(links.clone());
    let event = |seq, event| {
        Frame::Server(ChaturajiMsg::ChaturajiEvent { code: code(), seq, event }.into())
    };
    let log = events.clone();
    let snapshot = ChaturajiSnapshot {
        code: code(),
        seq: 9,
        game_number: 1,
        settings,
        seats: maharajah_chaturaji::BySeat::splat(chaturaji_seat(true, true)),
        dice: DieView::of(&game),
        game: Some(game.clone()),
        steps: 1,
        turn_remaining_ms: None,
        fair: Some(fair),
        log: Default::default(),
    };
    vec![
        Frame::Client(ClientMsg::ChaturajiAct {
            token: token(),
            step: 0,
            action: ChaturajiAction::Commit { game: 1, commitment: red.commitment() },
        }),
        Frame::Client(ClientMsg::ChaturajiAct {
            token: token(),
            step: 0,
            action: ChaturajiAction::Reveal { roll: 1, link: link(&red, 1) },
        }),
        event(7, ChaturajiEvent::DiceCommitted { proof }),
        event(8, ChaturajiEvent::RevealRequested { roll: 1 }),
        event(
            9,
            ChaturajiEvent::Played {
                step: 0,
                seat: Seat::Red,
                by_room: false,
                action: Step::Roll { dice: Some(faces) },
                events,
                dice: DieView::of(&game),
                scores: game.scores(),
                to_move: game.to_move(),
                round: game.round(),
                turn_remaining_ms: None,
                links: Some(links),
            },
        ),
        Frame::Server(
            ChaturajiMsg::ChaturajiSnapshot { snapshot: Box::new(snapshot.clone()) }.into(),
        ),
        // The same with the room's log of the game (a newer server).
        Frame::Server(
            ChaturajiMsg::ChaturajiSnapshot {
                snapshot: Box::new(ChaturajiSnapshot { log: log.into(), ..snapshot }),
            }
            .into(),
        ),
    ]
}

/// Cluster redirects: a new `hello` field, left out when false, and the message a client
/// gets only when its `hello` said it follows one.
fn redirect_frames() -> Vec<Frame> {
    vec![
        Frame::Client(ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "maharajah-net 0.1.0".into(),
            redirects: true,
        }),
        Frame::Server(ServerMsg::Redirect { url: "wss://node-2.example.org:7878".into() }),
    ]
}

#[test]
fn recorded_frames_are_byte_identical() {
    let frames = every_frame();
    let encoded: Vec<String> = frames.iter().map(Frame::encode).collect();
    if std::env::var_os("WIRE_FRAMES_WRITE").is_some() {
        std::fs::write(FIXTURE, encoded.join("\n") + "\n").unwrap();
    }
    let recorded = std::fs::read_to_string(FIXTURE).unwrap();
    let recorded: Vec<&str> = recorded.lines().collect();
    assert_eq!(recorded.len(), encoded.len(), "one recorded frame per built message");
    for (i, (now, then)) in encoded.iter().zip(&recorded).enumerate() {
        assert_eq!(now, then, "frame {} ({:?}) changed on the wire", i + 1, frames[i]);
    }
}

#[test]
fn recorded_frames_decode_to_the_built_messages() {
    let recorded = std::fs::read_to_string(FIXTURE).unwrap();
    let frames = every_frame();
    for (frame, text) in frames.iter().zip(recorded.lines()) {
        frame.check_decodes(text);
        assert_eq!(frame.encode(), text, "re-encoding a decoded frame changes no byte");
    }
}

#[test]
fn recorded_frames_cover_every_tag() {
    let recorded = std::fs::read_to_string(FIXTURE).unwrap();
    let tags: std::collections::BTreeSet<String> = recorded
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let t = v["t"].as_str().unwrap().to_owned();
            match v.get("event").and_then(|e| e.get("e")).and_then(|e| e.as_str()) {
                Some(e) => format!("{t}/{e}"),
                None => t,
            }
        })
        .collect();
    for t in ClientMsg::TAGS.iter().chain(ServerMsg::TAGS) {
        assert!(tags.iter().any(|seen| seen == t || seen.starts_with(&format!("{t}/"))), "{t}");
    }
    for e in [
        "seat_taken",
        "presence",
        "setup_started",
        "committed",
        "reveal_open",
        "revealed",
        "setup_rejected",
        "armies_opened",
        "game_started",
        "moved",
        "paused",
        "resumed",
        "draw_offered",
        "draw_declined",
        "game_over",
    ] {
        assert!(tags.contains(&format!("event/{e}")), "room event {e}");
    }
    for e in [
        "seat_taken",
        "presence",
        "cpu_took_over",
        "handed_back",
        "game_started",
        "played",
        "dice_committed",
        "reveal_requested",
    ] {
        assert!(tags.contains(&format!("chaturaji_event/{e}")), "Chaturaji event {e}");
    }
    assert!(tags.contains("chaturaji_event/game_over"));
}
