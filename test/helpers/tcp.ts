/** Backpressure for the tests' TCP relays: a socket's queued bytes, written as far as it takes them. */
import type { Socket } from "bun";

export interface Queued {
  /** Bytes waiting to be written to this socket. */
  queue: Uint8Array[];
}

/** Writes the socket's queue until it is empty or the socket stops taking bytes (then `drain` calls it again). */
export function flushQueue<T extends Queued>(s: Socket<T>): void {
  while (s.data.queue.length > 0) {
    const head = s.data.queue[0]!;
    const n = s.write(head);
    if (n < head.length) {
      s.data.queue[0] = head.subarray(n);
      return;
    }
    s.data.queue.shift();
  }
}
