//! `maharajah-netbot URL CODE`: a scripted second player for end-to-end tests of the app.
//!
//! Joins the room `CODE` on the server at `URL` with [`maharajah_net::Connection`], then reads
//! commands from standard input, one per line, and answers each on standard output:
//!
//! - `play UCI`, `pause`, `resume`, `resign`, `offer_draw`, `decline_draw`, `drop` (the link
//!   drops and comes back by itself), `army TEXT` (hidden setup: commit now, reveal when both
//!   armies are locked in), `quit`;
//! - answers `ok CMD` or `err CMD CODE MESSAGE`.
//!
//! Room events are printed as they come: `seated COLOR CODE`, `started`, `moved PLY UCI`,
//! `paused BY`, `resumed`, `draw_offered BY`, `over OUTCOME REASON`, `disconnected`, `rejoined`.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use maharajah_net::{ConnectOptions, Connection, HiddenSetup, NetError, NetEvent};
use maharajah_protocol::{AccessCode, RoomEvent};
use tokio::io::{AsyncBufReadExt, BufReader};

fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn failed(cmd: &str, e: &NetError) -> String {
    let code = match e {
        NetError::Server { code, .. } => format!("{code:?}"),
        other => format!("{:?}", std::mem::discriminant(other)),
    };
    format!("err {cmd} {code} {e}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, code] = args.as_slice() else {
        eprintln!("usage: maharajah-netbot URL CODE");
        return ExitCode::from(2);
    };
    let code: AccessCode = match code.parse() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::from(2);
        }
    };
    let options = ConnectOptions { client_name: "maharajah-netbot".into(), ..Default::default() };
    let (conn, mut events) = match Connection::connect(url, options).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::FAILURE;
        }
    };
    let seat = match conn.join_room(code).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::FAILURE;
        }
    };
    say(&format!("seated {:?} {}", seat.seat, seat.code.as_str()).to_lowercase());

    // The hidden setup once `army` is given, and every room event seen before it (the app may
    // have committed first).
    let hidden: Arc<Mutex<(Option<HiddenSetup>, Vec<RoomEvent>)>> =
        Arc::new(Mutex::new((None, Vec::new())));
    let watcher = {
        let hidden = hidden.clone();
        let conn = conn.clone();
        tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                let line = match &e {
                    NetEvent::Room { event, .. } => match event {
                        RoomEvent::GameStarted { .. } => Some("started".to_owned()),
                        RoomEvent::Moved { ply, uci, .. } => Some(format!("moved {ply} {uci}")),
                        RoomEvent::Paused { pause, .. } => Some(format!("paused {:?}", pause.by)),
                        RoomEvent::Resumed { .. } => Some("resumed".to_owned()),
                        RoomEvent::DrawOffered { by } => Some(format!("draw_offered {by:?}")),
                        RoomEvent::GameOver { result, .. } => {
                            Some(format!("over {:?} {:?}", result.outcome, result.reason))
                        }
                        _ => None,
                    },
                    NetEvent::Disconnected { .. } => Some("disconnected".to_owned()),
                    NetEvent::Rejoined { .. } => Some("rejoined".to_owned()),
                    NetEvent::Closed(reason) => Some(format!("closed {reason:?}")),
                    _ => None,
                };
                if let Some(line) = line {
                    say(&line.to_lowercase());
                }
                // Hidden setup: reveal once both commitments are fixed.
                let opening = {
                    let mut guard = hidden.lock().unwrap_or_else(|p| p.into_inner());
                    if let NetEvent::Room { event, .. } = &e {
                        guard.1.push(event.clone());
                    }
                    match (guard.0.as_mut(), &e) {
                        (Some(h), NetEvent::Room { event, .. }) => {
                            if let Err(err) = h.observe(event) {
                                say(&format!("err reveal_check {err}"));
                            }
                            match h.reveal() {
                                Ok(opening) => {
                                    h.mark_revealed();
                                    guard.0 = None;
                                    Some(opening)
                                }
                                Err(_) => None,
                            }
                        }
                        _ => None,
                    }
                };
                if let Some((army, nonce)) = opening {
                    match conn.reveal(&army, &nonce).await {
                        Ok(()) => say("ok reveal"),
                        Err(e) => say(&failed("reveal", &e)),
                    }
                }
                if matches!(e, NetEvent::Closed(_)) {
                    break;
                }
            }
        })
    };

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = line.trim();
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        let answer = match cmd {
            "" => continue,
            "quit" => break,
            "play" => conn.play(arg).await.map(drop),
            "pause" => conn.pause().await,
            "resume" => conn.resume_play().await,
            "resign" => conn.resign().await,
            "offer_draw" => conn.offer_draw().await,
            "decline_draw" => conn.decline_draw().await,
            "drop" => {
                conn.drop_link();
                Ok(())
            }
            "army" => match HiddenSetup::new(seat.seat, arg) {
                Ok(mut setup) => {
                    let commitment = setup.commitment().to_owned();
                    {
                        let mut guard = hidden.lock().unwrap_or_else(|p| p.into_inner());
                        for event in &guard.1 {
                            let _ = setup.observe(event);
                        }
                        guard.0 = Some(setup);
                    }
                    conn.commit(&commitment).await
                }
                Err(e) => {
                    say(&format!("err army invalid {e}"));
                    continue;
                }
            },
            other => {
                say(&format!("err {other} unknown_command"));
                continue;
            }
        };
        match answer {
            Ok(()) => say(&format!("ok {cmd}")),
            Err(e) => say(&failed(cmd, &e)),
        }
    }
    conn.close().await;
    watcher.abort();
    ExitCode::SUCCESS
}
