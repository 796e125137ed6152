//! A Chaturaji table hosted on this device over the Wi-Fi (seats for 2–4 people on
//! several devices).
//!
//! [`ChaturajiLan::host`] starts the server library embedded on an ephemeral port
//! ([`LanServer`], no room of its own), has this device's [`NetState`] create the table on it over
//! loopback (so the host plays through the same network session as an online table), and
//! advertises it over mDNS with TXT `variant=chaturaji` and the number of people seats still open.
//! The advertisement follows the table: each pushed view recounts the open seats, and when the
//! last person seat is taken it is withdrawn. A refused advertisement (iOS's local-network
//! permission, or Bonjour refusing to publish) does not stop the table: the hosted view's
//! `advert_problem` says why guests do not see it, and each change is handed to the `pushing`
//! callback (the app pushes it as `chaturaji-hosted`).
//!
//! Guests see the table in the LAN list ([`Lan::browse`], entries with `chaturaji: true`) and join
//! it with [`ChaturajiLan::join`], which resolves the entry (or a typed address and room code, or a
//! join code) through [`Lan::resolve`] and takes a seat with the Chaturaji client, not the chess
//! session. Leaving the table on the host ([`ChaturajiLan::stop`], also done by
//! `chaturaji_net_leave`) stops the server; the guests' clients then retry, and the room's CPU
//! plays nobody's seat because the room itself is gone.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;

use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::Settings;
use maharajah_net::discovery::{Advertiser, HostAd};
use maharajah_net::host::{ws_url, LanServer};
use maharajah_protocol::Variant;
use serde::Serialize;

use crate::chaturaji::online::{NetState, Reach};
use crate::chaturaji::view::TableView;
use crate::error::AppError;
use crate::lan::{clean_name, follow_advert, parse_room, Hosting, JoinTarget, Lan, LanConfig};
use crate::multicast::{Hold, Use};

/// What the host's Chaturaji screen shows so others can join without the list: the name, this
/// device's server's `address:port`, the table's room code and the join code (the same as the
/// chess host shows, without its seat and variant).
pub type ChaturajiHosted = Hosting;

/// The host's table with what to show about hosting.
#[derive(Clone, Debug, Serialize)]
pub struct HostedTable {
    /// How to join.
    pub hosted: ChaturajiHosted,
    /// The table as this device's seat sees it (the first person seat).
    pub table: TableView,
}

struct Table {
    /// The multicast lock's use while advertising.
    _hold: Hold,
    server: LanServer,
    advertiser: Arc<Mutex<Option<Advertiser>>>,
    hosted: Arc<Mutex<ChaturajiHosted>>,
    /// Follows the advertisement's problem into `hosted`.
    follower: Option<JoinHandle<()>>,
}

/// Where a changed hosted view goes.
type OnHosted = Arc<dyn Fn(ChaturajiHosted) + Send + Sync>;

/// The Chaturaji table this device hosts, if any (managed Tauri state).
pub struct ChaturajiLan {
    config: LanConfig,
    on_hosted: OnHosted,
    hosting: tokio::sync::Mutex<Option<Table>>,
}

impl std::fmt::Debug for ChaturajiLan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChaturajiLan").field("config", &self.config).finish_non_exhaustive()
    }
}

