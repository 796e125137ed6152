//! LAN discovery with mDNS/DNS-SD: advertise a host, browse for hosts.
//!
//! One interface, [`Discovery`], with two implementations chosen by target ([`backend`]):
//! [`MdnsSd`] (mdns-sd's own daemon: desktop and Android) and, on iOS, where raw multicast needs
//! an entitlement, the system's Bonjour through a Tauri plugin ([`crate::bonjour`]), installed
//! by the shell with [`set_native`]. [`Browser`] and [`Advertiser`] run on either, so what the
//! plugin finds gets the same verdicts and goes into the same list.
//!
//! A host advertises one instance of [`SERVICE_TYPE`] whose TXT record carries:
//!
//! | key | value |
//! |---|---|
//! | `pv` | protocol version ([`maharajah_protocol::PROTOCOL_VERSION`]) |
//! | `av` | app version |
//! | `name` | the host's display name |
//! | `variant` | `chess`, `maharajah`, `horde`, or `chaturaji` (a four-seat Chaturaji table) |
//! | `seats` | open seats (0 or 1; a Chaturaji table: its people seats not yet taken, 0–3) |
//! | `code` | the room's access code (the guest joins it) |
//! | `hidden` | `1` for a hidden setup (Maharajah armies built in secret) |
//!
//! [`Browser`] keeps a live list of hosts, reports them appearing, changing and disappearing,
//! and gives each a [`Compatibility`] verdict so the app can grey out a host that speaks another
//! protocol version and say why.
//!
//! Every [`mdns_sd::ServiceDaemon`] sends multicast on the interfaces it uses; tests create them
//! only inside private network namespaces (`maharajah_testkit::netns`).

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use maharajah_protocol::{AccessCode, Variant, PROTOCOL_VERSION};
use mdns_sd::{DaemonStatus, IfKind, ServiceDaemon, ServiceEvent, ServiceInfo};
use tokio::sync::{mpsc, watch};

/// The DNS-SD service type of a Maharajah host.
pub const SERVICE_TYPE: &str = "_maharajah._tcp.local.";

/// Why discovery failed.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// The mDNS daemon refused (no usable interface, bad name…).
    #[error("mDNS: {0}")]
    Mdns(#[from] mdns_sd::Error),
    /// The person refused this app access to the local network (iOS's local-network prompt, or
    /// Settings › Privacy › Local Network).
    #[error("access to the local network was refused")]
    PermissionDenied,
    /// The platform's own discovery (the iOS Bonjour plugin) failed.
    #[error("Bonjour: {0}")]
    Native(String),
    /// No discovery for this platform is installed (iOS before the plugin registered).
    #[error("no discovery service on this device")]
    Unavailable,
}

impl DiscoveryError {
    /// The problem as a list shows it (a value, so events can carry it).
    pub fn failure(&self) -> BrowseFailure {
        match self {
            DiscoveryError::PermissionDenied => BrowseFailure::PermissionDenied,
            e => BrowseFailure::Other(e.to_string()),
        }
    }
}

/// Why browsing stopped finding hosts (carried by [`HostEvent::Failed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowseFailure {
    /// [`DiscoveryError::PermissionDenied`]: the join code and the typed address still work.
    PermissionDenied,
    /// Anything else, for people.
    Other(String),
}

/// Which interfaces the mDNS daemon uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every IPv4 interface (the Wi-Fi): what the app uses.
    #[default]
    Lan,
    /// Only 127.0.0.1 (tests inside a private network namespace).
    LoopbackOnly,
    /// The platform's own discovery installed with [`set_native`] (on iOS, [`Scope::Lan`] is
    /// this too); tests install a stand-in.
    Native,
}

fn daemon(scope: Scope) -> Result<ServiceDaemon, DiscoveryError> {
    let d = ServiceDaemon::new()?;
    match scope {
        Scope::Lan => {
            // IPv4 only: an fe80:: address loses its scope id on the way to a socket address.
            d.disable_interface(IfKind::IPv6)?;
        }
        Scope::LoopbackOnly => {
            d.disable_interface(IfKind::All)?;
            d.enable_interface(IfKind::LoopbackV4)?;
        }
        Scope::Native => return Err(DiscoveryError::Unavailable),
    }
    Ok(d)
}

