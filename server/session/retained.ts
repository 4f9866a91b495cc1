/** Raw session bytes kept from an absolute stream offset on, for persisting the unacknowledged tail. */
export class RetainedBytes {
  private chunks: Uint8Array[] = [];
  /** Absolute offset of the first retained byte. */
  start: number;
  /** Absolute offset one past the last byte. */
  end: number;

  constructor(start = 0) {
    this.start = start;
    this.end = start;
  }

  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.chunks.push(bytes.slice());
    this.end += bytes.length;
  }

  /** Releases everything before `offset`. */
  trimTo(offset: number): void {
    while (this.chunks.length > 0 && this.start + this.chunks[0]!.length <= offset) {
      this.start += this.chunks.shift()!.length;
    }
    if (this.chunks.length > 0 && offset > this.start) {
      this.chunks[0] = this.chunks[0]!.subarray(offset - this.start);
      this.start = offset;
    }
  }

  /** Copy of bytes `[from, end)`; `from` must be retained. */
  slice(from = this.start): Uint8Array {
    if (from < this.start) throw new RangeError(`bytes before ${this.start} are no longer retained`);
    const out = new Uint8Array(this.end - from);
    let pos = this.start;
    let o = 0;
    for (const c of this.chunks) {
      const skip = Math.max(0, from - pos);
      if (skip < c.length) {
        out.set(c.subarray(skip), o);
        o += c.length - skip;
      }
      pos += c.length;
    }
    return out;
  }
}
