//! Chaturaji rooms over real WebSockets on 127.0.0.1: people play with the crate's CPU choosing
//! for them; CPU seats, stand-ins for dropped people, the turn timer, refusals, a restart.
//! Every client keeps its own replica of the game from the `played` events and checks it.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use common::{announced_address, TestServer};
use futures_util::{SinkExt, StreamExt};
use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::game::Action as GameAction;
use maharajah_chaturaji::settings::{Player as SeatPlayer, TurnTime};
use maharajah_chaturaji::{Game, Phase, Record, Seat, Settings, Step};
use maharajah_protocol::*;
use maharajah_server::chaturaji::{ChaturajiRecord, ChaturajiRoom};
use maharajah_server::Config;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// No keep-alive traffic: with a paused clock it would fire at every jump.
fn patient() -> Config {
    Config {
        ping_interval: Duration::from_secs(24 * 3600),
        idle_timeout: Duration::from_secs(24 * 3600),
        ..Config::default()
    }
}

/// `people` person seats from Red on, the others Greedy CPUs; a short game.
fn table(people: usize, rounds: u32) -> Settings {
    let mut s = Settings { round_limit: rounds, ..Settings::default() };
    for seat in Seat::ALL.into_iter().skip(people) {
        s.players[seat] = SeatPlayer::Cpu { level: Level::Greedy };
    }
    s
}

/// What a person does at `step` (deterministic, so a pure room can repeat it).
fn choice(game: &Game, step: u32) -> ChaturajiAction {
    if let Phase::Roll { .. } = game.phase() {
        return ChaturajiAction::Roll;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(step));
    match cpu::choose_action(game, Level::Greedy, &mut rng) {
        Some(GameAction::Move(mv)) => ChaturajiAction::Move(mv),
        _ => ChaturajiAction::EndTurn,
    }
}

fn to_action(step: Step) -> GameAction {
    match step {
        Step::Roll { dice } => GameAction::Roll { dice: dice.expect("the server lists the faces") },
        Step::Move(mv) => GameAction::Move(mv),
        Step::EndTurn => GameAction::EndTurn,
        Step::TimeOut => GameAction::TimeOut,
        Step::Resign { seat } => GameAction::Resign { seat },
    }
}

struct Player {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    device: String,
    code: Option<AccessCode>,
    seat: Option<Seat>,
    token: String,
    last_seq: u64,
    game: Option<Game>,
    /// Every step of the current game as received.
    steps: Vec<Step>,
    events: Vec<ChaturajiEvent>,
    pending: VecDeque<ServerMsg>,
    patience: Duration,
    /// The identity challenge of the server's `welcome`.
    challenge: Option<identity::Challenge>,
}

