/**
 * Test harness of distributed mode as operators run it: gateway processes (`bun server/main.ts`) and
 * worker processes (`bun workers/main.ts`) sharing one Redis (one key prefix) and one DATA_DIR.
 *
 * Set DEBUG_CLUSTER=1 to print every process's output when a cluster stops.
 */
import type { Subprocess } from "bun";
import { createTRPCClient, httpLink } from "@trpc/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AdminRouter } from "../../server/admin/router.ts";
import { startRedis, uniquePrefix, type TestRedis } from "../distributed/redis.ts";
import { MODELS_DIR, REPO, spawnWorker, type WorkerProcess } from "../distributed/workers.ts";

export const BOOTSTRAP_KEY = "cluster-bootstrap-key";
export const ADMIN_TOKEN = "cluster-admin-token";

export interface GatewayProcess {
  id: string;
  /** http://127.0.0.1:port */
  url: string;
  port: number;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when the output contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Sends `signal` (default SIGTERM); resolves once the process has exited. */
  kill(signal?: NodeJS.Signals | number): Promise<void>;
  /** The exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  alive(): boolean;
}

export interface SpawnGatewayOptions {
  redisUrl: string;
  prefix: string;
  id: string;
  dataDir: string;
  /** Fixed port (default: a free one chosen by the process). */
  port?: number;
  env?: Record<string, string>;
  /** How long to wait for the gateway to listen (default 60 s: it loads the VAD). */
  startTimeoutMs?: number;
}

function collect(proc: Subprocess<"ignore", "pipe", "pipe">): () => string {
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  void drain(proc.stdout).catch(() => {});
  void drain(proc.stderr).catch(() => {});
  return () => text;
}

/** Starts `bun server/main.ts` in distributed mode; resolves once it listens and answers /health. */
export async function spawnGateway(opts: SpawnGatewayOptions): Promise<GatewayProcess> {
  const proc = Bun.spawn(["bun", "server/main.ts"], {
    cwd: REPO,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      // `bun test` sets NODE_ENV=test, which silences the service's logs; the harness reads them.
      LOG_LEVEL: "info",
      REDIS_URL: opts.redisUrl,
      REDIS_PREFIX: opts.prefix,
      GATEWAY_ID: opts.id,
      PORT: String(opts.port ?? 0),
      HOST: "127.0.0.1",
      DATA_DIR: opts.dataDir,
      MODELS_DIR,
      BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      ADMIN_TOKEN,
      CALLBACKS_ALLOW_LOOPBACK: "true",
      ...opts.env,
    },
  });
  const output = collect(proc);
  const exited = proc.exited.then(() => proc.exitCode);
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const waitFor = async (needle: string, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output().includes(needle)) {
      if (!alive()) throw new Error(`gateway ${opts.id} exited (${proc.exitCode ?? proc.signalCode}): ${output().slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`gateway ${opts.id} never printed "${needle}": ${output().slice(-3000)}`);
      await Bun.sleep(25);
    }
  };

  // The "listening" line carries the port the process got.
  const startTimeout = opts.startTimeoutMs ?? 60_000;
  let port = 0;
  const deadline = Date.now() + startTimeout;
  while (!port) {
    await waitFor('"msg":"listening"', Math.max(1, deadline - Date.now()));
    for (const line of output().split("\n")) {
      if (!line.includes('"msg":"listening"')) continue;
      try {
        port = Number((JSON.parse(line) as { port?: number }).port ?? 0);
      } catch {
        // a partial line: read again
      }
    }
    if (!port) await Bun.sleep(25);
  }
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (!alive()) throw new Error(`gateway ${opts.id} exited (${proc.exitCode ?? proc.signalCode}): ${output().slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`gateway ${opts.id} never answered /health: ${output().slice(-3000)}`);
    await Bun.sleep(50);
  }

  return {
    id: opts.id,
    url,
    port,
    proc,
    output,
    waitFor,
    exited,
    alive,
    async kill(signal = "SIGTERM") {
      if (alive()) proc.kill(signal);
      await proc.exited;
    },
  };
}

