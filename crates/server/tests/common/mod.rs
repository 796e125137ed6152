//! A tiny test client over real WebSockets, and a server on 127.0.0.1:0.
#![allow(clippy::unwrap_used, dead_code)]

/// The throw-away PostgreSQL of the cluster and storage suites.
pub mod pg {
    #[allow(unused_imports)] // only the cluster and storage suites use it
    pub use maharajah_testkit::pg::Pg;
}
pub mod rated;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::*;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request as ClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const WHITE_ARMY: &str = "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
pub const BLACK_ARMY: &str = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";
/// 39 points with a Maharajah instead of queen and rook.
pub const CUSTOM_WHITE: &str = "Pa1,Nb1,Bc1,Md1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), maharajah_server::ServerError>>>,
}

impl TestServer {
    pub async fn start(config: maharajah_server::Config) -> TestServer {
        TestServer::start_with(config, None).await
    }

    /// Starts a server that also serves its admin endpoints on `admin`.
    pub async fn start_with(
        config: maharajah_server::Config,
        admin: Option<TcpListener>,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let run = maharajah_server::run_with_admin(listener, admin, config, async move {
            let _ = stopped.await;
        });
        let task = tokio::spawn(run);
        TestServer { addr, stop: Some(stop), task: Some(task) }
    }

    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(5), self.task.take().unwrap())
            .await
            .expect("server stops promptly")
            .unwrap()
            .unwrap();
    }
}

/// A plain HTTP/1.1 `GET` of `path` from `addr`: the status code and the body.
/// The address a `maharajah-server` child process (stdout piped) announces on its first line
/// (`maharajah-server VERSION listening on ADDR`), within 10 s.
pub async fn announced_address(child: &mut tokio::process::Child) -> SocketAddr {
    use tokio::io::AsyncBufReadExt;
    let stdout = child.stdout.take().expect("the server's stdout is piped");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("the server announces its address")
        .unwrap()
        .unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
    s.write_all(request.as_bytes()).await.unwrap();
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut text))
        .await
        .expect("the admin endpoint answers")
        .unwrap();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// Waits (5 s at most) until the admin endpoint `addr` says ready; `not ready` before that.
