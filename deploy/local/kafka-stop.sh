#!/usr/bin/env bash
# Stops the local broker started by kafka-start.sh (pid file in deploy/local/.kafka/) and waits
# for it to exit (SIGTERM = controlled shutdown; SIGKILL after AOC_KAFKA_STOP_TIMEOUT, default 60 s).
#
#   bash deploy/local/kafka-stop.sh [--wipe]
#
# --wipe also deletes the broker data (topics, offsets, ACLs, cluster id) and logs, so the next
# kafka-start.sh formats fresh storage. Cached jars (~/.cache/aoc) are kept.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="$SCRIPT_DIR/.kafka"
PID_FILE="$STATE/kafka.pid"
STOP_TIMEOUT="${AOC_KAFKA_STOP_TIMEOUT:-60}"

log() { printf 'kafka-stop: %s\n' "$*" >&2; }

WIPE=0
for a in "$@"; do
  case "$a" in
    --wipe) WIPE=1 ;;
    -h|--help) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) log "error: unknown argument $a"; exit 2 ;;
  esac
done

# Same lock as kafka-start.sh: never stop a broker halfway through its start.
if [ -d "$STATE" ]; then
  exec 9>"$STATE/.lock"
  flock -w 300 9 || { log "error: timed out waiting for kafka-start.sh"; exit 1; }
fi

broker_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid; pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # only a JVM started for this state dir (guards against a recycled pid)
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-Daoc.kafka.state=$STATE " || return 1
  printf '%s' "$pid"
}

if pid="$(broker_pid)"; then
  log "stopping broker (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
      break
    fi
    sleep 0.2
  done
  log "stopped"
else
  log "no broker running"
fi
rm -f "$PID_FILE"

if [ "$WIPE" = 1 ] && [ -d "$STATE" ]; then
  rm -rf "$STATE/data" "$STATE/logs" "$STATE/cluster.id"
  log "wiped $STATE/data and logs"
fi
