/**
 * Redis plumbing shared by the gateway coordinator and the workers: client creation with
 * reconnection, consumer-group creation that tolerates existing groups, binary-safe stream reads
 * and small helpers to tell connection failures from command errors.
 */
import { createClient, ErrorReply, RESP_TYPES } from "redis";

function newClient(url: string, name?: string) {
  return createClient({
    url,
    name,
    RESP: 2,
    socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1000), connectTimeout: 5000 },
  });
}

export type RedisClient = ReturnType<typeof newClient>;

export interface ConnectOptions {
  url: string;
  /** Name shown by CLIENT LIST. */
  name?: string;
  /** Called with connection errors (node-redis reconnects by itself). */
  onError?: (err: Error) => void;
}

/** Connects a client that reconnects forever with a capped backoff (50 ms … 1 s). */
export async function connectRedis(opts: ConnectOptions): Promise<RedisClient> {
  const client = newClient(opts.url, opts.name);
  client.on("error", (err: Error) => opts.onError?.(err));
  await client.connect();
  return client;
}

/** Closes a client without waiting for Redis (safe on a client that is down or blocked). */
export function dropClient(client: RedisClient | undefined): void {
  if (!client) return;
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The stream or its consumer group does not exist (e.g. Redis restarted without persistence). */
export function isNoGroupError(err: unknown): boolean {
  return /NOGROUP/.test(errorMessage(err));
}

/** Creates a consumer group reading from the start of the stream, creating the stream too; an existing group is kept. */
export async function ensureGroup(client: RedisClient, stream: string, group: string): Promise<void> {
  try {
    await client.xGroupCreate(stream, group, "0", { MKSTREAM: true });
  } catch (err) {
    if (!/BUSYGROUP/.test(errorMessage(err))) throw err;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One stream entry with binary field values. */
export interface StreamEntry {
  stream: string;
  id: string;
  fields: Record<string, Buffer>;
}

const BINARY = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } as const;

function toEntry(stream: string, raw: unknown): StreamEntry | null {
  if (!Array.isArray(raw) || raw.length < 2) return null;
  const [id, flat] = raw as [Buffer, Buffer[] | null];
  if (!Array.isArray(flat)) return null;
  const fields: Record<string, Buffer> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i].toString()] = flat[i + 1];
  return { stream, id: id.toString(), fields };
}

/**
 * XREADGROUP over several streams (">" for each), binary safe; [] when it timed out. `count` is per
 * stream; `blockMs` null: no waiting (what the streams hold now).
 */
export async function readGroup(
  client: RedisClient,
  group: string,
  consumer: string,
  streams: string[],
  count: number,
  blockMs: number | null,
): Promise<StreamEntry[]> {
  if (streams.length === 0) return [];
  const block = blockMs === null ? [] : ["BLOCK", String(blockMs)];
  const args = ["XREADGROUP", "GROUP", group, consumer, "COUNT", String(count), ...block, "STREAMS", ...streams, ...streams.map(() => ">")];
  const reply = (await client.sendCommand(args, BINARY)) as unknown;
  const out: StreamEntry[] = [];
  if (!Array.isArray(reply)) return out;
  for (const item of reply) {
    const [name, entries] = item as [Buffer, unknown[]];
    for (const raw of entries ?? []) {
      const e = toEntry(name.toString(), raw);
      if (e) out.push(e);
    }
  }
  return out;
}

export interface AutoClaimResult {
  entries: StreamEntry[];
  /** Ids that were pending but whose entries no longer exist (removed from the PEL by Redis). */
  deleted: string[];
}

/** XAUTOCLAIM one batch from the start of the PEL, binary safe. */
export async function autoClaim(
  client: RedisClient,
  stream: string,
  group: string,
  consumer: string,
  minIdleMs: number,
  count: number,
): Promise<AutoClaimResult> {
  const reply = (await client.sendCommand(
    ["XAUTOCLAIM", stream, group, consumer, String(minIdleMs), "0-0", "COUNT", String(count)],
    BINARY,
  )) as unknown[];
  const entries: StreamEntry[] = [];
  const deleted: string[] = [];
  const claimed = Array.isArray(reply?.[1]) ? (reply[1] as unknown[]) : [];
  for (const raw of claimed) {
    const e = toEntry(stream, raw);
    if (e) entries.push(e);
  }
  if (Array.isArray(reply?.[2])) for (const id of reply[2] as Buffer[]) deleted.push(id.toString());
  return { entries, deleted };
}

/** Milliseconds since the Unix epoch encoded in a stream entry id. */
export function entryTime(id: string): number {
  return Number(id.split("-")[0]);
}

/**
 * Errors a Redis that is not ready yet answers: loading its data after a restart (`LOADING`), busy
 * running a script, a replica without its primary. They pass like a broken connection does.
 */
const NOT_READY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)\b/;

/** True for an error Redis answered (a command fault); false for connection trouble (or a Redis not ready yet) worth retrying. */
export function isReplyError(err: unknown): boolean {
  return err instanceof ErrorReply && !NOT_READY.test(err.message);
}

/**
 * Runs `fn` until it succeeds, retrying connection failures (not command errors) with a short
 * backoff for at most `waitMs`; then rethrows the last failure.
 */
export async function retryWhileDisconnected<T>(fn: () => Promise<T>, waitMs: number, isStopped: () => boolean = () => false): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (isReplyError(err) || Date.now() >= deadline || isStopped()) throw err;
      await sleep(Math.min(50 * 2 ** Math.min(attempt, 4), 500));
    }
  }
}
