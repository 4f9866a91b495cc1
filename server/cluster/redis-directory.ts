/**
 * Session ownership across gateways, in Redis.
 *
 *   {p}:owner:{sessionId}        the id of the gateway holding the session (a lease, renewed while held)
 *   {p}:gateway:{id}:handover    pub/sub channel: session ids another gateway asks this one to hand over
 *
 * A claim takes a free lease or keeps our own; a held lease is renewed every `leaseMs / 4`. A gateway
 * that dies stops renewing, so its sessions become claimable once their lease runs out. A hand-over
 * request is published to the holder, which stores the session's resume state and releases the lease;
 * the requester polls the lease until it is free (or expired) and takes it.
 */
import { connectRedis, dropClient, errorMessage, type RedisClient } from "../../common/redis/client.ts";
import type { Logger } from "../../common/log.ts";
import { RedisKeys } from "../../common/redis/keys.ts";
import type { SessionDirectory } from "./directory.ts";

const CLAIM = `
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ''
elseif v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ''
end
return v`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const RENEW = `
local n = 0
for i, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    n = n + 1
  end
end
return n`;

export interface RedisDirectoryOptions {
  url: string;
  gatewayId: string;
  prefix?: string;
  /** Lease of a held session in ms (default 10 s): how long a dead gateway's sessions stay unclaimable. */
  leaseMs?: number;
  /** Receives connection warnings. */
  log?: Logger;
}

export class RedisDirectory implements SessionDirectory {
  readonly shared = true;
  readonly gatewayId: string;
  private readonly keys: RedisKeys;
  private readonly leaseMs: number;
  private readonly held = new Set<string>();
  private handler: ((sessionId: string) => Promise<void>) | null = null;
  private client!: RedisClient;
  private subscriber!: RedisClient;
  private renewTimer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  private constructor(private readonly opts: RedisDirectoryOptions) {
    this.gatewayId = opts.gatewayId;
    this.keys = new RedisKeys(opts.prefix);
    this.leaseMs = opts.leaseMs ?? 10_000;
  }

  static async connect(opts: RedisDirectoryOptions): Promise<RedisDirectory> {
    const d = new RedisDirectory(opts);
    await d.start();
    return d;
  }

  private owner(sessionId: string): string {
    return this.keys.owner(sessionId);
  }

  private channel(gatewayId: string): string {
    return this.keys.handover(gatewayId);
  }

  private warn(message: string, fields: Record<string, unknown>): void {
    this.opts.log?.warn(message, { gateway: this.gatewayId, ...fields });
  }

  private async start(): Promise<void> {
    const onError = (err: Error) => this.warn("redis connection error", { error: err.message });
    this.client = await connectRedis({ url: this.opts.url, name: `directory:${this.gatewayId}`, onError });
    this.subscriber = await connectRedis({ url: this.opts.url, name: `directory-sub:${this.gatewayId}`, onError });
    await this.subscriber.subscribe(this.channel(this.gatewayId), (sessionId) => void this.onRequest(sessionId));
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 4)));
    (this.renewTimer as { unref?: () => void }).unref?.();
  }

  private async onRequest(sessionId: string): Promise<void> {
    if (!this.held.has(sessionId)) return;
    try {
      await this.handler?.(sessionId);
    } catch (e) {
      this.warn("hand-over failed", { session_id: sessionId, error: errorMessage(e) });
    } finally {
      await this.release(sessionId);
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0 || this.closed) return;
    const ids = [...this.held];
    try {
      const kept = (await this.client.eval(RENEW, { keys: ids.map((id) => this.owner(id)), arguments: [this.gatewayId, String(this.leaseMs)] })) as number;
      if (kept < ids.length) this.warn("session leases lost (another gateway took them over)", { held: ids.length, kept });
    } catch (e) {
      this.warn("session leases not renewed", { error: errorMessage(e) });
    }
  }

  async claim(sessionId: string): Promise<string | null> {
    const v = (await this.client.eval(CLAIM, { keys: [this.owner(sessionId)], arguments: [this.gatewayId, String(this.leaseMs)] })) as string;
    if (v !== "") return v;
    this.held.add(sessionId);
    return null;
  }

  async release(sessionId: string): Promise<void> {
    if (!this.held.delete(sessionId)) return;
    try {
      await this.client.eval(RELEASE, { keys: [this.owner(sessionId)], arguments: [this.gatewayId] });
    } catch (e) {
      this.warn("session lease not released (it will expire)", { session_id: sessionId, error: errorMessage(e) });
    }
  }

  async handOver(sessionId: string, holder: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    await this.client.publish(this.channel(holder), sessionId);
    let lastAsk = Date.now();
    while (Date.now() < deadline) {
      await Bun.sleep(25);
      const now = await this.claim(sessionId);
      if (now === null) return true;
      // The holder changed (a third gateway won it) or the message was missed: ask again now and then.
      if (now !== holder || Date.now() - lastAsk > 1000) {
        holder = now;
        lastAsk = Date.now();
        await this.client.publish(this.channel(holder), sessionId);
      }
    }
    return false;
  }

  onHandOverRequest(handler: (sessionId: string) => Promise<void>): void {
    this.handler = handler;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.renewTimer) clearInterval(this.renewTimer);
    const ids = [...this.held];
    await Promise.all(ids.map((id) => this.release(id)));
    try {
      await this.subscriber.unsubscribe();
    } catch {
      // going away anyway
    }
    dropClient(this.subscriber);
    dropClient(this.client);
  }
}
