/**
 * Outbound queue of one WebSocket with backpressure. `ws.send` answers -1 (queued by Bun but
 * backpressured) or 0 (dropped); messages then wait here and are flushed on `drain`. Essential
 * messages (finals, acks, lifecycle) are never dropped; while the queue is over its bound, new
 * partial transcripts are discarded instead, since a later partial or the final supersedes them.
 */

export interface SendTarget {
  send(data: string): number;
}

export interface OutboxOptions {
  /** Queue length above which non-essential messages are discarded (default 256). */
  maxQueued?: number;
}

export class Outbox {
  private readonly queue: string[] = [];
  private blocked = false;
  private readonly maxQueued: number;
  /** Non-essential messages discarded under backpressure. */
  discarded = 0;

  constructor(
    private readonly target: SendTarget,
    options: OutboxOptions = {},
  ) {
    this.maxQueued = options.maxQueued ?? 256;
  }

  /** Sends now, or queues behind earlier messages while the socket is backpressured. */
  send(data: string, essential: boolean): void {
    if (this.blocked || this.queue.length > 0) {
      if (!essential && this.queue.length >= this.maxQueued) {
        this.discarded++;
        return;
      }
      this.queue.push(data);
      return;
    }
    this.write(data);
  }

  /** The socket can take more: flushes queued messages until it pushes back again. */
  drain(): void {
    this.blocked = false;
    while (this.queue.length > 0 && !this.blocked) this.write(this.queue.shift()!);
  }

  /** Messages waiting for the socket. */
  get pending(): number {
    return this.queue.length;
  }

  private write(data: string): void {
    const status = this.target.send(data);
    if (status === 0) {
      // Dropped by the socket: keep it for the next drain.
      this.queue.unshift(data);
      this.blocked = true;
    } else if (status === -1) {
      // Accepted into Bun's own buffer, but the socket is saturated: hold further messages.
      this.blocked = true;
    }
  }
}
