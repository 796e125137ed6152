//! Two devices on one Wi-Fi: host a game on this device, browse the hosts on the network, join one.
//!
//! [`Lan`] is the app's side of `maharajah-net`, testable without a window: it starts a
//! [`LanHost`] (the server library embedded on an ephemeral port, advertised over mDNS), runs a
//! [`Browser`] whose live list it pushes to the UI as hosts come and go (each with a verdict:
//! compatible, or greyed with the reason), and joins a host from that list, by a typed
//! `address:port` plus room code, or by the 18-character join code the host shows (also as a QR
//! code of its [`crate::link`] link). Pushed events go through a [`Sink`]: in the app, the shell
//! emits them as the events `lan-hosts`, `lan-status` and `lan-hosted`.
//!
//! Once seated (host or guest) the connection and its seat credentials are held in a
//! [`LanGame`]; a watcher reports its state (`lan-status`): waiting for the guest, both seated,
//! reconnecting, or the host gone.
//!
//! **When the host leaves for good** (stops hosting, or its app is closed or killed) the
//! embedded server stops with it. The guest's connection keeps retrying (with backoff); the
//! guest sees at once "connection to the host lost — retrying", and after
//! [`LanConfig::host_gone_after`] (20 s) without the host "the host has left". Nothing is decided by the absence: the clock and the
//! position live on the host's server, so if the host comes back (same game still open there) the
//! guest rejoins its seat and resyncs; otherwise the guest leaves ([`Lan::leave`]).
//!
//! On iOS the list and the adverts come from the system's Bonjour (the Swift plugin behind
//! `maharajah_net::discovery::Discovery`), with the same verdicts; a refused local-network
//! permission is pushed as the list's `problem` (`lan_permission`). On the host's side a refused
//! advertisement (that permission, or Bonjour refusing to publish) does not stop hosting: the
//! hosted view's `advert_problem` says so in the same vocabulary (`lan_permission`,
//! `lan_discovery`), naming the fallbacks, and is pushed again (`lan-hosted`) when it changes.
//!
//! Multicast: a [`Browser`] or [`LanHost`] sends mDNS on every IPv4 interface. Tests and the
//! end-to-end run set [`SCOPE_ENV`] to `loopback` and run inside a private network namespace
//! (`../shared/notes/lan-testing.md`).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use maharajah_net::client::{CloseReason, ConnectOptions, Connection, NetError, NetEvent};
use maharajah_net::discovery::{
    BrowseFailure, Browser, Compatibility, DiscoveryError, HostEvent, HostInfo, Scope,
};
use maharajah_net::host::{self, JoinCode, LanHost, LanHostError, LanHostOptions};
use maharajah_net::SeatCredentials;
use maharajah_protocol::{
    AccessCode, Color, ErrorCode, RoomEvent, RoomOptions, TimeControl, Variant,
};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::chess::online::{NetPlay, NetView};
use crate::error::AppError;
use crate::link::{lan_url, qr, QrView, JOIN_URL_PREFIX};
use crate::multicast::{Hold, Use};

/// Environment variable shortening [`LanConfig::host_gone_after`] (milliseconds; end-to-end tests).
pub const HOST_GONE_ENV: &str = "MAHARAJAH_LAN_HOST_GONE_MS";

/// Environment variable choosing where mDNS runs: `loopback` (127.0.0.1 only, for tests inside
/// a private network namespace); anything else or unset: the Wi-Fi.
pub const SCOPE_ENV: &str = "MAHARAJAH_LAN_SCOPE";

/// How long the guest waits without the host before saying it has left (the default of
/// [`LanConfig::host_gone_after`]).
pub const HOST_GONE_AFTER: Duration = Duration::from_secs(20);

/// Longest display name (characters).
pub const NAME_MAX: usize = 40;

/// Where LAN play listens and announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanConfig {
    /// mDNS interfaces.
    pub scope: Scope,
    /// The address the embedded server listens on.
    pub bind: IpAddr,
    /// The address announced and put in the join code; None: found from the routing table.
    pub lan_address: Option<Ipv4Addr>,
    /// How long the guest waits without the host before saying it has left.
    pub host_gone_after: Duration,
}

impl LanConfig {
    /// The Wi-Fi: every IPv4 interface.
    #[must_use]
    pub fn wifi() -> LanConfig {
        LanConfig {
            scope: Scope::Lan,
            bind: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            lan_address: None,
            host_gone_after: HOST_GONE_AFTER,
        }
    }

