/**
 * A live session through the official TypeScript SDK (`@gladiaio/sdk`), pointed at this service:
 * only the base URL and the key header differ from the hosted cloud variant.
 *
 *   LIVE_STT_KEY=… bun examples/typescript-sdk/transcribe.ts path/to/audio.wav   # 16-bit PCM WAV
 *
 * Environment: LIVE_STT_URL (default http://localhost:8080), LIVE_STT_KEY (required),
 * LIVE_STT_MODEL (default solaria-1), LIVE_STT_LANGUAGE (default en).
 */
import { GladiaClient } from "@gladiaio/sdk";
import { readFileSync } from "node:fs";

const key = process.env.LIVE_STT_KEY;
const file = process.argv[2];
if (!key || !file) {
  console.error("usage: LIVE_STT_KEY=… bun examples/typescript-sdk/transcribe.ts <file.wav>");
  process.exit(2);
}

/** The format and samples of a PCM WAV file (RIFF chunks walked until `fmt ` and `data`). */
function readWav(bytes: Buffer): { sampleRate: number; channels: number; bitDepth: number; pcm: Buffer } {
  if (bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") throw new Error("not a WAV file");
  let format: { sampleRate: number; channels: number; bitDepth: number } | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = bytes.toString("ascii", at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === "fmt ") format = { channels: bytes.readUInt16LE(at + 10), sampleRate: bytes.readUInt32LE(at + 12), bitDepth: bytes.readUInt16LE(at + 22) };
    else if (id === "data" && format) return { ...format, pcm: bytes.subarray(at + 8, at + 8 + size) };
    at += 8 + size + (size % 2);
  }
  throw new Error("no audio data in the WAV file");
}

const audio = readWav(readFileSync(file));

const client = new GladiaClient({
  apiUrl: process.env.LIVE_STT_URL ?? "http://localhost:8080",
  // The service reads the key from `x-service-key`.
  httpHeaders: [["x-service-key", key]],
});

const session = client.liveV2().startSession({
  model: (process.env.LIVE_STT_MODEL ?? "solaria-1") as "solaria-1",
  encoding: "wav/pcm",
  sample_rate: audio.sampleRate as 16000,
  bit_depth: audio.bitDepth as 16,
  channels: audio.channels,
  language_config: { languages: [process.env.LIVE_STT_LANGUAGE ?? "en"] as ["en"] },
});

session.on("message", (message) => {
  if (message.type === "transcript" && message.data.is_final) {
    const u = message.data.utterance;
    console.log(`[${u.start.toFixed(2)}–${u.end.toFixed(2)}] ${u.text.trim()}`);
  }
});
session.on("error", (error) => {
  console.error("session error:", error);
  process.exitCode = 1;
});
const ended = new Promise<void>((resolve) => session.once("ended", () => resolve()));

const frameBytes = (audio.sampleRate / 10) * audio.channels * (audio.bitDepth / 8); // 100 ms
for (let at = 0; at < audio.pcm.length; at += frameBytes) session.sendAudio(audio.pcm.subarray(at, at + frameBytes));
session.stopRecording();
await ended;
