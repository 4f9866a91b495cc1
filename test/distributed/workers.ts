/**
 * Test helper: real worker processes (`bun workers/main.ts`) with short heartbeat and claim
 * timings, the installed whisper-tiny.en serving trantoria-1, and short real word clips with the
 * word each one is (compare with `words()`).
 */
import type { Subprocess } from "bun";
import { resolve } from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { englishModelsDir, repoDir, sharedAudio, sharedDir } from "../helpers/models.ts";

export { words } from "../helpers/text.ts";

export const REPO = repoDir;
export const SHARED = sharedDir;
/** Serves trantoria-1 with whisper-tiny.en (links to the installed models). */
export const MODELS_DIR = englishModelsDir();

/** Word clips whisper-tiny.en hears as the word (`words(text) === token`), and that word. */
export const CLIPS = (["a", "b", "zero"] as const).map((token) => ({
  token,
  audio: readWavFile(resolve(sharedAudio, `spelling/${token}.wav`)).samples,
}));

/** Short timings so takeovers and registry changes happen within a second or two. */
export const FAST_TIMINGS: Record<string, string> = {
  WORKER_HEARTBEAT_MS: "200",
  WORKER_TTL_MS: "1000",
  WORKER_CLAIM_IDLE_MS: "800",
  WORKER_CLAIM_INTERVAL_MS: "200",
  WORKER_MAX_DELIVERIES: "3",
  WORKER_RETRY_DELAY_MS: "100",
  WORKER_BLOCK_MS: "200",
};

export interface WorkerProcess {
  id: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves when the output contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals | number): Promise<void>;
}

export interface SpawnWorkerOptions {
  redisUrl: string;
  prefix: string;
  id: string;
  concurrency?: number;
  modelsDir?: string;
  env?: Record<string, string>;
}

/** Starts `bun workers/main.ts` and waits until it says it is ready. */
export async function spawnWorker(opts: SpawnWorkerOptions): Promise<WorkerProcess> {
  const proc = Bun.spawn(["bun", "workers/main.ts"], {
    cwd: REPO,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      REDIS_URL: opts.redisUrl,
      REDIS_PREFIX: opts.prefix,
      WORKER_ID: opts.id,
      WORKER_CONCURRENCY: String(opts.concurrency ?? 1),
      MODELS_DIR: opts.modelsDir ?? MODELS_DIR,
      ...FAST_TIMINGS,
      ...opts.env,
    },
  });
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk);
  };
  void drain(proc.stdout).catch(() => {});
  void drain(proc.stderr).catch(() => {});
  const worker: WorkerProcess = {
    id: opts.id,
    proc,
    output: () => text,
    async waitFor(needle, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!text.includes(needle)) {
        if (proc.exitCode !== null) throw new Error(`worker ${opts.id} exited (${proc.exitCode}): ${text.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error(`worker ${opts.id} never printed "${needle}": ${text.slice(-2000)}`);
        await Bun.sleep(25);
      }
    },
    async kill(signal = "SIGTERM") {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(signal);
      await proc.exited;
    },
  };
  await worker.waitFor('"msg":"worker ready"');
  return worker;
}

/** Polls `check` every 50 ms until it returns true or `timeoutMs` passes. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
