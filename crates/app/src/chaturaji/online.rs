//! Chaturaji over the network: this device takes one seat of a room on a Maharajah server (online,
//! or a LAN host's address) through [`ChaturajiClient`]. The UI draws the same [`TableView`] as for
//! a local table, with [`TableView::remote`] naming the room code and this device's seat.
//!
//! The device id (kept in SQLite, the same for every table) is what gives a dropped person their
//! seat back: the client reconnects by itself with the seat's token and this id, and the room's
//! CPU plays the seat meanwhile. Commands: `chaturaji_net_create`, `chaturaji_net_join`,
//! `chaturaji_net_roll`, `chaturaji_net_move`, `chaturaji_net_end_turn`, `chaturaji_net_resign`,
//! `chaturaji_net_view`, `chaturaji_net_leave`. Every room event pushes a `chaturaji` view.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::{Game, Move, Seat, Settings, Square};
use maharajah_net::chaturaji::{ChaturajiClient, ChaturajiNetEvent, TableState};
use maharajah_net::client::ConnectOptions;
use maharajah_protocol::chaturaji::ChaturajiAction;
use maharajah_protocol::AccessCode;

use crate::chaturaji::view::{table_view, DiceAlarmView, RemoteView, TableView, ViewParts};
use crate::error::AppError;
use crate::link::Invite;

/// The id network tables carry in their views (local tables have their SQLite row id, from 1).
pub const NET_TABLE_ID: i64 = -1;

/// Versions of network views grow across tables, so the UI never mistakes a new push for an old.
static VERSION: AtomicU64 = AtomicU64::new(1);

/// What the event task keeps besides the client's own table state (the replica).
#[derive(Debug, Default)]
struct Shared {
    /// The version of the views made now. Views are made one at a time under this lock, and a
    /// view of a replica that moved on gets a new version: so a higher version never shows an
    /// older table, and a command's answer is never older than a view pushed before it.
    version: u64,
    /// The replica's last event when `version` was given.
    seen_seq: u64,
    connected: bool,
}

#[derive(Debug, Clone)]
struct NetTable {
    client: ChaturajiClient,
    shared: Arc<Mutex<Shared>>,
    /// The server others are invited to (a link and its QR code while seats are free); None
    /// for a table on the Wi-Fi, whose host's join code is the invitation.
    invite_server: Option<Arc<str>>,
}

/// Where a table's server is, which decides how others are invited to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// An online server: the view carries a `maharajah://` link with the server, and its QR code.
    Online,
    /// A host on the Wi-Fi (this device's or another's): its join code invites.
    Lan,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The network table of this device, if any.
#[derive(Debug)]
pub struct NetState {
    table: Mutex<Option<NetTable>>,
    device: String,
    options: ConnectOptions,
}

impl NetState {
    /// State for the device `device` (a stable id, 16–128 characters).
    #[must_use]
    pub fn new(device: String) -> NetState {
        NetState { table: Mutex::new(None), device, options: ConnectOptions::default() }
    }

    /// This device's id.
    #[must_use]
    pub fn device(&self) -> &str {
        &self.device
    }

    fn current(&self) -> Result<NetTable, AppError> {
        lock(&self.table).clone().ok_or_else(|| AppError {
            code: "no_table".into(),
            message: "no network Chaturaji table is open".into(),
        })
    }

