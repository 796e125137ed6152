//! `maharajah-netbot URL CODE`: a scripted second player for end-to-end tests of the app.
//! `maharajah-netbot URL --lobby NAME`: the same player in the lobby, identified with a fresh key
//! and registered as `NAME`.
//!
//! Joins the room `CODE` on the server at `URL` with [`maharajah_net::Connection`] (or, in the
//! lobby, subscribes to the open challenges), then reads commands from standard input, one per
//! line, and answers each on standard output:
//!
//! - `play UCI`, `pause`, `resume`, `resign`, `offer_draw`, `decline_draw`, `drop` (the link
//!   drops and comes back by itself), `army TEXT` (hidden setup: commit now, reveal when both
//!   armies are locked in), `quit`;
//! - in the lobby: `challenge GAME CLOCK rated|casual COLOR` (e.g. `challenge chess 5+0 rated
//!   black`; `none` for no clock), `accept ID`, `rematch` (after the end: colours swapped),
//!   `table PEOPLE WAIT TURN rated|casual` (a Chaturaji table for 2–4 people, CPUs after `WAIT`
//!   seconds, `TURN` seconds a turn or `none`; the bot's own device id sits at it),
//!   `seek GAME CLOCK rated|casual` (quick pairing, e.g. `seek chess 5+3 casual`),
//!   `seek_table WAIT TURN rated|casual` (quick pairing for a Chaturaji table, CPUs after `WAIT`
//!   seconds);
//! - answers `ok CMD` or `err CMD CODE MESSAGE`.
//!
//! Room events are printed as they come: `seated COLOR CODE`, `started`, `moved PLY UCI`,
//! `paused BY`, `resumed`, `draw_offered BY`, `over OUTCOME REASON`, `ratings WHITE_BEFORE
//! WHITE_AFTER BLACK_BEFORE BLACK_AFTER`, `disconnected`, `rejoined`; in the lobby also
//! `named NAME`, `lobby_added ID GAME CREATOR`, `challenge_created ID`, `matched CODE`,
//! `lobby_updated ID JOINED` (a Chaturaji table's people).

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use maharajah_net::{ConnectOptions, Connection, HiddenSetup, NetError, NetEvent};
use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::{
    AccessCode, ChallengeOptions, ColorChoice, LobbyGame, LobbyMsg, RoomEvent, TimeControl,
};
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

/// `chess 5+0 rated black` as challenge options.
fn challenge_options(arg: &str) -> Option<ChallengeOptions> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let [game, clock, kind, color] = words.as_slice() else { return None };
    let game: LobbyGame = serde_json::from_value(serde_json::Value::from(*game)).ok()?;
    let color: ColorChoice = serde_json::from_value(serde_json::Value::from(*color)).ok()?;
    let time_control = match *clock {
        "none" => None,
        text => {
            let (minutes, increment) = text.split_once('+')?;
            Some(TimeControl {
                base_ms: minutes.parse::<u64>().ok()? * 60_000,
                increment_ms: increment.parse::<u64>().ok()? * 1000,
            })
        }
    };
    let rated = match *kind {
        "rated" => true,
        "casual" => false,
        _ => return None,
    };
    Some(ChallengeOptions { game, time_control, rated, color, table: None })
}

