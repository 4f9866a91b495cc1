import { afterAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { NoCapacityError } from "../contract/types.ts";
import { readWavFile } from "../dsp/wav.ts";
import { EnginePool } from "./pool.ts";
import type { EngineSpec } from "./protocol.ts";

const SHARED = resolve(import.meta.dir, "../../../shared");
const spec: EngineSpec = { id: "moonshine-micro-spelling", family: "isolated-token", dir: resolve(SHARED, "models/moonshine-micro") };
const audio = readWavFile(resolve(SHARED, "audio/spelling/a.wav")).samples;
const pool = new EnginePool({ threads: 1, queueLimit: 2 });
afterAll(() => pool.close());

describe("engine pool", () => {
  test("runs a transcription on a worker thread", async () => {
    const r = await pool.run(spec, { audio, partial: false });
    expect(r.text).toBe("a");
  });

  test("counts the engine-seconds its jobs take, per engine", async () => {
    const before = pool.engineSeconds().get(spec.id) ?? 0;
    const started = performance.now();
    await pool.run(spec, { audio, partial: false });
    const spent = (pool.engineSeconds().get(spec.id) ?? 0) - before;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual((performance.now() - started) / 1000);
  });

  test("rejects with NoCapacityError beyond one running job plus two queued", async () => {
    const runs = Array.from({ length: 5 }, () => pool.run(spec, { audio, partial: false }));
    const settled = await Promise.allSettled(runs);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(3);
    const refused = settled.filter((s) => s.status === "rejected") as PromiseRejectedResult[];
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.reason).toBeInstanceOf(NoCapacityError);
    expect(pool.load).toEqual({ running: 0, queued: 0, oldestQueuedMs: 0 });
  });

  test("an engine error comes back as a rejection and the worker keeps serving", async () => {
    const bad: EngineSpec = { ...spec, id: "missing", dir: "/nonexistent" };
    await expect(pool.run(bad, { audio, partial: false })).rejects.toThrow(/spelling_cnn_meta\.json/);
    expect((await pool.run(spec, { audio, partial: false })).text).toBe("a");
  });

  test("an aborted queued job is rejected and leaves the queue", async () => {
    const controller = new AbortController();
    const first = pool.run(spec, { audio, partial: false });
    const second = pool.run(spec, { audio, partial: false }, controller.signal);
    controller.abort();
    await expect(second).rejects.toThrow();
    expect((await first).text).toBe("a");
    expect(pool.load.queued).toBe(0);
  });

  test("a queued final runs before queued partials", async () => {
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    const running = track("running", pool.run(spec, { audio, partial: false }));
    const partial = track("partial", pool.run(spec, { audio, partial: true }));
    const final = track("final", pool.run(spec, { audio, partial: false }));
    await Promise.all([running, partial, final]);
    expect(order).toEqual(["running", "final", "partial"]);
  });

  test("partials filling the queue do not get a final refused; a partial or a background decode is", async () => {
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    // One running and two waiting: the limit of this pool, all partials.
    const partials = [0, 1, 2].map((i) => track(`partial-${i}`, pool.run(spec, { audio, partial: true })));
    const refused = [pool.run(spec, { audio, partial: true }), pool.run(spec, { audio, partial: false }, undefined, "background")];
    const final = track("final", pool.run(spec, { audio, partial: false }));
    for (const r of await Promise.allSettled(refused)) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(NoCapacityError);
    }
    await Promise.all([...partials, final]);
    expect(order).toEqual(["partial-0", "final", "partial-1", "partial-2"]);
  });

  test("finals, then speculative finals, then partials, then background decodes leave the queue, first come first served within each", async () => {
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    const wide = new EnginePool({ threads: 1, queueLimit: 8 });
    try {
      const running = track("running", wide.run(spec, { audio, partial: false }));
      const jobs = [
        track("background", wide.run(spec, { audio, partial: false }, undefined, "background")),
        track("partial 1", wide.run(spec, { audio, partial: true })),
        track("speculative 1", wide.run(spec, { audio, partial: false }, undefined, "speculative")),
        track("final 1", wide.run(spec, { audio, partial: false })),
        track("partial 2", wide.run(spec, { audio, partial: true })),
        track("speculative 2", wide.run(spec, { audio, partial: false }, undefined, "speculative")),
        track("final 2", wide.run(spec, { audio, partial: false })),
      ];
      await Promise.all([running, ...jobs]);
      expect(order).toEqual(["running", "final 1", "final 2", "speculative 1", "speculative 2", "partial 1", "partial 2", "background"]);
    } finally {
      await wide.close();
    }
  });

  test("with every worker idle a lone final gets every core; jobs placed together, partials, and a final soon after an overlap, one each", async () => {
    const two = new EnginePool({ threads: 2, queueLimit: 8 });
    try {
      expect((await two.run(spec, { audio, partial: false })).text).toBe("a");
      expect(two.widened).toBe(1);
      await two.run(spec, { audio, partial: false }, undefined, "speculative");
      expect(two.widened).toBe(2);
      await two.run(spec, { audio, partial: true });
      expect(two.widened).toBe(2);
      // two finals submitted in one turn: neither takes both cores
      const both = await Promise.all([two.run(spec, { audio, partial: false }), two.run(spec, { audio, partial: false })]);
      expect(both.map((r) => r.text)).toEqual(["a", "a"]);
      expect(two.widened).toBe(2);
      // right after jobs overlapped, a lone final keeps one core (more streams may be on the way)
      await two.run(spec, { audio, partial: false });
      expect(two.widened).toBe(2);
      expect(two.load).toEqual({ running: 0, queued: 0, oldestQueuedMs: 0 });
    } finally {
      await two.close();
    }
  });

  test("once no jobs have overlapped for widenQuietMs, a lone final widens again", async () => {
    const two = new EnginePool({ threads: 2, queueLimit: 8, widenQuietMs: 1000 });
    try {
      await Promise.all([two.run(spec, { audio, partial: false }), two.run(spec, { audio, partial: false })]);
      await two.run(spec, { audio, partial: false });
      expect(two.widened).toBe(0);
      await Bun.sleep(1100);
      await two.run(spec, { audio, partial: false });
      expect(two.widened).toBe(1);
    } finally {
      await two.close();
    }
  });

  test("widening off: one core per job", async () => {
    const two = new EnginePool({ threads: 2, queueLimit: 8, widenWhenIdle: false });
    try {
      await two.run(spec, { audio, partial: false });
      expect(two.widened).toBe(0);
    } finally {
      await two.close();
    }
  });
});

