/** Operator configuration, read once from the environment. */
import { availableParallelism } from "node:os";
import path from "node:path";
import { parseCorsOrigins, type CorsOrigins } from "./http/cors.ts";

export type Cluster = "eu1" | "us1";

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  modelsDir: string;
  redisUrl: string | null;
  /** Key prefix in Redis, shared with the workers (default stt). */
  redisPrefix: string;
  /** This gateway's name in distributed mode (default: random per process). */
  gatewayId: string | null;
  cluster: Cluster;
  bootstrapApiKey: string | null;
  adminToken: string | null;
  /** Trust `x-forwarded-for` for the client address (behind a reverse proxy). */
  trustProxy: boolean;
  /** Callback URLs may target loopback / private addresses (tests, private deployments). */
  callbacksAllowLoopback: boolean;
  callbacksAllowPrivate: boolean;
  /** Origins browser apps may call the API from (`CORS_ORIGINS`); null = no CORS headers. */
  corsOrigins: CorsOrigins;
  /**
   * Engine worker threads of the embedded recognizer (`ENGINE_THREADS`, default: one per core). The
   * gateway's own work (sockets, VAD thread) is a few per cent of a core per stream, so every core
   * recognizes and the OS shares them.
   */
  engineThreads: number;
  /**
   * Embedded mode: load and warm every installed model in every engine thread at start, readiness
   * waiting for it (`ENGINE_WARM_UP`, default on). Off, engines load on first use and readiness
   * does not wait for them.
   */
  engineWarmUp: boolean;
  /**
   * Admission (`CAPACITY_HEADROOM`, default 0.8): a new session is admitted while the estimated load
   * of the sessions admitted, itself included, stays within `engineThreads × capacityHeadroom`
   * engine-seconds per second (embedded mode); 0 = no limit.
   */
  capacityHeadroom: number;
  /**
   * How often admission refines its stream-cost estimates from the decodes measured (ms; 0 = keep
   * the catalogue's figures). Not an environment setting: tests set it.
   */
  capacityRefineMs: number;
}

/** A start refused for a reason the operator can fix (printed as one line by `main.ts`). */
export class StartupError extends Error {}

function bool(v: string | undefined): boolean {
  return v === "1" || v === "true" || v === "yes";
}

function cors(value: string | undefined): CorsOrigins {
  try {
    return parseCorsOrigins(value);
  } catch (e) {
    throw new StartupError((e as Error).message);
  }
}

function engineThreads(value: string | undefined): number {
  if (value === undefined || value === "") return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new StartupError(`ENGINE_THREADS must be an integer 1..64, got ${value}`);
  return n;
}

function headroom(value: string | undefined): number {
  if (value === undefined || value === "") return 0.8;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new StartupError(`CAPACITY_HEADROOM must be a number 0..100 (0 = no limit), got ${value}`);
  return n;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new StartupError(`PORT must be an integer 0..65535, got ${env.PORT}`);
  const host = env.HOST ?? "0.0.0.0";
  const cluster = (env.CLUSTER ?? "eu1") as Cluster;
  if (cluster !== "eu1" && cluster !== "us1") throw new StartupError(`CLUSTER must be eu1 or us1, got ${env.CLUSTER}`);
  const publicHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  return {
    port,
    host,
    publicUrl: (env.PUBLIC_URL ?? `http://${publicHost}:${port}`).replace(/\/+$/, ""),
    dataDir: path.resolve(env.DATA_DIR ?? "./data"),
    modelsDir: path.resolve(env.MODELS_DIR ?? "./models"),
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || "stt",
    gatewayId: env.GATEWAY_ID || null,
    cluster,
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || null,
    adminToken: env.ADMIN_TOKEN || null,
    trustProxy: bool(env.TRUST_PROXY),
    callbacksAllowLoopback: bool(env.CALLBACKS_ALLOW_LOOPBACK),
    callbacksAllowPrivate: bool(env.CALLBACKS_ALLOW_PRIVATE),
    corsOrigins: cors(env.CORS_ORIGINS),
    engineThreads: engineThreads(env.ENGINE_THREADS),
    engineWarmUp: env.ENGINE_WARM_UP === undefined || env.ENGINE_WARM_UP === "" ? true : bool(env.ENGINE_WARM_UP),
    capacityHeadroom: headroom(env.CAPACITY_HEADROOM),
    capacityRefineMs: 10_000,
  };
}

/** Regions of the `region` query parameter served by each cluster. */
export const clusterRegions: Record<Cluster, readonly string[]> = {
  eu1: ["eu", "eu-west"],
  us1: ["us", "us-west"],
};
