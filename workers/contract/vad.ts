/**
 * The VAD as the rest of the service sees it: a model that scores independent streams of chunks
 * (Silero in one process, or batched across sessions on a thread of its own: `workers/engines/vad/`).
 */

export type VadSampleRate = 16000 | 8000;

/** One channel's running VAD: the recurrent state and the context carried between chunks. */
export interface VadStream {
  readonly sampleRate: VadSampleRate;
  /** Samples per chunk that `process` expects (512 at 16 kHz, 256 at 8 kHz). */
  readonly frameSamples: number;
  /**
   * Speech probability (0..1) of the next chunk. Calls are applied in call order even when the
   * caller does not await between them.
   */
  process(frame: Float32Array): Promise<number>;
  /**
   * Speech probabilities of the next `frames.length / frameSamples` chunks, laid end to end (one
   * call for all the chunks a piece of audio holds). `urgent`: someone waits on the answer (a pause
   * partial or a final may come of these chunks), so a model that batches streams does not hold
   * them back for others.
   */
  processMany(frames: Float32Array, urgent?: boolean): Promise<Float32Array>;
  /** Forgets the state and context, as at the start of a stream (before chunks not yet scored). */
  reset(): void;
  /** The stream is no longer used (frees what it holds in a shared model). */
  close(): void;
}

/** A loaded VAD model that scores any number of independent streams. */
export interface VadModel {
  createStream(sampleRate?: VadSampleRate): VadStream;
}
