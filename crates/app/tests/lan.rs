//! The app's LAN play (`maharajah_app::lan`) inside a private network namespace
//! (../shared/notes/lan-testing.md): one `Lan` hosts, another browses the live list, joins from
//! it, both hand their game to a `NetPlay` (the network game screen) and play; then the fallbacks (typed address, join code), bad input, an incompatible
//! host greyed with its reason, and the host leaving for good as the guest sees it.
//!
//! Every mDNS daemon here lives in a namespace this test made (its thread unshares the network
//! namespace before building the runtime), so nothing leaves the machine.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{
    advertise_future_host, in_namespace, lan, lan_with, next_list, next_picked, next_status,
    runtime, WAIT,
};

use maharajah_app::chess::online::{NetPlay, NetUpdate, NetView};
use maharajah_app::lan::{HostRequest, JoinTarget, LanConfig, Phase, Role};
use maharajah_net::JoinCode;
use maharajah_protocol::{Color, TimeControl, Variant};
use maharajah_testkit::netns;
use tokio::sync::mpsc;

async fn view_until(
    views: &mut mpsc::UnboundedReceiver<NetView>,
    what: &str,
    pred: impl Fn(&NetView) -> bool,
) -> NetView {
    next_picked(views, what, |v| pred(&v).then_some(v)).await
}

fn request(name: &str, variant: Variant, hidden: bool) -> HostRequest {
    HostRequest {
        name: name.into(),
        variant,
        time_control: Some(TimeControl { base_ms: 300_000, increment_ms: 3_000 }),
        hidden,
        color: Some(Color::White),
    }
}

#[test]
fn host_browse_join_and_play_in_a_private_namespace() {
    in_namespace("host_browse_join_and_play_in_a_private_namespace", || {
        runtime().block_on(async {
            let (host, mut host_pushes) = lan(Duration::from_secs(20));
            let (guest, mut guest_pushes) = lan(Duration::from_secs(20));

            let first = guest.browse().await.unwrap();
            assert!(first.browsing && first.hosts.is_empty());
            next_list(&mut guest_pushes, "browsing starts", |l| l.searching).await;

            // A host of a future protocol version, advertised by hand: greyed, with the reason.
            let future = advertise_future_host();

            let hosted = host.host(request("Ana's phone", Variant::Chess, false)).await.unwrap();
            assert!(hosted.hosting.address.starts_with("127.0.0.1:"), "{}", hosted.hosting.address);
            assert_eq!(hosted.seat, Color::White);
            assert_eq!(hosted.hosting.room.len(), 8);
            let code: JoinCode = hosted.hosting.join_code.clone().unwrap().parse().unwrap();
            assert_eq!(code.addr.to_string(), hosted.hosting.address);
            assert_eq!(code.room.as_str(), hosted.hosting.room);
            assert_eq!(
                hosted.hosting.join_url.as_deref(),
                Some(&*format!("maharajah://join/{code}"))
            );
            let qr = hosted.hosting.qr.clone().unwrap();
            assert_eq!(qr.modules.len(), qr.size * qr.size);
            assert!(qr.size >= 21 && qr.modules.contains('1') && qr.modules.contains('0'));
            assert_eq!(host.hosted().await, Some(hosted.clone()));
            let waiting =
                next_status(&mut host_pushes, "host waits", |s| s.phase == Phase::WaitingForGuest)
                    .await;
            assert_eq!(waiting.role, Role::Host);
            assert!(host.host(request("Again", Variant::Chess, false)).await.is_err());

            // The live list shows both: Ana compatible, Future greyed with the reason.
            let list = next_list(&mut guest_pushes, "both hosts listed", |l| {
                l.hosts.iter().any(|h| h.name == "Ana's phone")
                    && l.hosts.iter().any(|h| h.name == "Future")
            })
            .await;
            let ana = list.hosts.iter().find(|h| h.name == "Ana's phone").unwrap();
            assert!(ana.compatible && ana.reason.is_none());
            assert_eq!(ana.address.as_deref(), Some(&*hosted.hosting.address));
            assert_eq!(ana.variant, Some(Variant::Chess));
            let old = list.hosts.iter().find(|h| h.name == "Future").unwrap();
            assert!(!old.compatible);
            assert!(old.reason.as_deref().unwrap().contains("update this app"), "{old:?}");
            let refused = guest.join(JoinTarget::Host { id: old.id.clone() }).await.unwrap_err();
            assert_eq!(refused.code, "lan_incompatible");
            let unknown =
                guest.join(JoinTarget::Host { id: "nobody._maharajah._tcp.local.".into() }).await;
            assert_eq!(unknown.unwrap_err().code, "lan_unknown_host");

            // Tap to join: seated as Black; browsing stops; the host sees its guest.
            let joined = guest.join(JoinTarget::Host { id: ana.id.clone() }).await.unwrap();
            assert_eq!((joined.role, joined.seat), (Role::Guest, Color::Black));
            assert_eq!(joined.room, hosted.hosting.room);
            next_list(&mut guest_pushes, "browsing stops", |l| !l.browsing).await;
            next_status(&mut host_pushes, "guest seated", |s| s.phase == Phase::Seated).await;
            assert_eq!(guest.status().await.unwrap().phase, Phase::Seated);

            // The network game screen takes both games over; they play through it.
            let (host_views, mut host_view_rx) = mpsc::unbounded_channel();
            let host_net = NetPlay::new(move |u| {
                if let NetUpdate::View(v) = u {
                    let _ = host_views.send(*v);
                }
            });
            let (guest_views, mut guest_view_rx) = mpsc::unbounded_channel();
            let guest_net = NetPlay::new(move |u| {
                if let NetUpdate::View(v) = u {
                    let _ = guest_views.send(*v);
                }
            });
            let adopted = host.hand_over(&host_net).await.unwrap();
            assert_eq!(adopted.seat, Some(Color::White));
            assert_eq!(
                adopted.invite, None,
                "a LAN host shows its own join code, not an online link"
            );
            assert!(host.hand_over(&host_net).await.is_none(), "handed over once");
            guest.hand_over(&guest_net).await.unwrap();
            view_until(&mut host_view_rx, "white may move", |v| v.my_turn).await;
            host_net.play("e2e4").await.unwrap();
            let seen = view_until(&mut guest_view_rx, "e2e4 on the guest", |v| v.my_turn).await;
            assert_eq!(seen.game.unwrap().history, vec!["e4".to_owned()]);
            guest_net.play("e7e5").await.unwrap();
            view_until(&mut host_view_rx, "e7e5 on the host", |v| {
                v.game.as_ref().is_some_and(|g| g.history.len() == 2)
            })
            .await;
            // The LAN state still follows the game after the hand-over.
            assert_eq!(guest.status().await.unwrap().phase, Phase::Seated);

            // Leaving from the game screen ends the LAN game: hosting can start again.
            host_net.leave().await;
            next_status(&mut host_pushes, "host closed", |s| s.phase == Phase::Closed).await;
            assert!(host.hosted().await.is_none(), "a closed game is forgotten");
            guest_net.leave().await;

            guest.leave().await;
            host.leave().await;
            assert!(host.hosted().await.is_none() && host.status().await.is_none());
            let _ = future.shutdown();
        })
    });
}