    /// Connects to `url` and creates a table with `settings` (people seats 2–4, the others CPU).
    ///
    /// # Errors
    /// `bad_url`, `connect_failed`, the server's refusal (`invalid_options`…), `closed`.
    pub async fn create(
        &self,
        url: &str,
        settings: Settings,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<TableView, AppError> {
        self.create_in(Reach::Online, url, settings, on_change).await
    }

    /// As [`NetState::create`], for a server reached as `reach` says.
    ///
    /// # Errors
    /// As [`NetState::create`].
    pub async fn create_in(
        &self,
        reach: Reach,
        url: &str,
        settings: Settings,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<TableView, AppError> {
        let table = self.open(url, reach, on_change).await?;
        table.client.create_table(settings, Some(Level::Greedy)).await.map_err(AppError::from)?;
        Ok(view(&table))
    }

    /// Connects to `url` and takes a seat of the table `code` (or this device's seat back).
    ///
    /// # Errors
    /// `bad_code`, `connect_failed`, the server's refusal (`room_not_found`, `room_full`), `closed`.
    pub async fn join(
        &self,
        url: &str,
        code: &str,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<TableView, AppError> {
        self.join_in(Reach::Online, url, code, on_change).await
    }

    /// As [`NetState::join`], for a server reached as `reach` says.
    ///
    /// # Errors
    /// As [`NetState::join`].
    pub async fn join_in(
        &self,
        reach: Reach,
        url: &str,
        code: &str,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<TableView, AppError> {
        let code: AccessCode =
            code.trim().parse().map_err(|e: maharajah_protocol::AccessCodeError| AppError {
                code: "bad_code".into(),
                message: e.to_string(),
            })?;
        let table = self.open(url, reach, on_change).await?;
        table.client.join_table(code).await.map_err(AppError::from)?;
        Ok(view(&table))
    }

    async fn open(
        &self,
        url: &str,
        reach: Reach,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<NetTable, AppError> {
        let url = url.trim();
        if !(url.starts_with("ws://") || url.starts_with("wss://")) {
            return Err(AppError {
                code: "bad_url".into(),
                message: format!("{url:?} is not a server address (ws://host:port or wss://…)"),
            });
        }
        self.leave().await;
        let (client, mut events) =
            ChaturajiClient::connect(url, self.options.clone(), &self.device)
                .await
                .map_err(AppError::from)?;
        let shared = Arc::new(Mutex::new(Shared {
            version: VERSION.fetch_add(1, Ordering::Relaxed),
            connected: true,
            ..Shared::default()
        }));
        let invite_server = (reach == Reach::Online).then(|| Arc::from(url));
        let table = NetTable { client, shared, invite_server };
        *lock(&self.table) = Some(table.clone());
        let watched = table.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                {
                    let mut shared = lock(&watched.shared);
                    shared.version = VERSION.fetch_add(1, Ordering::Relaxed);
                    match &event {
                        ChaturajiNetEvent::Disconnected { .. } | ChaturajiNetEvent::Closed(_) => {
                            shared.connected = false;
                        }
                        ChaturajiNetEvent::Connected { .. } => shared.connected = true,
                        _ => {}
                    }
                }
                if watched.client.table().seat.is_some() {
                    on_change(view(&watched));
                }
            }
        });
        Ok(table)
    }

    async fn act(&self, action: ChaturajiAction) -> Result<TableView, AppError> {
        let table = self.current()?;
        table.client.act(action).await.map_err(AppError::from)?;
        Ok(view(&table))
    }

    /// Rolls for this device's seat.
    ///
    /// # Errors
    /// `no_table`, the server's refusal (`not_your_turn`…), `closed`.
    pub async fn roll(&self) -> Result<TableView, AppError> {
        self.act(ChaturajiAction::Roll).await
    }

    /// Moves `from`→`to` with `die`, or whichever die allows it.
    ///
    /// # Errors
    /// As [`NetState::roll`]; `illegal` when no die allows the move.
    pub async fn play(
        &self,
        from: Square,
        to: Square,
        die: Option<u8>,
    ) -> Result<TableView, AppError> {
        let table = self.current()?;
        let game = table.client.table().game;
        let die = die
            .or_else(|| {
                game?
                    .legal_moves()
                    .into_iter()
                    .find(|m| m.from == from && m.to == to)
                    .map(|m| m.die)
            })
            .ok_or_else(|| AppError {
                code: "illegal".into(),
                message: format!("no die allows {from}-{to} now"),
            })?;
        self.act(ChaturajiAction::Move(Move { die, from, to })).await
    }

    /// Ends this seat's turn.
    ///
    /// # Errors
    /// As [`NetState::roll`].
    pub async fn end_turn(&self) -> Result<TableView, AppError> {
        self.act(ChaturajiAction::EndTurn).await
    }

    /// Resigns this seat.
    ///
    /// # Errors
    /// As [`NetState::roll`].
    pub async fn resign(&self) -> Result<TableView, AppError> {
        self.act(ChaturajiAction::Resign).await
    }

    /// The network table's view.
    ///
    /// # Errors
    /// `no_table`.
    pub fn view(&self) -> Result<TableView, AppError> {
        Ok(view(&self.current()?))
    }

    /// Closes the connection (the seat stays in the room; the CPU plays it).
    pub async fn leave(&self) {
        let old = lock(&self.table).take();
        if let Some(table) = old {
            table.client.close().await;
        }
    }
}

/// The UI's view of a network table, read from the client's replica as it stands.
fn view(table: &NetTable) -> TableView {
    let mut shared = lock(&table.shared);
    let state: TableState = table.client.table();
    if state.last_seq != shared.seen_seq {
        shared.version = VERSION.fetch_add(1, Ordering::Relaxed);
        shared.seen_seq = state.last_seq;
    }
    let settings = state.settings.clone().unwrap_or_default();
    let started = state.game.is_some();
    let game = state.game.clone().unwrap_or_else(|| {
        Game::new(settings.clone()).unwrap_or_else(|_| {
            Game::new(Settings::default()).expect("the default settings are valid")
        })
    });
    let seat = state.seat.as_ref().map_or(Seat::Red, |s| s.seat);
    let over = game.is_over();
    table_view(
        &game,
        ViewParts {
            id: NET_TABLE_ID,
            version: shared.version,
            seed: 0,
            actions: state.steps as usize,
            cpu_to_move: !over
                && state.seats.is_some_and(|seats| seats[game.to_move()].cpu_playing),
            time_left_ms: state.turn_remaining_ms.filter(|_| !over),
            log: state.log.iter().cloned().collect(),
            remote: Some(RemoteView {
                code: state.seat.as_ref().map(|s| s.code.to_string()).unwrap_or_default(),
                invite: state
                    .seat
                    .as_ref()
                    .zip(table.invite_server.as_deref())
                    .filter(|_| !started)
                    .map(|(s, server)| Invite::chaturaji(&s.code, server)),
                seat,
                started,
                seats: state.seats,
                connected: shared.connected,
                dice_alarm: state
                    .dice_alarm
                    .as_ref()
                    .map(|a| DiceAlarmView { roll: a.roll, detail: a.detail.clone() }),
            }),
        },
    )
}
