/**
 * Streams a WAV file through a running service with the official SDK (`@gladiaio/sdk`) in 100 ms
 * chunks, the way a client does, and collects the final transcripts. Shared by the real-weight
 * tests and `bench/wer`.
 */
import { GladiaClient } from "@gladiaio/sdk";
import { readWavFile } from "../../workers/dsp/wav.ts";

export interface StreamedClip {
  /** Final utterances' texts joined by spaces. */
  text: string;
  finals: { text: string; language: string; start: number; end: number; words: { word: string; start: number; end: number }[] }[];
  /** Languages of the final utterances, in order. */
  languages: string[];
  /** Every message received (types only). */
  types: string[];
  /** Every message received with its arrival: seconds since the first chunk was sent. */
  received: { at: number; type: string; data?: any }[];
  /** Wall-clock seconds from the first chunk sent to the end of the session. */
  wallSeconds: number;
  audioSeconds: number;
}

export interface StreamOptions {
  apiUrl: string;
  key: string;
  model: string;
  wavPath: string;
  languages?: string[];
  chunkMs?: number;
  /** Extra members of the init body. */
  init?: Record<string, unknown>;
  timeoutMs?: number;
  /** Send the chunks at 1× real time (a live client) instead of all at once. */
  realtime?: boolean;
  /** Once `seconds` of audio are sent, send the rest only after `finals` final transcripts arrived. */
  holdAt?: { seconds: number; finals: number };
  /**
   * Send these bytes (8-bit G.711: one byte per sample, mono) instead of the WAV file's samples as
   * 16-bit PCM; `wavPath` is then not read.
   */
  g711?: { encoding: "wav/ulaw" | "wav/alaw"; sampleRate: number; bytes: Uint8Array };
}

/** 16-bit little-endian PCM bytes of float samples. */
function pcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return new Uint8Array(out.buffer);
}

export async function streamClip(opts: StreamOptions): Promise<StreamedClip> {
  const wav = opts.g711 ? { sampleRate: opts.g711.sampleRate, channels: 1, samples: { length: opts.g711.bytes.length } } : readWavFile(opts.wavPath);
  if (wav.channels !== 1) throw new Error(`${opts.wavPath}: expected mono audio`);
  const bytesPerSample = opts.g711 ? 1 : 2;
  const bytes = opts.g711 ? opts.g711.bytes : pcm16(wav.samples as Float32Array);
  const chunkBytes = Math.round((wav.sampleRate * (opts.chunkMs ?? 100)) / 1000) * bytesPerSample;
  const client = new GladiaClient({ apiUrl: opts.apiUrl, httpHeaders: { "x-service-key": opts.key } });
  const session = client.liveV2().startSession({
    model: opts.model,
    encoding: opts.g711?.encoding ?? "wav/pcm",
    sample_rate: wav.sampleRate,
    bit_depth: opts.g711 ? 8 : 16,
    channels: 1,
    ...(opts.languages ? { language_config: { languages: opts.languages } } : {}),
    messages_config: { receive_partial_transcripts: false, receive_final_transcripts: true },
    ...opts.init,
  } as never);
  const messages: { type: string; data?: any }[] = [];
  const arrivals: number[] = [];
  session.on("message", (m) => {
    messages.push(m as { type: string; data?: any });
    arrivals.push(performance.now());
  });
  const errors: unknown[] = [];
  session.on("error", (e) => errors.push(e));
  const connected = new Promise<void>((resolve) => session.once("connected", () => resolve()));
  const ended = new Promise<{ code: number; reason?: string }>((resolve) => session.on("ended", (e) => resolve(e as { code: number })));
  const timeout = opts.timeoutMs ?? 120_000;
  const first = await Promise.race([connected.then(() => "connected" as const), ended, Bun.sleep(timeout).then(() => "timeout" as const)]);
  if (first !== "connected") throw new Error(`session did not connect: ${JSON.stringify(first)} ${errors.map(String).join("; ")}`);
  const started = performance.now();
  const chunkMs = ((chunkBytes / bytesPerSample) * 1000) / wav.sampleRate;
  const isFinal = (m: { type: string; data?: any }) => m.type === "transcript" && m.data?.is_final === true;
  const holdAt = opts.holdAt ? Math.round((opts.holdAt.seconds * wav.sampleRate) / (chunkBytes / bytesPerSample)) : -1;
  for (let o = 0, i = 0; o < bytes.length; o += chunkBytes, i++) {
    if (opts.realtime) await Bun.sleep(Math.max(0, started + i * chunkMs - performance.now()));
    const deadline = performance.now() + timeout;
    while (i === holdAt && messages.filter(isFinal).length < opts.holdAt!.finals) {
      if (performance.now() > deadline) throw new Error(`no ${opts.holdAt!.finals} final(s) after ${opts.holdAt!.seconds} s of audio`);
      await Bun.sleep(20);
    }
    session.sendAudio(bytes.subarray(o, Math.min(bytes.length, o + chunkBytes)));
  }
  session.stopRecording();
  const end = await Promise.race([ended, Bun.sleep(timeout).then(() => ({ code: -1 }))]);
  if (end.code === -1) throw new Error(`session did not end within ${timeout} ms; got ${messages.map((m) => m.type).join(",")}`);
  const finals = messages
    .filter((m) => m.type === "transcript" && m.data?.is_final)
    .map((m) => m.data.utterance as StreamedClip["finals"][number]);
  return {
    text: finals.map((f) => f.text.trim()).filter((t) => t !== "").join(" "),
    finals,
    languages: finals.map((f) => f.language),
    types: messages.map((m) => m.type),
    received: messages.map((m, i) => ({ ...m, at: (arrivals[i]! - started) / 1000 })),
    wallSeconds: (performance.now() - started) / 1000,
    audioSeconds: wav.samples.length / wav.sampleRate,
  };
}

/** Reference transcripts of the shared clips (`transcripts.tsv`: file, reference, source). */
export async function referenceTexts(audioDir: string): Promise<Map<string, string>> {
  const text = await Bun.file(`${audioDir}/transcripts.tsv`).text();
  const out = new Map<string, string>();
  for (const line of text.split("\n").slice(1)) {
    const [file, reference] = line.split("\t");
    if (file && reference !== undefined && !reference.startsWith("(")) out.set(file, reference);
  }
  return out;
}