    /// Loopback only (tests inside a private network namespace).
    #[must_use]
    pub fn loopback() -> LanConfig {
        LanConfig {
            scope: Scope::LoopbackOnly,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            lan_address: Some(Ipv4Addr::LOCALHOST),
            host_gone_after: HOST_GONE_AFTER,
        }
    }

    /// From [`SCOPE_ENV`] and [`HOST_GONE_ENV`].
    #[must_use]
    pub fn from_env() -> LanConfig {
        let mut config = match std::env::var(SCOPE_ENV).as_deref() {
            Ok("loopback") => LanConfig::loopback(),
            _ => LanConfig::wifi(),
        };
        if let Some(ms) = std::env::var(HOST_GONE_ENV).ok().and_then(|v| v.parse().ok()) {
            config.host_gone_after = Duration::from_millis(ms);
        }
        config
    }
}

/// A host in the guest's list, as the UI shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostView {
    /// Stable key (the DNS-SD instance name); what [`JoinTarget::Host`] names.
    pub id: String,
    /// The host's display name.
    pub name: String,
    /// `address:port`, when an IPv4 address came.
    pub address: Option<String>,
    /// The variant, if the host said.
    pub variant: Option<Variant>,
    /// A Chaturaji table (joined from the Chaturaji screen's network options).
    pub chaturaji: bool,
    /// Hidden setup (armies built in secret).
    pub hidden: bool,
    /// The host's app version.
    pub app_version: String,
    /// Whether this app can join it.
    pub compatible: bool,
    /// Why not, for people (None when compatible).
    pub reason: Option<String>,
}

impl From<&HostInfo> for HostView {
    fn from(h: &HostInfo) -> HostView {
        let reason = match &h.compatibility {
            Compatibility::Compatible => None,
            Compatibility::Incompatible { reason } => Some(reason.clone()),
        };
        HostView {
            id: h.fullname.clone(),
            name: h.display_name.clone(),
            address: h.address.map(|a| a.to_string()),
            variant: h.variant,
            chaturaji: h.chaturaji,
            hidden: h.hidden_setup,
            app_version: h.app_version.clone(),
            compatible: reason.is_none(),
            reason,
        }
    }
}

/// The live list, pushed as `lan-hosts`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostList {
    /// True while browsing.
    pub browsing: bool,
    /// True once the first query went out.
    pub searching: bool,
    /// The hosts with an open seat, by name.
    pub hosts: Vec<HostView>,
    /// Why the list has stopped filling (`lan_permission`: local-network access refused;
    /// `lan_discovery`: anything else), with the fallbacks named in the message. None while
    /// discovery works.
    pub problem: Option<ListProblem>,
}

/// Why the host list has stopped filling (the UI branches on `code`, shows `message`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListProblem {
    /// `lan_permission` or `lan_discovery`.
    pub code: &'static str,
    /// For people.
    pub message: String,
}

/// What a refused local-network permission (iOS's prompt) says.
const PERMISSION_MESSAGE: &str = "This app may not use the local network, so it cannot find games here. Allow it in Settings › Privacy & Security › Local Network, or join with the host's join code or address.";

/// What the host's screen says when guests cannot see the game because local-network access is
/// refused.
const HOST_PERMISSION_MESSAGE: &str = "This app may not use the local network, so devices on this Wi-Fi do not see this game in their list. Allow it in Settings › Privacy & Security › Local Network, or let the guest join with the join code, the QR code, or the address and room code shown here.";

impl ListProblem {
    /// Why guests do not see this device's game in their list (the advertisement was refused),
    /// with the fallbacks the host's screen shows.
    #[must_use]
    pub fn for_host(f: &BrowseFailure) -> ListProblem {
        match f {
            BrowseFailure::PermissionDenied => {
                ListProblem { code: "lan_permission", message: HOST_PERMISSION_MESSAGE.into() }
            }
            BrowseFailure::Other(reason) => ListProblem {
                code: "lan_discovery",
                message: format!("This game cannot be announced on this network ({reason}), so it is not in the guests' list. Let the guest join with the join code, the QR code, or the address and room code shown here."),
            },
        }
    }
}

impl From<&BrowseFailure> for ListProblem {
    fn from(f: &BrowseFailure) -> ListProblem {
        match f {
            BrowseFailure::PermissionDenied => {
                ListProblem { code: "lan_permission", message: PERMISSION_MESSAGE.into() }
            }
            BrowseFailure::Other(reason) => ListProblem {
                code: "lan_discovery",
                message: format!("Cannot look for games on this network ({reason}). Join with the host's join code or address."),
            },
        }
    }
}

