/** Shared pieces of the real-time pipeline tests: audio streams, session creation, a raw WebSocket client. */
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { serverMessageValidators } from "../../generated/validators.ts";
import { ManualClock } from "../../server/clock.ts";
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import { englishModelsDir } from "../helpers/models.ts";
import { sharedAudio, startTestService, type TestService } from "../helpers/server.ts";
import { flushQueue } from "../helpers/tcp.ts";
import { words } from "../helpers/text.ts";

export { words };

let coordinator: Promise<InProcessCoordinator> | null = null;

/**
 * The real in-process coordinator, shared by the services of one test file and left running until
 * the process exits: terminating its onnxruntime worker threads while the main thread also holds
 * an onnxruntime session (the VAD) aborts the process, so the services' `stop()` must not close it.
 */
function processCoordinator(): InferenceCoordinator {
  coordinator ??= InProcessCoordinator.create({ modelsDir: englishModelsDir(), threads: 1, queueLimit: 200 });
  return {
    capabilities: async () => (await coordinator!).capabilities(),
    transcribe: async (job, signal) => (await coordinator!).transcribe(job, signal),
    close: async () => {},
  };
}

/** A real service (port 0, temporary DATA_DIR unless given, manual clock) sharing this process's coordinator. */
export function startPipelineService(opts: { dataDir?: string; clock?: ManualClock; env?: Record<string, string> } = {}): Promise<TestService> {
  return startTestService({ ...opts, coordinator: processCoordinator() });
}

export const RATE = 16000;

/** Float samples → 16-bit little-endian PCM bytes. */
export function toPcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return new Uint8Array(out.buffer);
}

/**
 * Short clips of single spoken words that whisper-tiny.en (trantoria-1) hears as that word:
 * `a`, `b` ("A.", "B.") and `zero`. (The spelling clip `c` comes back as "See.", so it is not here.)
 * Compare with `words()` / `finalTexts()`, which drop case and punctuation.
 */
export type Word = "a" | "b" | "zero";

/** The word clips, in order, each followed by `silenceS` of digital silence, as 16 kHz mono floats. */
export function spellingSamples(names: Word[], silenceS = 1, leadS = 0.5): Float32Array {
  return speechSamples(names.map((n) => `spelling/${n}.wav`), silenceS, leadS);
}

/** Clips of `../shared/audio` (16 kHz mono), in order, each followed by `silenceS` of silence. */
export function speechSamples(files: string[], silenceS = 1, leadS = 0.5): Float32Array {
  const parts: Float32Array[] = [new Float32Array(Math.round(leadS * RATE))];
  for (const f of files) {
    parts.push(readWavFile(path.join(sharedAudio, f)).samples);
    parts.push(new Float32Array(Math.round(silenceS * RATE)));
  }
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Float32Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Interleaves per-channel 16-bit PCM streams (shorter ones padded with silence). */
export function interleave16(channels: Uint8Array[]): Uint8Array {
  const views = channels.map((c) => new Int16Array(c.buffer, c.byteOffset, c.byteLength / 2));
  const frames = Math.max(...views.map((v) => v.length));
  const out = new Int16Array(frames * channels.length);
  for (let f = 0; f < frames; f++) for (let c = 0; c < views.length; c++) out[f * views.length + c] = views[c]![f] ?? 0;
  return new Uint8Array(out.buffer);
}

/** Splits bytes into frames of `size`. */
export function chunks(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; o += size) out.push(bytes.subarray(o, Math.min(bytes.length, o + size)));
  return out;
}

