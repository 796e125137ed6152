//! The binary's TLS flags: a missing file or a lone flag stops it at once with a message that
//! names the problem (exit status 2), before it listens.
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used)]

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_maharajah-server"))
        .args(["--listen", "127.0.0.1:0", "--memory"])
        .args(args)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_tls_flags_are_named() {
    let (code, err) = run(&["--tls-cert", "/nonexistent/fullchain.pem", "--tls-key", "/x.pem"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("certificate file /nonexistent/fullchain.pem"), "{err}");
    let (code, err) = run(&["--tls-cert", "/nonexistent/fullchain.pem"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--tls-cert and --tls-key go together"), "{err}");
    let (code, err) = run(&["--tls-key"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--tls-key needs a path"), "{err}");
}
