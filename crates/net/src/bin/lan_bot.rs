//! A LAN opponent for end-to-end tests of the app: hosts a chess game on 127.0.0.1 with the real
//! [`LanHost`] (or joins one by its join code) and answers every move with the next of a fixed
//! list of Black knight moves. Prints one line of JSON once ready —
//! `{"address":"127.0.0.1:PORT","room":"ROOM","join_code":"CODE"}` when hosting, `{"seat":"black"}`
//! when joined — then a line per move it sees (`{"moved":"e2e4"}`), and exits when its standard
//! input closes.
//!
//! ```text
//! maharajah-lan-bot [--name NAME] [--incompatible]   # host
//! maharajah-lan-bot --join JOIN_CODE                 # guest
//! maharajah-lan-bot --chaturaji [--name NAME]        # host a Chaturaji table
//! ```
//!
//! `--chaturaji` hosts a Chaturaji table (Red and Blue people, Yellow and Green CPU) on the
//! embedded server ([`LanServer`]), takes Red, advertises the table (`variant=chaturaji`, one open
//! seat) and then lets its seat go, so the room's CPU plays Red: the app joins as Blue and plays
//! against three CPU-played seats.
//!
//! A host advertises its game over mDNS on loopback; `--incompatible` also advertises a host of a
//! future protocol version (greyed in the app's list). Hosting refuses to run where any network
//! interface besides `lo` exists: mDNS only ever runs in a private namespace (`unshare -n`).

use std::io::{BufRead, Write};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use maharajah_net::client::{ConnectOptions, Connection, NetEvent};
use maharajah_net::discovery::{Scope, SERVICE_TYPE};
use maharajah_net::host::{self, JoinCode, LanHost, LanHostOptions, LanServer};
use maharajah_protocol::{Color, RoomEvent, RoomOptions, Variant};
use tokio::sync::mpsc;

/// Black's answers: knight moves that stay legal whatever White plays in a short test game.
const ANSWERS: [&str; 8] = ["g8f6", "f6g8", "b8c6", "c6b8", "g8f6", "f6g8", "b8c6", "c6b8"];

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn fail(message: &str) -> ! {
    eprintln!("maharajah-lan-bot: {message}");
    std::process::exit(2)
}

/// True when this process's network namespace has an interface besides loopback, i.e. mDNS here
/// could reach a real network (a private namespace made by `unshare -n` has only `lo`).
fn in_machine_namespace() -> bool {
    match std::fs::read_to_string("/proc/self/net/dev") {
        // Two header lines, then one line per interface: "  name: counters…".
        Ok(dev) => {
            dev.lines().skip(2).filter_map(|l| l.split(':').next()).any(|name| name.trim() != "lo")
        }
        // Cannot tell: assume the worst.
        Err(_) => true,
    }
}

