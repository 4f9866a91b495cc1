/** Worker thread body: loads engines on demand (cached per entry id) and runs transcriptions. */
import { parentPort } from "node:worker_threads";
import { LoadOnce } from "../../common/load-once.ts";
import { loadEngine } from "../engines/registry.ts";
import type { Engine } from "../engines/types.ts";
import type { EngineSpec, FromWorker, ToWorker } from "./protocol.ts";

if (!parentPort) throw new Error("workers/pool/worker.ts must run as a worker thread");
const port = parentPort;
const engines = new LoadOnce<string, Engine>();
/** The job running (one at a time) and what aborts it. */
let current: { jobId: number; controller: AbortController } | null = null;

function engineFor(spec: EngineSpec): Promise<Engine> {
  return engines.get(spec.id, () => loadEngine(spec.family, spec.dir, { name: spec.id, threads: spec.threads, options: spec.options }));
}

async function disposeAll(): Promise<void> {
  const all = engines.takeAll();
  for (const engine of all) await (await engine.catch(() => undefined))?.dispose();
}

port.on("message", async (msg: ToWorker) => {
  if (msg.type === "shutdown") {
    await disposeAll();
    port.postMessage({ type: "idle" } satisfies FromWorker);
    return;
  }
  if (msg.type === "abort") {
    if (current?.jobId === msg.jobId) current.controller.abort(new DOMException("the job was aborted", "AbortError"));
    return;
  }
  if (msg.type === "release") {
    const engine = engines.take(msg.engineId);
    if (engine) await (await engine.catch(() => undefined))?.dispose();
    return;
  }
  const job = { jobId: msg.jobId, controller: new AbortController() };
  current = job;
  try {
    const engine = await engineFor(msg.spec);
    const result = await engine.transcribe(msg.request, job.controller.signal);
    port.postMessage({ type: "result", jobId: msg.jobId, result } satisfies FromWorker);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    port.postMessage({ type: "error", jobId: msg.jobId, error: { name: e.name, message: e.message } } satisfies FromWorker);
  } finally {
    if (current === job) current = null;
  }
});
