//! The online lobby as the app sees it: one identified connection to the server while the Online
//! screen is open, the player (name, ratings), the live list of open challenges this app can
//! play, our own challenges and quick-pairing wait.
//!
//! When the server seats the connection in a game (a challenge of ours accepted, one we accepted,
//! a pairing made) the connection itself becomes the game: it is handed to [`NetPlay`]
//! ([`NetPlay::adopt_online`]), the seat is kept like any online seat, and the lobby has no
//! connection until the screen opens it again. Every change is pushed as a [`LobbyView`].
//!
//! A Chaturaji challenge or pairing seats this device (its Chaturaji device id) at a table that
//! starts when full or with CPUs after its wait. The lobby's connection only waits there: when
//! the table starts, the seat is taken with the device's Chaturaji client
//! ([`NetState::join`], as for a table joined by code), whose views are pushed as `chaturaji`;
//! the lobby stays open and its view names the table (`matched`, `matched_game`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

pub use maharajah_net::Seeking;
use maharajah_net::{Connection, NetEvent};
use maharajah_protocol::{
    Challenge, ChallengeId, ChallengeOptions, GameId, LeaderboardEntry, LiveGame, LobbyGame,
    LobbyMsg, PlayerView, Profile, SpeedClass, TimeControl,
};
use serde::Serialize;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::Notify;

use crate::chaturaji::online::NetState;
use crate::chaturaji::view::TableView;
use crate::chess::online::{keep_seat, normalize_url, NetPlay, NetView};
use crate::error::AppError;
use crate::identity::{Identity, IdentityView};
use crate::store::Store;

/// The games this app plays from the lobby.
pub const GAMES: [LobbyGame; 4] =
    [LobbyGame::Chess, LobbyGame::Maharajah, LobbyGame::Horde, LobbyGame::Chaturaji];

/// The games this app can watch (a Chaturaji room is not watched from the app yet).
pub const WATCHED: [LobbyGame; 3] = [LobbyGame::Chess, LobbyGame::Maharajah, LobbyGame::Horde];

/// Where a started Chaturaji table goes: this device's network table and its pushes.
pub struct Tables {
    /// The device's network Chaturaji table (its device id seats us).
    pub net: Arc<NetState>,
    /// Where the table's views go.
    pub push: Arc<dyn Fn(TableView) + Send + Sync>,
}

/// The lobby's link to its server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LobbyLink {
    /// Not opened (or handed to a game).
    Closed,
    /// Connected and subscribed.
    Connected,
    /// The link dropped; the connection is trying again.
    Reconnecting,
    /// The server could not be reached (or refused us); `code` as in [`AppError`].
    Unreachable {
        /// For programs (`connect_failed`, `version_mismatch`…).
        code: String,
        /// For people.
        message: String,
    },
}

/// A challenge in the list, marked when it is ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedChallenge {
    /// The challenge as the server lists it.
    #[serde(flatten)]
    pub challenge: Challenge,
    /// We posted it (cancel instead of accept).
    pub mine: bool,
    /// A Chaturaji table we sit at (posted or joined): leave instead of join.
    pub seated: bool,
}

/// Everything the Online screen shows of the lobby.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LobbyView {
    /// Grows with every view: an older revision than the one shown is stale.
    pub revision: u64,
    /// The server's address, once opened.
    pub url: Option<String>,
    /// The link.
    pub link: LobbyLink,
    /// Our identity on this device (never its secret).
    pub identity: Option<IdentityView>,
    /// The player as the server knows us (name, ratings); `None` as a guest or before the
    /// server answered.
    pub player: Option<PlayerView>,
    /// Why the server refused our identity, if it did (we then play as a guest).
    pub identity_refused: Option<String>,
    /// The open challenges of the games this app plays, oldest first.
    pub challenges: Vec<ListedChallenge>,
    /// Our wait for quick pairing.
    pub seeking: Option<Seeking>,
    /// The room a match seated us in (the game screen takes over).
    pub matched: Option<String>,
    /// The game of that match: Chaturaji when `matched` is a table this device now sits at
    /// (the Chaturaji table screen takes over).
    pub matched_game: Option<LobbyGame>,
}

