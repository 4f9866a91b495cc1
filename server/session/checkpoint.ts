/**
 * Crash checkpoints: an acknowledgment is a durable checkpoint. Before an ack covering byte X is
 * sent, what a restarted process (or another gateway) needs to resume at X is in the store: the
 * stream offsets and resume candidates, the raw tail the restart replays (the utterance open at the
 * checkpoint restarts there; the client's resend of everything after its last ack covers the rest),
 * the finals with their ids, and the recognizer's counters. A gateway that dies without stopping
 * (`kill -9`, power loss of the process) then loses nothing the client has not kept.
 *
 * Writes are small and batched: the tail and the finals are appended (only what is new since the
 * previous write), the state is a few numbers; one write is in flight per session, and acks that
 * arrive meanwhile wait for the next write, which covers them all.
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import type { CheckpointWrite, Store, StoredCheckpoint } from "../store/types.ts";
import type { Logger } from "../log.ts";
import { MessageFactory, type SessionMessage } from "./messages.ts";
import type { PersistedSession } from "./persist.ts";

/** The stored state of a checkpoint (JSON). */
export interface CheckpointState extends Omit<PersistedSession, "version" | "tail" | "utterances" | "finalIds" | "held" | "unconfirmed"> {
  version: 1;
  /** Session time the client has confirmed: finals ending later are sent again on resume. */
  confirmedUntil: number;
  /** How many finals the checkpoint holds. */
  finals: number;
  /** When it was stored (epoch ms): a session checkpointed within the resume window is not abandoned. */
  savedAt: number;
}

/** A final as stored with a checkpoint. */
export interface CheckpointFinal {
  id: string;
  utterance: Utterance;
}

/** What the session hands over when a checkpoint is written. */
export interface CheckpointCapture {
  state: Omit<CheckpointState, "finals" | "savedAt">;
  /** Retained raw bytes from an absolute offset (at least `state.tailStart`) to `state.received`. */
  bytesFrom(offset: number): Uint8Array;
  /** How many finals were delivered so far. */
  finalCount: number;
  /** The finals delivered from index `i` on, in order (the writer appends those it has not stored). */
  finalsFrom(i: number): CheckpointFinal[];
}

/** Counts of the checkpoint writes of one session (for the ack-cost measurement). */
export interface CheckpointStats {
  writes: number;
  acks: number;
  /** Milliseconds acks waited for their checkpoint, summed. */
  waitMs: number;
}

export class Checkpointer {
  /** Audio chunks stored, by absolute offset; null until the first (resetting) write. */
  private chunks: { offset: number; length: number }[] | null = null;
  private finalsStored = 0;
  private inFlight: Promise<void> | null = null;
  /** Acks waiting for the next write, with the moment they were recorded. */
  private waiting: { release: () => void; at: number }[] = [];
  private closed = false;
  readonly stats: CheckpointStats = { writes: 0, acks: 0, waitMs: 0 };

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly log: Logger,
    /** Reads the session's state when a write is issued (the latest one covers every ack recorded before). */
    private readonly capture: () => CheckpointCapture,
    /**
     * Called before each write with the offset the stored tail starts at: the recording spool must
     * hold the stream up to there (the tail holds what follows).
     */
    private readonly beforeWrite: (tailStart: number) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `release` (sends an ack) once a checkpoint taken after this call is stored. */
  commit(release: () => void): void {
    if (this.closed) return;
    this.waiting.push({ release, at: performance.now() });
    if (!this.inFlight) this.inFlight = this.drain();
  }

  /** Resolves once no write is in flight and no ack waits. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** No more writes (the session ended or moved); acks still waiting are dropped. */
  close(): void {
    this.closed = true;
    this.waiting = [];
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 && !this.closed) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        await this.write();
      } catch (e) {
        // The ack still goes out: the session stays lossless for everything but a crash of this process.
        this.log.error("checkpoint not stored", { err: e });
      }
      if (this.closed) break;
      const now = performance.now();
      for (const w of batch) {
        this.stats.acks++;
        this.stats.waitMs += now - w.at;
        w.release();
      }
    }
    this.inFlight = null;
  }

  private async write(): Promise<void> {
    const { state, bytesFrom, finalCount, finalsFrom: finalsAfter } = this.capture();
    this.beforeWrite(state.tailStart);
    const reset = this.chunks === null;
    const chunks = [...(this.chunks ?? [])];
    const storedEnd = chunks.length > 0 ? chunks[chunks.length - 1]!.offset + chunks[chunks.length - 1]!.length : -1;
    // New bytes continue the stored chunks, or start over at the tail when they would leave a gap.
    const from = storedEnd >= state.tailStart ? storedEnd : state.tailStart;
    const dropAudio: number[] = [];
    while (chunks.length > 0 && (from !== storedEnd || chunks[0]!.offset + chunks[0]!.length <= state.tailStart)) dropAudio.push(chunks.shift()!.offset);
    const audio = from < state.received ? bytesFrom(from) : new Uint8Array(0);
    if (audio.length > 0) chunks.push({ offset: from, length: audio.length });
    const finalsFrom = reset ? 0 : this.finalsStored;
    const w: CheckpointWrite = {
      reset,
      state: { ...state, finals: finalCount, savedAt: this.now() } satisfies CheckpointState,
      audio,
      audioOffset: from,
      dropAudio: reset ? [] : dropAudio,
      finals: finalsAfter(finalsFrom),
      finalsFrom,
    };
    this.stats.writes++;
    await this.store.saveCheckpoint(this.sessionId, w);
    this.chunks = chunks;
    this.finalsStored = finalCount;
  }
}

/**
 * The persisted session of a stored checkpoint (as `LiveSession.open` restores it), or null when
 * it is missing or unusable. Finals the client may not have received are sent again on resume.
 */
export function restoreCheckpoint(stored: StoredCheckpoint | null, sessionId: string, now: () => number): { session: PersistedSession; savedAt: number } | null {
  const s = stored?.state as CheckpointState | undefined;
  if (!stored || !s || s.version !== 1 || stored.finals.length < s.finals) return null;
  // The tail: the stored chunks from `tailStart` to `received`, contiguous.
  const tail = new Uint8Array(s.received - s.tailStart);
  let pos = s.tailStart;
  for (const c of stored.audio) {
    const end = c.offset + c.bytes.length;
    if (end <= pos) continue;
    if (c.offset > pos) return null;
    const part = c.bytes.subarray(pos - c.offset, Math.min(c.bytes.length, s.received - c.offset));
    tail.set(part, pos - s.tailStart);
    pos += part.length;
    if (pos >= s.received) break;
  }
  if (pos < s.received) return null;
  const finals = stored.finals.slice(0, s.finals) as CheckpointFinal[];
  const messages = new MessageFactory(sessionId, now);
  const unconfirmed: SessionMessage[] = finals.filter((f) => f.utterance.end > s.confirmedUntil).map((f) => messages.transcript(f.id, true, f.utterance));
  const { confirmedUntil: _c, finals: _f, savedAt, ...rest } = s;
  return { session: { ...rest, tail, utterances: finals.map((f) => f.utterance), finalIds: finals.map((f) => f.id), held: [], unconfirmed }, savedAt };
}