/// Stops a daemon and waits (briefly) until its thread has ended.
fn stop_daemon(d: &ServiceDaemon) {
    if let Ok(rx) = d.shutdown() {
        while let Ok(status) = rx.recv_timeout(Duration::from_secs(2)) {
            if matches!(status, DaemonStatus::Shutdown) {
                break;
            }
        }
    }
}

/// The TXT `variant` of a Chaturaji table.
const CHATURAJI: &str = "chaturaji";

fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::Chess => "chess",
        Variant::Maharajah => "maharajah",
        Variant::Horde => "horde",
    }
}

fn variant_from_name(s: &str) -> Option<Variant> {
    match s {
        "chess" => Some(Variant::Chess),
        "maharajah" => Some(Variant::Maharajah),
        "horde" => Some(Variant::Horde),
        _ => None,
    }
}

/// What a host advertises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostAd {
    /// The display name shown in the guests' list (e.g. the phone's owner).
    pub display_name: String,
    /// The room's variant (ignored for a Chaturaji table).
    pub variant: Variant,
    /// A Chaturaji table (joined with the Chaturaji client, not a chess room).
    pub chaturaji: bool,
    /// Hidden setup.
    pub hidden_setup: bool,
    /// Open seats (1 while waiting for the guest; a Chaturaji table: people seats not taken).
    pub open_seats: u8,
    /// The room to join.
    pub code: AccessCode,
    /// The WebSocket port.
    pub port: u16,
    /// Addresses to announce; empty: every address of the enabled interfaces.
    pub addresses: Vec<Ipv4Addr>,
}

impl HostAd {
    /// The TXT record, key by key (the same on every [`Discovery`]).
    pub fn txt(&self) -> BTreeMap<String, String> {
        self.properties().into_iter().collect()
    }

    pub(crate) fn properties(&self) -> HashMap<String, String> {
        let mut p = HashMap::new();
        p.insert("pv".into(), PROTOCOL_VERSION.to_string());
        p.insert("av".into(), crate::VERSION.into());
        // A TXT string holds at most 255 bytes; names are cut on a character boundary.
        let mut name: String = self.display_name.chars().take(60).collect();
        while name.len() > 200 {
            name.pop();
        }
        p.insert("name".into(), name);
        let variant = if self.chaturaji { CHATURAJI } else { variant_name(self.variant) };
        p.insert("variant".into(), variant.into());
        p.insert("seats".into(), self.open_seats.to_string());
        p.insert("code".into(), self.code.as_str().into());
        p.insert("hidden".into(), if self.hidden_setup { "1" } else { "0" }.into());
        p
    }
}

/// One way of finding hosts and announcing this one: mdns-sd ([`MdnsSd`], desktop and Android)
/// or the platform's own service (the iOS Bonjour plugin, [`crate::bonjour::PluginBonjour`]).
/// [`Browser`] and [`Advertiser`] run on either; which one follows from the [`Scope`] and the
/// target ([`backend`]).
pub trait Discovery: Send + Sync {
    /// Starts browsing [`SERVICE_TYPE`]; the feed reports what the network says, unjudged.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`] when browsing cannot start.
    fn browse(&self) -> Result<BrowseFeed, DiscoveryError>;

    /// Starts announcing `ad`.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`] when the announcement is refused.
    fn advertise(&self, ad: &HostAd) -> Result<Box<dyn Advert>, DiscoveryError>;
}

