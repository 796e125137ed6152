//! The online Maharajah server: `maharajah-server [--listen ADDR] [--db PATH | --memory |
//! --postgres URL --node-id ID [--advertise ws://HOST:PORT] [--lease-secs N] [--redirect]]
//! [--tls-cert PEM --tls-key PEM]` plus limit flags; `--help` lists them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use maharajah_server::{run_with_admin, ClusterConfig, Config};

/// Default address: loopback only; pass `--listen 0.0.0.0:7878` to serve the network.
const DEFAULT_LISTEN: &str = "127.0.0.1:7878";
/// Default database file, in the working directory.
const DEFAULT_DB: &str = "maharajah-server.sqlite3";

fn usage() -> String {
    format!(
        "usage: maharajah-server [--listen ADDR] [--db PATH | --memory | --postgres URL --node-id ID]\n\
         \x20                       [--tls-cert PEM --tls-key PEM] [--admin ADDR] [limits]\n\
         \x20 --listen ADDR  address to listen on (default {DEFAULT_LISTEN}; port 0 picks one)\n\
         \x20 --tls-cert PEM, --tls-key PEM   serve wss:// with this certificate chain and key\n\
         \x20 --db PATH      SQLite file for durable rooms (default {DEFAULT_DB})\n\
         \x20 --memory       keep rooms in memory only\n\
         \x20 --postgres URL cluster mode: rooms in PostgreSQL, shared with other nodes\n\
         \x20                (postgres://user@host:port/db; --db is then not used)\n\
         \x20 --node-id ID   this node's id in the cluster (the same across restarts)\n\
         \x20 --advertise URL where other nodes reach this one (default ws://LISTEN-ADDRESS)\n\
         \x20 --lease-secs N how long a room's ownership lasts unrenewed (default 10): a dead\n\
         \x20                node's rooms move after at most this long\n\
         \x20 --pg-pool N    PostgreSQL connections for room writes (default 4)\n\
         \x20 --redirect     send a client that follows redirects to the room's node (its\n\
         \x20                --advertise address, which clients must reach) instead of\n\
         \x20                forwarding its frames there\n\
         \x20 --name NAME    the server's name in identity challenges (its public host name)\n\
         \x20 --max-connections-per-ip N, --messages-per-second N, --join-failures-per-minute N,\n\
         \x20 --rooms-per-minute-per-ip N, --max-rooms N, --ping-interval-secs N,\n\
         \x20 --idle-timeout-secs N, --hello-timeout-secs N, --max-connections N,\n\
         \x20 --waiting-rooms-per-ip N, --abandoned-room-minutes N,\n\
         \x20 --challenges-per-connection N, --lobby-request-burst N,\n\
         \x20 --lobby-requests-per-minute N, --challenges-per-player N,\n\
         \x20 --challenges-per-address N, --lobby-requests-per-address N (a minute),\n\
         \x20 --lookups-per-address N (a minute)\n\
         \x20                limits (see the crate README; connections: open files less 64)\n\
         \x20 --admin ADDR   serve /healthz, /readyz and /metrics over plain HTTP there\n\
         \x20 --trusted-proxy IP   a reverse proxy whose X-Forwarded-For names the client\n\
         \x20                      (repeat for several; without it the header is ignored)"
    )
}

fn number<T: std::str::FromStr>(name: &str, v: Option<String>) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let v = v.ok_or(format!("{name} needs a number"))?;
    v.parse().map_err(|e| format!("{name} {v}: {e}"))
}

