#!/usr/bin/env bash
# A local 3-node cluster of the replicated key-value service (crates/cairn-kv): three
# cairn-kv-server processes on 127.0.0.1:21001-21003, data and logs under $CAIRN_KV_DIR
# (default /tmp/cairn-kv).
#
#   scripts/raft-cluster.sh start    # build (release), start the three nodes, initialize once
#   scripts/raft-cluster.sh status   # each node's pid and its view of the leader
#   scripts/raft-cluster.sh stop     # SIGTERM to each node, wait for it
#
# Then, for example:
#   target/release/cairn-kv --nodes 127.0.0.1:21001,127.0.0.1:21002,127.0.0.1:21003 put color blue
#   target/release/cairn-kv --nodes 127.0.0.1:21002 get color
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${CAIRN_KV_DIR:-/tmp/cairn-kv}
NODES=127.0.0.1:21001,127.0.0.1:21002,127.0.0.1:21003
BIN=target/release

port_of() { echo $((21000 + $1)); }

running() { [ -f "$DIR/$1.pid" ] && kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; }

start() {
  cargo build --release -p cairn-kv --bins
  mkdir -p "$DIR"
  for i in 1 2 3; do
    if running "$i"; then
      echo "node $i already running (pid $(cat "$DIR/$i.pid"))"
      continue
    fi
    nohup "$BIN/cairn-kv-server" --id "$i" --listen "127.0.0.1:$(port_of "$i")" \
      --dir "$DIR/$i" >>"$DIR/$i.log" 2>&1 &
    echo $! >"$DIR/$i.pid"
  done
  # Wait (at most 10 s) until every node answers.
  for i in 1 2 3; do
    for _ in $(seq 100); do
      if "$BIN/cairn-kv" --nodes "127.0.0.1:$(port_of "$i")" metrics >/dev/null 2>&1; then
        break
      fi
      sleep 0.1
    done
  done
  if ! metrics=$("$BIN/cairn-kv" --nodes 127.0.0.1:21001 metrics); then
    echo "node 1 does not answer; see $DIR/1.log" >&2
    exit 1
  fi
  if grep -q '"configs": \[\]' <<<"$metrics"; then
    "$BIN/cairn-kv" --nodes 127.0.0.1:21001 init \
      1=127.0.0.1:21001 2=127.0.0.1:21002 3=127.0.0.1:21003
    echo "initialized a new cluster"
  fi
  status
  echo "try: $BIN/cairn-kv --nodes $NODES put color blue"
}

status() {
  for i in 1 2 3; do
    if running "$i"; then
      leader=$("$BIN/cairn-kv" --nodes "127.0.0.1:$(port_of "$i")" metrics 2>/dev/null |
        grep '"current_leader"' | tr -dc '0-9' || true)
      echo "node $i: pid $(cat "$DIR/$i.pid"), 127.0.0.1:$(port_of "$i"), leader ${leader:-unknown}"
    else
      echo "node $i: not running"
    fi
  done
}

stop() {
  for i in 1 2 3; do
    if running "$i"; then
      pid=$(cat "$DIR/$i.pid")
      kill "$pid"
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      echo "node $i stopped"
    fi
    rm -f "$DIR/$i.pid"
  done
}

case "${1:-start}" in
  start) start ;;
  status) status ;;
  stop) stop ;;
  *) echo "usage: $0 [start|status|stop]" >&2; exit 2 ;;
esac