/** POST /v2/live; returns the init response. */
export async function createSession(svc: TestService, body: Record<string, unknown>, key = svc.key): Promise<{ id: string; url: string; created_at: string }> {
  const res = await fetch(`${svc.running.url}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": key },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /v2/live answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; url: string; created_at: string };
}

export type Msg = { type: string; [k: string]: any };

/** A raw WebSocket client recording every message and the close. */
export class RawClient {
  readonly messages: Msg[] = [];
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private waiters: Array<() => void> = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener("open", () => resolve(), { once: true });
      this.ws.addEventListener("error", () => resolve(), { once: true });
    });
    this.ws.addEventListener("message", (e) => {
      this.messages.push(JSON.parse(String(e.data)) as Msg);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => {
      this.ws.addEventListener("close", (e) => {
        resolve({ code: e.code, reason: e.reason });
        for (const w of this.waiters.splice(0)) w();
      });
    });
  }

  /** Sends `frames` paced at `frameMs` each (a live client at 1× real time). */
  async sendRealTime(frames: Uint8Array[], frameMs = 100): Promise<void> {
    let next = performance.now();
    for (const frame of frames) {
      this.send(frame);
      next += frameMs;
      const due = next - performance.now();
      if (due > 0) await Bun.sleep(due);
    }
  }

  send(data: Uint8Array | string): void {
    this.ws.send(data);
  }

  stop(): void {
    this.ws.send(JSON.stringify({ type: "stop_recording" }));
  }

  /** Resolves once a message matching `pred` has arrived (or rejects after `timeoutMs`). */
  async waitFor(pred: (m: Msg) => boolean, timeoutMs = 45_000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed before the awaited message; got ${this.types().join(",")}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; got ${this.types().join(",")}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  types(): string[] {
    return this.messages.map((m) => m.type);
  }

  finals(): Msg[] {
    return this.messages.filter((m) => m.type === "transcript" && m.data.is_final);
  }
}

/** Validates a server message against the generated validator of its type; returns the errors. */
export function contractErrors(m: Msg): string[] {
  const type = String(m.type);
  const v = serverMessageValidators[type];
  if (!v) return [`no validator for ${type}`];
  if (v(m as unknown)) return [];
  return (v.errors ?? []).map((e) => `${type}${e.instancePath} ${e.message}`);
}


/** The final transcripts' texts, in order, through `words()`. */
export const finalTexts = (ms: Msg[]) => ms.filter((m) => m.type === "transcript" && m.data.is_final).map((m) => words(m.data.utterance.text as string));

/** A TCP relay in front of the service whose connections can be cut abruptly (no close frame). */
export function tcpRelay(targetPort: () => number) {
  type Side = { peer: Bun.Socket<Side> | null; queue: Uint8Array[] };
  const open = new Set<Bun.Socket<Side>>();
  const flush = (s: Bun.Socket<Side>) => flushQueue(s);
  const forward = (to: Bun.Socket<Side> | null, bytes: Uint8Array, pending: Uint8Array[]) => {
    if (!to) return void pending.push(bytes.slice());
    to.data.queue.push(bytes.slice());
    flush(to);
  };
  const listener = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { peer: null, queue: [] };
        open.add(client);
        const early: Uint8Array[] = [];
        (client.data as Side & { early?: Uint8Array[] }).early = early;
        void Bun.connect<Side>({
          hostname: "127.0.0.1",
          port: targetPort(),
          socket: {
            open(up) {
              up.data = { peer: client, queue: [] };
              open.add(up);
              client.data.peer = up;
              for (const b of early.splice(0)) forward(up, b, early);
            },
            data: (up, d) => forward(up.data.peer, d, []),
            drain: flush,
            close(up) {
              open.delete(up);
              up.data.peer?.end();
            },
            error() {},
          },
        });
      },
      data: (client, d) => forward(client.data.peer, d, (client.data as Side & { early: Uint8Array[] }).early),
      drain: flush,
      close(client) {
        open.delete(client);
        client.data.peer?.end();
      },
      error() {},
    },
  });
  return {
    port: listener.port,
    /** Drops every relayed connection at once, without a WebSocket close handshake. */
    cut() {
      for (const s of [...open]) s.terminate();
      open.clear();
    },
    stop() {
      this.cut();
      listener.stop(true);
    },
  };
}

/**
 * A raw client that resumes like the official SDK: it keeps every byte after the end of the last
 * acknowledgment it received, and resends it all on each (re)connection to the same URL.
 */
export class ResumingClient {
  readonly messages: Msg[] = [];
  private buffer = new Uint8Array(0);
  private bytesSent = 0;
  ws: WebSocket | null = null;
  /** Acknowledgments to ignore, as if lost in flight (counted from now). */
  loseAcks = 0;
  closes: number[] = [];
  private ended: Promise<void> | null = null;
  private resolveEnded!: () => void;

  constructor(public url: string) {
    this.ended = new Promise((r) => (this.resolveEnded = r));
  }

  /** Connects (again) to the session's URL, or to `url` from now on (e.g. another gateway's), and resends what is unacknowledged. */
  async connect(url: string = this.url): Promise<void> {
    this.url = url;
    const ws = new WebSocket(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    await new Promise<void>((resolve) => ws.addEventListener("open", () => resolve(), { once: true }));
    for (let o = 0; o < this.buffer.length; o += 512 * 1024) ws.send(this.buffer.subarray(o, o + 512 * 1024));
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(String(e.data)) as Msg;
      if (m.type === "audio_chunk" && m.acknowledged) {
        if (this.loseAcks > 0) {
          this.loseAcks--;
          return;
        }
        const end = m.data.byte_range[1] as number;
        this.buffer = this.buffer.slice(end - this.bytesSent);
        this.bytesSent = end;
      }
      this.messages.push(m);
    });
    ws.addEventListener("close", (e) => {
      this.closes.push(e.code);
      if (e.code === 1000 || e.code === 4401) this.resolveEnded();
    });
  }

  send(bytes: Uint8Array): void {
    const next = new Uint8Array(this.buffer.length + bytes.length);
    next.set(this.buffer);
    next.set(bytes, this.buffer.length);
    this.buffer = next;
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(bytes);
  }

  stop(): void {
    this.ws?.send(JSON.stringify({ type: "stop_recording" }));
  }

  /** Drops the connection from the client side (no stop_recording). */
  async drop(): Promise<void> {
    const ws = this.ws!;
    const closed = new Promise<void>((r) => ws.addEventListener("close", () => r(), { once: true }));
    ws.close(4000, "gone");
    await closed;
  }

  get done(): Promise<void> {
    return this.ended!;
  }

  get retained(): number {
    return this.buffer.length;
  }
}

/**
 * What must not change between an uninterrupted run and a resumed one. Texts go through `words()`:
 * Whisper is prompted with the text already final on the channel, so an utterance whose final is
 * requested before the previous one has come back (a busier machine, another gateway) may be cased
 * or punctuated differently ("B." / "B"); the words are the same.
 */
export function outcome(messages: Msg[]) {
  const result = messages.find((m) => m.type === "post_final_transcript")?.data?.transcription?.full_transcript;
  return {
    // A resume sends again the finals the client may have lost in flight; a client keeps one per id.
    finals: [...new Map(messages.filter((m) => m.type === "transcript" && m.data.is_final).map((m) => [m.data.id, m])).values()].map((m) => [m.data.utterance.channel, words(m.data.utterance.text), m.data.utterance.start, m.data.utterance.end]),
    duration: messages.find((m) => m.type === "stop_recording")?.data?.recording_duration,
    result: typeof result === "string" ? words(result) : result,
  };
}
