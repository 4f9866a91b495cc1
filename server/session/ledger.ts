/**
 * Ack ledger and resume aligner: the pure logic behind lossless,
 * duplicate-free resumption of an audio stream after a dropped WebSocket.
 *
 * ## What the official client does (`@gladiaio/sdk`, `v2/live/session.ts`)
 *
 * - It forces `messages_config.receive_acknowledgments: true` at init.
 * - `sendAudio(chunk)` appends the chunk to `audioBuffer` and, only when the
 *   socket is OPEN, also sends it as one binary frame. While (re)connecting,
 *   audio is only buffered.
 * - On each `audio_chunk` acknowledgment with `acknowledged && data` it reads
 *   ONLY `data.byte_range[1]` (`byteEnd`): it drops the first
 *   `byteEnd - bytesSent` bytes of `audioBuffer` and sets `bytesSent = byteEnd`.
 *   `byte_range[0]` and `time_range` are not used. `bytesSent` starts at 0.
 * - The socket layer (`network/wsClient.ts`) reconnects to the SAME URL on
 *   close codes 1002-4399 and 4500-9999 (1012 included, not 1000 or 4401).
 *   On every open (the first one too) the session sends the whole
 *   `audioBuffer`, i.e. bytes `[bytesSent, clientEnd)`, as binary frames of at
 *   most 512 KiB, synchronously in `onopen`, then resumes live frames. If
 *   `stop_recording` was requested meanwhile it follows the buffer.
 *
 * So after a reconnect the resent stream starts exactly at `b`, the end of the
 * last acknowledgment the client RECEIVED (0 if none), continues with the
 * identical byte stream, and its frame boundaries (512 KiB) have nothing to do
 * with the original frames. Acks are only sent by this server, in increasing
 * order, and a WebSocket delivers them in order, so `b` is either the resume
 * point of the previous connection or one of the ack ends sent since then.
 * The server knows `received` (R), but not which of those acks arrived.
 *
 * ## How the server finds `b`
 *
 * The ledger keeps the candidate set C (the last resume point plus every ack
 * end sent after it) and a tail of the stream covering `[min C, R)`. Under
 * hypothesis `c`, resent byte `j` is stream byte `c + j`, so resent bytes
 * `[0, R - c)` must equal the tail from `c`; bytes from `R - c` on are new.
 * Incoming resent bytes are buffered and every hypothesis whose overlap
 * disagrees is eliminated. The true `b` is never eliminated (the client
 * resends the identical stream), so when one hypothesis remains it is `b`.
 *
 * Ambiguity and how it is prevented. Two hypotheses `c < c'` can BOTH survive
 * only if the stream on `[c, R)` is periodic with period `c' - c`
 * (both directions reduce to `stream[c + t] == stream[c' + t]` for every
 * `t < R - c'`). Digital silence (all-zero bytes) is exactly that, for every
 * pair. Content alone cannot separate such candidates, and neither can frame
 * sizes (the client resends in 512 KiB frames from `b` and the server never
 * learns `clientEnd`). The ledger therefore refuses to CREATE an ambiguous
 * candidate: `nextAck` only returns a boundary `a` when, for every retained
 * candidate `c`, some already received byte proves `stream[c + t] !=
 * stream[a + t]` with `t < R_now - a`. Since `R` only grows, that witness
 * stays inside the compared overlap at any later resume, in both directions,
 * so every pair stays distinguishable and the first `R - b` resent bytes
 * always resolve the resume exactly. During exactly periodic audio (e.g. long
 * digital silence) acknowledgments are simply postponed; the client keeps the
 * audio in its buffer a little longer, and the next ack after the silence is
 * unambiguous again. With all-zero audio from the start, no ack is ever
 * needed: the client resends from 0 and C = {0}.
 *
 * Bounds and the residual ambiguity (documented, opt-in by configuration):
 * - `confirmAfterBytes`: once an ack was followed by that many received bytes
 *   on a live connection, it is taken as delivered and older candidates (and
 *   the tail before it) are released. A live connection that kept receiving
 *   e.g. 30 s of audio after sending an ack has delivered it.
 * - `maxRetainBytes`: if postponement would keep more than this, `nextAck`
 *   emits the (ambiguous) ack anyway and reports a warning. A resume that is
 *   still ambiguous then picks the LARGEST surviving candidate; if that guess
 *   is wrong, whole periods of the exactly periodic audio are duplicated,
 *   never speech content. `nextAck(end, { force: true })` (for the final ack
 *   after `stop_recording`, after which resent audio is ignored anyway) is the
 *   other way to create such a candidate.
 * - If no candidate matches at all (a client that does not resend the same
 *   stream), the buffered bytes are treated as new audio and a warning is
 *   reported.
 *
 * Binary frames and base64 `audio_chunk` messages are the same thing to the
 * ledger: the caller passes the decoded bytes of either.
 */

