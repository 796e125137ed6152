//! Three `maharajah-server` nodes on loopback over one real PostgreSQL (issue 19): a game whose
//! players reach different nodes, `kill -9` of the room's owner mid-game, a stale owner that
//! wakes up fenced, a draining node (SIGTERM) handing its rooms over, and players shared by the
//! nodes: a rating, a name and a finished game from one node seen on the others, and two rated
//! results of one player on two nodes both kept.
#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::pg::Pg;
use common::rated::*;
use common::*;
use maharajah_protocol::*;
use maharajah_server::store::PgStore;
use tokio::process::{Child, Command};

/// Short leases keep the tests fast: a dead node's rooms move within two seconds.
const LEASE_SECS: &str = "2";

/// One test at a time: each runs a PostgreSQL and three nodes, and their timings (leases,
/// claims) should not depend on how many others share the two cores.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Node {
    child: Child,
    addr: SocketAddr,
    admin: SocketAddr,
}

fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

impl Node {
    async fn spawn(pg: &str, id: &str) -> Node {
        Node::spawn_with(pg, id, &[]).await
    }

    /// A node with more flags (`--redirect`).
    async fn spawn_with(pg: &str, id: &str, more: &[&str]) -> Node {
        let admin = free_addr();
        let mut child = Command::new(env!("CARGO_BIN_EXE_maharajah-server"))
            .args(["--listen", "127.0.0.1:0", "--admin", &admin.to_string()])
            .args(["--postgres", pg, "--node-id", id, "--lease-secs", LEASE_SECS])
            .args(["--max-connections-per-ip", "1000"])
            .args(more)
            .stdout(Stdio::piped())
            // The nodes' logs, when a failure needs them.
            .stderr(if std::env::var_os("MAHARAJAH_TEST_LOGS").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let addr = announced_address(&mut child).await;
        let node = Node { child, addr, admin };
        node.until_ready().await;
        node
    }

    async fn until_ready(&self) {
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(self.admin).await.is_ok()
                && http_get(self.admin, "/readyz").await.0 == 200
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("node {} never became ready", self.addr);
    }

    async fn metric(&self, name: &str) -> f64 {
        let (_, body) = http_get(self.admin, "/metrics").await;
        let line = body.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    fn pid(&self) -> String {
        self.child.id().unwrap().to_string()
    }

    fn signal(&self, sig: &str) {
        let ok = std::process::Command::new("kill").args([sig, &self.pid()]).status().unwrap();
        assert!(ok.success());
    }
}

async fn three_nodes(pg: &Pg) -> [Node; 3] {
    let (a, b, c) = tokio::join!(
        Node::spawn(&pg.url, "n1"),
        Node::spawn(&pg.url, "n2"),
        Node::spawn(&pg.url, "n3")
    );
    [a, b, c]
}

fn snapshot_of(m: ServerMsg) -> Snapshot {
    match m {
        ServerMsg::Snapshot { snapshot } => *snapshot,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

/// Comes back to a seat through node `addr`, as the app does after a dropped connection;
/// returns the client and the catch-up (a snapshot after a move of owner).
async fn rejoin(
    addr: SocketAddr,
    token: &str,
    seat: Color,
    code: &AccessCode,
) -> (Client, Snapshot) {
    let mut c = Client::connect(addr).await;
    // Reaching a new owner can take the rest of a lease.
    c.patience = Duration::from_secs(10);
    c.send(&ClientMsg::Rejoin { code: code.clone(), token: token.to_owned(), last_seq: u64::MAX })
        .await;
    c.until("seated", |m| matches!(m, ServerMsg::Seated { seat: s, .. } if *s == seat)).await;
    let snap = snapshot_of(c.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await);
    (c, snap)
}

/// The owner of `code` as the directory says: node and epoch.
async fn owner(pg: &Pg, code: &AccessCode) -> (String, i64) {
    let observer = PgStore::connect(&pg.url, "observer", Duration::from_secs(2), 1).await.unwrap();
    let o = observer.owner(code.as_str()).await.unwrap().unwrap();
    (o.node, o.epoch)
}

/// Two players on two nodes: White on n1 (which creates and owns the room), Black through n2
/// (forwarded to n1); three acknowledged moves; the clocks as stored with the last one.
async fn game_across_nodes(nodes: &[Node; 3]) -> (Client, Client, AccessCode, ClockView) {
    let mut w = Client::connect(nodes[0].addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 1_000)), false, Color::White)).await;
    let mut b = Client::connect(nodes[1].addr).await;
    b.join(&code).await;
    assert_eq!(nodes[0].metric("maharajah_cluster_owned_rooms").await, 1.0);
    assert_eq!(nodes[1].metric("maharajah_cluster_proxied_connections{").await, 1.0);
    assert_eq!(nodes[1].metric("maharajah_cluster_owned_rooms").await, 0.0);
    for (ply, uci) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
        let c = if ply % 2 == 0 { &mut w } else { &mut b };
        let ack = c.play(ply as u32, uci).await;
        assert!(matches!(ack, ServerMsg::MoveAck { .. }), "{ack:?}");
    }
    let e = b.until_event("g1f3", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;
    let RoomEvent::Moved { clock: Some(stored), .. } = e else { panic!("{e:?}") };
    w.until_event("g1f3", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;
    (w, b, code, stored)
}

/// After a move of owner: both players are back through the surviving nodes, every
/// acknowledged move is there, nobody's clock ran for the outage, no pause was spent, and the
/// game goes on. Returns how long the first rejoin took.
async fn both_resume(
    nodes: [SocketAddr; 2],
    w: &Client,
    b: &Client,
    code: &AccessCode,
    stored: ClockView,
) -> Duration {
    let started = Instant::now();
    let (mut w2, snap) = rejoin(nodes[0], &w.token, Color::White, code).await;
    let took = started.elapsed();
    assert_eq!(snap.moves, ["e2e4", "e7e5", "g1f3"], "no acknowledged move is lost");
    let pause = snap.pause.expect("frozen until the side to move is back");
    assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::ServerRestart));
    let clock = snap.clock.unwrap();
    assert_eq!(
        (clock.white_ms, clock.black_ms, clock.running),
        (stored.white_ms, stored.black_ms, None),
        "the clocks as stored with the last acknowledged move"
    );
    assert!(snap.seats.white.pause_available && snap.seats.black.pause_available, "{snap:?}");

