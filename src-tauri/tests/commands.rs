//! The command set on Tauri's mock runtime: the shell's own `builder()` with every command
//! registered, driven through the IPC as the web view drives it (JSON arguments in camelCase,
//! answers and `{ code, message }` errors as JSON), and a push arriving as an event.
#![allow(clippy::unwrap_used)]

use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_context, noop_assets, MockRuntime};
use tauri::webview::InvokeRequest;
use tauri::{Listener, Manager, WebviewWindow, WebviewWindowBuilder};

/// Invokes `cmd` with `args` as the UI does; the answer or the error, as JSON.
fn invoke(webview: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        webview,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            // The shell's builder is not `mock_builder()`, so the key is the app's own.
            invoke_key: webview.app_handle().invoke_key().to_owned(),
        },
    )
    .map(|body| body.deserialize::<Value>().unwrap())
}

#[test]
fn commands_answer_through_the_ipc_and_the_computers_move_is_pushed() {
    let dir = std::env::temp_dir().join(format!("maharajah-commands-{}", std::process::id()));
    std::env::set_var(maharajah_lib::DATA_DIR_ENV, &dir);
    std::env::set_var(maharajah_lib::EXPORT_DIR_ENV, &dir);
    let mut app = maharajah_lib::builder::<MockRuntime>()
        .build(mock_context(noop_assets()))
        .expect("the app builds on the mock runtime");
    // The setup hook (which opens the store and manages the core) runs on the first turn of the
    // event loop; the mock runtime's iteration does nothing else.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    let (games, pushed) = mpsc::channel();
    app.listen_any("game", move |event| {
        let _ = games.send(event.payload().to_owned());
    });

    let versions = invoke(&webview, "versions", json!({})).expect("versions");
    assert_eq!(versions["engine"], maharajah_engine::VERSION);
    // Errors arrive as `{ code, message }`.
    let refused = invoke(&webview, "play_move", json!({ "mv": "e2e4" })).expect_err("no game");
    assert_eq!(refused["code"], "no_game", "{refused}");
    assert!(refused["message"].as_str().is_some_and(|m| !m.is_empty()), "{refused}");
    let unknown = invoke(&webview, "set_setting", json!({ "key": "nope", "value": 1 }));
    assert_eq!(unknown.expect_err("an unknown setting")["code"], "bad_setting");
    invoke(&webview, "set_setting", json!({ "key": "theme", "value": "dark" })).expect("stored");
    invoke(&webview, "set_setting", json!({ "key": "haptics", "value": false })).expect("stored");

    // The desktop build has no haptics; a join link the app was opened with is taken once.
    let device = invoke(&webview, "device_info", json!({})).expect("device_info");
    assert_eq!(device, json!({ "mobile": false, "haptics": false, "share_sheet": false }));
    // No native share sheet on the desktop: the UI copies instead.
    let refused = invoke(&webview, "share_text", json!({ "title": "PGN", "text": "1. e4 *" }))
        .expect_err("no sheet here");
    assert_eq!(refused["code"], "unsupported", "{refused}");
    assert_eq!(invoke(&webview, "take_join_link", json!({})).expect("no link"), Value::Null);
    let (links, linked) = mpsc::channel();
    app.listen_any("join-link", move |event| {
        let _ = links.send(event.payload().to_owned());
    });
    app.state::<maharajah_app::App>().open_link("maharajah://join/abcd2345");
    let pushed_link: Value =
        serde_json::from_str(&linked.recv_timeout(Duration::from_secs(10)).unwrap()).unwrap();
    assert_eq!(
        pushed_link["link"],
        json!({ "kind": "online", "code": "ABCD2345", "server": null })
    );
    let taken = invoke(&webview, "take_join_link", json!({})).expect("the link");
    assert_eq!(taken["link"]["code"], "ABCD2345", "{taken}");
    assert_eq!(invoke(&webview, "take_join_link", json!({})).expect("taken"), Value::Null);
    assert_eq!(invoke(&webview, "settings", json!({})).expect("settings")["theme"], "dark");

    // The army builder and the Learn board answer without a game.
    let army = invoke(
        &webview,
        "army_preset",
        json!({ "color": "white", "preset": "orthodox", "army": null }),
    )
    .expect("an orthodox army");
    assert_eq!(army["problems"], json!([]), "{army}");
    let reach = invoke(
        &webview,
        "learn_reach",
        json!({ "role": "knight", "square": "a1", "blockers": [] }),
    )
    .expect("reach");
    assert_eq!(reach["leap"].as_array().map(Vec::len), Some(2), "{reach}");

    // A game against the computer playing White: its move comes as a `game` event.
    let opponent = json!({ "kind": "computer", "color": "white", "level": 1 });
    let view = invoke(
        &webview,
        "new_game",
        json!({ "variant": "chess", "opponent": opponent, "timeControl": null }),
    )
    .expect("a new game");
    assert_eq!(view["opponent"], opponent);
    let moved: Value = serde_json::from_str(
        &pushed.recv_timeout(Duration::from_secs(60)).expect("the computer's move is pushed"),
    )
    .unwrap();
    assert_eq!(moved["history"].as_array().map(Vec::len), Some(1), "{moved}");
    let current = invoke(&webview, "current_game", json!({})).expect("the open game");
    assert_eq!(current["history"], moved["history"]);

    // Network and Chaturaji commands answer on the same app.
    assert_eq!(invoke(&webview, "net_view", json!({})).expect("no network game"), Value::Null);
    let bad = invoke(&webview, "chaturaji_move", json!({ "from": "z9", "to": "a1", "die": null }));
    assert_eq!(bad.expect_err("no such square")["code"], "bad_square");
    let table = invoke(&webview, "chaturaji_new", json!({ "settings": {} })).expect("a table");
    assert_eq!(table["pieces"].as_array().map(Vec::len), Some(32));

    // The analysis board: open on a pasted game, step, vary, review; the engine's and the
    // review's news come as events.
    let (analysed, analysis) = mpsc::channel();
    let engine = analysed.clone();
    app.listen_any("analysis", move |event| {
        let _ = analysed.send(("analysis", event.payload().to_owned()));
    });
    app.listen_any("analysis-engine", move |event| {
        let _ = engine.send(("analysis-engine", event.payload().to_owned()));
    });
    let text = "1. e4 e5 2. Nf3 Qh4 3. Nxh4 *";
    let board =
        invoke(&webview, "analysis_open", json!({ "source": { "kind": "text", "text": text } }))
            .expect("a board");
    assert_eq!(board["moves"].as_array().map(Vec::len), Some(5), "{board}");
    assert_eq!(board["at_start"], true);
    let thought: Value = loop {
        let (event, payload) = analysis.recv_timeout(Duration::from_secs(60)).expect("engine");
        let payload: Value = serde_json::from_str(&payload).unwrap();
        if event == "analysis-engine" && payload["lines"].as_array().is_some_and(|l| !l.is_empty())
        {
            break payload;
        }
    };
    assert!(thought["lines"][0]["san"][0].is_string(), "{thought}");
    let stepped = invoke(&webview, "analysis_step", json!({ "to": "last" })).expect("stepped");
    assert_eq!(stepped["board"]["ply"], 5);
    let bad = invoke(&webview, "analysis_step", json!({ "to": "sideways" }));
    assert_eq!(bad.expect_err("not a step")["code"], "bad_step");
    invoke(&webview, "analysis_step", json!({ "to": "back" })).expect("back");
    let varied = invoke(&webview, "analysis_play", json!({ "mv": "g3" })).expect("a variation");
    assert_eq!(varied["on_main_line"], false, "{varied}");
    let main = invoke(&webview, "analysis_step", json!({ "to": "main" })).expect("main line");
    assert_eq!(main["on_main_line"], true);
    invoke(&webview, "analysis_review", json!({})).expect("a review");
    let reviewed: Value = loop {
        let (event, payload) = analysis.recv_timeout(Duration::from_secs(120)).expect("review");
        let payload: Value = serde_json::from_str(&payload).unwrap();
        if event == "analysis" && payload["review"]["complete"] == true {
            break payload;
        }
    };
    let qh4 = reviewed["moves"].as_array().unwrap().iter().find(|m| m["san"] == "Qh4").cloned();
    assert_eq!(qh4.as_ref().map(|m| m["judgement"].clone()), Some(json!("blunder")), "{reviewed}");
    let pgn = invoke(&webview, "analysis_pgn", json!({})).expect("a PGN");
    assert!(pgn.as_str().is_some_and(|p| p.contains("Qh4??")), "{pgn}");
    invoke(&webview, "analysis_close", json!({})).expect("closed");
    assert_eq!(invoke(&webview, "analysis_view", json!({})).expect("no board"), Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}
