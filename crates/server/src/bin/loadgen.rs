//! `maharajah-loadgen`: opens N concurrent clocked games over WebSockets, plays legal moves and
//! prints games, moves/s, p50/p99 move round trip, and (for the in-process server) RSS and CPU.
//!
//! ```text
//! maharajah-loadgen [--games N] [--plies P] [--addr HOST:PORT | --db PATH]
//! ```
//!
//! Without `--addr` it starts the server library in this process (in memory, or in SQLite at
//! `--db PATH`; limits lifted), so
//! the RSS and CPU printed are server and clients together. With `--addr` it drives an external
//! server, which must allow that many connections from one address
//! (`--max-connections-per-ip`, `--messages-per-second`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use maharajah_engine as engine;
use maharajah_protocol::{
    decode_server, encode, ClientMsg, Color, RoomEvent, RoomOptions, ServerMsg, TimeControl,
    Variant, PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Failure = String;

struct Args {
    games: usize,
    plies: u32,
    addr: Option<SocketAddr>,
    db: Option<std::path::PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { games: 100, plies: 40, addr: None, db: None };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--games" => {
                a.games = value("--games")?.parse().map_err(|e| format!("--games: {e}"))?
            }
            "--plies" => {
                a.plies = value("--plies")?.parse().map_err(|e| format!("--plies: {e}"))?
            }
            "--addr" => {
                a.addr = Some(value("--addr")?.parse().map_err(|e| format!("--addr: {e}"))?)
            }
            "--db" => a.db = Some(value("--db")?.into()),
            _ => {
                return Err("usage: maharajah-loadgen [--games N] [--plies P] \
                            [--addr HOST:PORT | --db PATH]"
                    .into())
            }
        }
    }
    Ok(a)
}

async fn send(ws: &mut Ws, msg: &ClientMsg) -> Result<(), Failure> {
    ws.send(Message::text(encode(msg))).await.map_err(|e| format!("send: {e}"))
}

async fn recv_until(ws: &mut Ws, f: impl Fn(&ServerMsg) -> bool) -> Result<ServerMsg, Failure> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), ws.next())
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

async fn connect(addr: SocketAddr) -> Result<Ws, Failure> {
    let (mut ws, _) =
        tokio_tungstenite::connect_async_with_config(format!("ws://{addr}"), None, true)
            .await
            .map_err(|e| format!("connect: {e}"))?;
    send(&mut ws, &ClientMsg::Hello { version: PROTOCOL_VERSION, client: "loadgen".into() })
        .await?;
    recv_until(&mut ws, |m| matches!(m, ServerMsg::Welcome { .. })).await?;
    Ok(ws)
}

/// One game: two connections; returns the mover's send→ack times in microseconds.
async fn game(addr: SocketAddr, index: usize, plies: u32) -> Result<Vec<u64>, Failure> {
    let mut w = connect(addr).await?;
    let options = RoomOptions {
        variant: Variant::Chess,
        time_control: Some(TimeControl { base_ms: 600_000, increment_ms: 0 }),
        hidden_setup: false,
        color: Some(Color::White),
    };
    send(&mut w, &ClientMsg::CreateRoom { options }).await?;
    let ServerMsg::Seated { code, token: wt, .. } =
        recv_until(&mut w, |m| matches!(m, ServerMsg::Seated { .. })).await?
    else {
        return Err("no seat".into());
    };
    let mut b = connect(addr).await?;
    send(&mut b, &ClientMsg::JoinRoom { code }).await?;
    let ServerMsg::Seated { token: bt, .. } =
        recv_until(&mut b, |m| matches!(m, ServerMsg::Seated { .. })).await?
    else {
        return Err("no seat".into());
    };
    let mut pos = engine::Position::from_fen(engine::Variant::Chess, engine::fen::STANDARD_START)
        .map_err(|e| e.to_string())?;
    let mut rtts = Vec::with_capacity(plies as usize);
    let mut seed = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for ply in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.is_insufficient_material() {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mv = moves[(seed % moves.len() as u64) as usize];
        let (mover, other, token) =
            if ply % 2 == 0 { (&mut w, &mut b, &wt) } else { (&mut b, &mut w, &bt) };
        let t0 = Instant::now();
        send(mover, &ClientMsg::Move { token: token.clone(), ply, uci: mv.to_string() }).await?;
        recv_until(mover, |m| matches!(m, ServerMsg::MoveAck { .. })).await?;
        rtts.push(u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX));
        recv_until(other, |m| {
            matches!(m, ServerMsg::Event { event: RoomEvent::Moved { ply: p, .. }, .. } if *p == ply)
        })
        .await?;
        pos = pos.play(mv).map_err(|e| e.to_string())?;
        if pos.outcome().is_some() {
            break;
        }
    }
    let _ = w.close(None).await;
    let _ = b.close(None).await;
    Ok(rtts)
}

fn proc_self(field: &str) -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with(field)).map(|l| l[field.len()..].trim().to_owned())
}

fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit(')').next()?;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
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
                db: args.db.clone(),
                ..maharajah_server::Config::default()
            };
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let task = tokio::spawn(maharajah_server::run(listener, config, async move {
                let _ = stopped.await;
            }));
            (addr, Some((stop, task)))
        }
    };
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let tasks: Vec<_> = (0..args.games).map(|i| tokio::spawn(game(addr, i, args.plies))).collect();
    let mut rtts = Vec::new();
    let (mut ok, mut failed) = (0usize, 0usize);
    let mut first_error = None;
    for t in tasks {
        match t.await {
            Ok(Ok(r)) => {
                ok += 1;
                rtts.extend(r);
            }
            Ok(Err(e)) => {
                failed += 1;
                first_error.get_or_insert(e);
            }
            Err(e) => {
                failed += 1;
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let rss = proc_self("VmHWM:").unwrap_or_else(|| "?".into());
    let cpu = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => format!("{:.1} s", b - a),
        _ => "?".into(),
    };
    rtts.sort_unstable();
    println!("games: {ok} finished, {failed} failed (of {})", args.games);
    println!("connections: {}", 2 * args.games);
    println!(
        "moves: {} in {elapsed:.2} s = {:.0} moves/s",
        rtts.len(),
        rtts.len() as f64 / elapsed
    );
    println!(
        "move round trip: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&rtts, 0.50),
        percentile(&rtts, 0.99),
        percentile(&rtts, 1.0)
    );
    let whose = if local.is_some() { "server + clients in this process" } else { "clients only" };
    println!("peak RSS: {rss}; CPU: {cpu} ({whose})");
    if let Some(e) = first_error {
        println!("first failure: {e}");
    }
    if let Some((stop, task)) = local {
        let _ = stop.send(());
        let _ = task.await;
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