fn parse_args() -> Result<(SocketAddr, Option<SocketAddr>, Config), String> {
    let mut admin = None;
    let mut listen: SocketAddr =
        DEFAULT_LISTEN.parse().map_err(|e| format!("default address: {e}"))?;
    let mut db = Some(PathBuf::from(DEFAULT_DB));
    let mut config = Config::default();
    let (mut tls_cert, mut tls_key) = (None, None);
    let (mut postgres, mut node, mut advertise) = (None, None, None);
    let (mut lease_secs, mut pg_pool, mut redirect) = (10.0_f64, 4_usize, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--max-connections-per-ip" => {
                config.max_connections_per_ip = number(&arg, args.next())?;
            }
            "--messages-per-second" => config.messages_per_second = number(&arg, args.next())?,
            "--rooms-per-minute-per-ip" => {
                config.rooms_per_minute_per_ip = number(&arg, args.next())?;
            }
            "--max-rooms" => config.max_rooms = number(&arg, args.next())?,
            "--waiting-rooms-per-ip" => config.waiting_rooms_per_ip = number(&arg, args.next())?,
            "--abandoned-room-minutes" => {
                let minutes: u64 = number(&arg, args.next())?;
                config.lifetimes.abandoned = Duration::from_secs(minutes.saturating_mul(60));
            }
            "--challenges-per-connection" => {
                config.lobby.challenges_per_connection = number(&arg, args.next())?;
            }
            "--lobby-request-burst" => config.lobby.request_burst = number(&arg, args.next())?,
            "--lobby-requests-per-minute" => {
                config.lobby.requests_per_minute = number(&arg, args.next())?;
            }
            "--challenges-per-player" => {
                config.lobby.challenges_per_player = number(&arg, args.next())?;
            }
            "--challenges-per-address" => {
                config.lobby.challenges_per_address = number(&arg, args.next())?;
            }
            "--lobby-requests-per-address" => {
                config.lobby.requests_per_address_per_minute = number(&arg, args.next())?;
            }
            "--lookups-per-address" => {
                config.lobby.lookups_per_address_per_minute = number(&arg, args.next())?;
            }
            "--join-failures-per-minute" => {
                config.join_failures_per_minute = number(&arg, args.next())?;
            }
            "--ping-interval-secs" => {
                config.ping_interval = Duration::from_secs(number(&arg, args.next())?);
            }
            "--max-connections" => config.max_connections = Some(number(&arg, args.next())?),
            "--hello-timeout-secs" => {
                config.hello_timeout = Duration::from_secs(number(&arg, args.next())?);
            }
            "--idle-timeout-secs" => {
                config.idle_timeout = Duration::from_secs(number(&arg, args.next())?);
            }
            "--trusted-proxy" => {
                let v = args.next().ok_or("--trusted-proxy needs an IP address")?;
                let ip = v.parse().map_err(|e| format!("--trusted-proxy {v}: {e}"))?;
                config.trusted_proxies.push(ip);
            }
            "--listen" => {
                let v = args.next().ok_or("--listen needs an address")?;
                listen = v.parse().map_err(|e| format!("--listen {v}: {e}"))?;
            }
            "--admin" => {
                let v = args.next().ok_or("--admin needs an address")?;
                admin = Some(v.parse().map_err(|e| format!("--admin {v}: {e}"))?);
            }
            "--db" => db = Some(PathBuf::from(args.next().ok_or("--db needs a path")?)),
            "--memory" => db = None,
            "--postgres" => postgres = Some(args.next().ok_or("--postgres needs a URL")?),
            "--node-id" => node = Some(args.next().ok_or("--node-id needs an id")?),
            "--advertise" => advertise = Some(args.next().ok_or("--advertise needs a URL")?),
            "--lease-secs" => lease_secs = number(&arg, args.next())?,
            "--pg-pool" => pg_pool = number(&arg, args.next())?,
            "--redirect" => redirect = true,
            "--name" => config.server_name = args.next().ok_or("--name needs a name")?,
            "--tls-cert" => {
                tls_cert = Some(PathBuf::from(args.next().ok_or("--tls-cert needs a path")?))
            }
            "--tls-key" => {
                tls_key = Some(PathBuf::from(args.next().ok_or("--tls-key needs a path")?))
            }
            "-h" | "--help" => return Err(usage()),
            "-V" | "--version" => {
                return Err(format!("maharajah-server {}", maharajah_server::VERSION))
            }
            other => return Err(format!("unknown argument {other}\n{}", usage())),
        }
    }
    #[cfg(feature = "tls")]
    let config = Config {
        tls: match (tls_cert, tls_key) {
            (None, None) => None,
            (Some(cert), Some(key)) => Some(
                maharajah_server::tls::server_config(&cert, &key)
                    .map_err(|e| format!("maharajah-server: {e}"))?,
            ),
            _ => return Err("--tls-cert and --tls-key go together".into()),
        },
        ..config
    };
    #[cfg(not(feature = "tls"))]
    if tls_cert.is_some() || tls_key.is_some() {
        return Err("this maharajah-server was built without the `tls` feature".into());
    }
    let cluster = match (postgres, node) {
        (None, None) if advertise.is_none() && !redirect => None,
        (Some(url), Some(node)) => {
            if !(0.5..=3600.0).contains(&lease_secs) {
                return Err(format!("--lease-secs {lease_secs}: between 0.5 and 3600"));
            }
            let mut c = ClusterConfig::new(url, node);
            c.advertise = advertise;
            c.lease = Duration::from_secs_f64(lease_secs);
            c.pool = pg_pool.clamp(1, 64);
            c.redirect = redirect;
            Some(c)
        }
        _ => return Err("cluster mode needs --postgres URL and --node-id ID together".into()),
    };
    let db = if cluster.is_some() { None } else { db };
    Ok((listen, admin, Config { db, cluster, ..config }))
}

/// Whether the server will speak TLS.
fn tls_on(config: &Config) -> bool {
    #[cfg(feature = "tls")]
    return config.tls.is_some();
    #[cfg(not(feature = "tls"))]
    {
        let _ = config;
        false
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    // Logs (one line per connection event, never a token) go to stderr; stdout has the
    // listening line that scripts read.
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_target(false).init();
    let (listen, admin, config) = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    // Every connection is a descriptor: use all the system allows (the cap stays below it).
    match maharajah_server::raise_descriptor_limit() {
        Ok(n) => tracing::info!("open-files limit {n}"),
        Err(e) => tracing::warn!("cannot raise the open-files limit: {e}"),
    }
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        // Tests and scripts read this line to learn the port.
        Ok(addr) => println!(
            "maharajah-server {}{} listening on {addr}",
            maharajah_server::VERSION,
            if tls_on(&config) { " (wss://, TLS)" } else { "" }
        ),
        Err(e) => tracing::error!("{e}"),
    }
    let shutdown = async {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = tokio::signal::ctrl_c() => {}
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    };
    let admin = match admin {
        None => None,
        Some(addr) => match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => {
                match l.local_addr() {
                    Ok(a) => tracing::info!("admin endpoints on http://{a}/"),
                    Err(e) => tracing::error!("{e}"),
                }
                Some(l)
            }
            Err(e) => {
                tracing::error!("cannot listen on {addr} (--admin): {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    match run_with_admin(listener, admin, config, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