#[test]
fn fallbacks_bad_input_and_the_host_leaving_in_a_private_namespace() {
    in_namespace("fallbacks_bad_input_and_the_host_leaving_in_a_private_namespace", || {
        runtime().block_on(async {
            let (host, _host_pushes) = lan(Duration::from_secs(20));
            let (guest, mut guest_pushes) = lan(Duration::from_secs(2));

            // Bad input is refused with a message naming the problem.
            let bad = |target| async { guest.join(target).await.unwrap_err() };
            let e =
                bad(JoinTarget::Address { address: "10.0.0.1".into(), room: "ABCD2345".into() })
                    .await;
            assert_eq!(e.code, "bad_address");
            assert!(e.message.contains("port is missing"), "{}", e.message);
            let e = bad(JoinTarget::Address { address: "127.0.0.1:1".into(), room: "AB0".into() })
                .await;
            assert_eq!(e.code, "bad_code");
            let e = bad(JoinTarget::Code { code: "not a code".into() }).await;
            assert_eq!(e.code, "bad_join_code");
            let e =
                bad(JoinTarget::Address { address: "127.0.0.1:9".into(), room: "ABCD2345".into() })
                    .await;
            assert_eq!(e.code, "connect_failed");
            assert!(e.message.contains("127.0.0.1:9"), "{}", e.message);
            let e = host.host(request("  ", Variant::Chess, false)).await.unwrap_err();
            assert_eq!(e.code, "bad_name");

            // A hosted game joined by a wrong room code, then by its join code (as a link).
            let hosted = host.host(request("Bea", Variant::Maharajah, true)).await.unwrap();
            assert!(hosted.hidden);
            let e = bad(JoinTarget::Address {
                address: hosted.hosting.address.clone(),
                room: "ZZZZZZZZ".into(),
            })
            .await;
            assert_eq!(e.code, "room_not_found");
            let link = hosted.hosting.join_url.clone().unwrap();
            let joined = guest.join(JoinTarget::Code { code: link }).await.unwrap();
            assert_eq!(joined.seat, Color::Black);
            let e = guest
                .join(JoinTarget::Address {
                    address: hosted.hosting.address.clone(),
                    room: hosted.hosting.room.clone(),
                })
                .await
                .unwrap_err();
            assert_eq!(e.code, "lan_busy");

            // The host stops hosting for good.
            host.leave().await;
            let lost = next_status(&mut guest_pushes, "connection lost", |s| {
                s.phase == Phase::Reconnecting
            })
            .await;
            assert!(lost.detail.unwrap().contains("trying again"));
            let left =
                next_status(&mut guest_pushes, "host left", |s| s.phase == Phase::HostLeft).await;
            assert!(left.detail.as_deref().unwrap().contains("has left"), "{left:?}");
            assert_eq!(guest.status().await.unwrap().phase, Phase::HostLeft);
            guest.leave().await;
            assert!(guest.status().await.is_none());

            // Typed address and room code (hosting again, the guest joins by what it typed).
            let hosted = host.host(request("Bea", Variant::Horde, false)).await.unwrap();
            let joined = guest
                .join(JoinTarget::Address {
                    address: format!(" {} ", hosted.hosting.address),
                    room: hosted.hosting.room.to_lowercase(),
                })
                .await
                .unwrap();
            assert_eq!(joined.address, hosted.hosting.address);
            guest.leave().await;
            host.leave().await;
        })
    });
}

