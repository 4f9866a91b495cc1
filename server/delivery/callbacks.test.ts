import { afterEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import {
  type CallbackMessage,
  createCallbackDispatcher,
  verifyCallbackSignature,
  type CallbackDelivery,
  type CallbackFailure,
} from "./callbacks.ts";
import { addressRefusal, checkDestination } from "./address-policy.ts";
import { signCallback } from "./signature.ts";

const SECRET = "whsec-test-secret";

interface Received {
  callbackId: string;
  attempt: number;
  signature: string | null;
  body: string;
}

/** A local receiver whose answer per request is decided by `respond`. */
function startReceiver(respond: (req: Received, nth: number) => Response | Promise<Response>) {
  const received: Received[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const entry: Received = {
        callbackId: request.headers.get("x-callback-id") ?? "",
        attempt: Number(request.headers.get("x-callback-attempt")),
        signature: request.headers.get("x-signature"),
        body: await request.text(),
      };
      received.push(entry);
      return respond(entry, received.length);
    },
  });
  return { server, received, url: `http://127.0.0.1:${server.port}/hook` };
}

const servers: Server<undefined>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A payload the dispatcher carries as is (it signs and posts, it does not validate shapes). */
const payload = (m: object): CallbackMessage => m as CallbackMessage;

function message(i: number): CallbackMessage {
  return payload({ type: "transcript", session_id: "s1", data: { index: i, is_final: true } });
}

function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (predicate()) return resolve();
      if (Date.now() - start > timeoutMs) return reject(new Error("condition not met in time"));
      setTimeout(tick, 5);
    };
    tick();
  });
}

