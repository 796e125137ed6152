//! One network game (online server or LAN host) on top of [`maharajah_net::Connection`].
//!
//! [`NetPlay`] owns at most one connection at a time. Its public API is all a screen needs:
//!
//! - [`NetPlay::create`] / [`NetPlay::join`]: connect to a `ws://host:port` URL, then create a
//!   room (answering with its 8-character access code) or take the free seat of a code. The
//!   online screen passes the server address setting; the LAN screen passes `ws://addr:port` of a
//!   host it found. [`NetPlay::adopt`] takes over a connection that is already seated (the LAN
//!   host's own, from `LanHost::start`).
//! - [`NetPlay::play`], [`NetPlay::pause`], [`NetPlay::resume`], [`NetPlay::resign`],
//!   [`NetPlay::offer_draw`] (also accepts), [`NetPlay::decline_draw`], [`NetPlay::claim_draw`],
//!   [`NetPlay::lock_army`] (hidden setup: commit now, reveal once both are fixed), and
//!   [`NetPlay::leave`]. [`NetPlay::saved_seat`] / [`NetPlay::rejoin`] take the seat back after
//!   the app was closed (the commands keep it in the settings store, token included).
//! - [`NetPlay::view`]: the [`NetView`] the UI draws. Every change is also pushed through the
//!   `emit` callback given to [`NetPlay::new`] as [`NetUpdate::View`]; while a clock runs or a
//!   pause counts down, [`NetUpdate::Tick`] carries the fresh times a few times a second.
//!
//! The server is the authority. The connection keeps the one replica of the room (the
//! protocol's fold of its events, and the engine game advanced move by move); every view and
//! every command's answer is read from it as it stands, so an answer is never older than a view
//! pushed before it (see [`NetView::revision`]). The board, legal moves and SAN are the replica
//! game's; the clocks, pauses and result are the server's. The seat token stays in the connection, which reconnects with backoff and
//! resyncs by itself; meanwhile the view's [`Link`] says `reconnecting`.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use maharajah_engine::{Army, Game};
use maharajah_net::setup::HiddenSetup;
use maharajah_net::{
    ConnectOptions, Connection, NetError, NetEvent, PlayedMove, RoomState, SeatCredentials,
};
use maharajah_protocol::army::army_text;
use maharajah_protocol::{
    AccessCode, ByColor, ClockView, Color, EndReason, GameResult, Outcome, PauseReason, PauseView,
    Phase, RatingChange, RoomEvent, RoomOptions, SeatView, TimeControl, Variant,
};
use serde::Serialize;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::Notify;

use crate::chess::session::{Captured, GameView};
use crate::error::CoreError;
use crate::error::{net_code, server_code, AppError};
use crate::link::Invite;
use crate::store::{Store, SEAT_KEY};
use crate::time::{self, Time};

/// The server address used when the setting is empty.
pub const DEFAULT_SERVER_URL: &str = "ws://127.0.0.1:7878";

/// How often [`NetUpdate::Tick`] is pushed while a clock runs or a pause counts down.
const TICK: Duration = Duration::from_millis(200);

/// Why a network action failed. `code()` is what the UI branches on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetPlayError {
    /// The address is not a `ws://host:port` URL.
    BadUrl(String),
    /// The access code is not 8 characters of the code alphabet.
    BadCode(String),
    /// The army is not one of this seat's colour, or breaks the army rules.
    BadArmy(String),
    /// No game is open.
    NoGame,
    /// The client library's error (cannot connect, version mismatch, refused by the server…).
    Net(NetError),
}

impl NetPlayError {
    /// The stable code the UI branches on: ours, or the network's ([`crate::error::net_code`]).
    #[must_use]
    pub fn code(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            NetPlayError::BadUrl(_) => "bad_url",
            NetPlayError::BadCode(_) => "bad_code",
            NetPlayError::BadArmy(_) => "bad_army",
            NetPlayError::NoGame => "no_game",
            NetPlayError::Net(e) => return net_code(e),
        })
    }
}

impl std::fmt::Display for NetPlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetPlayError::BadUrl(why) | NetPlayError::BadArmy(why) => f.write_str(why),
            NetPlayError::BadCode(why) => write!(f, "not a room code: {why}"),
            NetPlayError::NoGame => f.write_str("no network game is open"),
            NetPlayError::Net(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for NetPlayError {}

impl From<NetError> for NetPlayError {
    fn from(e: NetError) -> NetPlayError {
        NetPlayError::Net(e)
    }
}

impl From<NetPlayError> for AppError {
    fn from(e: NetPlayError) -> AppError {
        AppError { code: e.code(), message: e.to_string() }
    }
}

/// Reads a server address as people type it: `ws://host:port[/]`, `wss://host[:port][/]` (TLS;
/// the port defaults to 443), or `host:port` (ws assumed).
///
/// # Errors
/// [`NetPlayError::BadUrl`] for an empty address, another scheme, or a missing host or port.
pub fn normalize_url(text: &str) -> Result<String, NetPlayError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(NetPlayError::BadUrl("the server address is empty".into()));
    }
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme @ ("ws" | "wss"), rest)) => (scheme, rest),
        Some((scheme, _)) => {
            return Err(NetPlayError::BadUrl(format!(
                "{text}: the address must start with ws:// or wss://, not {scheme}://"
            )))
        }
        None => ("ws", text),
    };
    let host_port = rest.split('/').next().unwrap_or_default();
    let port_ok = match host_port.rsplit_once(':') {
        Some((host, port)) => !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0),
        // A secure address may leave the port out (443).
        None => scheme == "wss" && !host_port.is_empty(),
    };
    if !port_ok {
        return Err(NetPlayError::BadUrl(format!(
            "{text}: the address needs a host and a port, like ws://127.0.0.1:7878"
        )));
    }
    Ok(format!("{scheme}://{rest}"))
}