/// A [`DiscoveryError`] from starting to browse, as the UI shows it.
fn discovery_error(e: &DiscoveryError) -> AppError {
    let problem = ListProblem::from(&e.failure());
    error(problem.code, problem.message)
}

/// How guests reach a game this device hosts, without the list: what the chess host's
/// [`HostedView`] and the Chaturaji host's `ChaturajiHosted` both show (flattened into them, so
/// the web view reads these fields at the top level of either).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hosting {
    /// The display name guests see.
    pub name: String,
    /// `address:port` for the typed fallback.
    pub address: String,
    /// The room code (typed with the address).
    pub room: String,
    /// The 18-character join code (None when this device has no LAN address).
    pub join_code: Option<String>,
    /// The link the QR code carries.
    pub join_url: Option<String>,
    /// The QR code of `join_url`.
    pub qr: Option<QrView>,
    /// Why guests on the network do not see the game in their list (the advertisement was
    /// refused: `lan_permission`, `lan_discovery`); None while it is announced. The fields above
    /// still work.
    pub advert_problem: Option<ListProblem>,
}

impl Hosting {
    /// `name`'s game at `address` in room `room`, with its join code when there is one (the join
    /// link and its QR code follow from it).
    #[must_use]
    pub fn new(
        name: String,
        address: SocketAddr,
        room: String,
        join_code: Option<&JoinCode>,
    ) -> Hosting {
        let join_url = join_code.map(lan_url);
        Hosting {
            name,
            address: address.to_string(),
            room,
            join_code: join_code.map(ToString::to_string),
            qr: join_url.as_deref().and_then(qr),
            join_url,
            advert_problem: None,
        }
    }

    /// This hosting as a Chaturaji table's: its link (and QR code) asks for the Chaturaji join
    /// ([`crate::link::chaturaji_lan_url`]).
    #[must_use]
    pub fn for_chaturaji(mut self, join_code: Option<&JoinCode>) -> Hosting {
        self.join_url = join_code.map(crate::link::chaturaji_lan_url);
        self.qr = self.join_url.as_deref().and_then(qr);
        self
    }

    /// This hosting with `problem` as its advert problem (see [`ListProblem::for_host`]).
    #[must_use]
    pub fn with_advert_problem(mut self, problem: Option<&BrowseFailure>) -> Hosting {
        self.advert_problem = problem.map(ListProblem::for_host);
        self
    }
}

/// Follows an advertisement's problem: each change is written into the hosting view `shared`
/// holds (through `hosting`) and `push`ed. Ends when the advertisement is gone.
pub(crate) fn follow_advert<V: Clone + Send + 'static>(
    mut problems: tokio::sync::watch::Receiver<Option<BrowseFailure>>,
    shared: Arc<Mutex<V>>,
    hosting: fn(&mut V) -> &mut Hosting,
    push: impl Fn(V) + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while problems.changed().await.is_ok() {
            let problem = problems.borrow_and_update().as_ref().map(ListProblem::for_host);
            let view = {
                let mut view = lock(&shared);
                let h = hosting(&mut view);
                if h.advert_problem == problem {
                    continue;
                }
                h.advert_problem = problem;
                view.clone()
            };
            push(view);
        }
    })
}

/// What the host's screen shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostedView {
    /// How guests reach the game.
    #[serde(flatten)]
    pub hosting: Hosting,
    /// The host player's side.
    pub seat: Color,
    /// The variant.
    pub variant: Variant,
    /// Hidden setup.
    pub hidden: bool,
}

/// Which side of the LAN game this device is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Runs the embedded server.
    Host,
    /// Joined a host.
    Guest,
}

/// The state of the LAN game's connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The host waits for a guest.
    WaitingForGuest,
    /// Both seats are taken: the game (or its hidden setup) goes on.
    Seated,
    /// The link dropped; the connection is retrying.
    Reconnecting,
    /// The guest has been without the host for [`HOST_GONE_AFTER`]: it has left.
    HostLeft,
    /// The connection has ended (left, or the seat was lost).
    Closed,
}

/// The LAN game's state, pushed as `lan-status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LanStatus {
    /// Host or guest.
    pub role: Role,
    /// The connection's state.
    pub phase: Phase,
    /// This device's side.
    pub seat: Color,
    /// The room code.
    pub room: String,
    /// The host's `address:port`.
    pub address: String,
    /// Why (for people), when reconnecting or closed.
    pub detail: Option<String>,
}