    let (mut b2, _) = rejoin(nodes[1], &b.token, Color::Black, code).await;
    let e = w2.until_event("resumed", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    let RoomEvent::Resumed { clock: Some(c) } = e else { panic!("{e:?}") };
    assert_eq!(c.running, Some(Color::Black));
    assert!(c.black_ms + 50 >= stored.black_ms, "the outage cost Black nothing: {c:?}");
    assert!(matches!(b2.play(3, "b8c6").await, ServerMsg::MoveAck { ply: 3, .. }));
    w2.until_event("b8c6", |e| matches!(e, RoomEvent::Moved { ply: 3, .. })).await;
    assert!(matches!(w2.play(4, "f1b5").await, ServerMsg::MoveAck { ply: 4, .. }));
    took
}

#[tokio::test]
async fn kill_9_of_the_owner_mid_game_moves_the_room_and_loses_nothing() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("failover").await else { return };
    let mut nodes = three_nodes(&pg).await;
    let (mut w, mut b, code, stored) = game_across_nodes(&nodes).await;
    assert_eq!(owner(&pg, &code).await, ("n1".to_owned(), 1));

    nodes[0].child.kill().await.unwrap(); // SIGKILL: no shutdown code runs
    let killed = Instant::now();
    // Both players see their connections end (White's was to n1, Black's through n2).
    assert!(w.is_closed_by_server().await);
    assert!(b.is_closed_by_server().await);

