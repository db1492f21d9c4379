#!/usr/bin/env bash
# Proves the module-boundary rules bite: writes imports that break them into throw-away files
# and expects ESLint to reject each one with the rule named in the probe:
# - @nx/enforce-module-boundaries: the layering of contracts, libs, services and the launcher;
# - no-restricted-imports / no-restricted-syntax: production code importing a testing entry point
#   (@aoc/<lib>/testing) or a test/ or testing/ folder, statically or with import() (eslint.config.mjs).
# A probe whose rule is empty must be accepted: it proves the test-only exception still lets
# harnesses import testing entry points.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true

probes=(
  "services/evidence/src/zz-boundary-probe.ts|@nx/enforce-module-boundaries|import { routerDefinition } from '@aoc/service-router';\nexport const probe = routerDefinition;"
  "services/judge/src/zz-boundary-probe.ts|@nx/enforce-module-boundaries|import { RunEntity } from '../../router/src/persistence/run.entity';\nexport const probe = RunEntity;"
  "libs/contracts/src/zz-boundary-probe.ts|@nx/enforce-module-boundaries|import { Bus } from '@aoc/bus';\nexport const probe = Bus;"
  "libs/bus/src/zz-boundary-probe.ts|@nx/enforce-module-boundaries|import { judgeDefinition } from '@aoc/service-judge';\nexport const probe = judgeDefinition;"
  "services/evidence/src/zz-testing-probe.ts|no-restricted-imports|import { startFakeModel } from '@aoc/agent-runtime/testing';\nexport const probe = startFakeModel;"
  "libs/providers/src/zz-testing-probe.ts|no-restricted-imports|import { startPrometheus } from '../testing';\nexport const probe = startPrometheus;"
  "tools/launcher/src/zz-testing-probe.ts|no-restricted-syntax|export const probe = () => import('@aoc/ticket-source/testing');"
  "tools/launcher/test/zz-testing-probe.ts||import { startFakeJiraServer } from '@aoc/ticket-source/testing';\nexport const probe = startFakeJiraServer;"
)
files=()
cleanup() { rm -f "${files[@]}"; npx nx show projects >/dev/null 2>&1 || true; }
trap cleanup EXIT

declare -A expected
for probe in "${probes[@]}"; do
  file="${probe%%|*}"
  rest="${probe#*|}"
  files+=("$file")
  expected["$file"]="${rest%%|*}"
  printf '%b\n' "${rest#*|}" > "$file"
done

npx nx show projects >/dev/null # refresh the project graph the rule reads
failed=0
for file in "${files[@]}"; do
  rule="${expected[$file]}"
  if out=$(npx eslint --no-warn-ignored --rule '@typescript-eslint/no-unused-vars: off' "$file" 2>&1); then
    if [[ -z "$rule" ]]; then
      echo "boundaries: accepted as expected: $file"
    else
      echo "boundaries: NOT rejected: $file"
      failed=1
    fi
  elif [[ -n "$rule" ]] && grep -qF "$rule" <<<"$out"; then
    echo "boundaries: rejected as expected ($rule): $file"
  else
    echo "boundaries: rejected for another reason: $file"; echo "$out"
    failed=1
  fi
done
exit $failed
