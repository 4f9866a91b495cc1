/**
 * The transcriber's decode jobs: the request sent to the coordinator for an utterance's audio (prompt,
 * languages, vocabulary, the latency profile's decode settings), and a final's wait for inference
 * capacity and retries.
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { NoCapacityError, type DecodePriority, type TranscribeResult } from "../../workers/contract/types.ts";
import { FRONTEND_SAMPLE_RATE } from "../audio/frontend.ts";
import { concatSamples } from "../audio/samples.ts";
import { contextLanguage, previousText, sessionVocabulary } from "./context.ts";
import { LEAD_MAX_UTTERANCE_S, type LeadContext } from "./lead.ts";
import type { LanguageEvidence } from "./language.ts";
import type { StreamingProfile } from "./profiles.ts";
import type { StreamDecodeRequest } from "./stream-types.ts";
import type { TranscriberHost } from "./transcriber-host.ts";

/** How long a final transcription waits for inference capacity before its utterance is reported failed. */
const FINAL_CAPACITY_WAIT_MS = 120_000;

/** What a session's decode jobs are built from: its host, the finals it has heard (the prompt), its language evidence, its latency profile. */
export interface DecodeJobs {
  host: TranscriberHost;
  heard: readonly Utterance[];
  language: LanguageEvidence;
  profile: StreamingProfile;
  /** The lead of a short final on `channel` starting at `start` (session s), if it has one (`lead.ts`). */
  lead?: (channel: number, start: number) => LeadContext | undefined;
}

/** Options of one decode besides the audio: the prompt text, the beam size of a final, and what aborts a streamed decode. */
export interface DecodeExtra {
  previousText?: string;
  beamSize?: number;
  signal?: AbortSignal;
  /** A speculative final (`speculative`) or a background decode (`background`); a final's is `final`, a partial's `partial`. */
  priority?: DecodePriority;
  /** Earlier utterances heard before this audio (its prompt is then the lead's `previousText`). */
  lead?: LeadContext;
  /** The caller keeps its own reading if this decode fails (`TranscribeRequest.noFallback`). */
  noFallback?: boolean;
  /** Seconds of the utterance before the audio (where its language detection stands, `LanguageEvidence`). */
  offset?: number;
  /** The decode only checks for speech: its language detection is no witness. */
  probe?: boolean;
}

/** The lead of a final-settings decode of a whole short utterance starting at `start` (session s), if any. */
export function leadOf(jobs: DecodeJobs, channel: number, start: number, audio: Float32Array): LeadContext | undefined {
  return audio.length <= LEAD_MAX_UTTERANCE_S * FRONTEND_SAMPLE_RATE ? jobs.lead?.(channel, start) : undefined;
}

/**
 * One decode of a streamed utterance: a partial or a speculative final fails quietly (e.g. no
 * capacity; the final then decodes anew), a final waits and retries.
 */
export async function decodeForStream(jobs: DecodeJobs, channel: number, key: string, start: number, req: StreamDecodeRequest, seq: number, signal?: AbortSignal): Promise<TranscribeResult> {
  const lead = !req.partial && req.leadable ? leadOf(jobs, channel, start, req.audio) : undefined;
  const priority: DecodePriority | undefined = req.background ? "background" : req.speculative ? "speculative" : undefined;
  // A background decode (a revision) fails without fallback: the committed words it would replace stay.
  const extra: DecodeExtra = { previousText: req.previousText, beamSize: req.beamSize, signal, offset: req.offset, ...(req.probe ? { probe: true } : {}), ...(priority ? { priority } : {}), ...(lead ? { lead } : {}), ...(req.background ? { noFallback: true } : {}) };
  if (req.partial || req.speculative || req.background) return transcribe(jobs, channel, key, seq, req.audio, req.partial, extra);
  const r = await transcribeWithRetry(jobs, channel, key, 1_000_000 + seq, req.audio, extra);
  if (!r) throw new Error("final transcription failed");
  return r;
}

/**
 * A final of an admitted session waits for inference capacity (a backlog is not a reason to drop an
 * utterance: admission refuses new sessions instead); only after FINAL_CAPACITY_WAIT_MS, or on any
 * other failure, is the utterance reported failed with an `error` message.
 */
