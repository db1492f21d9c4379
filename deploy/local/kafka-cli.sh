#!/usr/bin/env bash
# Runs a Kafka CLI from the cached jars against the local broker, as the admin principal.
#
#   bash deploy/local/kafka-cli.sh topics --list
#   bash deploy/local/kafka-cli.sh acls --list --principal User:aoc-judge
#   bash deploy/local/kafka-cli.sh groups --list
#   bash deploy/local/kafka-cli.sh api-versions
#   bash deploy/local/kafka-cli.sh <fully.qualified.MainClass> [args...]   # nothing added
#
# topics/acls/groups/api-versions get --bootstrap-server and --command-config added.
# Needs a broker started by kafka-start.sh (for .kafka/client-admin.properties and the jars).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="$SCRIPT_DIR/.kafka"
KAFKA_VERSION="${AOC_KAFKA_VERSION:-$(sed -n 's/^KAFKA_VERSION_DEFAULT=\([^ ]*\).*/\1/p' "$SCRIPT_DIR/kafka-start.sh")}"
LIBS="${AOC_CACHE_DIR:-$HOME/.cache/aoc}/kafka-$KAFKA_VERSION/libs"
BOOTSTRAP="${AOC_KAFKA_BROKERS:-127.0.0.1:${AOC_KAFKA_PORT:-19092}}"

[ $# -ge 1 ] || { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
[ -d "$LIBS" ] || { echo "kafka-cli: no jars in $LIBS; run deploy/local/kafka-start.sh first" >&2; exit 1; }
[ -f "$STATE/client-admin.properties" ] || { echo "kafka-cli: $STATE/client-admin.properties missing; run kafka-start.sh first" >&2; exit 1; }

tool="$1"; shift
common=(--bootstrap-server "$BOOTSTRAP" --command-config "$STATE/client-admin.properties")
case "$tool" in
  topics) main=org.apache.kafka.tools.TopicCommand; args=("${common[@]}" "$@") ;;
  acls) main=org.apache.kafka.tools.AclCommand; args=("${common[@]}" "$@") ;;
  groups) main=org.apache.kafka.tools.consumer.group.ConsumerGroupCommand; args=("${common[@]}" "$@") ;;
  api-versions) main=org.apache.kafka.tools.BrokerApiVersionsCommand; args=("${common[@]}" "$@") ;;
  *.*) main="$tool"; args=("$@") ;;
  *) echo "kafka-cli: unknown tool '$tool'" >&2; exit 2 ;;
esac

LOG_CONF="$STATE/log4j2-cli.properties"
[ -f "$LOG_CONF" ] || cat >"$LOG_CONF" <<'LOG4J2'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
LOG4J2

exec java -Xmx256m "-Dlog4j2.configurationFile=$LOG_CONF" -cp "$LIBS/*" "$main" "${args[@]}"