import { StreamTail } from "./stream-tail.ts";

/** Options of an ack ledger; all sizes are in bytes of the session's encoding. */
export interface AckLedgerOptions {
  /** Bytes received after an ack before it is taken as delivered (e.g. 30 s of audio). */
  confirmAfterBytes?: number;
  /** Retention beyond which an ambiguous ack is emitted anyway (e.g. 120 s of audio). */
  maxRetainBytes?: number;
  /** Ack boundaries are multiples of this (bytes per sample frame, all channels) from `alignOrigin`. Default 1. */
  alignBytes?: number;
  /** Offset the sample frames are counted from (e.g. the length of a WAV header in the stream). Default 0. */
  alignOrigin?: number;
  /** How many aligned positions below the requested end are tried for an unambiguous boundary. Default 16. */
  searchSteps?: number;
  /** Receives warnings (unmatched resend, forced ambiguous ack). */
  onWarning?: (message: string) => void;
}

/** An acknowledgment to send: its `byte_range` (the session's acks module adds the time range). */
export interface AckRange {
  byteRange: [number, number];
  /** True when the boundary could not be proven unambiguous. */
  ambiguous: boolean;
}

interface Candidate {
  /** Byte offset the client may resend from. */
  offset: number;
  /** `received` when the ack was sent (for delivery confirmation). */
  receivedAtSend: number;
  ambiguous: boolean;
}

interface Hypothesis {
  candidate: Candidate;
  /** Resent bytes already compared with the tail. */
  verified: number;
}

const EMPTY = new Uint8Array(0);

/** Tracks received bytes and sent acks; aligns resent audio after a reconnect. */
export class AckLedger {
  private readonly tail = new StreamTail();
  private candidates: Candidate[] = [{ offset: 0, receivedAtSend: 0, ambiguous: false }];
  private ackedEnd = 0;
  private readonly confirmAfter: number;
  private readonly maxRetain: number;
  private readonly align: number;
  private origin: number;
  private readonly searchSteps: number;
  private readonly onWarning?: (message: string) => void;

  /** Resume state: null when live. */
  private resume: {
    pending: Uint8Array;
    pendingLength: number;
    hypotheses: Hypothesis[];
    /** Set once aligned: resent bytes still to skip as overlap. */
    skipRemaining: number | null;
    /** Absolute stream offset of the next overlap byte while skipping. */
    skipOffset: number;
  } | null = null;

  private warningCount = 0;

  constructor(options: AckLedgerOptions = {}) {
    this.confirmAfter = options.confirmAfterBytes ?? Number.POSITIVE_INFINITY;
    this.maxRetain = options.maxRetainBytes ?? Number.POSITIVE_INFINITY;
    this.align = Math.max(1, Math.floor(options.alignBytes ?? 1));
    this.origin = Math.floor(options.alignOrigin ?? 0);
    this.searchSteps = Math.max(1, Math.floor(options.searchSteps ?? 16));
    this.onWarning = options.onWarning;
  }

  /** Total genuinely new bytes accepted since the session start. */
  get received(): number {
    return this.tail.end;
  }

  /** End of the last acknowledgment sent. */
  get acked(): number {
    return this.ackedEnd;
  }

  /** True between `beginResume()` and the moment the resent stream is aligned. */
  get resuming(): boolean {
    return this.resume !== null;
  }

  /**
   * Sets the offset sample frames are counted from, once it is known (a WAV header's length is known
   * after its first bytes, before any acknowledgment). Later ack boundaries are `origin + k * alignBytes`.
   */
  alignFrom(origin: number): void {
    this.origin = Math.floor(origin);
  }

