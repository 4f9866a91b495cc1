/**
 * Test helper: a private `redis-server` on a free port (no persistence), which tests can stop and
 * start again on the same port, or freeze (SIGSTOP) and thaw (SIGCONT), to simulate outages.
 * With REDIS_URL set, that server is used instead and outage controls are unavailable.
 */
import type { Subprocess } from "bun";

export interface TestRedis {
  url: string;
  /** False when REDIS_URL pointed at an external server (no stop/start/pause). */
  controllable: boolean;
  /** Kills the server (SIGKILL): every key is lost, like a crash without persistence. */
  stop(): Promise<void>;
  /** Starts a fresh server on the same port. */
  start(): Promise<void>;
  pause(): void;
  resume(): void;
}

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

async function launch(port: number): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const proc = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
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
export async function startRedis(): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    const unsupported = async () => {
      throw new Error("outage controls need a test-owned redis-server (unset REDIS_URL)");
    };
    return { url: process.env.REDIS_URL, controllable: false, stop: async () => {}, start: unsupported, pause: () => {}, resume: () => {} };
  }
  const port = await freePort();
  let proc: Subprocess<"ignore", "pipe", "pipe"> | undefined = await launch(port);
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
      proc = await launch(port);
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