/** Stops a gateway gracefully (SIGTERM), and kills it (SIGKILL) if it has not exited within `graceMs`. */
export async function stopGateway(g: GatewayProcess, graceMs = 15_000): Promise<void> {
  if (!g.alive()) return;
  g.proc.kill("SIGTERM");
  const done = await Promise.race([g.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
  if (!done) {
    g.proc.kill("SIGKILL");
    await g.exited;
  }
}

export interface ClusterOptions {
  gateways?: number;
  workers?: number;
  /** A Redis keeping its data across `redis.stop()` / `redis.start()` (append-only file). */
  persistentRedis?: boolean;
  /** Extra env of every worker (e.g. WORKER_JOB_DELAY_MS). */
  workerEnv?: Record<string, string>;
  /** Extra env of every gateway. */
  gatewayEnv?: Record<string, string>;
  /** Jobs each worker runs at once (default 1). */
  workerConcurrency?: number;
  /** Name part of the key prefix. */
  name?: string;
}

export interface Cluster {
  redis: TestRedis;
  prefix: string;
  /** The DATA_DIR every gateway shares (recordings). */
  dataDir: string;
  /** The live members; replaced ones are swapped in place by `addGateway` / `addWorker`. */
  gateways: GatewayProcess[];
  workers: WorkerProcess[];
  /** API key of the bootstrap account (the same on every gateway). */
  key: string;
  /** Starts one more gateway (id `gw<n>` unless given) and adds it to `gateways`. */
  addGateway(id?: string, env?: Record<string, string>): Promise<GatewayProcess>;
  /** Starts one more worker (id `w<n>` unless given) and adds it to `workers`. */
  addWorker(id?: string, env?: Record<string, string>): Promise<WorkerProcess>;
  /** A typed client of the admin API (tRPC) through one gateway. */
  admin(gateway?: GatewayProcess): ReturnType<typeof createTRPCClient<AdminRouter>>;
  /** Everything every process printed, labelled. */
  dump(): string;
  stop(): Promise<void>;
}

/** Redis, gateways and workers with one prefix and one shared DATA_DIR. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const redis = await startRedis({ persistent: opts.persistentRedis });
  const prefix = uniquePrefix(opts.name ?? "cluster");
  const dataDir = mkdtempSync(join(tmpdir(), "stt-cluster-"));
  const gateways: GatewayProcess[] = [];
  const workers: WorkerProcess[] = [];
  const everGateways: GatewayProcess[] = [];
  const everWorkers: WorkerProcess[] = [];
  let gwCount = 0;
  let wCount = 0;

  const cluster: Cluster = {
    redis,
    prefix,
    dataDir,
    gateways,
    workers,
    key: BOOTSTRAP_KEY,
    async addGateway(id = `gw${++gwCount}`, env = {}) {
      const g = await spawnGateway({ redisUrl: redis.url, prefix, id, dataDir, env: { ...opts.gatewayEnv, ...env } });
      gateways.push(g);
      everGateways.push(g);
      return g;
    },
    async addWorker(id = `w${++wCount}`, env = {}) {
      const w = await spawnWorker({ redisUrl: redis.url, prefix, id, concurrency: opts.workerConcurrency ?? 1, env: { ...opts.workerEnv, ...env } });
      workers.push(w);
      everWorkers.push(w);
      return w;
    },
    admin(gateway = gateways.find((g) => g.alive())!) {
      return createTRPCClient<AdminRouter>({
        links: [httpLink({ url: `${gateway.url}/admin/trpc`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })],
      });
    },
    dump() {
      return [
        ...everGateways.map((g) => `----- gateway ${g.id} (${g.url}) -----\n${g.output()}`),
        ...everWorkers.map((w) => `----- worker ${w.id} -----\n${w.output()}`),
      ].join("\n");
    },
    async stop() {
      await Promise.all(everWorkers.map((w) => w.kill("SIGKILL")));
      await Promise.all(everGateways.map((g) => stopGateway(g, 10_000)));
      if (process.env.DEBUG_CLUSTER) console.log(cluster.dump());
      await redis.stop();
      redis.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };

  try {
    // Workers first (they advertise the models the gateways check on POST), all started together.
    await Promise.all(Array.from({ length: opts.workers ?? 2 }, () => cluster.addWorker()));
    await Promise.all(Array.from({ length: opts.gateways ?? 2 }, () => cluster.addGateway()));
  } catch (e) {
    await cluster.stop().catch(() => {});
    throw e;
  }
  // Keep members in start order (gw1, gw2 …) whatever order their starts finished in.
  gateways.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  workers.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  return cluster;
}

/** The URL of a session's WebSocket on another gateway: same path and token, that gateway's origin. */
export function onGateway(sessionUrl: string, gateway: GatewayProcess): string {
  const u = new URL(sessionUrl);
  u.host = `127.0.0.1:${gateway.port}`;
  return u.toString();
}

/** POST /v2/live on a gateway with the bootstrap key (or `key`). */
export async function postSession(gateway: GatewayProcess, body: Record<string, unknown>, key = BOOTSTRAP_KEY): Promise<Response> {
  return fetch(`${gateway.url}/v2/live`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": key },
    body: JSON.stringify(body),
  });
}

/** GET /v2/live/{id} on a gateway. */
export async function getSession(gateway: GatewayProcess, id: string, key = BOOTSTRAP_KEY): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway.url}/v2/live/${id}`, { headers: { "x-service-key": key } });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Jobs each worker completed, from the stats it prints when it stops cleanly (SIGTERM). */
export function completedJobs(w: WorkerProcess): number | null {
  for (const line of w.output().split("\n").reverse()) {
    if (!line.includes('"msg":"worker stopped"')) continue;
    try {
      return Number((JSON.parse(line) as { completed?: number }).completed ?? 0);
    } catch {
      return null;
    }
  }
  return null;
}
