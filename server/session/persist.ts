/**
 * Session state persisted when a gateway lets a session go (shutdown, or a hand-over to another
 * gateway) so that whichever gateway the client reconnects to resumes it. It is stored whole in the
 * session record's `resumeState` (the retained raw audio as base64), so it lives wherever the store
 * lives: SQLite embedded, Redis when gateways share one.
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { SessionMessage } from "./messages.ts";

export interface PersistedSession {
  version: 1;
  /** Bytes received (absolute stream offset of the next byte). */
  received: number;
  /** Absolute offset of `tail[0]`. */
  tailStart: number;
  /** Raw bytes `[tailStart, received)`. */
  tail: Uint8Array;
  /** Offsets the client may resend from (the last confirmed resume point, then every ack end since). */
  candidates: number[];
  /**
   * Per candidate: session time up to which every final had been sent when that acknowledgment was
   * (an ack may run ahead of the finals it covers); absent in states stored before acks could.
   */
  candidateFinalsUntil?: number[];
  /** Absolute offset from which audio is not yet transcribed, and its session time in seconds. */
  replayFrom: number;
  replayFromSeconds: number;
  /** Session time up to which every utterance was handled before the restart. */
  suppressBefore: number;
  /** WAV header length at the stream start (0 without one). */
  headerBytes: number;
  /** Final utterances sent so far. */
  utterances: Utterance[];
  /** The message id of each final (absent in states stored before ids were kept). */
  finalIds?: string[];
  /** Per channel: the next utterance index. */
  indexBase: number[];
  /** Per channel: end (s) of the last final utterance. */
  lastFinalEnd: number[];
  transcriptionTimeS: number;
  /** Messages produced while no socket was attached, to send on reconnect (in order). */
  held?: SessionMessage[];
  /** Finals sent whose audio the client has not confirmed: sent again on reconnect (not in `held`). */
  unconfirmed?: SessionMessage[];
  /** What the enrichers keep across a restart, by enricher name (e.g. the entity numbers). */
  enrichers?: Record<string, unknown>;
}

/** JSON stored in `resumeState`. */
export interface StoredResumeState extends Omit<PersistedSession, "tail"> {
  /** The tail bytes, base64. */
  tailBase64: string;
}

/** The JSON for `resumeState`. */
export function encodeSession(s: PersistedSession): StoredResumeState {
  const { tail, ...rest } = s;
  return { ...rest, tailBase64: Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength).toString("base64") };
}

/** Reads a persisted session back; null when the state is missing or unusable. */
export function decodeSession(state: unknown): PersistedSession | null {
  const s = state as StoredResumeState | null;
  if (!s || typeof s !== "object" || s.version !== 1 || typeof s.tailBase64 !== "string") return null;
  const tail = new Uint8Array(Buffer.from(s.tailBase64, "base64"));
  if (tail.length !== s.received - s.tailStart) return null;
  const { tailBase64: _t, ...rest } = s;
  return { ...rest, tail };
}
