/**
 * Readiness: the parts a start waits for before the service runs sessions at full speed (the VAD
 * model, the engines loaded and warmed in every engine thread, or a worker serving the models in
 * distributed mode). Each part is tracked from a promise; `GET /health/ready` reads `view()`.
 */
import type { Readiness as ReadinessBody } from "../../generated/openapi/types.gen.ts";

type Model = ReadinessBody["models"][number];

export class Readiness {
  private readonly waiting = new Map<string, string>();
  private readonly failed = new Map<string, string>();
  private readonly models = new Set<Model>();
  private readyAt: number | null = null;

  constructor(private readonly startedAt = performance.now()) {}

  /** Waits for `part` (`what`: a phrase for the 503 body) until `done` settles; it may add served models. */
  track(part: string, what: string, done: Promise<Model[] | void>): void {
    this.waiting.set(part, what);
    this.readyAt = null;
    done.then(
      (models) => {
        for (const m of models ?? []) this.models.add(m);
        this.waiting.delete(part);
        if (this.waiting.size === 0 && this.failed.size === 0) this.readyAt = performance.now();
      },
      (e: unknown) => {
        this.waiting.delete(part);
        this.failed.set(part, `failed: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }

  get ready(): boolean {
    return this.readyAt !== null;
  }

  view(): ReadinessBody {
    const lines = [...this.waiting].map(([part, what]) => `${part}: ${what}`).concat([...this.failed].map(([part, why]) => `${part}: ${why}`));
    return {
      status: this.ready ? "ready" : "unready",
      waiting_for: lines,
      ready_after_s: this.readyAt === null ? null : Math.round(this.readyAt - this.startedAt) / 1000,
      models: [...this.models],
    };
  }
}
