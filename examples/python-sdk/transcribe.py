"""A live session through the official Python SDK (gladiaio-sdk), pointed at this service:
only the base URL and the key header differ from the hosted cloud variant.

    LIVE_STT_KEY=... python examples/python-sdk/transcribe.py path/to/audio.wav   # 16-bit PCM WAV

Environment: LIVE_STT_URL (default http://localhost:8080), LIVE_STT_KEY (required),
LIVE_STT_MODEL (default solaria-1), LIVE_STT_LANGUAGE (default en).
"""

import asyncio
import os
import sys
import wave

from gladiaio_sdk import GladiaClient


async def main(path: str, key: str) -> int:
    with wave.open(path, "rb") as wav:
        sample_rate, channels, width = wav.getframerate(), wav.getnchannels(), wav.getsampwidth()
        pcm = wav.readframes(wav.getnframes())

    client = GladiaClient(
        api_url=os.environ.get("LIVE_STT_URL", "http://localhost:8080"),
        api_key=key,
        # The service reads the key from x-service-key.
        http_headers={"x-service-key": key},
    )
    session = client.live_v2_async().start_session(
        {
            "model": os.environ.get("LIVE_STT_MODEL", "solaria-1"),
            "encoding": "wav/pcm",
            "sample_rate": sample_rate,
            "bit_depth": width * 8,
            "channels": channels,
            "language_config": {"languages": [os.environ.get("LIVE_STT_LANGUAGE", "en")]},
        }
    )

    loop = asyncio.get_running_loop()
    connected = loop.create_future()
    ended = loop.create_future()
    failures: list[str] = []

    def on_message(message) -> None:
        if message.type == "transcript" and message.data.is_final:
            u = message.data.utterance
            print(f"[{u.start:.2f}–{u.end:.2f}] {u.text.strip()}", flush=True)

    def on_error(error: Exception) -> None:
        failures.append(str(error))
        print(f"session error: {error}", file=sys.stderr)

    def on_ended(info) -> None:
        # The SDK may call this from its own thread: hand the result to this loop.
        loop.call_soon_threadsafe(lambda: ended.done() or ended.set_result(info.code))

    session.once("connected", lambda _info: loop.call_soon_threadsafe(lambda: connected.done() or connected.set_result(True)))
    session.on("message", on_message)
    session.on("error", on_error)
    session.once("ended", on_ended)

    # Stream once connected (gladiaio-sdk 2.2.0 loses a stop_recording asked before the socket opens).
    await asyncio.wait_for(connected, timeout=30)
    frame = sample_rate // 10 * channels * width  # 100 ms
    for at in range(0, len(pcm), frame):
        session.send_audio(pcm[at : at + frame])
    session.stop_recording()

    code = await asyncio.wait_for(ended, timeout=120)
    return 0 if code == 1000 and not failures else 1


if __name__ == "__main__":
    api_key = os.environ.get("LIVE_STT_KEY")
    if not api_key or len(sys.argv) != 2:
        print("usage: LIVE_STT_KEY=... python examples/python-sdk/transcribe.py <file.wav>", file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1], api_key)))
