//! Dev-only helpers shared by the tests (and the LAN benchmark) of several crates. Never a
//! normal dependency: it is `publish = false` and sits only in `[dev-dependencies]`.
//!
//! Layout:
//! - [`netns`] (Linux, root): private network namespaces, veth pairs between two of them, and
//!   [`netns::in_namespace`], which runs a test on a fresh thread inside its own namespace
//!   (every mDNS daemon must live in one: see `lan-testing.md` in the shared notes).
//! - [`mdns`]: hand-made advertisements (a host of a future protocol version).
//! - [`certs`]: a private CA and a server certificate it signed, as PEM files.
//! - [`pg`]: a throw-away PostgreSQL (the cluster tests of the server and the client).
//!
//! Helpers here panic with a message instead of returning errors: a failing fixture is a
//! failing test.

pub mod certs;
pub mod mdns;
#[cfg(target_os = "linux")]
pub mod netns;
pub mod pg;
