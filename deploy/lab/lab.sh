#!/usr/bin/env bash
# Incident lab (docs/incident-lab.md): the lab's own Postgres 15 primary + streaming replica,
# MariaDB, the Debian exporters and one Prometheus, all on 127.0.0.1 on ports of their own and
# under LAB_DIR. Never touches the system Postgres (5432) or MariaDB (3306).
#
#   deploy/lab/lab.sh up                 # create (first time) and start everything
#   deploy/lab/lab.sh down               # stop everything the lab started (by pid file)
#   deploy/lab/lab.sh pg-start a|b       # start one Postgres member
#   deploy/lab/lab.sh pg-stop a|b [mode] # stop one Postgres member (fast|immediate)
#   deploy/lab/lab.sh pg-rebuild-replica # stop b, re-clone it from a with pg_basebackup, start it
#   deploy/lab/lab.sh my-start | my-stop # MariaDB
#
# Runs as root; the databases run as the unprivileged user aoclab (postgres refuses root).
set -euo pipefail

LAB_DIR="${LAB_DIR:-/tmp/aoc-lab}"
LAB_USER="${LAB_USER:-aoclab}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_A_PORT="${LAB_PG_A_PORT:-55432}"
PG_B_PORT="${LAB_PG_B_PORT:-55433}"
MY_PORT="${LAB_MY_PORT:-53306}"
MY_EXTRA_PORT="${LAB_MY_EXTRA_PORT:-53307}"
EXP_PG_A="${LAB_EXP_PG_A:-59187}"
EXP_PG_B="${LAB_EXP_PG_B:-59188}"
EXP_MY="${LAB_EXP_MY:-59104}"
EXP_NODE="${LAB_EXP_NODE:-59100}"
PROM_PORT="${LAB_PROM_PORT:-59090}"
# The lab's PG lane runs on CPU 0, its MariaDB lane on CPU 1 (see docs: per-cluster node CPU).
PG_CPU="${LAB_PG_CPU:-0}"
MY_CPU="${LAB_MY_CPU:-1}"

RUN="$LAB_DIR/run"
LOG="$LAB_DIR/log"
MNT="$LAB_DIR/mnt"

as_lab() { runuser -u "$LAB_USER" -- "$@"; }

ensure_user() {
  id "$LAB_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$LAB_USER"
}

# Size-limited filesystems for the storage faults: tmpfs with a size cap, owned by the lab user.
# A mount made afresh is empty, so databases whose tablespaces or tables live there (a lab
# brought down and up again) are discarded and created anew.
ensure_mounts() {
  local name size fresh=0
  for spec in pgtblspc:64m pgtemp:48m mytmp:48m mydata:48m; do
    name="${spec%%:*}"
    size="${spec##*:}"
    mkdir -p "$MNT/$name"
    if ! mountpoint -q "$MNT/$name"; then
      mount -t tmpfs -o "size=$size,mode=0700" tmpfs "$MNT/$name"
      fresh=1
    fi
    chown "$LAB_USER:" "$MNT/$name"
  done
  if [ "$fresh" = 1 ]; then rm -rf "$LAB_DIR/pg-a" "$LAB_DIR/pg-b" "$LAB_DIR/pg-b-tblspc" "$LAB_DIR/pg-b-temp" "$LAB_DIR/my"; fi
}

pg_conf() {
  local member="$1" port="$2"
  cat <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$RUN'
max_connections = 60
superuser_reserved_connections = 3
shared_buffers = 64MB
work_mem = 1MB
max_wal_size = 64MB
min_wal_size = 32MB
checkpoint_timeout = 5min
checkpoint_completion_target = 0.5
wal_level = replica
max_wal_senders = 5
hot_standby = on
hot_standby_feedback = off
max_standby_streaming_delay = 30s
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = top
track_io_timing = on
logging_collector = on
log_directory = '$LOG'
log_filename = 'pg-$member.log'
log_rotation_age = 0
log_rotation_size = 0
log_line_prefix = '%m [%p] %q%u@%d '
log_checkpoints = on
log_lock_waits = on
deadlock_timeout = 1s
log_temp_files = 0
log_min_duration_statement = 2000
log_autovacuum_min_duration = 1000
log_timezone = 'UTC'
timezone = 'UTC'
EOF
}

pg_start() {
  local member="$1" port
  [ "$member" = a ] && port="$PG_A_PORT" || port="$PG_B_PORT"
  if as_lab "$PG_BIN/pg_ctl" -D "$LAB_DIR/pg-$member" status >/dev/null 2>&1; then return 0; fi
  as_lab taskset -c "$PG_CPU" "$PG_BIN/pg_ctl" -D "$LAB_DIR/pg-$member" -l "$LOG/pg-$member.startup.log" -w -t 60 start >/dev/null
}

pg_stop() {
  local member="$1" mode="${2:-fast}"
  as_lab "$PG_BIN/pg_ctl" -D "$LAB_DIR/pg-$member" status >/dev/null 2>&1 || return 0
  as_lab "$PG_BIN/pg_ctl" -D "$LAB_DIR/pg-$member" -m "$mode" -w -t 60 stop >/dev/null
}

