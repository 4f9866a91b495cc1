/**
 * Which gateway holds a live session. A session runs on exactly one gateway at a time; when its
 * client reconnects to another one (after a drop, or a 1012 from a gateway that is stopping), the new
 * gateway claims it — asking the holder to hand it over first when the holder is still alive. The
 * holder stores the session's resume state and lets go; the claimer restores it from the store.
 *
 * Embedded mode has one gateway: `LocalDirectory` grants every claim. Distributed mode uses
 * `RedisDirectory` (`redis-directory.ts`): leases in Redis and hand-over requests over pub/sub.
 */

export interface SessionDirectory {
  /** This gateway's id. */
  readonly gatewayId: string;
  /** True when other gateways may hold sessions (a reconnect may find its session elsewhere). */
  readonly shared: boolean;
  /** Claims a session for this gateway: null when it is now ours, else the id of the gateway holding it. */
  claim(sessionId: string): Promise<string | null>;
  /** Lets a session go (ended, handed over, or this gateway stops). */
  release(sessionId: string): Promise<void>;
  /**
   * Asks `holder` to hand the session over and claims it once released (or once the holder's lease
   * ran out, when it died). True when the session is ours, false after `timeoutMs`.
   */
  handOver(sessionId: string, holder: string, timeoutMs: number): Promise<boolean>;
  /** What this gateway does when another one asks for a session it holds; released afterwards. */
  onHandOverRequest(handler: (sessionId: string) => Promise<void>): void;
  close(): Promise<void>;
}

/** One gateway: every claim is granted and nobody else can ask for a session. */
export class LocalDirectory implements SessionDirectory {
  readonly shared = false;
  constructor(readonly gatewayId = "local") {}
  async claim(): Promise<string | null> {
    return null;
  }
  async release(): Promise<void> {}
  async handOver(): Promise<boolean> {
    return true;
  }
  onHandOverRequest(): void {}
  async close(): Promise<void> {}
}
