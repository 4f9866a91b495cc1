"""Offline reference for bench/wer: faster-whisper on the original CTranslate2 weights.

Reads a JSON job on stdin: {"model": <CT2 dir>, "beam_size": int, "threads": int, "language": str|null,
"clips": [paths], "prompts": {path: initial prompt}}
(a path ending in .f32 holds raw 16 kHz float32 samples); writes one JSON object on stdout: {"version": ..., "clips": {path: {"text", "language",
"language_probability", "cpu_s", "audio_s", "segments": [{"start", "end", "text"}]}}}. CPU seconds are this process's (time.process_time) around
each transcription, features included; the model load and one warm-up run are not counted.
"""

import json
import sys
import time

import faster_whisper
import numpy as np
from faster_whisper import WhisperModel
from faster_whisper.audio import decode_audio


def load(path: str) -> np.ndarray:
    return np.fromfile(path, dtype=np.float32) if path.endswith(".f32") else decode_audio(path)


def main() -> None:
    job = json.load(sys.stdin)
    model = WhisperModel(job["model"], device="cpu", compute_type="float32", cpu_threads=job["threads"], num_workers=1)
    options = {"beam_size": job["beam_size"], "language": job.get("language"), "vad_filter": False}
    clips = job["clips"]
    if clips:
        list(model.transcribe(load(clips[0]), **options)[0])  # warm-up
    out = {}
    for path in clips:
        audio = load(path)
        prompt = job.get("prompts", {}).get(path)
        start = time.process_time()
        segments, info = model.transcribe(audio, **options, **({"initial_prompt": prompt} if prompt else {}))
        segments = list(segments)
        text = " ".join(s.text.strip() for s in segments).strip()
        cpu = time.process_time() - start
        out[path] = {
            "text": text,
            "language": info.language,
            "language_probability": info.language_probability,
            "cpu_s": cpu,
            "audio_s": len(audio) / 16000,
            "segments": [{"start": s.start, "end": s.end, "text": s.text.strip()} for s in segments],
        }
    json.dump({"version": faster_whisper.__version__, "clips": out}, sys.stdout)


if __name__ == "__main__":
    main()
