//! Chaturaji tables in the lobby over real WebSockets on 127.0.0.1: a challenge's table fills
//! with the people who accept it and starts when full, or with CPUs in the empty seats once
//! its wait is over; the list follows how full it is; a table needs device ids, a rated one
//! identities, and it goes with its creator.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Client, TestServer};
use maharajah_chaturaji::settings::Player as SeatPlayer;
use maharajah_chaturaji::Seat;
use maharajah_protocol::*;
use maharajah_server::Config;

fn table(people: u8, cpu_after_s: u32, device: Option<&str>) -> ClientMsg {
    ClientMsg::CreateChallenge {
        options: ChallengeOptions {
            game: LobbyGame::Chaturaji,
            time_control: Some(TimeControl { base_ms: 0, increment_ms: 30_000 }),
            rated: false,
            color: ColorChoice::Random,
            table: Some(TableOptions { people, cpu_after_s }),
        },
        device: device.map(str::to_owned),
    }
}

fn device(i: usize) -> String {
    format!("device-table-{i:06}")
}

/// `lobby_matched`, `chaturaji_seated` and the snapshot: the seat and the table.
async fn seated(c: &mut Client) -> (Seat, ChaturajiSnapshot) {
    c.until_lobby("lobby_matched", |m| matches!(m, LobbyMsg::LobbyMatched { .. })).await;
    let m = c
        .until("seated", |m| {
            matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { .. }))
        })
        .await;
    let ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { seat, .. }) = m else {
        unreachable!()
    };
    let m = c
        .until("snapshot", |m| {
            matches!(m, ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { .. }))
        })
        .await;
    let ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { snapshot }) = m else {
        unreachable!()
    };
    (seat, *snapshot)
}

fn people(s: &ChaturajiSnapshot) -> usize {
    Seat::ALL.into_iter().filter(|&x| s.settings.players[x] == SeatPlayer::Person).count()
}

#[tokio::test]
async fn a_table_starts_when_full_and_the_list_follows_it() {
    let server = TestServer::start(Config::default()).await;
    let mut watcher = Client::connect(server.addr).await;
    watcher.send(&ClientMsg::LobbySubscribe { games: vec![LobbyGame::Chaturaji] }).await;
    watcher.until_lobby("list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;

    let mut a = Client::connect(server.addr).await;
    a.send(&table(3, 300, None)).await;
    assert_eq!(a.until_error().await.0, ErrorCode::InvalidOptions, "a device id is needed");
    a.send(&table(5, 300, Some(&device(0)))).await;
    assert_eq!(a.until_error().await.0, ErrorCode::InvalidOptions, "2 to 4 people");
    a.send(&table(3, 300, Some(&device(0)))).await;
    let LobbyMsg::ChallengeCreated { challenge } =
        a.until_lobby("created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(challenge.table, Some(TableView { people: 3, joined: 1, cpu_after_s: 300 }));
    watcher.until_lobby("added", |m| matches!(m, LobbyMsg::LobbyAdded { .. })).await;

    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(1)) }).await;
    let LobbyMsg::TableJoined { challenge: joined } =
        b.until_lobby("joined", |m| matches!(m, LobbyMsg::TableJoined { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(joined.table.unwrap().joined, 2);
    let LobbyMsg::LobbyUpdated { challenge: updated } =
        watcher.until_lobby("updated", |m| matches!(m, LobbyMsg::LobbyUpdated { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(updated.table.unwrap().joined, 2);
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(2)) }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::WrongPhase, "one seat per person");

    let mut c = Client::connect(server.addr).await;
    c.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(2)) }).await;
    let mut seats = Vec::new();
    for p in [&mut a, &mut b, &mut c] {
        let (seat, snap) = seated(p).await;
        assert_eq!(people(&snap), 3, "three people and a CPU");
        assert_eq!(snap.settings.turn_time, maharajah_chaturaji::settings::TurnTime::Seconds30);
        seats.push(seat);
    }
    assert_eq!(seats, [Seat::Red, Seat::Blue, Seat::Yellow], "the creator first");
    let removed = watcher.until_lobby("removed", |m| matches!(m, LobbyMsg::LobbyRemoved { .. }));
    assert_eq!(
        removed.await,
        LobbyMsg::LobbyRemoved { id: challenge.id, reason: RemovedReason::Accepted }
    );
    server.stop().await;
}

