//! LAN benchmark: time from "host a game" to the host being listed on the guest, and move round
//! trips, between two private network namespaces joined by a veth pair (Linux, root). Nothing
//! leaves the machine: both namespaces live and die with this process's threads.
//!
//! ```text
//! cargo run --release -p maharajah-net --example maharajah-lan-bench -- [ROUNDS]
//! ```

use std::net::{IpAddr, Ipv4Addr};
use std::sync::mpsc as sync_mpsc;
use std::time::{Duration, Instant};

use maharajah_net::client::{ConnectOptions, NetEvent};
use maharajah_net::discovery::{Browser, HostEvent, Scope};
use maharajah_net::host::{self, LanHost, LanHostOptions};
use maharajah_protocol::{Color, Phase, RoomEvent, RoomOptions, Variant};
use tokio::sync::mpsc;

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("maharajah-lan-bench needs Linux network namespaces");
}

/// Knight shuffles: 12 plies without reaching a fivefold repetition.
const MOVES: [&str; 12] = [
    "g1f3", "g8f6", "f3g1", "f6g8", "b1c3", "b8c6", "c3b1", "c6b8", "g1f3", "g8f6", "f3g1", "f6g8",
];
const WAIT: Duration = Duration::from_secs(15);

type Events = mpsc::UnboundedReceiver<NetEvent>;

async fn until_moved(events: &mut Events, ply: u32) {
    let wait = async {
        while let Some(e) = events.recv().await {
            if matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: p, .. }, .. } if p == ply)
            {
                return;
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("the move arrives");
}

/// One round on the host: start hosting, report the start instant, play White's moves.
async fn host_round(started: &sync_mpsc::Sender<Instant>, done: &sync_mpsc::Receiver<()>) {
    let mut options = LanHostOptions::new(
        "Bench host",
        RoomOptions {
            variant: Variant::Chess,
            time_control: None,
            hidden_setup: false,
            color: Some(Color::White),
        },
    );
    let ip = Ipv4Addr::new(10, 200, 0, 1);
    options.bind = IpAddr::V4(ip);
    options.lan_address = Some(ip);
    let t0 = Instant::now();
    let (mut lan_host, conn, mut events) = LanHost::start(options).await.expect("hosting starts");
    started.send(t0).expect("the guest listens");
    let wait = async {
        while conn.room().phase() != Some(Phase::Playing) {
            events.recv().await.expect("host events");
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("the guest joins");
    for (ply, uci) in MOVES.iter().enumerate() {
        let ply = ply as u32;
        if ply % 2 == 0 {
            conn.play(uci).await.expect("a legal move");
        } else {
            until_moved(&mut events, ply).await;
        }
    }
    done.recv_timeout(WAIT).expect("the guest finishes its round");
    conn.close().await;
    lan_host.stop().await;
}

struct GuestRound {
    visible: Duration,
    acks: Vec<Duration>,
    replies: Vec<Duration>,
    pings: Vec<Duration>,
}

async fn guest_round(browser: &mut Browser, started: &sync_mpsc::Receiver<Instant>) -> GuestRound {
    let found = browser
        .wait_for(WAIT, |h| h.display_name == "Bench host" && h.open_seats == 1)
        .await
        .expect("the host appears");
    let seen_at = Instant::now();
    let t0 = started.recv_timeout(WAIT).expect("the host started");
    let visible = seen_at.saturating_duration_since(t0);
    let address = found.address.expect("an IPv4 address");
    let code = found.code.clone().expect("a room code");
    let (conn, mut events, _) =
        host::join(address, code, ConnectOptions::default()).await.expect("joining");
    let mut acks = Vec::new();
    let mut replies = Vec::new();
    until_moved(&mut events, 0).await;
    for (ply, uci) in MOVES.iter().enumerate() {
        let ply = ply as u32;
        if ply % 2 == 1 {
            let t = Instant::now();
            conn.play(uci).await.expect("a legal move");
            acks.push(t.elapsed());
            if (ply + 1) < MOVES.len() as u32 {
                until_moved(&mut events, ply + 1).await;
                replies.push(t.elapsed());
            }
        }
    }
    let mut pings = Vec::new();
    for _ in 0..20 {
        pings.push(conn.ping().await.expect("pong"));
    }
    conn.close().await;
    let gone = browser.wait_gone(WAIT, &found.fullname).await;
    assert!(gone, "the advertisement is withdrawn once the seat is taken");
    GuestRound { visible, acks, replies, pings }
}

fn stats(name: &str, mut v: Vec<Duration>) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pick = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<44} n={:<4} median {:>8.2} ms   p90 {:>8.2} ms   max {:>8.2} ms",
        v.len(),
        ms(pick(0.5)),
        ms(pick(0.9)),
        ms(pick(1.0))
    );
}

#[cfg(target_os = "linux")]
fn main() {
    use maharajah_testkit::netns;

    let rounds: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let (tid_tx, tid_rx) = sync_mpsc::channel::<i32>();
    let (moved_tx, moved_rx) = sync_mpsc::channel::<()>();
    let (up_tx, up_rx) = sync_mpsc::channel::<()>();
    let (start_tx, start_rx) = sync_mpsc::channel::<Instant>();
    let (round_tx, round_rx) = sync_mpsc::channel::<()>();
    let (done_tx, done_rx) = sync_mpsc::channel::<()>();

    let guest = std::thread::spawn(move || {
        netns::enter_private().expect("a private network namespace (run as root)");
        tid_tx.send(netns::thread_id()).expect("host thread");
        moved_rx.recv_timeout(WAIT).expect("veth end moved");
        netns::veth_up("mg0", "10.200.0.2/24").expect("guest veth up");
        up_tx.send(()).expect("host thread");
        netns::runtime().block_on(async {
            let mut results = Vec::new();
            for _ in 0..rounds {
                let mut browser = Browser::start(Scope::Lan).expect("browsing");
                let wait = async {
                    while let Some(e) = browser.next_event().await {
                        if e == HostEvent::Searching {
                            return;
                        }
                    }
                };
                tokio::time::timeout(WAIT, wait).await.expect("browsing starts");
                round_tx.send(()).expect("host thread");
                results.push(guest_round(&mut browser, &start_rx).await);
                done_tx.send(()).expect("host thread");
                browser.shutdown();
            }
            results
        })
    });
    let host = std::thread::spawn(move || {
        let peer = tid_rx.recv().expect("guest thread id");
        netns::enter_private().expect("a private network namespace (run as root)");
        netns::veth_to("mh0", "10.200.0.1/24", "mg0", peer).expect("veth pair");
        moved_tx.send(()).expect("guest thread");
        up_rx.recv_timeout(WAIT).expect("guest veth up");
        netns::runtime().block_on(async {
            for _ in 0..rounds {
                round_rx.recv_timeout(WAIT).expect("the guest is browsing");
                host_round(&start_tx, &done_rx).await;
            }
        });
    });
    let results = guest.join().expect("guest side");
    host.join().expect("host side");
    println!("maharajah-lan-bench: {rounds} rounds, two network namespaces over a veth pair");
    stats("host start -> visible on the guest", results.iter().map(|r| r.visible).collect());
    stats("guest move -> move_ack", results.iter().flat_map(|r| r.acks.clone()).collect());
    stats(
        "guest move -> host's answer on the guest",
        results.iter().flat_map(|r| r.replies.clone()).collect(),
    );
    stats("ping round trip", results.iter().flat_map(|r| r.pings.clone()).collect());
}
