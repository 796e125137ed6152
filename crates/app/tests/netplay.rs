//! The app's network session against the real server library on 127.0.0.1: create, join by
//! code, moves both ways, pause and early resume, a dropped link, hidden lock-in, the result,
//! and the errors people see for a bad code, an unknown room, a full room and a server of another
//! protocol version.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::Server;

use std::time::Duration;

mod netview;

use maharajah_app::chess::online::{Link, NetPlay, NetUpdate, NetView, SetupStage};
use maharajah_engine::Army;
use maharajah_net::setup::HiddenSetup;
use maharajah_net::{ConnectOptions, Connection, NetEvent};
use maharajah_protocol::{Color, Phase, RoomEvent, RoomOptions, TimeControl, Variant};
use netview::view_until;
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(20);
const BLACK_ARMY: &str = "Pa8,Nb8,Bc8,Md8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";

/// A session whose pushed views land in a channel.
fn session() -> (NetPlay, mpsc::UnboundedReceiver<NetUpdate>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let net = NetPlay::new(move |u| {
        let _ = tx.send(u);
    });
    (net, rx)
}

async fn event_until(
    rx: &mut mpsc::UnboundedReceiver<NetEvent>,
    what: &str,
    f: impl Fn(&NetEvent) -> bool,
) -> NetEvent {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            match rx.recv().await {
                Some(e) if f(&e) => return e,
                Some(_) => {}
                None => panic!("the connection ended while waiting for {what}"),
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn opponent_options() -> ConnectOptions {
    ConnectOptions { client_name: "netplay test opponent".into(), ..ConnectOptions::default() }
}

fn history(v: &NetView) -> Vec<String> {
    v.game.as_ref().map(|g| g.history.clone()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_game_with_a_pause_ends_in_checkmate() {
    let server = Server::start().await;
    let (net, mut views) = session();
    let options = RoomOptions {
        variant: Variant::Chess,
        time_control: Some(TimeControl { base_ms: 300_000, increment_ms: 2_000 }),
        hidden_setup: false,
        color: Some(Color::White),
    };
    let created = net.create(&server.url, options).await.unwrap();
    let code = created.code.clone().expect("the room's code");
    assert_eq!(code.len(), 8);
    assert_eq!(created.seat, Some(Color::White));
    let v = view_until(&mut views, "the welcome and the room", |v| {
        v.server_version.is_some() && v.phase == Some(Phase::WaitingForOpponent)
    })
    .await;
    assert_eq!(v.server_version.as_deref(), Some(maharajah_server::VERSION));
    assert!(v.seats.white.taken && !v.seats.black.taken);
    // While the other seat is free the view invites to the room: a join link naming this server,
    // and its QR code; the link reads back as this room on this server.
    let invite = v.invite.clone().expect("an invitation while waiting");
    assert_eq!(
        maharajah_app::link::parse(&invite.url).unwrap(),
        maharajah_app::link::JoinLink::Online { code: code.clone(), server: Some(v.url.clone()) }
    );
    assert!(invite.qr.is_some_and(|qr| qr.modules.len() == qr.size * qr.size));

    let (black, mut be) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    let seat = black.join_room(code.parse().unwrap()).await.unwrap();
    assert_eq!(seat.seat, Color::Black);
    let v = view_until(&mut views, "the game starts", |v| v.phase == Some(Phase::Playing)).await;
    assert!(v.my_turn, "White moves first");
    assert_eq!(v.invite, None, "both seats taken: nothing to invite to");
    assert!(v.seats.black.connected);
    let game = v.game.as_ref().expect("the board");
    assert_eq!(game.legal.len(), 20);
    assert_eq!(v.clock.map(|c| (c.white_ms, c.black_ms)), Some((300_000, 300_000)));

    let after = net.play("f2f3").await.unwrap();
    assert!(after.revision >= v.revision);
    let v = view_until(&mut views, "our move shown", |v| history(v) == ["f3"]).await;
    assert!(!v.my_turn);
    assert!(v.game.as_ref().unwrap().legal.is_empty(), "no legal moves on the opponent's turn");
    assert_eq!(net.play("e2e4").await.unwrap_err().code(), "not_your_turn");

    // Black answers at its replica's ply: wait until f2f3 has reached it.
    event_until(&mut be, "f2f3", |e| {
        matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: 0, .. }, .. })
    })
    .await;
    black.play("e7e5").await.unwrap();
    let v = view_until(&mut views, "the reply", |v| history(v) == ["f3", "e5"]).await;
    assert!(v.my_turn);
    let clock = v.clock.expect("clock");
    assert_eq!(clock.running, Some(Color::White));
    assert!(clock.black_ms <= 302_000 && clock.black_ms > 290_000, "{clock:?}");

    // Our one pause: both clocks stop, the countdown runs; we resume early.
    net.pause().await.unwrap();
    let v = view_until(&mut views, "paused", |v| v.pause.is_some()).await;
    let pause = v.pause.unwrap();
    assert_eq!(pause.by, Color::White);
    assert!(pause.remaining_ms <= 60_000 && pause.remaining_ms > 50_000);
    assert!(!v.my_turn, "no moves while paused");
    assert!(!v.seats.white.pause_available);
    let paused = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(NetUpdate::Tick(t)) = views.recv().await {
                if t.pause.is_some() {
                    return t;
                }
            }
        }
    })
    .await
    .expect("a countdown tick");
    assert_eq!(paused.clock.unwrap().running, None, "clocks frozen");
    assert_eq!(net.pause().await.unwrap_err().code(), "game_paused");
    net.resume().await.unwrap();
    let v = view_until(&mut views, "resumed", |v| v.pause.is_none() && v.my_turn).await;
    assert_eq!(v.clock.unwrap().running, Some(Color::White));
    assert_eq!(net.pause().await.unwrap_err().code(), "pause_used", "one pause per game");

    // The link drops: the session reconnects by itself with the seat token.
    net.current_connection().unwrap().drop_link();
    view_until(&mut views, "reconnecting", |v| matches!(v.link, Link::Reconnecting { .. })).await;
    view_until(&mut views, "back", |v| v.link == Link::Connected).await;
    net.play("g2g4").await.unwrap();
    event_until(&mut be, "g2g4", |e| {
        matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: 2, .. }, .. })
    })
    .await;
    black.play("d8h4").await.unwrap();
    let v = view_until(&mut views, "the result", |v| v.result.is_some()).await;
    let result = v.result.unwrap();
    assert_eq!((result.winner, result.reason), (Some(Color::Black), "checkmate"));
    assert_eq!(v.phase, Some(Phase::Finished));
    assert!(!v.my_turn);
    assert!(v.rtt_ms.is_some() || v.link == Link::Connected);
    net.leave().await;
    assert!(net.view().is_none());
    black.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joining_names_what_is_wrong() {
    let server = Server::start().await;
    let (net, _views) = session();
    let e = net.join(&server.url, "ABC").await.unwrap_err();
    assert_eq!(e.code(), "bad_code");
    assert!(e.to_string().contains("8 characters"), "{e}");
    let e = net.join(&server.url, "22222222").await.unwrap_err();
    assert_eq!(e.code(), "room_not_found");
    let e = net.join("http://127.0.0.1:1/", "22222222").await.unwrap_err();
    assert_eq!(e.code(), "bad_url");
    let e = net.join("ws://127.0.0.1:1/", "22222222").await.unwrap_err();
    assert_eq!(e.code(), "connect_failed");

    // A room with both seats taken.
    let (host, _he) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    let options = RoomOptions {
        variant: Variant::Horde,
        time_control: None,
        hidden_setup: false,
        color: None,
    };
    let code = host.create_room(options).await.unwrap().code;
    let (guest, _ge) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    guest.join_room(code.clone()).await.unwrap();
    let e = net.join(&server.url, &code.as_str().to_lowercase()).await.unwrap_err();
    assert_eq!(e.code(), "room_full");
    assert!(net.view().is_none(), "a refused join leaves no game open");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_lock_in_reveals_both_armies_together() {
    let server = Server::start().await;
    let (net, mut views) = session();
    let options = RoomOptions {
        variant: Variant::Maharajah,
        time_control: None,
        hidden_setup: true,
        color: Some(Color::White),
    };
    let code = net.create(&server.url, options).await.unwrap().code.unwrap();
    let (black, mut be) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    black.join_room(code.parse().unwrap()).await.unwrap();
    let v = view_until(&mut views, "build", |v| v.setup == SetupStage::Build).await;
    assert_eq!(v.phase, Some(Phase::Setup));

    // The opponent commits first; its army stays hidden from us.
    let mut theirs = HiddenSetup::new(Color::Black, BLACK_ARMY).unwrap();
    black.commit(theirs.commitment()).await.unwrap();
    let v = view_until(&mut views, "their commitment", |v| v.seats.black.committed).await;
    assert!(v.game.is_none(), "no board before both armies are revealed");

    let wrong = net.lock_army(&Army::orthodox(maharajah_engine::Color::Black)).await.unwrap_err();
    assert_eq!(wrong.code(), "bad_army");
    net.lock_army(&Army::orthodox(maharajah_engine::Color::White)).await.unwrap();

    // The opponent reveals once the room opens the reveal.
    loop {
        let e = event_until(&mut be, "reveal open", |e| matches!(e, NetEvent::Room { .. })).await;
        if let NetEvent::Room { event, .. } = &e {
            theirs.observe(event).unwrap();
        }
        if theirs.is_ready_to_reveal() {
            break;
        }
    }
    let (army, nonce) = theirs.reveal().unwrap();
    theirs.mark_revealed();
    black.reveal(&army, &nonce).await.unwrap();

    let v = view_until(&mut views, "verified start", |v| {
        v.setup == SetupStage::Verified && v.phase == Some(Phase::Playing)
    })
    .await;
    let game = v.game.expect("the board");
    assert!(game.fen.contains('m'), "Black's Maharajah is on the board: {}", game.fen);
    assert!(v.my_turn);
    assert!(v.notice.is_none(), "{:?}", v.notice);
    net.play("e2e4").await.unwrap();
    view_until(&mut views, "e4", |v| history(v) == ["e4"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_another_version_is_named_as_such() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    // A server that refuses every hello as another protocol version would.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let _hello = ws.next().await;
        let refusal = maharajah_protocol::ServerMsg::error(
            maharajah_protocol::ErrorCode::VersionMismatch,
            "this server speaks protocol 99; please update the app",
        );
        ws.send(Message::text(maharajah_protocol::encode(&refusal))).await.unwrap();
    });
    let (net, _views) = session();
    let e = net.join(&url, "22222222").await.unwrap_err();
    assert_eq!(e.code(), "version_mismatch");
    assert!(e.to_string().contains("protocol 99"), "{e}");
    assert!(net.view().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_is_taken_back_after_the_app_was_closed() {
    let server = Server::start().await;
    let (net, mut views) = session();
    let options = RoomOptions {
        variant: Variant::Chess,
        time_control: None,
        hidden_setup: false,
        color: Some(Color::White),
    };
    let code = net.create(&server.url, options).await.unwrap().code.unwrap();
    let (black, mut be) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    black.join_room(code.parse().unwrap()).await.unwrap();
    view_until(&mut views, "the game starts", |v| v.my_turn).await;
    net.play("d2d4").await.unwrap();
    let kept = net.saved_seat().expect("a seat to keep");
    assert_eq!((kept.code.as_str(), kept.seat), (code.as_str(), Color::White));

    // The app closes; the opponent moves meanwhile; a new app session takes the seat back.
    net.leave().await;
    event_until(&mut be, "our move", |e| {
        matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: 0, .. }, .. })
    })
    .await;
    black.play("d7d5").await.unwrap();
    let (again, mut views) = session();
    again.rejoin(&kept).await.unwrap();
    let v = view_until(&mut views, "the game as the server has it", |v| {
        history(v) == ["d4", "d5"] && v.my_turn
    })
    .await;
    assert_eq!(v.seat, Some(Color::White));
    again.play("c2c4").await.unwrap();

    // A token the server does not know is refused: the link ends and says why.
    let forged = maharajah_app::chess::online::SavedSeat { token: "0".repeat(64), ..kept };
    let (third, mut views) = session();
    third.rejoin(&forged).await.unwrap();
    view_until(&mut views, "the refusal", |v| matches!(v.link, Link::Closed { .. })).await;
}

