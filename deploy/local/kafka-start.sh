#!/usr/bin/env bash
# Starts (if needed) a single-node Apache Kafka 4.x KRaft broker+controller from Maven jars, with
# SASL/PLAIN, StandardAuthorizer and one principal per role, then provisions topics and ACLs
# from the role/topic matrix (deploy/local/provision-kafka.ts). Idempotent; fast when running.
#
#   bash deploy/local/kafka-start.sh [--no-provision] [matrix.json]
#
# Env (all optional):
#   AOC_KAFKA_VERSION            Kafka version (default below; jars cached per version)
#   AOC_CACHE_DIR                jar cache root (default ~/.cache/aoc)
#   AOC_KAFKA_PORT               SASL_PLAINTEXT client listener on 127.0.0.1 (default 19092)
#   AOC_KAFKA_CONTROLLER_PORT    KRaft controller listener on 127.0.0.1 (default 19093)
#   AOC_KAFKA_ADMIN_PASSWORD     password of aoc-admin (super user), default admin-local-secret
#   AOC_KAFKA_PASSWORD_<ROLE>    password of aoc-<role>, ROLE upper-cased with '-' -> '_',
#                                default <role>-local-secret
#   AOC_KAFKA_ACL_MATRIX         matrix path (default: deploy/kafka/acl-matrix.generated.json,
#                                else the sample, see provision-kafka.ts)
#   AOC_KAFKA_HEAP_OPTS          default "-Xms256m -Xmx512m"
#   AOC_KAFKA_JAVA_OPTS          extra JVM flags (e.g. -XX:TieredStopAtLevel=1 for a faster start)
#   AOC_KAFKA_START_TIMEOUT      seconds to wait for health (default 90)
#
# State (gitignored): deploy/local/.kafka/{server.properties,client-admin.properties,log4j2.properties,
#   credentials.env,cluster.id,kafka.pid,data/,logs/}.  Stop with deploy/local/kafka-stop.sh [--wipe].
set -euo pipefail

KAFKA_VERSION_DEFAULT=4.4.0   # keep in sync with <kafka.version> in deploy/local/kafka/pom.xml
ROLES=(router evidence provider-executor judge reporter optimizer)

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
KAFKA_VERSION="${AOC_KAFKA_VERSION:-$KAFKA_VERSION_DEFAULT}"
CACHE_DIR="${AOC_CACHE_DIR:-$HOME/.cache/aoc}/kafka-$KAFKA_VERSION"
LIBS="$CACHE_DIR/libs"
STATE="$SCRIPT_DIR/.kafka"
HOST=127.0.0.1
PORT="${AOC_KAFKA_PORT:-19092}"
CONTROLLER_PORT="${AOC_KAFKA_CONTROLLER_PORT:-19093}"
HEAP_OPTS="${AOC_KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
EXTRA_JAVA_OPTS="${AOC_KAFKA_JAVA_OPTS:-}"
START_TIMEOUT="${AOC_KAFKA_START_TIMEOUT:-90}"
PID_FILE="$STATE/kafka.pid"

