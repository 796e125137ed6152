//! Test certificates: a private CA and a server certificate it signed, as PEM files, for the
//! `wss://` tests of `maharajah-net` and `maharajah-app`.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

/// A fresh, empty directory for one test's PEM files (under the system's temporary directory,
/// named after the process and `name`).
///
/// # Panics
///
/// When the directory cannot be made.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("maharajah-tls-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Writes `ca.pem` (a new CA) and `cert.pem` + `key.pem` (a server certificate it signed for
/// localhost and 127.0.0.1) into `dir`.
///
/// # Panics
///
/// When a key or certificate cannot be made or written.
pub fn make_certificates(dir: &Path) {
    let ca_key = KeyPair::generate().expect("a CA key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).expect("a self-signed CA");
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().expect("a server key");
    let params = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .expect("server parameters");
    let cert = params.signed_by(&key, &issuer).expect("a certificate signed by the CA");
    std::fs::write(dir.join("ca.pem"), ca.pem()).expect("ca.pem written");
    std::fs::write(dir.join("cert.pem"), cert.pem()).expect("cert.pem written");
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).expect("key.pem written");
}