/// The state of the link to the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Link {
    /// Connected and talking.
    Connected,
    /// The link dropped; the next attempt is in `retry_ms`.
    Reconnecting {
        /// Why it dropped.
        reason: String,
        /// Milliseconds until the next attempt.
        retry_ms: u64,
    },
    /// The connection ended for good (left, version mismatch, seat lost).
    Closed {
        /// For people.
        reason: String,
    },
}

/// The clocks as shown now (the server's last report, run forward locally).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NetClock {
    /// White's time left, milliseconds.
    pub white_ms: u64,
    /// Black's time left, milliseconds.
    pub black_ms: u64,
    /// The side whose time runs.
    pub running: Option<Color>,
    /// The time control.
    pub control: Option<TimeControl>,
}

/// A pause in progress, counted down locally from the server's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NetPause {
    /// Whose pause.
    pub by: Color,
    /// Why it started.
    pub reason: PauseReason,
    /// Milliseconds until the game resumes by itself.
    pub remaining_ms: u64,
}

/// The result as the UI names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NetResult {
    /// The winner (none for a draw or an annulled game).
    pub winner: Option<Color>,
    /// The server's outcome (`annulled` means no result).
    pub outcome: Outcome,
    /// The i18n key of the reason: [`EndReason::name`] (`checkmate`, `timeout`…), or
    /// `left_before_start` for a resignation before the game started.
    pub reason: &'static str,
}

impl NetResult {
    fn of(r: GameResult) -> NetResult {
        let winner = match r.outcome {
            Outcome::WhiteWins => Some(Color::White),
            Outcome::BlackWins => Some(Color::Black),
            Outcome::Draw | Outcome::Annulled => None,
        };
        // A resignation before the game started is no result: the dialog says so in its words.
        let reason = match r.reason {
            EndReason::Resignation if r.outcome == Outcome::Annulled => "left_before_start",
            other => other.name(),
        };
        NetResult { winner, outcome: r.outcome, reason }
    }
}

/// Where this seat's hidden setup stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SetupStage {
    /// No hidden setup in this room, or the game has not reached it.
    None,
    /// Build an army and lock it in.
    Build,
    /// Our commitment is sent; waiting for the opponent's.
    Committed,
    /// Our army is revealed; waiting for the opponent's.
    Revealed,
    /// Both armies are revealed and the opponent's was checked against its commitment.
    Verified,
    /// The opponent's army failed the check (see the notice); the game must not be played.
    Refused,
}

/// A message for people that answered no request (e.g. a refused reveal, a dropped seat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    /// For programs.
    pub code: Cow<'static, str>,
    /// For people.
    pub message: String,
}

/// Everything the network game screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NetView {
    /// Grows with every view made: a view with a lower revision than the one shown is stale.
    pub revision: u64,
    /// The last room event the view includes (0 for none).
    pub seq: u64,
    /// The server's address.
    pub url: String,
    /// The link.
    pub link: Link,
    /// The server program's version (from its `welcome`).
    pub server_version: Option<String>,
    /// The server's rules engine version.
    pub engine_version: Option<String>,
    /// The last measured round trip, milliseconds.
    pub rtt_ms: Option<u64>,
    /// The room's access code, once seated.
    pub code: Option<String>,
    /// The link and QR code that bring the opponent to this room: only for a room on an online
    /// server (a LAN host shows its own join code), while the other seat is free.
    pub invite: Option<Invite>,
    /// Our seat.
    pub seat: Option<Color>,
    /// The room's variant, once known.
    pub variant: Option<Variant>,
    /// The room's clock.
    pub time_control: Option<TimeControl>,
    /// Hidden setup room.
    pub hidden_setup: bool,
    /// The room's phase, once known.
    pub phase: Option<Phase>,
    /// Both seats: taken, connected, pause left, committed, revealed.
    pub seats: ByColor<SeatView>,
    /// The clocks now.
    pub clock: Option<NetClock>,
    /// The pause in progress.
    pub pause: Option<NetPause>,
    /// A standing draw offer and who made it.
    pub draw_offer: Option<Color>,
    /// The result.
    pub result: Option<NetResult>,
    /// The board, legal moves (only when it is our move), SAN history, captures, once started.
    pub game: Option<GameView>,
    /// Whether we may move now.
    pub my_turn: bool,
    /// Our hidden setup.
    pub setup: SetupStage,
    /// The last message that answered no request.
    pub notice: Option<Notice>,
    /// A rated game's rating changes at its end, per seat (`None` before it, or for a casual
    /// game).
    pub ratings_changed: Option<ByColor<RatingChange>>,
    /// We watch this room as a spectator (no seat, no actions); `code` is the room's.
    pub watching: bool,
    /// A rematch offer standing in this finished room, and whose it is.
    pub rematch_offer: Option<Color>,
}

/// The fresh clock and pause, pushed a few times a second while they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NetTick {
    /// The clocks now.
    pub clock: Option<NetClock>,
    /// The pause now.
    pub pause: Option<NetPause>,
}

