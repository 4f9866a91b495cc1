#!/usr/bin/env bash
# Creates the virtual environment of the Python examples under
# ${LIVE_STT_CACHE:-$HOME/.cache/live-stt}/venv-examples from examples/requirements.txt.
# Idempotent: does nothing when the environment already holds these requirements.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${LIVE_STT_CACHE:-$HOME/.cache/live-stt}/venv-examples"
requirements="$here/requirements.txt"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
  else
    echo "examples/setup.sh: please install python3 and python3-venv (apt-get install python3 python3-venv)" >&2
    exit 1
  fi
fi

stamp="$venv/.requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
echo "$want" > "$stamp"
echo "examples: Python environment ready in $venv"