/// `3 5 30 casual` as a Chaturaji table's challenge options.
fn table_options(arg: &str) -> Option<ChallengeOptions> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let [people, wait, turn, kind] = words.as_slice() else { return None };
    let time_control = match *turn {
        "none" => None,
        s => Some(TimeControl { base_ms: 0, increment_ms: s.parse::<u64>().ok()? * 1000 }),
    };
    Some(ChallengeOptions {
        game: LobbyGame::Chaturaji,
        time_control,
        rated: *kind == "rated",
        color: ColorChoice::Random,
        table: Some(maharajah_protocol::TableOptions {
            people: people.parse().ok()?,
            cpu_after_s: wait.parse().ok()?,
        }),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (url, room, name) = match args.as_slice() {
        [url, flag, name] if flag == "--lobby" => (url, None, Some(name)),
        [url, code] => match code.parse::<AccessCode>() {
            Ok(c) => (url, Some(c), None),
            Err(e) => {
                eprintln!("maharajah-netbot: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: maharajah-netbot URL CODE | maharajah-netbot URL --lobby NAME");
            return ExitCode::from(2);
        }
    };
    let identity = name.map(|_| PlayerSecret::from_bytes(rand::random()));
    let options =
        ConnectOptions { client_name: "maharajah-netbot".into(), identity, ..Default::default() };
    let (conn, mut events) = match Connection::connect(url, options).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(code) = room {
        match conn.join_room(code).await {
            Ok(seat) => {
                say(&format!("seated {:?} {}", seat.seat, seat.code.as_str()).to_lowercase());
            }
            Err(e) => {
                eprintln!("maharajah-netbot: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(name) = name {
        if let Err(e) = conn.register_name(name).await {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::FAILURE;
        }
        say(&format!("named {name}"));
        if let Err(e) = conn.lobby_subscribe(Vec::new()).await {
            eprintln!("maharajah-netbot: {e}");
            return ExitCode::FAILURE;
        }
    }

    // The hidden setup once `army` is given, and every room event seen before it (the app may
    // have committed first).
    let hidden: Arc<Mutex<(Option<HiddenSetup>, Vec<RoomEvent>)>> =
        Arc::new(Mutex::new((None, Vec::new())));
    let watcher = {
        let hidden = hidden.clone();
        let conn = conn.clone();
        let name = name.cloned();
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
                        RoomEvent::RatingsChanged { ratings } => Some(format!(
                            "ratings {} {} {} {}",
                            ratings.white.before,
                            ratings.white.after,
                            ratings.black.before,
                            ratings.black.after
                        )),
                        _ => None,
                    },
                    NetEvent::Seated(seat) if name.is_some() => {
                        Some(format!("seated {:?} {}", seat.seat, seat.code.as_str()))
                    }
                    NetEvent::Lobby(LobbyMsg::LobbyAdded { challenge }) => Some(format!(
                        "lobby_added {} {:?} {}",
                        challenge.id,
                        challenge.game,
                        challenge.creator.as_deref().unwrap_or("-")
                    )),
                    NetEvent::Lobby(LobbyMsg::ChallengeCreated { challenge }) => {
                        Some(format!("challenge_created {}", challenge.id))
                    }
                    NetEvent::Lobby(LobbyMsg::LobbyMatched { code, .. }) => {
                        Some(format!("matched {}", code.as_str()))
                    }
                    NetEvent::Lobby(LobbyMsg::LobbyUpdated { challenge }) => Some(format!(
                        "lobby_updated {} {}",
                        challenge.id,
                        challenge.table.map_or(0, |t| t.joined)
                    )),
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
            "challenge" => match challenge_options(arg) {
                Some(options) => conn.create_challenge(options).await,
                None => {
                    say("err challenge usage GAME CLOCK rated|casual COLOR");
                    continue;
                }
            },
            "table" => match table_options(arg) {
                Some(options) => {
                    let device = format!("maharajah-netbot-{}", std::process::id());
                    conn.create_table(options, device).await
                }
                None => {
                    say("err table usage PEOPLE WAIT TURN rated|casual");
                    continue;
                }
            },
            "seek" => match challenge_options(&format!("{arg} random")) {
                Some(ChallengeOptions { game, time_control: Some(tc), rated, .. }) => {
                    conn.play_now(game, tc, rated).await
                }
                _ => {
                    say("err seek usage GAME CLOCK rated|casual");
                    continue;
                }
            },
            "seek_table" => match table_options(&format!("2 {arg}")) {
                Some(ChallengeOptions { time_control, rated, table: Some(table), .. }) => {
                    let device = format!("maharajah-netbot-{}", std::process::id());
                    let tc = time_control.unwrap_or(TimeControl { base_ms: 0, increment_ms: 0 });
                    conn.play_now_table(tc, rated, table.cpu_after_s, device).await
                }
                _ => {
                    say("err seek_table usage WAIT TURN rated|casual");
                    continue;
                }
            },
            "rematch" => conn.rematch().await,
            "accept" => match arg.parse() {
                Ok(id) => conn.accept_challenge(id).await.map(drop),
                Err(_) => {
                    say("err accept usage ID");
                    continue;
                }
            },
            "army" => match conn.with_room(|r| r.seat.as_ref().map(|s| s.seat)) {
                None => {
                    say("err army not_seated");
                    continue;
                }
                Some(color) => match HiddenSetup::new(color, arg) {
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
