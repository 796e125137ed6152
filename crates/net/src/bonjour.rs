//! The Rust side of the iOS Bonjour plugin (`mobile/ios/MaharajahBonjourPlugin.swift`).
//!
//! On iOS mdns-sd cannot run (its raw multicast sockets need an entitlement Apple grants by
//! hand), so discovery goes through the system's Bonjour: a Tauri mobile plugin browses with
//! `NWBrowser` and advertises with `NetService`. [`PluginBonjour`] is that plugin behind the one
//! [`Discovery`] trait: what it reports becomes the same [`RawEvent`]s mdns-sd's become, so every
//! host gets the same verdict ([`crate::discovery::HostInfo`]) and lands in the same list.
//! The shell (src-tauri, iOS only) implements [`Bridge`] over Tauri's `PluginHandle` and installs
//! it with [`crate::discovery::set_native`].
//!
//! ## One event channel
//!
//! Tauri 2 keeps every channel handed to a mobile plugin in a process-wide registry it never
//! empties (`tauri::plugin::mobile`'s `CHANNELS`: `Channel::new` registers, nothing removes), so a
//! channel per browse or advert would leak one registration, and everything its callback holds,
//! per start. The plugin therefore gets **one** channel, once ([`Bridge::listen`], the command
//! `listen`), and every event names the browse or advert it belongs to by `id`. On this side each
//! running browse or advert is a route in [`PluginBonjour`]'s table, removed when it stops or is
//! dropped ([`PluginBonjour::routes`] counts them); an event for an id without a route (late,
//! after a stop) is dropped.
//!
//! ## The plugin's commands (Rust → Swift)
//!
//! | command | args |
//! |---|---|
//! | `listen` | `{ "onEvent": <Channel> }`: the one channel of every event (sent once) |
//! | `browse` | `{ "id": 1 }` |
//! | `stopBrowse` | `{ "id": 1 }` |
//! | `advertise` | `{ "id": 2, "name": "maharajah-1a2b3c4d", "port": 40123, "txt": { "pv": "3", … } }` |
//! | `updateAdvert` | `{ "id": 2, "txt": { … } }`: publishes again (also after `withdrawAdvert`) |
//! | `withdrawAdvert` | `{ "id": 2 }`: stops publishing (a goodbye goes out); `updateAdvert` brings it back |
//! | `stopAdvert` | `{ "id": 2 }`: withdraws and forgets the advert |
//!
//! `txt` is the desktop advert's TXT record key by key ([`HostAd::txt`]); every value is a
//! string. Ids are chosen by Rust and unique per process. `browse` and `advertise` are rejected
//! before `listen`.
//!
//! ## The plugin's events (Swift → Rust, on the one channel)
//!
//! Every event carries the `id` of its browse or advert, e.g. `{ "id": 1, "event": "searching" }`.
//!
//! Browse:
//! - `{ "id": 1, "event": "searching" }`: the browser is ready (`NWBrowser.State.ready`).
//! - `{ "id": 1, "event": "found", "name": "maharajah-1a2b3c4d", "port": 40123, "addresses": ["192.168.1.20"], "txt": { "pv": "3", … } }`:
//!   a result resolved (again when its TXT record changed); `addresses` may hold IPv6 text,
//!   which is skipped.
//! - `{ "id": 1, "event": "lost", "name": "maharajah-1a2b3c4d" }`: the result went away.
//!
//! Both:
//! - `{ "id": 1, "event": "permissionDenied" }`: the person refused local-network access
//!   (`kDNSServiceErr_PolicyDenied`).
//! - `{ "id": 1, "event": "error", "message": "…" }`: anything else.
//!
//! Advert only: `{ "id": 2, "event": "published", "name": "…" }` (Bonjour may rename on a clash).
//!
//! An event with a route that is not one of these shapes is reported as an error.

use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde::Deserialize;
use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::discovery::{
    Advert, BrowseFailure, BrowseFeed, Discovery, DiscoveryError, HostAd, RawEvent, Sighting,
    SERVICE_TYPE,
};

