//! A second thin shell for a plain browser: the same `builder()` with every command, on Tauri's
//! mock runtime (no window), serving `ui/` over HTTP on loopback and answering the UI's
//! `invoke` calls and pushing its events over a WebSocket.
//!
//! It exists so the UI can be run in Chromium (Android's web view engine) by the browser tests
//! (`tests/browser/`); the app itself runs in WebKitGTK. Usage:
//!
//! ```text
//! cargo run -p maharajah --example web_shell [-- PORT]
//! ```
//!
//! It prints `listening on http://127.0.0.1:PORT/` once it answers. `MAHARAJAH_DATA_DIR` and
//! `MAHARAJAH_EXPORT_DIR` are honoured as in the app; `MAHARAJAH_UI_DIR` names the folder served
//! (default: the repository's `ui/`).
//!
//! Wire: the page sends `{"id": n, "cmd": "...", "args": {...}}`; the answer is
//! `{"id": n, "ok": value}` or `{"id": n, "err": {"code", "message"}}`; a push is
//! `{"event": name, "payload": value}`. The page's side is `web_shell.js`, which gives the UI the
//! `__TAURI__.core.invoke` and `__TAURI__.event.listen` it uses in the app.

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_context, noop_assets, MockRuntime};
use tauri::webview::InvokeRequest;
use tauri::{Listener, Manager, WebviewWindow, WebviewWindowBuilder};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc};
use tokio_tungstenite::tungstenite::Message;

/// The page's half: the `__TAURI__` surface over the WebSocket.
const SHIM: &str = include_str!("web_shell.js");
/// Every event name the app pushes (`maharajah_app::Push::event`).
const EVENTS: [&str; 13] = [
    "game",
    "clock",
    "net",
    "net-clock",
    "chaturaji",
    "lan-hosts",
    "lan-status",
    "lan-hosted",
    "chaturaji-hosted",
    "analysis",
    "analysis-engine",
    "join-link",
    "lobby",
];
/// The longest request head read before the connection is refused.
const MAX_HEAD: usize = 16 * 1024;

