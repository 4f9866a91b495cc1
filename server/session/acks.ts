/**
 * Acknowledgments of one session: the ack ledger (resume dedup, unambiguous ack boundaries) over the
 * session's byte stream, the retained raw tail a restart resumes from, and the timeline that maps
 * stream bytes to session time (WAV header, the offsets a restarted process continues from).
 *
 * Two points move here: the ack point (audio transcribed, the client may drop it) and the replay
 * point (the start of the earliest utterance not yet final, where a restart decodes again). The ack
 * point may run ahead of the replay point (an utterance whose speculative final has returned is
 * transcribed, not final); the retained tail and the snapshot follow the replay point, so audio the
 * client dropped is still kept, here and in every checkpoint, until its utterance is final.
 *
 * Offsets here are absolute stream offsets (bytes since the session's first byte, header included);
 * after a restart the ledger and the front end count from later points (`ledgerBase`, `frontendBase`).
 */
import { bytesPerFrame, type AudioFormat } from "../audio/format.ts";
import type { AudioFrontend } from "../audio/frontend.ts";
import { createAckLedger, type AckLedger } from "./ledger.ts";
import type { PersistedSession } from "./persist.ts";
import { RetainedBytes } from "./retained.ts";

/** Audio replayed before the untranscribed point after a restart, so the VAD is warm again there. */
const RESTART_WARMUP_S = 2;
/** Duration of one VAD window (512 samples at 16 kHz). */
const VAD_FRAME_S = 0.032;

/** An acknowledgment to send, and the session time up to which the client has confirmed receipt. */
export interface SessionAck {
  byteRange: [number, number];
  /** Milliseconds of audio (header excluded). */
  timeRange: [number, number];
  /**
   * Session time (s) up to which the client has received every final: the finals sent before the
   * earliest ack the client may still resume from (the ack point may run ahead of the finals).
   */
  confirmedUntil: number;
}

/** The stream part of a persisted session. */
export type StreamState = Pick<PersistedSession, "received" | "tailStart" | "tail" | "candidates" | "candidateFinalsUntil" | "replayFrom" | "replayFromSeconds" | "headerBytes">;

export class SessionAcks {
  /**
   * By resume candidate (absolute offset): session time up to which every final had been sent when
   * its ack was computed (a candidate without an entry: 0).
   */
  private readonly finalsUntil = new Map<number, number>([[0, 0]]);

  private constructor(
    private readonly format: AudioFormat,
    private readonly frontend: AudioFrontend,
    private readonly ledger: AckLedger,
    private readonly retained: RetainedBytes,
    /** Absolute stream offset of the ledger's byte 0 (non-zero after a restart). */
    private readonly ledgerBase: number,
    /** Absolute stream offset of the front end's byte 0, and its time in seconds. */
    readonly frontendBase: { byte: number; seconds: number },
    /** Stream offset of the first audio byte (WAV header length). */
    public headerBytes: number,
  ) {}

  /** The acks of a new session, or of one restored from `restored` (then the untranscribed tail is returned to replay). */
  static create(format: AudioFormat, frontend: AudioFrontend, onWarning: (message: string) => void, restored?: PersistedSession): { acks: SessionAcks; replay: Uint8Array | null } {
    const frame = bytesPerFrame(format);
    const ledger = createAckLedger({
      // Acks end on whole sample frames (every channel of one instant), counted from the header's end.
      alignBytes: frame,
      confirmAfterBytes: 30 * format.sampleRate * frame,
      maxRetainBytes: 120 * format.sampleRate * frame,
      onWarning,
    });
    if (!restored) return { acks: new SessionAcks(format, frontend, ledger, new RetainedBytes(0), 0, { byte: 0, seconds: 0 }, 0), replay: null };
    // Restart: rebuild the ledger over the persisted tail; the untranscribed audio is replayed.
    const base = restored.tailStart;
    ledger.alignFrom(restored.headerBytes - base);
    ledger.accept(restored.tail);
    for (const c of restored.candidates) if (c > base) ledger.nextAck(c - base, { force: true });
    const retained = new RetainedBytes(base);
    retained.append(restored.tail);
    const acks = new SessionAcks(format, frontend, ledger, retained, base, { byte: restored.replayFrom, seconds: restored.replayFromSeconds }, restored.headerBytes);
    // States stored before acks could run ahead of finals: every final before an ack was sent first.
    restored.candidates.forEach((c, i) => acks.finalsUntil.set(c, restored.candidateFinalsUntil?.[i] ?? acks.secondsAt(c)));
    return { acks, replay: restored.tail.subarray(restored.replayFrom - base) };
  }

  /** Bytes of the stream received (absolute offset of the next byte). */
  get received(): number {
    return this.retained.end;
  }

  /** Audio bytes from the client: the genuinely new ones (a resumed client's resend is deduplicated). */
  accept(bytes: Uint8Array): Uint8Array {
    return this.ledger.accept(bytes);
  }