/// Answers each White move with the next answer until the connection ends.
async fn play_black(conn: Connection, mut events: mpsc::UnboundedReceiver<NetEvent>) {
    let mut answers = ANSWERS.iter();
    while let Some(e) = events.recv().await {
        match e {
            NetEvent::Room { event: RoomEvent::Moved { ply, uci, .. }, .. } => {
                say(&format!("{{\"moved\":\"{uci}\"}}"));
                if ply % 2 == 0 {
                    if let Some(answer) = answers.next() {
                        if let Err(e) = conn.play(answer).await {
                            eprintln!("maharajah-lan-bot: {answer} refused: {e}");
                        }
                    }
                }
            }
            NetEvent::Closed(reason) => {
                eprintln!("maharajah-lan-bot: connection closed: {reason:?}");
                break;
            }
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut name = "Bot".to_owned();
    let (mut incompatible, mut join, mut chaturaji) = (false, None, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--name" => name = it.next().cloned().unwrap_or_else(|| fail("--name needs a value")),
            "--incompatible" => incompatible = true,
            "--chaturaji" => chaturaji = true,
            "--join" => {
                join = Some(it.next().cloned().unwrap_or_else(|| fail("--join needs a code")))
            }
            other => fail(&format!("unknown argument {other:?}")),
        }
    }
    if join.is_none() && in_machine_namespace() {
        fail("hosting advertises over mDNS, which runs only in a private network namespace with nothing but lo (unshare -n); refusing");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("no tokio runtime: {e}")));
    runtime.block_on(async move {
        // Ends the program when standard input closes (the test is over).
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                if line.is_err() {
                    break;
                }
            }
        });
        if let Some(code) = join {
            let code: JoinCode = code.parse().unwrap_or_else(|e| fail(&format!("{e}")));
            let (conn, events, seat) = host::join(
                std::net::SocketAddr::V4(code.addr),
                code.room,
                ConnectOptions::default(),
            )
            .await
            .unwrap_or_else(|e| fail(&format!("cannot join: {e}")));
            let color = if seat.seat == Color::White { "white" } else { "black" };
            say(&format!("{{\"seat\":\"{color}\"}}"));
            tokio::select! {
                () = play_black(conn.clone(), events) => {}
                _ = stdin_closed => {}
            }
            conn.close().await;
            return;
        }
        if chaturaji {
            host_chaturaji(name, stdin_closed).await;
            return;
        }
        let mut options = LanHostOptions::new(
            name,
            RoomOptions {
                variant: Variant::Chess,
                time_control: None,
                hidden_setup: false,
                color: Some(Color::Black),
            },
        );
        options.bind = IpAddr::V4(Ipv4Addr::LOCALHOST);
        options.lan_address = Some(Ipv4Addr::LOCALHOST);
        options.scope = Scope::LoopbackOnly;
        let (mut lan_host, conn, events) =
            LanHost::start(options).await.unwrap_or_else(|e| fail(&format!("cannot host: {e}")));
        let future = incompatible.then(advertise_future);
        let code = lan_host.join_code().map(ToString::to_string).unwrap_or_default();
        say(&format!(
            "{{\"address\":\"{}\",\"room\":\"{}\",\"join_code\":\"{code}\"}}",
            lan_host.addr(),
            lan_host.seat().code
        ));
        tokio::select! {
            () = play_black(conn.clone(), events) => {}
            _ = stdin_closed => {}
        }
        conn.close().await;
        lan_host.stop().await;
        if let Some(d) = future {
            let _ = d.shutdown();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

/// Hosts a Chaturaji table until standard input closes (see the module's documentation).
async fn host_chaturaji(name: String, stdin_closed: tokio::task::JoinHandle<()>) {
    use maharajah_chaturaji::cpu::Level;
    use maharajah_chaturaji::settings::Player;
    use maharajah_chaturaji::Settings;
    use maharajah_net::chaturaji::ChaturajiClient;
    use maharajah_net::discovery::{Advertiser, HostAd};

    let mut server = LanServer::start(IpAddr::V4(Ipv4Addr::LOCALHOST), Some(Ipv4Addr::LOCALHOST))
        .await
        .unwrap_or_else(|e| fail(&format!("cannot listen: {e}")));
    let (client, _events) = ChaturajiClient::connect(
        &server.local_url(),
        ConnectOptions::default(),
        "maharajah-lan-bot-table",
    )
    .await
    .unwrap_or_else(|e| fail(&format!("cannot connect to the embedded server: {e}")));
    let mut settings = Settings::default();
    settings.players.red = Player::Person;
    settings.players.blue = Player::Person;
    settings.players.yellow = Player::Cpu { level: Level::Random };
    settings.players.green = Player::Cpu { level: Level::Random };
    let seat = client
        .create_table(settings, Some(Level::Random))
        .await
        .unwrap_or_else(|e| fail(&format!("cannot create the table: {e}")));
    let ad = HostAd {
        display_name: name,
        variant: Variant::Chess,
        chaturaji: true,
        hidden_setup: false,
        open_seats: 1,
        code: seat.code.clone(),
        port: server.addr().port(),
        addresses: vec![Ipv4Addr::LOCALHOST],
    };
    let advertiser = Advertiser::start(ad, Scope::LoopbackOnly)
        .unwrap_or_else(|e| fail(&format!("cannot advertise: {e}")));
    let code = server.join_code(seat.code.clone()).map(|c| c.to_string()).unwrap_or_default();
    say(&format!(
        "{{\"address\":\"{}\",\"room\":\"{}\",\"join_code\":\"{code}\"}}",
        server.addr(),
        seat.code
    ));
    // Red's person leaves: the room's CPU plays Red from now on.
    client.close().await;
    let _ = stdin_closed.await;
    let _ = tokio::task::spawn_blocking(move || advertiser.shutdown()).await;
    server.stop().await;
}

/// Advertises a host of protocol 99 on loopback (the app greys it out with the reason).
fn advertise_future() -> mdns_sd::ServiceDaemon {
    let run = || -> Result<mdns_sd::ServiceDaemon, mdns_sd::Error> {
        let d = mdns_sd::ServiceDaemon::new()?;
        d.disable_interface(mdns_sd::IfKind::All)?;
        d.enable_interface(mdns_sd::IfKind::LoopbackV4)?;
        let txt: std::collections::HashMap<String, String> =
            [("pv", "99"), ("name", "Future tablet"), ("code", "ABCD2345"), ("seats", "1")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        let mut info = mdns_sd::ServiceInfo::new(
            SERVICE_TYPE,
            "future-tablet",
            "future-tablet.local.",
            "127.0.0.1",
            9,
            txt,
        )?;
        info.set_requires_probe(false);
        d.register(info)?;
        Ok(d)
    };
    run().unwrap_or_else(|e| fail(&format!("cannot advertise the incompatible host: {e}")))
}
