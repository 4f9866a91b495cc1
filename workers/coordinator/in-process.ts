/**
 * Embedded-mode inference coordinator: capabilities come from the catalogue and the files in
 * MODELS_DIR (re-read on each `capabilities()` call, so installing or removing models needs no
 * restart; a decode uses the table as last read, read again when MODELS_DIR changes or when the
 * job's model is not in it), and transcriptions run on an `EnginePool` of worker threads.
 */
import { resolve } from "node:path";
import { capabilityOf, ServingTable, type ServingEntry } from "../catalogue/capabilities.ts";
import { canServe } from "../contract/can-serve.ts";
import { EnginePool } from "../pool/pool.ts";
import type { EngineSpec } from "../pool/protocol.ts";
import type { TranscribeRequest, TranscribeResult } from "../engines/types.ts";
import { NoEndpointError, type InferenceCoordinator, type InferenceJob, type ModelCapability } from "../contract/types.ts";

export interface InProcessCoordinatorOptions {
  modelsDir: string;
  /** Worker threads running engines. */
  threads?: number;
  /** Jobs that may wait for a free worker before `NoCapacityError`. */
  queueLimit?: number;
  /** onnxruntime intra-op threads per engine session (default 1). */
  sessionThreads?: number;
}

export class InProcessCoordinator implements InferenceCoordinator {
  /** The engine pool suspends a background decode for a more urgent one (`EnginePool`). */
  readonly suspendsBackground = true;

  private constructor(
    private readonly modelsDir: string,
    private readonly serving: ServingTable,
    private readonly pool: EnginePool,
    private readonly sessionThreads: number,
  ) {}

  /** Starts the worker pool for the models in `modelsDir`. */
  static async create(opts: InProcessCoordinatorOptions): Promise<InProcessCoordinator> {
    const pool = new EnginePool({ threads: opts.threads, queueLimit: opts.queueLimit });
    const modelsDir = resolve(opts.modelsDir);
    return new InProcessCoordinator(modelsDir, new ServingTable(modelsDir), pool, opts.sessionThreads ?? 1);
  }

  async capabilities(): Promise<ModelCapability[]> {
    return this.serving.refresh().map(({ model, entry, alignsWords }) => capabilityOf(model, entry, alignsWords));
  }

  /**
   * Loads every installed serving engine in every worker thread and runs `requests` on it there
   * (one warm-up decode each), off the event loop. Resolves with the public models warmed.
   */
  async warm(requests: TranscribeRequest[]): Promise<string[]> {
    const serving = this.serving.refresh();
    const seen = new Set<string>();
    for (const { entry } of serving) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      await this.pool.warm(this.specOf(entry), requests);
    }
    return serving.map((s) => s.model.model);
  }

  private specOf(entry: ServingEntry["entry"]): EngineSpec {
    return { id: entry.id, family: entry.family as EngineSpec["family"], dir: resolve(this.modelsDir, entry.dir), options: entry.options, threads: this.sessionThreads };
  }

  async transcribe(job: InferenceJob, signal?: AbortSignal): Promise<TranscribeResult> {
    const ofModel = (table: ServingEntry[]) => table.find((s) => s.model.model === job.model);
    const serving = ofModel(this.serving.current()) ?? ofModel(this.serving.refresh());
    if (!serving) throw new NoEndpointError();
    // The serving entry's capability (what `capabilities()` lists for this model).
    const caps = [capabilityOf(serving.model, serving.entry, serving.alignsWords)];
    const { languages, task, targetLanguage } = job.request;
    const verdict = canServe(caps, {
      model: job.model,
      languages,
      translationTargets: task === "translate" && targetLanguage ? [targetLanguage] : undefined,
    });
    if (!verdict.ok) throw new NoEndpointError(`no inference endpoint available: ${verdict.reason}`);
    return this.pool.run(this.specOf(serving.entry), job.request, signal, job.priority);
  }

  /** Engine threads of the pool: the capacity admission shares among streams. */
  get threads(): number {
    return this.pool.threads;
  }

  /** Engine-seconds spent per engine (catalogue id) since the pool started (`EnginePool.engineSeconds`). */
  engineSeconds(): ReadonlyMap<string, number> {
    return this.pool.engineSeconds();
  }

  /** Current pool load (running and queued jobs). */
  get load(): { running: number; queued: number; oldestQueuedMs: number } {
    return this.pool.load;
  }

  async close(): Promise<void> {
    this.serving.close();
    await this.pool.close();
  }
}
