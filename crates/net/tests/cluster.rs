//! The client against a real cluster (issue 19): two server nodes started with `redirect`, in
//! this process, over a throw-away PostgreSQL. A player given a node that does not hold its
//! room follows the `redirect` by itself (the join simply succeeds, its moves go straight to
//! the room's node); when that node drains, both players come back through their other
//! address, where the room is claimed, and the game goes on with every move kept.
#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use maharajah_net::client::{Connection, NetEvent};
use maharajah_protocol::{Color, RoomEvent, Variant};
use maharajah_server::{ClusterConfig, Config};
use maharajah_testkit::pg::Pg;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

struct Node {
    addr: SocketAddr,
    admin: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), maharajah_server::ServerError>>,
}

impl Node {
    async fn start(pg: &str, id: &str) -> Node {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let admin_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (addr, admin) = (listener.local_addr().unwrap(), admin_listener.local_addr().unwrap());
        let mut cluster = ClusterConfig::new(pg, id);
        cluster.lease = Duration::from_secs(2);
        cluster.redirect = true;
        let config = Config { cluster: Some(cluster), ..Config::default() };
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(maharajah_server::run_with_admin(
            listener,
            Some(admin_listener),
            config,
            async move {
                let _ = stopped.await;
            },
        ));
        let node = Node { addr, admin, stop, task };
        for _ in 0..200 {
            if node.get("/readyz").await.starts_with("HTTP/1.1 200") {
                return node;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("node {id} never became ready");
    }

    fn url(&self) -> String {
        format!("ws://{}/", self.addr)
    }

    async fn get(&self, path: &str) -> String {
        let Ok(mut s) = TcpStream::connect(self.admin).await else { return String::new() };
        let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
        s.write_all(request.as_bytes()).await.unwrap();
        let mut text = String::new();
        let _ = tokio::time::timeout(WAIT, s.read_to_string(&mut text)).await;
        text
    }

    async fn metric(&self, name: &str) -> f64 {
        let body = self.get("/metrics").await;
        let line = body.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    /// Drains (as SIGTERM does) and waits until the node has stopped.
    async fn drain(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(WAIT, self.task).await.unwrap().unwrap().unwrap();
    }
}

#[tokio::test]
async fn a_player_follows_a_redirect_and_a_drain_by_itself() {
    let Some(pg) = Pg::start("net_redirect").await else { return };
    let (n1, n2) = tokio::join!(Node::start(&pg.url, "n1"), Node::start(&pg.url, "n2"));

    // White's room is on n1; Black knows n2 first.
    let white_url = format!("{}, {}", n1.url(), n2.url());
    let (white, mut we) = Connection::connect(&white_url, fast()).await.unwrap();
    let seat = white.create_room(timed(Variant::Chess, Color::White, 60_000)).await.unwrap();
    let black_url = format!("{}, {}", n2.url(), n1.url());
    let (black, mut be) = Connection::connect(&black_url, fast()).await.unwrap();
    let joined = black.join_room(seat.code.clone()).await.unwrap();
    assert_eq!(joined.seat, Color::Black);
    assert_eq!(n2.metric("maharajah_cluster_redirects_total").await, 1.0);
    assert_eq!(n2.metric("maharajah_cluster_proxied_connections_total").await, 0.0);
    assert_eq!(n1.metric("maharajah_cluster_owned_rooms").await, 1.0);

    white.play("e2e4").await.unwrap();
    until_room(&mut be, "e2e4", |e| matches!(e, RoomEvent::Moved { ply: 0, .. })).await;
    black.play("e7e5").await.unwrap();
    until_room(&mut we, "e7e5", |e| matches!(e, RoomEvent::Moved { ply: 1, .. })).await;

    // n1 drains: both players are back through n2, which claims the room.
    n1.drain().await;
    for events in [&mut we, &mut be] {
        until(events, "the drop", |e| matches!(e, NetEvent::Disconnected { .. })).await;
        until(events, "back in the room", |e| matches!(e, NetEvent::Rejoined { .. })).await;
    }
    white.play("g1f3").await.unwrap();
    until_room(&mut be, "g1f3", |e| matches!(e, RoomEvent::Moved { ply: 2, .. })).await;
    assert_eq!(black.room().moves(), ["e2e4", "e7e5", "g1f3"], "every move kept");
    assert_eq!(n2.metric("maharajah_cluster_owned_rooms").await, 1.0);
    white.close().await;
    black.close().await;
    n2.drain().await;
}
