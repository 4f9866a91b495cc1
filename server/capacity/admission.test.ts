import { describe, expect, test } from "bun:test";
import type { ModelCapability } from "../../workers/contract/types.ts";
import type { SessionRecord } from "../store/types.ts";
import { Admission } from "./admission.ts";
import { StreamCosts } from "./estimates.ts";
import { costMeter } from "./refine.ts";

const cap = (model: string, engine: string) => ({ model, engine, languages: [], features: [], translationTargets: [], profiles: [] }) as unknown as ModelCapability;
const TINY = cap("trantoria-1", "tiny");
const BIG = cap("solaria-3", "big");
const initial = (engine: string) => ({ tiny: 0.25, big: 1.5 })[engine] ?? 1; // "big" is made up

function admission(limit: number, opts: { held?: { id: string; model: string }[]; records?: Map<string, Partial<SessionRecord>>; now?: () => number } = {}) {
  const records = opts.records ?? new Map();
  return new Admission({
    limit,
    costs: new StreamCosts(initial),
    held: () => opts.held ?? [],
    lookup: async (id) => (records.get(id) as SessionRecord | undefined) ?? null,
    now: opts.now ?? (() => 1_000_000),
  });
}

const waiting = (createdAt = 1_000_000): Partial<SessionRecord> => ({ status: "queued", connectedAt: null, createdAt });

describe("Admission", () => {
  test("admits while the load, the new stream included, stays within the limit; then saturated", async () => {
    const records = new Map<string, Partial<SessionRecord>>();
    const adm = admission(0.6, { records });
    for (const id of ["s1", "s2"]) {
      const seat = await adm.reserve(TINY);
      expect(seat.ok).toBe(true);
      if (seat.ok) seat.confirm(id);
      records.set(id, waiting());
    }
    const third = await adm.reserve(TINY);
    expect(third).toMatchObject({ ok: false, refusal: "saturated", load: 0.5, cost: 0.25, limit: 0.6 });
    expect(adm.refused.saturated).toBe(1);
  });

  test("one stream larger than the limit: no_room", async () => {
    const seat = await admission(0.8).reserve(BIG);
    expect(seat).toMatchObject({ ok: false, refusal: "no_room", cost: 1.5 });
  });

  test("a place being stored counts; a cancelled one does not", async () => {
    const adm = admission(0.3);
    const first = await adm.reserve(TINY);
    expect(first.ok).toBe(true);
    expect((await adm.reserve(TINY)).ok).toBe(false);
    if (first.ok) first.cancel();
    expect((await adm.reserve(TINY)).ok).toBe(true);
  });

  test("held sessions count at their model's cost; ended or expired admissions let their place go", async () => {
    const held = [{ id: "h1", model: "trantoria-1" }];
    const records = new Map<string, Partial<SessionRecord>>();
    let now = 1_000_000;
    const adm = admission(0.5, { held, records, now: () => now });
    const seat = await adm.reserve(TINY);
    if (seat.ok) seat.confirm("p1");
    records.set("p1", waiting(now));
    expect((await adm.reserve(TINY)).ok).toBe(false);
    // p1 connected and ended before it was ever seen held: its record says so.
    records.set("p1", { status: "done", connectedAt: now, createdAt: now });
    const next = await adm.reserve(TINY);
    expect(next.ok).toBe(true);
    if (next.ok) next.confirm("p2");
    records.set("p2", waiting(now));
    expect((await adm.reserve(TINY)).ok).toBe(false);
    now += 60_000; // p2's URL expired unused
    expect((await adm.reserve(TINY)).ok).toBe(true);
    const snapshot = await adm.snapshot();
    expect(snapshot.models.find((m) => m.model === "trantoria-1")).toMatchObject({ sessions: 2, load: 0.5, streamCost: 0.25 });
  });

  test("limit 0: every session admitted", async () => {
    const adm = admission(0);
    for (let i = 0; i < 100; i++) expect((await adm.reserve(BIG)).ok).toBe(true);
  });
});

describe("StreamCosts and the cost meter", () => {
  test("an exponentially weighted mean of the measured costs, never below half the catalogue's figure", () => {
    const costs = new StreamCosts(initial, 0.5);
    expect(costs.of("tiny")).toBe(0.25);
    costs.observe("tiny", 4, 10); // 0.4
    expect(costs.of("tiny")).toBeCloseTo(0.325, 9);
    for (let i = 0; i < 50; i++) costs.observe("tiny", 0, 10);
    expect(costs.of("tiny")).toBeCloseTo(0.125, 6);
  });

  test("engine time over the audio streamed to the engine's models, per interval; a short interval waits", () => {
    const costs = new StreamCosts(initial, 1);
    const spent = new Map<string, number>();
    const streamed = new Map<string, number>();
    const take = costMeter(costs, { engineSeconds: () => spent, streamedSeconds: () => streamed, engineOf: (m) => (m === "trantoria-1" ? "tiny" : undefined) });
    spent.set("tiny", 3); // warm-up, before counting starts
    streamed.set("trantoria-1", 0);
    take();
    spent.set("tiny", 5);
    streamed.set("trantoria-1", 2); // under 5 s of audio: no measurement yet
    take();
    expect(costs.of("tiny")).toBe(0.25);
    spent.set("tiny", 6);
    streamed.set("trantoria-1", 10);
    take();
    expect(costs.of("tiny")).toBeCloseTo(0.3, 9); // 3 engine-s over 10 audio-s
  });
});
