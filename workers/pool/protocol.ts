/** Messages between the engine pool and its worker threads. */
import type { EngineFamily, TranscribeRequest, TranscribeResult } from "../engines/types.ts";

/** Everything a worker needs to load an engine (serialisable). */
export interface EngineSpec {
  /** Catalogue entry id; engines are cached per id within a worker. */
  id: string;
  family: EngineFamily;
  /** Absolute model directory. */
  dir: string;
  options?: Record<string, unknown>;
  /** onnxruntime intra-op threads per session. */
  threads?: number;
}

export type ToWorker =
  | { type: "transcribe"; jobId: number; spec: EngineSpec; request: TranscribeRequest }
  | { type: "release"; engineId: string }
  /** The pool no longer wants job `jobId`'s result: its engine may stop early. */
  | { type: "abort"; jobId: number }
  /**
   * Job `jobId` should wait, its work so far kept, while a more urgent job runs: the worker answers
   * `{ type: "suspended" }` once it waits (or the job's result, if it ended first).
   */
  | { type: "suspend"; jobId: number }
  /** A suspended job goes on. */
  | { type: "resume"; jobId: number }
  /** Dispose every engine and go idle; the worker answers `{ type: "idle" }`. */
  | { type: "shutdown" };

export interface SerializedError {
  name: string;
  message: string;
}

export type FromWorker =
  | { type: "result"; jobId: number; result: TranscribeResult }
  | { type: "error"; jobId: number; error: SerializedError }
  /** Job `jobId` waits (`suspend`): the worker's engine is free for another job. */
  | { type: "suspended"; jobId: number }
  | { type: "idle" };
