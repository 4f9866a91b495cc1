#!/usr/bin/env bash
# Prepares a fresh Debian machine: system packages, Bun, the project's npm dependencies, and the
# default models (Silero VAD, Whisper's tokenizer assets, Whisper base and Whisper tiny.en) in
# MODELS_DIR (default ./models). Models are converted once into ${LIVE_STT_CACHE:-~/.cache/live-stt}
# (Python is used there only, in its own virtual environment); a warm run takes seconds.
# Idempotent; safe to run before every start or test run. BOOTSTRAP_MODELS=0 skips the models.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v flac >/dev/null 2>&1 || need_apt+=(flac)
command -v sox >/dev/null 2>&1 || need_apt+=(sox)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# model conversion tooling: a python3 that can make virtual environments
if [ "${BOOTSTRAP_MODELS:-1}" != 0 ]; then
  if ! command -v "${PYTHON:-python3}" >/dev/null 2>&1; then
    need_apt+=(python3 python3-venv python3-pip)
  elif ! "${PYTHON:-python3}" -c "import venv, ensurepip" >/dev/null 2>&1; then
    need_apt+=(python3-venv python3-pip)
  fi
fi
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

if [ "${BOOTSTRAP_MODELS:-1}" != 0 ]; then
  # silero-vad: every session's voice activity detector; whisper-base: solaria-1 and solaria-3
  # (the default model); whisper-tiny.en: trantoria-1 and the real-weight tests
  bun run --silent models -- pull --quiet silero-vad whisper-assets whisper-base whisper-tiny.en
fi
