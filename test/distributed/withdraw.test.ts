/**
 * A job its gateway withdraws (every caller aborted) is stopped on the worker that holds it: while
 * it runs, its engine stops before the next ONNX call; read but not started, it is never run. Either
 * way the worker acknowledges it without an answer, does not retry it, and is free for the next job.
 * Real worker processes, real Redis, whisper-tiny.en.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { RedisCoordinator } from "../../workers/coordinator/redis.ts";
import { sharedAudio } from "../helpers/models.ts";
import { startRedis, uniquePrefix, type TestRedis } from "./redis.ts";
import { CLIPS, eventually, spawnWorker, words, type WorkerProcess } from "./workers.ts";

/** 33 s of speech (jfk.wav three times): two Whisper windows, several seconds of decoding. */
const jfk = readWavFile(resolve(sharedAudio, "jfk.wav")).samples;
const long = new Float32Array(jfk.length * 3);
for (let i = 0; i < 3; i++) long.set(jfk, i * jfk.length);

let redis: TestRedis;
const setups: { worker: WorkerProcess; gateway: RedisCoordinator }[] = [];

async function setup(name: string, env: Record<string, string> = {}) {
  const prefix = uniquePrefix(name);
  const worker = await spawnWorker({ redisUrl: redis.url, prefix, id: `${name}-w`, env });
  const gateway = await RedisCoordinator.create({ url: redis.url, prefix, gatewayId: `${name}-gw`, registryRefreshMs: 100, jobTimeoutMs: 150_000 });
  setups.push({ worker, gateway });
  // Loads the engine.
  const r = await gateway.transcribe({ sessionId: "warm", utteranceId: "0:0", seq: 1, model: "trantoria-1", request: { audio: CLIPS[0]!.audio, partial: false, languages: ["en"] } });
  expect(words(r.text)).toBe(CLIPS[0]!.token);
  return { worker, gateway };
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  if (process.env.DEBUG_WORKERS) for (const s of setups) console.log(s.worker.id, s.worker.output());
  for (const s of setups) await s.gateway.close();
  await Promise.all(setups.map((s) => s.worker.kill("SIGKILL")));
  await redis?.stop();
});

/**
 * Withdraws a long job once the worker has taken it (and, with `started`, once its engine runs it:
 * the worker then logs at debug level); returns what the worker printed about it.
 */
async function withdrawTaken(gateway: RedisCoordinator, worker: WorkerProcess, started: boolean): Promise<string> {
  const startedLines = () => worker.output().split('"msg":"job started"').length - 1;
  const startedBefore = startedLines(); // the warm-up job's
  const controller = new AbortController();
  const call = gateway.transcribe({ sessionId: "s", utteranceId: "0:1", seq: 1, model: "trantoria-1", request: { audio: long, partial: false, languages: ["en"] } }, controller.signal);
  call.catch(() => {});
  await eventually(async () => (await gateway.metrics()).models[0]?.inFlight === 1, 20_000, "the worker to take the job");
  if (started) await eventually(async () => startedLines() > startedBefore, 20_000, "the worker's engine to start the job");
  controller.abort();
  await expect(call).rejects.toThrow();
  await worker.waitFor('"msg":"withdrawn job stopped"', 60_000);
  return worker.output().split("\n").find((l) => l.includes('"msg":"withdrawn job stopped"'))!;
}

/** After a withdrawal: the stream is empty, no answer came back, and the worker answers the next job. */
async function expectFreeAndClean(gateway: RedisCoordinator, worker: WorkerProcess): Promise<void> {
  const next = await gateway.transcribe({ sessionId: "s", utteranceId: "0:2", seq: 1, model: "trantoria-1", request: { audio: CLIPS[1]!.audio, partial: false, languages: ["en"] } });
  expect(words(next.text)).toBe(CLIPS[1]!.token);
  await eventually(async () => (await gateway.metrics()).models[0]?.depth === 0, 5000, "the queue to empty");
  const m = await gateway.metrics();
  expect(m.duplicateResults).toBe(0); // the withdrawn job was not answered
  expect(m.deadLettered).toBe(0);
  expect(worker.output()).not.toContain("took over idle job");
  expect(worker.output()).not.toContain("job failed");
}

describe("a withdrawn job", () => {
  test("running: the worker's engine stops it, it is acknowledged without an answer and not retried", async () => {
    const { gateway, worker } = await setup("withdraw-running", { LOG_LEVEL: "debug" });
    const line = await withdrawTaken(gateway, worker, true);
    expect(line).toContain('"running":true');
    await expectFreeAndClean(gateway, worker);
  }, 120_000);

  test("read but not started: the worker never runs it", async () => {
    // The worker waits 2 s after taking each job (fault injection): the job is withdrawn meanwhile.
    const { gateway, worker } = await setup("withdraw-waiting", { WORKER_JOB_DELAY_MS: "2000" });
    const line = await withdrawTaken(gateway, worker, false);
    expect(line).toContain('"running":false');
    await expectFreeAndClean(gateway, worker);
  }, 120_000);
});
