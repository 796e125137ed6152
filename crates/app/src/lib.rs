//! The Maharajah application core: everything the app does, without a window. A shell (the Tauri
//! app in `src-tauri`) opens one [`App`], forwards the UI's commands to it and delivers what it
//! pushes through a [`Sink`]; tests drive the same services directly.
//!
//! Layout:
//! - [`App`] (this file): the façade holding every service, and the threads that serve them.
//! - [`chess`]: local games ([`chess::local`], [`chess::session`]), the army builder
//!   ([`chess::army`]), the computer ([`chess::computer`]), network games ([`chess::online`]).
//! - [`analysis`]: the analysis board and game review (the engine on background threads).
//! - [`lan`]: two devices on one Wi-Fi: host, browse, join (the game itself is [`chess::online`]).
//! - [`identity`]: the online player's key pair (kept in the store, never shown), its recovery
//!   code, and taking an identity over from another device.
//! - [`lobby`]: the online lobby (challenges, quick pairing, the player's name and ratings); a
//!   match becomes a [`chess::online`] game.
//! - [`link`]: `maharajah://join/…` links and their QR codes, for LAN hosts and online rooms;
//!   which join a link (from the system, a deep link) asks for.
//! - [`chaturaji`]: the local Chaturaji table, a seat of a network table, a table hosted over the
//!   Wi-Fi, and the view the UI draws of each.
//! - [`push`]: [`Push`], what the UI is told unasked, and the [`Sink`] it goes to.
//! - [`scheduler`]: the one thread that does timed work when it is due (clock, CPU seats).
//! - [`store`]: saved games, armies and settings in SQLite.
//! - [`record`]: a local game's words as storage keeps them (opponent, result, saved row).
//! - [`multicast`]: counting the uses of Android's Wi-Fi multicast lock.
//! - [`error`]: [`AppError`], `{ code, message }` as the UI receives it, with one vocabulary.
//! - [`time`]: the one time source every service reads (the system's, or a fake in tests).

pub mod analysis;
pub mod chaturaji;
pub mod chess;
pub mod error;
pub mod identity;
pub mod lan;
pub mod link;
pub mod lobby;
pub mod multicast;
pub mod push;
pub mod record;
pub mod scheduler;
pub mod store;
pub mod time;

use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, PoisonError};

pub use error::AppError;
pub use push::{Push, Sink};

use chaturaji::lan::{ChaturajiHosted, ChaturajiLan, HostedTable};
use chaturaji::local::ChaturajiState;
use chaturaji::online::NetState;
use chaturaji::TableView;
use chess::local::{AppState, Core, ThinkRequest};
use chess::online::{keep_seat, kept_room, kept_seat, KeptRoom, NetPlay, NetPlayError, NetView};
use lan::{HostRequest, HostedView, JoinTarget, Lan, LanConfig, LanPush, LanStatus};
use link::OpenedLink;
use maharajah_protocol::RoomOptions;
use scheduler::Scheduler;
use store::{Store, StoreError};

/// The application: every service, one sink for their pushes. Cloning it is cheap (a handle).
#[derive(Clone)]
pub struct App(Arc<Services>);

/// What an [`App`] holds (reached through the handle).
pub struct Services {
    /// Local chess: the open game, saved games, settings, armies, the computer's inbox.
    pub chess: AppState,
    /// The network game (online server or LAN host).
    pub net: NetPlay,
    /// The online lobby (and the player's identity it signs with).
    pub lobby: lobby::Lobby,
    /// Hosting, browsing and joining on the Wi-Fi.
    pub lan: Lan,
    /// The local Chaturaji table.
    pub tables: ChaturajiState,
    /// This device's seat of a network Chaturaji table.
    pub table_net: Arc<NetState>,
    /// The Chaturaji table this device hosts on the Wi-Fi.
    pub table_lan: ChaturajiLan,
    /// The analysis board.
    pub analysis: analysis::Analysis,
    sink: Arc<dyn Sink>,
    time: time::Time,
    scheduler: Arc<Scheduler>,
    computer: Mutex<Option<Receiver<ThinkRequest>>>,
    aids: Mutex<Option<Receiver<chess::aids::AidRequest>>>,
    /// The last link the system opened the app with, until the UI takes it.
    link: Mutex<Option<OpenedLink>>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("chess", &self.chess).finish_non_exhaustive()
    }
}

