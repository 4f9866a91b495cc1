/**
 * A growable window over a mono sample stream, addressed by absolute sample index from the start
 * of the stream. The front can be dropped, so memory stays proportional to what is kept.
 */
export class SampleWindow {
  private data: Float32Array;
  /** Index in `data` of the first kept sample. */
  private head = 0;
  /** Absolute index of the first kept sample. */
  private first = 0;
  private count = 0;

  constructor(initialCapacity = 16384) {
    this.data = new Float32Array(Math.max(16, initialCapacity));
  }

  /** Absolute index of the first sample still held. */
  get start(): number {
    return this.first;
  }

  /** Absolute index one past the last sample appended. */
  get end(): number {
    return this.first + this.count;
  }

  /** Samples currently held. */
  get length(): number {
    return this.count;
  }

  /** Allocated capacity in samples (for memory accounting). */
  get capacity(): number {
    return this.data.length;
  }

  /** Appends samples at the end of the stream. */
  append(samples: Float32Array): void {
    if (samples.length === 0) return;
    if (this.head + this.count + samples.length > this.data.length) {
      const needed = this.count + samples.length;
      if (needed <= this.data.length / 2) {
        this.data.copyWithin(0, this.head, this.head + this.count);
      } else {
        let cap = this.data.length;
        while (cap < needed * 2) cap *= 2;
        const next = new Float32Array(cap);
        next.set(this.data.subarray(this.head, this.head + this.count));
        this.data = next;
      }
      this.head = 0;
    }
    this.data.set(samples, this.head + this.count);
    this.count += samples.length;
  }

  /** Forgets every sample before absolute index `index`. */
  dropBefore(index: number): void {
    const n = Math.min(Math.max(0, index - this.first), this.count);
    this.head += n;
    this.first += n;
    this.count -= n;
    if (this.count === 0) this.head = 0;
    // Shrink after a long utterance has been released.
    if (this.data.length > 65536 && this.count < this.data.length / 8) {
      const next = new Float32Array(Math.max(16384, this.count * 2));
      next.set(this.data.subarray(this.head, this.head + this.count));
      this.data = next;
      this.head = 0;
    }
  }

  /** Copies absolute range [from, to), clamped to what is held. */
  slice(from: number, to: number): Float32Array {
    const a = Math.max(from, this.first) - this.first;
    const b = Math.min(to, this.end) - this.first;
    if (b <= a) return new Float32Array(0);
    return this.data.slice(this.head + a, this.head + b);
  }
}