/// App-level timings for BENCHMARKS.md ("Local network", app level): through `Lan` and
/// `NetPlay` as the app uses them, in one private namespace on loopback. Run with
/// `cargo test -p maharajah --test lan -- --ignored --nocapture app_level_timings` (root).
#[test]
#[ignore = "a measurement, run by hand for BENCHMARKS.md"]
fn app_level_timings() {
    in_namespace("app_level_timings", || {
        runtime().block_on(async {
            let (mut visible, mut round_trips) = (Vec::new(), Vec::new());
            for round in 0..10 {
                let (host, _hp) = lan(Duration::from_secs(20));
                let (guest, mut gp) = lan(Duration::from_secs(20));
                guest.browse().await.unwrap();
                next_list(&mut gp, "browsing starts", |l| l.searching).await;
                let name = format!("Bench {round}");
                let t0 = std::time::Instant::now();
                host.host(request(&name, Variant::Chess, false)).await.unwrap();
                let list =
                    next_list(&mut gp, "listed", |l| l.hosts.iter().any(|h| h.name == name)).await;
                visible.push(t0.elapsed());
                let id = list.hosts.iter().find(|h| h.name == name).unwrap().id.clone();
                guest.join(JoinTarget::Host { id }).await.unwrap();
                let (hv, mut hrx) = mpsc::unbounded_channel();
                let host_net = NetPlay::new(move |u| {
                    if let NetUpdate::View(v) = u {
                        let _ = hv.send(*v);
                    }
                });
                let (gv, mut grx) = mpsc::unbounded_channel();
                let guest_net = NetPlay::new(move |u| {
                    if let NetUpdate::View(v) = u {
                        let _ = gv.send(*v);
                    }
                });
                host.hand_over(&host_net).await.unwrap();
                guest.hand_over(&guest_net).await.unwrap();
                let white = ["g1f3", "f3g1", "b1c3", "c3b1"];
                let black = ["g8f6", "f6g8", "b8c6", "c6b8"];
                view_until(&mut hrx, "white to move", |v| v.my_turn).await;
                for (i, (w, b)) in white.iter().zip(black).enumerate() {
                    host_net.play(w).await.unwrap();
                    view_until(&mut grx, "white's move", |v| v.my_turn).await;
                    // Black's move → White sees it: one round trip through both sessions.
                    let t = std::time::Instant::now();
                    guest_net.play(b).await.unwrap();
                    let plies = 2 * (i + 1);
                    view_until(&mut hrx, "black's move", |v| {
                        v.game.as_ref().is_some_and(|g| g.history.len() == plies)
                    })
                    .await;
                    round_trips.push(t.elapsed());
                }
                guest_net.leave().await;
                host_net.leave().await;
                guest.leave().await;
                host.leave().await;
            }
            for (what, mut v) in [
                ("host() → listed in the guest's pushed list", visible),
                ("guest move → shown on the host's NetView", round_trips),
            ] {
                v.sort();
                let ms = |d: Duration| d.as_secs_f64() * 1000.0;
                let at = |q: f64| ms(v[((v.len() - 1) as f64 * q).round() as usize]);
                println!(
                    "{what:<46} n={:<3} median {:>7.2} ms  p90 {:>7.2} ms  max {:>7.2} ms",
                    v.len(),
                    at(0.5),
                    at(0.9),
                    at(1.0)
                );
            }
        })
    });
}