/// Something pushed to the UI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LanPush {
    /// The host list changed.
    Hosts(HostList),
    /// The LAN game's state changed.
    Status(LanStatus),
    /// What the host's screen shows changed (its advert problem).
    Hosted(HostedView),
}

/// Where pushes go (the app: Tauri events; tests: a channel).
pub type Sink = Arc<dyn Fn(LanPush) + Send + Sync>;

/// How the guest names the host to join.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JoinTarget {
    /// An entry of the live list, by [`HostView::id`].
    Host {
        /// The entry's id.
        id: String,
    },
    /// A typed `address:port` and room code.
    Address {
        /// e.g. `192.168.1.20:40123`.
        address: String,
        /// The 8-character room code.
        room: String,
    },
    /// The host's 18-character join code (or a join link).
    Code {
        /// e.g. `ABCDEF-GHJKLM-NPQRST`, or `maharajah://join/…`.
        code: String,
    },
}

/// What hosting asks for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct HostRequest {
    /// The name guests see.
    pub name: String,
    /// The variant.
    pub variant: Variant,
    /// The clock (None: untimed).
    pub time_control: Option<TimeControl>,
    /// Hidden setup (Maharajah).
    pub hidden: bool,
    /// The host's side (None: drawn at random).
    pub color: Option<Color>,
}

/// The seat this device holds in a LAN game, with its connection.
#[derive(Debug)]
pub struct LanGame {
    /// Host or guest.
    pub role: Role,
    /// The WebSocket URL this device's connection uses (for a later resume).
    pub url: String,
    /// The seat.
    pub seat: SeatCredentials,
    /// The connection acting for the seat.
    pub connection: Connection,
    /// The connection's events, each forwarded once the watcher has looked at it (for the game
    /// screen, which takes them).
    pub events: Option<mpsc::UnboundedReceiver<NetEvent>>,
    watcher: JoinHandle<()>,
    status: Arc<Mutex<LanStatus>>,
}

struct Browsing {
    /// The multicast lock's use while the list is shown.
    _hold: crate::multicast::Hold,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
    hosts: Arc<Mutex<Vec<HostInfo>>>,
    problem: Arc<Mutex<Option<ListProblem>>>,
}

#[derive(Default)]
struct Inner {
    host: Option<LanHost>,
    /// The multicast lock's use while hosting.
    advertising: Option<Hold>,
    hosted: Option<Arc<Mutex<HostedView>>>,
    /// Follows the advertisement's problem into `hosted`.
    advert_follower: Option<JoinHandle<()>>,
    browsing: Option<Browsing>,
    game: Option<LanGame>,
}

/// The app's LAN play (managed Tauri state).
pub struct Lan {
    config: LanConfig,
    sink: Sink,
    inner: tokio::sync::Mutex<Inner>,
}

impl std::fmt::Debug for Lan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lan").field("config", &self.config).finish_non_exhaustive()
    }
}

fn error(code: &'static str, message: impl Into<String>) -> AppError {
    AppError::new(code, message)
}

/// A [`NetError`] from joining: its one code ([`AppError::from`]), worded for the LAN.
fn join_error(address: SocketAddr, e: NetError) -> AppError {
    let mut error = AppError::from(e.clone());
    match e {
        NetError::Connect { reason, .. } => {
            error.message = format!("No Maharajah host answers at {address} ({reason}). Check that both devices are on the same Wi-Fi and that the host is still hosting.");
        }
        NetError::Server { code: ErrorCode::RoomNotFound, .. } => {
            error.message = format!("The host at {address} has no game with that room code (it may have stopped hosting).");
        }
        NetError::Server { code: ErrorCode::RoomFull, .. } => {
            error.message = "That game already has two players.".into();
        }
        _ => {}
    }
    error
}

pub(crate) fn parse_room(text: &str) -> Result<AccessCode, AppError> {
    text.parse::<AccessCode>()
        .map_err(|e| error("bad_code", format!("“{}” is not a room code: {e}", text.trim())))
}

fn parse_address(text: &str) -> Result<SocketAddr, AppError> {
    let text = text.trim();
    text.parse::<SocketAddr>().map_err(|_| {
        let hint = if text.parse::<IpAddr>().is_ok() { " (the port is missing)" } else { "" };
        error(
            "bad_address",
            format!("“{text}” is not an address and port like 192.168.1.20:40123{hint}"),
        )
    })
}

/// The join code inside `text`: the code itself or a join link.
fn parse_join_code(text: &str) -> Result<JoinCode, AppError> {
    let text = text.trim();
    let code = text.strip_prefix(JOIN_URL_PREFIX).unwrap_or(text).trim_end_matches('/');
    code.parse::<JoinCode>().map_err(|e| error("bad_join_code", e.to_string()))
}

