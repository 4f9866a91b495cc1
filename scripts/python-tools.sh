#!/usr/bin/env bash
# Prepares the Python tooling venv (schemathesis, openapi-python-client; versions pinned in
# scripts/python-tools.txt) under ${LIVE_STT_CACHE:-$HOME/.cache/live-stt}/venv-tools and prints its
# path. Installs Debian's python3 and python3-venv when missing (as root). Idempotent: a venv whose
# recorded requirements match is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=scripts/python-tools.txt
venv="${LIVE_STT_CACHE:-$HOME/.cache/live-stt}/venv-tools"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
  else
    echo "python-tools: please install python3 and python3-venv" >&2
    exit 1
  fi
fi

if ! cmp -s "$requirements" "$venv/.requirements" 2>/dev/null; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2
  log="$(mktemp)"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  cp "$requirements" "$venv/.requirements"
fi
echo "$venv"
