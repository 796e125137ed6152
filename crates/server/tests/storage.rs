//! One storage suite for both durable backends (SQLite and PostgreSQL), through the
//! [`Storage`] trait; then what only a cluster's store does: the lease, the epoch fence, the
//! players' revisions that nodes follow and that guard a rated end, the games' numbers.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::pg::Pg;
use maharajah_server::store::{
    PgStore, PlayerRev, PlayerRow, RoomKind, SqliteStore, Storage, Store, StoreError,
};
use serde_json::{json, Value};

fn player(key: &str, skeleton: Option<&str>, rating: u32) -> PlayerRow {
    PlayerRow {
        key: key.to_owned(),
        skeleton: skeleton.map(str::to_owned),
        json: json!({ "key": key, "rating": rating }).to_string(),
    }
}

async fn read(s: &impl Storage, kind: RoomKind, code: &str) -> Option<Value> {
    s.room(kind, code).await.unwrap().map(|j| serde_json::from_str(&j).unwrap())
}

/// What every store does; `store` writes, `other` is a second handle on the same database
/// (what a restart, or another node, reads).
async fn suite(store: &impl Storage, other: &impl Storage) {
    // A room, then 100 moves one write each (more than a PostgreSQL checkpoint's worth).
    let mut room = json!({ "code": "SUITE001", "moves": [], "seq": 1, "clock": [60000, 60000] });
    store.put_room(RoomKind::Chess, "SUITE001", room.to_string()).await.unwrap();
    for i in 0..100u64 {
        room["moves"].as_array_mut().unwrap().push(json!(format!("m{i}")));
        room["seq"] = json!(i + 2);
        room["clock"] = json!([60000 - i, 60000 + i]);
        if i == 50 {
            room["draw_offer"] = json!("white");
        }
        if i == 51 {
            room.as_object_mut().unwrap().remove("draw_offer");
        }
        store.put_room(RoomKind::Chess, "SUITE001", room.to_string()).await.unwrap();
    }
    assert_eq!(read(other, RoomKind::Chess, "SUITE001").await.as_ref(), Some(&room));
    assert_eq!(read(store, RoomKind::Chess, "SUITE001").await.as_ref(), Some(&room));

    // Kinds are apart; unknown rooms are none.
    let table = json!({ "code": "SUITE002", "seats": [1, 2, 3, 4] });
    store.put_room(RoomKind::Chaturaji, "SUITE002", table.to_string()).await.unwrap();
    assert_eq!(read(other, RoomKind::Chaturaji, "SUITE002").await, Some(table));
    assert_eq!(read(other, RoomKind::Chess, "SUITE002").await, None);
    assert_eq!(read(other, RoomKind::Chess, "NOSUCH00").await, None);

    // Deleted rooms are gone.
    store.delete_room(RoomKind::Chaturaji, "SUITE002").await.unwrap();
    assert_eq!(read(other, RoomKind::Chaturaji, "SUITE002").await, None);

    // A code used again is a new room: nothing of the deleted one's changes comes back.
    let mut old = json!({ "code": "SUITE003", "moves": [] });
    store.put_room(RoomKind::Chess, "SUITE003", old.to_string()).await.unwrap();
    for m in ["e4", "e5", "Nf3"] {
        old["moves"].as_array_mut().unwrap().push(json!(m));
        store.put_room(RoomKind::Chess, "SUITE003", old.to_string()).await.unwrap();
    }
    store.delete_room(RoomKind::Chess, "SUITE003").await.unwrap();
    let mut new = json!({ "code": "SUITE003", "moves": [], "again": true });
    store.put_room(RoomKind::Chess, "SUITE003", new.to_string()).await.unwrap();
    new["moves"] = json!(["d4"]);
    store.put_room(RoomKind::Chess, "SUITE003", new.to_string()).await.unwrap();
    assert_eq!(read(other, RoomKind::Chess, "SUITE003").await, Some(new));

    // Players: upserted; a second look-alike name is refused by the database, whole.
    store
        .put_players(vec![player("k1", Some("alice"), 1500), player("k2", None, 1400)])
        .await
        .unwrap();
    store.put_players(vec![player("k1", Some("alice"), 1510)]).await.unwrap();
    let refused = store.put_players(vec![player("k3", None, 1), player("k4", Some("alice"), 1)]);
    assert!(refused.await.is_err(), "a taken skeleton is refused");
    let mut players = other.players().await.unwrap();
    players.sort();
    let keys: Vec<&str> = players.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["k1", "k2"], "the refused transaction stored nothing");
    let k1: Value = serde_json::from_str(&players[0].1).unwrap();
    assert_eq!(k1["rating"], 1510);

    // A room and players in one transaction (a rated game's end).
    room["result"] = json!("white wins");
    store
        .put_room_with_players(
            RoomKind::Chess,
            "SUITE001",
            room.to_string(),
            vec![player("k1", Some("alice"), 1520), player("k2", None, 1390)],
        )
        .await
        .unwrap();
    assert_eq!(read(other, RoomKind::Chess, "SUITE001").await.unwrap()["result"], "white wins");
    let players = other.players().await.unwrap();
    assert!(players.iter().any(|(k, r)| k == "k2" && r.contains("1390")), "{players:?}");

    // Finished games: once per key, oldest first.
    store.put_game(1, "SUITE001/1".into(), "{\"n\":1}".into()).await.unwrap();
    store.put_game(1, "SUITE001/1".into(), "{\"n\":\"again\"}".into()).await.unwrap();
    store.put_game(2, "SUITE001/2".into(), "{\"n\":2}".into()).await.unwrap();
    assert_eq!(other.games().await.unwrap(), ["{\"n\":1}", "{\"n\":2}"]);
}

