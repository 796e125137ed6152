//! TLS for `wss://` server addresses. The public web's certificate authorities (Mozilla's list,
//! built in through `webpki-roots`) are always trusted; [`ConnectOptions::extra_ca`] adds the
//! authorities of a PEM file, for a self-hosted server with its own CA (and for tests).
//!
//! [`ConnectOptions::extra_ca`]: crate::client::ConnectOptions::extra_ca

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use tokio_tungstenite::Connector;

pub use crate::client::EXTRA_CA_ENV;

/// The TLS connector for `url`: `None` for `ws://` and for `wss://` with the built-in roots only
/// (tokio-tungstenite's default); a connector trusting the built-in roots and every certificate
/// in `extra_ca` otherwise.
///
/// # Errors
/// A message naming the file when it cannot be read or holds no PEM certificate.
pub(crate) fn connector(url: &str, extra_ca: Option<&Path>) -> Result<Option<Connector>, String> {
    let Some(path) = extra_ca.filter(|_| url.starts_with("wss://")) else {
        return Ok(None);
    };
    let file_err =
        |reason: String| format!("trusted certificates file {}: {reason}", path.display());
    let extra = CertificateDer::pem_file_iter(path)
        .map_err(|e| file_err(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_err(e.to_string()))?;
    if extra.is_empty() {
        return Err(file_err("no PEM certificate in it".into()));
    }
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    for cert in extra {
        roots.add(cert).map_err(|e| file_err(e.to_string()))?;
    }
    let config =
        rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    Ok(Some(Connector::Rustls(Arc::new(config))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_addresses_and_no_extra_file_use_the_default() {
        assert!(matches!(
            connector("ws://127.0.0.1:1/", Some(Path::new("/nonexistent"))),
            Ok(None)
        ));
        assert!(matches!(connector("wss://example.org/", None), Ok(None)));
    }

    #[test]
    fn a_bad_extra_file_is_named() {
        let missing = connector("wss://a:1/", Some(Path::new("/nonexistent/ca.pem")));
        let err = missing.err().unwrap_or_default();
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
        let dir = std::env::temp_dir().join(format!("maharajah-tls-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let empty = dir.join("empty.pem");
        assert!(std::fs::write(&empty, "not a certificate\n").is_ok());
        let err = connector("wss://a:1/", Some(&empty)).err().unwrap_or_default();
        assert!(err.contains("no PEM certificate"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
