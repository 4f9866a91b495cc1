#!/usr/bin/env bash
# Streams any audio or video file, or a microphone, through ffmpeg into a live session:
# ffmpeg decodes and converts to raw 16-bit PCM, 16 kHz mono, at the pace of real time (-re),
# and the raw WebSocket client sends it as it comes.
#
#   examples/ffmpeg/stream.sh talk.mp4
#   examples/ffmpeg/stream.sh --mic                 # default PulseAudio source (ALSA: MIC_INPUT="-f alsa -i default")
#
# Environment: as examples/raw-websocket (LIVE_STT_URL, LIVE_STT_KEY, LIVE_STT_MODEL, LIVE_STT_LANGUAGE).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -ne 1 ]; then echo "usage: $0 <audio or video file | --mic>" >&2; exit 2; fi
if [ "$1" = "--mic" ]; then
  # shellcheck disable=SC2206
  input=(${MIC_INPUT:--f pulse -i default})
else
  input=(-re -i "$1")
fi
ffmpeg -hide_banner -loglevel error -nostdin "${input[@]}" -vn -f s16le -acodec pcm_s16le -ac 1 -ar 16000 - \
  | bun "$here/../raw-websocket/client.ts" -