describe("callback dispatcher", () => {
  test("delivers in order under retries, with stable ids and valid signatures", async () => {
    // Message 2 fails twice with 500, message 5 once with 429, message 7 once with 503.
    const failuresLeft = new Map<number, number[]>([[2, [500, 500]], [5, [429]], [7, [503]]]);
    const rx = startReceiver((req) => {
      const index = JSON.parse(req.body).payload.data.index as number;
      const pending = failuresLeft.get(index);
      const status = pending?.shift();
      return new Response(null, { status: status ?? 200 });
    });
    servers.push(rx.server);
    const delivered: CallbackDelivery[] = [];
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({
      allowLoopback: true,
      baseDelayMs: 5,
      maxDelayMs: 20,
      onDelivered: (d) => delivered.push(d),
      onFailure: (f) => failures.push(f),
    });
    for (let i = 0; i < 10; i++) {
      dispatcher.enqueue("s1", { url: rx.url, secret: SECRET, message: message(i) });
    }
    await dispatcher.drain("s1");
    await dispatcher.close();

    expect(failures).toEqual([]);
    expect(delivered.map((d) => d.attempts)).toEqual([1, 1, 3, 1, 1, 2, 1, 2, 1, 1]);
    // Order of requests as seen by the receiver: N+1 never before N succeeded.
    const indices = rx.received.map((r) => JSON.parse(r.body).payload.data.index);
    expect(indices).toEqual([0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 7, 8, 9]);
    // Same id for every attempt of a message; distinct ids across messages.
    const idsByIndex = new Map<number, Set<string>>();
    rx.received.forEach((r, k) => {
      const set = idsByIndex.get(indices[k]) ?? new Set();
      set.add(r.callbackId);
      idsByIndex.set(indices[k], set);
    });
    for (const set of idsByIndex.values()) expect(set.size).toBe(1);
    expect(new Set(rx.received.map((r) => r.callbackId)).size).toBe(10);
    expect(rx.received.filter((r) => indices[rx.received.indexOf(r)] === 2).map((r) => r.attempt)).toEqual([1, 2, 3]);
    // Envelope and signature.
    for (const r of rx.received) {
      const envelope = JSON.parse(r.body);
      expect(Object.keys(envelope).sort()).toEqual(["event", "id", "payload"]);
      expect(envelope.id).toBe("s1");
      expect(envelope.event).toBe("live.transcript");
      expect(envelope.payload.type).toBe("transcript");
      expect(verifyCallbackSignature(SECRET, r.signature, r.body)).toBe(true);
      expect(verifyCallbackSignature("other-secret", r.signature, r.body)).toBe(false);
    }
  });

  test("event name follows the message type (acknowledgments, lifecycle)", async () => {
    const rx = startReceiver(() => new Response("ok"));
    servers.push(rx.server);
    const dispatcher = createCallbackDispatcher({ allowLoopback: true });
    dispatcher.enqueue("s9", { url: rx.url, secret: SECRET, message: payload({ type: "start_session", session_id: "s9" }) });
    dispatcher.enqueue("s9", {
      url: rx.url,
      secret: SECRET,
      message: payload({ type: "audio_chunk", acknowledged: true, data: { byte_range: [0, 3200], time_range: [0, 100] } }),
    });
    await dispatcher.drain("s9");
    await dispatcher.close();
    expect(rx.received.map((r) => JSON.parse(r.body).event)).toEqual(["live.start_session", "live.audio_chunk"]);
  });

  test("per-request timeout is honoured and the attempt is retried", async () => {
    let calls = 0;
    const rx = startReceiver(() => {
      calls++;
      if (calls === 1) return new Promise<Response>(() => {}); // hang forever
      return new Response(null, { status: 204 });
    });
    servers.push(rx.server);
    const delivered: CallbackDelivery[] = [];
    const dispatcher = createCallbackDispatcher({
      allowLoopback: true,
      timeoutMs: 1000, // long enough for the answering attempt on a busy runner
      baseDelayMs: 1,
      onDelivered: (d) => delivered.push(d),
    });
    dispatcher.enqueue("s2", { url: rx.url, secret: SECRET, message: message(0) });
    await dispatcher.drain("s2");
    await dispatcher.close();
    expect(delivered).toHaveLength(1);
    expect(delivered[0].attempts).toBe(2);
    expect(rx.received.map((r) => r.callbackId)).toEqual([delivered[0].callbackId, delivered[0].callbackId]);
  });

  test("a hanging receiver yields a timeout failure after the allowed attempts", async () => {
    const rx = startReceiver(() => new Promise<Response>(() => {}));
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({
      allowLoopback: true,
      timeoutMs: 500, // each attempt's request must reach the receiver before it times out
      maxAttempts: 2,
      baseDelayMs: 1,
      onFailure: (f) => failures.push(f),
    });
    dispatcher.enqueue("s3", { url: rx.url, secret: SECRET, message: message(0) });
    await dispatcher.drain("s3");
    await dispatcher.close();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ reason: "timeout", attempts: 2, event: "live.transcript" });
    expect(rx.received).toHaveLength(2);
  });

  test("4xx other than 408/429 is not retried and does not block later messages", async () => {
    const rx = startReceiver((req) => {
      const index = JSON.parse(req.body).payload.data.index;
      return new Response(null, { status: index === 0 ? 400 : 200 });
    });
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const delivered: CallbackDelivery[] = [];
    const dispatcher = createCallbackDispatcher({
      allowLoopback: true,
      baseDelayMs: 1,
      onFailure: (f) => failures.push(f),
      onDelivered: (d) => delivered.push(d),
    });
    dispatcher.enqueue("s4", { url: rx.url, secret: SECRET, message: message(0) });
    dispatcher.enqueue("s4", { url: rx.url, secret: SECRET, message: message(1) });
    await dispatcher.drain("s4");
    await dispatcher.close();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ reason: "http_status", status: 400, attempts: 1 });
    expect(delivered).toHaveLength(1);
    expect(rx.received).toHaveLength(2);
  });

  test("redirects are not followed", async () => {
    const rx = startReceiver(() => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } }));
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({ allowLoopback: true, onFailure: (f) => failures.push(f) });
    dispatcher.enqueue("s5", { url: rx.url, secret: SECRET, message: message(0) });
    await dispatcher.drain("s5");
    await dispatcher.close();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ reason: "http_status", status: 302, attempts: 1 });
  });

  test("loopback, private and non-http destinations are refused before any connection", async () => {
    const rx = startReceiver(() => new Response("ok"));
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({ allowLoopback: false, baseDelayMs: 1, onFailure: (f) => failures.push(f) });
    const urls = [
      rx.url,
      `http://localhost:${rx.server.port}/hook`,
      `http://[::1]:${rx.server.port}/hook`,
      `http://[::ffff:127.0.0.1]:${rx.server.port}/hook`,
      "http://10.0.0.1/hook",
      "https://192.168.1.20/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://0.0.0.0/hook",
      "http://[fd00::1]/hook",
      "ftp://example.com/hook",
      "not a url",
    ];
    for (const url of urls) dispatcher.enqueue("s6", { url, secret: SECRET, message: message(0) });
    await dispatcher.drain("s6");
    await dispatcher.close();
    expect(rx.received).toHaveLength(0);
    expect(failures).toHaveLength(urls.length);
    for (const failure of failures) {
      expect(failure.reason).toBe("refused_destination");
      expect(failure.attempts).toBe(1);
    }
  });

  test("address policy classification", () => {
    expect(addressRefusal("8.8.8.8", {})).toBeNull();
    expect(addressRefusal("2606:4700:4700::1111", {})).toBeNull();
    expect(addressRefusal("127.0.0.1", {})).toContain("loopback");
    expect(addressRefusal("127.0.0.1", { allowLoopback: true })).toBeNull();
    expect(addressRefusal("10.1.2.3", {})).toContain("private");
    expect(addressRefusal("10.1.2.3", { allowPrivate: true })).toBeNull();
    expect(addressRefusal("10.1.2.3", { allowLoopback: true })).not.toBeNull();
    expect(addressRefusal("172.16.0.1", {})).not.toBeNull();
    expect(addressRefusal("100.64.0.1", {})).not.toBeNull();
    expect(addressRefusal("169.254.169.254", {})).not.toBeNull();
    expect(addressRefusal("fe80::1", {})).not.toBeNull();
    expect(addressRefusal("fc00::1", {})).not.toBeNull();
    expect(addressRefusal("::", { allowLoopback: true, allowPrivate: true })).not.toBeNull();
    expect(addressRefusal("0.0.0.0", { allowLoopback: true, allowPrivate: true })).not.toBeNull();
    // IPv4-compatible IPv6 (`[::127.0.0.1]` is read as `::7f00:1`) is judged by the embedded IPv4 address.
    for (const a of ["::7f00:1", "::127.0.0.1", "::a00:1", "::c0a8:1", "::ffff:7f00:1"]) expect(addressRefusal(a, {})).not.toBeNull();
    expect(addressRefusal("::7f00:1", { allowLoopback: true })).toBeNull();
    expect(addressRefusal("::a00:1", { allowLoopback: true })).not.toBeNull();
    expect(addressRefusal("::1", { allowLoopback: true })).toBeNull();
    expect(addressRefusal("::ffff:10.0.0.1", {})).not.toBeNull();
    expect(addressRefusal("224.0.0.1", { allowPrivate: true })).not.toBeNull();
  });

  test("hostnames are checked on every address they resolve to", async () => {
    await expect(checkDestination("http://localhost/x", {})).rejects.toThrow(/loopback/);
    const ok = await checkDestination("http://localhost/x", { allowLoopback: true });
    expect(ok.addresses.length).toBeGreaterThan(0);
  });

  test("enqueue returns synchronously without waiting for delivery and never throws", async () => {
    const rx = startReceiver(() => new Response("ok"));
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({ allowLoopback: true, onFailure: (f) => failures.push(f) });
    const results: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      results.push(dispatcher.enqueue("s7", { url: rx.url, secret: SECRET, message: message(i) }));
    }
    // Nothing has been sent yet: delivery happens after the caller's turn.
    expect(rx.received).toHaveLength(0);
    expect(results.every((r) => r === undefined)).toBe(true);
    expect(dispatcher.stats().perSession.s7).toBe(200);
    // Bad input is reported, not thrown.
    expect(() => dispatcher.enqueue("s7", { url: rx.url, secret: SECRET, message: null as never })).not.toThrow();
    expect(() => dispatcher.enqueue("s7", undefined as never)).not.toThrow();
    expect(failures.map((f) => f.reason)).toEqual(["invalid_message", "invalid_message"]);
    await dispatcher.drain("s7");
    expect(rx.received).toHaveLength(200);
    expect(dispatcher.stats().queued).toBe(0);
    await dispatcher.close();
  });

  test("backlog is metered, circuit breaker limits attempts after an abandonment", async () => {
    // Messages 0, 1 and 9 always fail with 500; the others succeed.
    const rx = startReceiver((req) => {
      const index = JSON.parse(req.body).payload.data.index;
      return new Response(null, { status: [0, 1, 9].includes(index) ? 500 : 200 });
    });
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const delivered: CallbackDelivery[] = [];
    const backlog: number[] = [];
    const dispatcher = createCallbackDispatcher({
      allowLoopback: true,
      maxAttempts: 3,
      baseDelayMs: 1,
      maxDelayMs: 2,
      backlogWarnAt: 2,
      onFailure: (f) => failures.push(f),
      onDelivered: (d) => delivered.push(d),
      onBacklog: (_id, depth) => backlog.push(depth),
    });
    for (let i = 0; i < 4; i++) dispatcher.enqueue("s8", { url: rx.url, secret: SECRET, message: message(i) });
    expect(backlog).toEqual([2, 4]);
    await dispatcher.drain("s8");
    // Message 0 used all 3 attempts; message 1 got a single attempt (circuit open).
    expect(failures.map((f) => f.attempts)).toEqual([3, 1]);
    expect(delivered.map((d) => d.attempts)).toEqual([1, 1]);
    // After a success the full retry budget is back.
    dispatcher.enqueue("s8", { url: rx.url, secret: SECRET, message: message(9) });
    await dispatcher.drain("s8");
    expect(failures.at(-1)?.attempts).toBe(3);
    await dispatcher.close();
  });

  test("close aborts in-flight work and reports it", async () => {
    const rx = startReceiver(() => new Promise<Response>(() => {}));
    servers.push(rx.server);
    const failures: CallbackFailure[] = [];
    const dispatcher = createCallbackDispatcher({ allowLoopback: true, onFailure: (f) => failures.push(f) });
    dispatcher.enqueue("s10", { url: rx.url, secret: SECRET, message: message(0) });
    dispatcher.enqueue("s10", { url: rx.url, secret: SECRET, message: message(1) });
    await waitFor(() => rx.received.length === 1);
    await dispatcher.close({ graceMs: 20 });
    expect(failures.map((f) => f.reason)).toEqual(["closed", "closed"]);
    dispatcher.enqueue("s10", { url: rx.url, secret: SECRET, message: message(2) });
    expect(failures).toHaveLength(3);
  });
});

