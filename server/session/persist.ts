/**
 * Session state persisted on shutdown so a restarted process resumes the session on reconnect.
 * The retained raw audio goes to a file under DATA_DIR (`sessions/<id>.tail`); the rest is JSON in
 * the session record's `resumeState`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Utterance } from "../../generated/openapi/types.gen.ts";

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
  /** Absolute offset from which audio is not yet transcribed, and its session time in seconds. */
  replayFrom: number;
  replayFromSeconds: number;
  /** Session time up to which every utterance was handled before the restart. */
  suppressBefore: number;
  /** WAV header length at the stream start (0 without one). */
  headerBytes: number;
  /** Final utterances sent so far. */
  utterances: Utterance[];
  /** Per channel: the next utterance index. */
  indexBase: number[];
  /** Per channel: end (s) of the last final utterance. */
  lastFinalEnd: number[];
  transcriptionTimeS: number;
}

/** JSON stored in `resumeState`. */
export interface StoredResumeState extends Omit<PersistedSession, "tail"> {
  tailFile: string;
}

export function tailPath(dataDir: string, sessionId: string): string {
  return join(dataDir, "sessions", `${sessionId}.tail`);
}

/** Writes the tail file and returns the JSON for `resumeState`. */
export function saveSession(dataDir: string, sessionId: string, s: PersistedSession): StoredResumeState {
  const file = tailPath(dataDir, sessionId);
  mkdirSync(join(dataDir, "sessions"), { recursive: true });
  writeFileSync(file, s.tail);
  const { tail: _tail, ...rest } = s;
  return { ...rest, tailFile: file };
}

/** Reads a persisted session back; null when the state is missing or unusable. */
export function loadSession(state: unknown): PersistedSession | null {
  const s = state as StoredResumeState | null;
  if (!s || s.version !== 1 || typeof s.tailFile !== "string") return null;
  try {
    const tail = new Uint8Array(readFileSync(s.tailFile));
    if (tail.length !== s.received - s.tailStart) return null;
    const { tailFile: _f, ...rest } = s;
    return { ...rest, tail };
  } catch {
    return null;
  }
}

export function removeTail(state: unknown): void {
  const s = state as StoredResumeState | null;
  if (s && typeof s.tailFile === "string") rmSync(s.tailFile, { force: true });
}
