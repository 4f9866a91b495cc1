/**
 * What the crash checkpoints cost acknowledgments, before → after, in one run:
 *
 *   bun bench/ack-checkpoint.ts <checkout before> [<checkout after> (default: this one)] [--rounds N]
 *
 * Starts the service of each checkout in turn (embedded mode, a temporary DATA_DIR, this checkout's
 * MODELS_DIR), alternating A B A B… so a busy machine weighs on both alike, and streams the benchmark
 * audio at real time on 2 concurrent sessions. Per checkout: the p50 / p95 over utterances of the
 * time from a final's arrival to the first ack covering its utterance (`ack_after_final_ms`, where a
 * checkpoint write shows: the ack waits for it), and of the time from the utterance's end being sent
 * to that ack (`ack_beyond_utterance_ms`). From the service's log, when it reports them: checkpoint
 * writes per ack and the mean time an ack waited for its checkpoint. And the service's main-thread
 * CPU (`/proc/<pid>/task/<pid>`) per audio second while the 2 streams ran, per round.
 */
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { benchSamples, DEFAULT_CLIPS, frames as toFrames, RATE, toPcm16 } from "./lib/audio.ts";
import { percentile, runStreams, type StreamResult } from "./lib/load.ts";
import { loadAverage, threadCpu, threadDelta } from "./lib/proc.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const MODELS_DIR = path.resolve(process.env.MODELS_DIR ?? path.join(ROOT, "models"));
const KEY = "bench-ack-checkpoint-key";
const args = process.argv.slice(2);
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 2;
if (args.length < 1) {
  console.error("usage: bun bench/ack-checkpoint.ts <checkout before> [<checkout after>] [--rounds N]");
  process.exit(2);
}
const checkouts = [path.resolve(args[0]!), path.resolve(args[1] ?? ROOT)];
const audio = toFrames(toPcm16(benchSamples(DEFAULT_CLIPS)));

interface Service {
  proc: Subprocess<"ignore", "pipe", "ignore">;
  base: string;
  dataDir: string;
  log: () => string;
}

async function start(dir: string): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "bench-ack-"));
  const proc = Bun.spawn([process.execPath, path.join(dir, "server/main.ts")], {
    cwd: dir,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, MODELS_DIR, BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: "info" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  let text = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) text += decoder.decode(chunk, { stream: true });
  })();
  const deadline = Date.now() + 120_000;
  let port = 0;
  while (!port) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`${dir}: the service did not start: ${text.slice(-2000)}`);
    const line = text.split("\n").find((l) => l.includes('"msg":"listening"'));
    if (line) port = Number((JSON.parse(line) as { port: number }).port);
    else await Bun.sleep(50);
  }
  const base = `http://127.0.0.1:${port}`;
  while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) await Bun.sleep(50);
  return { proc, base, dataDir, log: () => text };
}

async function stop(s: Service): Promise<void> {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
  rmSync(s.dataDir, { recursive: true, force: true });
}

const results = checkouts.map(() => ({ runs: [] as StreamResult[], writes: 0, acks: 0, waitMs: 0, mainMsPerAudioS: [] as number[] }));
const audioS = audio.reduce((n, f) => n + f.length, 0) / 2 / RATE;
const load0 = loadAverage();
for (let round = 0; round < rounds; round++) {
  for (const [i, dir] of checkouts.entries()) {
    const s = await start(dir);
    try {
      const target = { base: s.base, key: KEY, model: process.env.BENCH_MODEL ?? "trantoria-1" };
      await runStreams(target, 1, audio.slice(0, 20), false); // warm-up (models, VAD) of each fresh service
      const pid = s.proc.pid;
      const th0 = threadCpu(pid);
      results[i]!.runs.push(...(await runStreams(target, 2, audio, true)));
      const main = threadDelta(th0, threadCpu(pid), (_name, tid) => (tid === String(pid) ? "main" : "other")).main ?? 0;
      results[i]!.mainMsPerAudioS.push((main * 1000) / (2 * audioS));
      console.error(`round ${round + 1} ${dir}: main thread ${results[i]!.mainMsPerAudioS.at(-1)!.toFixed(2)} ms CPU per audio-s`);
      await Bun.sleep(500);
      for (const line of s.log().split("\n")) {
        if (!line.includes('"msg":"checkpoints"')) continue;
        const c = JSON.parse(line) as { writes: number; acks: number; ack_wait_ms_mean: number };
        results[i]!.writes += c.writes;
        results[i]!.acks += c.acks;
        results[i]!.waitMs += c.ack_wait_ms_mean * c.acks;
      }
    } finally {
      await stop(s);
    }
  }
}

const ms = (xs: number[], p: number) => Math.round(percentile(xs, p) * 1000);
const summary = checkouts.map((dir, i) => {
  const r = results[i]!;
  const afterFinal = r.runs.flatMap((x) => x.ackAfterFinalS);
  const beyond = r.runs.flatMap((x) => x.ackBeyondS);
  return {
    checkout: dir,
    utterances: afterFinal.length,
    ack_after_final_ms: { p50: ms(afterFinal, 50), p95: ms(afterFinal, 95) },
    ack_beyond_utterance_ms: { p50: ms(beyond, 50), p95: ms(beyond, 95) },
    main_thread_cpu_ms_per_audio_s: r.mainMsPerAudioS.map((x) => Math.round(x * 100) / 100),
    sessions_ended_normally: r.runs.filter((x) => x.closeCode === 1000).length + "/" + r.runs.length,
    ...(r.acks > 0 ? { checkpoint_writes_per_ack: Math.round((r.writes / r.acks) * 100) / 100, ack_wait_for_checkpoint_ms_mean: Math.round((r.waitMs / r.acks) * 100) / 100 } : {}),
  };
});
console.log(JSON.stringify({ load: [load0, loadAverage()], checkouts: summary }, null, 2));
