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
 * directory), loads the VAD model, builds the callback dispatcher and lends the metrics module the
 * live sessions, the coordinator's queue readings and admission's capacity (`server/capacity/`). The Redis implementations are imported only
 * in distributed mode, so an embedded service answers soon after it starts.
 */
import { LoadOnce } from "../common/load-once.ts";
import type { Server } from "bun";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { InProcessCoordinator } from "../workers/coordinator/in-process.ts";
import type { CoordinatorMetrics } from "../workers/public.ts";
import type { InferenceCoordinator, ModelCapability } from "../workers/contract/types.ts";
import { BatchedVad } from "../workers/engines/vad/batched.ts";
import { createApp, peerAddress } from "./app.ts";
import { bootstrapAccount } from "./bootstrap.ts";
import { startCapacity } from "./capacity/index.ts";
import { LocalDirectory, type SessionDirectory } from "./cluster/directory.ts";
import { systemClock, type Clock } from "./clock.ts";
import { loadConfig, StartupError, type Config } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { createCallbackDispatcher, type CallbackDispatcher } from "./delivery/callbacks.ts";
import { notifyRefusedCallbacks } from "./delivery/refusal-notice.ts";
import { createGateway, type LiveGateway } from "./gateway/index.ts";
import { refuseDeclaredOversize } from "./http/capped-body.ts";
import { createCors } from "./http/cors.ts";
import { log as rootLog, type Logger } from "./log.ts";
import { attachSource, type InferenceSnapshot } from "./metrics/index.ts";
import { reportServing } from "./serving.ts";
import { Readiness } from "./health/readiness.ts";
import { warmUpRequests } from "./health/warm-up.ts";
import { audioAddons } from "./addon-models.ts";
import { preloadTextAddons } from "./enrich/session.ts";
import { withAudioAddons } from "./session/audio-addons.ts";
import { SessionHost } from "./session/host.ts";
import { sweepExpired } from "./session-records/expiry.ts";
import { SqliteStore } from "./store/sqlite.ts";
import type { Store } from "./store/types.ts";

const vadCache = new LoadOnce<string, BatchedVad>();

/**
 * Loads the Silero VAD once per process and path, in its own worker thread where the streams of all
 * sessions are scored together (the event loop never waits on the model).
 */
export function loadVad(modelsDir: string): Promise<BatchedVad> {
  const file = path.join(modelsDir, "silero-vad", "silero_vad.onnx");
  return vadCache.get(file, () => BatchedVad.load(file));
}

/**
 * What the metrics module reads of the coordinator at each scrape: the Redis queue snapshot
 * (distributed) or the worker pool's load (embedded), for the coordinators that have them.
 */
