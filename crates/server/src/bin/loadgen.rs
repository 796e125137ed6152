//! `maharajah-loadgen`: opens N concurrent clocked games over WebSockets, plays legal moves with
//! a human-like think time between them, and prints games, connections, moves/s, p50/p99 move
//! round trip, and the server's RSS and CPU.
//!
//! ```text
//! maharajah-loadgen [--games N] [--think MIN-MAX] [--duration S] [--plies P] [--procs K]
//!                   [--lobby] [--addr HOST:PORT [--server-pid PID] | --db PATH
//!                   | --addrs HOST:PORT,HOST:PORT,...]
//! ```
//!
//! `--addrs`: the nodes of a cluster. Game `i` seats White through node `i mod n` and Black
//! through the next one, so every game has its players on two nodes (one of them forwarded to
//! the room's owner, or, by nodes started with `--redirect`, sent there: every connection
//! follows a `redirect`). A game whose connection drops (a node killed or drained under load)
//! reconnects both players at once through the nodes, each from one picked at random, and
//! rejoins, as the app does; it then checks that every move it had acknowledged is in the
//! room's snapshot ("acknowledged moves lost") and counts the time from the drop to both
//! players seated again ("reconnect to resumed").
//!
//! `--lobby`: every room comes from the lobby instead of a code passed by hand, a third of the
//! game pairs each way: a casual challenge posted by one and accepted by the other; quick
//! pairing (`play_now`, each pair in its own pool: a clock of its own, so the two connections
//! of a pair meet); and a rated challenge between two identified players (a fresh Ed25519 key
//! each, signed `identify`).
//! The first move is played as soon as both are seated, and the time from the request that
//! makes the pair (`accept_challenge`, or the second `play_now`) to that move's `move_ack` is
//! reported as pairing-to-first-move p50/p99/max, over every pairing (the initial ones and
//! those after each game). An external server must allow the lobby traffic of one address:
//! `--lobby-request-burst`, `--lobby-requests-per-minute`, `--challenges-per-address`,
//! `--lobby-requests-per-address` (the in-process server lifts them).
//!
//! Pacing: every game opens its two connections, creates and joins a room (10+5 clock), then
//! waits until every game is seated. From then on each player thinks a uniformly random time
//! in `--think` (default 1000-5000 ms) before each move, so N games make about N / 3 moves a
//! second; a game that ends starts a new room on the same connections. Round trips (move sent →
//! its `move_ack`) are counted during the `--duration` seconds (default 60). `--think 0` plays
//! back to back (a stress test, not real play) and then `--plies` (default 40) ends each game.
//!
//! Without `--addr` the server library runs in this process (in memory, or in SQLite at `--db
//! PATH`; limits lifted). With `--procs K` the clients run in K child processes (each has its
//! own file-descriptor limit), so this process is the server alone and the RSS and CPU printed
//! are the server's. With `--addr` it drives an external server (which must allow that many
//! connections from one address: `--max-connections-per-ip`, `--messages-per-second`); pass
//! `--server-pid` to read that server's RSS and CPU from /proc.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_engine as engine;
use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::{
    decode_server, encode, ChallengeOptions, ClientMsg, Color, ColorChoice, LobbyGame, LobbyMsg,
    RoomEvent, RoomOptions, ServerMsg, TimeControl, Variant, PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio::sync::{watch, Semaphore};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Failure = String;

/// A move's round trip (µs) above which its second is reported (the p99 target, 20 ms).
const SLOW: u64 = 20_000;

const USAGE: &str = "usage: maharajah-loadgen [--games N] [--think MIN-MAX | --think MS] \
                     [--duration S] [--plies P] [--procs K] [--lobby] \
                     [--addr HOST:PORT [--server-pid PID] | --db PATH | --addrs A,B,C]";

#[derive(Clone, Debug)]
struct Args {
    games: usize,
    plies: u32,
    think_ms: (u64, u64),
    duration: Duration,
    procs: usize,
    addr: Option<SocketAddr>,
    server_pid: Option<u32>,
    db: Option<std::path::PathBuf>,
    /// Child mode: index of the first game, clients only, results on stdout.
    worker: Option<usize>,
    /// Rooms come from the lobby (challenges, quick pairing, rated challenges).
    lobby: bool,
    /// The nodes of a cluster (`--addrs`); games reconnect through them.
    addrs: Vec<SocketAddr>,
}

fn parse_think(v: &str) -> Result<(u64, u64), String> {
    let bad = |e: std::num::ParseIntError| format!("--think {v}: {e}");
    let (lo, hi) = match v.split_once('-') {
        Some((a, b)) => (a.parse().map_err(bad)?, b.parse().map_err(bad)?),
        None => {
            let x = v.parse().map_err(bad)?;
            (x, x)
        }
    };
    if lo > hi {
        return Err(format!("--think {v}: the minimum is above the maximum"));
    }
    Ok((lo, hi))
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        games: 100,
        plies: 40,
        think_ms: (1000, 5000),
        duration: Duration::from_secs(60),
        procs: 1,
        addr: None,
        server_pid: None,
        db: None,
        worker: None,
        lobby: false,
        addrs: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        fn num<T: std::str::FromStr>(name: &str, v: String) -> Result<T, String>
        where
            T::Err: std::fmt::Display,
        {
            v.parse().map_err(|e| format!("{name} {v}: {e}"))
        }
        match arg.as_str() {
            "--games" => a.games = num("--games", value("--games")?)?,
            "--plies" => a.plies = num("--plies", value("--plies")?)?,
            "--think" => a.think_ms = parse_think(&value("--think")?)?,
            "--duration" => {
                a.duration = Duration::from_secs(num("--duration", value("--duration")?)?);
            }
            "--procs" => a.procs = num::<usize>("--procs", value("--procs")?)?.max(1),
            "--addr" => a.addr = Some(num("--addr", value("--addr")?)?),
            "--server-pid" => a.server_pid = Some(num("--server-pid", value("--server-pid")?)?),
            "--db" => a.db = Some(value("--db")?.into()),
            "--worker" => a.worker = Some(num("--worker", value("--worker")?)?),
            "--lobby" => a.lobby = true,
            "--addrs" => {
                for one in value("--addrs")?.split(',') {
                    a.addrs.push(num("--addrs", one.trim().to_owned())?);
                }
                a.addr = a.addrs.first().copied();
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if a.worker.is_some() && a.addr.is_none() {
        return Err("--worker needs --addr".into());
    }
    Ok(a)
}

/// Small buffers: many connections, tiny frames (the server does the same).
fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(0)
}

async fn send(ws: &mut Ws, msg: &ClientMsg) -> Result<(), Failure> {
    ws.send(Message::text(encode(msg))).await.map_err(|e| format!("send: {e}"))
}

async fn recv_until(ws: &mut Ws, f: impl Fn(&ServerMsg) -> bool) -> Result<ServerMsg, Failure> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(60), ws.next())
            .await
            .map_err(|_| "timeout".to_owned())?
            .ok_or("closed")?
            .map_err(|e| format!("recv: {e}"))?;
        let Message::Text(text) = frame else { continue };
        let msg = decode_server(text.as_str()).map_err(|e| format!("decode: {e}"))?;
        if let ServerMsg::Error { code, message } = &msg {
            return Err(format!("{code:?}: {message}"));
        }
        if f(&msg) {
            return Ok(msg);
        }
    }
}