describe("verifyCallbackSignature", () => {
  const body = JSON.stringify({ id: "x", event: "live.transcript", payload: { type: "transcript" } });
  const now = 1_700_000_000;

  test("accepts a fresh valid signature", () => {
    expect(verifyCallbackSignature(SECRET, signCallback(SECRET, body, now), body, 300, now + 10)).toBe(true);
    expect(verifyCallbackSignature(SECRET, signCallback(SECRET, body, now), new TextEncoder().encode(body), 300, now)).toBe(true);
  });

  test("rejects tampering, wrong secret, stale timestamps and malformed headers", () => {
    const header = signCallback(SECRET, body, now);
    expect(verifyCallbackSignature(SECRET, header, body + " ", 300, now)).toBe(false);
    expect(verifyCallbackSignature("nope", header, body, 300, now)).toBe(false);
    expect(verifyCallbackSignature(SECRET, header, body, 300, now + 301)).toBe(false);
    expect(verifyCallbackSignature(SECRET, header.replace(/t=\d+/, `t=${now + 1}`), body, 300, now)).toBe(false);
    expect(verifyCallbackSignature(SECRET, "garbage", body, 300, now)).toBe(false);
    expect(verifyCallbackSignature(SECRET, null, body, 300, now)).toBe(false);
    expect(verifyCallbackSignature(SECRET, `t=${now},v1=zz`, body, 300, now)).toBe(false);
  });
});