#[tokio::test]
async fn the_storage_suite_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("suite.sqlite3");
    let (store, _) = SqliteStore::open_lazy(&db).unwrap();
    let (other, _) = SqliteStore::open_lazy(&db).unwrap();
    suite(&store, &other).await;
}

/// A clean stop loses nothing queued: writes nobody awaits (a finished game) are committed
/// before the store's `drained` signal resolves. Another connection's lock holds the writer
/// back, so the signal must wait for the commit, not for the queue to be handed over.
#[tokio::test]
async fn sqlite_is_drained_only_once_what_was_queued_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("drain.sqlite3");
    let (store, stored) = Store::open_lazy(&db).unwrap();
    let blocker = rusqlite::Connection::open(&db).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let queued = store.queue_game(1, "DRAIN001/0".into(), "{\"n\":1}".into()).unwrap();
    assert!(queued.is_some(), "a durable store answers once committed");
    let drained = tokio::spawn(store.drained().wait());
    drop(store);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!drained.is_finished(), "drained while the write waits for the lock");
    blocker.execute_batch("COMMIT").unwrap();
    tokio::time::timeout(Duration::from_secs(5), drained).await.unwrap().unwrap();
    assert_eq!(stored.read_games().unwrap(), ["{\"n\":1}"]);
    // A store that writes nowhere has nothing to wait for.
    tokio::time::timeout(Duration::from_secs(1), Store::memory().drained().wait()).await.unwrap();
}