  /** Bytes currently retained for alignment. */
  get retainedBytes(): number {
    return this.tail.size;
  }

  /** Offsets the client may resend from (for diagnostics). */
  get resumeCandidates(): number[] {
    return this.candidates.map((c) => c.offset);
  }

  /** Number of warnings reported so far. */
  get warnings(): number {
    return this.warningCount;
  }

  /**
   * Accepts one chunk of audio bytes (binary frame or decoded base64 chunk)
   * and returns the genuinely new bytes, possibly empty. While resuming it
   * behaves like `acceptResent`.
   */
  accept(chunk: Uint8Array): Uint8Array {
    if (this.resume) return this.acceptResent(chunk);
    if (chunk.length === 0) return EMPTY;
    this.tail.append(chunk);
    this.release();
    return chunk;
  }

  /**
   * Marks a reconnect: the next bytes are a resend starting at an unknown
   * candidate offset. Calling it again before alignment discards the partial
   * resend (the client will resend from the same point again).
   */
  beginResume(): void {
    this.resume = {
      pending: new Uint8Array(Math.max(1024, Math.min(this.tail.size, 1 << 20))),
      pendingLength: 0,
      hypotheses: this.candidates.map((candidate) => ({ candidate, verified: 0 })),
      skipRemaining: null,
      skipOffset: 0,
    };
  }

  /** Aligns resent bytes against the retained tail; returns the new bytes (possibly empty). */
  acceptResent(chunk: Uint8Array): Uint8Array {
    const resume = this.resume;
    if (!resume) return this.accept(chunk);
    if (chunk.length === 0) return EMPTY;
    if (resume.skipRemaining !== null) return this.skipOverlap(chunk);

    // Buffer the chunk.
    if (resume.pendingLength + chunk.length > resume.pending.length) {
      const grown = new Uint8Array(Math.max(2 * resume.pending.length, resume.pendingLength + chunk.length));
      grown.set(resume.pending.subarray(0, resume.pendingLength));
      resume.pending = grown;
    }
    resume.pending.set(chunk, resume.pendingLength);
    resume.pendingLength += chunk.length;

    // Eliminate hypotheses contradicted by the new bytes.
    const R = this.tail.end;
    const pending = resume.pending;
    resume.hypotheses = resume.hypotheses.filter((h) => {
      const overlap = R - h.candidate.offset;
      const upto = Math.min(resume.pendingLength, overlap);
      for (let j = h.verified; j < upto; j++) {
        if (pending[j] !== this.tail.at(h.candidate.offset + j)) return false;
      }
      h.verified = Math.max(h.verified, upto);
      return true;
    });

    const live = resume.hypotheses;
    if (live.length === 0) {
      this.warn(`resent audio matches no acknowledged boundary (${resume.pendingLength} bytes taken as new)`);
      return this.finishResume(null);
    }
    if (live.length === 1) return this.finishResume(live[0].candidate);
    const fullyVerified = live.every((h) => h.verified >= R - h.candidate.offset);
    if (fullyVerified) {
      const chosen = live[live.length - 1].candidate;
      this.warn(
        `ambiguous resume between offsets ${live.map((h) => h.candidate.offset).join(", ")}; chose ${chosen.offset}`,
      );
      return this.finishResume(chosen);
    }
    return EMPTY;
  }

  /**
   * Ends an unresolved resume (e.g. `stop_recording` or close arrived first):
   * the best surviving candidate is taken, and the new bytes are returned.
   */
  endResume(): Uint8Array {
    const resume = this.resume;
    if (!resume) return EMPTY;
    if (resume.skipRemaining !== null) {
      this.resume = null;
      return EMPTY;
    }
    const live = resume.hypotheses;
    if (live.length > 1) this.warn(`resume ended before alignment; chose offset ${live[live.length - 1].candidate.offset}`);
    return this.finishResume(live.length > 0 ? live[live.length - 1].candidate : null);
  }