/// The app's own configuration ([`LanConfig::wifi`]: every IPv4 interface, the LAN address found
/// from the routing table) between two private namespaces joined by a veth pair, like two phones
/// on one Wi-Fi: the guest finds the host in its list, joins, both play through the network game
/// session, then the host leaves for good and the guest is told.
#[test]
fn two_devices_over_a_veth_pair_with_the_wifi_configuration() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let (tid_tx, tid_rx) = std::sync::mpsc::channel::<Option<i32>>();
    let (moved_tx, moved_rx) = std::sync::mpsc::channel::<()>();
    let (up_tx, up_rx) = std::sync::mpsc::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let name = "two_devices_over_a_veth_pair_with_the_wifi_configuration";
    let guest = std::thread::spawn(move || {
        if !netns::enter_private_or_skip(name) {
            let _ = tid_tx.send(None);
            return false;
        }
        tid_tx.send(Some(netns::thread_id())).unwrap();
        moved_rx.recv_timeout(WAIT).expect("the host moves our end of the veth pair");
        netns::veth_up("lg0", "10.201.0.2/24").unwrap();
        up_tx.send(()).unwrap();
        runtime().block_on(async {
            let config = LanConfig { host_gone_after: Duration::from_secs(2), ..LanConfig::wifi() };
            let (guest, mut pushes) = lan_with(config);
            guest.browse().await.unwrap();
            let list = next_list(&mut pushes, "the host listed", |l| {
                l.hosts.iter().any(|h| h.name == "Wi-Fi host")
            })
            .await;
            let entry = list.hosts.iter().find(|h| h.name == "Wi-Fi host").unwrap();
            assert!(entry.compatible);
            assert!(entry.address.as_deref().unwrap().starts_with("10.201.0.1:"), "{entry:?}");
            let joined = guest.join(JoinTarget::Host { id: entry.id.clone() }).await.unwrap();
            assert_eq!(joined.seat, Color::Black);
            let (views, mut view_rx) = mpsc::unbounded_channel();
            let net = NetPlay::new(move |u| {
                if let NetUpdate::View(v) = u {
                    let _ = views.send(*v);
                }
            });
            guest.hand_over(&net).await.unwrap();
            view_until(&mut view_rx, "white's e4", |v| v.my_turn).await;
            net.play("e7e5").await.unwrap();
            // The host leaves for good.
            done_tx.send(()).unwrap();
            next_status(&mut pushes, "lost", |s| s.phase == Phase::Reconnecting).await;
            next_status(&mut pushes, "host left", |s| s.phase == Phase::HostLeft).await;
            guest.leave_with(&net).await;
            assert!(net.view().is_none(), "leaving drops the game from the game screen too");
        });
        true
    });
    let host = std::thread::spawn(move || {
        let Some(peer) = tid_rx.recv().unwrap() else { return false };
        assert!(netns::enter_private_or_skip(name));
        netns::veth_to("lh0", "10.201.0.1/24", "lg0", peer).unwrap();
        // Where multicast goes: how the host finds its own LAN address, as on a phone.
        netns::ip(&["route", "add", "224.0.0.0/4", "dev", "lh0"]).unwrap();
        moved_tx.send(()).unwrap();
        up_rx.recv_timeout(WAIT).expect("the guest brings its end up");
        runtime().block_on(async {
            let (host, mut pushes) = lan_with(LanConfig::wifi());
            let hosted = host.host(request("Wi-Fi host", Variant::Chess, false)).await.unwrap();
            assert!(
                hosted.hosting.address.starts_with("10.201.0.1:"),
                "{}",
                hosted.hosting.address
            );
            let code: JoinCode = hosted.hosting.join_code.unwrap().parse().unwrap();
            assert_eq!(code.addr.to_string(), hosted.hosting.address);
            let (views, mut view_rx) = mpsc::unbounded_channel();
            let net = NetPlay::new(move |u| {
                if let NetUpdate::View(v) = u {
                    let _ = views.send(*v);
                }
            });
            host.hand_over(&net).await.unwrap();
            next_status(&mut pushes, "guest seated", |s| s.phase == Phase::Seated).await;
            view_until(&mut view_rx, "white to move", |v| v.my_turn).await;
            net.play("e2e4").await.unwrap();
            view_until(&mut view_rx, "black's e5", |v| v.my_turn).await;
            done_rx.recv_timeout(WAIT).expect("the guest has played");
            host.leave_with(&net).await;
            assert!(host.hosted().await.is_none());
        });
        true
    });
    let ran_guest = guest.join().expect("guest side");
    let ran_host = host.join().expect("host side");
    assert_eq!(ran_guest, ran_host);
    assert!(ran_guest || !ci);
}