impl Player {
    async fn connect(addr: SocketAddr, device: &str) -> Player {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}")).await.unwrap();
        let mut p = Player {
            ws,
            device: device.to_owned(),
            code: None,
            seat: None,
            token: String::new(),
            last_seq: 0,
            game: None,
            steps: Vec::new(),
            events: Vec::new(),
            pending: VecDeque::new(),
            patience: Duration::from_secs(3600),
            challenge: None,
        };
        p.send(&ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "test".into(),
            redirects: false,
        })
        .await;
        let welcome = p.until("welcome", |f| !matches!(f, ServerMsg::Chaturaji(_))).await;
        let ServerMsg::Welcome { challenge, .. } = welcome else { panic!("{welcome:?}") };
        p.challenge = challenge;
        p
    }

    /// Identifies as `secret`'s player; the server's view of them.
    async fn identify(&mut self, secret: &identity::PlayerSecret) -> PlayerView {
        let challenge = self.challenge.clone().expect("the welcome carries a challenge");
        let signature = secret.sign_hello(&challenge.nonce_bytes().unwrap(), &challenge.server);
        self.send(&ClientMsg::Identify { key: secret.public(), signature }).await;
        match self.until("the player", |m| matches!(m, ServerMsg::Player { .. })).await {
            ServerMsg::Player { player } => player,
            _ => unreachable!(),
        }
    }

    async fn send(&mut self, msg: &ClientMsg) {
        self.ws.send(Message::text(encode(msg))).await.unwrap();
    }

    fn steps_done(&self) -> u32 {
        self.steps.len() as u32
    }

    fn apply(&mut self, event: &ChaturajiEvent) {
        match event {
            ChaturajiEvent::GameStarted { settings, .. } => {
                self.game = Some(Game::new(settings.clone()).unwrap());
                self.steps.clear();
            }
            ChaturajiEvent::Played { step, action, scores, to_move, .. } => {
                assert_eq!(*step, self.steps_done(), "steps arrive in order");
                let game = self.game.as_mut().expect("a game");
                game.apply(to_action(*action)).expect("the server's step is legal here too");
                assert_eq!(game.scores(), *scores);
                assert_eq!(game.to_move(), *to_move);
                self.steps.push(*action);
            }
            _ => {}
        }
        self.events.push(event.clone());
    }

    async fn read(&mut self) -> Option<ServerMsg> {
        loop {
            let frame = tokio::time::timeout(self.patience, self.ws.next()).await.ok()??.ok()?;
            let Message::Text(text) = frame else { continue };
            let frame = decode_server(text.as_str()).unwrap();
            match &frame {
                ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { code, seat, token }) => {
                    self.code = Some(code.clone());
                    self.seat = Some(*seat);
                    self.token = token.clone();
                }
                ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiEvent { seq, event, .. }) => {
                    assert_eq!(*seq, self.last_seq + 1, "events are numbered without gaps");
                    self.last_seq = *seq;
                    self.apply(event);
                }
                ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { snapshot }) => {
                    self.last_seq = snapshot.seq;
                    self.game = snapshot.game.clone();
                    if self.steps.len() != snapshot.steps as usize {
                        // Steps this client never saw: only their number is known.
                        self.steps = vec![Step::EndTurn; snapshot.steps as usize];
                    }
                }
                _ => {}
            }
            return Some(frame);
        }
    }

    async fn until(&mut self, what: &str, f: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        if let Some(i) = self.pending.iter().position(&f) {
            return self.pending.remove(i).unwrap();
        }
        loop {
            match self.read().await {
                Some(m) if f(&m) => return m,
                Some(m) => self.pending.push_back(m),
                None => panic!("connection ended or timed out waiting for {what}"),
            }
        }
    }

    async fn until_event(
        &mut self,
        what: &str,
        f: impl Fn(&ChaturajiEvent) -> bool,
    ) -> ChaturajiEvent {
        if let Some(e) = self.events.iter().find(|e| f(e)) {
            return e.clone();
        }
        let m = self
            .until(what, |m| {
                matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiEvent { event, .. }) if f(event))
            })
            .await;
        match m {
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiEvent { event, .. }) => event,
            _ => unreachable!(),
        }
    }

    async fn until_error(&mut self) -> ErrorCode {
        match self.until("an error", |m| matches!(m, ServerMsg::Error { .. })).await {
            ServerMsg::Error { code, .. } => code,
            _ => unreachable!(),
        }
    }

    async fn seated(&mut self) {
        self.until("seated", |m| {
            matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { .. }))
        })
        .await;
    }

    async fn create(&mut self, settings: Settings) -> AccessCode {
        let device = self.device.clone();
        self.send(&ClientMsg::CreateChaturaji {
            settings,
            device,
            stand_in: Some(Level::Greedy),
            rated: false,
        })
        .await;
        self.seated().await;
        self.code.clone().unwrap()
    }

    /// Watches the table as a spectator: its snapshot, then its events.
    async fn watch(&mut self, code: &AccessCode) {
        self.send(&ClientMsg::Watch { code: code.clone() }).await;
        self.until("the table's snapshot", |m| {
            matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { .. }))
        })
        .await;
    }

    async fn join(&mut self, code: &AccessCode) {
        let device = self.device.clone();
        self.send(&ClientMsg::JoinChaturaji { code: code.clone(), device }).await;
        self.seated().await;
    }

    /// Reads until a game is on (from an event or a snapshot).
    async fn until_game(&mut self) {
        while self.game.is_none() {
            if self.read().await.is_none() {
                panic!("connection ended while waiting for the game to start");
            }
        }
    }

    /// Reads until this replica has `n` steps.
    async fn catch_up(&mut self, n: u32) {
        while self.steps_done() < n {
            if self.read().await.is_none() {
                panic!("connection ended while catching up to step {n}");
            }
        }
    }

    /// Sends an action at `step`; returns the ack's or the error's frame.
    async fn act_at(&mut self, step: u32, action: ChaturajiAction) -> ServerMsg {
        let token = self.token.clone();
        self.send(&ClientMsg::ChaturajiAct { token, step, action }).await;
        self.until("ack or error", |m| {
            matches!(
                m,
                ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiAck { .. }) | ServerMsg::Error { .. }
            )
        })
        .await
    }

    async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

