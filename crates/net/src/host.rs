//! The LAN host (the server library embedded in the app) and the fallback ways to join it.
//!
//! [`LanServer`] is the server library ([`maharajah_server::run`], in memory) embedded on an
//! ephemeral port: the same room runtime as the online server. [`LanHost`] is a chess game on
//! one: [`LanHost::start`] starts a [`LanServer`], connects the host player's own [`Connection`]
//! over loopback, creates the room, and advertises it with an [`Advertiser`]. When the guest
//! takes the seat the advertisement is withdrawn (a snapshot showing the seat free again after a
//! resync brings it back). A Chaturaji table hosted on this device uses a [`LanServer`] directly.
//!
//! Fallbacks for networks that block multicast: the host shows its `address:port` and room code
//! (the guest calls [`join`]), or a [`JoinCode`] that packs all three into 18 characters. When
//! the advertisement is refused (at once, or later: iOS's local-network prompt answered "Don't
//! Allow"), hosting goes on and [`LanHost::advert_problem`] says why, for the host's screen.
//!
//! When the host leaves for good ([`LanHost::stop`], or the app is killed), the server stops:
//! the guest's connection keeps trying to reconnect (reporting `Disconnected` with the next
//! attempt) and its clock rules stay those of the room — nothing is decided by the absence; the
//! app should tell the guest "the host has left; waiting for it to come back" and offer to leave.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4};
use std::str::FromStr;
use std::time::Instant;

use maharajah_protocol::{
    AccessCode, RoomEvent, RoomOptions, ACCESS_CODE_ALPHABET, ACCESS_CODE_LEN,
};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::client::{ConnectOptions, Connection, NetError, NetEvent, SeatCredentials};
use crate::discovery::{Advertiser, BrowseFailure, HostAd, Scope};

/// The WebSocket URL of a host address.
pub fn ws_url(addr: SocketAddr) -> String {
    format!("ws://{addr}/")
}

/// Joins a LAN host by address and room code (the typed fallback, or a tapped list entry).
///
/// # Errors
///
/// As [`Connection::connect`] and [`Connection::join_room`].
pub async fn join(
    addr: SocketAddr,
    code: AccessCode,
    options: ConnectOptions,
) -> Result<(Connection, mpsc::UnboundedReceiver<NetEvent>, SeatCredentials), NetError> {
    let (conn, events) = Connection::connect(&ws_url(addr), options).await?;
    let seat = conn.join_room(code).await?;
    Ok((conn, events, seat))
}

/// Why a join code cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinCodeError {
    /// Not 18 characters of the code alphabet once spaces and dashes are removed.
    #[error("a join code is 18 letters and digits (no 0, 1, I or O)")]
    Malformed,
}

/// A short code (or QR payload) that takes a guest to a LAN host without discovery.
///
/// Format: the 11 bytes `IPv4 (4) || port (2, big-endian) || room code (5: its 8 characters as
/// 5-bit indices into the access-code alphabet)`, i.e. 88 bits, plus 2 zero bits, written as 18
/// characters of the access-code alphabet `23456789ABCDEFGHJKLMNPQRSTUVWXYZ` (5 bits each, most
/// significant first), shown in three groups of six: `XXXXXX-XXXXXX-XXXXXX`. Reading accepts
/// lower case, spaces and dashes.
///
/// # Examples
///
/// ```
/// use maharajah_net::JoinCode;
/// let code = JoinCode { addr: "192.168.1.20:40123".parse().unwrap(), room: "ABCD2345".parse().unwrap() };
/// let text = code.to_string();
/// assert_eq!(text.len(), 20);
/// assert_eq!(text.to_lowercase().parse::<JoinCode>().unwrap(), code);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinCode {
    /// The host's address and port.
    pub addr: SocketAddrV4,
    /// The room.
    pub room: AccessCode,
}

const JOIN_CODE_CHARS: usize = 18;

fn alphabet_index(c: char) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    ACCESS_CODE_ALPHABET.iter().position(|&a| char::from(a) == c).and_then(|i| u8::try_from(i).ok())
}

impl JoinCode {
    fn bits(&self) -> u128 {
        let mut v: u128 = u128::from(u32::from(*self.addr.ip()));
        v = (v << 16) | u128::from(self.addr.port());
        for c in self.room.as_str().chars() {
            v = (v << 5) | u128::from(alphabet_index(c).unwrap_or(0));
        }
        v << 2
    }
}