    // White comes back through n3, Black through n2: the room is claimed by one of them when
    // n1's lease runs out, and the other forwards to it.
    let took = both_resume([nodes[2].addr, nodes[1].addr], &w, &b, &code, stored).await;
    let (node, epoch) = owner(&pg, &code).await;
    assert!(node == "n2" || node == "n3", "{node}");
    assert_eq!(epoch, 2, "one change of owner, one more epoch");
    let lease = Duration::from_secs(2);
    assert!(
        killed.elapsed() < lease + Duration::from_secs(8),
        "resumed {took:?} after the rejoin, {:?} after the kill",
        killed.elapsed()
    );
    let claims = nodes[1].metric("maharajah_cluster_claims_total").await
        + nodes[2].metric("maharajah_cluster_claims_total").await;
    assert_eq!(claims, 1.0);
}

/// A node that stops (SIGSTOP: a long pause, a partition) loses its rooms when its lease runs
/// out; when it wakes up, a move its player sends there is never acknowledged or stored: the
/// write is fenced by the new owner's epoch, and the player is sent to reconnect.
#[tokio::test]
async fn a_stale_owner_that_wakes_up_cannot_commit() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("stale").await else { return };
    let nodes = three_nodes(&pg).await;
    let mut w = Client::connect(nodes[0].addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    let mut b = Client::connect(nodes[1].addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { .. }));
    w.until_event("e7e5", |e| matches!(e, RoomEvent::Moved { ply: 1, .. })).await;

    nodes[0].signal("-STOP");
    // Black reconnects through n3; n1 does not answer, so n3 claims the room once the lease
    // has run out.
    let b_token = b.token.clone();
    b.close().await;
    let (mut b2, snap) = rejoin(nodes[2].addr, &b_token, Color::Black, &code).await;
    assert_eq!(snap.moves, ["e2e4", "e7e5"]);
    // n3 claimed it for Black, or n2's sweep of expired leases was quicker.
    let (node, epoch) = owner(&pg, &code).await;
    assert!(node == "n2" || node == "n3", "{node}");
    assert_eq!(epoch, 2);

    // n1 wakes up still holding the room and White's connection: White's move there is
    // refused (fenced) or White is told to reconnect, never acknowledged.
    nodes[0].signal("-CONT");
    w.drain_pending();
    w.send(&ClientMsg::Move { token: w.token.clone(), ply: 2, uci: "g1f3".into() }).await;
    loop {
        match w.try_recv(Duration::from_secs(5)).await {
            Some(ServerMsg::MoveAck { .. }) => panic!("a stale owner acknowledged a move"),
            Some(ServerMsg::Event { event: RoomEvent::Moved { ply: 2, .. }, .. }) => {
                panic!("a stale owner broadcast a move")
            }
            Some(_) => {}
            None => break, // closed: reconnect
        }
    }
    let (mut w2, snap) = rejoin(nodes[1].addr, &w.token, Color::White, &code).await;
    assert_eq!(snap.moves, ["e2e4", "e7e5"], "the stale move was never stored");
    assert!(matches!(w2.play(2, "g1f3").await, ServerMsg::MoveAck { ply: 2, .. }));
    b2.until_event("g1f3", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;
    assert!(
        nodes[0].metric("maharajah_cluster_rooms_lost_total").await
            + nodes[0].metric("maharajah_cluster_fenced_writes_total").await
            >= 1.0
    );
}

/// SIGTERM drains a node: it exits 0, its rooms' leases end at once, and the players resume
/// through the other nodes with nothing lost and no pause spent.
#[tokio::test]
async fn a_draining_node_hands_its_rooms_over() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("drain").await else { return };
    let mut nodes = three_nodes(&pg).await;
    let (mut w, mut b, code, stored) = game_across_nodes(&nodes).await;

    nodes[0].signal("-TERM");
    let status = tokio::time::timeout(Duration::from_secs(10), nodes[0].child.wait())
        .await
        .expect("the node drains and exits")
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert!(matches!(w.until_error().await.0, ErrorCode::ShuttingDown));
    assert!(b.is_closed_by_server().await);
    let released = Instant::now();
    let took = both_resume([nodes[1].addr, nodes[2].addr], &w, &b, &code, stored).await;
    assert!(took < Duration::from_secs(2), "a drained room is claimed at once: {took:?}");
    assert!(released.elapsed() < Duration::from_secs(10));
    let (node, epoch) = owner(&pg, &code).await;
    assert!(node == "n2" || node == "n3", "{node}");
    assert_eq!(epoch, 2);
}