function inferenceSnapshot(coordinator: InferenceCoordinator): () => Promise<InferenceSnapshot> {
  const c = coordinator as { metrics?: () => Promise<CoordinatorMetrics>; load?: InferenceSnapshot["pool"] };
  return async () => ({
    redis: typeof c.metrics === "function" ? await c.metrics.call(coordinator).catch(() => null) : null,
    pool: c.load ?? null,
  });
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

type Model = ModelCapability["model"];

/**
 * Embedded: every serving engine loaded and warmed in every engine thread (the coordinator's
 * `warm`, off the event loop). Distributed (no `warm`): a worker serves at least one model.
 */
async function warmEngines(coordinator: InferenceCoordinator, log: Logger, stopped: AbortSignal): Promise<Model[]> {
  const c = coordinator as { warm?: (requests: ReturnType<typeof warmUpRequests>) => Promise<string[]> };
  if (typeof c.warm === "function") {
    const started = performance.now();
    const models = (await c.warm.call(coordinator, warmUpRequests())) as Model[];
    log.info("engines warmed", { models, ms: Math.round(performance.now() - started) });
    return models;
  }
  while (!stopped.aborted) {
    const caps = await coordinator.capabilities().catch(() => []);
    if (caps.length > 0) return caps.map((m) => m.model);
    await Bun.sleep(500);
  }
  throw new Error("the service stopped");
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const startedAt = performance.now();
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
      ? await (await import("../workers/coordinator/redis.ts")).RedisCoordinator.create({ url: redisUrl, prefix: config.redisPrefix, gatewayId })
      : await InProcessCoordinator.create({ modelsDir: config.modelsDir, threads: config.engineThreads }));
  const directory =
    opts.directory ?? (redisUrl ? await (await import("./cluster/redis-directory.ts")).RedisDirectory.connect({ url: redisUrl, prefix: config.redisPrefix, gatewayId, log }) : new LocalDirectory());

  const readiness = new Readiness(startedAt);
  const lifetime = new AbortController();
  const deps: AppDeps = {
    readiness,
    config,
    store,
    clock: opts.clock ?? systemClock,
    coordinator,
    directory,
    log,
    recordingsDir: path.join(config.dataDir, "recordings"),
  };
  // Admission counts the sessions admitted against the embedded pool's threads (server/capacity/).
  const pool = coordinator as { threads?: number; engineSeconds?: () => ReadonlyMap<string, number> };
  const capacity = startCapacity({
    threads: redisUrl ? null : (pool.threads ?? config.engineThreads),
    headroom: config.capacityHeadroom,
    refineMs: config.capacityRefineMs,
    engineSeconds: typeof pool.engineSeconds === "function" ? () => pool.engineSeconds!.call(coordinator) : undefined,
    capabilities: () => coordinator.capabilities(),
    held: () => host.held(),
    lookup: (id) => store.getSessionById(id),
    now: () => deps.clock.now(),
  });
  deps.admission = capacity.admission;
  const app = createApp(deps);
  let callbacks: CallbackDispatcher | null = null;
  // Add-ons are on when their models are installed; the models load after the service listens.
  const addons = audioAddons(config.modelsDir, () => loadVad(config.modelsDir), log);
  const host: SessionHost = new SessionHost({
    ...deps,
    enrichers: withAudioAddons(addons.addons),
    vad: () => loadVad(config.modelsDir),
    callbacks: (): CallbackDispatcher =>
      (callbacks ??= createCallbackDispatcher({
        allowLoopback: config.callbacksAllowLoopback,
        allowPrivate: config.callbacksAllowPrivate,
        // A destination refused at delivery is also told once to the session's client (an `error` message).
        onFailure: notifyRefusedCallbacks((id) => host.session(id), (f) => log.warn("callback abandoned", { ...f })),
      })),
  });
  const gateway = createGateway(deps, host);
  const detachMetrics = attachSource({
    gatewayId: directory.gatewayId,
    activeSessions: () => host.size,
    inference: inferenceSnapshot(coordinator),
    capacity: () => (capacity.admission.limited ? capacity.admission.snapshot() : Promise.resolve(null)),
  });

  const cors = createCors(config.corsOrigins);
  const release = async () => {
    detachMetrics();
    capacity.stop();
    if (!opts.directory) await directory.close();
    if (!opts.coordinator) await coordinator.close();
    if (!opts.store) await store.close();
  };
  let server: Server<unknown>;
  try {
    server = Bun.serve({
      port: config.port,
      hostname: config.host,
      idleTimeout: 60,
      // Bodies are capped by the handlers (server/http/capped-body.ts), which answer with the error body.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      fetch(request, srv) {
        const oversize = refuseDeclaredOversize(request);
        if (oversize) return cors.decorate(request, oversize);
        const peer = srv.requestIP(request)?.address ?? null;
        if (peer) peerAddress.set(request, peer);
        if (request.headers.get("upgrade")?.toLowerCase() === "websocket" && new URL(request.url).pathname === "/v2/live") {
          return gateway.upgrade(request, srv as never, peer);
        }
        return cors.preflight(request) ?? app.handle(request).then((response) => cors.decorate(request, response));
      },
      websocket: gateway.websocket as never,
    }) as never;
  } catch (e) {
    await gateway.shutdown();
    await release();
    if ((e as { code?: string }).code === "EADDRINUSE") {
      throw new StartupError(`port ${config.port} on ${config.host} is already in use: stop the process holding it or set PORT to a free port`);
    }
    throw e;
  }
  // After the port is taken, so that a refused start does not spend the once-shown key.
  await bootstrapAccount(store, config.bootstrapApiKey, log, opts.print ?? (() => {}));
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

  // Models load in the background once the service answers: a session that needs one before it
  // is loaded waits for it.
  // Readiness (GET /health/ready) waits for the VAD model and the engines: loaded and warmed in every
  // engine thread (embedded), or served by a worker (distributed). Liveness answers meanwhile.
  readiness.track("vad", "loading the voice-activity model", loadVad(config.modelsDir).then(() => {}));
  if (redisUrl || config.engineWarmUp) {
    readiness.track(
      "engines",
      redisUrl ? "waiting for a worker serving the models" : "loading and warming the installed models in every engine thread",
      warmEngines(coordinator, log, lifetime.signal),
    );
  }
  const warm = setTimeout(() => {
    loadVad(config.modelsDir).catch((e: unknown) => log.error("the VAD model could not be loaded", { error: e }));
    void addons.warm();
    preloadTextAddons().catch((e: unknown) => log.error("the text add-ons could not be loaded", { error: e }));
  }, 0);
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
      lifetime.abort();
      clearInterval(sweeper);
      clearInterval(abandonedSweeper);
      clearTimeout(warm);
      await gateway.shutdown();
      if (callbacks) await callbacks.close({ graceMs: 2000 });
      server.stop(true);
      await release();
    },
  };
}