# Tablespaces and the lab database exist before the replica is cloned: b replays a CREATE
# TABLESPACE into the same path otherwise (one host), and its clone maps them to its own dirs.
pg_bootstrap() {
  local q=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_A_PORT" -U "$LAB_USER" -d postgres)
  as_lab "${q[@]}" -tAc "SELECT 1 FROM pg_tablespace WHERE spcname = 'lab_ts'" | grep -q 1 ||
    as_lab "${q[@]}" -c "CREATE TABLESPACE lab_ts LOCATION '$MNT/pgtblspc'"
  as_lab "${q[@]}" -tAc "SELECT 1 FROM pg_tablespace WHERE spcname = 'lab_temp'" | grep -q 1 ||
    as_lab "${q[@]}" -c "CREATE TABLESPACE lab_temp LOCATION '$MNT/pgtemp'"
  as_lab "${q[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'lab'" | grep -q 1 ||
    as_lab "${q[@]}" -c "CREATE DATABASE lab"
}

pg_clone_replica() {
  rm -rf "$LAB_DIR/pg-b" "$LAB_DIR/pg-b-tblspc" "$LAB_DIR/pg-b-temp"
  # A physical slot keeps a's WAL while b is paused or down (the lag faults).
  as_lab "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_A_PORT" -U "$LAB_USER" -d postgres \
    -c "SELECT pg_drop_replication_slot('lab_b') FROM pg_replication_slots WHERE slot_name = 'lab_b'" >/dev/null
  as_lab "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_A_PORT" -U "$LAB_USER" -D "$LAB_DIR/pg-b" -R -C -S lab_b -X stream -c fast \
    --tablespace-mapping="$MNT/pgtblspc=$LAB_DIR/pg-b-tblspc" --tablespace-mapping="$MNT/pgtemp=$LAB_DIR/pg-b-temp"
  # The clone carries a's postgresql.conf; b differs in port and log file only.
  pg_conf b "$PG_B_PORT" | as_lab tee "$LAB_DIR/pg-b/postgresql.conf" >/dev/null
  rm -f "$LAB_DIR/pg-b/postgresql.auto.conf.bak"
  as_lab sed -i '/^recovery_min_apply_delay/d;/^max_standby_streaming_delay/d' "$LAB_DIR/pg-b/postgresql.auto.conf"
}

pg_up() {
  if [ ! -d "$LAB_DIR/pg-a" ]; then
    as_lab "$PG_BIN/initdb" -D "$LAB_DIR/pg-a" -U "$LAB_USER" --auth=trust -E UTF8 --locale=C >/dev/null
    pg_conf a "$PG_A_PORT" | as_lab tee "$LAB_DIR/pg-a/postgresql.conf" >/dev/null
    echo "host replication $LAB_USER 127.0.0.1/32 trust" | as_lab tee -a "$LAB_DIR/pg-a/pg_hba.conf" >/dev/null
  fi
  pg_start a
  pg_bootstrap
  if [ ! -d "$LAB_DIR/pg-b" ]; then pg_clone_replica; fi
  pg_start b
}

my_start() {
  if [ -f "$RUN/mariadb.pid" ] && kill -0 "$(cat "$RUN/mariadb.pid")" 2>/dev/null; then return 0; fi
  taskset -c "$MY_CPU" mariadbd --defaults-file="$LAB_DIR/my.cnf" --user="$LAB_USER" >>"$LOG/mariadb.stdout.log" 2>&1 &
  for _ in $(seq 1 120); do
    mariadb --socket="$RUN/mariadb.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "mariadb did not start; see $LOG/mariadb-error.log" >&2
  return 1
}

my_stop() {
  [ -f "$RUN/mariadb.pid" ] || return 0
  local pid
  pid="$(cat "$RUN/mariadb.pid")"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
}

my_up() {
  cat >"$LAB_DIR/my.cnf" <<EOF
[mariadbd]
datadir = $LAB_DIR/my
port = $MY_PORT
bind-address = 127.0.0.1
socket = $RUN/mariadb.sock
pid-file = $RUN/mariadb.pid
log-error = $LOG/mariadb-error.log
log_warnings = 3
tmpdir = $MNT/mytmp
max_connections = 60
# Admin and monitoring connections: not refused when max_connections is reached.
extra_port = $MY_EXTRA_PORT
extra_max_connections = 8
performance_schema = ON
innodb_buffer_pool_size = 128M
innodb_log_file_size = 16M
innodb_lock_wait_timeout = 8
innodb_print_all_deadlocks = ON
log_bin = $LAB_DIR/my/binlog
max_binlog_size = 8M
binlog_expire_logs_seconds = 3600
tmp_table_size = 1M
max_heap_table_size = 1M
sort_buffer_size = 256K
slow_query_log = ON
slow_query_log_file = $LOG/mariadb-slow.log
long_query_time = 2
skip-name-resolve
EOF
  if [ ! -d "$LAB_DIR/my/mysql" ]; then
    mkdir -p "$LAB_DIR/my"
    chown "$LAB_USER:" "$LAB_DIR/my"
    mariadb-install-db --defaults-file="$LAB_DIR/my.cnf" --user="$LAB_USER" --auth-root-authentication-method=normal >"$LOG/mariadb-install.log" 2>&1
  fi
  my_start
  mariadb --socket="$RUN/mariadb.sock" -uroot <<'EOF'
CREATE USER IF NOT EXISTS 'lab'@'127.0.0.1' IDENTIFIED BY 'lab';
GRANT ALL ON *.* TO 'lab'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS 'exporter'@'127.0.0.1' IDENTIFIED BY 'exporter' WITH MAX_USER_CONNECTIONS 3;
GRANT PROCESS, REPLICATION CLIENT, SELECT, SLAVE MONITOR ON *.* TO 'exporter'@'127.0.0.1';
CREATE USER IF NOT EXISTS 'app'@'127.0.0.1' IDENTIFIED BY 'app';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, CREATE TEMPORARY TABLES ON shop.* TO 'app'@'127.0.0.1';
FLUSH PRIVILEGES;
EOF
}

