/** Worker thread body: loads engines on demand (cached per entry id) and runs transcriptions. */
import { parentPort } from "node:worker_threads";
import { LoadOnce } from "../../common/load-once.ts";
import { loadEngine } from "../engines/registry.ts";
import type { Engine } from "../engines/types.ts";
import { hold } from "../util/abort.ts";
import type { EngineSpec, FromWorker, ToWorker } from "./protocol.ts";

if (!parentPort) throw new Error("workers/pool/worker.ts must run as a worker thread");
const port = parentPort;
const engines = new LoadOnce<string, Engine>();
/**
 * The jobs started and not yet answered: one running, and any suspended ones (each waiting at a
 * stop point of its engine, `hold`), with what aborts and what releases each.
 */
const jobs = new Map<number, { controller: AbortController; release?: () => void }>();

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
    const job = jobs.get(msg.jobId);
    job?.controller.abort(new DOMException("the job was aborted", "AbortError"));
    job?.release?.(); // a suspended job wakes to throw
    return;
  }
  if (msg.type === "suspend") {
    const job = jobs.get(msg.jobId);
    if (job && !job.release) job.release = hold(job.controller.signal, () => port.postMessage({ type: "suspended", jobId: msg.jobId } satisfies FromWorker));
    return;
  }
  if (msg.type === "resume") {
    const job = jobs.get(msg.jobId);
    job?.release?.();
    if (job) job.release = undefined;
    return;
  }
  if (msg.type === "release") {
    const engine = engines.take(msg.engineId);
    if (engine) await (await engine.catch(() => undefined))?.dispose();
    return;
  }
  const job = { controller: new AbortController() };
  jobs.set(msg.jobId, job);
  try {
    const engine = await engineFor(msg.spec);
    const result = await engine.transcribe(msg.request, job.controller.signal);
    port.postMessage({ type: "result", jobId: msg.jobId, result } satisfies FromWorker);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    port.postMessage({ type: "error", jobId: msg.jobId, error: { name: e.name, message: e.message } } satisfies FromWorker);
  } finally {
    jobs.get(msg.jobId)?.release?.();
    jobs.delete(msg.jobId);
  }
});
