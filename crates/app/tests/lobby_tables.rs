//! Chaturaji tables from the app's lobby against the real server library on 127.0.0.1: one app
//! posts a table for four, two others join it from their lists, and when its wait is over the
//! table starts with a CPU in the empty seat and every app seated there by its own device id
//! (the same network table as one joined by code). Quick pairing for Chaturaji seats two apps at
//! one table after the wait they chose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::Server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use maharajah_app::chaturaji::online::NetState;
use maharajah_app::chaturaji::view::TableView;
use maharajah_app::chess::online::NetPlay;
use maharajah_app::identity::Identity;
use maharajah_app::lobby::{Lobby, LobbyView, Tables};
use maharajah_app::store::Store;
use maharajah_chaturaji::Seat;
use maharajah_protocol::{ChallengeOptions, ColorChoice, LobbyGame, TableOptions, TimeControl};

const WAIT: Duration = Duration::from_secs(20);

/// One app's lobby with its Chaturaji network table, and the last lobby view and table view
/// it pushed.
struct App {
    lobby: Lobby,
    table: Arc<NetState>,
    pushed: Arc<Mutex<Option<LobbyView>>>,
    tables: Arc<Mutex<Vec<TableView>>>,
}

fn app(i: usize) -> App {
    let store = Store::in_memory().unwrap();
    let identity = Identity::new(store.clone(), maharajah_app::time::system());
    let pushed = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&pushed);
    let lobby = Lobby::new(identity, NetPlay::new(|_| {}), store, std::env::temp_dir(), move |v| {
        *seen.lock().unwrap() = Some(v);
    });
    let table = Arc::new(NetState::new(format!("lobby-table-device-{i:04}")));
    let tables = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&tables);
    lobby.seat_tables_in(Tables {
        net: Arc::clone(&table),
        push: Arc::new(move |v| seen.lock().unwrap().push(v)),
    });
    App { lobby, table, pushed, tables }
}

impl App {
    fn last(&self) -> Option<LobbyView> {
        self.pushed.lock().unwrap().clone()
    }
}

