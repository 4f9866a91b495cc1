"""A Pipecat pipeline whose Gladia STT service points at this service: audio frames from a WAV
file go through GladiaSTTService; a small processor prints each final transcription frame.

    LIVE_STT_KEY=... python examples/pipecat/pipeline.py path/to/audio.wav   # 16-bit PCM WAV, mono

Environment: LIVE_STT_URL (default http://localhost:8080), LIVE_STT_KEY (required),
LIVE_STT_MODEL (default solaria-1), LIVE_STT_LANGUAGE (default en).

GladiaSTTService takes the session endpoint as `url` and sends the key as `X-Gladia-Key`, which
the service accepts as an alias of `x-service-key`.
"""

import asyncio
import os
import sys
import time
import wave

from loguru import logger
from pipecat.frames.frames import (
    EndFrame,
    InputAudioRawFrame,
    ProposedUserStartedSpeakingFrame,
    ProposedUserStoppedSpeakingFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.task import PipelineParams
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.gladia.config import LanguageConfig
from pipecat.services.gladia.stt import GladiaSTTService
from pipecat.workers.runner import WorkerRunner

FRAME_S = 0.1


class PrintTranscripts(FrameProcessor):
    """Prints final transcriptions; counts the speech segments the service reported ended."""

    def __init__(self) -> None:
        super().__init__()
        self.finals: list[str] = []
        self.speaking = False
        self.segments = 0
        self.final_since_stop = False

    async def process_frame(self, frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame):
            self.finals.append(frame.text)
            self.final_since_stop = True
            print(frame.text.strip(), flush=True)
        elif isinstance(frame, ProposedUserStartedSpeakingFrame):
            self.speaking = True
        elif isinstance(frame, ProposedUserStoppedSpeakingFrame):
            self.speaking = False
            self.segments += 1
            self.final_since_stop = False
        await self.push_frame(frame, direction)

    def caught_up(self) -> bool:
        """Every speech segment the service closed has its final transcript. A segment longer than
        maximum_duration_without_endpointing (5 s in GladiaSTTService) has several finals: the
        last segment's final is the one that comes after it ended."""
        return not self.speaking and self.segments > 0 and len(self.finals) >= self.segments and self.final_since_stop


async def main(path: str, key: str) -> int:
    with wave.open(path, "rb") as wav:
        if wav.getnchannels() != 1 or wav.getsampwidth() != 2:
            print("the example reads 16-bit mono WAV files (convert with ffmpeg)", file=sys.stderr)
            return 2
        rate = wav.getframerate()
        pcm = wav.readframes(wav.getnframes())

    base = os.environ.get("LIVE_STT_URL", "http://localhost:8080").rstrip("/")
    stt = GladiaSTTService(
        api_key=key,
        url=f"{base}/v2/live",
        settings=GladiaSTTService.Settings(
            model=os.environ.get("LIVE_STT_MODEL", "solaria-1"),
            language_config=LanguageConfig(languages=[os.environ.get("LIVE_STT_LANGUAGE", "en")]),
            # The service's speech_start / speech_end become frames: the example uses them to know
            # when every spoken segment has been transcribed.
            enable_vad=True,
        ),
    )
    printer = PrintTranscripts()
    worker = PipelineWorker(Pipeline([stt, printer]), params=PipelineParams(audio_in_sample_rate=rate))
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run())

    # The audio as a microphone would deliver it: 100 ms frames in real time, then a second of silence.
    frame = int(rate * FRAME_S) * 2
    audio = pcm + bytes(rate * 2)
    for at in range(0, len(audio), frame):
        await worker.queue_frame(InputAudioRawFrame(audio=audio[at : at + frame], sample_rate=rate, num_channels=1))
        await asyncio.sleep(FRAME_S)

    # GladiaSTTService does not wait for trailing transcripts when the pipeline ends: wait until
    # every ended speech segment has its final (at most two minutes), then end the pipeline.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not printer.caught_up():
        await asyncio.sleep(0.2)
    await worker.queue_frame(EndFrame())
    await run
    return 0 if printer.finals else 1


if __name__ == "__main__":
    api_key = os.environ.get("LIVE_STT_KEY")
    if not api_key or len(sys.argv) != 2:
        print("usage: LIVE_STT_KEY=... python examples/pipecat/pipeline.py <file.wav>", file=sys.stderr)
        sys.exit(2)
    logger.remove()
    logger.add(sys.stderr, level=os.environ.get("PIPECAT_LOG_LEVEL", "WARNING"))
    sys.exit(asyncio.run(main(sys.argv[1], api_key)))
