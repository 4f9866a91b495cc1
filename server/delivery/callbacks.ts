/**
 * Callback delivery: one signed HTTP POST per server message, strictly ordered
 * per session, retried with exponential backoff and jitter.
 *
 * Envelope (same as the hosted variant): `{ id: <session id>, event: "live.<type>", payload: <message> }`.
 *
 * Queue policy (per session): FIFO, unbounded but metered. Messages are never
 * dropped to make room (finals must not be lost to a slow receiver); instead
 * `onBacklog` fires each time a session's queue depth reaches
 * `backlogWarnAt`, 2x, 4x, ... so operators can alert, and `stats()` exposes
 * the depths. To keep a dead receiver from growing a queue for the whole
 * session, a per-session circuit breaker applies: once a message is abandoned
 * after exhausting its attempts for a transport reason (network error,
 * timeout, 5xx, 429), the following messages get a single attempt each until
 * one succeeds, which restores normal retries. Every abandoned message is
 * reported through `onFailure`.
 *
 * Security: only http(s) URLs whose host resolves exclusively to public
 * unicast addresses are contacted (see address-policy.ts); redirects are not
 * followed (a redirect could point at an internal address). The resolution is
 * checked again before each attempt. Residual risk: a hostname whose DNS
 * answer changes between the check and the connection (rebinding) is not
 * pinned; operators needing that guarantee should route callbacks through an
 * egress proxy.
 */
import { randomUUID } from "node:crypto";
import type { CallbackMessage as CallbackBody } from "../../generated/openapi/types.gen.ts";
import { settleWithin } from "../../common/timeout.ts";
import { checkDestination, RefusedDestinationError, type AddressPolicy } from "./address-policy.ts";
import { CALLBACK_ID_HEADER, SIGNATURE_HEADER, signCallback } from "./signature.ts";

export { verifyCallbackSignature, signCallback, SIGNATURE_HEADER, CALLBACK_ID_HEADER } from "./signature.ts";

/** A message posted to a callback URL: the `payload` of one of the contracts' callback bodies. */
export type CallbackMessage = CallbackBody["payload"];

/** One message to deliver. */
export interface CallbackJob {
  url: string;
  /** The account's callback secret used for the HMAC signature. */
  secret: string;
  message: CallbackMessage;
}

/** The JSON body posted to the callback URL (`{ id, event: "live.<type>", payload }`). */
export type CallbackEnvelope = CallbackBody;

export type CallbackFailureReason =
  | "invalid_message"
  | "refused_destination"
  | "http_status"
  | "network"
  | "timeout"
  | "closed";

/** Report of a message that was abandoned. */
export interface CallbackFailure {
  sessionId: string;
  callbackId: string;
  url: string;
  event: string;
  reason: CallbackFailureReason;
  attempts: number;
  status?: number;
  detail: string;
}

/** Report of a delivered message. */
export interface CallbackDelivery {
  sessionId: string;
  callbackId: string;
  url: string;
  event: string;
  attempts: number;
  status: number;
}

export interface CallbackDispatcherOptions extends AddressPolicy {
  /** Attempts per message, first one included (default 6). */
  maxAttempts?: number;
  /** First retry delay in ms before jitter (default 500). */
  baseDelayMs?: number;
  /** Upper bound of one retry delay in ms, also caps Retry-After (default 30000). */
  maxDelayMs?: number;
  /** Per-request timeout in ms (default 10000). */
  timeoutMs?: number;
  /** Queue depth at which `onBacklog` first fires (default 1000). */
  backlogWarnAt?: number;
  onFailure?: (failure: CallbackFailure) => void;
  onDelivered?: (delivery: CallbackDelivery) => void;
  onBacklog?: (sessionId: string, depth: number) => void;
  /** User-Agent header value. */
  userAgent?: string;
}

export interface CallbackDispatcher {
  /** Queues a message; returns at once, never throws. */
  enqueue(sessionId: string, job: CallbackJob): void;
  /** Resolves once the session's queue is empty and nothing is in flight. */
  drain(sessionId: string): Promise<void>;
  /**
   * Stops accepting messages, waits up to `graceMs` (default 0) for queues to
   * drain, then aborts what is left (reported with reason "closed").
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /** Current queue depth per session (queued plus in flight). */
  stats(): { sessions: number; queued: number; perSession: Record<string, number> };
}

interface QueuedItem {
  callbackId: string;
  url: string;
  secret: string;
  /** `live.<type>` of the message. */
  event: string;
  message: CallbackMessage;
}