export async function transcribeWithRetry(jobs: DecodeJobs, channel: number, key: string, seq: number, audio: Float32Array, extra: DecodeExtra = {}): Promise<TranscribeResult | null> {
  const deadline = Date.now() + FINAL_CAPACITY_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await transcribe(jobs, channel, key, seq, audio, false, extra);
    } catch (e) {
      if (e instanceof NoCapacityError && Date.now() < deadline) {
        if (attempt === 5) jobs.host.log.warn("inference backlog: a final transcription is waiting for capacity", { utterance: key });
        await Bun.sleep(Math.min(1000, 50 * 2 ** attempt));
        continue;
      }
      jobs.host.log.error("transcription failed", { utterance: key, err: e });
      jobs.host.error(`transcription of utterance ${key} failed: ${(e as Error).message}`, "transcription_failed");
      return null;
    }
  }
}

export async function transcribe(jobs: DecodeJobs, channel: number, key: string, seq: number, audio: Float32Array, partial: boolean, extra: DecodeExtra = {}): Promise<TranscribeResult> {
  const { id, options } = jobs.host;
  const languages = decodeLanguages(jobs);
  const detects = languages === undefined || languages.length > 1;
  const languagePrior = detects && !jobs.host.options.language_config.code_switching ? jobs.language.prior(key) : undefined;
  const vocabulary = sessionVocabulary(options);
  const lead = extra.lead;
  const previous = lead ? lead.previousText : (extra.previousText ?? previousText(jobs.heard, channel));
  // The language the prompt and the lead are in, for an engine that detects the language (see `inContext`).
  const context = detects && (lead || previous !== "") ? (lead ? lead.language : contextLanguage(jobs.heard, channel)) : undefined;
  const job = {
    sessionId: id,
    utteranceId: key,
    seq,
    model: options.model,
    priority: extra.priority ?? (partial ? "partial" : "final"),
    request: {
      audio: lead ? concatSamples([lead.audio, audio]) : audio,
      ...(lead ? { lead: { samples: lead.audio.length, text: lead.text, segments: lead.segments } } : {}),
      partial,
      streamKey: `${id}/${key}`,
      languages,
      ...(vocabulary.length > 0 ? { vocabulary } : {}),
      ...(previous !== "" ? { previousText: previous } : {}),
      ...(context !== undefined ? { contextLanguage: context } : {}),
      ...(languagePrior ? { languagePrior } : {}),
      ...(extra.beamSize !== undefined ? { beamSize: extra.beamSize } : {}),
      ...(extra.noFallback ? { noFallback: true } : {}),
      ...(jobs.profile.lowLatencyDecodes ? { lowLatency: true } : {}),
      ...(partial && jobs.profile.shortPartialWindows ? { shortPartialWindows: true } : {}),
    },
  };
  const r = await jobs.host.coordinator.transcribe(job, extra.signal);
  if (detects && !extra.probe) {
    const span = { from: extra.offset ?? 0, seconds: audio.length / FRONTEND_SAMPLE_RATE };
    if (r.text.trim() === "") jobs.language.forget(key, partial, span);
    else jobs.language.record(key, r.languageProbabilities, span.seconds, partial, span.from);
  }
  return r;
}

/**
 * The languages a decode chooses from: those of `language_config`; without `code_switching` (and
 * unless one language is set), the session's language once its evidence settles it (see
 * `LanguageEvidence`), or, in a session restored before that evidence was gathered again, the
 * language of its first final. Undefined: any of the model's.
 */
function decodeLanguages(jobs: DecodeJobs): string[] | undefined {
  const { languages, code_switching } = jobs.host.options.language_config;
  if (!code_switching && languages.length !== 1) {
    const settled = jobs.language.settled();
    if (settled !== undefined) return [settled];
    const first = jobs.language.prior() === undefined ? jobs.heard.find((u) => u.language !== "") : undefined;
    if (first) return [first.language];
  }
  return languages.length > 0 ? languages : undefined;
}
