//! The app's LAN play on the iOS discovery path, on the desktop: the Bonjour plugin's bridge
//! (`maharajah_net::bonjour`) is installed as the native discovery with a scripted **stand-in**
//! of the Swift plugin (`maharajah_net::bonjour_stand_in`), which emits exactly the plugin's
//! documented event shapes and reports every advert at 127.0.0.1. The same `Lan` (host list,
//! verdicts, `LanHost`, join) runs on it unchanged, and a refused local-network permission
//! reaches the list as `lan_permission`. On the host's side a refused advertisement (the
//! permission, or Bonjour refusing to publish, at once or later) reaches the hosted chess view and
//! the hosted Chaturaji table as `advert_problem`, and hosting goes on: guests join by join code
//! or by address and room code.
//!
//! No mDNS daemon is created (only the stand-in "discovers"), and the game's WebSocket stays
//! on loopback, so this needs no network namespace.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use common::{lan_with, next_list, next_picked, next_status, until};
use maharajah_app::chaturaji::lan::ChaturajiLan;
use maharajah_app::chaturaji::online::NetState;
use maharajah_app::lan::{HostRequest, JoinTarget, LanConfig, LanPush, Phase};
use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{Seat, Settings};
use maharajah_net::bonjour::PluginBonjour;
use maharajah_net::bonjour_stand_in::StandIn;
use maharajah_net::discovery::{set_native, Scope};
use maharajah_protocol::{Color, Variant};

/// The native discovery is process-wide: each test installs its own while holding this.
static NATIVE: Mutex<()> = Mutex::new(());

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn request(name: &str) -> HostRequest {
    HostRequest {
        name: name.into(),
        variant: Variant::Maharajah,
        time_control: None,
        hidden: false,
        color: Some(Color::White),
    }
}

fn config() -> LanConfig {
    LanConfig {
        scope: Scope::Native,
        host_gone_after: Duration::from_secs(20),
        ..LanConfig::loopback()
    }
}

#[test]
fn ios_discovery_through_the_plugin_stand_in() {
    let _native = NATIVE.lock().unwrap_or_else(PoisonError::into_inner);
    runtime().block_on(async {
        // The person refused the local-network prompt: the list says so, with the fallbacks.
        let mut denied = StandIn::new("127.0.0.1");
        denied.deny_permission = true;
        set_native(Arc::new(PluginBonjour::new(Arc::new(denied))));
        let (guest, mut pushes) = lan_with(config());
        let first = guest.browse().await.unwrap();
        assert!(first.problem.is_none());
        let refused = next_list(&mut pushes, "refusal pushed", |l| l.problem.is_some()).await;
        let problem = refused.problem.clone().unwrap();
        assert_eq!(problem.code, "lan_permission");
        assert!(problem.message.contains("join code"), "{}", problem.message);
        // Asked again, the list still carries it.
        assert_eq!(guest.browse().await.unwrap().problem, Some(problem));
        guest.stop_browsing().await;

        // Allowed: hosting advertises through the plugin, the guest's list shows the game with
        // the same verdict, and joining from the list seats the guest; the advert is withdrawn.
        let stand_in = StandIn::new("127.0.0.1");
        set_native(Arc::new(PluginBonjour::new(Arc::new(stand_in.clone()))));
        let (host, mut host_pushes) = lan_with(config());
        let (guest, mut guest_pushes) = lan_with(config());
        guest.browse().await.unwrap();
        let hosted = host.host(request("Ana’s iPhone")).await.unwrap();
        assert_eq!(hosted.hosting.advert_problem, None, "announced: no problem");
        let list = next_list(&mut guest_pushes, "the iPhone's game listed", |l| {
            l.hosts.iter().any(|h| h.name == "Ana’s iPhone")
        })
        .await;
        assert!(list.problem.is_none());
        let ana = list.hosts.iter().find(|h| h.name == "Ana’s iPhone").unwrap();
        assert!(ana.compatible, "{ana:?}");
        assert_eq!(ana.address.as_deref(), Some(&*hosted.hosting.address));
        assert_eq!(ana.variant, Some(Variant::Maharajah));
        let (_, args) = stand_in.calls().into_iter().find(|(c, _)| c == "advertise").unwrap();
        assert_eq!(args["txt"]["code"], hosted.hosting.room.as_str());
        assert_eq!(args["txt"]["seats"], "1");

        let joined = guest.join(JoinTarget::Host { id: ana.id.clone() }).await.unwrap();
        assert_eq!(joined.seat, Color::Black);
        next_status(&mut host_pushes, "guest seated", |s| s.phase == Phase::Seated).await;
        until("the advert withdrawn", || stand_in.commands().iter().any(|c| c == "withdrawAdvert"))
            .await;
        guest.leave().await;
        host.leave().await;
    });
}

