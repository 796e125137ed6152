#!/usr/bin/env bash
# Issue 19's cluster benchmark (figures in BENCHMARKS.md, "Cluster (issue 19)").
#   tools/cluster-bench.sh GAMES DURATION [kill|term|rolling]
# Starts a throw-away PostgreSQL (as the postgres user, loopback port 55432, fsync on), three
# maharajah-server nodes on 127.0.0.1:57001-57003 (admin 57101-57103) and maharajah-loadgen
# across them (--procs 2); with "kill", node n1 gets SIGKILL 15 s into the measuring window,
# with "term" SIGTERM (it drains: hands its rooms over and exits); with "rolling" every node in
# turn gets SIGTERM, is started again and must be ready (/readyz) before the next one (a rolling
# restart under load; give DURATION room for it, about 15 s a node).
# Env: BIN (release binaries, default $CARGO_TARGET_DIR/release), LEASE (s, default 5),
# POOL (--pg-pool, default 4), ADDRS (the loadgen's --addrs), REDIRECT=1 (the nodes send the
# load generator's players, which follow redirects, to the room's node instead of forwarding
# them). TOKIO_WORKER_THREADS, if set,
# sizes every node's and client's runtime (1 suits three nodes and the clients on two cores). Run as root on Debian with postgresql installed; loopback only.
set -euo pipefail
GAMES=$1; DURATION=$2; MODE=${3:-}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release}
PGBIN=$(pg_config --bindir)
D=$(mktemp -d /tmp/lgpg.XXXX); chown postgres:postgres "$D"
runuser -u postgres -- "$PGBIN/initdb" -D "$D/data" -U postgres --auth=trust -E UTF8 >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D/data" -l "$D/log" -w -o "-c listen_addresses=127.0.0.1 -p 55432 -k $D -c max_connections=200 -c shared_buffers=256MB" start >/dev/null
trap 'kill $(jobs -p) $(cat "$D"/pid* 2>/dev/null) 2>/dev/null || true; runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D/data" -m fast stop >/dev/null; rm -rf "$D"' EXIT
URL=postgres://postgres@127.0.0.1:55432/postgres
ulimit -n 20000
LEASE=${LEASE:-5}
FLAGS="--pg-pool ${POOL:-4} --max-connections-per-ip 100000 --messages-per-second 1000 --rooms-per-minute-per-ip 1000000 --waiting-rooms-per-ip 1000000 --lease-secs $LEASE"
if [ "${REDIRECT:-0}" = 1 ]; then FLAGS="$FLAGS --redirect"; fi
start_node() {
  $BIN/maharajah-server --listen 127.0.0.1:5700$1 --admin 127.0.0.1:5710$1 --postgres $URL --node-id n$1 $FLAGS 2>>"$D/n$1.log" >/dev/null &
  echo $! > "$D/pid$1"
}
pid() { cat "$D/pid$1"; }
for i in 1 2 3; do start_node $i; done
sleep 2
if [ "$MODE" = kill ] || [ "$MODE" = term ]; then
  SIG=$([ "$MODE" = kill ] && echo KILL || echo TERM)
  ( sleep 1; while ! grep -q "all games seated" "$D/lg.err" 2>/dev/null; do sleep 0.5; done; sleep 15; echo "SIG$SIG to n1 (pid $(pid 1)) at $(date -u +%T.%N)" >&2; kill -$SIG $(pid 1) ) &
elif [ "$MODE" = rolling ]; then
  ( sleep 1; while ! grep -q "all games seated" "$D/lg.err" 2>/dev/null; do sleep 0.5; done; sleep 10
    for i in 1 2 3; do
      P=$(pid $i); echo "rolling: SIGTERM to n$i (pid $P) at $(date -u +%T.%N)" >&2
      kill -TERM $P; while kill -0 $P 2>/dev/null; do sleep 0.1; done
      start_node $i
      until curl -sf http://127.0.0.1:5710$i/readyz >/dev/null; do sleep 0.1; done
      echo "rolling: n$i ready again at $(date -u +%T.%N)" >&2; sleep 5
    done ) &
fi
$BIN/maharajah-loadgen --games $GAMES --duration $DURATION --procs 2 --addrs ${ADDRS:-127.0.0.1:57001,127.0.0.1:57002,127.0.0.1:57003} --server-pid $(pid 2) 2> >(tee "$D/lg.err" >&2) || true
# CPU seconds of the whole run (seating included) by part: what the move path costs each.
cpu() { ps -o times= "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
echo "cpu seconds, whole run: nodes $(cpu -p $(pid 1),$(pid 2),$(pid 3)), postgres $(cpu -u postgres)"
for i in 1 2 3; do echo "--- n$i"; curl -s http://127.0.0.1:5710$i/metrics | grep -E "^maharajah_cluster_(owned|claims|proxied_connections_total|redirects|fenced|rooms_lost)|commit_seconds_(sum|count)" || true; grep -c ERROR "$D/n$i.log" || true; done
