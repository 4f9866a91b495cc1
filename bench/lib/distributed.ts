/**
 * Distributed mode for the benchmark: a real Redis (`BENCH_REDIS_URL`, default
 * redis://127.0.0.1:6379), one worker process (`workers/main.ts`) and a gateway (`server/main.ts`
 * with `REDIS_URL`) under a key prefix of their own, removed afterwards.
 */
import type { Subprocess } from "bun";
import path from "node:path";
import { createClient } from "redis";

export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Null when Redis answers PING within a second, else why not. */
export async function redisUnavailable(url = BENCH_REDIS_URL): Promise<string | null> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (e) {
    return `no Redis at ${url}: ${(e as Error).message}`;
  } finally {
    await client.destroy();
  }
}

/** Deletes every key under `prefix` (the gateway's and the worker's state). */
export async function dropPrefix(prefix: string, url = BENCH_REDIS_URL): Promise<number> {
  const client = createClient({ url });
  client.on("error", () => {});
  await client.connect();
  let removed = 0;
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      if (keys.length > 0) removed += await client.unlink(keys);
    }
  } finally {
    await client.destroy();
  }
  return removed;
}

/** Starts one worker process and resolves once it has registered (`worker ready`). */
export async function startWorker(root: string, env: Record<string, string>, limitMs = 60_000): Promise<Subprocess> {
  const proc = Bun.spawn([process.execPath, path.join(root, "workers/main.ts")], {
    cwd: root,
    env: { ...process.env, WORKER_CONCURRENCY: "1", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = performance.now() + limitMs;
  let text = "";
  while (!text.includes('"msg":"worker ready"')) {
    if (performance.now() > deadline) throw new Error(`the worker did not start within ${limitMs} ms: ${text.slice(-500)}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`the worker exited: ${text.slice(-500)}`);
    text += decoder.decode(value);
  }
  // Keep reading so the pipe never fills.
  void (async () => {
    for (;;) if ((await reader.read()).done) return;
  })().catch(() => {});
  return proc;
}