/// Receives each event the plugin sends on its channel, as JSON text.
pub type EventSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Calls the plugin's commands (the shell implements it over Tauri's `PluginHandle`).
pub trait Bridge: Send + Sync {
    /// Hands the plugin the one channel every event comes on (the command `listen`, with the
    /// channel as `onEvent`); each event goes to `events`. Called once per [`PluginBonjour`],
    /// before its first browse or advert (again only after a failure).
    ///
    /// # Errors
    ///
    /// The plugin's rejection, for people.
    fn listen(&self, events: EventSink) -> Result<(), String>;

    /// Runs `command` with `args`.
    ///
    /// # Errors
    ///
    /// The plugin's rejection, for people.
    fn call(&self, command: &str, args: serde_json::Value) -> Result<(), String>;
}

/// One event of the plugin, as documented in this module (its `id` is read by the router).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum PluginEvent {
    /// The browser is ready.
    Searching,
    /// A result resolved.
    Found {
        /// The Bonjour instance name.
        name: String,
        /// The port.
        port: u16,
        /// Its addresses, as text.
        #[serde(default)]
        addresses: Vec<String>,
        /// The TXT record.
        #[serde(default)]
        txt: BTreeMap<String, String>,
    },
    /// A result went away.
    Lost {
        /// The Bonjour instance name.
        name: String,
    },
    /// The advert is live under `name`.
    Published {
        /// The name Bonjour published.
        name: String,
    },
    /// Local-network access refused.
    PermissionDenied,
    /// Anything else.
    Error {
        /// For people.
        message: String,
    },
}

impl PluginEvent {
    /// Reads one event's JSON text.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError::Native`] for anything not one of the documented shapes.
    pub fn decode(text: &str) -> Result<PluginEvent, DiscoveryError> {
        serde_json::from_str(text)
            .map_err(|e| DiscoveryError::Native(format!("unreadable plugin event ({e}): {text}")))
    }

    /// What a browse makes of it (None: not a browse event).
    pub fn into_raw(self) -> Option<RawEvent> {
        Some(match self {
            PluginEvent::Searching => RawEvent::Searching,
            PluginEvent::Found { name, port, addresses, txt } => RawEvent::Resolved(Sighting {
                fullname: fullname(&name),
                port,
                addresses: addresses.iter().filter_map(|a| a.parse::<Ipv4Addr>().ok()).collect(),
                txt,
            }),
            PluginEvent::Lost { name } => RawEvent::Removed { fullname: fullname(&name) },
            PluginEvent::PermissionDenied => RawEvent::Failed(DiscoveryError::PermissionDenied),
            PluginEvent::Error { message } => RawEvent::Failed(DiscoveryError::Native(message)),
            PluginEvent::Published { .. } => return None,
        })
    }
}

/// The full name mdns-sd would give the instance `name`: the key of the host list.
#[must_use]
pub fn fullname(name: &str) -> String {
    format!("{name}.{SERVICE_TYPE}")
}

/// Where the one channel's events go: a sink per running browse or advert, by id.
#[derive(Default)]
struct Routes {
    sinks: Mutex<HashMap<u32, EventSink>>,
}

impl Routes {
    fn sinks(&self) -> std::sync::MutexGuard<'_, HashMap<u32, EventSink>> {
        self.sinks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands `text` to the route its `id` names (outside the lock: a sink may start or stop
    /// another route). Events without a readable id, or for a stopped route, are dropped.
    fn dispatch(&self, text: &str) {
        let id = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("id").and_then(serde_json::Value::as_u64))
            .and_then(|id| u32::try_from(id).ok());
        let sink = id.and_then(|id| self.sinks().get(&id).cloned());
        if let Some(sink) = sink {
            sink(text);
        }
    }
}

/// The iOS Bonjour plugin as a [`Discovery`].
#[derive(Clone)]
pub struct PluginBonjour {
    bridge: Arc<dyn Bridge>,
    routes: Arc<Routes>,
    /// Whether the plugin has the event channel (held while asking, so it is asked once).
    listening: Arc<Mutex<bool>>,
}

