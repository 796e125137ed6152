//! The online lobby as the app sees it: one identified connection to the server while the Online
//! screen is open, the player (name, ratings), the live list of open challenges this app can
//! play, our own challenges and quick-pairing wait.
//!
//! When the server seats the connection in a game (a challenge of ours accepted, one we accepted,
//! a pairing made) the connection itself becomes the game: it is handed to [`NetPlay`]
//! ([`NetPlay::adopt_online`]), the seat is kept like any online seat, and the lobby has no
//! connection until the screen opens it again. Every change is pushed as a [`LobbyView`].

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use maharajah_net::{Connection, NetEvent};
use maharajah_protocol::{
    Challenge, ChallengeId, ChallengeOptions, GameId, LeaderboardEntry, LiveGame, LobbyGame,
    LobbyMsg, PlayerView, Profile, SpeedClass, TimeControl,
};
use serde::Serialize;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::Notify;

use crate::chess::online::{keep_seat, normalize_url, NetPlay, NetView};
use crate::error::AppError;
use crate::identity::{Identity, IdentityView};
use crate::store::Store;

/// The games this app plays from the lobby (Chaturaji tables are not offered there yet).
pub const GAMES: [LobbyGame; 3] = [LobbyGame::Chess, LobbyGame::Maharajah, LobbyGame::Horde];

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
}

/// Our place in the quick-pairing queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Seeking {
    /// The game.
    pub game: LobbyGame,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// The rating the pairing uses.
    pub rating: u32,
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
            }),
        }
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
                        })
                        .collect();
                    let seeking = l.seeking.map(|s| Seeking {
                        game: s.game,
                        time_control: s.time_control,
                        rated: s.rated,
                        rating: s.rating,
                    });
                    (l.player.clone(), l.refused.clone(), challenges, seeking)
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
        self.connection()?.create_challenge(options).await?;
        Ok(self.view())
    }

    /// Withdraws one of our challenges.
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
        Ok(self.lookup_connection()?.playing_now(GAMES.to_vec()).await?)
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
                    st.matched = Some(code.as_str().to_owned());
                }
                NetEvent::Player(_) | NetEvent::Lobby(_) => {}
                NetEvent::Closed(_) => {
                    st.link = None;
                    st.conn = None;
                }
                _ => return true,
            }
        }
        if let Some(conn) = resubscribe {
            tokio::spawn(async move {
                let _ = conn.lobby_subscribe(GAMES.to_vec()).await;
            });
        }
        self.push();
        true
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