  /**
   * Decides the acknowledgment to send now for audio transcribed up to
   * `transcribedEnd` (absolute bytes). Returns null when nothing can be
   * acknowledged yet (nothing new, resuming, or every boundary would be
   * ambiguous). The returned ack is recorded as sent: the caller must send it.
   */
  nextAck(transcribedEnd: number, options: { force?: boolean } = {}): AckRange | null {
    if (this.resume) return null;
    const R = this.tail.end;
    const limit = this.alignDown(Math.min(Math.floor(transcribedEnd), R));
    if (limit <= this.ackedEnd) return null;
    if (options.force) return this.recordAck(limit, true);

    let a = this.alignDown(Math.min(limit, R - 1));
    for (let step = 0; step < this.searchSteps && a > this.ackedEnd; step++, a -= this.align) {
      if (this.distinguishable(a)) return this.recordAck(a, false);
    }
    if (this.tail.size > this.maxRetain) {
      this.warn(`retention above ${this.maxRetain} bytes: ambiguous acknowledgment at ${limit}`);
      return this.recordAck(limit, true);
    }
    return null;
  }

  private recordAck(end: number, ambiguous: boolean): AckRange {
    const first = this.ackedEnd;
    this.ackedEnd = end;
    this.candidates.push({ offset: end, receivedAtSend: this.tail.end, ambiguous });
    const ack: AckRange = { byteRange: [first, end], ambiguous };
    this.release();
    return ack;
  }

  /** True when every retained candidate differs from `a` on some received byte. */
  private distinguishable(a: number): boolean {
    const R = this.tail.end;
    for (const { offset: c } of this.candidates) {
      if (c >= a) return false;
      let witness = false;
      for (let t = 0; a + t < R; t++) {
        if (this.tail.at(c + t) !== this.tail.at(a + t)) {
          witness = true;
          break;
        }
      }
      if (!witness) return false;
    }
    return true;
  }

  private finishResume(candidate: Candidate | null): Uint8Array {
    const resume = this.resume!;
    const pending = resume.pending.subarray(0, resume.pendingLength);
    const R = this.tail.end;
    if (candidate === null) {
      this.resume = null;
      return this.accept(pending.slice());
    }
    // The client has received exactly the acks up to `candidate`: later ones were lost.
    this.candidates = [{ ...candidate, receivedAtSend: candidate.receivedAtSend }];
    this.tail.trimTo(candidate.offset);
    const overlap = R - candidate.offset;
    if (pending.length >= overlap) {
      this.resume = null;
      return this.accept(pending.slice(overlap));
    }
    resume.skipRemaining = overlap - pending.length;
    resume.skipOffset = candidate.offset + pending.length;
    resume.pendingLength = 0;
    return EMPTY;
  }

  private skipOverlap(chunk: Uint8Array): Uint8Array {
    const resume = this.resume!;
    const n = Math.min(resume.skipRemaining!, chunk.length);
    for (let j = 0; j < n; j++) {
      if (chunk[j] !== this.tail.at(resume.skipOffset + j)) {
        this.warn(`resent audio diverged at offset ${resume.skipOffset + j}; taking the rest as new`);
        this.resume = null;
        return this.accept(chunk.slice(j));
      }
    }
    resume.skipRemaining! -= n;
    resume.skipOffset += n;
    if (resume.skipRemaining! > 0) return EMPTY;
    this.resume = null;
    return n < chunk.length ? this.accept(chunk.subarray(n)) : EMPTY;
  }

  /**
   * Drops candidates older than the newest ack known to be delivered, and the tail before it.
   * Candidates are in sending order, so their `receivedAtSend` never decreases and the delivered
   * ones are a prefix: only the candidates dropped are looked at (amortized O(1) per call).
   */
  private release(): void {
    const R = this.tail.end;
    let drop = 0;
    while (drop + 1 < this.candidates.length && R - this.candidates[drop + 1].receivedAtSend >= this.confirmAfter) drop++;
    if (drop > 0) this.candidates.splice(0, drop);
    this.tail.trimTo(this.candidates[0].offset);
  }

  /** The largest frame boundary at or below `n` (never below 0). */
  private alignDown(n: number): number {
    const over = (((n - this.origin) % this.align) + this.align) % this.align;
    return Math.max(0, n - over);
  }

  private warn(message: string): void {
    this.warningCount++;
    this.onWarning?.(message);
  }
}

/** Creates an ack ledger for one session. */
export function createAckLedger(options: AckLedgerOptions = {}): AckLedger {
  return new AckLedger(options);
}