/// Reads (and so answers pings on) both connections until `until`; any message is a failure,
/// since nothing is pending between moves.
async fn idle(
    w: &mut Ws,
    b: &mut Ws,
    until: impl std::future::Future<Output = ()>,
) -> Result<(), Failure> {
    tokio::pin!(until);
    loop {
        let frame = tokio::select! {
            () = &mut until => return Ok(()),
            f = w.next() => f,
            f = b.next() => f,
        };
        match frame {
            None => return Err("closed".into()),
            Some(Err(e)) => return Err(format!("recv: {e}")),
            Some(Ok(Message::Text(text))) => {
                if let Ok(ServerMsg::Error { code, message }) = decode_server(text.as_str()) {
                    return Err(format!("{code:?}: {message}"));
                }
            }
            Some(Ok(_)) => {}
        }
    }
}

async fn connect(addr: SocketAddr, identified: bool) -> Result<Ws, Failure> {
    connect_url(&format!("ws://{addr}"), identified).await
}

/// Most redirects followed for one request (a room that moves meanwhile is followed again).
const REDIRECTS: usize = 3;

async fn connect_url(url: &str, identified: bool) -> Result<Ws, Failure> {
    let (mut ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), true)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let hello =
        ClientMsg::Hello { version: PROTOCOL_VERSION, client: "loadgen".into(), redirects: true };
    send(&mut ws, &hello).await?;
    let welcome = recv_until(&mut ws, |m| matches!(m, ServerMsg::Welcome { .. })).await?;
    if identified {
        identify(&mut ws, &welcome).await?;
    }
    Ok(ws)
}

/// Creates a room on `w` (White) and joins it on `b`; returns both seat tokens (the room's code
/// in `code`).
async fn seat(
    w: &mut Ws,
    b: &mut Ws,
    code_out: &mut Option<maharajah_protocol::AccessCode>,
) -> Result<(String, String), Failure> {
    let options = RoomOptions {
        variant: Variant::Chess,
        time_control: Some(TimeControl { base_ms: 600_000, increment_ms: 5_000 }),
        hidden_setup: false,
        color: Some(Color::White),
    };
    send(w, &ClientMsg::CreateRoom { options, rated: false }).await?;
    let ServerMsg::Seated { code, token: wt, .. } =
        recv_until(w, |m| matches!(m, ServerMsg::Seated { .. })).await?
    else {
        return Err("no seat".into());
    };
    *code_out = Some(code.clone());
    let ServerMsg::Seated { token: bt, .. } =
        ask_following(b, &ClientMsg::JoinRoom { code }, false).await?
    else {
        return Err("no seat".into());
    };
    // White hears that Black sat down; take that before the first move.
    recv_until(w, |m| matches!(m, ServerMsg::Event { .. })).await?;
    Ok((wt, bt))
}