describe("engine pool on Whisper tiny.en (real weights)", () => {
  const models = resolve(process.env.MODELS_DIR ?? resolve(import.meta.dir, "../../models"));
  const whisper: EngineSpec = { id: "whisper-tiny.en", family: "whisper", dir: resolve(models, "whisper-tiny.en"), options: { nMels: 80 } };
  const jfk = readWavFile(resolve(SHARED, "audio/jfk.wav")).samples;

  test("a partial that finds the one worker in a background beam search runs first; the background decode then goes on where it was", async () => {
    const one = new EnginePool({ threads: 1, queueLimit: 8 });
    try {
      const background = { audio: jfk, partial: false, beamSize: 5 };
      const partialRequest = { audio: jfk, partial: true };
      await one.run(whisper, partialRequest);
      let started = performance.now();
      const alone = await one.run(whisper, background, undefined, "background");
      const aloneMs = performance.now() - started;
      const partialAlone = await one.run(whisper, partialRequest);
      const order: string[] = [];
      const revised = one.run(whisper, background, undefined, "background").then((r) => (order.push("background"), r));
      // Well inside its beam search: most of its work is done.
      await Bun.sleep(0.75 * aloneMs);
      expect(one.load.running).toBe(1);
      const partial = await one.run(whisper, partialRequest).then((r) => (order.push("partial"), r));
      started = performance.now();
      expect(partial.text).toBe(partialAlone.text);
      expect(order).toEqual(["partial"]);
      expect((await revised).text).toBe(alone.text);
      const restMs = performance.now() - started;
      expect(one.preempted).toBe(1);
      // What was left of it, not the whole decode again.
      expect(restMs).toBeLessThan(0.5 * aloneMs);
      expect(one.load).toEqual({ running: 0, queued: 0, oldestQueuedMs: 0 });
    } finally {
      await one.close();
    }
  }, 60_000);

  test("a suspended background decode that is aborted leaves its worker free for the next job", async () => {
    const one = new EnginePool({ threads: 1, queueLimit: 8 });
    try {
      const stop = new AbortController();
      const revised = one.run(whisper, { audio: jfk, partial: false, beamSize: 5 }, stop.signal, "background");
      await Bun.sleep(500);
      const partial = one.run(whisper, { audio: jfk, partial: true });
      // Suspended once the partial runs: aborted there, it is rejected at once.
      while (one.preempted === 0 || one.load.queued === 0) await Bun.sleep(10);
      stop.abort();
      await expect(revised).rejects.toThrow();
      expect((await partial).text.toLowerCase()).toContain("country");
      expect((await one.run(whisper, { audio: jfk, partial: true })).text.toLowerCase()).toContain("country");
      expect(one.load).toEqual({ running: 0, queued: 0, oldestQueuedMs: 0 });
    } finally {
      await one.close();
    }
  }, 60_000);
});