impl std::fmt::Debug for PluginBonjour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginBonjour").field("routes", &self.routes()).finish_non_exhaustive()
    }
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

fn next_id() -> u32 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

impl PluginBonjour {
    /// Discovery through `bridge`.
    #[must_use]
    pub fn new(bridge: Arc<dyn Bridge>) -> PluginBonjour {
        PluginBonjour { bridge, routes: Arc::default(), listening: Arc::new(Mutex::new(false)) }
    }

    /// The browses and adverts whose events are routed now (each running one holds one route;
    /// stopping or dropping it removes it).
    #[must_use]
    pub fn routes(&self) -> usize {
        self.routes.sinks().len()
    }

    /// Gives the plugin the event channel, once. The channel's callback holds the routes only
    /// weakly: Tauri keeps it for the app's life.
    fn listen(&self) -> Result<(), DiscoveryError> {
        let mut listening = self.listening.lock().unwrap_or_else(PoisonError::into_inner);
        if !*listening {
            let routes: Weak<Routes> = Arc::downgrade(&self.routes);
            let events: EventSink = Arc::new(move |text: &str| {
                if let Some(routes) = routes.upgrade() {
                    routes.dispatch(text);
                }
            });
            self.bridge.listen(events).map_err(refused)?;
            *listening = true;
        }
        Ok(())
    }

    /// Starts a browse or advert: routes its events to `sink`, then runs `command`. The route
    /// goes again when the answer is a refusal.
    fn open(
        &self,
        command: &str,
        args: serde_json::Value,
        id: u32,
        stop: &'static str,
        sink: EventSink,
    ) -> Result<Session, DiscoveryError> {
        self.listen()?;
        self.routes.sinks().insert(id, sink);
        let session = Session {
            bridge: self.bridge.clone(),
            routes: self.routes.clone(),
            id,
            stop,
            done: false,
        };
        match self.bridge.call(command, args) {
            Ok(()) => Ok(session),
            Err(e) => {
                session.forget();
                Err(refused(e))
            }
        }
    }
}

fn refused(message: String) -> DiscoveryError {
    DiscoveryError::Native(message)
}

/// A running browse or advert on the plugin: stopping it (or dropping it) removes its route and
/// tells the plugin, once.
struct Session {
    bridge: Arc<dyn Bridge>,
    routes: Arc<Routes>,
    id: u32,
    /// `stopBrowse` or `stopAdvert`.
    stop: &'static str,
    done: bool,
}

impl Session {
    fn stop(&mut self) {
        if !self.done {
            self.done = true;
            // The route first: what the plugin sends while stopping goes nowhere.
            self.routes.sinks().remove(&self.id);
            let _ = self.bridge.call(self.stop, json!({ "id": self.id }));
        }
    }