/// One announcement of a [`Discovery`].
pub trait Advert: Send {
    /// Announces `ad` in place of what was announced (also after [`Advert::withdraw`]).
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`] when the announcement is refused.
    fn update(&mut self, ad: &HostAd) -> Result<(), DiscoveryError>;
    /// Stops announcing (guests see the host go). Does not block.
    fn withdraw(&mut self);
    /// Withdraws and releases everything (may block briefly).
    fn shutdown(self: Box<Self>);
    /// Why the announcement is not out, as the service says it later (the iOS plugin reports a
    /// refused local-network permission or a publishing error after the command returned; a
    /// `published` clears it). The value is None while there is no word of trouble; the default
    /// (mdns-sd, which refuses at once or not at all) never changes.
    fn problems(&self) -> watch::Receiver<Option<BrowseFailure>> {
        watch::channel(None).1
    }
}

/// A host as the network reports it, before any verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sighting {
    /// The instance's full name, `<instance>._maharajah._tcp.local.`.
    pub fullname: String,
    /// The port.
    pub port: u16,
    /// Its IPv4 addresses.
    pub addresses: Vec<Ipv4Addr>,
    /// The TXT record, key by key.
    pub txt: BTreeMap<String, String>,
}

/// What a [`Discovery`]'s browse reports.
#[derive(Debug)]
pub enum RawEvent {
    /// The query went out.
    Searching,
    /// A host was resolved (again: its record changed).
    Resolved(Sighting),
    /// A host went away.
    Removed {
        /// Its full name.
        fullname: String,
    },
    /// Browsing failed (e.g. the local-network permission was refused).
    Failed(DiscoveryError),
}

/// A running browse: its events, and how to stop it.
pub struct BrowseFeed {
    /// What the network reports.
    pub events: mpsc::UnboundedReceiver<RawEvent>,
    /// Stops browsing (may block briefly).
    pub stop: Box<dyn FnOnce() + Send>,
}

impl std::fmt::Debug for BrowseFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowseFeed").finish_non_exhaustive()
    }
}

static NATIVE: Mutex<Option<Arc<dyn Discovery>>> = Mutex::new(None);

/// Installs the platform's own discovery (the iOS shell installs the Bonjour plugin's bridge);
/// [`Scope::Native`], and [`Scope::Lan`] on iOS, use it from then on.
pub fn set_native(discovery: Arc<dyn Discovery>) {
    *NATIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(discovery);
}

fn native() -> Result<Arc<dyn Discovery>, DiscoveryError> {
    NATIVE.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or(DiscoveryError::Unavailable)
}

/// The discovery `scope` runs on: on iOS the installed native one for the Wi-Fi (mdns-sd's raw
/// multicast sockets need an entitlement there), elsewhere mdns-sd; [`Scope::Native`] always the
/// native one.
///
/// # Errors
///
/// [`DiscoveryError::Unavailable`] when the native one is wanted and none is installed.
pub fn backend(scope: Scope) -> Result<Arc<dyn Discovery>, DiscoveryError> {
    match scope {
        Scope::Native => native(),
        Scope::Lan if cfg!(target_os = "ios") => native(),
        Scope::Lan | Scope::LoopbackOnly => Ok(Arc::new(MdnsSd { scope })),
    }
}

/// Discovery with mdns-sd's own daemon (one per browse or advert).
#[derive(Clone, Copy, Debug)]
pub struct MdnsSd {
    /// The interfaces.
    pub scope: Scope,
}

struct MdnsAdvert {
    daemon: ServiceDaemon,
    instance: String,
    hostname: String,
    fullname: Option<String>,
}

impl MdnsAdvert {
    fn register(&mut self, ad: &HostAd) -> Result<(), DiscoveryError> {
        let props = ad.properties();
        let addrs: Vec<IpAddr> = ad.addresses.iter().map(|a| IpAddr::V4(*a)).collect();
        let mut info = if addrs.is_empty() {
            ServiceInfo::new(SERVICE_TYPE, &self.instance, &self.hostname, (), ad.port, props)?
                .enable_addr_auto()
        } else {
            ServiceInfo::new(
                SERVICE_TYPE,
                &self.instance,
                &self.hostname,
                &addrs[..],
                ad.port,
                props,
            )?
        };
        // The instance name carries a random suffix, so probing for a clash is not needed and
        // would delay the first announcement by about a second.
        info.set_requires_probe(false);
        let fullname = info.get_fullname().to_owned();
        self.daemon.register(info)?;
        self.fullname = Some(fullname);
        Ok(())
    }
}

impl Advert for MdnsAdvert {
    fn update(&mut self, ad: &HostAd) -> Result<(), DiscoveryError> {
        self.register(ad)
    }

    fn withdraw(&mut self) {
        if let Some(name) = self.fullname.take() {
            let _ = self.daemon.unregister(&name);
        }
    }

    fn shutdown(mut self: Box<Self>) {
        self.withdraw();
        stop_daemon(&self.daemon);
    }
}

impl Drop for MdnsAdvert {
    fn drop(&mut self) {
        // After `shutdown` this finds nothing to withdraw and the daemon refuses a second stop.
        self.withdraw();
        let _ = self.daemon.shutdown();
    }
}

impl Discovery for MdnsSd {
    fn browse(&self) -> Result<BrowseFeed, DiscoveryError> {
        let daemon = daemon(self.scope)?;
        let rx = daemon.browse(SERVICE_TYPE)?;
        let (tx, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(event) = rx.recv_async().await {
                let out = match event {
                    ServiceEvent::SearchStarted(_) => RawEvent::Searching,
                    ServiceEvent::ServiceResolved(r) => {
                        let txt = r
                            .get_properties()
                            .iter()
                            .map(|p| (p.key().to_owned(), p.val_str().to_owned()))
                            .collect();
                        RawEvent::Resolved(Sighting {
                            fullname: r.get_fullname().to_owned(),
                            port: r.get_port(),
                            addresses: r.get_addresses_v4().into_iter().collect(),
                            txt,
                        })
                    }
                    ServiceEvent::ServiceRemoved(_, fullname) => RawEvent::Removed { fullname },
                    _ => continue,
                };
                if tx.send(out).is_err() {
                    break;
                }
            }
        });
        let stop = Box::new(move || {
            let _ = daemon.stop_browse(SERVICE_TYPE);
            stop_daemon(&daemon);
        });
        Ok(BrowseFeed { events, stop })
    }

    fn advertise(&self, ad: &HostAd) -> Result<Box<dyn Advert>, DiscoveryError> {
        let daemon = daemon(self.scope)?;
        let suffix: u32 = rand::random();
        let instance = format!("maharajah-{:08x}", suffix);
        let hostname = format!("{instance}.local.");
        let mut a = MdnsAdvert { daemon, instance, hostname, fullname: None };
        a.register(ad)?;
        Ok(Box::new(a))
    }
}

/// Advertises one host on the LAN until withdrawn or dropped.
pub struct Advertiser {
    advert: Box<dyn Advert>,
    ad: HostAd,
    live: bool,
}

impl std::fmt::Debug for Advertiser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Advertiser").field("ad", &self.ad).field("live", &self.live).finish()
    }
}

impl Advertiser {
    /// Starts advertising `ad` on the discovery of `scope` ([`backend`]).
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`] if the daemon cannot start or refuses the record.
    pub fn start(ad: HostAd, scope: Scope) -> Result<Advertiser, DiscoveryError> {
        Advertiser::start_on(&*backend(scope)?, ad)
    }

    /// Starts advertising `ad` on `discovery`.
    ///
    /// # Errors
    ///
    /// As [`Advertiser::start`].
    pub fn start_on(discovery: &dyn Discovery, ad: HostAd) -> Result<Advertiser, DiscoveryError> {
        let advert = discovery.advertise(&ad)?;
        Ok(Advertiser { advert, ad, live: true })
    }

    /// What is advertised now (None when withdrawn).
    pub fn ad(&self) -> Option<&HostAd> {
        self.live.then_some(&self.ad)
    }

    /// Changes the advertised open seats; 0 withdraws the advertisement, more brings it back.
    ///
    /// # Errors
    ///
    /// As [`Advertiser::start`].
    pub fn set_open_seats(&mut self, open: u8) -> Result<(), DiscoveryError> {
        self.ad.open_seats = open;
        if open == 0 {
            self.withdraw();
            Ok(())
        } else {
            self.advert.update(&self.ad)?;
            self.live = true;
            Ok(())
        }
    }

    /// Stops advertising: guests see the host disappear. Does not block.
    pub fn withdraw(&mut self) {
        if self.live {
            self.live = false;
            self.advert.withdraw();
        }
    }

    /// Why the advertisement is not out, when the discovery reported it after starting (the iOS
    /// plugin: local-network access refused). Guests can still join by code or address.
    pub fn problem(&self) -> Option<BrowseFailure> {
        self.advert.problems().borrow().clone()
    }

    /// [`Advertiser::problem`] as it changes (for a host screen that says so when it happens).
    /// It keeps its last value once the advertiser is gone.
    pub fn problems(&self) -> watch::Receiver<Option<BrowseFailure>> {
        self.advert.problems()
    }

    /// Withdraws the advertisement and stops the daemon, waiting (up to 2 s) for its thread.
    pub fn shutdown(self) {
        self.advert.shutdown();
    }
}

