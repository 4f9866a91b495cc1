/**
 * Test helper: a private `redis-server` on a free port (no persistence unless asked), which tests can
 * stop and start again on the same port, or freeze (SIGSTOP) and thaw (SIGCONT), to simulate outages.
 * With REDIS_URL set, that server is used instead and outage controls are unavailable.
 */
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestRedis {
  url: string;
  /** False when REDIS_URL pointed at an external server (no stop/start/pause). */
  controllable: boolean;
  /**
   * Kills the server (SIGKILL): every key is lost, like a crash without persistence; a persistent
   * server keeps every acknowledged write in its append-only file.
   */
  stop(): Promise<void>;
  /** Starts a server on the same port: a fresh one, or a persistent one reloading its data. */
  start(): Promise<void>;
  /** Removes a persistent server's data directory (after `stop()`). */
  cleanup(): void;
  pause(): void;
  resume(): void;
}

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

export interface StartRedisOptions {
  /**
   * Persist every write to an append-only file (fsync on each write) in a temporary directory, as
   * operators run Redis when it is the store: a server killed and started again keeps its data.
   */
  persistent?: boolean;
}

async function launch(port: number, dir: string | null): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const persistence = dir ? ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir] : ["--appendonly", "no"];
  const proc = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, "--daemonize", "no"],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + 10_000;
  while (!seen.includes("Ready to accept connections")) {
    if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}: ${seen.slice(-500)}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`redis-server exited on port ${port}: ${seen.slice(-500)}`);
    seen += decoder.decode(value);
  }
  // keep draining so the pipe never fills
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return proc;
}

/** Starts a private redis-server (or wraps REDIS_URL). Call `stop()` after the tests. */
export async function startRedis(opts: StartRedisOptions = {}): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const unsupported = async () => {
      throw new Error("outage controls need a test-owned redis-server (unset REDIS_URL)");
    };
    return { url: process.env.REDIS_URL, controllable: false, stop: async () => {}, start: unsupported, pause: () => {}, resume: () => {}, cleanup: () => {} };
  }
  const port = await freePort();
  const dir = opts.persistent ? mkdtempSync(join(tmpdir(), "stt-redis-")) : null;
  let proc: Subprocess<"ignore", "pipe", "pipe"> | undefined = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    controllable: true,
    async stop() {
      if (!proc) return;
      const p = proc;
      proc = undefined;
      p.kill("SIGCONT");
      p.kill("SIGKILL");
      await p.exited;
    },
    async start() {
      if (proc) throw new Error("redis-server is already running");
      proc = await launch(port, dir);
    },
    cleanup() {
      if (dir && !proc) rmSync(dir, { recursive: true, force: true });
    },
    pause() {
      proc?.kill("SIGSTOP");
    },
    resume() {
      proc?.kill("SIGCONT");
    },
  };
}

/** A key prefix unique to one test file/run, so tests sharing a Redis never see each other's keys. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}