/// The host refused local-network access (iOS's prompt): the hosted view says so with the
/// fallbacks, and a guest joins by join code; an advert refused later (the prompt answered after
/// hosting started) is pushed to the host's screen too.
#[test]
fn a_refused_advert_is_shown_to_the_host_and_the_code_still_joins() {
    let _native = NATIVE.lock().unwrap_or_else(PoisonError::into_inner);
    runtime().block_on(async {
        let mut denied = StandIn::new("127.0.0.1");
        denied.deny_permission = true;
        set_native(Arc::new(PluginBonjour::new(Arc::new(denied.clone()))));
        let (host, mut host_pushes) = lan_with(config());
        let (guest, _guest_pushes) = lan_with(config());
        let hosted = host.host(request("Ana’s iPhone")).await.unwrap();
        let problem = hosted.hosting.advert_problem.clone().expect("the refusal is shown");
        assert_eq!(problem.code, "lan_permission");
        for fallback in ["Local Network", "join code", "QR code", "address and room code"] {
            assert!(problem.message.contains(fallback), "{fallback}: {}", problem.message);
        }
        assert_eq!(host.hosted().await.unwrap().hosting.advert_problem, Some(problem.clone()));
        // The advert was asked for and refused; nothing is published.
        assert!(denied.commands().iter().any(|c| c == "advertise"));
        // Hosting goes on: the guest types the join code.
        let code = hosted.hosting.join_code.clone().expect("a join code on loopback");
        let joined = guest.join(JoinTarget::Code { code }).await.unwrap();
        assert_eq!(joined.seat, Color::Black);
        next_status(&mut host_pushes, "guest seated", |s| s.phase == Phase::Seated).await;
        assert_eq!(host.hosted().await.unwrap().hosting.advert_problem, Some(problem));
        guest.leave().await;
        host.leave().await;
        assert_eq!(host.hosted().await, None);

        // Allowed at first; the plugin refuses later (the prompt answered "Don't Allow" after
        // hosting started): the host's screen is told, and a `published` clears it again.
        let stand_in = StandIn::new("127.0.0.1");
        set_native(Arc::new(PluginBonjour::new(Arc::new(stand_in.clone()))));
        let (host, mut host_pushes) = lan_with(config());
        let hosted = host.host(request("Ana’s iPhone")).await.unwrap();
        assert_eq!(hosted.hosting.advert_problem, None);
        let (_, args) = stand_in.calls().into_iter().find(|(c, _)| c == "advertise").unwrap();
        let id = args["id"].as_u64().unwrap();
        stand_in.emit_raw(&format!(r#"{{"id":{id},"event":"permissionDenied"}}"#));
        let pushed = next_picked(&mut host_pushes, "the refusal pushed", |p| match p {
            LanPush::Hosted(v) => Some(v),
            _ => None,
        })
        .await;
        assert_eq!(pushed.hosting.advert_problem.as_ref().map(|p| p.code), Some("lan_permission"));
        assert_eq!(pushed.hosting.room, hosted.hosting.room);
        assert_eq!(host.hosted().await.unwrap(), pushed);
        stand_in.emit_raw(&format!(r#"{{"id":{id},"event":"published","name":"x"}}"#));
        let cleared = next_picked(&mut host_pushes, "the advert back", |p| match p {
            LanPush::Hosted(v) => Some(v),
            _ => None,
        })
        .await;
        assert_eq!(cleared.hosting.advert_problem, None);
        host.leave().await;
    });
}

/// A Chaturaji table whose advert Bonjour refuses (an `error` event): the hosted table says so
/// (`lan_discovery`, with the fallbacks) and a guest joins by address and room code.
#[test]
fn a_chaturaji_table_with_a_refused_advert_is_joined_by_address() {
    let _native = NATIVE.lock().unwrap_or_else(PoisonError::into_inner);
    runtime().block_on(async {
        let mut refusing = StandIn::new("127.0.0.1");
        refusing.refuse_advert = Some("publishing failed (-72004)".into());
        set_native(Arc::new(PluginBonjour::new(Arc::new(refusing.clone()))));
        let pushed = Arc::new(Mutex::new(Vec::new()));
        let seen = pushed.clone();
        let hosting = ChaturajiLan::pushing(config(), move |h| seen.lock().unwrap().push(h));
        let host_net = NetState::new("ios-chaturaji-host-0001".into());
        let (guest_lan, _pushes) = lan_with(config());
        let guest_net = NetState::new("ios-chaturaji-guest-0002".into());
        let mut settings = Settings { round_limit: 2, ..Settings::default() };
        settings.players.yellow = Player::Cpu { level: Level::Random };
        settings.players.green = Player::Cpu { level: Level::Random };
        let hosted = hosting.host("Ana’s iPad", settings, &host_net, |_| {}).await.unwrap();
        let problem = hosted.hosted.advert_problem.clone().expect("the refusal is shown");
        assert_eq!(problem.code, "lan_discovery");
        assert!(problem.message.contains("-72004"), "{}", problem.message);
        assert!(problem.message.contains("address and room code"), "{}", problem.message);
        assert_eq!(hosting.hosted().await, Some(hosted.hosted.clone()));
        // Hosting goes on: the guest types the address and room code.
        let target = JoinTarget::Address {
            address: hosted.hosted.address.clone(),
            room: hosted.hosted.room.clone(),
        };
        let joined = hosting.join(&guest_lan, &target, &guest_net, |_| {}).await.unwrap();
        assert_eq!(joined.remote.as_ref().map(|r| r.seat), Some(Seat::Blue));
        assert_eq!(hosting.hosted().await.unwrap().advert_problem, Some(problem));
        // Bonjour publishes after all: the change is handed on, and the hosted view reads it.
        assert!(pushed.lock().unwrap().is_empty(), "nothing changed yet");
        let (_, args) = refusing.calls().into_iter().find(|(c, _)| c == "advertise").unwrap();
        let id = args["id"].as_u64().unwrap();
        refusing.emit_raw(&format!(r#"{{"id":{id},"event":"published","name":"x"}}"#));
        until("the change handed on", || !pushed.lock().unwrap().is_empty()).await;
        assert_eq!(pushed.lock().unwrap()[0].advert_problem, None);
        assert_eq!(pushed.lock().unwrap()[0].room, hosted.hosted.room);
        assert_eq!(hosting.hosted().await.unwrap().advert_problem, None);
        guest_net.leave().await;
        hosting.stop(&host_net).await;
        assert_eq!(hosting.hosted().await, None);
    });
}