/// Whether this app can play with a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compatibility {
    /// Same protocol version.
    Compatible,
    /// Shown greyed out, with the reason.
    Incompatible {
        /// For people.
        reason: String,
    },
}

impl Compatibility {
    /// True for [`Compatibility::Compatible`].
    pub fn is_compatible(&self) -> bool {
        matches!(self, Compatibility::Compatible)
    }
}

/// A host seen on the LAN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// The DNS-SD instance's full name (stable key of the list).
    pub fullname: String,
    /// The host's display name.
    pub display_name: String,
    /// Where to connect (first IPv4 address and the port); None when no IPv4 address came.
    pub address: Option<SocketAddr>,
    /// The host's protocol version, if it said.
    pub protocol_version: Option<u32>,
    /// The host's app version.
    pub app_version: String,
    /// The variant, if known (None for a Chaturaji table).
    pub variant: Option<Variant>,
    /// A Chaturaji table: join it with the Chaturaji client.
    pub chaturaji: bool,
    /// Hidden setup.
    pub hidden_setup: bool,
    /// Open seats.
    pub open_seats: u8,
    /// The room to join.
    pub code: Option<AccessCode>,
    /// Can this app join it?
    pub compatibility: Compatibility,
}

impl HostInfo {
    pub(crate) fn from_txt(
        fullname: &str,
        port: u16,
        v4: Vec<Ipv4Addr>,
        get: impl Fn(&str) -> Option<String>,
    ) -> HostInfo {
        let protocol_version = get("pv").and_then(|s| s.parse::<u32>().ok());
        let code = get("code").and_then(|s| s.parse::<AccessCode>().ok());
        let mut v4 = v4;
        v4.sort();
        let address = v4.first().map(|ip| SocketAddr::new(IpAddr::V4(*ip), port));
        let compatibility = match protocol_version {
            None => Compatibility::Incompatible {
                reason: "this host does not say which protocol it speaks".into(),
            },
            Some(v) if v != PROTOCOL_VERSION => Compatibility::Incompatible {
                reason: if v > PROTOCOL_VERSION {
                    format!("the host's app is newer (protocol {v}, this app speaks {PROTOCOL_VERSION}): update this app")
                } else {
                    format!("the host's app is older (protocol {v}, this app speaks {PROTOCOL_VERSION}): the host needs to update")
                },
            },
            Some(_) if code.is_none() => Compatibility::Incompatible {
                reason: "the host did not publish a room code".into(),
            },
            Some(_) if address.is_none() => {
                Compatibility::Incompatible { reason: "no IPv4 address for this host yet".into() }
            }
            Some(_) => Compatibility::Compatible,
        };
        HostInfo {
            fullname: fullname.to_owned(),
            display_name: get("name").unwrap_or_else(|| fullname.to_owned()),
            address,
            protocol_version,
            app_version: get("av").unwrap_or_default(),
            variant: get("variant").and_then(|s| variant_from_name(&s)),
            chaturaji: get("variant").as_deref() == Some(CHATURAJI),
            hidden_setup: get("hidden").as_deref() == Some("1"),
            open_seats: get("seats").and_then(|s| s.parse().ok()).unwrap_or(0),
            code,
            compatibility,
        }
    }
}

