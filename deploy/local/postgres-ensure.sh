#!/usr/bin/env bash
# Makes sure the local PostgreSQL answers on 127.0.0.1:5432 (starting the Debian cluster if it is
# down) and that the integration database exists. Idempotent; prints the DATABASE_URL to use.
#
#   bash deploy/local/postgres-ensure.sh
#
# Env (optional): AOC_PG_HOST (127.0.0.1), AOC_PG_PORT (5432), AOC_PG_USER (postgres),
#                 AOC_PG_DATABASE (aoc_test), AOC_PG_START_TIMEOUT (seconds, 30).
# Assumes trust auth for AOC_PG_USER on 127.0.0.1 (as on the project's machines).
set -euo pipefail

HOST="${AOC_PG_HOST:-127.0.0.1}"
PORT="${AOC_PG_PORT:-5432}"
PGUSER_="${AOC_PG_USER:-postgres}"
DB="${AOC_PG_DATABASE:-aoc_test}"
TIMEOUT="${AOC_PG_START_TIMEOUT:-30}"

log() { printf 'postgres-ensure: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ "$DB" =~ ^[a-z_][a-z0-9_]*$ ]] || die "database name '$DB' must match [a-z_][a-z0-9_]*"
if ! command -v pg_isready >/dev/null || ! command -v psql >/dev/null; then
  die "PostgreSQL client tools not found (Debian: apt-get install -y postgresql)"
fi

ready() { pg_isready -q -h "$HOST" -p "$PORT" -U "$PGUSER_" -t 2; }

if ! ready; then
  command -v pg_ctlcluster >/dev/null || die "PostgreSQL is not answering on $HOST:$PORT and pg_ctlcluster is not available to start it"
  # newest installed major version (normally exactly one under /etc/postgresql)
  # shellcheck disable=SC2012 # directory names are version numbers
  PG_VERSION="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$PG_VERSION" ] || die "no cluster under /etc/postgresql (apt-get install -y postgresql)"
  log "PostgreSQL not answering on $HOST:$PORT; starting cluster $PG_VERSION/main"
  pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start ||
    log "pg_ctlcluster start returned non-zero (may already be starting); waiting"
  deadline=$((SECONDS + TIMEOUT))
  until ready; do
    [ "$SECONDS" -lt "$deadline" ] || die "PostgreSQL still not ready on $HOST:$PORT after ${TIMEOUT}s (see /var/log/postgresql/)"
    sleep 0.5
  done
  log "PostgreSQL is up"
fi

PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$PORT" -U "$PGUSER_" -d postgres -tA)
if [ "$("${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" = 1 ]; then
  log "database $DB exists"
else
  # a concurrent run may create it between the check and here: re-check on failure
  if "${PSQL[@]}" -c "CREATE DATABASE \"$DB\"" 2>/dev/null; then
    log "created database $DB"
  elif [ "$("${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" = 1 ]; then
    log "database $DB exists"
  else
    die "could not create database $DB"
  fi
fi

printf 'DATABASE_URL=postgres://%s@%s:%s/%s\n' "$PGUSER_" "$HOST" "$PORT" "$DB"