/// Every pushed view waiting in `views` (clock ticks are dropped).
fn drain(views: &mut mpsc::UnboundedReceiver<NetUpdate>, into: &mut Vec<NetView>) {
    while let Ok(update) = views.try_recv() {
        if let NetUpdate::View(v) = update {
            into.push(*v);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_answer_shows_its_action_and_is_never_older_than_a_push() {
    let server = Server::start().await;
    // A slow screen: each pushed view holds the session's event pump a while, so the answer to
    // a move comes while the pump still sleeps on the view before it.
    let (tx, mut views) = mpsc::unbounded_channel();
    let net = NetPlay::new(move |u| {
        let slow = matches!(u, NetUpdate::View(_));
        let _ = tx.send(u);
        if slow {
            std::thread::sleep(Duration::from_millis(250));
        }
    });
    let options = RoomOptions {
        variant: Variant::Chess,
        time_control: None,
        hidden_setup: false,
        color: Some(Color::White),
    };
    let code = net.create(&server.url, options).await.unwrap().code.unwrap();
    let (black, mut be) = Connection::connect(&server.url, opponent_options()).await.unwrap();
    black.join_room(code.parse().unwrap()).await.unwrap();
    let mut seen = vec![view_until(&mut views, "the game starts", |v| v.my_turn).await];
    let mut answers = Vec::new();
    let plies = [("e2e4", "e7e5"), ("g1f3", "b8c6"), ("f1c4", "g8f6")];
    for (i, (ours, theirs)) in plies.into_iter().enumerate() {
        drain(&mut views, &mut seen);
        let pushed_before = seen.clone();
        let answer = net.play(ours).await.unwrap();
        // The answer is read after the server stored the move: it shows it, and no move for us
        // until the opponent's, though the pushed view of the move may not have come yet.
        let game = answer.game.as_ref().expect("the board");
        assert_eq!(game.board.ply, 2 * i + 1, "the answer to {ours} shows {ours}");
        assert!(!answer.my_turn && game.legal.is_empty(), "{ours}: the opponent's turn");
        for v in &pushed_before {
            assert!(v.revision < answer.revision, "{ours}: a push before the answer is older");
            assert!(v.seq < answer.seq, "{ours}: pushed seq {} >= answered {}", v.seq, answer.seq);
        }
        answers.push(answer);
        event_until(&mut be, ours, |e| {
            matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply, .. }, .. }
                if *ply as usize == 2 * i)
        })
        .await;
        black.play(theirs).await.unwrap();
        seen.push(
            view_until(&mut views, theirs, |v| history(v).len() == 2 * i + 2 && v.my_turn).await,
        );
    }
    drain(&mut views, &mut seen);
    // Views pushed and answered, in revision order, never go back in the room's history.
    let mut all: Vec<&NetView> = seen.iter().chain(&answers).collect();
    all.sort_by_key(|v| v.revision);
    for pair in all.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(a.revision < b.revision, "two views share revision {}", a.revision);
        assert!(a.seq <= b.seq, "revision {} shows seq {} after seq {}", b.revision, b.seq, a.seq);
        assert!(history(a).len() <= history(b).len(), "revision {} lost a move", b.revision);
    }
    net.leave().await;
    black.close().await;
}
