//! The app's network session over `wss://`: the real server library serving TLS with a
//! certificate from a private CA, which the app trusts through `MAHARAJAH_EXTRA_CA` (the way a
//! self-hosted server's owner would set it up). One test in this file: it sets the variable
//! before any thread reads the environment.
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod netview;

use maharajah_app::chess::online::{normalize_url, NetPlay};
use maharajah_net::{ConnectOptions, Connection};
use maharajah_protocol::{Color, Phase, RoomOptions, Variant};
use maharajah_testkit::certs;
use netview::view_until;
use tokio::sync::{mpsc, oneshot};

#[test]
fn a_game_on_a_wss_server_the_app_trusts() {
    let dir = certs::scratch("app");
    certs::make_certificates(&dir);
    // Before the runtime starts any thread: the app reads it when it connects.
    std::env::set_var(maharajah_net::tls::EXTRA_CA_ENV, dir.join("ca.pem"));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let tls = maharajah_server::tls::server_config(&dir.join("cert.pem"), &dir.join("key.pem"))
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = oneshot::channel::<()>();
        let config = maharajah_server::Config { tls: Some(tls), ..Default::default() };
        tokio::spawn(maharajah_server::run(listener, config, async move {
            let _ = stopped.await;
        }));

        // As typed on the Online screen: no path, the name the certificate carries.
        let url = normalize_url(&format!("wss://localhost:{port}")).unwrap();
        let (tx, mut views) = mpsc::unbounded_channel();
        let net = NetPlay::new(move |u| {
            let _ = tx.send(u);
        });
        let options = RoomOptions {
            variant: Variant::Chess,
            time_control: None,
            hidden_setup: false,
            color: Some(Color::White),
        };
        let code = net.create(&url, options).await.unwrap().code.expect("the room's code");
        let v =
            view_until(&mut views, "the welcome over TLS", |v| v.server_version.is_some()).await;
        assert_eq!(v.server_version.as_deref(), Some(maharajah_server::VERSION));

        let (black, _be) = Connection::connect(&url, ConnectOptions::default()).await.unwrap();
        black.join_room(code.parse().unwrap()).await.unwrap();
        view_until(&mut views, "the game starts", |v| v.phase == Some(Phase::Playing)).await;
        net.play("e2e4").await.unwrap();
        // White's ack can come before the move reaches Black's replica: Black answers at its
        // replica's ply, so it waits for e2e4 first (else the server rightly says stale_ply).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while black.room().next_ply() < 1 {
            assert!(std::time::Instant::now() < deadline, "e2e4 never reached Black");
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        black.play("c7c5").await.unwrap();
        let v = view_until(&mut views, "the reply over TLS", |v| {
            v.game.as_ref().is_some_and(|g| g.history == ["e4", "c5"])
        })
        .await;
        assert!(v.my_turn);
        let _ = stop.send(());
    });
    let _ = std::fs::remove_dir_all(&dir);
}