log() { printf 'kafka-start: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

PROVISION=1
MATRIX="${AOC_KAFKA_ACL_MATRIX:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-provision) PROVISION=0 ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) MATRIX="$1" ;;
  esac
  shift
done

# ---------------------------------------------------------------- credentials
role_var() { printf 'AOC_KAFKA_PASSWORD_%s' "$(printf '%s' "$1" | tr 'a-z-' 'A-Z_')"; }
role_password() { local v; v="$(role_var "$1")"; printf '%s' "${!v:-$1-local-secret}"; }
ADMIN_USER=aoc-admin
ADMIN_PASSWORD="${AOC_KAFKA_ADMIN_PASSWORD:-admin-local-secret}"
check_password() {
  # The passwords go inside a JAAS double-quoted string in a .properties file.
  # shellcheck disable=SC1003 # '\' is a literal backslash pattern
  case "$2" in
    *'"'*|*'\'*|*$'\n'*|*$'\r'*|'') die "password for $1 must be non-empty and contain no '\"', '\\' or newline" ;;
  esac
}
check_password "$ADMIN_USER" "$ADMIN_PASSWORD"
for r in "${ROLES[@]}"; do check_password "aoc-$r" "$(role_password "$r")"; done

# ---------------------------------------------------------------- helpers
node_register() {
  if [ -f "$REPO_ROOT/tools/register.js" ]; then printf '%s' "./tools/register.js"; else printf '%s' "@swc-node/register"; fi
}
run_ts() { (cd "$REPO_ROOT" && exec node -r "$(node_register)" "$@" 9>&-); }

broker_pid() {
  # Prints the pid if the pid file names a live broker of THIS state dir.
  [ -f "$PID_FILE" ] || return 1
  local pid; pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-Daoc.kafka.state=$STATE " || return 1
  printf '%s' "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

export AOC_KAFKA_PORT="$PORT"
[ -n "${AOC_KAFKA_BROKERS:-}" ] || export AOC_KAFKA_BROKERS="$HOST:$PORT"
export AOC_KAFKA_ADMIN_PASSWORD="$ADMIN_PASSWORD"

mkdir -p "$STATE"
chmod 700 "$STATE"
# One start at a time (CI may call this from several places).
exec 9>"$STATE/.lock"
flock -w 300 9 || die "timed out waiting for another kafka-start.sh"

[ -d "$REPO_ROOT/node_modules/kafkajs" ] || die "node_modules/kafkajs missing: run npm ci at the repo root first"

# ---------------------------------------------------------------- config files (rendered every run)
jaas_users() {
  printf ' user_%s="%s"' "$ADMIN_USER" "$ADMIN_PASSWORD"
  local r
  for r in "${ROLES[@]}"; do printf ' user_aoc-%s="%s"' "$r" "$(role_password "$r")"; done
}

render_server_properties() {
  cat <<EOF
# generated by deploy/local/kafka-start.sh (Kafka $KAFKA_VERSION); edits are overwritten
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
listeners=BROKER://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT
advertised.listeners=BROKER://$HOST:$PORT
listener.security.protocol.map=BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
inter.broker.listener.name=BROKER
controller.listener.names=CONTROLLER
sasl.enabled.mechanisms=PLAIN
sasl.mechanism.inter.broker.protocol=PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.broker.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD"$(jaas_users);
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD" user_$ADMIN_USER="$ADMIN_PASSWORD";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:$ADMIN_USER
allow.everyone.if.no.acl.found=false
auto.create.topics.enable=false
log.dirs=$STATE/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
group.consumer.min.session.timeout.ms=1000
group.consumer.session.timeout.ms=10000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
log.segment.bytes=16777216
log.retention.check.interval.ms=300000
EOF
}

render_client_properties() {
  cat <<EOF
# admin client config for the Kafka CLIs (deploy/local/kafka-cli.sh)
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ADMIN_USER" password="$ADMIN_PASSWORD";
EOF
}

render_log4j2() {
  cat <<EOF
# generated by deploy/local/kafka-start.sh
status = warn
name = aoc-kafka
appender.server.type = RollingFile
appender.server.name = SERVER
appender.server.fileName = $STATE/logs/server.log
appender.server.filePattern = $STATE/logs/server.log.%i
appender.server.layout.type = PatternLayout
appender.server.layout.pattern = [%d] %p %m (%c)%n
appender.server.policies.type = Policies
appender.server.policies.size.type = SizeBasedTriggeringPolicy
appender.server.policies.size.size = 20MB
appender.server.strategy.type = DefaultRolloverStrategy
appender.server.strategy.max = 3
appender.authz.type = RollingFile
appender.authz.name = AUTHZ
appender.authz.fileName = $STATE/logs/authorizer.log
appender.authz.filePattern = $STATE/logs/authorizer.log.%i
appender.authz.layout.type = PatternLayout
appender.authz.layout.pattern = [%d] %p %m%n
appender.authz.policies.type = Policies
appender.authz.policies.size.type = SizeBasedTriggeringPolicy
appender.authz.policies.size.size = 20MB
appender.authz.strategy.type = DefaultRolloverStrategy
appender.authz.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.server.ref = SERVER
# every denied request (our ACL tests cause many) goes to authorizer.log, not server.log
logger.authz.name = kafka.authorizer.logger
logger.authz.level = INFO
logger.authz.additivity = false
logger.authz.appenderRef.authz.ref = AUTHZ
logger.request.name = kafka.request.logger
logger.request.level = WARN
# per-record / per-partition chatter (thousands of lines per start): warnings only
logger.controller.name = org.apache.kafka.controller
logger.controller.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
logger.loader.name = org.apache.kafka.image.loader
logger.loader.level = WARN
logger.storage.name = org.apache.kafka.storage.internals
logger.storage.level = WARN
logger.kafkalog.name = kafka.log
logger.kafkalog.level = WARN
logger.cluster.name = kafka.cluster
logger.cluster.level = WARN
logger.replica.name = kafka.server.ReplicaFetcherManager
logger.replica.level = WARN
logger.coordinator.name = org.apache.kafka.coordinator
logger.coordinator.level = WARN
logger.groupcoord.name = kafka.coordinator
logger.groupcoord.level = WARN
logger.acl.name = org.apache.kafka.metadata.publisher.AclPublisher
logger.acl.level = WARN
EOF
}

render_credentials() {
  local r
  printf '# generated by deploy/local/kafka-start.sh; usage: . deploy/local/.kafka/credentials.env\n'
  printf 'export AOC_KAFKA_BROKERS=%q\n' "$AOC_KAFKA_BROKERS"
  printf 'export KAFKA_BROKERS=%q\n' "$AOC_KAFKA_BROKERS"
  printf 'export AOC_KAFKA_PORT=%q\n' "$PORT"
  printf 'export AOC_KAFKA_SASL_MECHANISM=plain\n'
  printf 'export AOC_KAFKA_ADMIN_USERNAME=%q\n' "$ADMIN_USER"
  printf 'export AOC_KAFKA_ADMIN_PASSWORD=%q\n' "$ADMIN_PASSWORD"
  for r in "${ROLES[@]}"; do
    local up; up="$(printf '%s' "$r" | tr 'a-z-' 'A-Z_')"
    printf 'export AOC_KAFKA_USERNAME_%s=%q\n' "$up" "aoc-$r"
    printf 'export AOC_KAFKA_PASSWORD_%s=%q\n' "$up" "$(role_password "$r")"
  done
}

write_if_changed() { # file, content on stdin; returns 0 if changed
  local tmp; tmp="$(mktemp "$1.XXXXXX")"
  cat >"$tmp"
  chmod 600 "$tmp"
  if [ -f "$1" ] && cmp -s "$tmp" "$1"; then rm -f "$tmp"; return 1; fi
  mv -f "$tmp" "$1"
  return 0
}

provision() {
  [ "$PROVISION" = 1 ] || { log "skipping provisioning (--no-provision)"; return 0; }
  if [ -n "$MATRIX" ]; then run_ts deploy/local/provision-kafka.ts "$MATRIX"; else run_ts deploy/local/provision-kafka.ts; fi
}

# ---------------------------------------------------------------- already running?
if pid="$(broker_pid)"; then
  if ! render_server_properties | cmp -s - "$STATE/server.properties"; then
    log "warning: broker (pid $pid) runs with a different config than the current env; restart with kafka-stop.sh first to apply it"
  fi
  log "broker already running (pid $pid) on $HOST:$PORT"
  run_ts deploy/local/kafka-wait-ready.ts --timeout "$START_TIMEOUT" --pid "$pid" || die "broker pid $pid is running but not healthy; see $STATE/logs/server.log"
  provision
  exit 0
fi
rm -f "$PID_FILE"

for p in "$PORT" "$CONTROLLER_PORT"; do
  port_open "$p" && die "port $HOST:$p is already in use by another process (not a broker of $STATE)"
done

command -v java >/dev/null || die "java (17+) not found"
JAVA_MAJOR="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
[ "${JAVA_MAJOR:-0}" -ge 17 ] || die "Kafka 4 needs Java 17+, found ${JAVA_MAJOR:-unknown}"

# ---------------------------------------------------------------- jars (cached per version)
if [ ! -f "$CACHE_DIR/.complete" ] || [ ! -f "$LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]; then
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch Kafka $KAFKA_VERSION jars into $LIBS)"
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS"
  mkdir -p "$CACHE_DIR"
  tmp_libs="$(mktemp -d "$CACHE_DIR/libs.tmp.XXXXXX")"
  if ! mvn -q -B -f "$SCRIPT_DIR/kafka/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp_libs" >&2 9>&-; then
    rm -rf "$tmp_libs"
    die "mvn dependency:copy-dependencies failed for Kafka $KAFKA_VERSION"
  fi
  [ -f "$tmp_libs/kafka_2.13-$KAFKA_VERSION.jar" ] || { rm -rf "$tmp_libs"; die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn"; }
  rm -rf "$LIBS"
  mv "$tmp_libs" "$LIBS"
  touch "$CACHE_DIR/.complete"
fi

# ---------------------------------------------------------------- state + config
mkdir -p "$STATE/data" "$STATE/logs"
render_server_properties | write_if_changed "$STATE/server.properties" || true
render_client_properties | write_if_changed "$STATE/client-admin.properties" || true
render_log4j2 | write_if_changed "$STATE/log4j2.properties" || true
render_credentials | write_if_changed "$STATE/credentials.env" || true

# shellcheck disable=SC2206 # word splitting of the *_OPTS strings is intended
JAVA_BASE=(java $HEAP_OPTS $EXTRA_JAVA_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$STATE/log4j2.properties" "-Dkafka.logs.dir=$STATE/logs"
  -cp "$LIBS/*")

if [ ! -f "$STATE/data/meta.properties" ]; then
  # Kafka cluster ids are 16 random bytes, URL-safe base64 without padding, never starting with
  # '-' (like `kafka-storage random-uuid`; a leading '-' would be parsed as an option).
  CLUSTER_ID="$(cat "$STATE/cluster.id" 2>/dev/null || true)"
  until [[ "$CLUSTER_ID" =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{21}$ ]]; do
    CLUSTER_ID="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
  done
  printf '%s\n' "$CLUSTER_ID" >"$STATE/cluster.id"
  log "formatting KRaft storage in $STATE/data (cluster id $CLUSTER_ID)"
  "${JAVA_BASE[@]}" -Xmx256m kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$STATE/server.properties" \
    >"$STATE/logs/format.log" 2>&1 9>&- || { cat "$STATE/logs/format.log" >&2; die "storage format failed"; }
fi

# ---------------------------------------------------------------- start
log "starting Kafka $KAFKA_VERSION (KRaft, SASL/PLAIN) on $HOST:$PORT, controller $HOST:$CONTROLLER_PORT"
{
  printf '\n===== %s starting Kafka %s =====\n' "$(date -Is)" "$KAFKA_VERSION"
} >>"$STATE/logs/kafka.out"
# bash -c writes its own pid, then execs java: the pid file names the JVM itself.
# setsid: the broker does not get the caller's Ctrl-C / job-control signals.
# shellcheck disable=SC2016 # $$ / $0 / $@ are for the inner bash
setsid nohup bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
  "${JAVA_BASE[@]}" "-Daoc.kafka.state=$STATE" kafka.Kafka "$STATE/server.properties" \
  >>"$STATE/logs/kafka.out" 2>&1 </dev/null 9>&- &
for _ in $(seq 1 50); do [ -s "$PID_FILE" ] && break; sleep 0.1; done
pid="$(cat "$PID_FILE" 2>/dev/null || true)"
[[ "$pid" =~ ^[0-9]+$ ]] || die "broker did not start (no pid); see $STATE/logs/kafka.out"

if ! run_ts deploy/local/kafka-wait-ready.ts --timeout "$START_TIMEOUT" --pid "$pid"; then
  log "broker not healthy after ${START_TIMEOUT}s; last log lines:"
  tail -n 40 "$STATE/logs/kafka.out" >&2 || true
  tail -n 60 "$STATE/logs/server.log" >&2 || true
  if kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  rm -f "$PID_FILE"
  exit 1
fi
log "broker healthy (pid $pid); credentials in $STATE/credentials.env"
provision
