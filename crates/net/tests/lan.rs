//! Discovery and LAN play inside private network namespaces (../../shared/notes/lan-testing.md):
//! every mDNS daemon here lives in a namespace made by the test, so no packet leaves the
//! machine. Each test runs on a fresh thread that unshares its network namespace and only then
//! builds its tokio runtime; the namespaces (and the veth pair) vanish with the threads.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::sync::mpsc as sync_mpsc;
use std::time::Duration;

use common::*;
use maharajah_net::client::{ConnectOptions, Connection, NetEvent};
use maharajah_net::discovery::{Browser, Compatibility, HostEvent, Scope, SERVICE_TYPE};
use maharajah_net::host::{self, JoinCode, LanHost, LanHostOptions};
use maharajah_net::setup::{HiddenSetup, VerifiedStart};
use maharajah_protocol::{Color, EndReason, Outcome, Phase, RoomEvent, Variant};
use maharajah_testkit::mdns::advertise_future_host;
use maharajah_testkit::netns::{self, in_namespace, runtime};
use tokio::sync::mpsc;

async fn searching(browser: &mut Browser) {
    let wait = async {
        while let Some(e) = browser.next_event().await {
            if e == HostEvent::Searching {
                return;
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("browsing starts");
}

fn host_options(name: &str, lan: Ipv4Addr, scope: Scope) -> LanHostOptions {
    let mut o = LanHostOptions::new(name, room(Variant::Maharajah, true, Color::White));
    o.bind = IpAddr::V4(lan);
    o.lan_address = Some(lan);
    o.scope = scope;
    o.connect = fast();
    o
}

#[test]
fn discovery_in_a_private_namespace() {
    in_namespace("discovery_in_a_private_namespace", || {
        runtime().block_on(async {
            let mut browser = Browser::start(Scope::LoopbackOnly).unwrap();
            searching(&mut browser).await;

            // A host of a future protocol version, advertised by hand.
            let future = advertise_future_host(SERVICE_TYPE);

            let (mut lan_host, host_conn, _host_events) =
                LanHost::start(host_options("Ana", Ipv4Addr::LOCALHOST, Scope::LoopbackOnly))
                    .await
                    .unwrap();
            let code = lan_host.seat().code.clone();
            let seen = browser
                .wait_for(WAIT, |h| h.code.as_ref() == Some(&code))
                .await
                .expect("host visible");
            assert_eq!(seen.compatibility, Compatibility::Compatible);
            assert_eq!(seen.display_name, "Ana");
            assert_eq!(seen.variant, Some(Variant::Maharajah));
            assert!(seen.hidden_setup);
            assert_eq!(seen.open_seats, 1);
            assert_eq!(seen.protocol_version, Some(maharajah_protocol::PROTOCOL_VERSION));
            assert_eq!(seen.address, Some(lan_host.addr()));

            let old =
                browser.wait_for(WAIT, |h| h.display_name == "Future").await.expect("future host");
            match old.compatibility {
                Compatibility::Incompatible { reason } => {
                    assert!(reason.contains("update this app"), "{reason}")
                }
                Compatibility::Compatible => panic!("protocol 99 must be greyed out"),
            }

            // The join code carries the same address and room.
            let jc: JoinCode = lan_host.join_code().unwrap().to_string().parse().unwrap();
            assert_eq!(IpAddr::V4(*jc.addr.ip()), lan_host.addr().ip());
            assert_eq!(jc.addr.port(), lan_host.port());
            assert_eq!(jc.room, code);

            // Tap to join: the seat is taken and the host disappears from the list.
            let (guest, _ge, seat) =
                host::join(seen.address.unwrap(), seen.code.clone().unwrap(), fast())
                    .await
                    .unwrap();
            assert_eq!(seat.seat, Color::Black);
            assert!(
                browser.wait_gone(WAIT, &seen.fullname).await,
                "the advertisement is withdrawn"
            );

            guest.close().await;
            host_conn.close().await;
            lan_host.stop().await;
            let _ = future.shutdown();
            browser.shutdown();
        })
    });
}

/// Commits, reveals once allowed, and returns the verified start.
async fn lock_in(
    conn: &Connection,
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
    setup: &mut HiddenSetup,
) -> VerifiedStart {
    conn.commit(setup.commitment()).await.unwrap();
    feed(events, setup, |s, _| s.is_ready_to_reveal()).await;
    let (army, nonce) = setup.reveal().unwrap();
    conn.reveal(&army, &nonce).await.unwrap();
    setup.mark_revealed();
    feed(events, setup, |_, v| v.is_some()).await.unwrap()
}

fn moved(ply: u32) -> impl Fn(&RoomEvent) -> bool {
    move |e| matches!(e, RoomEvent::Moved { ply: p, .. } if *p == ply)
}

#[test]
fn two_hosts_over_a_veth_pair() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let (tid_tx, tid_rx) = sync_mpsc::channel::<Option<i32>>();
    let (moved_tx, moved_rx) = sync_mpsc::channel::<()>();
    let (up_tx, up_rx) = sync_mpsc::channel::<()>();

    let guest = std::thread::spawn(move || {
        if !netns::enter_private_or_skip("two_hosts_over_a_veth_pair (guest)") {
            let _ = tid_tx.send(None);
            return false;
        }
        tid_tx.send(Some(netns::thread_id())).unwrap();
        moved_rx.recv_timeout(WAIT).expect("the host moves our end of the veth pair");
        netns::veth_up("mg0", "10.200.0.2/24").unwrap();
        up_tx.send(()).unwrap();
        runtime().block_on(guest_side());
        true
    });
    let host = std::thread::spawn(move || {
        let Some(peer) = tid_rx.recv().unwrap() else { return false };
        assert!(netns::enter_private_or_skip("two_hosts_over_a_veth_pair (host)"));
        netns::veth_to("mh0", "10.200.0.1/24", "mg0", peer).unwrap();
        moved_tx.send(()).unwrap();
        up_rx.recv_timeout(WAIT).expect("the guest brings its end up");
        runtime().block_on(host_side());
        true
    });
    let ran_guest = guest.join().expect("guest side");
    let ran_host = host.join().expect("host side");
    assert_eq!(ran_guest, ran_host);
    assert!(ran_guest || !ci);
}

async fn host_side() {
    let host_ip = Ipv4Addr::new(10, 200, 0, 1);
    let (mut lan_host, conn, mut events) =
        LanHost::start(host_options("Host", host_ip, Scope::Lan)).await.unwrap();
    let mut setup = HiddenSetup::new(Color::White, WHITE_ARMY).unwrap();
    // The setup starts when the guest sits down.
    let wait = async {
        while conn.room().phase() != Some(Phase::Setup) {
            events.recv().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait).await.expect("a guest joins");
    let verified = lock_in(&conn, &mut events, &mut setup).await;
    assert_eq!(
        verified.opponent_army,
        maharajah_protocol::army::canonical_army(CUSTOM_BLACK).unwrap()
    );

    conn.play("f2f3").await.unwrap();
    until_room(&mut events, "e7e5", moved(1)).await;
    // The guest's link goes down right after its move; play while it is away.
    tokio::time::sleep(Duration::from_millis(500)).await;
    conn.play("g2g4").await.unwrap();
    match until_room(&mut events, "the end", |e| matches!(e, RoomEvent::GameOver { .. })).await {
        RoomEvent::GameOver { result, .. } => {
            assert_eq!(result.outcome, Outcome::BlackWins);
            assert_eq!(result.reason, EndReason::Checkmate);
        }
        _ => unreachable!(),
    }
    // Let the guest read the end before the host goes away.
    tokio::time::sleep(Duration::from_millis(300)).await;
    conn.close().await;
    lan_host.stop().await;
}

async fn guest_side() {
    let mut browser = Browser::start(Scope::Lan).unwrap();
    searching(&mut browser).await;
    let found = browser
        .wait_for(WAIT, |h| h.display_name == "Host" && h.compatibility.is_compatible())
        .await
        .expect("the host is discovered over the veth pair");
    assert_eq!(
        found.address,
        Some(
            "10.200.0.1:0"
                .parse()
                .map(|mut a: std::net::SocketAddr| {
                    a.set_port(found.address.unwrap().port());
                    a
                })
                .unwrap()
        )
    );
    let options = ConnectOptions { ..fast() };
    let (conn, mut events, seat) =
        host::join(found.address.unwrap(), found.code.clone().unwrap(), options).await.unwrap();
    assert_eq!(seat.seat, Color::Black);
    assert!(browser.wait_gone(WAIT, &found.fullname).await, "the host stops advertising");
    browser.shutdown();

    let mut setup = HiddenSetup::new(Color::Black, CUSTOM_BLACK).unwrap();
    let verified = lock_in(&conn, &mut events, &mut setup).await;
    assert_eq!(
        verified.opponent_army,
        maharajah_protocol::army::canonical_army(WHITE_ARMY).unwrap()
    );

    until_room(&mut events, "f2f3", moved(0)).await;
    conn.play("e7e5").await.unwrap();
    // The Wi-Fi drops.
    netns::set_link("mg0", false).unwrap();
    until(&mut events, "the drop is noticed", |e| matches!(e, NetEvent::Disconnected { .. })).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    netns::set_link("mg0", true).unwrap();
    until(&mut events, "back in the room", |e| matches!(e, NetEvent::Rejoined { .. })).await;
    until_room(&mut events, "the move made while away", moved(2)).await;
    assert_eq!(conn.room().moves(), ["f2f3", "e7e5", "g2g4"]);
    // The Maharajah moves like a queen here: mate.
    conn.play("d8h4").await.unwrap();
    until_room(&mut events, "the end", |e| matches!(e, RoomEvent::GameOver { .. })).await;
    assert_eq!(conn.room().result().unwrap().outcome, Outcome::BlackWins);
    conn.close().await;
}
