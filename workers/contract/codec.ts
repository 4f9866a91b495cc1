/**
 * Wire format of jobs and results on Redis Streams.
 *
 * A job entry has two fields: `meta` (JSON: identity, model, reply stream and every request
 * option) and `audio` (the mono float32 samples as little-endian bytes). A result entry has `key`
 * plus either `result` (JSON `TranscribeResult`) or `error` (a message).
 */
import { PRIORITIES, priorityOf, type DecodePriority, type InferenceJob, type PublicModel } from "./types.ts";
import type { TranscribeRequest, TranscribeResult } from "../engines/types.ts";
import type { JobTier } from "../../common/redis/keys.ts";

const WIRE_VERSION = 1;

/** The job stream tier of a priority: finals and speculative finals are read before partials, partials before background decodes. */
export function tierOf(priority: DecodePriority): JobTier {
  return priority === "partial" ? "partial" : priority === "background" ? "background" : "urgent";
}

/** Idempotency key of a job: results are unique per (session, utterance, seq). */
export function jobKey(job: Pick<InferenceJob, "sessionId" | "utteranceId" | "seq">): string {
  return JSON.stringify([job.sessionId, job.utteranceId, job.seq]);
}

export interface JobMeta {
  v: number;
  key: string;
  sessionId: string;
  utteranceId: string;
  seq: number;
  model: PublicModel;
  /** Stream the worker answers on. */
  reply: string;
  /** Gateway wall-clock time of the first submission (ms). */
  submittedAt: number;
  request: Omit<TranscribeRequest, "audio">;
  /** How urgent the job is (absent from jobs of earlier gateways: then as `InferenceJob.priority` defaults). */
  priority?: DecodePriority;
}

export interface DecodedJob {
  meta: JobMeta;
  job: InferenceJob;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float32 samples as little-endian bytes (a copy). */
export function audioToBytes(audio: Float32Array): Buffer {
  const bytes = Buffer.from(audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.byteLength));
  if (!LITTLE_ENDIAN) bytes.swap32();
  return bytes;
}

/** Little-endian float32 bytes back to samples; throws on a length that is not a multiple of 4. */
export function bytesToAudio(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error(`audio field has ${bytes.byteLength} bytes, not a multiple of 4`);
  const copy = Buffer.from(bytes); // aligned, owned copy
  if (!LITTLE_ENDIAN) copy.swap32();
  return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
}

/** Checks the parts of a job that must hold before it is queued; throws a TypeError naming the fault. */
export function validateJob(job: InferenceJob): void {
  if (!job || typeof job !== "object") throw new TypeError("inference job must be an object");
  if (typeof job.sessionId !== "string" || !job.sessionId) throw new TypeError("inference job needs a sessionId");
  if (typeof job.utteranceId !== "string") throw new TypeError("inference job needs an utteranceId");
  if (!Number.isFinite(job.seq)) throw new TypeError("inference job needs a numeric seq");
  if (typeof job.model !== "string" || !job.model) throw new TypeError("inference job needs a model");
  if (!job.request || !(job.request.audio instanceof Float32Array)) throw new TypeError("inference job audio must be a Float32Array");
  if (job.priority !== undefined && !PRIORITIES.includes(job.priority)) throw new TypeError(`inference job has unknown priority ${JSON.stringify(job.priority)}`);
}

/** Stream fields of a job. */
export function encodeJob(job: InferenceJob, reply: string, submittedAt: number): { meta: string; audio: Buffer } {
  const { audio, ...request } = job.request;
  const meta: JobMeta = {
    v: WIRE_VERSION,
    key: jobKey(job),
    sessionId: job.sessionId,
    utteranceId: job.utteranceId,
    seq: job.seq,
    model: job.model,
    reply,
    submittedAt,
    request,
    priority: priorityOf(job),
  };
  return { meta: JSON.stringify(meta), audio: audioToBytes(audio) };
}

/** Parses the `meta` field alone (enough to answer a job whose audio is unusable). */
export function decodeJobMeta(meta: Uint8Array | string | undefined): JobMeta {
  if (meta === undefined) throw new Error("job entry has no meta field");
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof meta === "string" ? meta : Buffer.from(meta).toString("utf8"));
  } catch (err) {
    throw new Error(`job meta is not JSON: ${(err as Error).message}`);
  }
  const m = parsed as Partial<JobMeta>;
  if (!m || typeof m !== "object" || m.v !== WIRE_VERSION) throw new Error(`job meta has unsupported version ${m?.v}`);
  if (typeof m.key !== "string" || typeof m.reply !== "string" || typeof m.model !== "string") {
    throw new Error("job meta lacks key, reply or model");
  }
  if (!m.request || typeof m.request !== "object") throw new Error("job meta lacks request options");
  if (m.priority !== undefined && !PRIORITIES.includes(m.priority)) throw new Error(`job meta has unknown priority ${JSON.stringify(m.priority)}`);
  return m as JobMeta;
}

/** Decodes a job entry's fields; throws a descriptive error on anything malformed. */
export function decodeJob(fields: Record<string, Buffer>): DecodedJob {
  const meta = decodeJobMeta(fields.meta);
  if (!fields.audio) throw new Error("job entry has no audio field");
  const audio = bytesToAudio(fields.audio);
  return {
    meta,
    job: {
      sessionId: meta.sessionId,
      utteranceId: meta.utteranceId,
      seq: meta.seq,
      model: meta.model,
      request: { ...meta.request, audio },
      ...(meta.priority ? { priority: meta.priority } : {}),
    },
  };
}

export type ReplyMessage = { key: string; worker: string } & ({ result: TranscribeResult } | { error: string });

/** Stream fields of a result or an error answer. */
export function encodeReply(reply: ReplyMessage): Record<string, string> {
  const fields: Record<string, string> = { key: reply.key, worker: reply.worker };
  if ("result" in reply) fields.result = JSON.stringify(reply.result);
  else fields.error = reply.error;
  return fields;
}

/** Parses a reply entry; throws on malformed fields. */
export function decodeReply(fields: Record<string, Buffer | string>): ReplyMessage {
  const text = (name: string) => (fields[name] === undefined ? undefined : fields[name].toString());
  const key = text("key");
  if (!key) throw new Error("reply entry has no key");
  const worker = text("worker") ?? "unknown";
  const error = text("error");
  if (error !== undefined) return { key, worker, error };
  const raw = text("result");
  if (raw === undefined) throw new Error("reply entry has neither result nor error");
  const result = JSON.parse(raw) as TranscribeResult;
  if (typeof result?.text !== "string") throw new Error("reply result has no text");
  return { key, worker, result };
}
