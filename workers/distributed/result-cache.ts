/** A small LRU of recent results by job key, so a re-delivered job is answered without recomputing. */
import type { TranscribeResult } from "../engines/types.ts";

export class ResultCache {
  private readonly entries = new Map<string, { result: TranscribeResult; expires: number }>();

  constructor(
    private readonly capacity = 512,
    private readonly ttlMs = 120_000,
  ) {}

  get(key: string): TranscribeResult | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.expires < Date.now()) return undefined;
    this.entries.set(key, hit); // most recent last
    return hit.result;
  }

  set(key: string, result: TranscribeResult): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { result, expires: Date.now() + this.ttlMs });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