/// The lobby's own state; the list, the player and the pairing wait are the connection's
/// ([`maharajah_net::LobbyState`], folded as the messages come), read at each view.
#[derive(Default)]
struct State {
    revision: u64,
    generation: u64,
    url: Option<String>,
    conn: Option<Connection>,
    link: Option<LobbyLink>,
    matched: Option<String>,
    matched_game: Option<LobbyGame>,
    /// The server's and its engine's versions, from its `welcome`.
    versions: Option<(String, String)>,
}

struct Shared {
    state: Mutex<State>,
    identity: Identity,
    net: NetPlay,
    store: Store,
    /// Where downloaded PGN files go.
    export_dir: std::path::PathBuf,
    emit: Box<dyn Fn(LobbyView) + Send + Sync>,
    /// Signalled when a match has been handed to the game.
    handed: Notify,
    /// Where Chaturaji tables go, once set ([`Lobby::seat_tables_in`]).
    tables: std::sync::OnceLock<Tables>,
}

/// The lobby service. Cheap to clone.
#[derive(Clone)]
pub struct Lobby {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Lobby {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lobby").finish_non_exhaustive()
    }
}

impl Lobby {
    /// A lobby that hands its matches to `net`, keeps seats in `store`, identifies with
    /// `identity`, saves PGN files in `export_dir` and pushes every change to `emit`.
    pub fn new(
        identity: Identity,
        net: NetPlay,
        store: Store,
        export_dir: std::path::PathBuf,
        emit: impl Fn(LobbyView) + Send + Sync + 'static,
    ) -> Lobby {
        Lobby {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                identity,
                net,
                store,
                export_dir,
                emit: Box::new(emit),
                handed: Notify::new(),
                tables: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Seats this device at the Chaturaji tables the lobby makes through `tables` (without
    /// it, Chaturaji challenges and pairing are refused `unavailable`). A second call is
    /// ignored.
    pub fn seat_tables_in(&self, tables: Tables) {
        let _ = self.shared.tables.set(tables);
    }

    fn tables(&self) -> Result<&Tables, AppError> {
        self.shared.tables.get().ok_or_else(|| {
            AppError::new("unavailable", "Chaturaji tables are not available in this app")
        })
    }

    fn device(&self) -> Result<String, AppError> {
        Ok(self.tables()?.net.device().to_owned())
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The identity service the lobby signs with.
    #[must_use]
    pub fn identity(&self) -> &Identity {
        &self.shared.identity
    }

    /// The view now.
    #[must_use]
    pub fn view(&self) -> LobbyView {
        let identity = self.shared.identity.view().ok();
        let mut st = self.lock();
        st.revision += 1;
        let (player, refused, challenges, seeking) =
            st.conn.as_ref().map_or((None, None, Vec::new(), None), |c| {
                c.with_lobby(|l| {
                    let challenges = l
                        .challenges
                        .iter()
                        .map(|c| ListedChallenge {
                            challenge: c.clone(),
                            mine: l.mine.contains(&c.id),
                            seated: l.table.as_ref().is_some_and(|t| t.id == c.id),
                        })
                        .collect();
                    (l.player.clone(), l.refused.clone(), challenges, l.seeking)
                })
            });
        LobbyView {
            revision: st.revision,
            url: st.url.clone(),
            link: st.link.clone().unwrap_or(LobbyLink::Closed),
            identity,
            player,
            identity_refused: refused,
            challenges,
            seeking,
            matched: st.matched.clone(),
            matched_game: st.matched_game,
        }
    }

    fn push(&self) {
        (self.shared.emit)(self.view());
    }

    fn connection(&self) -> Result<Connection, AppError> {
        self.lock()
            .conn
            .clone()
            .ok_or_else(|| AppError::new("lobby_closed", "the lobby is not open"))
    }

    /// A connection to ask the lists on: the lobby's, or else the game's (a match handed the
    /// lobby's connection to the game; it talks to the same server).
    fn lookup_connection(&self) -> Result<Connection, AppError> {
        self.connection().or_else(|e| self.shared.net.current_connection().ok_or(e))
    }

    /// Opens the lobby of the server at `url` (making the player's key on first use): connects,
    /// identifies, subscribes to the challenges of [`GAMES`]. A lobby already open on the same
    /// server stays as it is.
    ///
    /// # Errors
    /// `bad_url`, `connect_failed` (the view then says `unreachable` too), `version_mismatch`,
    /// `storage`.
    pub async fn open(&self, url: &str) -> Result<LobbyView, AppError> {
        let url = normalize_url(url)?;
        {
            let st = self.lock();
            if st.conn.is_some() && st.url.as_deref() == Some(&url) {
                drop(st);
                return Ok(self.view());
            }
        }
        self.close().await;
        let options = self.shared.identity.connect_options()?;
        let (conn, events) = match Connection::connect(&url, options).await {
            Ok(opened) => opened,
            Err(e) => {
                let error = AppError::from(e);
                {
                    let mut st = self.lock();
                    st.url = Some(url);
                    st.link = Some(LobbyLink::Unreachable {
                        code: error.code.to_string(),
                        message: error.message.clone(),
                    });
                }
                self.push();
                return Err(error);
            }
        };
        let generation = {
            let mut st = self.lock();
            st.generation += 1;
            st.url = Some(url.clone());
            st.conn = Some(conn.clone());
            st.link = Some(LobbyLink::Connected);
            st.matched = None;
            st.matched_game = None;
            st.generation
        };
        tokio::spawn(pump(self.clone(), generation, url, conn.clone(), events));
        if let Err(e) = conn.lobby_subscribe(GAMES.to_vec()).await {
            return Err(e.into());
        }
        Ok(self.view())
    }

    /// Closes the lobby's connection (our challenges go with it; a pairing wait ends).
    pub async fn close(&self) {
        let conn = {
            let mut st = self.lock();
            st.generation += 1;
            st.link = None;
            st.conn.take()
        };
        if let Some(conn) = conn {
            conn.close().await;
        }
    }

    /// Registers the player's display name on the server.
    ///
    /// # Errors
    /// `invalid_name` (the message says which rule), `name_taken`, `not_identified`,
    /// `wrong_phase` (the player already has another name), `lobby_closed`.
    pub async fn register_name(&self, name: &str) -> Result<LobbyView, AppError> {
        self.connection()?.register_name(name.trim()).await?;
        Ok(self.view())
    }

    /// Posts a challenge.
    ///
    /// # Errors
    /// `not_identified`, `too_many_challenges`, `unavailable`, `rate_limited`, `lobby_closed`.
    pub async fn create(&self, options: ChallengeOptions) -> Result<LobbyView, AppError> {
        let conn = self.connection()?;
        if options.game == LobbyGame::Chaturaji {
            conn.create_table(options, self.device()?).await?;
        } else {
            conn.create_challenge(options).await?;
        }
        Ok(self.view())
    }

    /// Sits this device at the table of Chaturaji challenge `id`; when the table starts, the
    /// device takes its seat there and the view's `matched` names the table.
    ///
    /// # Errors
    /// `challenge_not_found`, `wrong_phase` (already there), `not_identified` (rated),
    /// `unavailable`, `lobby_closed`.
    pub async fn join_table(&self, id: ChallengeId) -> Result<LobbyView, AppError> {
        self.connection()?.join_table(id, self.device()?).await?;
        Ok(self.view())
    }

    /// Withdraws one of our challenges, or leaves a Chaturaji table we sit at.
    ///
    /// # Errors
    /// `challenge_not_found`, `lobby_closed`.
    pub async fn cancel(&self, id: ChallengeId) -> Result<LobbyView, AppError> {
        self.connection()?.cancel_challenge(id).await?;
        Ok(self.view())
    }

    /// Accepts a challenge: both players are seated at once and the game's view answers.
    ///
    /// # Errors
    /// `challenge_not_found`, `not_identified`, `lobby_closed`.
    pub async fn accept(&self, id: ChallengeId) -> Result<NetView, AppError> {
        let conn = self.connection()?;
        let handed = self.shared.handed.notified();
        tokio::pin!(handed);
        handed.as_mut().enable();
        conn.accept_challenge(id).await?;
        // The lobby's pump hands the seated connection to the game; wait for it.
        let _ = tokio::time::timeout(Duration::from_secs(5), handed).await;
        self.shared.net.view().ok_or_else(|| AppError::new("no_game", "the game did not start"))
    }

    /// Quick pairing: waits for an opponent of about our rating.
    ///
    /// # Errors
    /// `not_identified` (rated), `unavailable`, `rate_limited`, `lobby_closed`.
    pub async fn play_now(
        &self,
        game: LobbyGame,
        time_control: TimeControl,
        rated: bool,
    ) -> Result<LobbyView, AppError> {
        self.connection()?.play_now(game, time_control, rated).await?;
        Ok(self.view())
    }

    /// Quick pairing for a Chaturaji table: waits for people; CPUs take the empty seats after
    /// `cpu_after_s` seconds (5–300). The time per turn is `time_control`'s increment.
    ///
    /// # Errors
    /// `invalid_options`, `not_identified` (rated), `unavailable`, `rate_limited`,
    /// `lobby_closed`.
    pub async fn play_now_table(
        &self,
        time_control: TimeControl,
        rated: bool,
        cpu_after_s: u32,
    ) -> Result<LobbyView, AppError> {
        let device = self.device()?;
        self.connection()?.play_now_table(time_control, rated, cpu_after_s, device).await?;
        Ok(self.view())
    }

    /// Leaves the quick-pairing queue.
    ///
    /// # Errors
    /// `lobby_closed`, `closed`.
    pub async fn cancel_play_now(&self) -> Result<LobbyView, AppError> {
        self.connection()?.cancel_play_now().await?;
        Ok(self.view())
    }

    /// The best players of `game` in speed class `speed`.
    ///
    /// # Errors
    /// `rate_limited`, `lobby_closed`.
    pub async fn leaderboard(
        &self,
        game: LobbyGame,
        speed: SpeedClass,
    ) -> Result<Vec<LeaderboardEntry>, AppError> {
        Ok(self.lookup_connection()?.leaderboard(game, speed).await?)
    }

    /// The profile of the player named `name`: ratings and recent games.
    ///
    /// # Errors
    /// `player_not_found`, `rate_limited`, `lobby_closed`.
    pub async fn profile(&self, name: &str) -> Result<Profile, AppError> {
        Ok(self.lookup_connection()?.profile(name.trim()).await?)
    }

    /// The games being played now (of the games this app plays), the most watched first.
    ///
    /// # Errors
    /// `rate_limited`, `lobby_closed`.
    pub async fn playing_now(&self) -> Result<Vec<LiveGame>, AppError> {
        Ok(self.lookup_connection()?.playing_now(WATCHED.to_vec()).await?)
    }

    /// Downloads finished game `id` as PGN into the export folder; answers the file's path.
    ///
    /// # Errors
    /// `game_not_found`, `no_pgn` (a Chaturaji game), `write_failed`, `lobby_closed`.
    pub async fn save_pgn(&self, id: GameId) -> Result<String, AppError> {
        let pgn = self.lookup_connection()?.game_record(id).await?;
        let pgn = pgn.ok_or_else(|| AppError::new("no_pgn", "this game has no PGN"))?;
        let name = format!("maharajah-online-{id}");
        let path = crate::chess::local::write_pgn_file(&self.shared.export_dir, &name, true, &pgn)?;
        Ok(path.display().to_string())
    }

    /// Reads one event of the lobby's connection; false once the lobby no longer follows it.
    fn handle(&self, generation: u64, event: &NetEvent) -> bool {
        let mut resubscribe = None;
        let mut table = None;
        {
            let mut st = self.lock();
            if st.generation != generation {
                return false;
            }
            match event {
                NetEvent::Connected { server_version, engine_version, .. } => {
                    // After a reconnection the server has forgotten the subscription.
                    if st.versions.is_some() {
                        resubscribe = st.conn.clone();
                    }
                    st.versions = Some((server_version.clone(), engine_version.clone()));
                    st.link = Some(LobbyLink::Connected);
                }
                NetEvent::Disconnected { .. } => st.link = Some(LobbyLink::Reconnecting),
                NetEvent::Lobby(LobbyMsg::LobbyMatched { code, .. }) => {
                    let game = st.conn.as_ref().and_then(|c| c.with_lobby(|l| l.matched_game));
                    if game == Some(LobbyGame::Chaturaji) {
                        // Seated once the device's Chaturaji client has the seat.
                        table = st.url.clone().map(|url| (url, code.as_str().to_owned()));
                    } else {
                        st.matched = Some(code.as_str().to_owned());
                        st.matched_game = game;
                    }
                }
                NetEvent::Player(_) | NetEvent::Lobby(_) => {}
                NetEvent::Closed(_) => {
                    st.link = None;
                    st.conn = None;
                }
                _ => return true,
            }
        }
        if let Some((url, code)) = table {
            let lobby = self.clone();
            tokio::spawn(async move { lobby.take_table(generation, &url, &code).await });
        }
        if let Some(conn) = resubscribe {
            tokio::spawn(async move {
                let _ = conn.lobby_subscribe(GAMES.to_vec()).await;
            });
        }
        self.push();
        true
    }

    /// A Chaturaji table we waited at started: this device takes its seat there (the server
    /// knows the device) and the view names the table.
    async fn take_table(&self, generation: u64, url: &str, code: &str) {
        let Ok(tables) = self.tables() else { return };
        let push = Arc::clone(&tables.push);
        match tables.net.join(url, code, move |view| push(view)).await {
            Ok(view) => {
                (tables.push)(view);
                {
                    let mut st = self.lock();
                    if st.generation != generation {
                        return;
                    }
                    st.matched = Some(code.to_owned());
                    st.matched_game = Some(LobbyGame::Chaturaji);
                }
                self.shared.handed.notify_waiters();
                self.push();
            }
            Err(e) => eprintln!("the lobby's Chaturaji table {code} could not be joined: {e}"),
        }
    }

    /// A match seated the lobby's connection: it becomes the game.
    fn hand_over(
        &self,
        generation: u64,
        url: &str,
        conn: Connection,
        events: UnboundedReceiver<NetEvent>,
    ) {
        let code = conn.with_room(|r| r.seat.as_ref().map(|s| s.code.as_str().to_owned()));
        let versions = {
            let mut st = self.lock();
            if st.generation != generation {
                return;
            }
            st.generation += 1;
            st.conn = None;
            st.link = None;
            st.matched = code;
            st.matched_game = None;
            st.versions.take()
        };
        self.shared.net.adopt_online(url, conn, events, versions);
        if let Err(e) = keep_seat(&self.shared.store, self.shared.net.saved_seat()) {
            eprintln!("the lobby's seat is not kept: {e}");
        }
        self.shared.handed.notify_waiters();
        self.push();
    }
}

/// Follows the lobby's connection until it is closed, replaced, or seated in a game.
async fn pump(
    lobby: Lobby,
    generation: u64,
    url: String,
    conn: Connection,
    mut events: UnboundedReceiver<NetEvent>,
) {
    while let Some(event) = events.recv().await {
        if matches!(event, NetEvent::Seated(_)) {
            lobby.hand_over(generation, &url, conn, events);
            return;
        }
        if !lobby.handle(generation, &event) || matches!(event, NetEvent::Closed(_)) {
            return;
        }
    }
}