impl std::ops::Deref for App {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

impl App {
    /// Opens the app on the SQLite file `database`, one store for everything (in memory, with a
    /// warning, when it cannot be opened), saving exported PGN files in `export_dir`. Every
    /// service reads `time` (the system's: [`time::system`]) and every push goes to `sink`. Call
    /// [`App::start`] to run its threads.
    ///
    /// # Errors
    /// When not even an in-memory store can be opened.
    pub fn open(
        database: &Path,
        export_dir: &Path,
        lan: LanConfig,
        time: time::Time,
        sink: Arc<dyn Sink>,
    ) -> Result<App, StoreError> {
        let store = database
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(|e| StoreError(e.to_string()))
            .and_then(|()| Store::open(database))
            .or_else(|error| {
                eprintln!("{error}; games will not be kept after the app closes");
                Store::in_memory()
            })?;
        let scheduler = Arc::new(Scheduler::new());
        let (tables, table_net) = chaturaji::local::open(store.clone(), &time, &scheduler);
        let table_net = Arc::new(table_net);
        let (sender, receiver) = mpsc::channel();
        let (aid_sender, aid_receiver) = mpsc::channel();
        let net_sink = Arc::clone(&sink);
        let lan_sink = Arc::clone(&sink);
        let lobby_sink = Arc::clone(&sink);
        let identity = identity::Identity::new(store.clone(), Arc::clone(&time));
        let lobby_store = store.clone();
        let chess = AppState::new(
            Core::new(store),
            sender,
            export_dir.to_owned(),
            Arc::clone(&time),
            Arc::clone(&scheduler),
        );
        chess.set_aids(aid_sender);
        let net = NetPlay::with_time(move |update| net_sink.push(update.into()), Arc::clone(&time));
        net.keep_seats_in(lobby_store.clone());
        let lobby = lobby::Lobby::new(
            identity,
            net.clone(),
            lobby_store,
            export_dir.to_owned(),
            move |view| {
                lobby_sink.push(Push::Lobby(Box::new(view)));
            },
        );
        let table_sink = Arc::clone(&sink);
        lobby.seat_tables_in(lobby::Tables {
            net: Arc::clone(&table_net),
            push: Arc::new(move |view| table_sink.push(Push::Chaturaji(Box::new(view)))),
        });
        Ok(App(Arc::new(Services {
            chess,
            net,
            lobby,
            lan: Lan::new(lan, Arc::new(move |push: LanPush| lan_sink.push(push.into()))),
            tables,
            table_net,
            table_lan: {
                let sink = Arc::clone(&sink);
                ChaturajiLan::pushing(lan, move |hosted| {
                    sink.push(Push::ChaturajiHosted(Box::new(hosted)));
                })
            },
            analysis: analysis::Analysis::new(Arc::clone(&sink)),
            sink,
            time,
            scheduler,
            computer: Mutex::new(Some(receiver)),
            aids: Mutex::new(Some(aid_receiver)),
            link: Mutex::new(None),
        })))
    }

    /// Starts the app's threads: the computer, the hints and threats, and the scheduler (the local clock's pushes and
    /// flag falls, the Chaturaji CPU seats and turn time-outs). A second call starts nothing.
    pub fn start(&self) {
        let Some(receiver) = self.computer.lock().unwrap_or_else(PoisonError::into_inner).take()
        else {
            return;
        };
        let app = self.clone();
        std::thread::spawn(move || {
            app.chess.run_computer(&receiver, |view| app.sink.push(Push::Game(view)));
        });
        let aids = self.aids.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(receiver) = aids {
            let app = self.clone();
            std::thread::spawn(move || {
                app.chess.run_aids(&receiver, |view| app.sink.push(Push::Game(view)));
            });
        }
        let app = self.clone();
        std::thread::spawn(move || {
            app.scheduler.run(&app.time, |_| {
                let chess = app.chess.step(
                    |view| app.sink.push(Push::Game(view)),
                    |clock| app.sink.push(Push::Clock(clock)),
                );
                let tables = app.tables.step(|view| app.sink.push(Push::Chaturaji(Box::new(view))));
                scheduler::earliest(chess, tables)
            });
        });
    }
}

impl Services {
    /// Where the views of a network Chaturaji table go (as `chaturaji` pushes).
    pub fn table_push(&self) -> impl Fn(TableView) + Send + 'static {
        let sink = Arc::clone(&self.sink);
        move |view| sink.push(Push::Chaturaji(Box::new(view)))
    }