async fn until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(t) = f() {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn table_for(people: u8, cpu_after_s: u32) -> ChallengeOptions {
    ChallengeOptions {
        game: LobbyGame::Chaturaji,
        time_control: Some(TimeControl { base_ms: 0, increment_ms: 60_000 }),
        rated: false,
        color: ColorChoice::Random,
        table: Some(TableOptions { people, cpu_after_s }),
    }
}

/// Waits until `app`'s lobby names the table it was seated at, and answers its code and seat.
async fn seated(app: &App) -> (String, Seat) {
    let code = until("the table named in the lobby", || {
        app.last().filter(|v| v.matched_game == Some(LobbyGame::Chaturaji)).and_then(|v| v.matched)
    })
    .await;
    let view = app.table.view().expect("the device sits at the table");
    let remote = view.remote.expect("a network table");
    assert_eq!(remote.code, code, "the lobby's table is the device's network table");
    assert!(remote.started, "the table has started");
    assert!(!app.tables.lock().unwrap().is_empty(), "the table's views are pushed");
    (code, remote.seat)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_table_fills_from_the_list_and_starts_with_a_cpu_after_its_wait() {
    let server = Server::start().await;
    let apps: Vec<App> = (0..3).map(app).collect();
    for a in &apps {
        a.lobby.open(&server.url).await.expect("the lobby opens");
    }
    let posted = apps[0].lobby.create(table_for(4, 5)).await.expect("posted");
    let mine = posted.challenges.iter().find(|c| c.mine).expect("ours in the list");
    assert!(mine.seated, "the creator sits at its table");
    let id = mine.challenge.id;

    // The others see it in their lists, with one person of four, and join it.
    for (n, a) in apps[1..].iter().enumerate() {
        let listed = until("the table in the list", || {
            a.lobby.view().challenges.into_iter().find(|c| c.challenge.id == id)
        })
        .await;
        let t = listed.challenge.table.expect("a table");
        assert_eq!((t.people, t.cpu_after_s), (4, 5));
        assert!(!listed.mine && !listed.seated);
        let joined = a.lobby.join_table(id).await.expect("joined");
        let row = joined.challenges.iter().find(|c| c.challenge.id == id).expect("listed");
        assert!(row.seated, "we sit at it now");
        assert_eq!(row.challenge.table.map(|t| t.joined), Some(n as u8 + 2));
    }
    let again = apps[2].lobby.join_table(id).await.expect_err("one seat per device");
    assert_eq!(again.code, "wrong_phase");
    until("the creator sees three people", || {
        let v = apps[0].lobby.view();
        v.challenges
            .iter()
            .find(|c| c.challenge.id == id)?
            .challenge
            .table?
            .joined
            .eq(&3)
            .then_some(())
    })
    .await;
    assert!(apps[0].table.view().is_err(), "nobody is seated before the table starts");

    let mut seats = Vec::new();
    let mut codes = Vec::new();
    for a in &apps {
        let (code, seat) = seated(a).await;
        codes.push(code);
        seats.push(seat);
    }
    assert!(codes.iter().all(|c| *c == codes[0]), "one table: {codes:?}");
    assert_eq!(seats, [Seat::Red, Seat::Blue, Seat::Yellow], "the creator first");
    let view = apps[0].table.view().unwrap();
    let seat_views = view.remote.and_then(|r| r.seats).expect("the seats");
    let cpus = Seat::ALL.into_iter().filter(|&s| !seat_views[s].person).count();
    assert_eq!(cpus, 1, "a CPU took the empty seat");
    assert!(
        Seat::ALL.into_iter().filter(|&s| seat_views[s].person).all(|s| seat_views[s].connected),
        "every person is connected through their own device"
    );
    until("the table leaves the list", || {
        apps[1].lobby.view().challenges.iter().all(|c| c.challenge.id != id).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_now_for_chaturaji_seats_two_apps_at_one_table_after_their_wait() {
    let server = Server::start().await;
    let apps: Vec<App> = (10..12).map(app).collect();
    let untimed = TimeControl { base_ms: 0, increment_ms: 0 };
    for a in &apps {
        a.lobby.open(&server.url).await.expect("the lobby opens");
        let bad = a.lobby.play_now_table(untimed, false, 1).await.expect_err("5 to 300 s");
        assert_eq!(bad.code, "invalid_options");
        let queued = a.lobby.play_now_table(untimed, false, 5).await.expect("queued");
        assert_eq!(queued.seeking.map(|s| s.game), Some(LobbyGame::Chaturaji));
    }
    let started = std::time::Instant::now();
    let (code, first) = seated(&apps[0]).await;
    let (other, second) = seated(&apps[1]).await;
    assert!(started.elapsed() >= Duration::from_secs(3), "they waited for more people");
    assert_eq!(code, other, "one table");
    assert_ne!(first, second);
    let seat_views = apps[0].table.view().unwrap().remote.and_then(|r| r.seats).unwrap();
    assert_eq!(Seat::ALL.into_iter().filter(|&s| seat_views[s].person).count(), 2);
    assert_eq!(apps[1].lobby.view().seeking, None, "the wait is over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_device_table_the_lobby_refuses_chaturaji() {
    let server = Server::start().await;
    let store = Store::in_memory().unwrap();
    let identity = Identity::new(store.clone(), maharajah_app::time::system());
    let lobby = Lobby::new(identity, NetPlay::new(|_| {}), store, std::env::temp_dir(), |_| {});
    lobby.open(&server.url).await.unwrap();
    let refused = lobby.create(table_for(2, 5)).await.expect_err("no device");
    assert_eq!(refused.code, "unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_leaves_a_table_and_a_table_cancelled_by_its_creator_goes_from_them() {
    let server = Server::start().await;
    let apps: Vec<App> = (20..22).map(app).collect();
    for a in &apps {
        a.lobby.open(&server.url).await.expect("the lobby opens");
    }
    let posted = apps[0].lobby.create(table_for(4, 300)).await.expect("posted");
    let id = posted.challenges.iter().find(|c| c.mine).expect("ours").challenge.id;
    until("the table listed", || {
        apps[1].lobby.view().challenges.iter().any(|c| c.challenge.id == id).then_some(())
    })
    .await;
    let joined = apps[1].lobby.join_table(id).await.expect("joined");
    assert!(joined.challenges.iter().any(|c| c.challenge.id == id && c.seated));
    until("two people", || {
        let v = apps[0].lobby.view();
        v.challenges
            .iter()
            .find(|c| c.challenge.id == id)?
            .challenge
            .table?
            .joined
            .eq(&2)
            .then_some(())
    })
    .await;
    // The person who joined leaves: the table stays, with one person, and may be joined again.
    let left = apps[1].lobby.cancel(id).await.expect("left the table");
    let row = left.challenges.iter().find(|c| c.challenge.id == id).expect("still listed");
    assert!(!row.seated, "we sit there no longer");
    assert_eq!(row.challenge.table.map(|t| t.joined), Some(1));
    until("one person again", || {
        let v = apps[0].lobby.view();
        v.challenges
            .iter()
            .find(|c| c.challenge.id == id)?
            .challenge
            .table?
            .joined
            .eq(&1)
            .then_some(())
    })
    .await;
    let joined = apps[1].lobby.join_table(id).await.expect("joined again");
    assert!(joined.challenges.iter().any(|c| c.challenge.id == id && c.seated));
    let cancelled = apps[0].lobby.cancel(id).await.expect("the creator cancels");
    assert!(cancelled.challenges.iter().all(|c| c.challenge.id != id));
    until("the table gone for the person waiting there", || {
        apps[1].lobby.view().challenges.iter().all(|c| c.challenge.id != id).then_some(())
    })
    .await;
    // No longer at a table: another one may be joined; a table for two starts when full.
    let again = apps[0].lobby.create(table_for(2, 300)).await.expect("another table");
    let other = again.challenges.iter().find(|c| c.mine).expect("ours").challenge.id;
    until("the new table listed", || {
        apps[1].lobby.view().challenges.iter().any(|c| c.challenge.id == other).then_some(())
    })
    .await;
    apps[1].lobby.join_table(other).await.expect("joined the new table");
    let (code, _) = seated(&apps[1]).await;
    assert_eq!(seated(&apps[0]).await.0, code, "both at one table");
}