/// A hidden-setup Maharajah game over the LAN through the app's path: hosted, joined by the join
/// code, handed to the network game session; each side locks its army in (commit, then reveal),
/// no board shows before both are in, then both see the same start and play.
#[test]
fn hidden_setup_over_the_lan_through_the_game_session() {
    use maharajah_app::chess::online::SetupStage;
    use maharajah_engine::Army;
    use maharajah_protocol::Phase as RoomPhase;
    in_namespace("hidden_setup_over_the_lan_through_the_game_session", || {
        runtime().block_on(async {
            let (host, _hp) = lan(Duration::from_secs(20));
            let (guest, _gp) = lan(Duration::from_secs(20));
            let hosted = host.host(request("Secret", Variant::Maharajah, true)).await.unwrap();
            assert!(hosted.hidden);
            guest
                .join(JoinTarget::Code { code: hosted.hosting.join_code.clone().unwrap() })
                .await
                .unwrap();
            let session = || {
                let (tx, rx) = mpsc::unbounded_channel();
                let net = NetPlay::new(move |u| {
                    if let NetUpdate::View(v) = u {
                        let _ = tx.send(*v);
                    }
                });
                (net, rx)
            };
            let (white, mut wv) = session();
            let (black, mut bv) = session();
            host.hand_over(&white).await.unwrap();
            guest.hand_over(&black).await.unwrap();
            view_until(&mut wv, "white builds", |v| v.setup == SetupStage::Build).await;
            view_until(&mut bv, "black builds", |v| v.setup == SetupStage::Build).await;

            white.lock_army(&Army::orthodox(maharajah_engine::Color::White)).await.unwrap();
            let v = view_until(&mut bv, "white's commitment", |v| v.seats.white.committed).await;
            assert!(v.game.is_none(), "no board before both armies are in");
            black.lock_army(&Army::orthodox(maharajah_engine::Color::Black)).await.unwrap();

            let started = |v: &NetView| {
                v.setup == SetupStage::Verified && v.phase == Some(RoomPhase::Playing)
            };
            let w = view_until(&mut wv, "white verified", started).await;
            let b = view_until(&mut bv, "black verified", started).await;
            assert_eq!(w.game.unwrap().fen, b.game.unwrap().fen, "both see the same start");
            white.play("e2e4").await.unwrap();
            view_until(&mut bv, "e4 on the guest", |v| v.my_turn).await;
            guest.leave_with(&black).await;
            host.leave_with(&white).await;
        })
    });
}

/// Back from a hosted game on the game screen (`App::net_leave`), the Local network screen asks
/// at once what is hosted: nothing, already. Its answer must not wait for the connection's
/// watcher, or the screen shows a stale host card and no host form (a CI run saw it). One
/// thread runs the test and the watcher, so the watcher cannot have caught up by luck.
#[test]
fn leaving_a_hosted_game_from_the_game_screen_forgets_it_before_answering() {
    in_namespace("leaving_a_hosted_game_from_the_game_screen_forgets_it_before_answering", || {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(
            async {
                let dir = std::env::temp_dir()
                    .join(format!("maharajah-lan-net-leave-{}", std::process::id()));
                let app = maharajah_app::App::open(
                    &dir.join("games.sqlite"),
                    &dir,
                    LanConfig::loopback(),
                    maharajah_app::time::system(),
                    std::sync::Arc::new(|_: maharajah_app::Push| {}),
                )
                .unwrap();
                app.lan_host(request("Ana's phone", Variant::Chess, false)).await.unwrap();
                assert!(app.net.view().is_some(), "the game screen has the hosted game");
                app.net_leave().await.unwrap();
                assert_eq!(app.lan.hosted().await, None, "still hosted after leaving");
                assert_eq!(app.lan.status().await, None, "still in a LAN game after leaving");
                // Hosting again works at once.
                app.lan_host(request("Ana's phone", Variant::Chess, false)).await.unwrap();
                app.lan_leave().await;
                let _ = std::fs::remove_dir_all(&dir);
            },
        );
    });
}