pub(crate) fn clean_name(name: &str) -> Result<String, AppError> {
    let name: String = name.chars().filter(|c| !c.is_control()).collect();
    let name = name.trim();
    if name.is_empty() {
        return Err(error("bad_name", "Give this device a name guests will recognise."));
    }
    if name.chars().count() > NAME_MAX {
        return Err(error("bad_name", format!("A name has at most {NAME_MAX} characters.")));
    }
    Ok(name.to_owned())
}

fn connect_options() -> ConnectOptions {
    ConnectOptions {
        client_name: format!("maharajah app {}", env!("CARGO_PKG_VERSION")),
        ..ConnectOptions::default()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Lan {
    /// LAN play with `config`, pushing to `sink`.
    pub fn new(config: LanConfig, sink: Sink) -> Lan {
        Lan { config, sink, inner: tokio::sync::Mutex::new(Inner::default()) }
    }

    /// Hosts a game: starts the embedded server, creates the room, advertises it. A refused
    /// advertisement is no error: the answer's `advert_problem` says why guests do not see the
    /// game in their list, and each later change is pushed ([`LanPush::Hosted`]).
    ///
    /// # Errors
    /// `bad_name`; `lan_busy` while already in a LAN game; `lan_host` when the server cannot start.
    pub async fn host(&self, request: HostRequest) -> Result<HostedView, AppError> {
        let name = clean_name(&request.name)?;
        let mut inner = self.inner.lock().await;
        Lan::reap(&mut inner).await;
        if inner.game.is_some() {
            return Err(error("lan_busy", "Already in a LAN game: leave it first."));
        }
        let room = RoomOptions {
            variant: request.variant,
            time_control: request.time_control,
            hidden_setup: request.hidden && request.variant == Variant::Maharajah,
            color: request.color,
        };
        let mut options = LanHostOptions::new(name.clone(), room.clone());
        options.bind = self.config.bind;
        options.lan_address = self.config.lan_address;
        options.connect = connect_options();
        options.scope = self.config.scope;
        let started = LanHost::start(options).await;
        let (lan_host, connection, events) = started.map_err(|e| match e {
            LanHostError::Io(e) => error("lan_host", format!("Cannot open a port to host on: {e}")),
            LanHostError::Net(e) => error("lan_host", e.to_string()),
        })?;
        let seat = lan_host.seat().clone();
        // The problem now, and every later change (iOS answers its permission prompt later).
        let mut problems = lan_host.advert_problems();
        let problem = problems.borrow_and_update().clone();
        let hosted = HostedView {
            hosting: Hosting::new(
                name,
                lan_host.addr(),
                seat.code.as_str().to_owned(),
                lan_host.join_code(),
            ),
            seat: seat.seat,
            variant: room.variant,
            hidden: room.hidden_setup,
        };
        let hosted =
            HostedView { hosting: hosted.hosting.with_advert_problem(problem.as_ref()), ..hosted };
        let shared = Arc::new(Mutex::new(hosted.clone()));
        let sink = self.sink.clone();
        let follower = follow_advert(
            problems,
            shared.clone(),
            |v: &mut HostedView| &mut v.hosting,
            move |v| sink(LanPush::Hosted(v)),
        );
        let address = lan_host.addr();
        let own = SocketAddr::new(
            if self.config.bind.is_unspecified() {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            } else {
                self.config.bind
            },
            address.port(),
        );
        inner.game =
            Some(self.watch(Role::Host, host::ws_url(own), address, seat, connection, events));
        inner.host = Some(lan_host);
        inner.advertising = Some(Hold::start(Use::Advertising));
        inner.hosted = Some(shared);
        inner.advert_follower = Some(follower);
        Ok(hosted)
    }

    /// What the host's screen shows while hosting (None otherwise).
    pub async fn hosted(&self) -> Option<HostedView> {
        let mut inner = self.inner.lock().await;
        Lan::reap(&mut inner).await;
        inner.hosted.as_ref().map(|h| lock(h).clone())
    }

    /// Starts browsing (the list is pushed as it changes) and answers the list now.
    ///
    /// # Errors
    /// `lan_discovery` when the mDNS daemon (or the iOS Bonjour plugin) cannot start;
    /// `lan_permission` when local-network access was refused. A refusal or failure later is
    /// pushed in the list's `problem`.
    pub async fn browse(&self) -> Result<HostList, AppError> {
        let scope = self.config.scope;
        let mut inner = self.inner.lock().await;
        if let Some(b) = &inner.browsing {
            let mut now = list(true, true, &lock(&b.hosts));
            now.problem.clone_from(&lock(&b.problem));
            return Ok(now);
        }
        let mut browser = Browser::start(scope).map_err(|e| discovery_error(&e))?;
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let problem = Arc::new(Mutex::new(None));
        let (stop, mut stopped) = oneshot::channel::<()>();
        let sink = self.sink.clone();
        let shared = hosts.clone();
        let shared_problem = problem.clone();
        let task = tokio::spawn(async move {
            let mut searching = false;
            loop {
                let event = tokio::select! {
                    _ = &mut stopped => break,
                    e = browser.next_event() => match e { Some(e) => e, None => break },
                };
                match &event {
                    HostEvent::Searching => searching = true,
                    HostEvent::Failed(f) => *lock(&shared_problem) = Some(ListProblem::from(f)),
                    _ => {}
                }
                let now = browser.hosts();
                *lock(&shared) = now.clone();
                let mut pushed = list(true, searching, &now);
                pushed.problem.clone_from(&lock(&shared_problem));
                sink(LanPush::Hosts(pushed));
            }
            let _ = tokio::task::spawn_blocking(move || browser.shutdown()).await;
        });
        inner.browsing =
            Some(Browsing { _hold: Hold::start(Use::Browsing), stop, task, hosts, problem });
        Ok(list(true, false, &[]))
    }

    /// Stops browsing (and pushes an empty, idle list).
    pub async fn stop_browsing(&self) {
        let browsing = self.inner.lock().await.browsing.take();
        if let Some(b) = browsing {
            let _ = b.stop.send(());
            let _ = b.task.await;
            (self.sink)(LanPush::Hosts(list(false, false, &[])));
        }
    }

    /// Where `target` points: the host's address, the room code, and whether it is a Chaturaji
    /// table (known only for a list entry; false otherwise).
    ///
    /// # Errors
    /// `bad_address`, `bad_code`, `bad_join_code`, `lan_unknown_host`, `lan_incompatible`.
    pub async fn resolve(
        &self,
        target: &JoinTarget,
    ) -> Result<(SocketAddr, AccessCode, bool), AppError> {
        Ok(match target {
            JoinTarget::Address { address, room } => {
                (parse_address(address)?, parse_room(room)?, false)
            }
            JoinTarget::Code { code } => {
                let code = parse_join_code(code)?;
                (SocketAddr::V4(code.addr), code.room, false)
            }
            JoinTarget::Host { id } => {
                let inner = self.inner.lock().await;
                let hosts =
                    inner.browsing.as_ref().map(|b| lock(&b.hosts).clone()).unwrap_or_default();
                let Some(h) = hosts.iter().find(|h| &h.fullname == id) else {
                    return Err(error(
                        "lan_unknown_host",
                        "That game is no longer on the network.",
                    ));
                };
                if let Compatibility::Incompatible { reason } = &h.compatibility {
                    return Err(error(
                        "lan_incompatible",
                        format!("Cannot join {}: {reason}", h.display_name),
                    ));
                }
                match (h.address, h.code.clone()) {
                    (Some(a), Some(c)) => (a, c, h.chaturaji),
                    _ => {
                        return Err(error(
                            "lan_incompatible",
                            "That host has not said where to join.",
                        ))
                    }
                }
            }
        })
    }

    /// Joins a host; browsing stops.
    ///
    /// # Errors
    /// `bad_address`, `bad_code`, `bad_join_code` for bad input; `lan_unknown_host`,
    /// `lan_incompatible` for a list entry; `lan_chaturaji` for a Chaturaji table;
    /// `connect_failed`, `version_mismatch`, the host's refusal (`room_not_found`, `room_full`)
    /// as for every network game; `lan_busy`.
    pub async fn join(&self, target: JoinTarget) -> Result<LanStatus, AppError> {
        let (address, room, chaturaji) = self.resolve(&target).await?;
        if chaturaji {
            return Err(error(
                "lan_chaturaji",
                "That is a Chaturaji table: join it from Chaturaji's network options.",
            ));
        }
        {
            let mut inner = self.inner.lock().await;
            Lan::reap(&mut inner).await;
            if inner.game.is_some() {
                return Err(error("lan_busy", "Already in a LAN game: leave it first."));
            }
        }
        let (connection, events, seat) = host::join(address, room, connect_options())
            .await
            .map_err(|e| join_error(address, e))?;
        self.stop_browsing().await;
        let mut inner = self.inner.lock().await;
        if inner.game.is_some() {
            connection.close().await;
            return Err(error("lan_busy", "Already in a LAN game: leave it first."));
        }
        let game = self.watch(
            Role::Guest,
            host::ws_url(address),
            address,
            seat.clone(),
            connection,
            events,
        );
        let status = lock(&game.status).clone();
        inner.game = Some(game);
        Ok(status)
    }

    /// The LAN game's state now (None when not in one).
    pub async fn status(&self) -> Option<LanStatus> {
        let mut inner = self.inner.lock().await;
        Lan::reap(&mut inner).await;
        inner.game.as_ref().map(|g| lock(&g.status).clone())
    }

    /// Hands the LAN game to the network game screen: `net` takes over the connection and every
    /// event since the seat was taken (the watcher still reports the LAN state). None when not in
    /// a LAN game or already handed over.
    pub async fn hand_over(&self, net: &NetPlay) -> Option<NetView> {
        let mut inner = self.inner.lock().await;
        let game = inner.game.as_mut()?;
        let events = game.events.take()?;
        Some(net.adopt(&game.url, game.connection.clone(), events))
    }

    /// Forgets a LAN game whose connection has ended (e.g. left from the game screen): its host,
    /// if this device hosted, stops, so a new game can start.
    async fn reap(inner: &mut Inner) {
        let closed = inner.game.as_ref().is_some_and(|g| lock(&g.status).phase == Phase::Closed);
        if closed {
            inner.game = None;
            Lan::stop_hosting(inner);
            inner.advertising = None;
            if let Some(mut h) = inner.host.take() {
                h.stop().await;
            }
        }
    }

    /// Forgets what the host's screen shows (and stops following its advert).
    fn stop_hosting(inner: &mut Inner) {
        inner.hosted = None;
        if let Some(f) = inner.advert_follower.take() {
            f.abort();
        }
    }

    /// The network game at `url` was left from the game screen: when it is this LAN game, it is
    /// forgotten now (a host stops, so a new game can start).
    pub async fn game_left(&self, url: &str) {
        let ours = self.inner.lock().await.game.as_ref().is_some_and(|g| g.url == url);
        if ours {
            self.leave().await;
        }
    }

    /// [`Lan::leave`], and drops the game from `net` too when it is this LAN game.
    pub async fn leave_with(&self, net: &NetPlay) {
        let url = self.inner.lock().await.game.as_ref().map(|g| g.url.clone());
        if url.is_some() && net.view().map(|v| v.url) == url {
            net.leave().await;
        }
        self.leave().await;
    }

    /// Leaves the LAN game: closes the connection, and when hosting stops the server (the guest
    /// then sees the host leave). Also stops browsing.
    pub async fn leave(&self) {
        self.stop_browsing().await;
        let mut inner = self.inner.lock().await;
        if let Some(game) = inner.game.take() {
            game.watcher.abort();
            game.connection.close().await;
        }
        Lan::stop_hosting(&mut inner);
        inner.advertising = None;
        if let Some(mut h) = inner.host.take() {
            h.stop().await;
        }
    }

    /// Starts the task that follows the connection's events and pushes the game's state.
    fn watch(
        &self,
        role: Role,
        url: String,
        address: SocketAddr,
        seat: SeatCredentials,
        connection: Connection,
        mut events: mpsc::UnboundedReceiver<NetEvent>,
    ) -> LanGame {
        let sink = self.sink.clone();
        let base = LanStatus {
            role,
            phase: if role == Role::Host { Phase::WaitingForGuest } else { Phase::Seated },
            seat: seat.seat,
            room: seat.code.as_str().to_owned(),
            address: address.to_string(),
            detail: None,
        };
        sink(LanPush::Status(base.clone()));
        let status = Arc::new(Mutex::new(base.clone()));
        let shared = status.clone();
        let (forward, forwarded) = mpsc::unbounded_channel();
        let own = seat.seat;
        let gone_after = self.config.host_gone_after;
        let watcher = tokio::spawn(async move {
            let mut phase = base.phase;
            let mut lost_since: Option<Instant> = None;
            let push = |phase: Phase, detail: Option<String>| {
                let now = LanStatus { phase, detail, ..base.clone() };
                *lock(&shared) = now.clone();
                sink(LanPush::Status(now));
            };
            loop {
                let wait = match lost_since {
                    Some(t) if role == Role::Guest && phase != Phase::HostLeft => {
                        gone_after.saturating_sub(t.elapsed())
                    }
                    _ => Duration::from_secs(3600),
                };
                let event = match tokio::time::timeout(wait, events.recv()).await {
                    Ok(Some(e)) => e,
                    Ok(None) => break,
                    Err(_) => {
                        phase = Phase::HostLeft;
                        push(phase, Some(format!(
                            "The host has been gone for {} s: it has left the game or its device is off the network. Nothing is decided while it is away; if it comes back the game goes on from where it stopped.",
                            gone_after.as_secs()
                        )));
                        continue;
                    }
                };
                let next = match &event {
                    NetEvent::Room { event: RoomEvent::SeatTaken { seat }, .. } if *seat != own => {
                        Some((Phase::Seated, None))
                    }
                    NetEvent::Snapshot(s) => {
                        let other = s.seats.get(own.other()).taken;
                        Some((if other { Phase::Seated } else { Phase::WaitingForGuest }, None))
                    }
                    NetEvent::Disconnected { reason, .. } => {
                        lost_since.get_or_insert_with(Instant::now);
                        (phase != Phase::HostLeft).then(|| {
                            (
                                Phase::Reconnecting,
                                Some(format!(
                                    "Connection to the host lost ({reason}); trying again…"
                                )),
                            )
                        })
                    }
                    NetEvent::Rejoined { .. } => {
                        lost_since = None;
                        Some((Phase::Seated, None))
                    }
                    NetEvent::Closed(reason) => Some((
                        Phase::Closed,
                        match reason {
                            CloseReason::ByUser => None,
                            CloseReason::VersionMismatch(m) => Some(m.clone()),
                            CloseReason::SeatLost { message, .. } => {
                                Some(format!("The host no longer has this game: {message}"))
                            }
                        },
                    )),
                    _ => None,
                };
                if let Some((p, detail)) = next {
                    // A rejoin after a snapshot keeps the phase the snapshot gave.
                    if p != phase || detail.is_some() {
                        phase = p;
                        push(phase, detail);
                    }
                }
                let closed = matches!(event, NetEvent::Closed(_));
                // Nobody may have taken the events yet; they wait in the channel.
                let _ = forward.send(event);
                if closed {
                    break;
                }
            }
        });
        LanGame { role, url, seat, connection, events: Some(forwarded), watcher, status }
    }
}

fn list(browsing: bool, searching: bool, hosts: &[HostInfo]) -> HostList {
    let mut hosts: Vec<HostView> =
        hosts.iter().filter(|h| h.open_seats > 0).map(HostView::from).collect();
    hosts.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.id.cmp(&b.id)));
    HostList { browsing, searching, hosts, problem: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The web view reads the hosting fields at the top level of both hosted views (ui/views/lan.js,
    /// ui/views/chaturaji.js): flattening keeps them there.
    #[test]
    fn hosted_views_keep_the_hosting_fields_at_the_top_level() {
        let code = JoinCode {
            addr: "192.168.1.20:40123".parse().expect("an address"),
            room: "ABCD2345".parse().expect("a room code"),
        };
        let address = SocketAddr::V4(code.addr);
        let hosting =
            Hosting::new("Ana".into(), address, code.room.as_str().to_owned(), Some(&code));
        let keys = |value: serde_json::Value| -> Vec<String> {
            let mut keys: Vec<String> =
                value.as_object().expect("an object").keys().cloned().collect();
            keys.sort();
            keys
        };
        let chaturaji = serde_json::to_value(&hosting).expect("serializes");
        assert_eq!(
            keys(chaturaji.clone()),
            ["address", "advert_problem", "join_code", "join_url", "name", "qr", "room"]
        );
        assert_eq!(chaturaji["join_url"], format!("maharajah://join/{code}"));
        assert_eq!(chaturaji["address"], address.to_string());
        let chess =
            HostedView { hosting, seat: Color::Black, variant: Variant::Horde, hidden: false };
        let chess = serde_json::to_value(&chess).expect("serializes");
        assert_eq!(
            keys(chess.clone()),
            [
                "address",
                "advert_problem",
                "hidden",
                "join_code",
                "join_url",
                "name",
                "qr",
                "room",
                "seat",
                "variant"
            ]
        );
        assert_eq!(chess["room"], code.room.as_str());
        assert_eq!(chess["seat"], "black");
        assert_eq!(chess["advert_problem"], serde_json::Value::Null);
        for field in ["name", "address", "room", "join_code", "join_url", "qr", "advert_problem"] {
            assert_eq!(chess[field], chaturaji[field], "{field}");
        }
    }
}
