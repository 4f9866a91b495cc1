/**
 * A live session with nothing but fetch and WebSocket (no SDK): create the session, stream 16-bit
 * PCM, print each final transcript, stop, and wait for the service to close the socket.
 *
 *   bun examples/raw-websocket/client.ts path/to/audio.wav     # a 16-bit PCM WAV file
 *   … | bun examples/raw-websocket/client.ts -                  # raw s16le, 16 kHz mono on stdin
 *
 * Environment: LIVE_STT_URL (default http://localhost:8080), LIVE_STT_KEY (required),
 * LIVE_STT_MODEL (default solaria-1), LIVE_STT_LANGUAGE (default en).
 */
import { readFileSync } from "node:fs";

const base = process.env.LIVE_STT_URL ?? "http://localhost:8080";
const key = process.env.LIVE_STT_KEY;
const source = process.argv[2];
if (!key || !source) {
  console.error("usage: LIVE_STT_KEY=… bun examples/raw-websocket/client.ts <file.wav | ->");
  process.exit(2);
}

/** The format and samples of a PCM WAV file (RIFF chunks walked until `fmt ` and `data`). */
function readWav(bytes: Uint8Array): { sampleRate: number; channels: number; bitDepth: number; pcm: Uint8Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a WAV file");
  let format: { sampleRate: number; channels: number; bitDepth: number } | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === "fmt ") {
      if (view.getUint16(at + 8, true) !== 1) throw new Error("only PCM WAV files are read here (convert with ffmpeg)");
      format = { channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true), bitDepth: view.getUint16(at + 22, true) };
    } else if (tag(at) === "data" && format) {
      return { ...format, pcm: bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + size)) };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error("no audio data in the WAV file");
}

const audio =
  source === "-" ? { sampleRate: 16000, channels: 1, bitDepth: 16, pcm: null } : readWav(new Uint8Array(readFileSync(source)));

// 1. Create the session: the answer carries the WebSocket URL (with its token).
const created = await fetch(`${base}/v2/live`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-service-key": key },
  body: JSON.stringify({
    encoding: "wav/pcm",
    bit_depth: audio.bitDepth,
    sample_rate: audio.sampleRate,
    channels: audio.channels,
    model: process.env.LIVE_STT_MODEL ?? "solaria-1",
    language_config: { languages: [process.env.LIVE_STT_LANGUAGE ?? "en"] },
  }),
});
if (!created.ok) {
  console.error(`POST /v2/live: ${created.status} ${await created.text()}`);
  process.exit(1);
}
const { id, url } = (await created.json()) as { id: string; url: string };
console.error(`session ${id}`);

// 2. Stream: binary frames of raw audio, then {"type":"stop_recording"}.
const socket = new WebSocket(url);
const closed = new Promise<number>((resolve) => socket.addEventListener("close", (e) => resolve(e.code)));
socket.addEventListener("message", (event) => {
  const message = JSON.parse(String(event.data));
  if (message.type === "transcript" && message.data.is_final) {
    const u = message.data.utterance;
    console.log(`[${u.start.toFixed(2)}–${u.end.toFixed(2)}] ${u.text.trim()}`);
  } else if (message.type === "error") {
    console.error("error:", JSON.stringify(message));
  }
});
await new Promise((resolve, reject) => {
  socket.addEventListener("open", resolve);
  socket.addEventListener("error", () => reject(new Error("the WebSocket could not be opened")));
});

const frameBytes = (audio.sampleRate / 10) * audio.channels * (audio.bitDepth / 8); // 100 ms
if (audio.pcm) {
  for (let at = 0; at < audio.pcm.length; at += frameBytes) socket.send(audio.pcm.subarray(at, at + frameBytes));
} else {
  // stdin as it comes (e.g. ffmpeg -re paces it in real time)
  for await (const chunk of Bun.stdin.stream()) socket.send(chunk);
}
socket.send(JSON.stringify({ type: "stop_recording" }));

// 3. The service transcribes what is left, sends the final messages and closes with 1000.
const code = await closed;
process.exit(code === 1000 ? 0 : 1);
