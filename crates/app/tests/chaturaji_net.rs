//! Chaturaji over the network through the app's session (`maharajah_app::chaturaji::online`): two
//! devices and two CPUs share a table on a server on loopback (no mDNS, so no namespace).
#![allow(clippy::unwrap_used)]

mod common;

use maharajah_app::chaturaji::online::NetState;
use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{Event, Phase, Seat, Settings};

use common::{play_to_the_end, until};

async fn server() -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("loopback");
    let addr = listener.local_addr().expect("bound");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(maharajah_server::run(listener, maharajah_server::Config::default(), async {
        let _ = stopped.await;
    }));
    (format!("ws://{addr}/"), stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_devices_and_two_cpus_share_a_network_table() {
    let (url, stop) = server().await;
    let mut settings = Settings { round_limit: 2, ..Settings::default() };
    settings.players.yellow = Player::Cpu { level: Level::Random };
    settings.players.green = Player::Cpu { level: Level::Random };
    let red = NetState::new("device-red-app-0000000001".into());
    let blue = NetState::new("device-blue-app-000000002".into());
    let created = red.create(&url, settings, |_| {}).await.expect("created");
    let remote = created.remote.clone().expect("a network view");
    assert_eq!(remote.seat, Seat::Red);
    assert!(!remote.started, "waiting for Blue");
    // While a seat is free the table invites with a Chaturaji link to this server, and its QR.
    let invite = remote.invite.clone().expect("an invitation while Blue's seat is free");
    assert!(
        invite.url.starts_with(&format!("maharajah://join/{}?server=", remote.code))
            && invite.url.ends_with("&game=chaturaji"),
        "{}",
        invite.url
    );
    assert!(invite.qr.is_some());
    assert_eq!(
        maharajah_app::link::parse(&invite.url).expect("the app reads its own link"),
        maharajah_app::link::JoinLink::ChaturajiOnline {
            code: remote.code.clone(),
            server: Some(url.clone())
        }
    );
    let joined = blue.join(&url, &remote.code, |_| {}).await.expect("joined");
    assert_eq!(joined.remote.as_ref().map(|r| r.seat), Some(Seat::Blue));
    until("the game on both", || {
        red.view().is_ok_and(|v| v.remote.is_some_and(|r| r.started))
            && blue.view().is_ok_and(|v| v.remote.is_some_and(|r| r.started))
    })
    .await;
    assert_eq!(
        red.view().expect("open").remote.map(|r| r.invite),
        Some(None),
        "every seat taken: no invitation"
    );
    // Blue may not act on Red's turn; bad input is named.
    assert_eq!(blue.roll().await.expect_err("not Blue's turn").code, "not_your_turn");
    let other = NetState::new("device-other-app-00000003".into());
    let bad_url = other.join("http://nowhere", &remote.code, |_| {}).await;
    assert_eq!(bad_url.expect_err("bad url").code, "bad_url");
    let bad_code = other.join(&url, "0O!", |_| {}).await;
    assert_eq!(bad_code.expect_err("bad code").code, "bad_code");
    let full = other.join(&url, &remote.code, |_| {}).await;
    assert_eq!(full.expect_err("no free seat").code, "room_full");
    // Play to the end: each device rolls on its turn and moves with the first die's move.
    play_to_the_end(&red, &blue).await;
    until("Blue sees the end", || blue.view().is_ok_and(|v| v.outcome.is_some())).await;
    let (r, b) = (red.view().expect("open"), blue.view().expect("open"));
    assert_eq!(r.pieces, b.pieces);
    assert_eq!(r.scores, b.scores);
    // Both devices took part in the dice and verified every roll: no alarm on either table.
    for v in [&r, &b] {
        assert_eq!(v.remote.as_ref().map(|x| x.dice_alarm.clone()), Some(None), "dice verify");
    }
    assert_eq!(r.outcome.expect("over").standings.len(), 4);
    assert!(r.log.iter().any(|e| matches!(e, Event::Rolled { seat: Seat::Green, .. })));
    // Red closes the app; started again on the same device (same id), the code gives Red back.
    red.leave().await;
    let again = NetState::new("device-red-app-0000000001".into());
    let back = again.join(&url, &remote.code, |_| {}).await.expect("the seat comes back");
    assert_eq!(back.remote.map(|r| r.seat), Some(Seat::Red));
    again.leave().await;
    blue.leave().await;
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_shows_its_action_and_is_never_older_than_a_push() {
    let (url, stop) = server().await;
    let mut settings = Settings { round_limit: 2, ..Settings::default() };
    settings.players.yellow = Player::Cpu { level: Level::Random };
    settings.players.green = Player::Cpu { level: Level::Random };
    let (tx, mut pushes) = tokio::sync::mpsc::unbounded_channel();
    let red = NetState::new("device-red-app-0000000011".into());
    let blue = NetState::new("device-blue-app-000000012".into());
    // A slow screen: each push holds the event task a while, so an answer can overtake the push
    // of its own action.
    let created = red
        .create(&url, settings, move |v| {
            let _ = tx.send(v);
            std::thread::sleep(std::time::Duration::from_millis(300));
        })
        .await
        .expect("created");
    let code = created.remote.expect("a network view").code;
    blue.join(&url, &code, |_| {}).await.expect("joined");
    let mut before = Vec::new();
    let wait = async {
        loop {
            let v = pushes.recv().await.expect("pushes");
            let roll = v.remote.as_ref().is_some_and(|r| r.started)
                && v.to_move == Seat::Red
                && matches!(v.phase, Phase::Roll { .. });
            before.push(v);
            if roll {
                break;
            }
        }
    };
    tokio::time::timeout(common::WAIT, wait).await.expect("Red's roll is pushed");
    // The event task now sleeps after that push; the roll's event waits behind it.
    let answer = red.roll().await.expect("Red rolls");
    // It shows the roll: in the log, and its dice in play unless none could be used (4 or 6 on
    // both dice at the start: the elephants are boxed in), which ends the turn at once.
    let rolled = |e: &Event| matches!(e, Event::Rolled { seat: Seat::Red, .. });
    assert!(answer.log.iter().any(rolled), "the answer to a roll shows the roll in its log");
    let ended = answer.log.iter().any(|e| matches!(e, Event::TurnEnded { seat: Seat::Red }));
    assert!(answer.dice.is_some() || ended, "the answer to a roll shows the dice in play");
    for v in &before {
        assert!(v.version < answer.version, "a push before the answer is older");
        assert!(v.actions < answer.actions, "the answer holds the roll");
    }
    // Pushed after: a newer version never shows fewer actions.
    let after = tokio::time::timeout(common::WAIT, pushes.recv()).await.expect("a push");
    let after = after.expect("pushes");
    assert!(after.version > answer.version && after.actions >= answer.actions);
    red.leave().await;
    blue.leave().await;
    let _ = stop.send(());
}