impl fmt::Display for JoinCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.bits();
        for i in 0..JOIN_CODE_CHARS {
            if i > 0 && i % 6 == 0 {
                f.write_str("-")?;
            }
            let shift = 5 * (JOIN_CODE_CHARS - 1 - i);
            let idx = ((bits >> shift) & 31) as usize;
            write!(f, "{}", ACCESS_CODE_ALPHABET.get(idx).map_or('?', |&b| char::from(b)))?;
        }
        Ok(())
    }
}

impl FromStr for JoinCode {
    type Err = JoinCodeError;

    fn from_str(s: &str) -> Result<JoinCode, JoinCodeError> {
        let mut bits: u128 = 0;
        let mut n = 0;
        for c in s.chars().filter(|c| !c.is_whitespace() && *c != '-') {
            let i = alphabet_index(c).ok_or(JoinCodeError::Malformed)?;
            bits = (bits << 5) | u128::from(i);
            n += 1;
            if n > JOIN_CODE_CHARS {
                return Err(JoinCodeError::Malformed);
            }
        }
        if n != JOIN_CODE_CHARS || bits & 3 != 0 {
            return Err(JoinCodeError::Malformed);
        }
        bits >>= 2;
        let mut room = [0u8; ACCESS_CODE_LEN];
        for slot in room.iter_mut().rev() {
            *slot = (bits & 31) as u8;
            bits >>= 5;
        }
        let port = (bits & 0xffff) as u16;
        let ip = Ipv4Addr::from((bits >> 16) as u32);
        Ok(JoinCode { addr: SocketAddrV4::new(ip, port), room: AccessCode::from_indices(room) })
    }
}

/// How to host.
#[derive(Clone, Debug)]
pub struct LanHostOptions {
    /// The host's display name in the guests' list.
    pub display_name: String,
    /// The room (variant, clock, hidden setup, the host's colour).
    pub room: RoomOptions,
    /// Address to listen on (default: every IPv4 interface).
    pub bind: IpAddr,
    /// The address to put in the join code and to announce; None: found from the routing table
    /// (the interface multicast goes out of), and every interface address is announced.
    pub lan_address: Option<Ipv4Addr>,
    /// mDNS interfaces.
    pub scope: Scope,
    /// Options of the host player's own connection.
    pub connect: ConnectOptions,
}

impl LanHostOptions {
    /// Defaults for `room`, shown as `display_name`.
    pub fn new(display_name: impl Into<String>, room: RoomOptions) -> LanHostOptions {
        LanHostOptions {
            display_name: display_name.into(),
            room,
            bind: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            lan_address: None,
            scope: Scope::Lan,
            connect: ConnectOptions::default(),
        }
    }
}