/// Writes queued together share one transaction, but one that fails (a second player whose
/// name's skeleton is taken) is refused alone: the writes beside it in the batch are kept.
/// Another connection's lock holds the writer back so that they land in one batch.
#[tokio::test]
async fn sqlite_refuses_a_failing_write_alone_and_keeps_the_rest_of_its_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("batch.sqlite3");
    let (store, stored) = Store::open_lazy(&db).unwrap();
    store
        .queue_players(vec![player("aa", Some("alice"), 1500)])
        .unwrap()
        .unwrap()
        .wait()
        .await
        .unwrap();
    let blocker = rusqlite::Connection::open(&db).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let before = store.queue_game(1, "BATCH001/0".into(), "{\"n\":1}".into()).unwrap().unwrap();
    // The writer has taken that one and waits for the lock: the next three queue behind it
    // and are written as one batch.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let clash = store.queue_players(vec![player("bb", Some("alice"), 1500)]).unwrap().unwrap();
    let fine = store.queue_players(vec![player("cc", Some("carol"), 1600)]).unwrap().unwrap();
    let after = store.queue_game(2, "BATCH002/0".into(), "{\"n\":2}".into()).unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    blocker.execute_batch("COMMIT").unwrap();
    let err = clash.wait().await.expect_err("a taken skeleton is refused");
    assert!(matches!(err, StoreError::Refused(_)) && err.to_string().contains("UNIQUE"), "{err}");
    before.wait().await.unwrap();
    fine.wait().await.unwrap();
    after.wait().await.unwrap();
    assert_eq!(stored.read_games().unwrap(), ["{\"n\":1}", "{\"n\":2}"]);
    let keys: Vec<String> = stored.read_players().unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&"aa".to_owned()) && keys.contains(&"cc".to_owned()), "{keys:?}");
}

const LEASE: Duration = Duration::from_millis(1500);

