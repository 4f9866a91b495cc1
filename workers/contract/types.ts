/**
 * The inference coordinator: the one interface the session pipeline uses to get transcripts.
 * Two implementations: in-process (embedded mode, engines on worker threads) and Redis Streams
 * (distributed mode, `REDIS_URL` set). Session logic never knows which one it talks to.
 */
import type { LiveModel } from "../../generated/openapi/types.gen.ts";
import type { Feature, TranscribeRequest, TranscribeResult } from "../engines/types.ts";

export type { Feature, LanguageProbability, TranscribeRequest, TranscribeResult, VocabularyEntry, WordTiming } from "../engines/types.ts";

/** A public model name (`model` of the init body). */
export type PublicModel = LiveModel;

/** What one public model can do right now, as served by the installed/registered engines. */
export interface ModelCapability {
  model: PublicModel;
  /** Engine entry serving it (catalogue id). */
  engine: string;
  /** Languages the serving engine transcribes. */
  languages: string[];
  features: Feature[];
  translationTargets: string[];
  /** Latency profiles accepted for this model. */
  profiles: string[];
}

export interface InferenceJob {
  sessionId: string;
  /** Stable id of the utterance within the session (e.g. `${channel}:${index}`). */
  utteranceId: string;
  /** Monotonic per utterance; a final has the highest. Results are idempotent per (session, utterance, seq). */
  seq: number;
  model: PublicModel;
  request: TranscribeRequest;
  /** How urgent the decode is (default: `partial` for a partial request, else `final`); see `DecodePriority`. */
  priority?: DecodePriority;
}

/**
 * Which decodes go first when the engines are behind: a final (the client waits for it), then a
 * speculative final (decoded at a pause, it has the endpointing window to finish in), then a
 * partial (it only refreshes a display, and a newer one follows), then a background decode (a
 * second reading of words already shown, e.g. a revision of committed words: partials decide what
 * gets committed, and so how much audio is left for the final to decode).
 */
export type DecodePriority = "final" | "speculative" | "partial" | "background";

/** Every priority, most urgent first. */
export const PRIORITIES: readonly DecodePriority[] = ["final", "speculative", "partial", "background"];

/** A job's priority, explicit or by default (`partial` for a partial request, else `final`). */
export function priorityOf(job: Pick<InferenceJob, "priority" | "request">): DecodePriority {
  return job.priority ?? (job.request.partial ? "partial" : "final");
}

/** Raised when no engine can take the work now (queue full, no worker with room): callers answer 503 / retry. */
export class NoCapacityError extends Error {
  readonly code = "no_capacity";
}

/** Raised when no engine serves the model/languages/features asked for: callers answer 500. */
export class NoEndpointError extends Error {
  readonly code = "no_inference_endpoint";
  constructor(message = "no inference endpoint available") {
    super(message);
  }
}

export interface InferenceCoordinator {
  /** Models and add-ons that can be served right now. */
  capabilities(): Promise<ModelCapability[]>;
  /** Run one transcription. Rejects with NoCapacityError / NoEndpointError as above. */
  transcribe(job: InferenceJob, signal?: AbortSignal): Promise<TranscribeResult>;
  close(): Promise<void>;
  /**
   * A background job running where a more urgent one waits for its engine is suspended, its work
   * kept, and goes on afterwards: callers need not stop it to let the urgent one through.
   */
  readonly suspendsBackground?: boolean;
}