/// The clock of lobby games (`offset` ms more for a quick-pairing pool of its own).
fn lobby_clock(offset: u64) -> TimeControl {
    TimeControl { base_ms: 600_000 + offset, increment_ms: 5_000 }
}

/// Identifies the connection as a fresh player (a new Ed25519 key).
async fn identify(ws: &mut Ws, welcome: &ServerMsg) -> Result<(), Failure> {
    let ServerMsg::Welcome { challenge: Some(challenge), .. } = welcome else {
        return Err("the server offers no identities".into());
    };
    let nonce = challenge.nonce_bytes().map_err(|e| format!("challenge: {e}"))?;
    let secret = PlayerSecret::from_bytes(rand::random());
    let signature = secret.sign_hello(&nonce, &challenge.server);
    send(ws, &ClientMsg::Identify { key: secret.public(), signature }).await?;
    recv_until(ws, |m| matches!(m, ServerMsg::Player { .. })).await?;
    Ok(())
}

/// `seated` then the snapshot: the seat's colour and token.
async fn lobby_seated(ws: &mut Ws) -> Result<(Color, String), Failure> {
    let ServerMsg::Seated { seat, token, .. } =
        recv_until(ws, |m| matches!(m, ServerMsg::Seated { .. })).await?
    else {
        return Err("no seat".into());
    };
    recv_until(ws, |m| matches!(m, ServerMsg::Snapshot { .. })).await?;
    Ok((seat, token))
}

