//! A Chaturaji table hosted over the LAN (`maharajah_app::chaturaji::lan`) inside a private network
//! namespace (../shared/notes/lan-testing.md): one device hosts a table with two people and two
//! CPU seats, another finds it in the live LAN list, joins it through the Chaturaji session, and
//! both play to the end with every copy agreeing; the advertisement is withdrawn once the people
//! seats are full, and the chess LAN refuses the entry.
//!
//! Every mDNS daemon here lives in a namespace this test made, so nothing leaves the machine.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{in_namespace, lan, next_list, play_to_the_end, runtime, until};

use maharajah_app::chaturaji::lan::{open_seats, ChaturajiLan};
use maharajah_app::chaturaji::online::NetState;
use maharajah_app::lan::{JoinTarget, LanConfig, LanPush, HOST_GONE_AFTER};
use maharajah_app::multicast;
use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{Event, Seat, Settings};
use maharajah_net::JoinCode;

fn started(net: &NetState) -> bool {
    net.view().is_ok_and(|v| v.remote.is_some_and(|r| r.started))
}

#[test]
fn a_chaturaji_table_hosted_found_joined_and_played_over_the_lan() {
    let ran = in_namespace("a_chaturaji_table_hosted_found_joined_and_played_over_the_lan", || {
        runtime().block_on(async {
            // Device A hosts; device B browses; device C comes late.
            let hosting = ChaturajiLan::new(LanConfig::loopback());
            let host_net = NetState::new("device-a-chaturaji-lan-0001".into());
            let (guest_lan, mut guest_pushes) = lan(HOST_GONE_AFTER);
            let guest_net = NetState::new("device-b-chaturaji-lan-0002".into());
            let (late_lan, mut late_pushes) = lan(HOST_GONE_AFTER);
            let late_net = NetState::new("device-c-chaturaji-lan-0003".into());

            guest_lan.browse().await.unwrap();
            next_list(&mut guest_pushes, "browsing starts", |l| l.searching).await;

            let mut settings = Settings { round_limit: 2, ..Settings::default() };
            settings.players.yellow = Player::Cpu { level: Level::Random };
            settings.players.green = Player::Cpu { level: Level::Random };
            assert_eq!(
                hosting.host("  ", settings.clone(), &host_net, |_| {}).await.unwrap_err().code,
                "bad_name"
            );
            let hosted = hosting.host("Ana's tablet", settings, &host_net, |_| {}).await.unwrap();
            let remote = hosted.table.remote.clone().unwrap();
            assert_eq!(remote.seat, Seat::Red);
            assert!(!remote.started, "waiting for Blue's person");
            assert_eq!(remote.code, hosted.hosted.room);
            assert!(hosted.hosted.address.starts_with("127.0.0.1:"));
            let code: JoinCode = hosted.hosted.join_code.clone().unwrap().parse().unwrap();
            assert_eq!(code.addr.to_string(), hosted.hosted.address);
            assert_eq!(code.room.as_str(), remote.code);
            // The host's link and QR code ask for the Chaturaji join; on the Wi-Fi the join code
            // is the invitation, so the table's own view has no online one.
            let url = hosted.hosted.join_url.clone().expect("a join link");
            assert_eq!(url, maharajah_app::link::chaturaji_lan_url(&code));
            assert_eq!(
                maharajah_app::link::parse(&url).unwrap(),
                maharajah_app::link::JoinLink::ChaturajiLan { code: code.to_string() }
            );
            assert!(hosted.hosted.qr.is_some());
            assert_eq!(remote.invite, None);
            assert_eq!(hosting.hosted().await, Some(hosted.hosted.clone()));
            assert_eq!(hosting.advertised_open_seats().await, Some(1));
            assert!(multicast::held(), "browsing and advertising hold the multicast lock");

            // B's list shows the table as Chaturaji with its address.
            let list = next_list(&mut guest_pushes, "the table listed", |l| {
                l.hosts.iter().any(|h| h.name == "Ana's tablet")
            })
            .await;
            let entry = list.hosts.iter().find(|h| h.name == "Ana's tablet").unwrap();
            assert!(entry.chaturaji && entry.compatible, "{entry:?}");
            assert_eq!(entry.variant, None);
            assert_eq!(entry.address.as_deref(), Some(&*hosted.hosted.address));
            let target = JoinTarget::Host { id: entry.id.clone() };
            // The chess LAN does not take a Chaturaji table.
            assert_eq!(guest_lan.join(target.clone()).await.unwrap_err().code, "lan_chaturaji");

            // B joins from the list: Blue; browsing stops; the game starts on both.
            let joined = hosting.join(&guest_lan, &target, &guest_net, |_| {}).await.unwrap();
            assert_eq!(joined.remote.as_ref().map(|r| r.seat), Some(Seat::Blue));
            next_list(&mut guest_pushes, "browsing stops", |l| !l.browsing).await;
            until("the game on both", || started(&host_net) && started(&guest_net)).await;

            // The people seats are full: the advertisement is withdrawn, so a late
            // device's list stays without it, and typing the address is refused.
            until("advertisement withdrawn", || {
                host_net.view().is_ok_and(|v| open_seats(&v) == Some(0))
            })
            .await;
            assert_eq!(hosting.advertised_open_seats().await, None);
            late_lan.browse().await.unwrap();
            next_list(&mut late_pushes, "late browsing starts", |l| l.searching).await;
            tokio::time::sleep(Duration::from_millis(1500)).await;
            while let Ok(p) = late_pushes.try_recv() {
                if let LanPush::Hosts(l) = p {
                    assert!(l.hosts.is_empty(), "a full table is not listed: {l:?}");
                }
            }
            let typed = JoinTarget::Address {
                address: hosted.hosted.address.clone(),
                room: remote.code.clone(),
            };
            let full = hosting.join(&late_lan, &typed, &late_net, |_| {}).await;
            assert_eq!(full.unwrap_err().code, "room_full");
            let bad =
                JoinTarget::Address { address: "127.0.0.1".into(), room: remote.code.clone() };
            assert_eq!(
                hosting.join(&late_lan, &bad, &late_net, |_| {}).await.unwrap_err().code,
                "bad_address"
            );

            // Both people play their seats to the end; the CPUs play Yellow and Green.
            let end = play_to_the_end(&host_net, &guest_net).await;
            until("Blue sees the end", || guest_net.view().is_ok_and(|v| v.outcome.is_some()))
                .await;
            let seen = guest_net.view().unwrap();
            assert_eq!(end.pieces, seen.pieces);
            assert_eq!(end.scores, seen.scores);
            assert_eq!(end.outcome.as_ref().unwrap().standings.len(), 4);
            assert!(end.log.iter().any(|e| matches!(e, Event::Rolled { seat: Seat::Green, .. })));

            // The host stops: its table closes and the server is gone.
            hosting.stop(&host_net).await;
            assert!(hosting.hosted().await.is_none());
            assert_eq!(host_net.view().unwrap_err().code, "no_table");
            until("Blue loses the host", || {
                guest_net.view().is_ok_and(|v| v.remote.is_some_and(|r| !r.connected))
            })
            .await;
            guest_net.leave().await;
            late_lan.leave().await;
            guest_lan.leave().await;
            assert!(!multicast::held(), "nothing browses or advertises any more");
        });
    });
    if ran.is_none() {
        eprintln!("skipped: no private network namespace outside CI");
    }
}