pub async fn until_ready(addr: SocketAddr) {
    for _ in 0..250 {
        match http_get(addr, "/readyz").await {
            (200, body) => return assert_eq!(body, "ready\n"),
            (status, body) => assert_eq!((status, body.as_str()), (503, "not ready\n")),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server never became ready");
}

/// The value of the sample `name` (with its labels, as written) in a `/metrics` body.
pub fn metric(body: &str, name: &str) -> Option<f64> {
    body.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub seat: Option<Color>,
    pub token: String,
    pub code: Option<AccessCode>,
    pub last_seq: u64,
    /// Messages read while looking for another one, handed out first.
    pending: VecDeque<ServerMsg>,
    /// How long `until` waits for a message (longer for tests on paused time).
    pub patience: Duration,
    /// The identity challenge of the server's `welcome`.
    pub challenge: Option<identity::Challenge>,
}

pub fn options(
    variant: Variant,
    tc: Option<(u64, u64)>,
    hidden: bool,
    color: Color,
) -> RoomOptions {
    RoomOptions {
        variant,
        time_control: tc.map(|(b, i)| TimeControl { base_ms: b, increment_ms: i }),
        hidden_setup: hidden,
        color: Some(color),
    }
}

impl Client {
    /// Connects without saying hello.
    pub async fn connect_raw(addr: SocketAddr) -> Client {
        Client::connect_with(format!("ws://{addr}").into_client_request().unwrap()).await
    }

    /// Opens the WebSocket with this handshake request (e.g. extra headers), no hello.
    pub async fn connect_with(request: ClientRequest) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        Client {
            ws,
            seat: None,
            token: String::new(),
            code: None,
            last_seq: 0,
            pending: VecDeque::new(),
            patience: Duration::from_secs(5),
            challenge: None,
        }
    }

    /// Connects as a reverse proxy would for the client `forwarded_for` (an `X-Forwarded-For`
    /// header) and says hello.
    pub async fn connect_forwarded(addr: SocketAddr, forwarded_for: &str) -> Client {
        let mut request = format!("ws://{addr}").into_client_request().unwrap();
        request.headers_mut().insert("x-forwarded-for", forwarded_for.parse().unwrap());
        let mut c = Client::connect_with(request).await;
        c.hello(false).await;
        c
    }

    /// Connects and says hello.
    pub async fn connect(addr: SocketAddr) -> Client {
        let mut c = Client::connect_raw(addr).await;
        c.hello(false).await;
        c
    }

    /// Connects and says hello as a client that follows a `redirect` (the test follows it).
    pub async fn connect_redirectable(addr: SocketAddr) -> Client {
        let mut c = Client::connect_raw(addr).await;
        c.hello(true).await;
        c
    }

    async fn hello(&mut self, redirects: bool) {
        let c = self;
        c.send(&ClientMsg::Hello { version: PROTOCOL_VERSION, client: "test".into(), redirects })
            .await;
        match c.recv().await {
            ServerMsg::Welcome { version, challenge, .. } => {
                assert_eq!(version, PROTOCOL_VERSION);
                c.challenge = challenge;
            }
            other => panic!("expected welcome, got {other:?}"),
        }
    }

    pub async fn send(&mut self, msg: &ClientMsg) {
        self.send_raw(&encode(msg)).await;
    }

    /// Sends `msgs` in one write (one TCP segment on loopback), as a client without Nagle's
    /// delay sends a request and its barrier `ping`.
    pub async fn send_together(&mut self, msgs: &[ClientMsg]) {
        for m in msgs {
            self.ws.feed(Message::text(encode(m))).await.unwrap();
        }
        self.ws.flush().await.unwrap();
    }

    /// Sends a WebSocket ping frame. False once the socket is gone.
    pub async fn send_ping(&mut self) -> bool {
        self.ws.send(Message::Ping(Vec::new().into())).await.is_ok()
    }

    /// Sends a binary frame (the protocol has none). False once the socket is gone.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> bool {
        self.ws.send(Message::binary(bytes)).await.is_ok()
    }

    pub async fn send_raw(&mut self, text: &str) {
        self.ws.send(Message::text(text.to_owned())).await.unwrap();
    }

    /// The next message (5 s at most); tracks seat, token and the last event number.
    pub async fn recv(&mut self) -> ServerMsg {
        self.try_recv(Duration::from_secs(5)).await.expect("a message within 5 s")
    }

    /// The next message within `wait`, or `None` if the connection closed or nothing came.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<ServerMsg> {
        if let Some(m) = self.pending.pop_front() {
            return Some(m);
        }
        self.read(wait).await
    }

    async fn read(&mut self, wait: Duration) -> Option<ServerMsg> {
        loop {
            let frame = tokio::time::timeout(wait, self.ws.next()).await.ok()??.ok()?;
            let Message::Text(text) = frame else { continue };
            let msg = decode_server(text.as_str()).unwrap();
            match &msg {
                ServerMsg::Seated { code, seat, token } => {
                    self.code = Some(code.clone());
                    self.seat = Some(*seat);
                    self.token = token.clone();
                }
                ServerMsg::Event { seq, .. } => {
                    assert!(*seq > self.last_seq, "events arrive in order without repeats");
                    self.last_seq = *seq;
                }
                ServerMsg::Snapshot { snapshot } => self.last_seq = snapshot.seq,
                _ => {}
            }
            return Some(msg);
        }
    }

    /// Reads until a message matches; returns it.
    /// Messages read on the way stay pending for later calls.
    pub async fn until(&mut self, what: &str, f: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        if let Some(i) = self.pending.iter().position(&f) {
            return self.pending.remove(i).unwrap();
        }
        loop {
            match self.read(self.patience).await {
                Some(m) if f(&m) => return m,
                Some(m) => self.pending.push_back(m),
                None => panic!(
                    "connection ended or timed out waiting for {what}; pending {:?}",
                    self.pending
                ),
            }
        }
    }

    /// Reads until an event matches; returns it.
    pub async fn until_event(&mut self, what: &str, f: impl Fn(&RoomEvent) -> bool) -> RoomEvent {
        match self.until(what, |m| matches!(m, ServerMsg::Event { event, .. } if f(event))).await {
            ServerMsg::Event { event, .. } => event,
            _ => unreachable!(),
        }
    }

    /// Reads until a lobby message matches; returns it.
    pub async fn until_lobby(&mut self, what: &str, f: impl Fn(&LobbyMsg) -> bool) -> LobbyMsg {
        match self.until(what, |m| matches!(m, ServerMsg::Lobby(l) if f(l))).await {
            ServerMsg::Lobby(l) => l,
            _ => unreachable!(),
        }
    }

    /// Reads `lobby_matched`, `seated` and the room's snapshot: the room's code.
    pub async fn matched(&mut self) -> AccessCode {
        let matched = |m: &LobbyMsg| matches!(m, LobbyMsg::LobbyMatched { .. });
        let LobbyMsg::LobbyMatched { code, .. } = self.until_lobby("lobby_matched", matched).await
        else {
            unreachable!()
        };
        self.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
        self.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
        assert_eq!(self.code.as_ref(), Some(&code), "seated in the matched room");
        code
    }

    /// Reads until an error; returns its code.
    pub async fn until_error(&mut self) -> (ErrorCode, String) {
        match self.until("an error", |m| matches!(m, ServerMsg::Error { .. })).await {
            ServerMsg::Error { code, message } => (code, message),
            _ => unreachable!(),
        }
    }

    pub async fn create(&mut self, options: RoomOptions) -> AccessCode {
        self.send(&ClientMsg::CreateRoom { options, rated: false }).await;
        self.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
        self.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await;
        self.code.clone().unwrap()
    }

    pub async fn join(&mut self, code: &AccessCode) -> Snapshot {
        self.send(&ClientMsg::JoinRoom { code: code.clone() }).await;
        self.until("seated", |m| matches!(m, ServerMsg::Seated { .. })).await;
        match self.until("snapshot", |m| matches!(m, ServerMsg::Snapshot { .. })).await {
            ServerMsg::Snapshot { snapshot } => *snapshot,
            _ => unreachable!(),
        }
    }

    pub async fn play(&mut self, ply: u32, uci: &str) -> ServerMsg {
        self.send(&ClientMsg::Move { token: self.token.clone(), ply, uci: uci.into() }).await;
        self.until("move ack or error", |m| {
            matches!(m, ServerMsg::MoveAck { .. } | ServerMsg::Error { .. })
        })
        .await
    }

    /// Forgets messages read but not yet handed out.
    pub fn drain_pending(&mut self) {
        self.pending.clear();
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Whether the server closed the connection (within 5 s).
    pub async fn is_closed_by_server(&mut self) -> bool {
        loop {
            match tokio::time::timeout(Duration::from_secs(5), self.ws.next()).await {
                Err(_) => return false,
                Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => {}
            }
        }
    }
}
