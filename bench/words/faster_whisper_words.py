"""Reference word times for bench/words: faster-whisper with word_timestamps=True on the original CTranslate2 weights.

Reads a JSON job on stdin: {"model": <CT2 dir>, "beam_size": int, "threads": int, "language": str|null, "clips": [paths]}
(a path ending in .f32 holds raw 16 kHz float32 samples); writes one JSON object on stdout:
{"version": ..., "clips": {path: {"text", "words": [{"word", "start", "end", "probability"}]}}}.
"""

import json
import sys

import faster_whisper
import numpy as np
from faster_whisper import WhisperModel
from faster_whisper.audio import decode_audio


def load(path: str) -> np.ndarray:
    return np.fromfile(path, dtype=np.float32) if path.endswith(".f32") else decode_audio(path)


def main() -> None:
    job = json.load(sys.stdin)
    model = WhisperModel(job["model"], device="cpu", compute_type="float32", cpu_threads=job["threads"], num_workers=1)
    options = {"beam_size": job["beam_size"], "language": job.get("language"), "vad_filter": False, "word_timestamps": True}
    out = {}
    for path in job["clips"]:
        segments, _ = model.transcribe(load(path), **options)
        words = [w for s in segments for w in (s.words or [])]
        out[path] = {
            "text": " ".join(w.word.strip() for w in words),
            "words": [{"word": w.word.strip(), "start": w.start, "end": w.end, "probability": w.probability} for w in words],
        }
    json.dump({"version": faster_whisper.__version__, "clips": out}, sys.stdout)


if __name__ == "__main__":
    main()