fn main() {
    if let Err(error) = run() {
        eprintln!("web shell: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let port: u16 = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|_| format!("“{text}” is not a port number"))?,
        None => 0,
    };
    let ui = std::env::var_os("MAHARAJAH_UI_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui"), PathBuf::from);
    if !ui.join("index.html").is_file() {
        return Err(format!("no index.html in {}", ui.display()));
    }
    let mut app = maharajah_lib::builder::<MockRuntime>()
        .build(mock_context(noop_assets()))
        .map_err(|e| format!("the app did not build: {e}"))?;
    // The setup hook (the store, the core) runs on the first turn of the event loop.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let webview = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .map_err(|e| format!("no web view: {e}"))?;
    let (pushes, _) = broadcast::channel::<String>(1024);
    for name in EVENTS {
        let pushes = pushes.clone();
        app.listen_any(name, move |event| {
            let payload: Value = serde_json::from_str(event.payload()).unwrap_or(Value::Null);
            let _ = pushes.send(json!({ "event": name, "payload": payload }).to_string());
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .map_err(|e| format!("cannot listen on port {port}: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        println!("listening on http://{address}/");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let (webview, ui, pushes) = (webview.clone(), ui.clone(), pushes.clone());
            tokio::spawn(async move {
                if let Err(error) = connection(stream, webview, ui, pushes).await {
                    eprintln!("web shell: {error}");
                }
            });
        }
    })
}

/// One connection: a WebSocket upgrade or one plain GET.
async fn connection(
    mut stream: TcpStream,
    webview: WebviewWindow<MockRuntime>,
    ui: PathBuf,
    pushes: broadcast::Sender<String>,
) -> Result<(), String> {
    let head = peek_head(&stream).await?;
    if head.to_ascii_lowercase().contains("upgrade: websocket") {
        let socket = tokio_tungstenite::accept_async(stream).await.map_err(|e| e.to_string())?;
        return ipc(socket, webview, pushes.subscribe()).await;
    }
    let mut consumed = vec![0; head.len() + 4];
    stream.read_exact(&mut consumed).await.map_err(|e| e.to_string())?;
    let (status, kind, body) = answer(&head, &ui);
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    stream.write_all(&response).await.map_err(|e| e.to_string())?;
    stream.shutdown().await.map_err(|e| e.to_string())
}

/// The request head (up to the blank line), left unread in the socket.
async fn peek_head(stream: &TcpStream) -> Result<String, String> {
    let mut buffer = vec![0; MAX_HEAD];
    for _ in 0..1000 {
        let read = stream.peek(&mut buffer).await.map_err(|e| e.to_string())?;
        if read == 0 {
            return Err("the connection closed before a request".to_owned());
        }
        if let Some(end) = buffer[..read].windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(String::from_utf8_lossy(&buffer[..end]).into_owned());
        }
        if read == buffer.len() {
            return Err("a request head over 16 KiB".to_owned());
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    Err("a request head that never ended".to_owned())
}

/// Status line, content type and body for a GET of a file under `ui`.
fn answer(head: &str, ui: &Path) -> (&'static str, &'static str, Vec<u8>) {
    let not_found = ("404 Not Found", "text/plain", b"not found".to_vec());
    let mut words = head.split_whitespace();
    let (Some("GET"), Some(target)) = (words.next(), words.next()) else {
        return ("405 Method Not Allowed", "text/plain", b"only GET".to_vec());
    };
    let path = target.split(['?', '#']).next().unwrap_or("/");
    if path == "/__shell__.js" {
        return ("200 OK", "text/javascript", SHIM.as_bytes().to_vec());
    }
    let relative = Path::new(path.trim_start_matches('/'));
    if relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return not_found;
    }
    let file = if path == "/" { ui.join("index.html") } else { ui.join(relative) };
    let Ok(body) = std::fs::read(&file) else { return not_found };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    if file.file_name().is_some_and(|n| n == "index.html") {
        // The shim must define `__TAURI__` before the UI's modules run.
        let page = String::from_utf8_lossy(&body).replacen(
            "<script type=\"module\"",
            "<script src=\"/__shell__.js\"></script>\n  <script type=\"module\"",
            1,
        );
        return ("200 OK", kind, page.into_bytes());
    }
    ("200 OK", kind, body)
}

/// The WebSocket of one page: its calls answered in any order, every push forwarded.
async fn ipc(
    socket: tokio_tungstenite::WebSocketStream<TcpStream>,
    webview: WebviewWindow<MockRuntime>,
    mut pushes: broadcast::Receiver<String>,
) -> Result<(), String> {
    let (mut sink, mut stream) = socket.split();
    let (answers, mut outgoing) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        loop {
            let text = tokio::select! {
                answer = outgoing.recv() => match answer { Some(text) => text, None => break },
                push = pushes.recv() => match push {
                    Ok(text) => text,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            };
            if sink.send(Message::text(text)).await.is_err() {
                break;
            }
        }
    });
    while let Some(message) = stream.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text.to_string(),
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        let webview = webview.clone();
        let answers = answers.clone();
        tokio::task::spawn_blocking(move || {
            let _ = answers.send(call(&webview, &text).to_string());
        });
    }
    writer.abort();
    Ok(())
}

/// Runs one `{"id", "cmd", "args"}` call through the IPC, as the web view would.
fn call(webview: &WebviewWindow<MockRuntime>, text: &str) -> Value {
    let request: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return json!({ "id": null, "err": { "code": "ipc", "message": format!("not JSON: {e}") } })
        }
    };
    let id = request["id"].clone();
    let Some(cmd) = request["cmd"].as_str() else {
        return json!({ "id": id, "err": { "code": "ipc", "message": "a call without a command name" } });
    };
    let args = match &request["args"] {
        Value::Null => json!({}),
        args => args.clone(),
    };
    let answer = get_ipc_response(
        webview,
        InvokeRequest {
            cmd: cmd.to_owned(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("a constant URL"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: webview.app_handle().invoke_key().to_owned(),
        },
    );
    match answer {
        Ok(body) => json!({ "id": id, "ok": body.deserialize::<Value>().unwrap_or(Value::Null) }),
        Err(error) => {
            let error = if error.get("code").is_some() {
                error
            } else {
                json!({ "code": "ipc", "message": error.as_str().map_or_else(|| error.to_string(), str::to_owned) })
            };
            json!({ "id": id, "err": error })
        }
    }
}