/// Nodes started with `--redirect` send a client that follows redirects to the node that holds
/// its room, and close: its moves then go straight there. A client that does not (an older
/// one) is still forwarded, and no node redirects to an owner whose lease is not fresh: after
/// a `kill -9` the player is held until the lease ends and the room is claimed where it asked.
#[tokio::test]
async fn a_redirecting_node_sends_the_player_to_the_rooms_node() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("redirect").await else { return };
    let (n1, n2) = tokio::join!(
        Node::spawn_with(&pg.url, "n1", &["--redirect"]),
        Node::spawn_with(&pg.url, "n2", &["--redirect"])
    );
    let mut w = Client::connect(n1.addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;

    // Black asks n2, which sends it to n1 and closes.
    let mut asked = Client::connect_redirectable(n2.addr).await;
    asked.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
    let ServerMsg::Redirect { url } = asked.recv().await else { panic!("expected a redirect") };
    assert_eq!(url, format!("ws://{}", n1.addr));
    assert!(asked.is_closed_by_server().await, "the redirecting node closes the connection");
    assert_eq!(owner(&pg, &code).await, ("n1".to_owned(), 1), "nothing moved");

    // Followed: Black plays on n1 itself, nothing forwarded.
    let mut b =
        Client::connect_redirectable(url.trim_start_matches("ws://").parse().unwrap()).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    b.until_event("e2e4", |e| matches!(e, RoomEvent::Moved { ply: 0, .. })).await;
    assert!(matches!(b.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));
    assert_eq!(n2.metric("maharajah_cluster_redirects_total").await, 1.0);
    assert_eq!(n2.metric("maharajah_cluster_proxied_connections_total").await, 0.0);

    // A client that does not follow redirects is forwarded as before.
    let mut watcher = Client::connect(n2.addr).await;
    watcher.send(&ClientMsg::Watch { code: code.clone() }).await;
    let snap =
        snapshot_of(watcher.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await);
    assert_eq!(snap.moves, ["e2e4", "e7e5"]);
    assert_eq!(n2.metric("maharajah_cluster_proxied_connections_total").await, 1.0);

    // The owner dies: a player who asks n2 now is not sent to it, but held until its lease
    // ends and then seated on n2, which claimed the room.
    let mut n1 = n1;
    n1.child.start_kill().unwrap();
    n1.child.wait().await.unwrap();
    let mut b2 = Client::connect_redirectable(n2.addr).await;
    b2.patience = Duration::from_secs(10);
    b2.send(&ClientMsg::Rejoin { code: code.clone(), token: b.token.clone(), last_seq: 0 }).await;
    let seated = b2
        .until("seated", |m| matches!(m, ServerMsg::Seated { .. } | ServerMsg::Redirect { .. }))
        .await;
    assert!(matches!(seated, ServerMsg::Seated { seat: Color::Black, .. }), "{seated:?}");
    let snap = snapshot_of(b2.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await);
    assert_eq!(snap.moves, ["e2e4", "e7e5"]);
    assert_eq!(owner(&pg, &code).await, ("n2".to_owned(), 2));
    assert_eq!(n2.metric("maharajah_cluster_redirects_total").await, 1.0, "none to a dead node");
}