fn error(code: &'static str, message: impl Into<String>) -> AppError {
    AppError::new(code, message)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// People seats of `view`'s network table nobody has taken yet (None until the room's seats have
/// arrived).
#[must_use]
pub fn open_seats(view: &TableView) -> Option<u8> {
    let seats = view.remote.as_ref()?.seats.as_ref()?;
    let open = seats.iter().filter(|(_, s)| s.person && !s.taken).count();
    Some(u8::try_from(open).unwrap_or(u8::MAX))
}

/// People seats of a new table with `settings` other than its creator's.
fn others(settings: &Settings) -> u8 {
    let people = settings.players.iter().filter(|(_, p)| matches!(p, Player::Person)).count();
    u8::try_from(people.saturating_sub(1)).unwrap_or(u8::MAX)
}

/// Brings the advertisement in line with `open` (an advertising failure must not stop the game;
/// the address and join code still work).
fn follow(advertiser: &Mutex<Option<Advertiser>>, open: Option<u8>) {
    let Some(open) = open else {
        return;
    };
    if let Some(a) = lock(advertiser).as_mut() {
        let now = a.ad().map_or(0, |ad| ad.open_seats);
        if now != open {
            let _ = a.set_open_seats(open);
        }
    }
}

impl ChaturajiLan {
    /// Hosting with `config` (the same as the chess LAN's: scope, bind address, LAN address).
    #[must_use]
    pub fn new(config: LanConfig) -> ChaturajiLan {
        ChaturajiLan::pushing(config, |_| {})
    }

    /// As [`ChaturajiLan::new`], handing `on_hosted` the hosted view each time it changes after
    /// [`ChaturajiLan::host`] answered (the advertisement refused later, or published after all).
    #[must_use]
    pub fn pushing(
        config: LanConfig,
        on_hosted: impl Fn(ChaturajiHosted) + Send + Sync + 'static,
    ) -> ChaturajiLan {
        ChaturajiLan {
            config,
            on_hosted: Arc::new(on_hosted),
            hosting: tokio::sync::Mutex::new(None),
        }
    }

    /// Hosts a table with `settings` (2–4 people seats, the others CPU): starts the server,
    /// creates the table through `net` (this device takes the first person seat), advertises it
    /// as `name`. A table hosted before is stopped first.
    ///
    /// A refused advertisement does not stop the table: the answer's `advert_problem` says so.
    ///
    /// # Errors
    /// `bad_name`; `lan_host` when the server cannot start; as [`NetState::create`]
    /// (`invalid_options` for invalid settings).
    pub async fn host(
        &self,
        name: &str,
        settings: Settings,
        net: &NetState,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<HostedTable, AppError> {
        let name = clean_name(name)?;
        let open = others(&settings);
        self.stop(net).await;
        let mut hosting = self.hosting.lock().await;
        let mut server = LanServer::start(self.config.bind, self.config.lan_address)
            .await
            .map_err(|e| error("lan_host", format!("Cannot open a port to host on: {e}")))?;
        let advertiser: Arc<Mutex<Option<Advertiser>>> = Arc::new(Mutex::new(None));
        let followed = advertiser.clone();
        let created = net
            .create_in(Reach::Lan, &server.local_url(), settings, move |view| {
                follow(&followed, open_seats(&view));
                on_change(view);
            })
            .await;
        let table = match created {
            Ok(t) => t,
            Err(e) => {
                server.stop().await;
                return Err(e);
            }
        };
        let code = table.remote.as_ref().map(|r| r.code.clone()).unwrap_or_default();
        let room = match parse_room(&code) {
            Ok(r) => r,
            Err(e) => {
                net.leave().await;
                server.stop().await;
                return Err(e);
            }
        };
        let ad = HostAd {
            display_name: name.clone(),
            variant: Variant::Chess,
            chaturaji: true,
            hidden_setup: false,
            open_seats: open_seats(&table).unwrap_or(open),
            code: room.clone(),
            port: server.addr().port(),
            addresses: self.config.lan_address.into_iter().collect(),
        };
        // Guests who cannot see the advert still join by join code or address.
        let (mut problems, problem) = match Advertiser::start(ad, self.config.scope) {
            Ok(a) => {
                let problems = a.problems();
                *lock(&advertiser) = Some(a);
                (Some(problems), None)
            }
            Err(e) => (None, Some(e.failure())),
        };
        let problem = problems.as_mut().map_or(problem, |p| p.borrow_and_update().clone());
        // A seat may have been taken between creating and advertising.
        if let Ok(now) = net.view() {
            follow(&advertiser, open_seats(&now));
        }
        let join_code = server.join_code(room);
        let hosted = Hosting::new(name, server.addr(), code, join_code.as_ref())
            .for_chaturaji(join_code.as_ref())
            .with_advert_problem(problem.as_ref());
        let shared = Arc::new(Mutex::new(hosted.clone()));
        let follower = problems.map(|problems| {
            let on_hosted = self.on_hosted.clone();
            follow_advert(problems, shared.clone(), |h: &mut Hosting| h, move |h| on_hosted(h))
        });
        *hosting = Some(Table {
            _hold: Hold::start(Use::Advertising),
            server,
            advertiser,
            hosted: shared,
            follower,
        });
        Ok(HostedTable { hosted, table })
    }

    /// How to join the table this device hosts (None when not hosting).
    pub async fn hosted(&self) -> Option<ChaturajiHosted> {
        self.hosting.lock().await.as_ref().map(|h| lock(&h.hosted).clone())
    }

    /// The open people seats advertised now (None when not hosting or withdrawn).
    pub async fn advertised_open_seats(&self) -> Option<u8> {
        let hosting = self.hosting.lock().await;
        let a = lock(&hosting.as_ref()?.advertiser).as_ref()?.ad()?.open_seats;
        Some(a)
    }

    /// Stops hosting: leaves the table on `net` when it is the hosted one, withdraws the
    /// advertisement and stops the server. Nothing happens when not hosting.
    pub async fn stop(&self, net: &NetState) {
        let Some(mut hosting) = self.hosting.lock().await.take() else {
            return;
        };
        if let Some(f) = hosting.follower.take() {
            f.abort();
        }
        let hosted_code = lock(&hosting.hosted).room.clone();
        let on_it = net.view().is_ok_and(|v| v.remote.is_some_and(|r| r.code == hosted_code));
        if on_it {
            net.leave().await;
        }
        let advertiser = lock(&hosting.advertiser).take();
        if let Some(a) = advertiser {
            let _ = tokio::task::spawn_blocking(move || a.shutdown()).await;
        }
        hosting.server.stop().await;
    }

    /// Joins a Chaturaji table on the LAN: a list entry of `lan`'s browsing, a typed address and
    /// room code, or a join code. Browsing stops once seated.
    ///
    /// # Errors
    /// As [`Lan::resolve`]; `lan_not_chaturaji` for a chess host's entry; as [`NetState::join`]
    /// (`connect_failed`, `room_full` or `room_not_found` when the table is full or gone).
    pub async fn join(
        &self,
        lan: &Lan,
        target: &JoinTarget,
        net: &NetState,
        on_change: impl Fn(TableView) + Send + 'static,
    ) -> Result<TableView, AppError> {
        let (address, room, chaturaji) = lan.resolve(target).await?;
        if matches!(target, JoinTarget::Host { .. }) && !chaturaji {
            return Err(error(
                "lan_not_chaturaji",
                "That host plays chess, not Chaturaji: join it from the LAN screen.",
            ));
        }
        let view = net.join_in(Reach::Lan, &ws_url(address), room.as_str(), on_change).await?;
        lan.stop_browsing().await;
        Ok(view)
    }
}