    /// Removes the route without telling the plugin (it refused to start).
    fn forget(mut self) {
        self.done = true;
        self.routes.sinks().remove(&self.id);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Discovery for PluginBonjour {
    fn browse(&self) -> Result<BrowseFeed, DiscoveryError> {
        let id = next_id();
        let (tx, events) = mpsc::unbounded_channel();
        let sink: EventSink = Arc::new(move |text: &str| {
            let raw = match PluginEvent::decode(text) {
                Ok(e) => e.into_raw(),
                Err(e) => Some(RawEvent::Failed(e)),
            };
            if let Some(raw) = raw {
                let _ = tx.send(raw);
            }
        });
        let mut session = self.open("browse", json!({ "id": id }), id, "stopBrowse", sink)?;
        // Dropping the feed without calling `stop` stops the browse too (the session's drop).
        let stop = Box::new(move || session.stop());
        Ok(BrowseFeed { events, stop })
    }

    fn advertise(&self, ad: &HostAd) -> Result<Box<dyn Advert>, DiscoveryError> {
        let id = next_id();
        let suffix: u32 = rand::random();
        let name = format!("maharajah-{suffix:08x}");
        let problem = Arc::new(watch::Sender::new(None));
        let seen = problem.clone();
        let sink: EventSink = Arc::new(move |text: &str| {
            let now = match PluginEvent::decode(text) {
                Ok(PluginEvent::Published { .. }) => None,
                Ok(PluginEvent::PermissionDenied) => Some(BrowseFailure::PermissionDenied),
                Ok(PluginEvent::Error { message }) => Some(BrowseFailure::Other(message)),
                Ok(other) => {
                    Some(BrowseFailure::Other(format!("unexpected advert event {other:?}")))
                }
                Err(e) => Some(e.failure()),
            };
            seen.send_if_modified(|was| {
                let changed = *was != now;
                *was = now;
                changed
            });
        });
        let args = json!({ "id": id, "name": name, "port": ad.port, "txt": ad.txt() });
        let session = self.open("advertise", args, id, "stopAdvert", sink)?;
        Ok(Box::new(PluginAdvert { bridge: self.bridge.clone(), session, problem }))
    }
}

struct PluginAdvert {
    bridge: Arc<dyn Bridge>,
    session: Session,
    /// The last advert event's trouble (cleared by `published`).
    problem: Arc<watch::Sender<Option<BrowseFailure>>>,
}

impl Advert for PluginAdvert {
    fn update(&mut self, ad: &HostAd) -> Result<(), DiscoveryError> {
        let args = json!({ "id": self.session.id, "txt": ad.txt() });
        self.bridge.call("updateAdvert", args).map_err(refused)
    }

    fn withdraw(&mut self) {
        let _ = self.bridge.call("withdrawAdvert", json!({ "id": self.session.id }));
    }

    fn shutdown(mut self: Box<Self>) {
        self.session.stop();
    }

    fn problems(&self) -> watch::Receiver<Option<BrowseFailure>> {
        self.problem.subscribe()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use maharajah_protocol::{Variant, PROTOCOL_VERSION};

    use super::*;
    use crate::bonjour_stand_in::StandIn;
    use crate::discovery::{
        Advertiser, BrowseFailure, Browser, Compatibility, HostEvent, HostInfo, Scope,
    };

    const WAIT: Duration = Duration::from_secs(5);

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    fn ad() -> HostAd {
        HostAd {
            display_name: "Ana’s iPhone".into(),
            variant: Variant::Maharajah,
            chaturaji: false,
            hidden_setup: true,
            open_seats: 1,
            code: "ABCD2345".parse().unwrap(),
            port: 40123,
            addresses: vec![],
        }
    }

    #[test]
    fn decodes_every_documented_event() {
        let cases = [
            (r#"{"event":"searching"}"#, PluginEvent::Searching),
            (
                r#"{"event":"found","name":"maharajah-1a2b3c4d","port":40123,"addresses":["192.168.1.20"],"txt":{"pv":"3","seats":"1"}}"#,
                PluginEvent::Found {
                    name: "maharajah-1a2b3c4d".into(),
                    port: 40123,
                    addresses: vec!["192.168.1.20".into()],
                    txt: [("pv", "3"), ("seats", "1")]
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect(),
                },
            ),
            (
                r#"{"event":"lost","name":"maharajah-1a2b3c4d"}"#,
                PluginEvent::Lost { name: "maharajah-1a2b3c4d".into() },
            ),
            (
                r#"{"event":"published","name":"maharajah-1a2b3c4d (2)"}"#,
                PluginEvent::Published { name: "maharajah-1a2b3c4d (2)".into() },
            ),
            (r#"{"event":"permissionDenied"}"#, PluginEvent::PermissionDenied),
            (
                r#"{"event":"error","message":"NoAuth(-65555)"}"#,
                PluginEvent::Error { message: "NoAuth(-65555)".into() },
            ),
        ];
        for (text, want) in cases {
            assert_eq!(PluginEvent::decode(text).unwrap(), want, "{text}");
        }
        // `found` without addresses or TXT (not resolved yet) still decodes.
        let bare = PluginEvent::decode(r#"{"event":"found","name":"x","port":1}"#).unwrap();
        assert!(
            matches!(bare, PluginEvent::Found { ref addresses, ref txt, .. } if addresses.is_empty() && txt.is_empty())
        );
        for bad in [
            r#"{"event":"found","name":"x"}"#,
            r#"{"event":"found","name":"x","port":70000}"#,
            r#"{"event":"vanished"}"#,
            r#"{"name":"x"}"#,
            "not json",
        ] {
            assert!(matches!(PluginEvent::decode(bad), Err(DiscoveryError::Native(_))), "{bad}");
        }
    }

    #[test]
    fn plugin_events_map_to_browse_events() {
        let found = PluginEvent::decode(
            r#"{"event":"found","name":"maharajah-1a2b3c4d","port":9,"addresses":["fe80::1","10.0.0.7","junk"],"txt":{}}"#,
        )
        .unwrap();
        match found.into_raw() {
            Some(RawEvent::Resolved(s)) => {
                assert_eq!(s.fullname, "maharajah-1a2b3c4d._maharajah._tcp.local.");
                assert_eq!(s.addresses, vec![Ipv4Addr::new(10, 0, 0, 7)]);
                assert_eq!(s.port, 9);
            }
            other => panic!("{other:?}"),
        }
        let lost = PluginEvent::Lost { name: "maharajah-1a2b3c4d".into() }.into_raw();
        assert!(
            matches!(lost, Some(RawEvent::Removed { fullname }) if fullname == "maharajah-1a2b3c4d._maharajah._tcp.local.")
        );
        assert!(matches!(
            PluginEvent::PermissionDenied.into_raw(),
            Some(RawEvent::Failed(DiscoveryError::PermissionDenied))
        ));
        assert!(PluginEvent::Published { name: "x".into() }.into_raw().is_none());
    }

    /// The TXT record both ways: what the desktop advert's daemon gets ([`HostAd::properties`])
    /// and what the iOS plugin is asked to publish ([`HostAd::txt`], sent as `txt`) give the
    /// same host, whichever side reads it (mdns-sd's key lookup, or the plugin's `found`).
    #[test]
    fn txt_record_round_trips_between_ios_and_desktop() {
        for a in [ad(), HostAd { chaturaji: true, open_seats: 3, hidden_setup: false, ..ad() }] {
            let desktop = a.properties();
            let ios = a.txt();
            assert_eq!(ios.len(), desktop.len());
            for (k, v) in &ios {
                assert_eq!(desktop.get(k), Some(v), "{k}");
                // NetService / NWTXTRecord hold each `key=value` in at most 255 bytes.
                assert!(k.len() + 1 + v.len() <= 255, "{k}");
            }
            // Desktop advert → iOS browser: the plugin reports the TXT it read as `found`.
            let text = serde_json::json!({
                "event": "found", "name": "maharajah-0000abcd", "port": a.port,
                "addresses": ["192.168.1.20"], "txt": desktop,
            })
            .to_string();
            let Some(RawEvent::Resolved(s)) = PluginEvent::decode(&text).unwrap().into_raw() else {
                panic!("not a sighting: {text}");
            };
            let via_ios =
                HostInfo::from_txt(&s.fullname, s.port, s.addresses, |k| s.txt.get(k).cloned());
            // iOS advert → desktop browser: mdns-sd reads the same keys from the wire.
            let via_desktop = HostInfo::from_txt(
                "maharajah-0000abcd._maharajah._tcp.local.",
                a.port,
                vec![Ipv4Addr::new(192, 168, 1, 20)],
                |k| ios.get(k).cloned(),
            );
            assert_eq!(via_ios, via_desktop);
            assert_eq!(via_ios.compatibility, Compatibility::Compatible);
            assert_eq!(via_ios.protocol_version, Some(PROTOCOL_VERSION));
            assert_eq!(via_ios.display_name, "Ana’s iPhone");
            assert_eq!(via_ios.chaturaji, a.chaturaji);
            assert_eq!(via_ios.hidden_setup, a.hidden_setup);
            assert_eq!(via_ios.open_seats, a.open_seats);
            assert_eq!(via_ios.code, Some(a.code.clone()));
            assert_eq!(via_ios.address, Some("192.168.1.20:40123".parse().unwrap()));
        }
    }

    #[test]
    fn browse_advertise_update_and_withdraw_through_the_plugin() {
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.1");
            let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
            let mut browser = Browser::start_on(&ios).unwrap();
            assert_eq!(browser.next_event().await, Some(HostEvent::Searching));
            let mut advertiser = Advertiser::start_on(&ios, ad()).unwrap();
            let host = browser.wait_for(WAIT, |h| h.compatibility.is_compatible()).await.unwrap();
            assert_eq!(host.address, Some("10.200.0.1:40123".parse().unwrap()));
            assert_eq!(host.variant, Some(Variant::Maharajah));
            assert!(host.hidden_setup);
            assert_eq!(host.open_seats, 1);
            let (_, args) = stand_in.calls().into_iter().find(|(c, _)| c == "advertise").unwrap();
            assert_eq!(args["port"], 40123);
            assert_eq!(args["txt"]["code"], "ABCD2345");
            assert_eq!(args["txt"]["pv"], PROTOCOL_VERSION.to_string());

            // The seat is taken: the advert is withdrawn and the host leaves the list.
            advertiser.set_open_seats(0).unwrap();
            assert_eq!(advertiser.ad(), None);
            assert!(browser.wait_gone(WAIT, &host.fullname).await);
            assert!(browser.hosts().is_empty());
            // Freed again: published again with the new TXT.
            advertiser.set_open_seats(1).unwrap();
            let back = browser.wait_for(WAIT, |h| h.fullname == host.fullname).await.unwrap();
            assert_eq!(back.open_seats, 1);
            advertiser.shutdown();
            assert!(browser.wait_gone(WAIT, &host.fullname).await);
            browser.shutdown();
            assert_eq!(
                stand_in.commands(),
                [
                    "listen",
                    "browse",
                    "advertise",
                    "withdrawAdvert",
                    "updateAdvert",
                    "stopAdvert",
                    "stopBrowse"
                ]
            );
        });
    }

    #[test]
    fn a_changed_advert_is_an_update() {
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.1");
            let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
            let table = HostAd { chaturaji: true, open_seats: 3, ..ad() };
            let mut advertiser = Advertiser::start_on(&ios, table).unwrap();
            // Browsing after the advert: the plugin reports what is already there.
            let mut browser = Browser::start_on(&ios).unwrap();
            let seen = browser.wait_for(WAIT, |h| h.open_seats == 3).await.unwrap();
            assert!(seen.chaturaji);
            advertiser.set_open_seats(2).unwrap();
            loop {
                match browser.next_event().await.unwrap() {
                    HostEvent::Updated(h) => {
                        assert_eq!(h.open_seats, 2);
                        break;
                    }
                    HostEvent::Searching | HostEvent::Appeared(_) => {}
                    other => panic!("{other:?}"),
                }
            }
            drop(advertiser);
            assert!(browser.wait_gone(WAIT, &seen.fullname).await);
            assert!(stand_in.commands().contains(&"stopAdvert".to_owned()));
        });
    }

    #[test]
    fn a_refused_permission_is_reported() {
        runtime().block_on(async {
            let mut stand_in = StandIn::new("10.200.0.1");
            stand_in.deny_permission = true;
            let mut browser = Browser::start_on(&PluginBonjour::new(Arc::new(stand_in))).unwrap();
            assert_eq!(
                browser.next_event().await,
                Some(HostEvent::Failed(BrowseFailure::PermissionDenied))
            );
            assert!(browser.hosts().is_empty());
        });
    }

    #[test]
    fn a_refused_permission_while_advertising_is_kept() {
        let mut stand_in = StandIn::new("10.200.0.1");
        stand_in.deny_permission = true;
        let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
        let advertiser = Advertiser::start_on(&ios, ad()).unwrap();
        assert_eq!(advertiser.problem(), Some(BrowseFailure::PermissionDenied));
        // Allowed, the same advert reports no trouble.
        let ok =
            Advertiser::start_on(&PluginBonjour::new(Arc::new(StandIn::new("10.0.0.1"))), ad())
                .unwrap();
        assert_eq!(ok.problem(), None);
    }

    #[test]
    fn errors_and_unreadable_events_are_reported() {
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.1");
            let mut browser =
                Browser::start_on(&PluginBonjour::new(Arc::new(stand_in.clone()))).unwrap();
            assert_eq!(browser.next_event().await, Some(HostEvent::Searching));
            stand_in.emit(r#"{"event":"error","message":"DefunctConnection(-65569)"}"#);
            match browser.next_event().await {
                Some(HostEvent::Failed(BrowseFailure::Other(m))) => {
                    assert!(m.contains("DefunctConnection"), "{m}")
                }
                other => panic!("{other:?}"),
            }
            stand_in.emit(r#"{"event":"found"}"#);
            assert!(matches!(
                browser.next_event().await,
                Some(HostEvent::Failed(BrowseFailure::Other(m))) if m.contains("unreadable")
            ));
            // A refusal of the command itself is an error of `start`, and leaves no route.
            let ios = PluginBonjour::new(Arc::new(Refusing { listen: true }));
            let refused = Browser::start_on(&ios);
            assert!(matches!(refused, Err(DiscoveryError::Native(m)) if m.contains("not loaded")));
            assert!(Advertiser::start_on(&ios, ad()).is_err());
            assert_eq!(ios.routes(), 0);
            // A plugin that will not take the channel: nothing starts.
            let deaf = PluginBonjour::new(Arc::new(Refusing { listen: false }));
            let refused = Browser::start_on(&deaf);
            assert!(matches!(refused, Err(DiscoveryError::Native(m)) if m.contains("no channel")));
            assert_eq!(deaf.routes(), 0);
        });
    }

    /// A plugin that refuses `listen` (when `listen` is false) or every other command.
    struct Refusing {
        listen: bool,
    }

    impl Bridge for Refusing {
        fn listen(&self, _: EventSink) -> Result<(), String> {
            if self.listen {
                Ok(())
            } else {
                Err("no channel for you".into())
            }
        }

        fn call(&self, _: &str, _: serde_json::Value) -> Result<(), String> {
            Err("plugin not loaded".into())
        }
    }

    fn count(stand_in: &StandIn, command: &str) -> usize {
        stand_in.commands().iter().filter(|c| *c == command).count()
    }

    /// Tauri keeps every channel a mobile plugin was given for the app's life, so the bridge
    /// gives the plugin one channel and routes its events by id: starting and stopping many
    /// browses and adverts (stopped, shut down or just dropped) leaves no route, no event sink
    /// and nothing running in the plugin behind, and the plugin was handed one channel.
    #[test]
    fn starting_and_stopping_leaves_no_channel_or_route_behind() {
        const N: usize = 40;
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.1");
            let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
            for i in 0..N {
                let mut browser = Browser::start_on(&ios).unwrap();
                let advertiser = Advertiser::start_on(&ios, ad()).unwrap();
                assert_eq!(ios.routes(), 2);
                assert_eq!(stand_in.running(), (1, 1));
                assert!(browser.wait_for(WAIT, |h| h.open_seats == 1).await.is_some());
                // Half of them shut down, half dropped: both stop.
                if i % 2 == 0 {
                    advertiser.shutdown();
                    browser.shutdown();
                } else {
                    drop(advertiser);
                    drop(browser);
                }
                assert_eq!(ios.routes(), 0, "round {i}");
                assert_eq!(stand_in.running(), (0, 0), "round {i}");
            }
            // A bare feed: once stopped, its sink (the sender of its events) is gone too.
            let mut feed = ios.browse().unwrap();
            assert!(matches!(feed.events.recv().await, Some(RawEvent::Searching)));
            (feed.stop)();
            assert!(feed.events.recv().await.is_none(), "the stopped browse's sink is released");
            // A dropped feed stops its browse.
            drop(ios.browse().unwrap());
            assert_eq!(ios.routes(), 0);
            assert_eq!(stand_in.running(), (0, 0));
            assert_eq!(stand_in.listens(), 1, "one channel for every browse and advert");
            assert_eq!(count(&stand_in, "browse"), N + 2);
            assert_eq!(count(&stand_in, "stopBrowse"), N + 2);
            assert_eq!(count(&stand_in, "advertise"), N);
            assert_eq!(count(&stand_in, "stopAdvert"), N);
            // Nothing the plugin says late (after a stop) reaches anyone or fails.
            stand_in.emit_raw(r#"{"id":1,"event":"searching"}"#);
        });
    }

    #[test]
    fn events_go_to_the_browse_or_advert_they_name() {
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.1");
            let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
            let mut a = ios.browse().unwrap();
            let mut b = ios.browse().unwrap();
            assert!(matches!(a.events.recv().await, Some(RawEvent::Searching)));
            assert!(matches!(b.events.recv().await, Some(RawEvent::Searching)));
            let (_, args) = stand_in.calls().into_iter().rfind(|(c, _)| c == "browse").unwrap();
            let b_id = args["id"].as_u64().unwrap();
            stand_in.emit_raw(&format!(r#"{{"id":{b_id},"event":"lost","name":"maharajah-0"}}"#));
            // No id, or an id nobody has: dropped.
            stand_in.emit_raw(r#"{"event":"lost","name":"maharajah-1"}"#);
            stand_in.emit_raw(r#"{"id":999999,"event":"lost","name":"maharajah-2"}"#);
            stand_in.emit_raw("not json");
            assert!(matches!(
                b.events.recv().await,
                Some(RawEvent::Removed { fullname }) if fullname.starts_with("maharajah-0.")
            ));
            assert!(a.events.try_recv().is_err(), "browse a heard nothing of b's");
            assert!(b.events.try_recv().is_err());
            (a.stop)();
            (b.stop)();
            assert_eq!(ios.routes(), 0);
        });
    }

    #[test]
    fn a_refused_advert_is_kept_and_followed() {
        let mut stand_in = StandIn::new("10.200.0.1");
        stand_in.refuse_advert = Some("publishing failed (-72000)".into());
        let ios = PluginBonjour::new(Arc::new(stand_in.clone()));
        let advertiser = Advertiser::start_on(&ios, ad()).unwrap();
        assert_eq!(
            advertiser.problem(),
            Some(BrowseFailure::Other("publishing failed (-72000)".into()))
        );
        let mut problems = advertiser.problems();
        assert!(problems.borrow_and_update().is_some());
        // Bonjour publishes after all (e.g. the network came back): the trouble is cleared.
        let (_, args) = stand_in.calls().into_iter().find(|(c, _)| c == "advertise").unwrap();
        let id = args["id"].as_u64().unwrap();
        stand_in.emit_raw(&format!(r#"{{"id":{id},"event":"published","name":"x"}}"#));
        assert!(problems.has_changed().unwrap());
        assert_eq!(*problems.borrow_and_update(), None);
        assert_eq!(advertiser.problem(), None);
        advertiser.shutdown();
        assert_eq!(ios.routes(), 0);
        // The receiver keeps the last word once the advert is gone.
        assert_eq!(*problems.borrow(), None);
        assert!(problems.has_changed().is_err(), "closed with the advert");
    }

    /// The native discovery is what [`Scope::Native`] runs on once installed (on iOS,
    /// [`Scope::Lan`] too).
    #[test]
    fn the_installed_native_discovery_is_used() {
        runtime().block_on(async {
            let stand_in = StandIn::new("10.200.0.9");
            crate::discovery::set_native(Arc::new(PluginBonjour::new(Arc::new(stand_in.clone()))));
            let mut browser = Browser::start(Scope::Native).unwrap();
            let _advertiser = Advertiser::start(ad(), Scope::Native).unwrap();
            let h = browser.wait_for(WAIT, |h| h.compatibility.is_compatible()).await.unwrap();
            assert_eq!(h.address, Some("10.200.0.9:40123".parse().unwrap()));
            assert_eq!(stand_in.commands()[..3], ["listen", "browse", "advertise"]);
        });
    }
}
