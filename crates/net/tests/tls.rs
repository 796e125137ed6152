//! `wss://`: the real server serving TLS with a certificate from its own CA, and the client
//! trusting that CA through `ConnectOptions::extra_ca`; a certificate nobody vouches for is
//! refused with the reason; a bad certificate file is named.
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use maharajah_net::client::{Connection, NetEvent};
use maharajah_protocol::{Color, RoomEvent, Variant};
use maharajah_testkit::certs::{make_certificates, scratch};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// The real server with TLS on 127.0.0.1; returns its port and the stop switch.
async fn tls_server(dir: &Path) -> (u16, oneshot::Sender<()>) {
    let tls =
        maharajah_server::tls::server_config(&dir.join("cert.pem"), &dir.join("key.pem")).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = oneshot::channel::<()>();
    let config = maharajah_server::Config { tls: Some(Arc::clone(&tls)), ..Default::default() };
    tokio::spawn(maharajah_server::run(listener, config, async move {
        let _ = stopped.await;
    }));
    (port, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_over_wss_with_the_servers_own_ca() {
    let dir = scratch("game");
    make_certificates(&dir);
    let (port, stop) = tls_server(&dir).await;
    let options = maharajah_net::ConnectOptions { extra_ca: Some(dir.join("ca.pem")), ..fast() };
    for host in ["localhost", "127.0.0.1"] {
        let url = format!("wss://{host}:{port}/");
        let (white, _we) = Connection::connect(&url, options.clone()).await.unwrap();
        let seat = white.create_room(room(Variant::Chess, false, Color::White)).await.unwrap();
        let (black, mut be) = Connection::connect(&url, options.clone()).await.unwrap();
        black.join_room(seat.code.clone()).await.unwrap();
        until_phase(&black, &mut be, maharajah_protocol::Phase::Playing).await;
        assert_eq!(white.play("e2e4").await.unwrap().ply, 0);
        until(&mut be, "e2e4 over TLS", |e| {
            matches!(e, NetEvent::Room { event: RoomEvent::Moved { ply: 0, .. }, .. })
        })
        .await;
        assert_eq!(black.play("e7e5").await.unwrap().ply, 1);
        assert_eq!(black.room().moves(), ["e2e4", "e7e5"], "{host}");
        white.close().await;
        black.close().await;
    }
    let _ = stop.send(());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_certificate_nobody_vouches_for_is_refused_with_the_reason() {
    let dir = scratch("untrusted");
    make_certificates(&dir);
    let (port, stop) = tls_server(&dir).await;
    // The built-in public roots only: the server's private CA is unknown.
    let options = maharajah_net::ConnectOptions { extra_ca: None, ..fast() };
    let err = Connection::connect(&format!("wss://localhost:{port}/"), options.clone())
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("certificate") && err.contains(&port.to_string()), "{err}");
    // A plain ws:// client cannot talk to a TLS server either, and says so instead of hanging.
    let plain = Connection::connect(&format!("ws://127.0.0.1:{port}/"), options.clone()).await;
    assert!(plain.is_err());
    // An extra-CA file that is not a certificate is named.
    std::fs::write(dir.join("junk.pem"), "hello\n").unwrap();
    let junk = maharajah_net::ConnectOptions { extra_ca: Some(dir.join("junk.pem")), ..options };
    let err = Connection::connect(&format!("wss://localhost:{port}/"), junk)
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("junk.pem") && err.contains("no PEM certificate"), "{err}");
    let _ = stop.send(());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_server_certificate_files_are_named() {
    let dir = scratch("server-files");
    make_certificates(&dir);
    let missing = maharajah_server::tls::server_config(&dir.join("nope.pem"), &dir.join("key.pem"))
        .err()
        .unwrap()
        .to_string();
    assert!(missing.contains("certificate file") && missing.contains("nope.pem"), "{missing}");
    // The CA's certificate with the server's key: the pair does not match.
    let mismatch = maharajah_server::tls::server_config(&dir.join("ca.pem"), &dir.join("key.pem"))
        .err()
        .unwrap()
        .to_string();
    assert!(mismatch.contains("certificate and key"), "{mismatch}");
    let no_key = maharajah_server::tls::server_config(&dir.join("cert.pem"), &dir.join("ca.pem"))
        .err()
        .unwrap()
        .to_string();
    assert!(no_key.contains("private key file") && no_key.contains("ca.pem"), "{no_key}");
    let _ = std::fs::remove_dir_all(&dir);
}