#[tokio::test]
async fn cpus_take_the_empty_seats_after_the_wait_and_a_table_goes_with_its_creator() {
    let server = TestServer::start(Config::default()).await;
    let mut a = Client::connect(server.addr).await;
    a.send(&table(4, 5, Some(&device(0)))).await;
    let LobbyMsg::ChallengeCreated { challenge } =
        a.until_lobby("created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. })).await
    else {
        unreachable!()
    };
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(1)) }).await;
    b.until_lobby("joined", |m| matches!(m, LobbyMsg::TableJoined { .. })).await;
    a.patience = Duration::from_secs(10);
    b.patience = Duration::from_secs(10);
    let started = std::time::Instant::now();
    let (_, snap) = seated(&mut a).await;
    assert!(started.elapsed() >= Duration::from_secs(3), "the table waited for more people");
    assert_eq!(people(&snap), 2, "two people, two CPUs");
    seated(&mut b).await;

    // Another table goes when its creator leaves: the person waiting there is told.
    let mut c = Client::connect(server.addr).await;
    c.send(&table(4, 300, Some(&device(2)))).await;
    let LobbyMsg::ChallengeCreated { challenge } =
        c.until_lobby("created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. })).await
    else {
        unreachable!()
    };
    let mut d = Client::connect(server.addr).await;
    d.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(3)) }).await;
    d.until_lobby("joined", |m| matches!(m, LobbyMsg::TableJoined { .. })).await;
    c.close().await;
    let removed = d.until_lobby("removed", |m| matches!(m, LobbyMsg::LobbyRemoved { .. })).await;
    assert_eq!(
        removed,
        LobbyMsg::LobbyRemoved { id: challenge.id, reason: RemovedReason::CreatorLeft }
    );
    server.stop().await;
}

#[tokio::test]
async fn a_person_at_a_table_leaves_it_with_cancel_and_the_table_stays() {
    let server = TestServer::start(Config::default()).await;
    let mut a = Client::connect(server.addr).await;
    a.send(&table(3, 300, Some(&device(0)))).await;
    let LobbyMsg::ChallengeCreated { challenge } =
        a.until_lobby("created", |m| matches!(m, LobbyMsg::ChallengeCreated { .. })).await
    else {
        unreachable!()
    };
    let mut b = Client::connect(server.addr).await;
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(1)) }).await;
    b.until_lobby("joined", |m| matches!(m, LobbyMsg::TableJoined { .. })).await;
    for p in [&mut a, &mut b] {
        p.until_lobby("two", |m| {
            matches!(m, LobbyMsg::LobbyUpdated { challenge } if challenge.table.unwrap().joined == 2)
        })
        .await;
    }

    b.send(&ClientMsg::CancelChallenge { id: challenge.id }).await;
    let left = b.until_lobby("left", |m| matches!(m, LobbyMsg::LobbyUpdated { .. })).await;
    let LobbyMsg::LobbyUpdated { challenge: left } = left else { unreachable!() };
    assert_eq!(left.table.unwrap().joined, 1, "the leaver is told the table without them");
    a.until_lobby("one", |m| {
        matches!(m, LobbyMsg::LobbyUpdated { challenge } if challenge.table.unwrap().joined == 1)
    })
    .await;
    b.send(&ClientMsg::CancelChallenge { id: challenge.id }).await;
    assert_eq!(b.until_error().await.0, ErrorCode::ChallengeNotFound, "no longer there");

    // The seat is free again: two others fill the table and it starts without the leaver.
    let mut c = Client::connect(server.addr).await;
    c.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(2)) }).await;
    c.until_lobby("joined", |m| matches!(m, LobbyMsg::TableJoined { .. })).await;
    let mut d = Client::connect(server.addr).await;
    d.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: Some(device(3)) }).await;
    let mut seats = Vec::new();
    for p in [&mut a, &mut c, &mut d] {
        seats.push(seated(p).await.0);
    }
    assert_eq!(seats, [Seat::Red, Seat::Blue, Seat::Yellow]);
    server.stop().await;
}

fn seek(cpu_after_s: Option<u32>, device: Option<String>) -> ClientMsg {
    ClientMsg::PlayNow {
        game: LobbyGame::Chaturaji,
        time_control: TimeControl { base_ms: 0, increment_ms: 0 },
        rated: false,
        cpu_after_s,
        device,
    }
}

#[tokio::test]
async fn quick_pairing_fills_a_table_of_four_or_seats_cpus_after_the_wait() {
    let server = TestServer::start(Config::default()).await;
    let mut lone = Client::connect(server.addr).await;
    lone.send(&seek(None, None)).await;
    assert_eq!(lone.until_error().await.0, ErrorCode::InvalidOptions, "a device id is needed");
    lone.send(&seek(Some(1), Some(device(9)))).await;
    assert_eq!(lone.until_error().await.0, ErrorCode::InvalidOptions, "5 to 300 s");

    // Four at once: a full table without waiting.
    let mut four = Vec::new();
    for i in 0..4 {
        let mut c = Client::connect(server.addr).await;
        c.send(&seek(Some(300), Some(device(i)))).await;
        c.until_lobby("queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await;
        four.push(c);
    }
    for c in &mut four {
        let (_, snap) = seated(c).await;
        assert_eq!(people(&snap), 4);
    }

    // Two with a wait of 5 s: CPUs take the other two seats after it.
    let mut two = Vec::new();
    for i in 10..12 {
        let mut c = Client::connect(server.addr).await;
        c.patience = Duration::from_secs(10);
        c.send(&seek(Some(5), Some(device(i)))).await;
        c.until_lobby("queued", |m| matches!(m, LobbyMsg::PairingQueued { .. })).await;
        two.push(c);
    }
    let started = std::time::Instant::now();
    for c in &mut two {
        let (_, snap) = seated(c).await;
        assert_eq!(people(&snap), 2, "two people, two CPUs");
    }
    assert!(started.elapsed() >= Duration::from_secs(3), "they waited for more people");
    server.stop().await;
}
