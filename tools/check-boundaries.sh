#!/usr/bin/env bash
# Proves the module-boundary rules bite: writes imports that break them into throw-away files
# and expects ESLint to reject each one with @nx/enforce-module-boundaries.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true

probes=(
  "services/evidence/src/zz-boundary-probe.ts|import { routerDefinition } from '@aoc/service-router';\nexport const probe = routerDefinition;"
  "services/judge/src/zz-boundary-probe.ts|import { RunEntity } from '../../router/src/persistence/run.entity';\nexport const probe = RunEntity;"
  "libs/contracts/src/zz-boundary-probe.ts|import { Bus } from '@aoc/bus';\nexport const probe = Bus;"
  "libs/bus/src/zz-boundary-probe.ts|import { judgeDefinition } from '@aoc/service-judge';\nexport const probe = judgeDefinition;"
)
files=()
cleanup() { rm -f "${files[@]}"; npx nx show projects >/dev/null 2>&1 || true; }
trap cleanup EXIT

for probe in "${probes[@]}"; do
  file="${probe%%|*}"
  files+=("$file")
  printf '%b\n' "${probe#*|}" > "$file"
done

npx nx show projects >/dev/null # refresh the project graph the rule reads
failed=0
for file in "${files[@]}"; do
  if out=$(npx eslint --no-warn-ignored --rule '@typescript-eslint/no-unused-vars: off' "$file" 2>&1); then
    echo "boundaries: NOT rejected: $file"
    failed=1
  elif grep -q "enforce-module-boundaries" <<<"$out"; then
    echo "boundaries: rejected as expected: $file"
  else
    echo "boundaries: rejected for another reason: $file"; echo "$out"
    failed=1
  fi
done
exit $failed