  /** A socket resumes: the next bytes are a resend from an unknown acknowledged point. */
  beginResume(): void {
    this.ledger.beginResume();
  }

  /** Input ends: bytes of an unfinished resend that are new. */
  endResume(): Uint8Array {
    return this.ledger.endResume();
  }

  /** Keeps new bytes for a restart; returns their stream offset. */
  retain(bytes: Uint8Array): number {
    const offset = this.retained.end;
    this.retained.append(bytes);
    return offset;
  }

  /** After the front end read the stream start: the header length it found. */
  frontendRead(): void {
    if (this.frontendBase.byte === 0) this.headerBytes = this.frontend.byteOffsetAt(0);
  }

  /** Seconds (session time) of audio received and decoded. */
  totalDuration(): number {
    return this.frontendBase.seconds + this.frontend.durationSeconds;
  }

  /** Seconds up to which every utterance is transcribed, given the earliest start still open (Infinity: none). */
  transcribedSeconds(openFrom: number): number {
    return Math.max(Math.min(this.totalDuration(), openFrom), this.frontendBase.seconds);
  }

  /**
   * The next acknowledgment for audio transcribed up to `ackUntil` seconds (everything received with
   * `force`), or null. `replayFrom` is the replay point (every final before it is sent; at most
   * `ackUntil`): the retained bytes before it, less the warm-up, that no resume can need any more
   * are released.
   */
  next(ackUntil: number, replayFrom: number, force = false): SessionAck | null {
    const end = force ? this.retained.end : this.absoluteOffsetAt(ackUntil);
    this.ledger.alignFrom(this.headerBytes - this.ledgerBase);
    const ack = this.ledger.nextAck(end - this.ledgerBase, { force });
    if (!ack) return null;
    const first = ack.byteRange[0] + this.ledgerBase;
    const last = ack.byteRange[1] + this.ledgerBase;
    this.finalsUntil.set(last, Math.min(this.secondsAt(last), replayFrom));
    const warm = this.absoluteOffsetAt(Math.max(0, replayFrom - RESTART_WARMUP_S));
    const candidates = this.candidates();
    const earliestResume = candidates[0]!;
    for (const c of this.finalsUntil.keys()) if (c < earliestResume) this.finalsUntil.delete(c);
    this.retained.trimTo(Math.min(earliestResume, warm));
    return { byteRange: [first, last], timeRange: [this.msAt(first), this.msAt(last)], confirmedUntil: this.finalsUntilOf(earliestResume) };
  }

  /** Absolute offsets the client may resend from, oldest first. */
  private candidates(): number[] {
    return this.ledger.resumeCandidates.map((c) => c + this.ledgerBase);
  }

  private finalsUntilOf(candidate: number): number {
    return this.finalsUntil.get(candidate) ?? 0;
  }

  /** The stream state a restarted process resumes from, the replay point being `transcribed` seconds. */
  snapshot(transcribed: number): StreamState {
    const position = this.position(transcribed);
    return { ...position, tail: this.bytesFrom(position.tailStart) };
  }

  /** `snapshot` without the tail bytes (read them with `bytesFrom(tailStart)`). */
  position(transcribed: number): Omit<StreamState, "tail"> & { candidateFinalsUntil: number[] } {
    // On the VAD's frame grid (32 ms), so the replayed audio is scored in the same windows.
    const replayFromSeconds = Math.max(0, Math.floor((transcribed - RESTART_WARMUP_S) / VAD_FRAME_S) * VAD_FRAME_S);
    const replayFrom = Math.max(this.retained.start, this.absoluteOffsetAt(replayFromSeconds));
    const candidates = this.candidates();
    const tailStart = Math.max(Math.min(candidates[0]!, replayFrom, this.retained.end), this.retained.start);
    return {
      received: this.retained.end,
      tailStart,
      candidates,
      candidateFinalsUntil: candidates.map((c) => this.finalsUntilOf(c)),
      replayFrom,
      replayFromSeconds: this.secondsAt(replayFrom),
      headerBytes: this.headerBytes,
    };
  }

  /** Copy of the retained bytes from absolute offset `from` (at least `position().tailStart`) to `received`. */
  bytesFrom(from: number): Uint8Array {
    return this.retained.slice(from);
  }

  /** Absolute stream byte offset of session time `seconds`. */
  private absoluteOffsetAt(seconds: number): number {
    if (this.frontendBase.byte === 0) return this.frontend.byteOffsetAt(seconds);
    return this.frontendBase.byte + this.frontend.byteOffsetAt(Math.max(0, seconds - this.frontendBase.seconds));
  }

  /** Session time in seconds of an absolute stream offset. */
  secondsAt(byte: number): number {
    return Math.max(0, byte - this.headerBytes) / (this.format.sampleRate * bytesPerFrame(this.format));
  }

  private msAt(byte: number): number {
    const payload = Math.max(0, byte - this.headerBytes);
    return Math.round((payload * 1000) / (this.format.sampleRate * bytesPerFrame(this.format)));
  }
}
