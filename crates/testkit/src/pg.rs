//! A throw-away PostgreSQL for tests: `MAHARAJAH_PG_URL` if set (each test gets a fresh
//! database in it), else a cluster of its own: `initdb` into a temporary folder (as the
//! `postgres` user when run as root: PostgreSQL refuses root), listening on 127.0.0.1 at a free
//! port with its socket in that folder, stopped when dropped.
//!
//! Where PostgreSQL cannot start, [`Pg::start`] prints `SKIPPED: PostgreSQL could not start:
//! why` and returns `None`; with `MAHARAJAH_REQUIRE_PG` set (CI installs PostgreSQL) it panics
//! instead, so a missing install fails loudly.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A database of a test's own on a running PostgreSQL; the cluster this harness started, if it
/// did, stops when this is dropped.
pub struct Pg {
    /// A database of this test's own.
    pub url: String,
    /// The cluster this harness started (none with `MAHARAJAH_PG_URL`).
    own: Option<OwnCluster>,
}

struct OwnCluster {
    bin: PathBuf,
    data: PathBuf,
    _dir: tempfile::TempDir,
}

fn is_root() -> bool {
    // Our own uid, from /proc (no libc needed).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// The folder of `initdb` and `pg_ctl`: `pg_config --bindir`, else /usr/lib/postgresql/*/bin
/// (newest first), else the `PATH`.
fn bindir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let d = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has(&d) {
            return Some(d);
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|d| has(d))
        .collect();
    versions.sort();
    if let Some(d) = versions.pop() {
        return Some(d);
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|d| has(d))
}

/// Runs `bin` with `args`, as `postgres` when we are root.
fn run_pg(bin: &Path, args: &[&str]) -> Result<(), String> {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    // From a folder the postgres user may enter (the checkout may be private to root).
    cmd.current_dir(std::env::temp_dir());
    let out = cmd.args(args).output().map_err(|e| format!("{}: {e}", bin.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} failed: {}{}",
            bin.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn start_own() -> Result<(String, OwnCluster), String> {
    let bin = bindir().ok_or("no initdb/pg_ctl found (pg_config, /usr/lib/postgresql, PATH)")?;
    let dir =
        tempfile::Builder::new().prefix("maharajah-pg").tempdir().map_err(|e| e.to_string())?;
    let data = dir.path().join("data");
    if is_root() {
        let status = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(dir.path())
            .status()
            .map_err(|e| format!("chown: {e}"))?;
        if !status.success() {
            return Err("chown to the postgres user failed (is there one?)".into());
        }
    }
    let data_s = data.to_string_lossy().into_owned();
    let sock = dir.path().to_string_lossy().into_owned();
    run_pg(
        &bin.join("initdb"),
        &["-D", &data_s, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
    )?;
    let mut last = String::new();
    for _ in 0..3 {
        let port = free_port()?;
        let opts = format!(
            "-c listen_addresses=127.0.0.1 -p {port} -k {sock} -c fsync=off \
             -c max_connections=200 -c shared_buffers=32MB"
        );
        let log = dir.path().join("log").to_string_lossy().into_owned();
        match run_pg(
            &bin.join("pg_ctl"),
            &["-D", &data_s, "-l", &log, "-w", "-t", "20", "-o", &opts, "start"],
        ) {
            Ok(()) => {
                let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
                return Ok((url, OwnCluster { bin, data, _dir: dir }));
            }
            Err(e) => {
                last = format!("{e}\n{}", std::fs::read_to_string(&log).unwrap_or_default());
            }
        }
    }
    Err(last)
}

/// A fresh database named `name` on the server at `url`; its URL.
async fn fresh_database(url: &str, name: &str) -> Result<String, String> {
    let (client, conn) =
        tokio_postgres::connect(url, tokio_postgres::NoTls).await.map_err(|e| {
            match std::error::Error::source(&e) {
                Some(cause) => format!("{e}: {cause}"),
                None => e.to_string(),
            }
        })?;
    tokio::spawn(conn);
    // One statement each: several in one string run as one transaction, which CREATE DATABASE
    // refuses.
    for sql in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
        client.batch_execute(&sql).await.map_err(|e| match e.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => e.to_string(),
        })?;
    }
    let base = url.rsplit_once('/').map_or(url, |(b, _)| b);
    Ok(format!("{base}/{name}"))
}

impl Pg {
    /// A PostgreSQL database for the test `name`, or `None` (after a loud `SKIPPED`) where
    /// none can be had.
    pub async fn start(name: &str) -> Option<Pg> {
        let db = format!("t_{}_{}", name, std::process::id());
        let result = match std::env::var("MAHARAJAH_PG_URL") {
            Ok(url) if !url.is_empty() => {
                fresh_database(&url, &db).await.map(|url| Pg { url, own: None })
            }
            _ => match tokio::task::spawn_blocking(start_own).await {
                Ok(Ok((url, own))) => {
                    fresh_database(&url, &db).await.map(|url| Pg { url, own: Some(own) })
                }
                Ok(Err(e)) => Err(e),
                Err(e) => Err(e.to_string()),
            },
        };
        match result {
            Ok(pg) => Some(pg),
            Err(why) if std::env::var_os("MAHARAJAH_REQUIRE_PG").is_some() => {
                panic!("PostgreSQL could not start (MAHARAJAH_REQUIRE_PG is set): {why}")
            }
            Err(why) => {
                eprintln!("\n*** SKIPPED: PostgreSQL could not start: {why} ***\n");
                None
            }
        }
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        if let Some(own) = &self.own {
            let data = own.data.to_string_lossy().into_owned();
            let _ = run_pg(&own.bin.join("pg_ctl"), &["-D", &data, "-m", "immediate", "stop"]);
        }
    }
}

impl Pg {
    /// Stops the database this harness started (an outage); false where it started none.
    pub fn stop(&self) -> bool {
        let Some(own) = &self.own else { return false };
        let data = own.data.to_string_lossy().into_owned();
        run_pg(&own.bin.join("pg_ctl"), &["-D", &data, "-m", "immediate", "stop"]).is_ok()
    }
}
