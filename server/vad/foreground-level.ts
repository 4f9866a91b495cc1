/**
 * The level of the nearest speaker in an utterance, to tell its pauses from background talk.
 *
 * Silero scores voices, not distance: under background talk (a café, a television, an open office)
 * every chunk of a pause scores as speech, so the endpointing silence never comes and the utterance
 * runs until the talk stops. The speaker the microphone serves is louder than the talk behind it.
 * While speaking, once the level (smoothed over `SMOOTH_CHUNKS`) has stayed `gapDb` or more below
 * the utterance's reference level (the `REFERENCE_QUANTILE` of the levels of its speech chunks so
 * far) for `HOLD_CHUNKS`, the chunks that follow count as silence, whatever the VAD says, until one
 * comes back within `gapDb` (speech resuming: its onset is not smoothed away). The hold
 * keeps a word's soft ending (a fricative, the room's reverberation) in the utterance: in quiet
 * audio the VAD's own silence comes first. Nothing is dropped: the endpointer only ends the
 * utterance there; talk that goes on starts the next one.
 */

/**
 * Audio an utterance keeps past the start of a silence the gate found (the VAD's own silence keeps
 * `speechPadMs`): a word's soft ending may run on that long below the gap (in a real recording the
 * "s" of "begins" runs on 0.2 s past where `speechPadMs` would cut it).
 */
export const GATED_PAD_MS = 320;
/** Chunks (32 ms at 16 kHz) a level is averaged over: a consonant's dip is shorter. */
const SMOOTH_CHUNKS = 5;
/** Chunks below the gap before the next ones count as silence (about a quarter of a second). */
const HOLD_CHUNKS = 8;
/** Speech chunks the reference needs before the gate applies (about 0.3 s). */
const MIN_REFERENCE_CHUNKS = 10;
/** The reference: the level that this share of the utterance's speech chunks reach or pass. */
const REFERENCE_QUANTILE = 0.9;
const FLOOR_DB = -120;
const BIN_DB = 0.5;
const BINS = Math.ceil(-FLOOR_DB / BIN_DB) + 1;

const decibels = (power: number) => Math.max(FLOOR_DB, 10 * Math.log10(power));

/** Mean power of `x[from, to)`. */
export function meanPower(x: Float32Array, from = 0, to = x.length): number {
  let e = 0;
  for (let i = from; i < to; i++) e += x[i]! * x[i]!;
  return e / Math.max(1, to - from);
}

export class ForegroundLevel {
  private readonly histogram = new Uint32Array(BINS);
  private count = 0;
  private readonly recent: number[] = [];
  private last = FLOOR_DB;
  /** Chunks in a row whose level, smoothed and alone, lay below the gap. */
  private run = 0;

  /** `gapDb`: how far below the reference a chunk counts as background. */
  constructor(private readonly gapDb: number) {}

  /** Takes the next chunk's mean power (every chunk of the channel, in order). */
  observe(power: number): void {
    this.recent.push(power);
    if (this.recent.length > SMOOTH_CHUNKS) this.recent.shift();
    this.last = decibels(power);
    const ref = this.reference();
    const smoothed = decibels(this.recent.reduce((s, p) => s + p, 0) / this.recent.length);
    // Smoothed, a soft stretch does not end on one quiet chunk; a chunk back near the speaker's level
    // ends it at once (speech resuming), without waiting for the average to rise.
    const below = ref !== null && smoothed <= ref - this.gapDb && this.last <= ref - this.gapDb;
    this.run = below ? this.run + 1 : 0;
  }

  /** Counts the last observed chunk as the utterance's speech. */
  addSpeech(): void {
    const bin = Math.min(BINS - 1, Math.max(0, Math.round((this.last - FLOOR_DB) / BIN_DB)));
    this.histogram[bin]!++;
    this.count++;
  }

  /** Starts a new utterance's reference. */
  reset(): void {
    this.histogram.fill(0);
    this.count = 0;
    this.run = 0;
  }

  /** The utterance's reference level (dB), or null while it has too little speech. */
  reference(): number | null {
    if (this.count < MIN_REFERENCE_CHUNKS) return null;
    const above = Math.ceil(this.count * (1 - REFERENCE_QUANTILE));
    let seen = 0;
    for (let b = BINS - 1; b >= 0; b--) {
      seen += this.histogram[b]!;
      if (seen >= above) return FLOOR_DB + b * BIN_DB;
    }
    return FLOOR_DB;
  }

  /** Whether the last observed chunk counts as background: more than `HOLD_CHUNKS` in a row below the gap. */
  background(): boolean {
    return this.run > HOLD_CHUNKS;
  }
}