/// Why hosting failed.
#[derive(Debug, thiserror::Error)]
pub enum LanHostError {
    /// The port could not be opened.
    #[error("cannot listen: {0}")]
    Io(#[from] std::io::Error),
    /// The host's own connection or room creation failed.
    #[error("{0}")]
    Net(#[from] NetError),
}

/// A LAN game hosted by this device: the embedded server ([`LanServer`]), its advertisement,
/// and the host player's own connection.
#[derive(Debug)]
pub struct LanHost {
    server: LanServer,
    join_code: Option<JoinCode>,
    seat: SeatCredentials,
    watcher: Option<JoinHandle<Option<Advertiser>>>,
    quit_watcher: Option<oneshot::Sender<()>>,
    advert_problems: watch::Receiver<Option<BrowseFailure>>,
    started: Instant,
}

/// The route multicast would take, i.e. the Wi-Fi address (no packet is sent).
fn lan_ipv4() -> Option<Ipv4Addr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("224.0.0.251:5353").ok()?;
    match s.local_addr().ok()?.ip() {
        IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}

impl LanHost {
    /// Starts the server on an ephemeral port, creates the room with the host's own connection
    /// and advertises it. Returns the host, the host player's connection and its events.
    ///
    /// # Errors
    ///
    /// [`LanHostError`]; the server is stopped again on failure. A refused advertisement is
    /// no failure: the game is hosted without it ([`LanHost::advert_problem`]).
    pub async fn start(
        options: LanHostOptions,
    ) -> Result<(LanHost, Connection, mpsc::UnboundedReceiver<NetEvent>), LanHostError> {
        let started = Instant::now();
        let mut server = LanServer::start(options.bind, options.lan_address).await?;
        let (conn, mut events) =
            match Connection::connect(&server.local_url(), options.connect.clone()).await {
                Ok(c) => c,
                Err(e) => {
                    server.stop().await;
                    return Err(e.into());
                }
            };
        let seat = match conn.create_room(options.room.clone()).await {
            Ok(s) => s,
            Err(e) => {
                conn.close().await;
                server.stop().await;
                return Err(e.into());
            }
        };
        let port = server.addr().port();
        let ad = HostAd {
            display_name: options.display_name.clone(),
            variant: options.room.variant,
            chaturaji: false,
            hidden_setup: options.room.hidden_setup,
            open_seats: 1,
            code: seat.code.clone(),
            port,
            addresses: options.lan_address.into_iter().collect(),
        };
        // Guests who cannot see the advert still join by join code or address.
        let (advertiser, advert_problems) = match Advertiser::start(ad, options.scope) {
            Ok(a) => {
                let problems = a.problems();
                (Some(a), problems)
            }
            Err(e) => (None, watch::channel(Some(e.failure())).1),
        };
        let join_code = server.join_code(seat.code.clone());
        // Watches the host player's events: withdraws the advertisement when the other seat is
        // taken, and forwards every event to the app unchanged.
        let (tx, rx) = mpsc::unbounded_channel();
        let own = seat.seat;
        let (quit, mut quit_rx) = oneshot::channel::<()>();
        let watcher = tokio::spawn(async move {
            let mut advertiser = advertiser;
            loop {
                let e = tokio::select! {
                    _ = &mut quit_rx => break,
                    e = events.recv() => match e { Some(e) => e, None => break },
                };
                let open = match &e {
                    NetEvent::Room { event: RoomEvent::SeatTaken { seat }, .. } if *seat != own => {
                        Some(0)
                    }
                    NetEvent::Snapshot(s) => Some(u8::from(!s.seats.get(own.other()).taken)),
                    _ => None,
                };
                if let (Some(open), Some(a)) = (open, advertiser.as_mut()) {
                    let a_open = a.ad().map_or(0, |ad| ad.open_seats);
                    if open != a_open {
                        // An advertising failure must not stop the game; the fallbacks remain.
                        let _ = a.set_open_seats(open);
                    }
                }
                if matches!(e, NetEvent::Closed(_)) {
                    if let Some(a) = advertiser.take() {
                        let _ = tokio::task::spawn_blocking(move || a.shutdown()).await;
                    }
                }
                if tx.send(e).is_err() {
                    break;
                }
            }
            advertiser
        });
        let host = LanHost {
            server,
            join_code,
            seat,
            watcher: Some(watcher),
            quit_watcher: Some(quit),
            advert_problems,
            started,
        };
        Ok((host, conn, rx))
    }

    /// The address guests connect to (the LAN address when known).
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// The join code to show (None when no LAN address was found).
    pub fn join_code(&self) -> Option<&JoinCode> {
        self.join_code.as_ref()
    }

    /// The host player's seat.
    pub fn seat(&self) -> &SeatCredentials {
        &self.seat
    }

    /// Why guests on the network cannot see this game in their list, when the advertisement was
    /// refused (at once, or later by the platform: iOS's local-network permission). None while
    /// advertised (or withdrawn because the seat is taken).
    pub fn advert_problem(&self) -> Option<BrowseFailure> {
        self.advert_problems.borrow().clone()
    }

    /// [`LanHost::advert_problem`] as it changes (it keeps its last value once hosting stops).
    pub fn advert_problems(&self) -> watch::Receiver<Option<BrowseFailure>> {
        self.advert_problems.clone()
    }

    /// When `start` began (for the benchmark of host start → visible).
    pub fn started_at(&self) -> Instant {
        self.started
    }

    /// Withdraws the advertisement and stops the server (the guest sees the host disappear and
    /// its connection retries). Close the host player's connection first if it should not retry.
    pub async fn stop(&mut self) {
        if let Some(q) = self.quit_watcher.take() {
            let _ = q.send(());
        }
        if let Some(w) = self.watcher.take() {
            if let Ok(Some(a)) = w.await {
                let _ = tokio::task::spawn_blocking(move || a.shutdown()).await;
            }
        }
        self.server.stop().await;
    }
}

/// The server library embedded on an ephemeral port with no room of its own: the host's own
/// client creates the room over loopback ([`LanServer::local_url`]) and guests join it at
/// [`LanServer::addr`]. [`LanHost`] does that for a chess game; a Chaturaji table hosted on this
/// device uses it directly. Advertising is the caller's (it follows the room's open seats).
#[derive(Debug)]
pub struct LanServer {
    addr: SocketAddr,
    local: SocketAddr,
    lan: Option<Ipv4Addr>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), maharajah_server::ServerError>>>,
}

impl LanServer {
    /// Starts the server on an ephemeral port of `bind`. `lan_address`: the address to announce
    /// and put in join codes (None: found from the routing table).
    ///
    /// # Errors
    ///
    /// When the port cannot be opened.
    pub async fn start(
        bind: IpAddr,
        lan_address: Option<Ipv4Addr>,
    ) -> Result<LanServer, std::io::Error> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(bind, 0)).await?;
        let port = listener.local_addr()?.port();
        let (stop, stopped) = oneshot::channel::<()>();
        let config = maharajah_server::Config::default();
        let server = tokio::spawn(maharajah_server::run(listener, config, async move {
            let _ = stopped.await;
        }));
        let own_ip = if bind.is_unspecified() { IpAddr::V4(Ipv4Addr::LOCALHOST) } else { bind };
        let lan = lan_address.or_else(lan_ipv4);
        let addr =
            lan.map_or(SocketAddr::new(bind, port), |ip| SocketAddr::new(IpAddr::V4(ip), port));
        Ok(LanServer {
            addr,
            local: SocketAddr::new(own_ip, port),
            lan,
            stop: Some(stop),
            server: Some(server),
        })
    }

    /// The address guests connect to (the LAN address when known).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL this device's own client connects to (loopback unless bound to one address).
    pub fn local_url(&self) -> String {
        ws_url(self.local)
    }

    /// The LAN address announced (None when none was found).
    pub fn lan_address(&self) -> Option<Ipv4Addr> {
        self.lan
    }

    /// The join code of `room` on this server (None without a LAN address).
    pub fn join_code(&self, room: AccessCode) -> Option<JoinCode> {
        self.lan.map(|ip| JoinCode { addr: SocketAddrV4::new(ip, self.addr.port()), room })
    }

    /// Stops the server (connected clients see it go and retry).
    pub async fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.server.take() {
            let _ = t.await;
        }
    }
}