/// A change in the list of hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostEvent {
    /// Browsing has started (the query went out).
    Searching,
    /// A new host.
    Appeared(HostInfo),
    /// A known host changed (seats, addresses).
    Updated(HostInfo),
    /// A host went away (withdrawn, seat taken, or its records expired).
    Disappeared {
        /// Its full name.
        fullname: String,
    },
    /// Browsing has stopped finding hosts (the list stays as it was).
    Failed(BrowseFailure),
}

/// Browses for hosts and keeps the live list.
pub struct Browser {
    stop: Option<Box<dyn FnOnce() + Send>>,
    hosts: Arc<Mutex<BTreeMap<String, HostInfo>>>,
    events: mpsc::UnboundedReceiver<HostEvent>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").field("hosts", &self.hosts()).finish()
    }
}

impl Browser {
    /// Starts browsing on the discovery of `scope` ([`backend`]). Must be called inside a tokio
    /// runtime.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`] if the daemon cannot start.
    pub fn start(scope: Scope) -> Result<Browser, DiscoveryError> {
        Browser::start_on(&*backend(scope)?)
    }

    /// Starts browsing on `discovery`: every host it reports gets its [`Compatibility`] verdict
    /// here, whichever discovery found it. Must be called inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// As [`Browser::start`].
    pub fn start_on(discovery: &dyn Discovery) -> Result<Browser, DiscoveryError> {
        let BrowseFeed { events: mut rx, stop } = discovery.browse()?;
        let hosts = Arc::new(Mutex::new(BTreeMap::new()));
        let (tx, events) = mpsc::unbounded_channel();
        let list = hosts.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                let out = match event {
                    RawEvent::Searching => Some(HostEvent::Searching),
                    RawEvent::Resolved(s) => {
                        let info = HostInfo::from_txt(&s.fullname, s.port, s.addresses, |k| {
                            s.txt.get(k).cloned()
                        });
                        let mut map = list.lock().unwrap_or_else(|e| e.into_inner());
                        match map.insert(info.fullname.clone(), info.clone()) {
                            None => Some(HostEvent::Appeared(info)),
                            Some(old) if old != info => Some(HostEvent::Updated(info)),
                            Some(_) => None,
                        }
                    }
                    RawEvent::Removed { fullname } => {
                        let mut map = list.lock().unwrap_or_else(|e| e.into_inner());
                        map.remove(&fullname).map(|_| HostEvent::Disappeared { fullname })
                    }
                    RawEvent::Failed(e) => Some(HostEvent::Failed(e.failure())),
                };
                if let Some(e) = out {
                    if tx.send(e).is_err() {
                        break;
                    }
                }
            }
        });
        Ok(Browser { stop: Some(stop), hosts, events })
    }

    /// The hosts seen now, by full name.
    pub fn hosts(&self) -> Vec<HostInfo> {
        self.hosts.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    /// The next change of the list (None once stopped).
    pub async fn next_event(&mut self) -> Option<HostEvent> {
        self.events.recv().await
    }

    /// Waits up to `timeout` for a host that satisfies `pred` (already listed or appearing).
    pub async fn wait_for(
        &mut self,
        timeout: Duration,
        pred: impl Fn(&HostInfo) -> bool,
    ) -> Option<HostInfo> {
        if let Some(h) = self.hosts().into_iter().find(|h| pred(h)) {
            return Some(h);
        }
        let wait = async {
            while let Some(e) = self.events.recv().await {
                if let HostEvent::Appeared(h) | HostEvent::Updated(h) = e {
                    if pred(&h) {
                        return Some(h);
                    }
                }
            }
            None
        };
        tokio::time::timeout(timeout, wait).await.ok().flatten()
    }

    /// Waits up to `timeout` until the host `fullname` is gone. True if it went.
    pub async fn wait_gone(&mut self, timeout: Duration, fullname: &str) -> bool {
        let listed = |b: &Browser| b.hosts().iter().any(|h| h.fullname == fullname);
        if !listed(self) {
            return true;
        }
        let wait = async {
            while let Some(e) = self.events.recv().await {
                if matches!(&e, HostEvent::Disappeared { fullname: f } if f == fullname) {
                    return true;
                }
            }
            false
        };
        tokio::time::timeout(timeout, wait).await.unwrap_or(false)
    }

    /// Stops browsing and the daemon.
    pub fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn info(pv: Option<&str>, code: Option<&str>, v4: Vec<Ipv4Addr>) -> HostInfo {
        let mut m = HashMap::new();
        if let Some(v) = pv {
            m.insert("pv", v.to_owned());
        }
        if let Some(c) = code {
            m.insert("code", c.to_owned());
        }
        m.insert("name", "Ana".to_owned());
        m.insert("seats", "1".to_owned());
        m.insert("variant", "maharajah".to_owned());
        HostInfo::from_txt("x._maharajah._tcp.local.", 4000, v4, |k| m.get(k).cloned())
    }

    #[test]
    fn compatibility_verdicts() {
        let ip = vec![Ipv4Addr::new(10, 200, 0, 1)];
        let (ours, next, last) = (
            PROTOCOL_VERSION.to_string(),
            (PROTOCOL_VERSION + 1).to_string(),
            (PROTOCOL_VERSION - 1).to_string(),
        );
        let ok = info(Some(&ours), Some("ABCD2345"), ip.clone());
        assert!(ok.compatibility.is_compatible());
        assert_eq!(ok.address, Some("10.200.0.1:4000".parse().unwrap()));
        assert_eq!(ok.variant, Some(Variant::Maharajah));
        assert_eq!(ok.open_seats, 1);
        let newer = info(Some(&next), Some("ABCD2345"), ip.clone());
        match newer.compatibility {
            Compatibility::Incompatible { reason } => assert!(reason.contains("update this app")),
            Compatibility::Compatible => panic!("protocol {next} is not compatible"),
        }
        let older = info(Some(&last), Some("ABCD2345"), ip.clone());
        match older.compatibility {
            Compatibility::Incompatible { reason } => {
                assert!(reason.contains("host needs to update"))
            }
            Compatibility::Compatible => panic!("protocol {last} is not compatible"),
        }
        assert!(!info(None, Some("ABCD2345"), ip.clone()).compatibility.is_compatible());
        assert!(!info(Some(&ours), None, ip).compatibility.is_compatible());
        assert!(!info(Some(&ours), Some("ABCD2345"), vec![]).compatibility.is_compatible());
    }

    #[test]
    fn txt_record_fields() {
        let ad = HostAd {
            display_name: "ñ".repeat(100),
            variant: Variant::Horde,
            chaturaji: false,
            hidden_setup: false,
            open_seats: 1,
            code: "ABCD2345".parse().unwrap(),
            port: 1,
            addresses: vec![],
        };
        let p = ad.properties();
        assert_eq!(p["pv"], PROTOCOL_VERSION.to_string());
        assert_eq!(p["variant"], "horde");
        assert_eq!(p["seats"], "1");
        assert_eq!(p["code"], "ABCD2345");
        assert_eq!(p["name"].chars().count(), 60);
        assert!(p.values().all(|v| v.len() < 250));
        let table = HostAd { chaturaji: true, open_seats: 3, ..ad };
        let p = table.properties();
        assert_eq!(p["variant"], "chaturaji");
        assert_eq!(p["seats"], "3");
        let seen =
            HostInfo::from_txt("t._maharajah._tcp.local.", 4000, vec![], |k| p.get(k).cloned());
        assert!(seen.chaturaji);
        assert_eq!(seen.variant, None);
        assert_eq!(seen.open_seats, 3);
        assert!(!info(Some("1"), Some("ABCD2345"), vec![]).chaturaji);
    }
}
