/**
 * WhisperLive (0.10.0, faster-whisper backend) as a live peer of the service: its server on a local
 * CTranslate2 model, and one client stream playing 16 kHz samples at 1× real time in 100-ms chunks.
 * Shared by bench/latency and bench/fidelity; the Python environment is described in
 * bench/latency/README.md (`${LIVE_STT_CACHE:-~/.cache/live-stt}/venv-whisperlive`, override
 * `WHISPERLIVE_PYTHON`).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

const CACHE = process.env.LIVE_STT_CACHE ?? path.join(homedir(), ".cache", "live-stt");
const FRAME = 1600; // 100 ms at 16 kHz

/** One transcript event: arrival (ms, performance.now), audio span (s), text, final or not, segment key. */
export interface Seen {
  at: number;
  start: number;
  end: number;
  text: string;
  final: boolean;
  key: string;
}

export const whisperLivePython = () => process.env.WHISPERLIVE_PYTHON ?? path.join(CACHE, "venv-whisperlive", "bin", "python");

export interface WhisperLiveServer {
  port: number;
  pid: number;
  stop(): void;
}

/**
 * Starts WhisperLive's server (bench/latency/whisperlive_server.py: one shared model) on `ct2` and
 * waits until it accepts connections. Its VAD model is the service's Silero VAD, copied to
 * `~/.cache/whisper-live/silero_vad.onnx` when absent (WhisperLive would download one).
 */
export async function startWhisperLive(opts: { ct2: string; threads: number; vadModelsDir: string }): Promise<WhisperLiveServer> {
  const python = whisperLivePython();
  if (!existsSync(python)) throw new Error(`no WhisperLive Python at ${python} (see bench/latency/README.md)`);
  const wlVad = path.join(homedir(), ".cache", "whisper-live", "silero_vad.onnx");
  if (!existsSync(wlVad)) {
    mkdirSync(path.dirname(wlVad), { recursive: true });
    copyFileSync(path.join(opts.vadModelsDir, "silero-vad", "silero_vad.onnx"), wlVad);
  }
  const port = 19000 + Math.floor(Math.random() * 1000);
  const server = Bun.spawn([python, path.join(import.meta.dir, "..", "latency", "whisperlive_server.py"), String(port), opts.ct2], {
    stdout: "ignore",
    stderr: "ignore",
    env: { ...process.env, OMP_NUM_THREADS: String(opts.threads) },
  });
  for (let i = 0; ; i++) {
    if (i > 240) {
      server.kill();
      throw new Error("WhisperLive did not start within 120 s");
    }
    try {
      const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      s.end();
      break;
    } catch {
      await Bun.sleep(500);
    }
  }
  return { port, pid: server.pid, stop: () => server.kill() };
}

/**
 * One WhisperLive client: `samples` (16 kHz) sent in 100-ms chunks at 1× real time from `t0`
 * (performance.now ms); returns each segment as new text or newly completed, once. `language`
 * null: WhisperLive detects it.
 */
export async function whisperLiveStream(opts: {
  port: number;
  ct2: string;
  samples: Float32Array;
  t0: number;
  uid: string;
  language?: string | null;
  maxWaitMs?: number;
  quietMs?: number;
}): Promise<Seen[]> {
  const ws = new WebSocket(`ws://127.0.0.1:${opts.port}`);
  ws.binaryType = "arraybuffer";
  const seen: Seen[] = [];
  const done = new Map<string, boolean>();
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  let lastMessage = performance.now();
  const closed = new Promise<void>((r) => ws.addEventListener("close", () => r()));
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    lastMessage = performance.now();
    if (m.message === "SERVER_READY") return ready();
    if (!Array.isArray(m.segments)) return;
    // Each message repeats the last segments; a segment is new text or newly completed once.
    for (const s of m.segments as { start: string; end: string; text: string; completed: boolean }[]) {
      const key = `${Number(s.start).toFixed(2)}`;
      const was = done.get(key);
      if (was === true) continue;
      done.set(key, s.completed);
      seen.push({ at: performance.now(), start: Number(s.start), end: Number(s.end), text: s.text, final: s.completed, key });
    }
  });
  await new Promise<void>((r) => ws.addEventListener("open", () => r(), { once: true }));
  ws.send(JSON.stringify({ uid: opts.uid, language: opts.language === undefined ? "en" : opts.language, task: "transcribe", model: opts.ct2, use_vad: true }));
  await Promise.race([isReady, Bun.sleep(120_000)]);
  const x = opts.samples;
  for (let i = 0, f = 0; f < x.length; i++, f += FRAME) {
    const due = opts.t0 + i * 100 - performance.now();
    if (due > 0) await Bun.sleep(due);
    ws.send(x.slice(f, Math.min(x.length, f + FRAME)).buffer);
  }
  // No END_OF_AUDIO: WhisperLive drops the client's unfinished segment on it. A segment completes
  // after it came out unchanged `same_output_threshold` times; wait for that (at most `maxWaitMs`,
  // default 90 s; with `quietMs`, no longer than that without a message).
  const deadline = performance.now() + (opts.maxWaitMs ?? 90_000);
  const pending = () => [...done.values()].some((d) => !d);
  const quiet = () => opts.quietMs !== undefined && performance.now() - lastMessage > opts.quietMs;
  while ((pending() || performance.now() - lastMessage < 2000) && !quiet() && performance.now() < deadline) await Bun.sleep(250);
  ws.close();
  await Promise.race([closed, Bun.sleep(2000)]);
  return seen;
}