interface SessionQueue {
  items: QueuedItem[];
  running: boolean;
  /** Circuit breaker: true after an abandonment, until a success. */
  degraded: boolean;
  nextBacklogWarning: number;
  idleWaiters: Array<() => void>;
}

type AttemptOutcome =
  | { kind: "delivered"; status: number }
  | { kind: "retry"; reason: CallbackFailureReason; status?: number; detail: string; retryAfterMs?: number }
  | { kind: "fatal"; reason: CallbackFailureReason; status?: number; detail: string };

const RETRYABLE_4XX = new Set([408, 429]);

/** Creates a dispatcher with per-session ordered queues. */
export function createCallbackDispatcher(options: CallbackDispatcherOptions = {}): CallbackDispatcher {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 6));
  const baseDelayMs = Math.max(0, options.baseDelayMs ?? 500);
  const maxDelayMs = Math.max(baseDelayMs, options.maxDelayMs ?? 30_000);
  const timeoutMs = Math.max(1, options.timeoutMs ?? 10_000);
  const backlogWarnAt = Math.max(1, Math.floor(options.backlogWarnAt ?? 1000));
  const policy: AddressPolicy = { allowLoopback: options.allowLoopback, allowPrivate: options.allowPrivate };
  const userAgent = options.userAgent ?? "live-stt-callbacks/1";
  const queues = new Map<string, SessionQueue>();
  const closing = new AbortController();
  let closed = false;

  const report = <T>(hook: ((value: T) => void) | undefined, value: T): void => {
    if (!hook) return;
    try {
      hook(value);
    } catch (error) {
      console.error("callback hook threw:", error);
    }
  };

  const fail = (sessionId: string, item: Pick<QueuedItem, "callbackId" | "url" | "event">, attempts: number, outcome: { reason: CallbackFailureReason; status?: number; detail: string }): void => {
    report(options.onFailure, {
      sessionId,
      callbackId: item.callbackId,
      url: item.url,
      event: item.event,
      reason: outcome.reason,
      attempts,
      status: outcome.status,
      detail: outcome.detail,
    });
  };

  const attempt = async (sessionId: string, item: QueuedItem, body: string, attemptNo: number): Promise<AttemptOutcome> => {
    try {
      await checkDestination(item.url, policy);
    } catch (error) {
      const detail = (error as Error).message;
      if (error instanceof RefusedDestinationError && error.transient) {
        return { kind: "retry", reason: "network", detail };
      }
      return { kind: "fatal", reason: "refused_destination", detail };
    }
    const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(timeoutMs)]);
    try {
      const response = await fetch(item.url, {
        method: "POST",
        body,
        redirect: "manual",
        signal,
        headers: {
          "content-type": "application/json",
          "user-agent": userAgent,
          [CALLBACK_ID_HEADER]: item.callbackId,
          "x-callback-attempt": String(attemptNo),
          [SIGNATURE_HEADER]: signCallback(item.secret, body, Date.now() / 1000),
        },
      });
      // The body is not used; release the connection.
      await response.body?.cancel().catch(() => undefined);
      const status = response.status;
      if (status >= 200 && status < 300) return { kind: "delivered", status };
      const detail = `receiver answered ${status}`;
      if (status >= 500 || RETRYABLE_4XX.has(status)) {
        return { kind: "retry", reason: "http_status", status, detail, retryAfterMs: parseRetryAfter(response.headers.get("retry-after")) };
      }
      return { kind: "fatal", reason: "http_status", status, detail };
    } catch (error) {
      if (closing.signal.aborted) return { kind: "fatal", reason: "closed", detail: "dispatcher closed" };
      const name = (error as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") {
        return { kind: "retry", reason: "timeout", detail: `no answer within ${timeoutMs} ms` };
      }
      return { kind: "retry", reason: "network", detail: String((error as Error)?.message ?? error) };
    }
  };

  const deliver = async (sessionId: string, queue: SessionQueue, item: QueuedItem): Promise<void> => {
    // The event names the payload's type, as each body of the contract pairs them.
    const envelope = { id: sessionId, event: item.event, payload: item.message } as CallbackEnvelope;
    let body: string;
    try {
      body = JSON.stringify(envelope);
    } catch (error) {
      fail(sessionId, item, 0, { reason: "invalid_message", detail: `message is not serialisable: ${(error as Error).message}` });
      return;
    }
    const allowed = queue.degraded ? 1 : maxAttempts;
    for (let attemptNo = 1; ; attemptNo++) {
      if (closed && closing.signal.aborted) {
        fail(sessionId, item, attemptNo - 1, { reason: "closed", detail: "dispatcher closed" });
        return;
      }
      const outcome = await attempt(sessionId, item, body, attemptNo);
      if (outcome.kind === "delivered") {
        queue.degraded = false;
        report(options.onDelivered, {
          sessionId,
          callbackId: item.callbackId,
          url: item.url,
          event: envelope.event,
          attempts: attemptNo,
          status: outcome.status,
        });
        return;
      }
      if (outcome.kind === "fatal" || attemptNo >= allowed) {
        if (outcome.kind === "retry") queue.degraded = true;
        fail(sessionId, item, attemptNo, outcome);
        return;
      }
      const delay = outcome.retryAfterMs !== undefined
        ? Math.min(maxDelayMs, outcome.retryAfterMs)
        : backoffDelay(attemptNo, baseDelayMs, maxDelayMs);
      await sleep(delay, closing.signal);
    }
  };

  const run = async (sessionId: string, queue: SessionQueue): Promise<void> => {
    queue.running = true;
    try {
      while (queue.items.length > 0) {
        const item = queue.items[0];
        try {
          await deliver(sessionId, queue, item);
        } catch (error) {
          fail(sessionId, item, 0, { reason: "network", detail: `unexpected: ${String(error)}` });
        }
        queue.items.shift();
      }
    } finally {
      queue.running = false;
      queues.delete(sessionId);
      for (const resolve of queue.idleWaiters.splice(0)) resolve();
    }
  };

  return {
    enqueue(sessionId, job) {
      try {
        const callbackId = randomUUID();
        const message = job?.message;
        const type: unknown = (message as { type?: unknown } | undefined)?.type;
        if (!message || typeof message !== "object" || typeof type !== "string" || type === "") {
          fail(sessionId, { callbackId, url: String(job?.url), event: "live.unknown" }, 0, {
            reason: "invalid_message",
            detail: "message must be an object with a non-empty string type",
          });
          return;
        }
        const item: QueuedItem = { callbackId, url: String(job.url), secret: String(job.secret ?? ""), event: eventName(message), message };
        if (closed) {
          fail(sessionId, item, 0, { reason: "closed", detail: "dispatcher closed" });
          return;
        }
        let queue = queues.get(sessionId);
        if (!queue) {
          queue = { items: [], running: false, degraded: false, nextBacklogWarning: backlogWarnAt, idleWaiters: [] };
          queues.set(sessionId, queue);
        }
        queue.items.push(item);
        if (queue.items.length >= queue.nextBacklogWarning) {
          queue.nextBacklogWarning *= 2;
          report((depth: number) => options.onBacklog?.(sessionId, depth), queue.items.length);
        }
        if (!queue.running) {
          const started = queue;
          queueMicrotask(() => void run(sessionId, started));
          queue.running = true;
        }
      } catch (error) {
        console.error("callback enqueue failed:", error);
      }
    },

    drain(sessionId) {
      const queue = queues.get(sessionId);
      if (!queue) return Promise.resolve();
      return new Promise<void>((resolve) => queue.idleWaiters.push(resolve));
    },

    async close(closeOptions = {}) {
      closed = true;
      const graceMs = Math.max(0, closeOptions.graceMs ?? 0);
      const all = Promise.all([...queues.keys()].map((id) => this.drain(id)));
      if (graceMs > 0) await settleWithin(all, graceMs);
      closing.abort();
      // Items still queued behind the aborted one are reported as closed.
      for (const [sessionId, queue] of queues) {
        for (const item of queue.items.splice(1)) {
          fail(sessionId, item, 0, { reason: "closed", detail: "dispatcher closed" });
        }
      }
      await all;
    },

    stats() {
      const perSession: Record<string, number> = {};
      let queued = 0;
      for (const [id, queue] of queues) {
        perSession[id] = queue.items.length;
        queued += queue.items.length;
      }
      return { sessions: queues.size, queued, perSession };
    },
  };
}

/** `live.<type>` event name of a message. */
export function eventName(message: CallbackMessage): CallbackEnvelope["event"] {
  return `live.${message.type}` as CallbackEnvelope["event"];
}

/** Exponential backoff with equal jitter: half fixed, half random. */
function backoffDelay(attemptNo: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attemptNo - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export { RefusedDestinationError };
