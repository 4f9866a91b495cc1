"""WhisperLive's server (faster-whisper backend) on a local CTranslate2 model, for bench/latency.

Usage: python whisperlive_server.py PORT CT2_DIR
One shared model (single_model) for every client, as the service shares one engine.
"""
import sys

from whisper_live.server import TranscriptionServer

port = int(sys.argv[1])
model = sys.argv[2]
TranscriptionServer().run(
    "127.0.0.1",
    port=port,
    backend="faster_whisper",
    faster_whisper_custom_model_path=model,
    single_model=True,
    max_clients=32,
    max_connection_time=3600,
)
