/**
 * The end of a session in the store: its record written (result, duration, recording path) and its
 * audio billed to the account. Store failures are logged; the audio path never waits on them longer
 * than the write itself.
 */
import type { TranscriptionResult } from "../../generated/openapi/types.gen.ts";
import type { AudioFormat } from "../audio/format.ts";
import type { Logger } from "../log.ts";
import type { SessionRecord, Store } from "../store/types.ts";
import type { SessionAcks } from "./acks.ts";
import type { EnrichmentPipeline } from "./enrich.ts";
import { round3, type MessageFactory, type SessionMessage } from "./messages.ts";
import type { SessionRecording } from "./recording-spool.ts";
import { buildResult, buildTranscription } from "./result.ts";
import type { Transcriber } from "./transcriber.ts";

/** A change to a stored session record. */
export type SessionPatch = Parameters<Store["updateSession"]>[1];
/** Writes a patch of one session's record; failures are logged. */
export type SaveSession = (patch: SessionPatch) => Promise<void>;

export function sessionWriter(store: Store, id: string, log: Logger): SaveSession {
  return (patch) => store.updateSession(id, patch).catch((e) => log.error("session record not updated", { err: e }));
}

export interface Outcome {
  accountId: SessionRecord["accountId"];
  result: TranscriptionResult;
  durationS: number;
  recording: SessionRecording | null;
}

/**
 * Completes the recording, then stores the final state and bills the duration, together. Resolves
 * once both are done, so a client reading the session after the close sees it done.
 */
export async function storeOutcome(store: Store, save: SaveSession, log: Logger, o: Outcome, now: () => number): Promise<void> {
  let recordingPath: string | null = null;
  if (o.recording) {
    try {
      recordingPath = (await o.recording.finish()).path;
    } catch (e) {
      log.error("recording failed", { err: e });
    }
  }
  const endedAt = now();
  await Promise.all([
    save({ status: "done", result: o.result, endedAt, updatedAt: endedAt, audioDurationS: round3(o.durationS), recordingPath, resumeState: null }),
    store.consumeCredits(o.accountId, o.durationS).catch((e) => log.error("credits not updated", { err: e })),
  ]);
}

/** The parts of a session its conclusion reads. */
export interface Concluding {
  format: AudioFormat;
  log: Logger;
  messages: MessageFactory;
  enrichment: EnrichmentPipeline;
  acks: SessionAcks;
  transcriber: Transcriber;
  recording: SessionRecording | null;
}

/**
 * Once every final is delivered: the enrichers' closing messages, `end_recording`, the transcripts
 * of the whole session and the stored outcome (before the socket closes, so a client reading the
 * session after the close sees it done).
 */
export async function concludeSession(
  p: Concluding,
  emit: (message: SessionMessage) => void,
  o: { store: Store; save: SaveSession; accountId: SessionRecord["accountId"]; now: () => number },
): Promise<void> {
  if (p.enrichment.active) for (const m of await p.enrichment.finish()) emit(m);
  const duration = p.acks.totalDuration();
  const utterances = p.transcriber.utterances;
  emit(p.messages.endRecording(duration));
  const result = { ...buildResult(utterances, { audioDurationS: duration, channels: p.format.channels, transcriptionTimeS: p.transcriber.transcriptionTimeS }), ...p.enrichment.result() };
  emit(p.messages.postTranscript(buildTranscription(utterances)));
  emit(p.messages.postFinalTranscript(result));
  await storeOutcome(o.store, o.save, p.log, { accountId: o.accountId, result, durationS: duration, recording: p.recording }, o.now);
}