# Starts a daemon in the background with its pid in $RUN/<name>.pid (no-op when it runs).
daemon() {
  local name="$1"
  shift
  if [ -f "$RUN/$name.pid" ] && kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null; then return 0; fi
  nohup "$@" >>"$LOG/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
}

exporters_up() {
  local queries
  queries="$(dirname "$(readlink -f "$0")")/postgres-exporter-queries.yaml"
  # The lab database: pg_stat_user_tables is per database.
  DATA_SOURCE_NAME="postgresql://$LAB_USER@127.0.0.1:$PG_A_PORT/lab?sslmode=disable" \
    daemon exporter-pg-a prometheus-postgres-exporter --web.listen-address="127.0.0.1:$EXP_PG_A" --extend.query-path="$queries"
  DATA_SOURCE_NAME="postgresql://$LAB_USER@127.0.0.1:$PG_B_PORT/lab?sslmode=disable" \
    daemon exporter-pg-b prometheus-postgres-exporter --web.listen-address="127.0.0.1:$EXP_PG_B" --extend.query-path="$queries"
  DATA_SOURCE_NAME="exporter:exporter@tcp(127.0.0.1:$MY_EXTRA_PORT)/" \
    daemon exporter-my prometheus-mysqld-exporter --web.listen-address="127.0.0.1:$EXP_MY" \
    --collect.info_schema.processlist --collect.info_schema.innodb_metrics --collect.perf_schema.tablelocks
  daemon exporter-node prometheus-node-exporter --web.listen-address="127.0.0.1:$EXP_NODE" \
    --collector.disable-defaults --collector.cpu --collector.meminfo --collector.loadavg --collector.filesystem \
    --collector.diskstats --collector.netdev --collector.vmstat --collector.pressure --collector.stat
}

prometheus_up() {
  mkdir -p "$LAB_DIR/prom"
  # The recorder rewrites this per case (cluster labels) and reloads; this is the idle config.
  [ -f "$LAB_DIR/prometheus.yml" ] || cat >"$LAB_DIR/prometheus.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 900ms}
scrape_configs: []
EOF
  daemon prometheus prometheus --config.file="$LAB_DIR/prometheus.yml" --storage.tsdb.path="$LAB_DIR/prom" \
    --storage.tsdb.retention.time=2d --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-lifecycle
  for _ in $(seq 1 60); do
    curl -fs "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "prometheus did not become ready; see $LOG/prometheus.log" >&2
  return 1
}

stop_daemon() {
  local name="$1" pid
  [ -f "$RUN/$name.pid" ] || return 0
  pid="$(cat "$RUN/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  rm -f "$RUN/$name.pid"
}

case "${1:-}" in
  up)
    ensure_user
    mkdir -p "$LAB_DIR" "$RUN" "$LOG"
    chown "$LAB_USER:" "$LAB_DIR" "$RUN" "$LOG"
    chmod 0755 "$LAB_DIR"
    ensure_mounts
    pg_up
    my_up
    exporters_up
    prometheus_up
    echo "lab up under $LAB_DIR (pg a:$PG_A_PORT b:$PG_B_PORT, mariadb:$MY_PORT, prometheus:$PROM_PORT)"
    ;;
  down)
    for d in prometheus exporter-pg-a exporter-pg-b exporter-my exporter-node; do stop_daemon "$d"; done
    pg_stop b fast || true
    pg_stop a fast || true
    my_stop || true
    for m in "$MNT"/*; do mountpoint -q "$m" && umount "$m"; done
    echo "lab down"
    ;;
  pg-start) pg_start "$2" ;;
  pg-stop) pg_stop "$2" "${3:-fast}" ;;
  pg-rebuild-replica)
    pg_stop b immediate || true
    pg_clone_replica
    pg_start b
    ;;
  my-start) my_start ;;
  my-stop) my_stop ;;
  *)
    echo "usage: $0 up|down|pg-start a|b|pg-stop a|b [mode]|pg-rebuild-replica|my-start|my-stop" >&2
    exit 2
    ;;
esac
