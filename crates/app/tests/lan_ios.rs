//! The app's LAN play on the iOS discovery path, on the desktop: the Bonjour plugin's bridge
//! (`maharajah_net::bonjour`) is installed as the native discovery with a scripted **stand-in**
//! of the Swift plugin (`maharajah_net::bonjour_stand_in`), which emits exactly the plugin's
//! documented event shapes and reports every advert at 127.0.0.1. The same `Lan` (host list,
//! verdicts, `LanHost`, join) runs on it unchanged, and a refused local-network permission
//! reaches the list as `lan_permission`.
//!
//! No mDNS daemon is created (only the stand-in "discovers"), and the game's WebSocket stays
//! on loopback, so this needs no network namespace.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{lan_with, next_list, next_status, until};
use maharajah_app::lan::{HostRequest, JoinTarget, LanConfig, Phase};
use maharajah_net::bonjour::PluginBonjour;
use maharajah_net::bonjour_stand_in::StandIn;
use maharajah_net::discovery::{set_native, Scope};
use maharajah_protocol::{Color, Variant};

fn config() -> LanConfig {
    LanConfig {
        scope: Scope::Native,
        host_gone_after: Duration::from_secs(20),
        ..LanConfig::loopback()
    }
}

/// One test: the native discovery is process-wide.
#[test]
fn ios_discovery_through_the_plugin_stand_in() {
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
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
        let request = HostRequest {
            name: "Ana’s iPhone".into(),
            variant: Variant::Maharajah,
            time_control: None,
            hidden: false,
            color: Some(Color::White),
        };
        let hosted = host.host(request).await.unwrap();
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