    /// A link the system opened the app with (a `maharajah://join/…` deep link): read, kept
    /// until the UI takes it ([`Services::take_link`]; the app may open before its UI listens)
    /// and announced as a `join-link` push. A later link replaces one not yet taken.
    pub fn open_link(&self, text: &str) -> OpenedLink {
        let opened = OpenedLink::read(text);
        *self.link.lock().unwrap_or_else(PoisonError::into_inner) = Some(opened.clone());
        self.sink.push(Push::JoinLink(opened.clone()));
        opened
    }

    /// The link the system opened the app with, once: the UI follows it to the LAN or the Online
    /// screen's join (see [`link`] for which).
    pub fn take_link(&self) -> Option<OpenedLink> {
        self.link.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The room this device held a seat in when the app was last closed, if any.
    ///
    /// # Errors
    /// `storage`.
    pub fn net_kept(&self) -> Result<Option<KeptRoom>, AppError> {
        kept_room(self.chess.core().store())
    }

    /// Takes back the kept seat (after the app was closed).
    ///
    /// # Errors
    /// `no_game` when no seat is kept; `connect_failed`, `version_mismatch`, `storage`.
    pub async fn net_rejoin(&self) -> Result<NetView, AppError> {
        let seat = kept_seat(self.chess.core().store())?.ok_or(NetPlayError::NoGame)?;
        Ok(self.net.rejoin(&seat).await?)
    }

    /// Connects to `url`, creates a room with `options` and keeps its seat on the device.
    ///
    /// # Errors
    /// `bad_url`, `connect_failed`, `version_mismatch`, `invalid_options`…, `storage`.
    pub async fn net_create(&self, url: &str, options: RoomOptions) -> Result<NetView, AppError> {
        let view = self.net.create(url, options).await?;
        keep_seat(self.chess.core().store(), self.net.saved_seat())?;
        Ok(view)
    }

    /// Connects to `url`, joins the room `code` and keeps its seat on the device.
    ///
    /// # Errors
    /// `bad_code`, `bad_url`, `connect_failed`, `version_mismatch`, `room_not_found`,
    /// `room_full`, `storage`.
    pub async fn net_join(&self, url: &str, code: &str) -> Result<NetView, AppError> {
        let view = self.net.join(url, code).await?;
        keep_seat(self.chess.core().store(), self.net.saved_seat())?;
        Ok(view)
    }

    /// Watches room `code` on the server at `url` as a spectator (identified as the player).
    ///
    /// # Errors
    /// `bad_code`, `bad_url`, `connect_failed`, `room_not_found`, `too_many_spectators`, `storage`.
    pub async fn net_watch(&self, url: &str, code: &str) -> Result<NetView, AppError> {
        let options = self.lobby.identity().connect_options()?;
        Ok(self.net.watch(url, code, options).await?)
    }

    /// Leaves the network game and forgets its kept seat. A LAN game (this device hosting or a
    /// guest) ends with it before this answers, so the Local network screen asked next shows
    /// no game, whether or not its connection's watcher has seen the close yet.
    ///
    /// # Errors
    /// `storage`.
    pub async fn net_leave(&self) -> Result<(), AppError> {
        let left = self.net.view().map(|v| v.url);
        self.net.leave().await;
        if let Some(url) = left {
            self.lan.game_left(&url).await;
        }
        keep_seat(self.chess.core().store(), None)
    }

    /// Hosts a game on this device; the network game takes it over at once.
    ///
    /// # Errors
    /// As [`Lan::host`].
    pub async fn lan_host(&self, request: HostRequest) -> Result<HostedView, AppError> {
        let hosted = self.lan.host(request).await?;
        self.lan.hand_over(&self.net).await;
        Ok(hosted)
    }

    /// Joins a host; the network game takes the game over.
    ///
    /// # Errors
    /// As [`Lan::join`].
    pub async fn lan_join(&self, target: JoinTarget) -> Result<LanStatus, AppError> {
        let status = self.lan.join(target).await?;
        self.lan.hand_over(&self.net).await;
        Ok(status)
    }

    /// Leaves the LAN game (a host stops hosting) and closes it on the network game screen.
    pub async fn lan_leave(&self) {
        self.lan.leave_with(&self.net).await;
    }

    /// Hosts a Chaturaji table on this device's Wi-Fi and takes its first person seat.
    ///
    /// # Errors
    /// As [`ChaturajiLan::host`].
    pub async fn table_lan_host(
        &self,
        name: &str,
        settings: maharajah_chaturaji::Settings,
    ) -> Result<HostedTable, AppError> {
        self.table_lan.host(name, settings, &self.table_net, self.table_push()).await
    }

    /// How to join the hosted table (`None` when not hosting).
    pub async fn table_lan_hosted(&self) -> Option<ChaturajiHosted> {
        self.table_lan.hosted().await
    }

    /// Joins a Chaturaji table from the LAN list, by address and room code, or by join code.
    ///
    /// # Errors
    /// As [`ChaturajiLan::join`].
    pub async fn table_lan_join(&self, target: &JoinTarget) -> Result<TableView, AppError> {
        self.table_lan.join(&self.lan, target, &self.table_net, self.table_push()).await
    }

    /// Closes the network table (the seat stays; the room's CPU plays it); a table this device
    /// hosts on the Wi-Fi stops with it.
    pub async fn table_net_leave(&self) {
        self.table_lan.stop(&self.table_net).await;
        self.table_net.leave().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use link::JoinLink;

    fn app(name: &str, sink: Arc<dyn Sink>) -> App {
        let dir = std::env::temp_dir().join(format!("maharajah-{name}-{}", std::process::id()));
        App::open(&dir.join("games.sqlite"), &dir, LanConfig::loopback(), time::system(), sink)
            .expect("an app")
    }

    #[test]
    fn an_opened_link_is_announced_kept_and_taken_once() {
        let pushes = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&pushes);
        let app = app(
            "links",
            Arc::new(move |push: Push| {
                seen.lock().unwrap_or_else(PoisonError::into_inner).push(push);
            }),
        );
        assert_eq!(app.take_link(), None);
        // The app opened before its UI listened: the link waits for the UI.
        let room = app.open_link("maharajah://join/abcd2345?server=ws%3A%2F%2F10.0.0.2%3A7878");
        let want =
            JoinLink::Online { code: "ABCD2345".into(), server: Some("ws://10.0.0.2:7878".into()) };
        assert_eq!(room.link.as_ref(), Some(&want));
        // A second link before the UI took the first: the latest one is followed.
        let host = maharajah_net::JoinCode {
            addr: "192.168.1.20:40123".parse().expect("an address"),
            room: "ABCD2345".parse().expect("a room code"),
        };
        let lan = app.open_link(&link::lan_url(&host));
        let taken = app.take_link().expect("kept until taken");
        assert_eq!(taken, lan);
        assert_eq!(taken.link, Some(JoinLink::Lan { code: host.to_string() }));
        assert_eq!(app.take_link(), None, "a link is followed once");
        // A broken link is announced with its reason, for the UI to show.
        let bad = app.open_link("maharajah://join/hello");
        assert_eq!(bad.link, None);
        assert_eq!(bad.error.as_ref().map(|e| e.code.as_ref()), Some("bad_link"));
        let pushes = pushes.lock().unwrap_or_else(PoisonError::into_inner);
        let events: Vec<&str> = pushes.iter().map(Push::event).collect();
        assert_eq!(events, ["join-link"; 3]);
        let json = serde_json::to_value(&pushes[0]).expect("serialises");
        assert_eq!(
            json["link"],
            serde_json::json!({ "kind": "online", "code": "ABCD2345", "server": "ws://10.0.0.2:7878" })
        );
        assert_eq!(json["error"], serde_json::Value::Null);
    }
}