/// What is kept on the device to take the seat back after the app restarts. The token is the
/// seat's secret: it stays in the backend (the UI only sees the address and code). See
/// [`NetPlay::saved_seat`] and [`NetPlay::rejoin`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SavedSeat {
    /// The server's address.
    pub url: String,
    /// The room's access code.
    pub code: String,
    /// The seat.
    pub seat: Color,
    /// The seat's secret token.
    pub token: String,
}

/// What [`NetPlay`] pushes to its owner (the app emits `net` and `net-clock` events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetUpdate {
    /// The view changed.
    View(Box<NetView>),
    /// Clocks and pause countdown.
    Tick(NetTick),
}

type Emit = dyn Fn(NetUpdate) + Send + Sync;

/// What this session adds to the connection's replica (which holds the room, the seat and the
/// game on the board): what the link reported, the hidden setup, and when the replica's clock
/// and pause reports were first seen, to run them forward.
struct Live {
    generation: u64,
    /// Grows with every view made: views are made one at a time from the replica as it stands,
    /// so a higher revision never shows an older room.
    revision: u64,
    conn: Connection,
    url: String,
    link: Link,
    server_version: Option<String>,
    engine_version: Option<String>,
    rtt_ms: Option<u64>,
    /// The replica's last clock report and when it was first seen (on `time`'s scale).
    clock_seen: Option<(ClockView, u64)>,
    /// The replica's last pause report and when it was first seen.
    pause_seen: Option<(PauseView, u64)>,
    time: Time,
    /// Told of every event (and of the game's end here), so the ticker sleeps while nothing runs.
    changed: Arc<Notify>,
    hidden: Option<HiddenSetup>,
    stage: SetupStage,
    notice: Option<Notice>,
    /// A room on an online server (created, joined or taken back here), whose view invites
    /// the opponent with a link; false for a LAN host's game adopted from `Lan`.
    online: bool,
    /// The rated game's rating changes, once announced.
    ratings_changed: Option<ByColor<RatingChange>>,
    /// The room watched as a spectator (no seat).
    watching: Option<AccessCode>,
    /// The room of the seat last seen (a new one is a rematch's).
    seat_code: Option<AccessCode>,
}

struct Shared {
    live: Mutex<Option<Live>>,
    /// Where a rematch's new seat is kept.
    keeper: Mutex<Option<Store>>,
    emit: Box<Emit>,
    generations: std::sync::atomic::AtomicU64,
    time: Time,
}

/// One network game at a time. Cheap to clone; hand it to Tauri as managed state.
#[derive(Clone)]
pub struct NetPlay {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for NetPlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetPlay").finish_non_exhaustive()
    }
}

/// The room's facts a view shows, read from the replica together with its game.
#[derive(Clone, Copy)]
struct RoomFacts {
    variant: Variant,
    time_control: Option<TimeControl>,
    hidden_setup: bool,
    phase: Phase,
    seats: ByColor<SeatView>,
    clock: Option<ClockView>,
    pause: Option<PauseView>,
    draw_offer: Option<Color>,
    result: Option<GameResult>,
}

/// One read of the connection's replica: everything a view takes from it, of one moment.
struct Read {
    seq: u64,
    seat: Option<SeatCredentials>,
    room: Option<RoomFacts>,
    game: Option<GameView>,
}

impl Read {
    fn of(state: &RoomState) -> Read {
        Read {
            seq: state.last_seq,
            seat: state.seat.clone(),
            room: state.room.as_ref().map(|r| RoomFacts {
                variant: r.variant,
                time_control: r.time_control,
                hidden_setup: r.hidden_setup,
                phase: r.phase,
                seats: r.seats,
                clock: r.clock,
                pause: r.pause,
                draw_offer: r.draw_offer,
                result: r.result,
            }),
            game: state.game.as_ref().map(|game| replica_view(game, &state.played)),
        }
    }
}

/// The board, legal moves and SAN of the replica's game (its moves as shown were written once,
/// as they came).
fn replica_view(game: &Game, played: &[PlayedMove]) -> GameView {
    let mut captured = Captured::default();
    for (color, role) in played.iter().filter_map(|p| Some((p.color, p.captured?))) {
        match color {
            Color::White => captured.white.push(role),
            Color::Black => captured.black.push(role),
        }
    }
    let history = played.iter().map(|p| p.san.clone()).collect();
    GameView::of_game(game, history, captured, game.outcome().is_some())
}

impl Live {
    /// Reads the replica, noting when its clock and pause reports were first seen.
    fn read(&mut self) -> Read {
        let read = self.conn.with_room(Read::of);
        let now = self.time.now_ms();
        let room = read.room.as_ref();
        let clock = room.and_then(|r| r.clock);
        if clock != self.clock_seen.map(|(c, _)| c) {
            self.clock_seen = clock.map(|c| (c, now));
        }
        let pause = room.and_then(|r| r.pause);
        if pause != self.pause_seen.map(|(p, _)| p) {
            self.pause_seen = pause.map(|p| (p, now));
        }
        read
    }

    fn elapsed_ms(&self, since: u64) -> u64 {
        self.time.now_ms().saturating_sub(since)
    }

