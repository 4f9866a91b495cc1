#!/usr/bin/env bash
# Prepares a fresh Debian machine: system packages, Bun, the project's npm dependencies, and the
# default models (Silero VAD, Whisper's tokenizer assets, Whisper base and Whisper tiny.en, and the
# end-of-turn and speaker-embedding models of the audio add-ons) in
# MODELS_DIR (default ./models). Models are converted once into ${LIVE_STT_CACHE:-~/.cache/live-stt}
# (Python is used there only, in its own virtual environment); a warm run takes seconds.
# Idempotent; safe to run before every start or test run. BOOTSTRAP_MODELS=0 skips the models.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v flac >/dev/null 2>&1 || need_apt+=(flac)
command -v sox >/dev/null 2>&1 || need_apt+=(sox)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v espeak-ng >/dev/null 2>&1 || need_apt+=(espeak-ng) # synthesized speech in the add-on tests
# model conversion tooling: a python3 that can make virtual environments
if [ "${BOOTSTRAP_MODELS:-1}" != 0 ]; then
  if ! command -v "${PYTHON:-python3}" >/dev/null 2>&1; then
    need_apt+=(python3 python3-venv python3-pip)
  elif ! "${PYTHON:-python3}" -c "import venv, ensurepip" >/dev/null 2>&1; then
    need_apt+=(python3-venv python3-pip)
  fi
fi
# The page tests drive Debian's Chromium; the ffmpeg example decodes any file.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v ffmpeg >/dev/null 2>&1 || need_apt+=(ffmpeg)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bootstrap: please install: ${need_apt[*]} (apt-get install ${need_apt[*]})" >&2
  fi
fi

BUN_VERSION=1.4.5
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != "$BUN_VERSION" ]; then
  npm install -g --silent "bun@$BUN_VERSION" >/dev/null 2>&1
fi

bun install --frozen-lockfile >/dev/null

if [ "${BOOTSTRAP_MODELS:-1}" != 0 ]; then
  # silero-vad: every session's voice activity detector; whisper-base: solaria-1 and solaria-3
  # (the default model); whisper-tiny.en: trantoria-1 and the real-weight tests
  # smart-turn-v3, resemblyzer-speaker: the end_of_turn and diarization add-ons (9 + 6 MB)
  bun run --silent models -- pull --quiet silero-vad whisper-assets whisper-base whisper-tiny.en smart-turn-v3 resemblyzer-speaker
fi