#[tokio::test]
async fn the_storage_suite_on_postgres() {
    let Some(pg) = Pg::start("suite").await else { return };
    let store = PgStore::connect(&pg.url, "node-a", LEASE, 2).await.unwrap();
    let other = PgStore::connect(&pg.url, "node-b", LEASE, 1).await.unwrap();
    // Renewed leases keep the rooms this store writes (the suite takes a while on a busy
    // machine).
    let renewing = store.clone();
    let renew = tokio::spawn(async move {
        loop {
            renewing.renew().await.unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    suite(&*store, &*other).await;
    renew.abort();
}

#[tokio::test]
async fn a_stale_owner_is_fenced_and_a_live_lease_is_not_taken() {
    let Some(pg) = Pg::start("fence").await else { return };
    let a = PgStore::connect(&pg.url, "node-a", LEASE, 1).await.unwrap();
    let b = PgStore::connect(&pg.url, "node-b", LEASE, 1).await.unwrap();
    let room =
        |n: u64| json!({ "code": "FENCE001", "moves": vec!["e2e4"; n as usize] }).to_string();
    a.put_room(RoomKind::Chess, "FENCE001", room(0)).await.unwrap();
    a.put_room(RoomKind::Chess, "FENCE001", room(1)).await.unwrap();

    // In lease: nobody else can take it.
    assert_eq!(b.claim("FENCE001").await.unwrap(), None);
    let owner = b.owner("FENCE001").await.unwrap().unwrap();
    assert_eq!((owner.node.as_str(), owner.epoch, owner.in_lease), ("node-a", 1, true));
    assert!(owner.lease_left > Duration::ZERO && owner.lease_left <= LEASE, "{owner:?}");

    // A stops renewing (a partition, a pause): once the lease ran out, even before anyone
    // claims, its writes are refused.
    tokio::time::sleep(LEASE + Duration::from_millis(300)).await;
    // (B is alive: it renews its own lease, as a node's lease task does.)
    assert_eq!(b.renew().await.unwrap(), Vec::<String>::new());
    let late = a.put_room(RoomKind::Chess, "FENCE001", room(2)).await;
    assert!(matches!(late, Err(StoreError::Fenced { .. })), "{late:?}");
    let lapsed = b.owner("FENCE001").await.unwrap().unwrap();
    assert_eq!((lapsed.in_lease, lapsed.lease_left), (false, Duration::ZERO), "{lapsed:?}");

    // B claims it with the next epoch and gets every acknowledged change.
    let (kind, json) = b.claim("FENCE001").await.unwrap().expect("an expired lease is claimed");
    assert_eq!(kind, RoomKind::Chess);
    assert_eq!(
        serde_json::from_str::<Value>(&json).unwrap(),
        serde_json::from_str::<Value>(&room(1)).unwrap()
    );
    assert_eq!(b.owner("FENCE001").await.unwrap().unwrap().epoch, 2);
    b.put_room(RoomKind::Chess, "FENCE001", room(2)).await.unwrap();

    // A still believes it owns the room: its renewal says it does not, and its writes (a
    // move, a rated end, a delete) never commit.
    let a2 = PgStore::connect(&pg.url, "node-a", LEASE, 1).await.unwrap();
    a2.put_room(RoomKind::Chess, "FENCE002", room(0)).await.unwrap();
    assert_eq!(a2.renew().await.unwrap(), Vec::<String>::new());
    assert!(a.put_room(RoomKind::Chess, "FENCE001", room(3)).await.is_err());
    assert!(a.delete_room(RoomKind::Chess, "FENCE001").await.is_err());
    let v = read(&*b, RoomKind::Chess, "FENCE001").await.unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 2, "only B's write is there");

    // B drains: its lease ends at once and A (restarted) takes its rooms back.
    assert_eq!(b.release_all().await.unwrap(), 1);
    assert!(a2.claim("FENCE001").await.unwrap().is_some());
    assert_eq!(a2.owner("FENCE001").await.unwrap().unwrap().epoch, 3);
}

/// The revision of `key` as stored (`None`: no row).
async fn rev_of(store: &PgStore, key: &str) -> Option<i64> {
    store.players_of(&[key.to_owned()]).await.unwrap().first().map(|p| p.rev)
}

#[tokio::test]
async fn a_guarded_rated_end_refuses_players_changed_since_they_were_read() {
    let Some(pg) = Pg::start("guard").await else { return };
    let a = PgStore::connect(&pg.url, "node-a", LEASE, 1).await.unwrap();
    let b = PgStore::connect(&pg.url, "node-b", LEASE, 1).await.unwrap();
    let renewing = a.clone();
    let renew = tokio::spawn(async move {
        loop {
            renewing.renew().await.unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    let mut room = json!({ "code": "GUARD001", "moves": ["e2e4"] });
    a.put_room(RoomKind::Chess, "GUARD001", room.to_string()).await.unwrap();
    a.put_players(vec![player("k1", Some("alice"), 1500)]).await.unwrap();
    // A reads k1 (k2 has no row) and computes a rated end from it...
    let read = rev_of(&a, "k1").await;
    assert!(read.is_some());
    assert_eq!(rev_of(&a, "k2").await, None);
    // ...while B rates k1 in another game.
    b.put_players(vec![player("k1", Some("alice"), 1600)]).await.unwrap();
    let newer = rev_of(&a, "k1").await;
    assert!(newer > read, "every write takes a higher revision: {read:?} {newer:?}");

    room["result"] = json!("white wins");
    let end = |k1: u32| vec![player("k1", Some("alice"), k1), player("k2", None, 1490)];
    let guard = |k1, k2| {
        vec![PlayerRev { key: "k1".into(), rev: k1 }, PlayerRev { key: "k2".into(), rev: k2 }]
    };
    let stale = a
        .put_room_with_players_expecting(
            RoomKind::Chess,
            "GUARD001",
            room.to_string(),
            end(1510),
            guard(read, None),
        )
        .await;
    match stale {
        Err(StoreError::StalePlayer { key, expected, stored }) => {
            assert_eq!((key.as_str(), expected, stored), ("k1", read, newer));
        }
        other => panic!("expected a stale player, got {other:?}"),
    }
    // Nothing of it was written: neither the players nor the room's end.
    let players = b.players().await.unwrap();
    assert_eq!(players.len(), 1, "{players:?}");
    assert!(players[0].1.contains("1600"), "{players:?}");
    assert_eq!(read_room(&b, "GUARD001").await.get("result"), None);

    // A player expected without a row who has one now is stale too.
    b.put_players(vec![player("k2", None, 1400)]).await.unwrap();
    let k2 = rev_of(&a, "k2").await;
    let stale = a
        .put_room_with_players_expecting(
            RoomKind::Chess,
            "GUARD001",
            room.to_string(),
            end(1610),
            guard(newer, None),
        )
        .await;
    assert!(
        matches!(&stale, Err(StoreError::StalePlayer { key, expected: None, stored }) if key == "k2" && *stored == k2),
        "{stale:?}"
    );
    assert_eq!(rev_of(&a, "k2").await, k2, "nothing written");

    // Computed from what is stored now, it commits; a follower reads both players in the order
    // of their revisions, after the ones it saw.
    a.put_room_with_players_expecting(
        RoomKind::Chess,
        "GUARD001",
        room.to_string(),
        end(1610),
        guard(newer, k2),
    )
    .await
    .unwrap();
    assert_eq!(read_room(&b, "GUARD001").await["result"], "white wins");
    let since = b.players_since(k2.unwrap()).await.unwrap();
    let keys: Vec<&str> = since.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["k1", "k2"]);
    assert!(since[0].rev < since[1].rev && since[0].record.contains("1610"), "{since:?}");
    assert!(b.players_since(since[1].rev).await.unwrap().is_empty());

    // Finished games: numbered by the database, the same number when stored again.
    let first = a.queue_game("GUARD001/1".into(), "{\"n\":1}".into()).unwrap().wait().await;
    let second = b.queue_game("OTHER001/1".into(), "{\"n\":2}".into()).unwrap().wait().await;
    let again = b.queue_game("GUARD001/1".into(), "{\"n\":3}".into()).unwrap().wait().await;
    let (first, second) = (first.unwrap(), second.unwrap());
    assert!(second > first);
    assert_eq!(again.unwrap(), first, "a game stored again keeps its number");
    let games = b.games_since(0).await.unwrap();
    assert_eq!(games, [(first, "{\"n\":1}".to_owned()), (second, "{\"n\":2}".to_owned())]);
    assert_eq!(b.games_since(first).await.unwrap().len(), 1);
    renew.abort();
}

async fn read_room(s: &PgStore, code: &str) -> Value {
    read(s, RoomKind::Chess, code).await.unwrap()
}

/// A node restarted under the same id (its lease never lapsed for the others) finds the rooms
/// of its previous run as left over, and takes each back with the next epoch.
#[tokio::test]
async fn a_restarted_node_finds_its_previous_rooms() {
    let Some(pg) = Pg::start("leftover").await else { return };
    let before = PgStore::connect(&pg.url, "node-a", LEASE, 1).await.unwrap();
    let room = |code: &str| json!({ "code": code, "moves": ["e2e4"] }).to_string();
    for code in ["LEFT0001", "LEFT0002"] {
        before.put_room(RoomKind::Chess, code, room(code)).await.unwrap();
    }
    assert_eq!(before.left_over().await.unwrap(), Vec::<String>::new(), "held, not left over");

    let after = PgStore::connect(&pg.url, "node-a", LEASE, 1).await.unwrap();
    let mut left = after.left_over().await.unwrap();
    left.sort();
    assert_eq!(left, ["LEFT0001", "LEFT0002"]);
    assert!(after.claim("LEFT0001").await.unwrap().is_some());
    assert_eq!(after.owner("LEFT0001").await.unwrap().unwrap().epoch, 2);
    assert_eq!(after.left_over().await.unwrap(), ["LEFT0002"]);
    // The previous run's writes are fenced by the new epoch.
    let stale = before.put_room(RoomKind::Chess, "LEFT0001", room("LEFT0001")).await;
    assert!(matches!(stale, Err(StoreError::Fenced { .. })), "{stale:?}");
}
