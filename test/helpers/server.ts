/**
 * Starts a real service on a free port with a temporary DATA_DIR, a manual clock and, unless told
 * otherwise, the installed whisper-tiny.en serving trantoria-1 (`englishModelsDir()`).
 */
import { InProcessCoordinator } from "../../workers/coordinator/in-process.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient, type Client } from "../../generated/openapi/client/index.ts";
import { ManualClock } from "../../server/clock.ts";
import type { Config } from "../../server/config.ts";
import { createLogger } from "../../server/log.ts";
import { startServer, type RunningServer } from "../../server/server.ts";
import type { Plan, Scope } from "../../server/store/types.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";

import { englishModelsDir } from "./models.ts";

export { sharedAudio, sharedDir, sharedModels } from "./models.ts";

export interface TestService {
  running: RunningServer;
  clock: ManualClock;
  dataDir: string;
  /** API key of the bootstrap account. */
  key: string;
  client(key?: string): Client;
  /** A new account with its own key. */
  account(opts?: { plan?: Partial<Plan>; scopes?: Scope[]; allowedCidrs?: string[] }): Promise<{ accountId: string; key: string }>;
  stop(): Promise<void>;
}

const quiet = createLogger({ test: true });

export interface TestServiceOptions {
  modelsDir?: string;
  dataDir?: string;
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Shared by several services of one test file (see test/pipeline/helpers.ts). */
  coordinator?: InferenceCoordinator;
  /** Settings that are not environment variables (e.g. `capacityRefineMs`). */
  config?: Partial<Config>;
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), "live-stt-"));
  const clock = opts.clock ?? new ManualClock(Date.parse("2026-03-01T12:00:00Z"));
  const key = "test-bootstrap-key";
  const running = await startServer({
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      MODELS_DIR: opts.modelsDir ?? englishModelsDir(),
      BOOTSTRAP_API_KEY: key,
      ADMIN_TOKEN: "test-admin-token",
      CALLBACKS_ALLOW_LOOPBACK: "true",
      // One engine thread, whatever the machine: the suite runs many services side by side.
      ENGINE_THREADS: "1",
      // Engines load on first use, as most tests never decode (test/server/readiness.test.ts warms).
      ENGINE_WARM_UP: "0",
      // No admission limit: tests open more sessions at once than one thread serves in real time
      // (test/pipeline/capacity.test.ts sets one).
      CAPACITY_HEADROOM: "0",
      ...opts.env,
    },
    config: opts.config,
    clock,
    coordinator: opts.coordinator,
    log: quiet,
  });
  const client = (k: string = key) => createClient({ baseUrl: running.url, headers: { "x-service-key": k } });
  return {
    running,
    clock,
    dataDir,
    key,
    client,
    async account({ plan, scopes, allowedCidrs } = {}) {
      const store = running.deps.store;
      const account = await store.createAccount({ name: "test", plan });
      const { secret } = await store.createKey({ accountId: account.id, scopes, allowedCidrs });
      return { accountId: account.id, key: secret };
    },
    stop: () => running.stop(),
  };
}

/**
 * A coordinator lent to a service that must not close it (its owner does): the service sees all it
 * would see of the coordinator itself, `suspendsBackground` included, but `close`.
 */
export function lentCoordinator(coordinator: InferenceCoordinator): InferenceCoordinator {
  return {
    capabilities: () => coordinator.capabilities(),
    transcribe: (job, signal) => coordinator.transcribe(job, signal),
    ...(coordinator.suspendsBackground !== undefined ? { suspendsBackground: coordinator.suspendsBackground } : {}),
    close: async () => {},
  };
}

/**
 * A service whose trantoria-1 (whisper-tiny.en from `modelsDir`) runs on an in-process engine pool of
 * one thread, loaded before the service starts so that no test's clock pays for it.
 */
export async function startWarmTinyService(modelsDir: string): Promise<TestService> {
  const coordinator = await InProcessCoordinator.create({ modelsDir, threads: 1, queueLimit: 200 });
  await coordinator.transcribe({ sessionId: "warm-up", utteranceId: "0", seq: 1, model: "trantoria-1", request: { audio: new Float32Array(16_000), partial: false, languages: ["en"] } });
  const svc = await startTestService({ modelsDir, coordinator: lentCoordinator(coordinator) });
  return { ...svc, stop: async () => { await svc.stop(); await coordinator.close(); } };
}