impl Drop for LanServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn join_codes_round_trip() {
        for (addr, room) in [
            ("192.168.1.20:40123", "ABCD2345"),
            ("10.200.0.1:1", "22222222"),
            ("255.255.255.255:65535", "ZZZZZZZZ"),
            ("0.0.0.0:0", "23456789"),
        ] {
            let c = JoinCode { addr: addr.parse().unwrap(), room: room.parse().unwrap() };
            let text = c.to_string();
            assert_eq!(text.len(), 20, "{text}");
            assert_eq!(text.matches('-').count(), 2);
            assert_eq!(text.parse::<JoinCode>().unwrap(), c);
            assert_eq!(text.replace('-', " ").to_lowercase().parse::<JoinCode>().unwrap(), c);
        }
    }

    #[test]
    fn bad_join_codes_are_refused() {
        assert_eq!("".parse::<JoinCode>(), Err(JoinCodeError::Malformed));
        assert_eq!("ABCDEF-ABCDEF-ABCDE".parse::<JoinCode>(), Err(JoinCodeError::Malformed));
        assert_eq!("ABCDEF-ABCDEF-ABCDEFG".parse::<JoinCode>(), Err(JoinCodeError::Malformed));
        assert_eq!("ABCDEF-ABCDEF-ABCDE0".parse::<JoinCode>(), Err(JoinCodeError::Malformed));
        // The two padding bits must be zero.
        assert_eq!("222222-222222-222223".parse::<JoinCode>(), Err(JoinCodeError::Malformed));
    }
}
