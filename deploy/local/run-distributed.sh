#!/usr/bin/env bash
# The walking skeleton with every role as its own process: real Kafka (one SASL principal per
# role, broker ACLs from libs/contracts) and real Postgres (one schema per role). The roles are
# built once (`npm run build`, Nx-cached) and run from dist/services/<role> with plain node.
#   bash deploy/local/run-distributed.sh [ticket.json] [--keep]
set -euo pipefail
cd "$(dirname "$0")/../.."

TICKET="services/router/examples/tickets/latency-regression.json"
KEEP=0
for arg in "$@"; do
  case "$arg" in
    --keep) KEEP=1 ;;
    *) TICKET="$arg" ;;
  esac
done

RUN_DIR="deploy/local/.run"
mkdir -p "$RUN_DIR"
ROLES=(router evidence provider-executor judge reporter optimizer)
ROUTER_PORT="${AOC_ROUTER_PORT:-18080}"
REPORTER_PORT="${AOC_REPORTER_PORT:-18085}"
pids=()

stop_roles() {
  if [ "$KEEP" = 1 ]; then
    echo "roles left running (pids ${pids[*]}); logs in $RUN_DIR"
    return
  fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_roles EXIT

npm run --silent build >"$RUN_DIR/build.log" 2>&1 || { cat "$RUN_DIR/build.log" >&2; exit 1; }
echo "built ${ROLES[*]} into dist/services (log $RUN_DIR/build.log)"
eval "$(bash deploy/local/postgres-ensure.sh | grep '^DATABASE_URL=' | sed 's/^/export /')"
bash deploy/local/kafka-start.sh >/dev/null
# Every HTTP route needs a credential: an admin token for this script, valid one hour.
TOKEN="$(node -r ./tools/register.js tools/aoc.ts token create --role admin --tenant '*' --name run-distributed --expires-in 1h --database "$DATABASE_URL" | sed -n 's/^secret, shown once: //p')"
AUTH_HEADER="authorization: Bearer $TOKEN"
# shellcheck disable=SC1091
. deploy/local/.kafka/credentials.env

for role in "${ROLES[@]}"; do
  var="$(echo "$role" | tr 'a-z-' 'A-Z_')"
  user_var="AOC_KAFKA_USERNAME_${var}"
  pass_var="AOC_KAFKA_PASSWORD_${var}"
  port=""
  [ "$role" = router ] && port="$ROUTER_PORT"
  [ "$role" = reporter ] && port="$REPORTER_PORT"
  AOC_TRANSPORT=kafka \
  KAFKA_BROKERS="$AOC_KAFKA_BROKERS" \
  KAFKA_SASL_USERNAME="${!user_var}" \
  KAFKA_SASL_PASSWORD="${!pass_var}" \
  DATABASE_URL="$DATABASE_URL" \
  PORT="$port" \
  LOG_LEVEL="${LOG_LEVEL:-info}" \
  AOC_EVIDENCE_MODE="${AOC_EVIDENCE_MODE:-replay}" \
    node --enable-source-maps "dist/services/$role/main.js" >"$RUN_DIR/$role.log" 2>&1 &
  pids+=("$!")
  echo "started $role (pid $!, log $RUN_DIR/$role.log)"
done

wait_http() {
  local url="$1" deadline=$((SECONDS + 90))
  until curl -s -o /dev/null "$url"; do
    if [ $SECONDS -gt $deadline ]; then echo "timed out waiting for $url" >&2; tail -n 20 "$RUN_DIR"/*.log >&2; exit 1; fi
    sleep 0.5
  done
}
wait_http "http://127.0.0.1:$ROUTER_PORT/v1/tickets/analyze"
wait_http "http://127.0.0.1:$REPORTER_PORT/v1/runs"

body="$(node -e 'const t=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); delete t.description; process.stdout.write(JSON.stringify(t))' "$TICKET")"
accepted="$(curl -sf -X POST -H 'content-type: application/json' -H "$AUTH_HEADER" -d "$body" "http://127.0.0.1:$ROUTER_PORT/v1/tickets/analyze")"
run_id="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).runId)' "$accepted")"
trace_id="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).traceId)' "$accepted")"
echo "accepted run $run_id (trace $trace_id); waiting for the verdict"

deadline=$((SECONDS + 120))
summary=""
until [ -n "$summary" ]; do
  out="$(curl -s -H "$AUTH_HEADER" "http://127.0.0.1:$REPORTER_PORT/v1/runs/$run_id" || true)"
  if node -e 'const s=JSON.parse(process.argv[1]); process.exit(s.verdict && s.evidenceStatus ? 0 : 1)' "$out" 2>/dev/null; then summary="$out"; break; fi
  if [ $SECONDS -gt $deadline ]; then echo "no verdict for $run_id within 120 s" >&2; tail -n 20 "$RUN_DIR"/*.log >&2; exit 1; fi
  sleep 0.5
done

node -e '
const s = JSON.parse(process.argv[1]);
console.log(`ticket    ${s.ticketKey}\nrun       ${s.runId}\ntrace     ${process.argv[2]}\nevidence  ${s.evidenceStatus} (${s.failureCodes.join(", ") || "no failures"})\ndecision  ${s.decision}\nverdict   ${s.verdict}: ${s.verdictReason}\n\n--- customer reply ---\n${s.customerReplyMarkdown}\n\n--- internal handoff ---\n${s.internalHandoffMarkdown}`);
' "$summary" "$trace_id"
