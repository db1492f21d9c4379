#!/usr/bin/env bash
# Makes sure a Node.js of the current LTS line (24, the one the images run) is installed from the
# npm registry's `node` package, which ships the binary, and prints its bin directory. CI puts it
# first on PATH for the suites that run on it; the machine's own Node (20.19+) stays the floor.
#
#   PATH="$(bash deploy/local/node-lts.sh):$PATH" npm test
#
# Env (optional):
#   AOC_NODE_LTS_VERSION   version to install (default below: the version the suites were checked on)
#   AOC_CACHE_DIR          install root (default ~/.cache/aoc); one folder per version
set -euo pipefail

VERSION="${AOC_NODE_LTS_VERSION:-24.21.0}"
ROOT="${AOC_CACHE_DIR:-$HOME/.cache/aoc}/node-$VERSION"
BIN="$ROOT/node_modules/node/bin"

if [ ! -x "$BIN/node" ] || [ "$("$BIN/node" --version 2>/dev/null)" != "v$VERSION" ]; then
  mkdir -p "$ROOT"
  # --prefix keeps it out of the workspace; the package's install script fetches the matching binary package.
  npm install --prefix "$ROOT" --no-audit --no-fund --no-save --loglevel=error "node@$VERSION" >&2
fi
got="$("$BIN/node" --version)"
[ "$got" = "v$VERSION" ] || { echo "node-lts: expected v$VERSION, got $got" >&2; exit 1; }
# npm itself comes with the machine's Node; scripts' `node` resolves to this one through PATH.
echo "$BIN"
