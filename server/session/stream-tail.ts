/** Growable byte buffer addressed by absolute stream offsets: the ack ledger's received tail (`ledger.ts`). */
export class StreamTail {
  private buf = new Uint8Array(4096);
  /** Absolute offset of buf[0]. */
  private bufStart = 0;
  /** Absolute offset of the first retained byte. */
  start = 0;
  /** Absolute offset one past the last byte (= received). */
  end = 0;

  append(chunk: Uint8Array): void {
    const needed = this.end - this.bufStart + chunk.length;
    if (needed > this.buf.length) {
      const keep = this.end - this.start;
      const capacity = Math.max(4096, 2 * (keep + chunk.length));
      const next = capacity <= this.buf.length ? this.buf : new Uint8Array(capacity);
      next.set(this.buf.subarray(this.start - this.bufStart, this.end - this.bufStart), 0);
      this.buf = next;
      this.bufStart = this.start;
    }
    this.buf.set(chunk, this.end - this.bufStart);
    this.end += chunk.length;
  }

  /** Releases everything before `offset`. */
  trimTo(offset: number): void {
    if (offset > this.start) this.start = Math.min(offset, this.end);
  }

  at(offset: number): number {
    return this.buf[offset - this.bufStart];
  }

  get size(): number {
    return this.end - this.start;
  }
}
