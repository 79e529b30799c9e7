#!/usr/bin/env bash
# make cluster / make cluster-stop: runs `energyctl cluster run` in the background with its data
# under var/cluster (log var/cluster.log, pid var/cluster.pid) and waits until every node answers.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=var/cluster
pidfile=var/cluster.pid
log=var/cluster.log
mkdir -p var

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-start}" in
start)
  if running; then
    echo "cluster already running (pid $(cat "$pidfile")):"; cat "$dir/dsn"; exit 0
  fi
  command -v java >/dev/null 2>&1 && [ -f /usr/share/java/zookeeper.jar ] || {
    echo "ZooKeeper missing: apt-get install -y zookeeper" >&2; exit 1; }
  rm -f "$dir/dsn"
  # setsid: the cluster outlives this shell; its children die with energyctl (Pdeathsig).
  setsid bin/energyctl cluster run --dir "$dir" >"$log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for _ in $(seq 1 120); do
    if [ -f "$dir/dsn" ]; then cat "$log"; exit 0; fi
    if ! running; then echo "cluster failed to start:" >&2; cat "$log" >&2; rm -f "$pidfile"; exit 1; fi
    sleep 0.5
  done
  echo "cluster not up after 60 s, see $log" >&2; exit 1
  ;;
stop)
  if ! running; then echo "no cluster running"; rm -f "$pidfile"; exit 0; fi
  pid=$(cat "$pidfile")
  kill -TERM "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; echo "cluster stopped"; exit 0; }
    sleep 0.5
  done
  echo "cluster (pid $pid) still running after 30 s" >&2; exit 1
  ;;
*)
  echo "usage: $0 start|stop" >&2; exit 2
  ;;
esac
