/**
 * Starts the service: store, inference coordinator, session directory, the Elysia app for HTTP and the
 * gateway for WebSockets, on one Bun server. Used by `main.ts` and by integration tests (port 0).
 *
 * Embedded (no REDIS_URL): SQLite under DATA_DIR, in-process inference, one gateway.
 * Distributed (REDIS_URL): the store, the work queue and session ownership live in Redis, so any
 * number of gateways serve the same accounts and sessions; DATA_DIR then only holds recordings and
 * must be storage every gateway shares.
 *
 * This is the composition root: the only module that picks implementations (store, coordinator,
 * directory), loads the VAD model and builds the callback dispatcher.
 */
import type { Server } from "bun";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { InProcessCoordinator } from "../workers/coordinator/in-process.ts";
import { renderPrometheus, type CoordinatorMetrics } from "../workers/coordinator/redis-metrics.ts";
import { RedisCoordinator } from "../workers/coordinator/redis.ts";
import type { InferenceCoordinator } from "../workers/coordinator/types.ts";
import { SileroVad } from "../workers/vad/silero.ts";
import { createApp, peerAddress } from "./app.ts";
import { bootstrapAccount } from "./bootstrap.ts";
import { LocalDirectory, type SessionDirectory } from "./cluster/directory.ts";
import { RedisDirectory } from "./cluster/redis-directory.ts";
import { systemClock, type Clock } from "./clock.ts";
import { loadConfig, type Config } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { createCallbackDispatcher, type CallbackDispatcher } from "./delivery/callbacks.ts";
import { createGateway, type LiveGateway } from "./gateway/index.ts";
import { log as rootLog, type Logger } from "./log.ts";
import { reportServing } from "./serving.ts";
import { SessionHost } from "./session/host.ts";
import { sweepExpired } from "./sessions/expiry.ts";
import { SqliteStore } from "./store/sqlite.ts";
import type { Store } from "./store/types.ts";

const vadCache = new Map<string, Promise<SileroVad>>();

/** Loads the Silero VAD once per process and path. */
export function loadVad(modelsDir: string): Promise<SileroVad> {
  const file = path.join(modelsDir, "silero-vad", "silero_vad.onnx");
  let p = vadCache.get(file);
  if (!p) {
    p = SileroVad.load(file);
    p.catch(() => vadCache.delete(file));
    vadCache.set(file, p);
  }
  return p;
}

/** Prometheus text of a coordinator's metrics, for those that have them (distributed mode). */
function inferenceMetrics(coordinator: InferenceCoordinator): () => Promise<string> {
  const metrics = (coordinator as { metrics?: () => Promise<CoordinatorMetrics> }).metrics;
  return async () => (metrics ? renderPrometheus(await metrics.call(coordinator)) : "");
}

export interface StartOptions {
  config?: Partial<Config>;
  env?: Record<string, string | undefined>;
  store?: Store;
  clock?: Clock;
  coordinator?: InferenceCoordinator;
  directory?: SessionDirectory;
  log?: Logger;
  /** Print the bootstrap key (main does; tests read it from the store). */
  print?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  deps: AppDeps;
  server: Server<unknown>;
  /** The WebSocket side (tests apply the time windows with `gateway.tick()`). */
  gateway: LiveGateway;
  /** Graceful stop: sessions persisted and closed with 1012, then everything released. */
  stop(): Promise<void>;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const base = loadConfig(opts.env ?? process.env);
  const explicitPublicUrl = opts.config?.publicUrl ?? (opts.env ?? process.env).PUBLIC_URL;
  const config: Config = { ...base, ...opts.config };
  const log = opts.log ?? rootLog;
  const redisUrl = config.redisUrl;
  const gatewayId = config.gatewayId ?? randomUUID();
  const store =
    opts.store ??
    (redisUrl
      ? await (await import("./store/redis.ts")).RedisStore.connect({ url: redisUrl, prefix: config.redisPrefix, onError: (e: Error) => log.warn("redis store connection error", { error: e.message }) })
      : SqliteStore.open(config.dataDir));
  const coordinator =
    opts.coordinator ??
    (redisUrl
      ? await RedisCoordinator.create({ url: redisUrl, prefix: config.redisPrefix, gatewayId })
      : await InProcessCoordinator.create({ modelsDir: config.modelsDir }));
  const directory =
    opts.directory ?? (redisUrl ? await RedisDirectory.connect({ url: redisUrl, prefix: config.redisPrefix, gatewayId, log }) : new LocalDirectory());
  await bootstrapAccount(store, config.bootstrapApiKey, log, opts.print ?? (() => {}));

  const deps: AppDeps = {
    config,
    store,
    clock: opts.clock ?? systemClock,
    coordinator,
    directory,
    log,
    recordingsDir: path.join(config.dataDir, "recordings"),
    inferenceMetrics: inferenceMetrics(coordinator),
  };
  const app = createApp(deps);
  let callbacks: CallbackDispatcher | null = null;
  const host = new SessionHost({
    ...deps,
    vad: () => loadVad(config.modelsDir),
    callbacks: () =>
      (callbacks ??= createCallbackDispatcher({
        allowLoopback: config.callbacksAllowLoopback,
        allowPrivate: config.callbacksAllowPrivate,
        onFailure: (f) => log.warn("callback abandoned", { ...f }),
      })),
  });
  const gateway = createGateway(deps, host);

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    idleTimeout: 60,
    fetch(request, srv) {
      const peer = srv.requestIP(request)?.address ?? null;
      if (peer) peerAddress.set(request, peer);
      if (request.headers.get("upgrade")?.toLowerCase() === "websocket" && new URL(request.url).pathname === "/v2/live") {
        return gateway.upgrade(request, srv as never, peer);
      }
      return app.handle(request);
    },
    websocket: gateway.websocket as never,
  });
  const port = server.port!;
  if (!explicitPublicUrl) {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    config.publicUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  }

  const sweeper = setInterval(() => {
    sweepExpired(store, deps.clock.now()).catch((e) => log.error("expiry sweep failed", { error: e }));
  }, 5_000);
  const abandonedSweeper = setInterval(() => {
    gateway.sweepAbandoned().catch((e) => log.error("abandoned-session sweep failed", { error: e }));
  }, 30_000);

  log.info("listening", { url: config.publicUrl, port, cluster: config.cluster, mode: redisUrl ? "distributed" : "embedded", gateway: directory.gatewayId, models_dir: config.modelsDir });
  const served = await coordinator.capabilities().catch((e: unknown) => {
    log.warn("could not read the served models", { error: e });
    return [];
  });
  reportServing(served, log, redisUrl ? "distributed" : "embedded", opts.print);

  let stopped = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    deps,
    server: server as never,
    gateway,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(sweeper);
      clearInterval(abandonedSweeper);
      await gateway.shutdown();
      if (callbacks) await callbacks.close({ graceMs: 2000 });
      server.stop(true);
      if (!opts.directory) await directory.close();
      if (!opts.coordinator) await coordinator.close();
      if (!opts.store) await store.close();
    },
  };
}