    fn clock_now(&self, room: &RoomFacts) -> Option<NetClock> {
        let (c, at) = self.clock_seen?;
        let spent = if room.result.is_none() { self.elapsed_ms(at) } else { 0 };
        let run = |color: Color, ms: u64| {
            if c.running == Some(color) {
                ms.saturating_sub(spent)
            } else {
                ms
            }
        };
        Some(NetClock {
            white_ms: run(Color::White, c.white_ms),
            black_ms: run(Color::Black, c.black_ms),
            running: c.running,
            control: room.time_control,
        })
    }

    fn pause_now(&self) -> Option<NetPause> {
        let (p, at) = self.pause_seen?;
        Some(NetPause {
            by: p.by,
            reason: p.reason,
            remaining_ms: p.remaining_ms.saturating_sub(self.elapsed_ms(at)),
        })
    }

    /// The fresh clock and pause while they run; `None` while nothing runs.
    fn tick(&mut self) -> Option<NetTick> {
        let room = self.read().room?;
        let ticking = room.result.is_none()
            && (room.pause.is_some() || room.clock.is_some_and(|c| c.running.is_some()));
        ticking.then(|| NetTick { clock: self.clock_now(&room), pause: self.pause_now() })
    }

    fn view(&mut self) -> NetView {
        let Read { seq, seat, room, mut game } = self.read();
        self.revision += 1;
        let my_seat = seat.as_ref().map(|s| s.seat);
        let mut my_turn = false;
        if let (Some(g), Some(room), Some(me)) = (game.as_mut(), room.as_ref(), my_seat) {
            my_turn = room.phase == Phase::Playing
                && room.result.is_none()
                && room.pause.is_none()
                && g.board.turn == me
                && self.stage != SetupStage::Refused;
            // The server decides the result; the UI reads it from `result`.
            g.result = None;
            g.draw_offer = room.draw_offer;
            if !my_turn {
                g.legal.clear();
                g.claimable = None;
            }
        }
        NetView {
            revision: self.revision,
            seq,
            url: self.url.clone(),
            link: self.link.clone(),
            server_version: self.server_version.clone(),
            engine_version: self.engine_version.clone(),
            rtt_ms: self.rtt_ms,
            code: seat
                .as_ref()
                .map(|s| s.code.as_str().to_owned())
                .or_else(|| self.watching.as_ref().map(|c| c.as_str().to_owned())),
            invite: seat
                .as_ref()
                .filter(|_| {
                    self.online && !matches!(room, Some(r) if r.phase != Phase::WaitingForOpponent)
                })
                .map(|s| Invite::new(&s.code, &self.url)),
            seat: my_seat,
            variant: room.map(|r| r.variant),
            time_control: room.and_then(|r| r.time_control),
            hidden_setup: room.is_some_and(|r| r.hidden_setup),
            phase: room.map(|r| r.phase),
            seats: room.map_or_else(no_seats, |r| r.seats),
            clock: room.and_then(|r| self.clock_now(&r)),
            pause: self.pause_now(),
            draw_offer: room.and_then(|r| r.draw_offer),
            result: room.and_then(|r| r.result).map(NetResult::of),
            game,
            my_turn,
            setup: self.stage,
            notice: self.notice.clone(),
            // The replica may hold a rematch's new seat before its `Seated` event has cleared
            // the finished game's changes here: they belong to the room of `seat_code` only.
            ratings_changed: self
                .ratings_changed
                .filter(|_| seat.as_ref().map(|s| &s.code) == self.seat_code.as_ref()),
            watching: self.watching.is_some(),
            rematch_offer: self.conn.with_lobby(|l| {
                l.rematch
                    .as_ref()
                    .filter(|r| Some(&r.0) == seat.as_ref().map(|s| &s.code))
                    .map(|r| r.1)
            }),
        }
    }

    /// Feeds the hidden setup; answers the army and nonce to reveal when the moment has come.
    fn observe_setup(&mut self, event: Option<&RoomEvent>) -> Option<(String, String)> {
        let hidden = self.hidden.as_mut()?;
        let checked = match event {
            Some(e) => hidden.observe(e),
            None => self.conn.with_room(|st| match &st.room {
                Some(s) => hidden.observe_snapshot(s),
                None => Ok(None),
            }),
        };
        match checked {
            Ok(Some(_verified)) => self.stage = SetupStage::Verified,
            Ok(None) => {}
            Err(e) => {
                self.stage = SetupStage::Refused;
                self.notice =
                    Some(Notice { code: "reveal_refused".into(), message: e.to_string() });
                return None;
            }
        }
        if matches!(event, Some(RoomEvent::SetupRejected { .. })) {
            self.hidden = None;
            self.stage = SetupStage::Build;
            return None;
        }
        if self.stage == SetupStage::Committed {
            if let Ok(opening) = hidden.reveal() {
                hidden.mark_revealed();
                self.stage = SetupStage::Revealed;
                return Some(opening);
            }
        }
        None
    }

    fn setup_stage_from_room(&mut self) {
        let building = self.conn.with_room(|st| {
            st.room.as_ref().is_some_and(|r| r.hidden_setup && r.phase == Phase::Setup)
        });
        if building && self.hidden.is_none() {
            self.stage = SetupStage::Build;
        }
    }

    fn seat(&self) -> Option<SeatCredentials> {
        self.conn.with_room(|st| st.seat.clone())
    }
}

impl NetPlay {
    /// A session with no game; every change is pushed through `emit`. Counts down with the
    /// system's time.
    pub fn new(emit: impl Fn(NetUpdate) + Send + Sync + 'static) -> NetPlay {
        NetPlay::with_time(emit, time::system())
    }