/// Seats `w` and `b` in a room made by the lobby, the way of the pair `index` (see the module
/// documentation); swaps them so that `w` plays White. Returns both tokens
/// and when the pairing request went out.
async fn lobby_seat(
    w: &mut Ws,
    b: &mut Ws,
    index: usize,
) -> Result<(String, String, Instant), Failure> {
    let way = index % 3;
    let asked = if way == 1 {
        let clock = lobby_clock(index as u64);
        let seek = ClientMsg::PlayNow {
            game: LobbyGame::Chess,
            time_control: clock,
            rated: false,
            cpu_after_s: None,
            device: None,
        };
        send(w, &seek).await?;
        recv_until(w, |m| matches!(m, ServerMsg::Lobby(LobbyMsg::PairingQueued { .. }))).await?;
        let asked = Instant::now();
        send(b, &seek).await?;
        asked
    } else {
        let options = ChallengeOptions {
            game: LobbyGame::Chess,
            time_control: Some(lobby_clock(0)),
            rated: way == 2,
            color: ColorChoice::White,
            table: None,
        };
        send(w, &ClientMsg::CreateChallenge { options, device: None }).await?;
        let ServerMsg::Lobby(LobbyMsg::ChallengeCreated { challenge }) =
            recv_until(w, |m| matches!(m, ServerMsg::Lobby(LobbyMsg::ChallengeCreated { .. })))
                .await?
        else {
            return Err("no challenge".into());
        };
        let asked = Instant::now();
        send(b, &ClientMsg::AcceptChallenge { id: challenge.id, device: None }).await?;
        asked
    };
    let (w_seat, w_token) = lobby_seated(w).await?;
    let (_, b_token) = lobby_seated(b).await?;
    if w_seat == Color::White {
        Ok((w_token, b_token, asked))
    } else {
        std::mem::swap(w, b);
        Ok((b_token, w_token, asked))
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// When the measured window opens, shared by every game.
type Go = watch::Receiver<Option<Instant>>;

#[derive(Default)]
struct GameStats {
    /// Round trips (µs) of moves sent inside the window.
    rtts: Vec<u64>,
    /// The second of the window (from its start) of each of those moves slower than [`SLOW`].
    slow: Vec<u64>,
    /// Moves played in all.
    moves: u64,
    /// Lobby mode: pairing request to the first move's ack (µs), every pairing.
    pairings: Vec<u64>,
    /// Cluster: from a dropped connection to both players seated again (µs), each time.
    reconnects: Vec<u64>,
    /// Cluster: moves acknowledged to this game but missing after a reconnect.
    lost: u64,
}

/// Sends `msg` (a join or rejoin) and waits for `seated`; a `redirect` is followed (a new
/// connection to the node named, `msg` again there), at most [`REDIRECTS`] times. The answer;
/// `ws` is the connection that gave it.
async fn ask_following(
    ws: &mut Ws,
    msg: &ClientMsg,
    identified: bool,
) -> Result<ServerMsg, Failure> {
    for _ in 0..=REDIRECTS {
        send(ws, msg).await?;
        let seated =
            |m: &ServerMsg| matches!(m, ServerMsg::Seated { .. } | ServerMsg::Redirect { .. });
        match recv_until(ws, seated).await? {
            ServerMsg::Redirect { url } => *ws = connect_url(&url, identified).await?,
            answer => return Ok(answer),
        }
    }
    Err("too many redirects".into())
}

/// Rejoins seat `token` of room `code` through the nodes, from one picked at random and then
/// in turn, for at most 30 s; the connection and the room's moves.
async fn rejoin_any(
    addrs: &[SocketAddr],
    code: &maharajah_protocol::AccessCode,
    token: &str,
) -> Result<(Ws, Vec<String>), Failure> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = String::new();
    let from = rand::random::<u32>() as usize;
    for k in 0.. {
        if Instant::now() >= deadline {
            break;
        }
        let addr = addrs[(from + k) % addrs.len()];
        let attempt = async {
            let mut ws = connect(addr, false).await?;
            let rejoin = ClientMsg::Rejoin {
                code: code.clone(),
                token: token.to_owned(),
                last_seq: u64::MAX,
            };
            ask_following(&mut ws, &rejoin, false).await?;
            match recv_until(&mut ws, |m| matches!(m, ServerMsg::Snapshot { .. })).await? {
                ServerMsg::Snapshot { snapshot } => Ok((ws, snapshot.moves)),
                _ => Err("no snapshot".to_owned()),
            }
        };
        match tokio::time::timeout(Duration::from_secs(15), attempt).await {
            Ok(Ok(done)) => return Ok(done),
            Ok(Err(e)) => last = e,
            Err(_) => last = "timeout".into(),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(format!("rejoin: {last}"))
}

/// The position after `moves` (UCI) from the start.
fn replay(moves: &[String]) -> Result<engine::Position, Failure> {
    let mut pos = engine::Position::from_fen(engine::Variant::Chess, engine::fen::STANDARD_START)
        .map_err(|e| e.to_string())?;
    for uci in moves {
        let mv = *pos
            .legal_moves()
            .iter()
            .find(|m| m.to_string() == *uci)
            .ok_or_else(|| format!("the room's move {uci} is not legal here"))?;
        pos = pos.play(mv).map_err(|e| e.to_string())?;
    }
    Ok(pos)
}

/// One move of a seated game: sent by the side to move, acknowledged (`acked` set), and seen
/// by the other side; its round trip (µs).
async fn one_move(
    w: &mut Ws,
    b: &mut Ws,
    tokens: &(String, String),
    ply: u32,
    uci: String,
    acked: &mut bool,
) -> Result<u64, Failure> {
    let (mover, other, token) = if ply % 2 == 0 { (w, b, &tokens.0) } else { (b, w, &tokens.1) };
    let t0 = Instant::now();
    send(mover, &ClientMsg::Move { token: token.clone(), ply, uci }).await?;
    recv_until(mover, |m| matches!(m, ServerMsg::MoveAck { .. })).await?;
    *acked = true;
    let rtt = u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX);
    recv_until(other, |m| {
        matches!(m, ServerMsg::Event { event: RoomEvent::Moved { ply: p, .. }, .. } if *p == ply)
    })
    .await?;
    Ok(rtt)
}

/// Plays White's first move at once after a lobby pairing: the position after it, and the
/// time since `asked` (µs) once it is acknowledged and Black has it.
async fn first_move(
    w: &mut Ws,
    b: &mut Ws,
    token: &str,
    rng: &mut Rng,
    asked: Instant,
) -> Result<(engine::Position, u64), Failure> {
    let pos = engine::Position::from_fen(engine::Variant::Chess, engine::fen::STANDARD_START)
        .map_err(|e| e.to_string())?;
    let moves = pos.legal_moves();
    let mv = moves[rng.below(moves.len() as u64) as usize];
    send(w, &ClientMsg::Move { token: token.to_owned(), ply: 0, uci: mv.to_string() }).await?;
    recv_until(w, |m| matches!(m, ServerMsg::MoveAck { .. })).await?;
    let took = u64::try_from(asked.elapsed().as_micros()).unwrap_or(u64::MAX);
    recv_until(b, |m| matches!(m, ServerMsg::Event { event: RoomEvent::Moved { ply: 0, .. }, .. }))
        .await?;
    Ok((pos.play(mv).map_err(|e| e.to_string())?, took))
}

/// One game pair: two connections playing room after room until the window closes.
async fn game(
    addr: SocketAddr,
    index: usize,
    args: Arc<Args>,
    setup: Arc<Semaphore>,
    ready: tokio::sync::mpsc::Sender<()>,
    mut go: Go,
) -> Result<GameStats, Failure> {
    let mut rng = Rng((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut stats = GameStats::default();
    // Lobby mode: the position after the first move, played at once after each pairing.
    let mut opened: Option<engine::Position> = None;
    let mut code = None;
    let nodes = if args.addrs.is_empty() { vec![addr] } else { args.addrs.clone() };
    let (w_node, b_node) = (index % nodes.len(), (index + 1) % nodes.len());
    let (mut w, mut b, mut tokens) = {
        let _permit = setup.acquire().await.map_err(|e| e.to_string())?;
        let rated = args.lobby && index % 3 == 2;
        let mut w = connect(nodes[w_node], rated).await?;
        let mut b = connect(nodes[b_node], rated).await?;
        let tokens = if args.lobby {
            let (wt, bt, asked) = lobby_seat(&mut w, &mut b, index).await?;
            let (pos, took) = first_move(&mut w, &mut b, &wt, &mut rng, asked).await?;
            stats.pairings.push(took);
            stats.moves += 1;
            opened = Some(pos);
            (wt, bt)
        } else {
            seat(&mut w, &mut b, &mut code).await?
        };
        (w, b, tokens)
    };
    let _ = ready.send(()).await;
    drop(ready);
    // Wait for every game, answering pings meanwhile.
    idle(&mut w, &mut b, async {
        let _ = go.wait_for(Option::is_some).await;
    })
    .await?;
    let start = (*go.borrow()).unwrap_or_else(Instant::now);
    let end = start + args.duration;
    let (lo, hi) = args.think_ms;
    let paced = hi > 0;
    // Spread the games' first moves over one think time.
    idle(&mut w, &mut b, tokio::time::sleep(Duration::from_millis(rng.below(hi + 1)))).await?;
    'rooms: loop {
        let (mut pos, mut ply) = match opened.take() {
            Some(pos) => (pos, 1u32),
            None => (
                engine::Position::from_fen(engine::Variant::Chess, engine::fen::STANDARD_START)
                    .map_err(|e| e.to_string())?,
                0u32,
            ),
        };
        loop {
            if Instant::now() >= end || (!paced && ply >= args.plies) {
                break 'rooms;
            }
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.is_insufficient_material() || pos.outcome().is_some() {
                break;
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            let t0 = Instant::now();
            let mut acked = false;
            let mut played =
                one_move(&mut w, &mut b, &tokens, ply, mv.to_string(), &mut acked).await;
            if let Ok(rtt) = played {
                if t0 >= start && t0 < end {
                    stats.rtts.push(rtt);
                    if rtt > SLOW {
                        stats.slow.push((t0 - start).as_secs());
                    }
                }
                stats.moves += 1;
                pos = pos.play(mv).map_err(|e| e.to_string())?;
                ply += 1;
                if paced {
                    let think = lo + rng.below(hi - lo + 1);
                    let until = (Instant::now() + Duration::from_millis(think)).min(end);
                    played =
                        idle(&mut w, &mut b, tokio::time::sleep_until(until)).await.map(|()| 0);
                    acked = false;
                }
            }
            let Err(e) = played else { continue };
            // A dropped connection in a cluster: both players come back through the nodes.
            let (Some(room), true) = (&code, args.addrs.len() > 1) else { return Err(e) };
            let dropped = Instant::now();
            let acked_plies = ply + u32::from(acked);
            // Two players, two devices: each comes back on its own.
            let (white, black) = tokio::join!(
                rejoin_any(&nodes, room, &tokens.0),
                rejoin_any(&nodes, room, &tokens.1)
            );
            let ((nw, _), (nb, moves)) = (white?, black?);
            stats.reconnects.push(u64::try_from(dropped.elapsed().as_micros()).unwrap_or(u64::MAX));
            let kept = u32::try_from(moves.len()).unwrap_or(u32::MAX);
            stats.lost += u64::from(acked_plies.saturating_sub(kept));
            (w, b) = (nw, nb);
            pos = replay(&moves)?;
            ply = kept;
        }
        if !paced {
            break;
        }
        // The game is over: both leave by sitting down in a fresh room.
        if args.lobby {
            if Instant::now() >= end {
                break;
            }
            let (wt, bt, asked) = lobby_seat(&mut w, &mut b, index).await?;
            let (pos, took) = first_move(&mut w, &mut b, &wt, &mut rng, asked).await?;
            stats.pairings.push(took);
            stats.moves += 1;
            opened = Some(pos);
            tokens = (wt, bt);
        } else {
            tokens = seat(&mut w, &mut b, &mut code).await?;
        }
    }
    let _ = w.close(None).await;
    let _ = b.close(None).await;
    Ok(stats)
}

/// Everything the clients measured.
#[derive(Default)]
struct Totals {
    ok: usize,
    failed: usize,
    moves: u64,
    rtts: Vec<u64>,
    slow: Vec<u64>,
    pairings: Vec<u64>,
    reconnects: Vec<u64>,
    lost: u64,
    first_error: Option<String>,
    /// CPU seconds used and spent waiting for a CPU by the client processes in the window.
    client_cpu: Option<(f64, f64)>,
}

/// Runs `count` games starting at `first`; calls `on_ready` once all are seated and waits for
/// `go` to open the window.
async fn run_clients(
    addr: SocketAddr,
    first: usize,
    count: usize,
    args: &Arc<Args>,
    go_rx: Go,
) -> (tokio::sync::mpsc::Receiver<()>, Vec<tokio::task::JoinHandle<Result<GameStats, Failure>>>) {
    let setup = Arc::new(Semaphore::new(128));
    let (ready_tx, ready_rx) = tokio::sync::mpsc::channel(count.max(1));
    let tasks = (first..first + count)
        .map(|i| {
            tokio::spawn(game(
                addr,
                i,
                args.clone(),
                setup.clone(),
                ready_tx.clone(),
                go_rx.clone(),
            ))
        })
        .collect();
    (ready_rx, tasks)
}

/// Waits until every game said ready or ended (a failed setup still counts, as ended).
async fn all_ready(mut ready: tokio::sync::mpsc::Receiver<()>) {
    while ready.recv().await.is_some() {}
}

async fn collect(tasks: Vec<tokio::task::JoinHandle<Result<GameStats, Failure>>>) -> Totals {
    let mut t = Totals::default();
    for task in tasks {
        match task.await {
            Ok(Ok(s)) => {
                t.ok += 1;
                t.moves += s.moves;
                t.rtts.extend(s.rtts);
                t.slow.extend(s.slow);
                t.pairings.extend(s.pairings);
                t.reconnects.extend(s.reconnects);
                t.lost += s.lost;
            }
            Ok(Err(e)) => {
                t.failed += 1;
                t.first_error.get_or_insert(e);
            }
            Err(e) => {
                t.failed += 1;
                t.first_error.get_or_insert(e.to_string());
            }
        }
    }
    t
}

/// Child mode: games `[first, first + games)`; prints `ready`, waits for a line on stdin,
/// plays, then prints its totals.
async fn worker(args: Arc<Args>, first: usize, addr: SocketAddr) -> ExitCode {
    let (go_tx, go_rx) = watch::channel(None);
    let (ready, tasks) = run_clients(addr, first, args.games, &args, go_rx).await;
    all_ready(ready).await;
    println!("ready");
    let _ = std::io::stdout().flush();
    let line = tokio::task::spawn_blocking(|| {
        let mut s = String::new();
        let _ = std::io::stdin().lock().read_line(&mut s);
    });
    let _ = line.await;
    let before = cpu_seconds("self").zip(run_queue_wait("self"));
    let _ = go_tx.send(Some(Instant::now()));
    let t = collect(tasks).await;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "result {} {} {}", t.ok, t.failed, t.moves);
    if let Some((cpu, wait)) = usage_since(Some("self"), before) {
        let _ = writeln!(out, "cpu {cpu} {wait}");
    }
    if let Some(e) = t.first_error {
        let _ = writeln!(out, "error {}", e.replace('\n', " "));
    }
    // One line per list: its name (and for reconnects the lost moves), then the numbers.
    let lines = [
        ("rtts".to_owned(), t.rtts),
        ("slow".to_owned(), t.slow),
        ("pairings".to_owned(), t.pairings),
        (format!("reconnects {}", t.lost), t.reconnects),
    ];
    for (mut line, values) in lines {
        for r in values {
            line.push(' ');
            line.push_str(&r.to_string());
        }
        let _ = writeln!(out, "{line}");
    }
    ExitCode::SUCCESS
}

/// Spawns `procs` children over the games, opens the window once all are seated, and merges
/// their totals.
/// Also returns the server's CPU seconds read when the window opened.
async fn run_children(
    args: &Args,
    addr: SocketAddr,
    server_pid: Option<&str>,
) -> Result<(Totals, Option<(f64, f64)>, Instant), String> {
    let exe = std::env::current_exe().map_err(|e| format!("own path: {e}"))?;
    let mut children = Vec::new();
    let per = args.games.div_ceil(args.procs);
    let mut first = 0;
    while first < args.games {
        let n = per.min(args.games - first);
        let (lo, hi) = args.think_ms;
        let mut child = std::process::Command::new(&exe)
            .args(["--worker", &first.to_string(), "--addr", &addr.to_string()])
            .args(if args.addrs.is_empty() {
                Vec::new()
            } else {
                let all: Vec<String> = args.addrs.iter().map(ToString::to_string).collect();
                vec!["--addrs".to_owned(), all.join(",")]
            })
            .args(["--games", &n.to_string(), "--plies", &args.plies.to_string()])
            .args(["--think", &format!("{lo}-{hi}")])
            .args(["--duration", &args.duration.as_secs().to_string()])
            .args(args.lobby.then_some("--lobby"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn a worker: {e}"))?;
        let stdout = child.stdout.take().ok_or("no worker stdout")?;
        children.push((child, std::io::BufReader::new(stdout)));
        first += n;
    }
    // Each child's first line says it is seated.
    let mut handles = Vec::new();
    for (mut child, mut out) in children {
        handles.push(tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            let _ = out.read_line(&mut line);
            (child.stdin.take(), child, out, line)
        }));
    }
    let mut waiting = Vec::new();
    for h in handles {
        waiting.push(h.await.map_err(|e| e.to_string())?);
    }
    eprintln!("loadgen: all games seated; measuring for {} s", args.duration.as_secs());
    let cpu0 = server_pid.and_then(|p| cpu_seconds(p).zip(run_queue_wait(p)));
    let t0 = Instant::now();
    maharajah_server::metrics::reset();
    for (stdin, _, _, line) in &mut waiting {
        if line.trim() != "ready" {
            return Err(format!("a worker did not get ready: {line:?}"));
        }
        if let Some(s) = stdin {
            let _ = s.write_all(b"go\n");
            let _ = s.flush();
        }
    }
    let mut totals = Totals::default();
    for (_stdin, mut child, out, _) in waiting {
        let lines = tokio::task::spawn_blocking(move || {
            let lines: Vec<String> = out.lines().map_while(Result::ok).collect();
            let _ = child.wait();
            lines
        })
        .await
        .map_err(|e| e.to_string())?;
        for line in lines {
            let mut f = line.split_whitespace();
            match f.next() {
                Some("result") => {
                    let mut n = || f.next().and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
                    totals.ok += n() as usize;
                    totals.failed += n() as usize;
                    totals.moves += n();
                }
                Some("error") => {
                    totals.first_error.get_or_insert(line["error ".len()..].to_owned());
                }
                Some("cpu") => {
                    let mut n = || f.next().and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
                    let (cpu, wait) = (n(), n());
                    let c = totals.client_cpu.get_or_insert((0.0, 0.0));
                    c.0 += cpu;
                    c.1 += wait;
                }
                Some("rtts") => totals.rtts.extend(f.filter_map(|x| x.parse::<u64>().ok())),
                Some("slow") => totals.slow.extend(f.filter_map(|x| x.parse::<u64>().ok())),
                Some("pairings") => {
                    totals.pairings.extend(f.filter_map(|x| x.parse::<u64>().ok()));
                }
                Some("reconnects") => {
                    totals.lost += f.next().and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
                    totals.reconnects.extend(f.filter_map(|x| x.parse::<u64>().ok()));
                }
                _ => {}
            }
        }
    }
    Ok((totals, cpu0, t0))
}

fn proc_field(pid: &str, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with(field)).map(|l| l[field.len()..].trim().to_owned())
}

fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit(')').next()?;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Seconds the process's threads spent waiting for a CPU while runnable (from
/// `/proc/PID/task/*/schedstat`): time lost to other programs and to each other.
fn run_queue_wait(pid: &str) -> Option<f64> {
    let mut ns = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = task.ok()?.path().join("schedstat");
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        ns += text.split_whitespace().nth(1).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    }
    Some(ns as f64 / 1e9)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

/// CPU seconds used and seconds spent waiting for a CPU since `before`.
fn usage_since(pid: Option<&str>, before: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let pid = pid?;
    let (cpu0, wait0) = before?;
    Some((cpu_seconds(pid)? - cpu0, run_queue_wait(pid)? - wait0))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => Arc::new(a),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if let (Some(first), Some(addr)) = (args.worker, args.addr) {
        return worker(args, first, addr).await;
    }
    let (addr, local) = match args.addr {
        Some(a) => (a, None),
        None => {
            let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("bind: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let Ok(addr) = listener.local_addr() else { return ExitCode::FAILURE };
            let config = maharajah_server::Config {
                max_connections_per_ip: usize::MAX,
                messages_per_second: 1_000_000,
                rooms_per_minute_per_ip: u32::MAX,
                // Every simulated player comes from loopback: no per-address room caps.
                waiting_rooms_per_ip: usize::MAX,
                db: args.db.clone(),
                lobby: maharajah_server::lobby::LobbyConfig {
                    request_burst: u32::MAX,
                    requests_per_minute: u32::MAX,
                    challenges_per_address: usize::MAX,
                    requests_per_address_per_minute: u32::MAX,
                    ..maharajah_server::lobby::LobbyConfig::default()
                },
                ..maharajah_server::Config::default()
            };
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let task = tokio::spawn(maharajah_server::run(listener, config, async move {
                let _ = stopped.await;
            }));
            (addr, Some((stop, task)))
        }
    };
    let server_pid = match (&local, args.server_pid) {
        (Some(_), _) => Some("self".to_owned()),
        (None, Some(pid)) => Some(pid.to_string()),
        (None, None) => None,
    };
    let setup_start = Instant::now();
    let (totals, window, cpu) = if args.procs > 1 {
        match run_children(&args, addr, server_pid.as_deref()).await {
            Ok((t, cpu0, t0)) => {
                // The children's window is `duration` long (all games share it).
                let window = args.duration.as_secs_f64().min(t0.elapsed().as_secs_f64());
                (t, window, usage_since(server_pid.as_deref(), cpu0))
            }
            Err(e) => {
                eprintln!("loadgen: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let (go_tx, go_rx) = watch::channel(None);
        let (ready, tasks) = run_clients(addr, 0, args.games, &args, go_rx).await;
        all_ready(ready).await;
        eprintln!(
            "loadgen: all games seated in {:.1} s; measuring",
            setup_start.elapsed().as_secs_f64()
        );
        let cpu0 = server_pid.as_deref().and_then(|p| cpu_seconds(p).zip(run_queue_wait(p)));
        let t0 = Instant::now();
        maharajah_server::metrics::reset();
        let _ = go_tx.send(Some(t0));
        let t = collect(tasks).await;
        let window = if args.think_ms.1 > 0 {
            args.duration.as_secs_f64().min(t0.elapsed().as_secs_f64())
        } else {
            t0.elapsed().as_secs_f64()
        };
        (t, window, usage_since(server_pid.as_deref(), cpu0))
    };
    let mut rtts = totals.rtts;
    rtts.sort_unstable();
    let (lo, hi) = args.think_ms;
    println!("games: {} played, {} failed (of {})", totals.ok, totals.failed, args.games);
    println!("connections: {}", 2 * args.games);
    println!("think time: {lo}-{hi} ms per move; client processes: {}", args.procs);
    println!(
        "moves in the {window:.1} s window: {} = {:.0} moves/s ({} moves in all)",
        rtts.len(),
        rtts.len() as f64 / window.max(1e-9),
        totals.moves
    );
    println!(
        "move round trip: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&rtts, 0.50),
        percentile(&rtts, 0.99),
        percentile(&rtts, 1.0)
    );
    if !totals.slow.is_empty() {
        // Where the slow moves fall: spread out (the machine is short of CPU throughout) or
        // bunched in a few seconds (a stall somewhere).
        let mut by_second = std::collections::BTreeMap::<u64, usize>::new();
        for s in &totals.slow {
            *by_second.entry(*s).or_default() += 1;
        }
        let counts: Vec<String> = by_second.iter().map(|(s, n)| format!("{s}s:{n}")).collect();
        println!("moves over {} ms by second of the window: {}", SLOW / 1000, counts.join(" "));
    }
    if args.lobby {
        let mut pairings = totals.pairings;
        pairings.sort_unstable();
        println!(
            "pairing to first move: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms over {} pairings",
            percentile(&pairings, 0.50),
            percentile(&pairings, 0.99),
            percentile(&pairings, 1.0),
            pairings.len()
        );
    }
    match &server_pid {
        Some(pid) => {
            let rss = proc_field(pid, "VmHWM:").unwrap_or_else(|| "?".into());
            let cpu = cpu.map_or("?".into(), |(c, wait)| {
                format!(
                    "{c:.1} s = {:.0}% of one core, threads waited {wait:.1} s for a CPU",
                    100.0 * c / window
                )
            });
            let whose = if args.procs > 1 || local.is_none() {
                "server only"
            } else {
                "server + clients in one process"
            };
            println!("peak RSS: {rss}; CPU in the window: {cpu} ({whose})");
        }
        None => println!("server RSS and CPU: unknown (pass --server-pid)"),
    }
    if local.is_some() {
        let m = maharajah_server::metrics::move_times();
        println!(
            "server time per move (decoded → ack queued, commit included): p50 {:.2} ms, \
             p99 {:.2} ms, max {:.2} ms over {} moves",
            m.p50_ms, m.p99_ms, m.max_ms, m.count
        );
    }
    if !args.addrs.is_empty() {
        let mut reconnects = totals.reconnects;
        reconnects.sort_unstable();
        println!(
            "cluster of {} nodes: {} reconnects, reconnect to resumed p50 {:.0} ms, p99 {:.0} ms, \
             max {:.0} ms; acknowledged moves lost: {}",
            args.addrs.len(),
            reconnects.len(),
            percentile(&reconnects, 0.50),
            percentile(&reconnects, 0.99),
            percentile(&reconnects, 1.0),
            totals.lost
        );
    }
    if let Some((cpu, wait)) = totals.client_cpu {
        println!(
            "client processes: CPU {cpu:.1} s = {:.0}% of one core, waited {wait:.1} s for a CPU",
            100.0 * cpu / window
        );
    }
    println!(
        "load average at the end: {}",
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim()
    );
    if let Some(e) = totals.first_error {
        println!("first failure: {e}");
    }
    if let Some((stop, task)) = local {
        let _ = stop.send(());
        let _ = task.await;
    }
    if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