fn ack(f: &ServerMsg) -> (u32, u64) {
    match f {
        ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiAck { step, seq }) => (*step, *seq),
        other => panic!("expected an ack, got {other:?}"),
    }
}

/// Plays until the game is over (or `limit` steps): present people act with [`choice`], every
/// other seat is left to the room.
async fn play_on(players: &mut [Player], limit: u32) {
    loop {
        let leader = (0..players.len()).max_by_key(|&i| players[i].steps_done()).unwrap();
        let done = players[leader].steps_done();
        let game = players[leader].game.clone().expect("a game");
        if game.is_over() || done >= limit {
            return;
        }
        let seat = game.to_move();
        match players.iter().position(|p| p.seat == Some(seat)) {
            Some(i) => {
                players[i].catch_up(done).await;
                let action = choice(players[i].game.as_ref().unwrap(), done);
                let reply = players[i].act_at(done, action).await;
                assert_eq!(ack(&reply).0, done);
            }
            None => players[leader].catch_up(done + 1).await,
        }
    }
}

/// Every replica catches up and agrees; returns the final game.
async fn agree(players: &mut [Player]) -> Game {
    let n = players.iter().map(Player::steps_done).max().unwrap();
    for p in players.iter_mut() {
        p.catch_up(n).await;
    }
    let game = players[0].game.clone().unwrap();
    for p in players.iter() {
        assert_eq!(p.game.as_ref(), Some(&game));
    }
    game
}

async fn three_people_and_a_cpu(addr: SocketAddr, settings: Settings) -> Vec<Player> {
    let mut red = Player::connect(addr, "device-red-000000001").await;
    let code = red.create(settings).await;
    let mut blue = Player::connect(addr, "device-blue-00000002").await;
    blue.join(&code).await;
    let mut yellow = Player::connect(addr, "device-yellow-000003").await;
    yellow.join(&code).await;
    assert_eq!(
        (red.seat, blue.seat, yellow.seat),
        (Some(Seat::Red), Some(Seat::Blue), Some(Seat::Yellow))
    );
    // Red and Blue see `game_started`; Yellow, who started it by joining, gets a snapshot.
    for p in [&mut red, &mut blue, &mut yellow] {
        p.until_game().await;
    }
    vec![red, blue, yellow]
}