    /// A session with no game reading the time from `time`; changes go to `emit`.
    pub fn with_time(emit: impl Fn(NetUpdate) + Send + Sync + 'static, time: Time) -> NetPlay {
        NetPlay {
            shared: Arc::new(Shared {
                live: Mutex::new(None),
                keeper: Mutex::new(None),
                emit: Box::new(emit),
                generations: std::sync::atomic::AtomicU64::new(0),
                time,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Live>> {
        self.shared.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The game on the board of the open network room, once started (for the analysis board).
    #[must_use]
    pub fn game(&self) -> Option<Game> {
        self.lock().as_ref().and_then(|l| l.conn.with_room(|state| state.game.clone()))
    }

    /// The current view, if a game is open.
    #[must_use]
    pub fn view(&self) -> Option<NetView> {
        self.lock().as_mut().map(Live::view)
    }

    fn push(&self) {
        if let Some(view) = self.view() {
            (self.shared.emit)(NetUpdate::View(Box::new(view)));
        }
    }

    fn connection(&self) -> Result<Connection, NetPlayError> {
        self.lock().as_ref().map(|l| l.conn.clone()).ok_or(NetPlayError::NoGame)
    }

    /// Connects to `url` and creates a room; the view carries the access code to share.
    ///
    /// # Errors
    /// `bad_url`, `connect_failed`, `version_mismatch`, `invalid_options`, `rate_limited`…
    pub async fn create(&self, url: &str, options: RoomOptions) -> Result<NetView, NetPlayError> {
        let url = normalize_url(url)?;
        self.leave().await;
        let (conn, events) = Connection::connect(&url, ConnectOptions::default()).await?;
        match conn.create_room(options).await {
            Ok(_) => Ok(self.adopt_as(&url, conn, events, true, None)),
            Err(e) => {
                conn.close().await;
                Err(e.into())
            }
        }
    }

    /// Connects to `url` and takes the free seat of the room `code` (case, spaces and dashes
    /// are ignored).
    ///
    /// # Errors
    /// `bad_code` (checked before connecting), `bad_url`, `connect_failed`, `version_mismatch`,
    /// `room_not_found`, `room_full`, `rate_limited`…
    pub async fn join(&self, url: &str, code: &str) -> Result<NetView, NetPlayError> {
        let code: AccessCode = code.parse().map_err(|e: maharajah_protocol::AccessCodeError| {
            NetPlayError::BadCode(e.to_string())
        })?;
        let url = normalize_url(url)?;
        self.leave().await;
        let (conn, events) = Connection::connect(&url, ConnectOptions::default()).await?;
        match conn.join_room(code).await {
            Ok(_) => Ok(self.adopt_as(&url, conn, events, true, None)),
            Err(e) => {
                conn.close().await;
                Err(e.into())
            }
        }
    }

    /// The seat of the open game, to keep on the device ([`NetPlay::rejoin`] takes it back).
    #[must_use]
    pub fn saved_seat(&self) -> Option<SavedSeat> {
        let guard = self.lock();
        let live = guard.as_ref()?;
        let seat = live.seat()?;
        Some(SavedSeat {
            url: live.url.clone(),
            code: seat.code.as_str().to_owned(),
            seat: seat.seat,
            token: seat.token.clone(),
        })
    }

    /// Connects again and takes back a seat held before the app was closed; the room's state
    /// arrives as a snapshot. A seat the server no longer knows shows as a closed link.
    ///
    /// # Errors
    /// `bad_code`, `bad_url`, `connect_failed`, `version_mismatch`.
    pub async fn rejoin(&self, saved: &SavedSeat) -> Result<NetView, NetPlayError> {
        let code: AccessCode =
            saved.code.parse().map_err(|e: maharajah_protocol::AccessCodeError| {
                NetPlayError::BadCode(e.to_string())
            })?;
        let url = normalize_url(&saved.url)?;
        self.leave().await;
        let seat = SeatCredentials { code, seat: saved.seat, token: saved.token.clone() };
        // This session knows nothing of the room: a `last_seq` beyond the room's asks the server
        // for a whole snapshot (0 would replay the events since the start, without the room's
        // settings).
        let (conn, events) =
            Connection::resume(&url, ConnectOptions::default(), seat, u64::MAX).await?;
        Ok(self.adopt_as(&url, conn, events, true, None))
    }

    /// Takes over a connection (seated or not) and its events, e.g. the LAN host's own from
    /// `LanHost::start`. Must be called inside the Tokio runtime. Any previous game is dropped.
    pub fn adopt(
        &self,
        url: &str,
        conn: Connection,
        events: UnboundedReceiver<NetEvent>,
    ) -> NetView {
        self.adopt_as(url, conn, events, false, None)
    }

    /// [`NetPlay::adopt`], saying whether the room is on an online server (its view then
    /// carries the invitation while the other seat is free).
    fn adopt_as(
        &self,
        url: &str,
        conn: Connection,
        events: UnboundedReceiver<NetEvent>,
        online: bool,
        versions: Option<(String, String)>,
    ) -> NetView {
        let (server_version, engine_version) = versions.unzip();
        let generation =
            self.shared.generations.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let live = Live {
            generation,
            revision: 0,
            conn,
            url: url.to_owned(),
            link: Link::Connected,
            server_version,
            engine_version,
            rtt_ms: None,
            clock_seen: None,
            pause_seen: None,
            time: Arc::clone(&self.shared.time),
            changed: Arc::new(Notify::new()),
            hidden: None,
            stage: SetupStage::None,
            notice: None,
            online,
            ratings_changed: None,
            watching: None,
            seat_code: None,
        };
        let mut live = live;
        live.seat_code = live.conn.with_room(|r| r.seat.as_ref().map(|s| s.code.clone()));
        let old = self.lock().replace(live);
        if let Some(old) = old {
            old.changed.notify_one();
            tokio::spawn(async move { old.conn.close().await });
        }
        tokio::spawn(pump(self.clone(), generation, events));
        tokio::spawn(ticker(self.clone(), generation));
        let view = self.view().unwrap_or_else(|| unreachable_view(url));
        (self.shared.emit)(NetUpdate::View(Box::new(view.clone())));
        view
    }

    /// Keeps the seat of a room a rematch moves the game to in `store` (as the commands keep
    /// the seats they take).
    pub fn keep_seats_in(&self, store: Store) {
        *self.shared.keeper.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(store);
    }

    fn keep_seat_now(&self) {
        let store =
            self.shared.keeper.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(store) = store {
            if let Err(e) = keep_seat(&store, self.saved_seat()) {
                eprintln!("the rematch's seat is not kept: {e}");
            }
        }
    }

    /// After a finished game: offers a rematch with colours swapped, or accepts the
    /// opponent's. With both offers in, the game moves to the new room by itself.
    ///
    /// # Errors
    /// `no_game`, `wrong_phase` (the game is not over), `closed`…
    pub async fn rematch(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.rematch().await?;
        self.answer()
    }

    /// Takes over a connection of an online server the lobby has just seated (a challenge
    /// accepted, a pairing made); its events continue here.
    /// `versions` are the server's and its engine's, from the `welcome` the lobby saw.
    pub fn adopt_online(
        &self,
        url: &str,
        conn: Connection,
        events: UnboundedReceiver<NetEvent>,
        versions: Option<(String, String)>,
    ) -> NetView {
        // The versions are in the state before its first view: a view of the game without
        // them (the lobby took the `welcome`) must never be seen.
        self.adopt_as(url, conn, events, true, versions);
        self.answer().unwrap_or_else(|_| unreachable_view(url))
    }

    /// Connects to `url` and watches room `code` as a spectator: board, clocks, moves and
    /// presence, no actions (every action is refused `no_game`-like by the server: no seat).
    ///
    /// # Errors
    /// `bad_code`, `bad_url`, `connect_failed`, `room_not_found`, `too_many_spectators`…
    pub async fn watch(
        &self,
        url: &str,
        code: &str,
        options: ConnectOptions,
    ) -> Result<NetView, NetPlayError> {
        let code: AccessCode = code.parse().map_err(|e: maharajah_protocol::AccessCodeError| {
            NetPlayError::BadCode(e.to_string())
        })?;
        let url = normalize_url(url)?;
        self.leave().await;
        let (conn, events) = Connection::connect(&url, options).await?;
        if let Err(e) = conn.watch(code.clone()).await {
            conn.close().await;
            return Err(e.into());
        }
        self.adopt_as(&url, conn, events, false, None);
        self.with_live_now(|live| live.watching = Some(code));
        self.push();
        self.answer()
    }

    fn with_live_now(&self, f: impl FnOnce(&mut Live)) {
        if let Some(live) = self.lock().as_mut() {
            f(live);
        }
    }

    /// Runs `f` on the live game of `generation` (none if it was replaced meanwhile).
    fn with_live<T>(&self, generation: u64, f: impl FnOnce(&mut Live) -> T) -> Option<T> {
        let mut guard = self.lock();
        match guard.as_mut() {
            Some(live) if live.generation == generation => Some(f(live)),
            _ => None,
        }
    }

    fn handle(&self, generation: u64, event: NetEvent) -> bool {
        let mut reveal = None;
        let mut conn = None;
        let mut rematched = false;
        let alive = self.with_live(generation, |live| {
            live.changed.notify_one();
            match event {
                NetEvent::Connected { server_version, engine_version, .. } => {
                    live.server_version = Some(server_version);
                    live.engine_version = Some(engine_version);
                    live.link = Link::Connected;
                }
                // The replica holds the seat and the room already; the view reads them there.
                // A seat while one was held is a rematch's new room: nothing of the old stays.
                NetEvent::Seated(seat) => {
                    if live.seat_code.as_ref().is_some_and(|c| *c != seat.code) {
                        rematched = true;
                    }
                    live.seat_code = Some(seat.code);
                    live.ratings_changed = None;
                    live.notice = None;
                    live.hidden = None;
                    live.stage = SetupStage::None;
                    live.clock_seen = None;
                    live.pause_seen = None;
                }
                NetEvent::Snapshot(_) => {
                    live.link = Link::Connected;
                    live.setup_stage_from_room();
                    reveal = live.observe_setup(None);
                }
                NetEvent::Room { event, .. } => {
                    if let RoomEvent::RatingsChanged { ratings } = &event {
                        live.ratings_changed = Some(**ratings);
                    }
                    if matches!(event, RoomEvent::SetupStarted) && live.hidden.is_none() {
                        live.stage = SetupStage::Build;
                    }
                    if let RoomEvent::SetupRejected { reason } = &event {
                        live.notice =
                            Some(Notice { code: "setup_rejected".into(), message: reason.clone() });
                    }
                    reveal = live.observe_setup(Some(&event));
                }
                NetEvent::Disconnected { reason, retry_in } => {
                    live.link = Link::Reconnecting {
                        reason,
                        retry_ms: u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
                    };
                }
                NetEvent::Rejoined { .. } => live.link = Link::Connected,
                // Rematch offers are read from the connection's lobby state; the rest of the
                // lobby's news is the lobby's ([`crate::lobby`]).
                NetEvent::Lobby(_) | NetEvent::Player(_) => {}
                NetEvent::Rtt(d) => {
                    live.rtt_ms = Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                }
                NetEvent::ServerError { code, message } => {
                    live.notice = Some(Notice { code: server_code(code), message });
                }
                NetEvent::ProtocolViolation(m) => {
                    live.notice = Some(Notice { code: "protocol".into(), message: m });
                }
                NetEvent::Closed(reason) => {
                    let message = match reason {
                        maharajah_net::client::CloseReason::ByUser => "left".to_owned(),
                        maharajah_net::client::CloseReason::VersionMismatch(m) => m,
                        maharajah_net::client::CloseReason::SeatLost { message, .. } => message,
                    };
                    live.link = Link::Closed { reason: message };
                }
            }
            if reveal.is_some() {
                conn = Some(live.conn.clone());
            }
        });
        if alive.is_none() {
            return false;
        }
        if rematched {
            self.keep_seat_now();
        }
        if let (Some((army, nonce)), Some(conn)) = (reveal, conn) {
            let me = self.clone();
            tokio::spawn(async move {
                if let Err(e) = conn.reveal(&army, &nonce).await {
                    me.with_live(generation, |live| {
                        live.notice = Some(Notice { code: net_code(&e), message: e.to_string() });
                    });
                    me.push();
                }
            });
        }
        self.push();
        true
    }

    /// Plays a move (UCI) at the current ply; answers once the server has stored it.
    ///
    /// # Errors
    /// `no_game`, `illegal_move`, `not_your_turn`, `game_paused`, `game_over`, `closed`…
    pub async fn play(&self, uci: &str) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.play(uci.trim()).await?;
        self.answer()
    }

    /// The view after an action, read from the replica, which took the action's room event
    /// before the server's answer came: so it shows the action, and its `revision` and `seq` are
    /// at least those of every view pushed before it.
    fn answer(&self) -> Result<NetView, NetPlayError> {
        self.view().ok_or(NetPlayError::NoGame)
    }

    /// Uses our one pause (both clocks stop for up to 60 s).
    ///
    /// # Errors
    /// `pause_used`, `no_clock`, `wrong_phase`, `no_game`…
    pub async fn pause(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.pause().await?;
        self.answer()
    }

    /// Ends our pause early.
    ///
    /// # Errors
    /// `not_paused`, `no_game`…
    pub async fn resume(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.resume_play().await?;
        self.answer()
    }

    /// Resigns (before the game starts: leaves the room without a result).
    ///
    /// # Errors
    /// `game_over`, `no_game`…
    pub async fn resign(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.resign().await?;
        self.answer()
    }

    /// Offers a draw, or accepts the opponent's offer.
    ///
    /// # Errors
    /// `game_over`, `no_draw`, `no_game`…
    pub async fn offer_draw(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.offer_draw().await?;
        self.answer()
    }

    /// Declines the opponent's draw offer.
    ///
    /// # Errors
    /// `no_draw`, `no_game`…
    pub async fn decline_draw(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.decline_draw().await?;
        self.answer()
    }

    /// Claims a draw by threefold repetition or the fifty-move rule.
    ///
    /// # Errors
    /// `no_draw`, `not_your_turn`, `no_game`…
    pub async fn claim_draw(&self) -> Result<NetView, NetPlayError> {
        let conn = self.connection()?;
        conn.claim_draw().await?;
        self.answer()
    }

    /// Hidden setup: locks in our army. Only its commitment is sent now; the army itself goes
    /// out once both commitments are fixed and the room opens the reveal, and the opponent's
    /// army is checked against its commitment when both are opened.
    ///
    /// # Errors
    /// `bad_army` (wrong colour or rules broken), `no_game`, `wrong_phase`, `already_committed`…
    pub async fn lock_army(&self, army: &Army) -> Result<NetView, NetPlayError> {
        let (conn, commitment, generation, reveal) = {
            let mut guard = self.lock();
            let live = guard.as_mut().ok_or(NetPlayError::NoGame)?;
            let seat = live.seat().ok_or(NetPlayError::Net(NetError::NotSeated))?.seat;
            if army.color() != seat {
                return Err(NetPlayError::BadArmy(format!(
                    "this seat plays {seat:?}; the army is the other colour's"
                )));
            }
            let setup = HiddenSetup::new(seat, &army_text(army))
                .map_err(|e| NetPlayError::BadArmy(e.to_string()))?;
            let commitment = setup.commitment().to_owned();
            live.hidden = Some(setup);
            live.stage = SetupStage::Committed;
            live.notice = None;
            // Commitments already seen (the opponent may have locked in first).
            let reveal = live.observe_setup(None);
            (live.conn.clone(), commitment, live.generation, reveal)
        };
        if let Err(e) = conn.commit(&commitment).await {
            self.with_live(generation, |live| {
                live.hidden = None;
                live.stage = SetupStage::Build;
            });
            self.push();
            return Err(e.into());
        }
        if let Some((army, nonce)) = reveal {
            conn.reveal(&army, &nonce).await?;
        }
        self.push();
        self.answer()
    }

    /// Leaves the game: closes the connection (the seat stays in the room until it expires).
    pub async fn leave(&self) {
        let old = self.lock().take();
        if let Some(old) = old {
            old.changed.notify_one();
            old.conn.close().await;
        }
    }

    /// The connection of the open game (for the LAN screen's own needs, e.g. `drop_link`).
    #[must_use]
    pub fn current_connection(&self) -> Option<Connection> {
        self.lock().as_ref().map(|l| l.conn.clone())
    }
}

fn no_seats() -> ByColor<SeatView> {
    ByColor::new_with(|_| SeatView {
        taken: false,
        connected: false,
        pause_available: true,
        committed: false,
        revealed: false,
    })
}

fn unreachable_view(url: &str) -> NetView {
    NetView {
        revision: 0,
        seq: 0,
        url: url.to_owned(),
        link: Link::Closed { reason: "left".into() },
        server_version: None,
        engine_version: None,
        rtt_ms: None,
        code: None,
        invite: None,
        seat: None,
        variant: None,
        time_control: None,
        hidden_setup: false,
        phase: None,
        seats: no_seats(),
        clock: None,
        pause: None,
        draw_offer: None,
        result: None,
        game: None,
        my_turn: false,
        setup: SetupStage::None,
        notice: None,
        ratings_changed: None,
        watching: false,
        rematch_offer: None,
    }
}

/// Reads the connection's events into the view until the game is replaced or the link ends.
async fn pump(net: NetPlay, generation: u64, mut events: UnboundedReceiver<NetEvent>) {
    while let Some(event) = events.recv().await {
        let closed = matches!(event, NetEvent::Closed(_));
        if !net.handle(generation, event) || closed {
            break;
        }
    }
}

/// Pushes the running clock and the pause countdown while they run.
/// Sleeps until the next push while they run, and until the game changes while nothing runs.
async fn ticker(net: NetPlay, generation: u64) {
    let Some(changed) = net.with_live(generation, |live| Arc::clone(&live.changed)) else {
        return;
    };
    loop {
        let tick = net.with_live(generation, Live::tick);
        match tick {
            None => break,
            Some(None) => changed.notified().await,
            Some(Some(t)) => {
                (net.shared.emit)(NetUpdate::Tick(t));
                tokio::time::sleep(TICK).await;
            }
        }
    }
}

/// Keeps the seat of the open game on the device (or forgets it: `None`).
///
/// # Errors
/// `storage`.
pub fn keep_seat(store: &Store, seat: Option<SavedSeat>) -> Result<(), AppError> {
    let value = seat.map_or(serde_json::Value::Null, |s| {
        serde_json::to_value(s).unwrap_or(serde_json::Value::Null)
    });
    Ok(store.set_setting(SEAT_KEY, &value).map_err(CoreError::from)?)
}

/// The seat kept on the device, if any.
///
/// # Errors
/// `storage`.
pub fn kept_seat(store: &Store) -> Result<Option<SavedSeat>, AppError> {
    let settings = store.settings().map_err(CoreError::from)?;
    Ok(settings
        .into_iter()
        .find(|(k, _)| k == SEAT_KEY)
        .and_then(|(_, v)| serde_json::from_value(v).ok()))
}

/// The room kept from before the app was closed: `{ url, code }` (the token stays here).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptRoom {
    /// The server's address.
    pub url: String,
    /// The room's code.
    pub code: String,
}

/// The room this device held a seat in when the app was last closed, if any.
///
/// # Errors
/// `storage`.
pub fn kept_room(store: &Store) -> Result<Option<KeptRoom>, AppError> {
    Ok(kept_seat(store)?.map(|s| KeptRoom { url: s.url, code: s.code }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_as_people_type_them() {
        assert_eq!(normalize_url(" ws://127.0.0.1:7878 ").as_deref(), Ok("ws://127.0.0.1:7878"));
        assert_eq!(normalize_url("example.org:80/").as_deref(), Ok("ws://example.org:80/"));
        assert_eq!(
            normalize_url("wss://play.example.org").as_deref(),
            Ok("wss://play.example.org")
        );
        assert_eq!(normalize_url("wss://a:8443/").as_deref(), Ok("wss://a:8443/"));
        for bad in
            ["", "ws://example.org", "http://a:1", "wss://", "wss://a:0", ":7878", "a:0", "a:x"]
        {
            let e = normalize_url(bad).expect_err(bad);
            assert_eq!(e.code(), "bad_url", "{bad}");
        }
    }

    #[test]
    fn armies_become_protocol_text() {
        let text = army_text(&Army::orthodox(Color::White));
        assert!(text.starts_with("Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2"), "{text}");
        assert!(maharajah_net::setup::validate_army(Color::White, &text).is_ok());
    }

    #[test]
    fn results_name_their_reason() {
        let r = |outcome, reason| NetResult::of(GameResult { outcome, reason });
        assert_eq!(r(Outcome::BlackWins, EndReason::Timeout).reason, "timeout");
        assert_eq!(r(Outcome::BlackWins, EndReason::Timeout).winner, Some(Color::Black));
        let annulled = r(Outcome::Annulled, EndReason::TimeoutBeforeFirstMove);
        assert_eq!((annulled.winner, annulled.reason), (None, "timeout_before_first_move"));
        assert_eq!(r(Outcome::Annulled, EndReason::Resignation).reason, "left_before_start");
    }
}
