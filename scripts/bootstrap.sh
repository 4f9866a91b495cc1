#!/usr/bin/env bash
# Prepares a fresh Debian machine: system packages, Bun, and the project's npm dependencies.
# Idempotent; safe to run before every start or test run.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v flac >/dev/null 2>&1 || need_apt+=(flac)
command -v sox >/dev/null 2>&1 || need_apt+=(sox)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v espeak-ng >/dev/null 2>&1 || need_apt+=(espeak-ng) # synthesized speech in the add-on tests
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bootstrap: please install: ${need_apt[*]} (apt-get install ${need_apt[*]})" >&2
  fi
fi

BUN_VERSION=1.3.14
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != "$BUN_VERSION" ]; then
  npm install -g --silent "bun@$BUN_VERSION" >/dev/null 2>&1
fi

bun install --frozen-lockfile >/dev/null