/// A rated table of four identified people on a store on disk: a guest cannot open one, the
/// game's places change every person's Chaturaji rating once, and a restart keeps them.
#[tokio::test]
async fn a_rated_table_changes_each_persons_rating_once_and_a_restart_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let config = || Config { db: Some(db.clone()), ..patient() };
    let server = TestServer::start(config()).await;
    let rated = |device: &str| ClientMsg::CreateChaturaji {
        settings: table(4, 2),
        device: device.to_owned(),
        stand_in: None,
        rated: true,
    };
    let mut guest = Player::connect(server.addr, "device-guest-0000001").await;
    guest.send(&rated("device-guest-0000001")).await;
    assert_eq!(guest.until_error().await, ErrorCode::NotIdentified);

    let secrets: Vec<identity::PlayerSecret> =
        (0..4).map(|_| identity::PlayerSecret::from_bytes(rand::random())).collect();
    let mut players = Vec::new();
    let mut code = None;
    for (i, secret) in secrets.iter().enumerate() {
        let device = format!("device-person-{i:06}");
        let mut p = Player::connect(server.addr, &device).await;
        p.patience = Duration::from_secs(20);
        p.identify(secret).await;
        if i == 0 {
            p.send(&ClientMsg::RegisterName { name: "chatur0".into() }).await;
            p.until("named", |m| matches!(m, ServerMsg::Player { .. })).await;
        }
        match &code {
            None => {
                p.send(&rated(&device)).await;
                p.seated().await;
                code = p.code.clone();
            }
            Some(code) => p.join(code).await,
        }
        players.push(p);
    }
    for p in players.iter_mut() {
        p.until_game().await;
    }
    play_on(&mut players, u32::MAX).await;
    assert!(agree(&mut players).await.is_over());
    let mut changes = Vec::new();
    for p in players.iter_mut() {
        let e = p.until_event("ratings", |e| matches!(e, ChaturajiEvent::RatingsChanged { .. }));
        let ChaturajiEvent::RatingsChanged { ratings } = e.await else { unreachable!() };
        changes.push(*ratings);
    }
    assert!(changes.iter().all(|c| *c == changes[0]), "every seat sees the same change");
    let mut after = Vec::new();
    for (seat, secret) in Seat::ALL.into_iter().zip(&secrets) {
        let change = changes[0][seat].expect("every person seat is rated");
        assert_eq!(change.player, secret.public());
        assert_eq!((change.game, change.speed), (RatedGame::Chaturaji, SpeedClass::Classical));
        assert_eq!(change.before, 1500);
        assert!(change.deviation < 350, "a game played narrows the deviation: {change:?}");
        after.push(change.after);
    }
    // Exactly once: the room answers a late action after anything it owed, and no second
    // change came before that answer.
    let step = players[0].steps_done();
    let late = players[0].act_at(step, ChaturajiAction::EndTurn).await;
    assert!(matches!(late, ServerMsg::Error { .. }), "{late:?}");
    let seen = players[0]
        .events
        .iter()
        .filter(|e| matches!(e, ChaturajiEvent::RatingsChanged { .. }))
        .count();
    assert_eq!(seen, 1);
    // The game is in the first person's profile, from their side, with its record.
    let mut listed = None;
    for _ in 0..100 {
        players[0].send(&ClientMsg::Profile { name: "CHATUR0".into() }).await;
        let m = players[0]
            .until("profile", |m| matches!(m, ServerMsg::Lobby(LobbyMsg::Profile { .. })))
            .await;
        let ServerMsg::Lobby(LobbyMsg::Profile { profile }) = m else { unreachable!() };
        if let Some(g) = profile.games.first() {
            listed = Some(g.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let g = listed.expect("the finished table is in the profile");
    assert_eq!((g.game, g.rated, g.result), (LobbyGame::Chaturaji, true, None));
    assert!(matches!(g.place, Some(1..=4)), "{g:?}");
    assert_eq!(g.rating.map(|r| (r.before, r.after)), Some((1500, after[0])));
    assert_eq!(g.opponents.len(), 3);
    assert!(g.opponents.iter().all(|o| !o.cpu && o.name.is_none()), "unnamed people");
    players[0].send(&ClientMsg::GameRecord { id: g.id }).await;
    let m = players[0]
        .until("record", |m| {
            matches!(m, ServerMsg::Lobby(LobbyMsg::GameRecord { .. }) | ServerMsg::Error { .. })
        })
        .await;
    match m {
        ServerMsg::Lobby(LobbyMsg::GameRecord { record, pgn, .. }) => {
            assert!(pgn.is_none() && record.unwrap().contains("chaturaji-record"));
        }
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::Unavailable, "too long"),
        _ => unreachable!(),
    }
    drop(players);
    server.stop().await;

    let server = TestServer::start(config()).await;
    for (secret, rating) in secrets.iter().zip(after) {
        let mut p = Player::connect(server.addr, "device-again-0000001").await;
        let me = p.identify(secret).await;
        assert_eq!(me.ratings.len(), 1, "{me:?}");
        let r = me.ratings[0];
        assert_eq!(
            (r.game, r.speed, r.rating, r.games),
            (RatedGame::Chaturaji, SpeedClass::Classical, rating, 1)
        );
    }
    let mut p = Player::connect(server.addr, "device-again-0000002").await;
    p.send(&ClientMsg::Profile { name: "chatur0".into() }).await;
    let m = p.until("profile", |m| matches!(m, ServerMsg::Lobby(LobbyMsg::Profile { .. }))).await;
    let ServerMsg::Lobby(LobbyMsg::Profile { profile }) = m else { unreachable!() };
    assert_eq!(profile.games.len(), 1, "the table's game survives the restart");
    server.stop().await;
}

/// A spectator of a table sees every roll's faces and every move (its own replica, checked
/// step by step, ends equal to the player's) and acts for no seat.
#[tokio::test(start_paused = true)]
async fn a_spectator_sees_the_dice_and_acts_for_no_seat() {
    let server = TestServer::start(patient()).await;
    let mut red = Player::connect(server.addr, "device-red-000000001").await;
    let code = red.create(table(2, 3)).await;
    let mut blue = Player::connect(server.addr, "device-blue-00000002").await;
    blue.join(&code).await;
    let mut players = vec![red, blue];
    for p in players.iter_mut() {
        p.until_game().await;
    }
    let mut watcher = Player::connect(server.addr, "device-watcher-00001").await;
    watcher.watch(&code).await;
    assert!(watcher.game.is_some(), "the snapshot carries the game");
    assert_eq!((watcher.seat, watcher.code.as_ref()), (None, None), "no seat");
    // Not even with a made-up token.
    watcher.token = "11".repeat(32);
    let refused = watcher.act_at(watcher.steps_done(), ChaturajiAction::Roll).await;
    assert!(matches!(refused, ServerMsg::Error { code: ErrorCode::NotSeated, .. }), "{refused:?}");

    play_on(&mut players, u32::MAX).await;
    let game = agree(&mut players).await;
    assert!(game.is_over());
    watcher.catch_up(players[0].steps_done()).await;
    assert_eq!(watcher.game.as_ref(), Some(&game), "the spectator's replica checked every step");
    let rolls = watcher
        .events
        .iter()
        .filter(|e| {
            matches!(e, ChaturajiEvent::Played { action: Step::Roll { dice: Some(_) }, .. })
        })
        .count();
    assert!(rolls >= 4, "every seat's rolls, with their faces: {rolls}");
    watcher.until_event("game over", |e| matches!(e, ChaturajiEvent::GameOver { .. })).await;
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn three_people_and_a_cpu_play_to_the_end() {
    let server = TestServer::start(patient()).await;
    let mut players = three_people_and_a_cpu(server.addr, table(3, 6)).await;
    play_on(&mut players, u32::MAX).await;
    let game = agree(&mut players).await;
    assert!(game.is_over());
    for p in players.iter_mut() {
        let e = p.until_event("game over", |e| matches!(e, ChaturajiEvent::GameOver { .. })).await;
        let ChaturajiEvent::GameOver { outcome } = e else { unreachable!() };
        assert_eq!(Some(&outcome), game.outcome());
        assert_eq!(outcome.standings.len(), 4);
    }
    let green_played = players[0]
        .events
        .iter()
        .any(|e| matches!(e, ChaturajiEvent::Played { seat: Seat::Green, by_room: true, .. }));
    assert!(green_played, "the CPU seat played");
    // Rematch: the next game starts with the next seat (rotating by default).
    let token = players[2].token.clone();
    players[2].send(&ClientMsg::ChaturajiRematch { token }).await;
    let e = players[0]
        .until_event("second game", |e| matches!(e, ChaturajiEvent::GameStarted { game: 2, .. }))
        .await;
    let ChaturajiEvent::GameStarted { settings, .. } = e else { unreachable!() };
    assert_eq!(settings.first_seat, Seat::Blue);
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn forged_stale_and_out_of_turn_actions_are_refused_and_change_nothing() {
    let server = TestServer::start(patient()).await;
    let mut players = three_people_and_a_cpu(server.addr, table(3, 6)).await;
    let seq = players[0].last_seq;
    // A forged token.
    players[1]
        .send(&ClientMsg::ChaturajiAct {
            token: "f".repeat(64),
            step: 0,
            action: ChaturajiAction::Roll,
        })
        .await;
    assert_eq!(players[1].until_error().await, ErrorCode::Forbidden);
    // Blue out of turn; Red at a future step; Red ending a turn it has not rolled for.
    let refused = players[1].act_at(0, ChaturajiAction::Roll).await;
    assert!(matches!(refused, ServerMsg::Error { code: ErrorCode::NotYourTurn, .. }));
    let refused = players[0].act_at(3, ChaturajiAction::Roll).await;
    assert!(matches!(refused, ServerMsg::Error { code: ErrorCode::StalePly, .. }));
    let refused = players[0].act_at(0, ChaturajiAction::EndTurn).await;
    assert!(matches!(refused, ServerMsg::Error { code: ErrorCode::WrongPhase, .. }));
    // Nothing happened: Red's roll is step 0 and the very next event after the dice parties are
    // fixed (these bare clients send no dice commitment: the window closes with the room alone).
    let first = ack(&players[0].act_at(0, ChaturajiAction::Roll).await);
    assert_eq!(first, (0, seq + 2));
    // The same roll resent: the same ack, no new event; an old step with another action: stale.
    assert_eq!(ack(&players[0].act_at(0, ChaturajiAction::Roll).await), first);
    let stale = players[0].act_at(0, ChaturajiAction::EndTurn).await;
    assert!(matches!(stale, ServerMsg::Error { code: ErrorCode::StalePly, .. }));
    assert_eq!(players[0].last_seq, seq + 2);
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_dropped_person_is_played_by_the_cpu_and_gets_the_seat_back_on_the_same_device() {
    let server = TestServer::start(patient()).await;
    let mut players = three_people_and_a_cpu(server.addr, table(3, 6)).await;
    let blue = players.remove(1);
    let (code, blue_token, blue_device) =
        (blue.code.clone().unwrap(), blue.token.clone(), blue.device.clone());
    blue.close().await;
    players[0]
        .until_event("stand-in", |e| matches!(e, ChaturajiEvent::CpuTookOver { seat: Seat::Blue }))
        .await;
    // Red plays its turn; then the room plays Blue's.
    play_on(&mut players, 64).await;
    assert!(players[0]
        .events
        .iter()
        .any(|e| matches!(e, ChaturajiEvent::Played { seat: Seat::Blue, by_room: true, .. })));

    // Blue's token from another device is refused; so is a new seat for that device.
    let mut thief = Player::connect(server.addr, "device-other-0000009").await;
    thief
        .send(&ClientMsg::RejoinChaturaji {
            code: code.clone(),
            token: blue_token.clone(),
            device: thief.device.clone(),
            last_seq: 0,
        })
        .await;
    assert_eq!(thief.until_error().await, ErrorCode::Forbidden);
    thief
        .send(&ClientMsg::JoinChaturaji { code: code.clone(), device: thief.device.clone() })
        .await;
    assert_eq!(thief.until_error().await, ErrorCode::RoomFull);

    // The same device comes back (without its token): it gets its seat back, under a fresh
    // token (the server keeps only digests, so it cannot hand the old one out again), and the
    // old token no longer holds the seat.
    let mut back = Player::connect(server.addr, &blue_device).await;
    back.join(&code).await;
    assert_eq!(back.seat, Some(Seat::Blue));
    assert_ne!(back.token, blue_token);
    let mut old = Player::connect(server.addr, &blue_device).await;
    old.send(&ClientMsg::RejoinChaturaji {
        code: code.clone(),
        token: blue_token.clone(),
        device: blue_device.clone(),
        last_seq: 0,
    })
    .await;
    assert_eq!(old.until_error().await, ErrorCode::Forbidden);
    players[0]
        .until_event("handed back", |e| {
            matches!(e, ChaturajiEvent::HandedBack { seat: Seat::Blue })
        })
        .await;
    players.insert(1, back);
    // From here Blue plays itself again, to the end.
    let played_by_room_before = players[0]
        .events
        .iter()
        .filter(|e| matches!(e, ChaturajiEvent::Played { seat: Seat::Blue, by_room: true, .. }))
        .count();
    play_on(&mut players, u32::MAX).await;
    let game = agree(&mut players).await;
    assert!(game.is_over());
    let played_by_room_after = players[0]
        .events
        .iter()
        .filter(|e| matches!(e, ChaturajiEvent::Played { seat: Seat::Blue, by_room: true, .. }))
        .count();
    assert_eq!(played_by_room_before, played_by_room_after, "no stand-in after the return");
    server.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_turn_timer_discards_the_dice_and_passes_the_turn() {
    let server = TestServer::start(patient()).await;
    let settings = Settings { turn_time: TurnTime::Seconds30, ..table(2, 6) };
    let mut red = Player::connect(server.addr, "device-red-000000001").await;
    let code = red.create(settings).await;
    let mut blue = Player::connect(server.addr, "device-blue-00000002").await;
    blue.join(&code).await;
    red.until_game().await;
    let t0 = tokio::time::Instant::now();
    ack(&red.act_at(0, ChaturajiAction::Roll).await);
    // The roll is made when the dice commitment window closes, so the ack comes then.
    let rolled = tokio::time::Instant::now();
    // Red waits (or, if no die of the roll was usable, Blue is to roll and waits): the room
    // ends that person's turn 30 s after it began, discarding the dice or the roll. Red's turn
    // began with the game; Blue's began when Red's roll ended Red's turn.
    let waiting = red.game.as_ref().unwrap().to_move();
    assert!(matches!(waiting, Seat::Red | Seat::Blue));
    let turn_began = if waiting == Seat::Red { t0 } else { rolled };
    let e = blue
        .until_event("time out", |e| {
            matches!(e, ChaturajiEvent::Played { action: Step::TimeOut, .. })
        })
        .await;
    let waited = turn_began.elapsed();
    assert!(waited >= Duration::from_secs(30) && waited < Duration::from_secs(31), "{waited:?}");
    let ChaturajiEvent::Played { seat, by_room, to_move, events, .. } = e else { unreachable!() };
    assert_eq!((seat, by_room), (waiting, true));
    assert_eq!(to_move, waiting.next());
    assert!(events.iter().any(|e| matches!(e, maharajah_chaturaji::Event::TurnEnded { .. })));
    server.stop().await;
}

/// Equal steps; a record may omit the faces of a roll that ended the turn at once (the seed has
/// them), the room's events never do.
fn same_step(a: &Step, b: &Step) -> bool {
    match (a, b) {
        (Step::Roll { dice: x }, Step::Roll { dice: y }) => x.is_none() || y.is_none() || x == y,
        _ => a == b,
    }
}

fn stored(db: &std::path::Path, code: &AccessCode) -> ChaturajiRecord {
    let conn = rusqlite::Connection::open(db).unwrap();
    let json: String = conn
        .query_row("SELECT record FROM chaturaji_rooms WHERE code = ?1", [code.as_str()], |r| {
            r.get(0)
        })
        .unwrap();
    serde_json::from_str(&json).unwrap()
}

#[tokio::test]
async fn a_restart_recovers_the_room_and_the_game_continues_identically() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let config = Config { db: Some(db.clone()), ..Config::default() };
    let server = TestServer::start(config.clone()).await;
    let mut players = three_people_and_a_cpu(server.addr, table(3, 3)).await;
    for p in players.iter_mut() {
        p.patience = Duration::from_secs(20);
    }
    play_on(&mut players, 12).await;
    let before = agree(&mut players).await;
    server.stop().await;

    // What a pure room does from the stored record with the same people's choices.
    let code = players[0].code.clone().unwrap();
    let record = stored(&db, &code);
    let mut pure =
        ChaturajiRoom::from_record(record, 0, maharajah_server::Lifetimes::default()).unwrap();
    assert_eq!(pure.game().map(|g| g.game()), Some(&before));
    let mut now = 0;
    while !pure.game().unwrap().game().is_over() {
        let g = pure.game().unwrap();
        let seat = g.game().to_move();
        if pure.is_room_played(seat) {
            now = pure.next_deadline();
            pure.on_time(now);
        } else {
            let step = g.record().actions.len() as u32;
            let action = choice(g.game(), step);
            let token = players.iter().find(|p| p.seat == Some(seat)).unwrap().token.clone();
            now += 10;
            pure.act(&token, step, action, now).unwrap();
        }
    }
    let expected = pure.game().unwrap().record().actions.clone();

    // The real server restarts on the same database; everyone comes back.
    let server = TestServer::start(config).await;
    let mut back = Vec::new();
    for p in &players {
        let mut q = Player::connect(server.addr, &p.device).await;
        q.patience = Duration::from_secs(20);
        // `last_seq` 0: after a restart the ring is empty, so this asks for a snapshot.
        q.send(&ClientMsg::RejoinChaturaji {
            code: code.clone(),
            token: p.token.clone(),
            device: p.device.clone(),
            last_seq: 0,
        })
        .await;
        q.seated().await;
        q.until("snapshot", |m| {
            matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { .. }))
        })
        .await;
        back.push(q);
    }
    // The snapshot holds the game as it was (or a few CPU steps further, all of them replayed).
    play_on(&mut back, u32::MAX).await;
    let after = agree(&mut back).await;
    assert!(after.is_over());
    assert_eq!(back[0].steps_done() as usize, expected.len());
    // Every step seen live after the restart is the one the pure room played.
    let mut seen = 0;
    for ev in &back[0].events {
        if let ChaturajiEvent::Played { step, action, .. } = ev {
            assert!(same_step(action, &expected[*step as usize]), "step {step}");
            seen += 1;
        }
    }
    assert!(seen > 0);
    for (live, pure) in players[0].steps.iter().zip(&expected) {
        assert!(same_step(live, pure), "{live:?} vs {pure:?}");
    }
    assert_eq!(Some(&after), pure.game().map(|g| g.game()));
    server.stop().await;
}

async fn spawn_server(db: &std::path::Path) -> (tokio::process::Child, SocketAddr) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_maharajah-server"))
        .args(["--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let addr = announced_address(&mut child).await;
    (child, addr)
}

#[tokio::test]
async fn kill_9_mid_game_loses_no_acknowledged_step() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rooms.sqlite3");
    let (mut server, addr) = spawn_server(&db).await;
    let mut players = three_people_and_a_cpu(addr, table(3, 2)).await;
    for p in players.iter_mut() {
        p.patience = Duration::from_secs(20);
    }
    play_on(&mut players, 10).await;
    let acked = agree(&mut players).await;
    let acked_steps = players[0].steps_done();
    server.kill().await.unwrap();
    // What the killed server had committed starts with every step it acknowledged or announced.
    let code = players[0].code.clone().unwrap();
    let record = stored(&db, &code).record.unwrap();
    assert!(record.actions.len() >= acked_steps as usize);
    for (live, kept) in players[0].steps.iter().zip(&record.actions) {
        assert!(same_step(live, kept), "{live:?} vs {kept:?}");
    }
    let resumed = maharajah_chaturaji::RecordedGame::resume(Record {
        actions: record.actions[..acked_steps as usize].to_vec(),
        ..record.clone()
    })
    .unwrap();
    assert_eq!(resumed.game(), &acked);

    let (mut server, addr) = spawn_server(&db).await;
    let mut back = Vec::new();
    for p in &players {
        let mut q = Player::connect(addr, &p.device).await;
        q.patience = Duration::from_secs(20);
        let (token, device) = (p.token.clone(), p.device.clone());
        q.send(&ClientMsg::RejoinChaturaji { code: code.clone(), token, device, last_seq: 0 })
            .await;
        q.seated().await;
        q.until_game().await;
        assert!(q.steps_done() >= acked_steps, "every acknowledged step survived");
        back.push(q);
    }
    play_on(&mut back, u32::MAX).await;
    assert!(agree(&mut back).await.is_over());
    server.kill().await.unwrap();
}
