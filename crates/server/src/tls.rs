//! TLS for serving `wss://` directly: a certificate chain and private key read from PEM files
//! (what Let's Encrypt and most CAs hand out). A server behind a TLS-terminating reverse proxy
//! does not need this; see docs/scaling.md.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Why the TLS files could not be used; each names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate file is unreadable or holds no PEM certificate.
    #[error("certificate file {path}: {reason}")]
    Certificate {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The key file is unreadable or holds no PEM private key.
    #[error("private key file {path}: {reason}")]
    Key {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The key does not fit the certificate, or rustls refuses them.
    #[error("certificate and key: {0}")]
    Config(String),
}

/// A TLS server configuration from a PEM certificate chain (leaf first) and a PEM private key
/// (PKCS#8, PKCS#1 or SEC1). Put it in [`crate::Config::tls`].
///
/// # Errors
/// [`TlsError`] naming the file that cannot be read or parsed, or the mismatch.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let cert_err =
        |reason: String| TlsError::Certificate { path: cert.display().to_string(), reason };
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| cert_err(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| cert_err(e.to_string()))?;
    if chain.is_empty() {
        return Err(cert_err("no PEM certificate in it".into()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| TlsError::Key { path: key.display().to_string(), reason: e.to_string() })?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    Ok(Arc::new(config))
}