/// A node that only forwards a player (it owns no room of theirs) drains: the owner hears the
/// player was handed over, so it freezes the clock as after a restart instead of spending the
/// player's pause on the disconnect shield; the player resumes through another node.
#[tokio::test]
async fn a_draining_forwarder_spends_nobodys_pause() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("forwarder").await else { return };
    let mut nodes = three_nodes(&pg).await;
    let mut w = Client::connect(nodes[0].addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    let mut b = Client::connect(nodes[1].addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    b.until_event("e2e4", |e| matches!(e, RoomEvent::Moved { ply: 0, .. })).await;

    // Black (to move) is forwarded by n2, which drains.
    nodes[1].signal("-TERM");
    let status = tokio::time::timeout(Duration::from_secs(10), nodes[1].child.wait())
        .await
        .expect("the node drains and exits")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let e = w.until_event("paused", |e| matches!(e, RoomEvent::Paused { .. })).await;
    let RoomEvent::Paused { pause, .. } = e else { unreachable!() };
    assert_eq!((pause.by, pause.reason), (Color::Black, PauseReason::ServerRestart));

    let (mut b2, snap) = rejoin(nodes[2].addr, &b.token, Color::Black, &code).await;
    assert!(snap.seats.white.pause_available && snap.seats.black.pause_available, "{snap:?}");
    w.until_event("resumed", |e| matches!(e, RoomEvent::Resumed { .. })).await;
    assert!(matches!(b2.play(1, "e7e5").await, ServerMsg::MoveAck { ply: 1, .. }));
    assert_eq!(owner(&pg, &code).await, ("n1".to_owned(), 1), "the room never moved");
}

/// PostgreSQL goes away under a game: the node stays up, answers `/healthz`, turns `/readyz`
/// to 503 once it cannot renew its leases, and refuses moves with a clear error instead of
/// acknowledging what it cannot store; nothing panics.
#[tokio::test]
async fn a_database_outage_gives_clear_errors() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("outage").await else { return };
    let mut nodes = three_nodes(&pg).await;
    let mut w = Client::connect(nodes[0].addr).await;
    let code = w.create(options(Variant::Chess, Some((60_000, 0)), false, Color::White)).await;
    let mut b = Client::connect(nodes[0].addr).await;
    b.join(&code).await;
    assert!(matches!(w.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    if !pg.stop() {
        eprintln!("MAHARAJAH_PG_URL names a server this test cannot stop: outage not tested");
        return;
    }
    let refused = b.play(1, "e7e5").await;
    assert!(
        matches!(refused, ServerMsg::Error { code: ErrorCode::Internal, .. }),
        "nothing stored, nothing acknowledged: {refused:?}"
    );
    // Within a lease and a renewal the node says it is not ready; it still serves /healthz.
    let mut ready = 200;
    for _ in 0..60 {
        ready = http_get(nodes[0].admin, "/readyz").await.0;
        if ready == 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ready, 503);
    assert_eq!(http_get(nodes[0].admin, "/healthz").await.0, 200);
    // A join routed through another node is told the database is unreachable.
    let mut c = Client::connect(nodes[1].addr).await;
    c.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
    let (err, message) = c.until_error().await;
    assert_eq!(err, ErrorCode::Unavailable, "{message}");
    for node in &mut nodes {
        assert!(node.child.try_wait().unwrap().is_none(), "a node exited");
    }
}

fn blitz_challenge() -> ClientMsg {
    ClientMsg::CreateChallenge {
        device: None,
        options: ChallengeOptions {
            table: None,
            game: LobbyGame::Chess,
            time_control: Some(TimeControl { base_ms: 180_000, increment_ms: 2_000 }),
            rated: false,
            color: ColorChoice::White,
        },
    }
}

fn blitz_play_now() -> ClientMsg {
    ClientMsg::PlayNow {
        cpu_after_s: None,
        device: None,
        game: LobbyGame::Chess,
        time_control: TimeControl { base_ms: 180_000, increment_ms: 2_000 },
        rated: false,
    }
}

/// How many of `nodes` say they run the lobby.
async fn lobby_owners(nodes: &[&Node]) -> f64 {
    let mut owners = 0.0;
    for node in nodes {
        owners += node.metric("maharajah_cluster_lobby_owner").await;
    }
    owners
}

/// Quick pairing of two players who reach two different nodes: both are seated in one room
/// and play it.
async fn paired_across(a: SocketAddr, b: SocketAddr) -> (Client, Client) {
    let mut p = Client::connect(a).await;
    let mut q = Client::connect(b).await;
    // Reaching a lobby whose node just died can take the rest of its lease.
    p.patience = Duration::from_secs(10);
    q.patience = Duration::from_secs(10);
    p.send(&blitz_play_now()).await;
    q.send(&blitz_play_now()).await;
    let (code_p, code_q) = (p.matched().await, q.matched().await);
    assert_eq!(code_p, code_q, "one room for the pair");
    let (white, black) =
        if p.seat == Some(Color::White) { (&mut p, &mut q) } else { (&mut q, &mut p) };
    assert!(matches!(white.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    black.until_event("e2e4", |e| matches!(e, RoomEvent::Moved { ply: 0, .. })).await;
    (p, q)
}

/// One lobby for the whole cluster: a challenge posted through n1 is listed to a subscriber on
/// n3 and accepted through n2; quick pairing matches players on n2 and n3. Exactly one node
/// runs the lobby; the others forward their players' lobby connections to it.
#[tokio::test]
async fn players_on_different_nodes_meet_in_one_lobby() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("lobby").await else { return };
    let nodes = three_nodes(&pg).await;
    let mut watcher = Client::connect(nodes[2].addr).await;
    watcher.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    let list = watcher.until_lobby("lobby_list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;
    assert_eq!(list, LobbyMsg::LobbyList { challenges: Vec::new() });

    let mut a = Client::connect(nodes[0].addr).await;
    a.send(&blitz_challenge()).await;
    let created = |m: &LobbyMsg| matches!(m, LobbyMsg::ChallengeCreated { .. });
    let LobbyMsg::ChallengeCreated { challenge } = a.until_lobby("created", created).await else {
        unreachable!()
    };
    let added = watcher.until_lobby("added", |m| matches!(m, LobbyMsg::LobbyAdded { .. })).await;
    assert_eq!(added, LobbyMsg::LobbyAdded { challenge: challenge.clone() });

    let mut b = Client::connect(nodes[1].addr).await;
    b.send(&ClientMsg::AcceptChallenge { id: challenge.id, device: None }).await;
    let (code_a, code_b) = (a.matched().await, b.matched().await);
    assert_eq!(code_a, code_b);
    assert_eq!((a.seat, b.seat), (Some(Color::White), Some(Color::Black)));
    assert!(matches!(a.play(0, "e2e4").await, ServerMsg::MoveAck { .. }));
    b.until_event("e2e4", |e| matches!(e, RoomEvent::Moved { ply: 0, .. })).await;
    let removed = |m: &LobbyMsg| matches!(m, LobbyMsg::LobbyRemoved { .. });
    let gone = watcher.until_lobby("removed", removed).await;
    assert!(matches!(gone, LobbyMsg::LobbyRemoved { id, .. } if id == challenge.id), "{gone:?}");

    paired_across(nodes[1].addr, nodes[2].addr).await;
    // The first lobby request (the watcher's, on n3) made n3 the lobby's node.
    assert_eq!(nodes[2].metric("maharajah_cluster_lobby_owner").await, 1.0);
    assert_eq!(lobby_owners(&[&nodes[0], &nodes[1], &nodes[2]]).await, 1.0);

    // "Playing now" on n1 lists the games held on n3, published with n3's heartbeats.
    let forwarded = nodes[0].metric("maharajah_cluster_proxied_connections_total").await;
    let mut looker = Client::connect(nodes[0].addr).await;
    let mut listed = Vec::new();
    // (Ten lookups at once, then one a second: within the lookup limit.)
    for _ in 0..12 {
        looker.send(&ClientMsg::PlayingNow { games: Vec::new() }).await;
        let is_list = |m: &LobbyMsg| matches!(m, LobbyMsg::PlayingNow { .. });
        let LobbyMsg::PlayingNow { games } = looker.until_lobby("playing_now", is_list).await
        else {
            unreachable!()
        };
        listed = games.into_iter().map(|g| g.code).collect();
        if listed.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(listed.contains(&code_a), "{listed:?}");
    assert_eq!(listed.len(), 2, "both games of the lobby: {listed:?}");
    let now = nodes[0].metric("maharajah_cluster_proxied_connections_total").await;
    assert_eq!(now, forwarded, "the list is answered where it is asked");
}

/// The node running the lobby dies (`kill -9`): its lease runs out, the next node a player asks
/// takes the lobby over, and players on the two survivors are paired. A drain hands the lobby
/// back at once.
#[tokio::test]
async fn the_lobby_moves_when_its_node_dies_or_drains() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("lobbyfail").await else { return };
    let mut nodes = three_nodes(&pg).await;
    // The first lobby request claims the lobby for the node it reached.
    let mut first = Client::connect(nodes[0].addr).await;
    first.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    first.until_lobby("lobby_list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;
    assert_eq!(nodes[0].metric("maharajah_cluster_lobby_owner").await, 1.0);

    nodes[0].child.kill().await.unwrap();
    assert!(first.is_closed_by_server().await);
    paired_across(nodes[1].addr, nodes[2].addr).await;
    assert_eq!(lobby_owners(&[&nodes[1], &nodes[2]]).await, 1.0);

    // Drain the new lobby node: its lease ends as it exits, so the last node takes the lobby
    // without waiting for a lease.
    let (drained, last) =
        if nodes[1].metric("maharajah_cluster_lobby_owner").await == 1.0 { (1, 2) } else { (2, 1) };
    nodes[drained].signal("-TERM");
    let status = tokio::time::timeout(Duration::from_secs(10), nodes[drained].child.wait())
        .await
        .expect("the node drains and exits")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let observer = PgStore::connect(&pg.url, "observer", Duration::from_secs(2), 1).await.unwrap();
    let owner = observer.lobby_owner(false).await.unwrap();
    assert!(owner.is_none(), "the drained node handed the lobby back: {owner:?}");
    let mut late = Client::connect(nodes[last].addr).await;
    late.send(&ClientMsg::LobbySubscribe { games: Vec::new() }).await;
    late.until_lobby("lobby_list", |m| matches!(m, LobbyMsg::LobbyList { .. })).await;
    assert_eq!(nodes[last].metric("maharajah_cluster_lobby_owner").await, 1.0);
}

/// Polls `what` on fresh connections to `addr` (lookups are rate limited per connection) until
/// it gives `Some`, for 5 s at most: what another node stored shows within about a second.
async fn eventually<T, F>(addr: SocketAddr, what: &str, f: impl Fn(Client) -> F) -> T
where
    F: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(found) = f(Client::connect(addr).await).await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what} never showed on {addr}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The profile of `name` on `addr` once it shows `games` games and the rating `rating`.
async fn profile_showing(addr: SocketAddr, name: &str, rating: u32, games: usize) -> Profile {
    let what = format!("{name}'s profile with {games} games at {rating}");
    eventually(addr, &what, |mut c| async move {
        profile(&mut c, name).await.filter(|p| {
            p.games.len() == games && p.ratings.first().map(|r| r.rating) == Some(rating)
        })
    })
    .await
}

/// Alice and Bob play a rated game on n1; n2 and n3 never saw them before. Identifying on n2
/// shows Alice's new rating at once; n2's profiles and leaderboard follow within seconds (her
/// name too), and the finished game is listed there under the same number as on n1, with its
/// record.
#[tokio::test]
async fn a_rating_a_name_and_a_game_from_one_node_show_on_the_others() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("shared_players").await else { return };
    let nodes = three_nodes(&pg).await;
    let (alice, bob) = (new_secret(), new_secret());
    let mut a = player(nodes[0].addr, &alice, Some("alice")).await;
    let mut b = player(nodes[0].addr, &bob, Some("bob")).await;
    let code = rated_game(&mut a, &mut b).await;
    for (ply, uci) in FOOLS_MATE.into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut a } else { &mut b };
        assert!(matches!(mover.play(ply as u32, uci).await, ServerMsg::MoveAck { .. }));
    }
    let change = ratings_changed(&mut a).await;
    assert!(change.white.after < 1500 && change.black.after > 1500, "{change:?}");

    // At once on n2: identifying reads the player as stored.
    let me = identify(&mut Client::connect(nodes[1].addr).await, &alice).await;
    assert_eq!(me.name.as_deref(), Some("alice"));
    let r = me.ratings.first().copied().expect("the rating from n1");
    assert_eq!((r.rating, r.games), (change.white.after, 1));

    // Within seconds on n2 and n3: Bob (who never came near them) by name, his rating, the
    // game; the leaderboard.
    let on_n1 = profile_showing(nodes[0].addr, "bob", change.black.after, 1).await;
    let on_n2 = profile_showing(nodes[1].addr, "bob", change.black.after, 1).await;
    profile_showing(nodes[2].addr, "alice", change.white.after, 1).await;
    let game = &on_n2.games[0];
    assert_eq!(game.code, code);
    assert_eq!(game.rating, Some(RatingDiff { before: 1500, after: change.black.after }));
    assert_eq!(game.opponents[0].name.as_deref(), Some("alice"));
    assert_eq!(game.id, on_n1.games[0].id, "one number for the game on every node");
    let mut c = Client::connect(nodes[1].addr).await;
    let board = leaderboard(&mut c, LobbyGame::Chess, SpeedClass::Blitz).await;
    let board: Vec<(&str, u32, u32)> =
        board.iter().map(|e| (e.name.as_str(), e.rating, e.games)).collect();
    assert_eq!(board, [("bob", change.black.after, 1), ("alice", change.white.after, 1)]);
    c.send(&ClientMsg::GameRecord { id: game.id }).await;
    match c.until_lobby("the record", |m| matches!(m, LobbyMsg::GameRecord { .. })).await {
        LobbyMsg::GameRecord { id, pgn, .. } => {
            assert_eq!(id, game.id);
            assert!(pgn.unwrap().contains("Qh4#"), "the game played on n1");
        }
        _ => unreachable!(),
    }
}

/// One player, two rated games on two nodes, both ending at once: each node rates from the
/// player's record as stored, and a write computed from a record another node changed
/// meanwhile is refused and done again — both results are kept, one after the other.
#[tokio::test]
async fn two_rated_results_of_one_player_on_two_nodes_are_both_kept() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(pg) = Pg::start("lost_update").await else { return };
    let nodes = three_nodes(&pg).await;
    let (pat, quinn, rosa) = (new_secret(), new_secret(), new_secret());
    // The lobby matches players on one node: Pat plays Quinn on n1 and Rosa on n2.
    let mut p1 = player(nodes[0].addr, &pat, None).await;
    let mut q = player(nodes[0].addr, &quinn, None).await;
    let mut p2 = player(nodes[1].addr, &pat, None).await;
    let mut r = player(nodes[1].addr, &rosa, None).await;
    rated_game(&mut p1, &mut q).await;
    rated_game(&mut p2, &mut r).await;
    // Both opponents resign together: Pat wins twice.
    let q_resigns = ClientMsg::Resign { token: q.token.clone() };
    let r_resigns = ClientMsg::Resign { token: r.token.clone() };
    tokio::join!(q.send(&q_resigns), r.send(&r_resigns));
    let (on_n1, on_n2) =
        (ratings_changed(&mut p1).await.white, ratings_changed(&mut p2).await.white);
    assert_eq!((on_n1.player, on_n2.player), (pat.public(), pat.public()));
    assert!(on_n1.after > on_n1.before && on_n2.after > on_n2.before, "{on_n1:?} {on_n2:?}");
    // One result was rated first, from 1500; the other from the rating it gave.
    let (first, second) = if on_n1.before == 1500 { (on_n1, on_n2) } else { (on_n2, on_n1) };
    assert_eq!(first.before, 1500, "{on_n1:?} {on_n2:?}");
    assert_eq!(second.before, first.after, "the second result starts from the first one's rating");

    // As stored (read by a third node): two games, the second result's rating.
    let me = identify(&mut Client::connect(nodes[2].addr).await, &pat).await;
    let r = me.ratings.first().copied().expect("Pat's rating");
    assert_eq!((r.rating, r.games), (second.after, 2));
    // The opponents' ratings moved once each.
    for secret in [&quinn, &rosa] {
        let them = identify(&mut Client::connect(nodes[2].addr).await, secret).await;
        assert_eq!(them.ratings.first().map(|r| (r.games, r.rating < 1500)), Some((1, true)));
    }
}
