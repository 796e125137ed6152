//! Private network namespaces for tests and the LAN benchmark (Linux, root).
//!
//! Every [`mdns_sd::ServiceDaemon`] sends multicast on the interfaces it sees, so a test that
//! creates one first moves its thread into a new, empty network namespace ([`enter_private`])
//! and only then builds its tokio runtime, whose threads inherit the namespace. Two such
//! threads can be joined by a veth pair ([`veth_to`]) to play host and guest. Nothing outlives
//! the threads: the kernel removes a namespace, and the veth pair in it, with its last thread.

use std::process::Command;

use nix::sched::{unshare, CloneFlags};

/// Why a namespace could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum NetnsError {
    /// `unshare(CLONE_NEWNET)` failed (not root, or inside a sandbox that forbids it).
    #[error("unshare(CLONE_NEWNET) failed: {0}")]
    Unshare(nix::Error),
    /// An `ip` command failed.
    #[error("`ip {args}` failed: {stderr}")]
    Ip {
        /// The arguments.
        args: String,
        /// Its error output.
        stderr: String,
    },
}

/// Runs `ip ARGS` in the calling thread's network namespace.
///
/// # Errors
///
/// [`NetnsError::Ip`] when it cannot run or exits with failure.
pub fn ip(args: &[&str]) -> Result<(), NetnsError> {
    let fail = |stderr: String| NetnsError::Ip { args: args.join(" "), stderr };
    let out = Command::new("ip").args(args).output().map_err(|e| fail(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(fail(String::from_utf8_lossy(&out.stderr).into_owned()))
    }
}

/// Moves the calling thread into a new network namespace with only `lo`, and brings `lo` up.
/// Build the tokio runtime after this, on this thread.
///
/// # Errors
///
/// [`NetnsError`].
pub fn enter_private() -> Result<(), NetnsError> {
    unshare(CloneFlags::CLONE_NEWNET).map_err(NetnsError::Unshare)?;
    ip(&["link", "set", "lo", "up"])
}

/// Like [`enter_private`], but when it fails outside CI returns false (the caller skips its
/// test with a note); under `CI=true` it panics, so a CI run never silently skips.
///
/// # Panics
///
/// Under `CI=true` when the namespace cannot be made.
pub fn enter_private_or_skip(test: &str) -> bool {
    match enter_private() {
        Ok(()) => true,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{test}: cannot make a private network namespace under CI: {e}")
        }
        Err(e) => {
            eprintln!("{test}: SKIPPED, no private network namespace: {e}");
            false
        }
    }
}

/// The calling thread's id, which names its network namespace for `ip link set … netns`.
pub fn thread_id() -> i32 {
    nix::unistd::gettid().as_raw()
}

/// Creates a veth pair in the calling thread's namespace, moves `peer` into the namespace of
/// thread `peer_tid`, and gives `local` the address `local_cidr` (e.g. `10.200.0.1/24`), with
/// multicast on and the link up. The peer thread then calls [`veth_up`] for its end.
///
/// # Errors
///
/// [`NetnsError`].
pub fn veth_to(local: &str, local_cidr: &str, peer: &str, peer_tid: i32) -> Result<(), NetnsError> {
    ip(&["link", "add", local, "type", "veth", "peer", "name", peer])?;
    ip(&["link", "set", peer, "netns", &peer_tid.to_string()])?;
    veth_up(local, local_cidr)
}

/// Gives `dev` the address `cidr`, multicast on, link up (in the calling thread's namespace).
///
/// # Errors
///
/// [`NetnsError`].
pub fn veth_up(dev: &str, cidr: &str) -> Result<(), NetnsError> {
    ip(&["addr", "add", cidr, "dev", dev])?;
    ip(&["link", "set", dev, "multicast", "on", "up"])
}

/// Sets `dev` down (a dropped Wi-Fi) or up again.
///
/// # Errors
///
/// [`NetnsError`].
pub fn set_link(dev: &str, up: bool) -> Result<(), NetnsError> {
    ip(&["link", "set", dev, if up { "up" } else { "down" }])
}

/// A tokio runtime with two workers. Build it inside the namespace: its threads stay there.
///
/// # Panics
///
/// When the runtime cannot be built (no threads left).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime for the test")
}

/// Runs `f` on a new thread inside a new network namespace; None when skipped (not under CI,
/// see [`enter_private_or_skip`]).
///
/// # Panics
///
/// When `f` panics (the panic is passed on), or under `CI=true` without a namespace.
pub fn in_namespace<T: Send + 'static>(
    name: &'static str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    match std::thread::spawn(move || enter_private_or_skip(name).then(f)).join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
