import { describe, expect, test } from "bun:test";
import { renderPrometheus } from "../coordinator/redis-metrics.ts";
import type { ModelCapability } from "../coordinator/types.ts";
import { capacityFor, unionCapabilities, type WorkerAdvert } from "./registry.ts";

const cap = (over: Partial<ModelCapability>): ModelCapability => ({
  model: "trantoria-1",
  engine: "moonshine-micro-spelling",
  languages: ["en"],
  features: ["punctuation"],
  translationTargets: [],
  profiles: ["balanced"],
  ...over,
});

const advert = (id: string, capabilities: ModelCapability[], concurrency: number, busy: number): WorkerAdvert => ({
  id,
  host: "h",
  pid: 1,
  startedAt: 0,
  engines: [],
  capabilities,
  concurrency,
  busy,
  free: concurrency - busy,
  ttlMs: 1000,
  updatedAt: 0,
});

describe("registry aggregation", () => {
  const adverts = [
    advert("w1", [cap({}), cap({ model: "solaria-1", engine: "whisper-base", languages: ["en", "fr"], features: ["translation"], translationTargets: ["en"] })], 2, 1),
    advert("w2", [cap({ languages: ["en", "de"], features: ["numerals"], profiles: ["low_latency"] })], 3, 0),
  ];

  test("capabilities are the per-model union of what live workers serve", () => {
    const caps = unionCapabilities(adverts);
    expect(caps.map((c) => c.model)).toEqual(["solaria-1", "trantoria-1"]);
    const t = caps.find((c) => c.model === "trantoria-1")!;
    expect(t.languages.sort()).toEqual(["de", "en"]);
    expect(t.features.sort()).toEqual(["numerals", "punctuation"]);
    expect(t.profiles.sort()).toEqual(["balanced", "low_latency"]);
    expect(unionCapabilities([])).toEqual([]);
    // the inputs are not modified
    expect(adverts[0].capabilities[0].languages).toEqual(["en"]);
  });

  test("capacity counts only the workers serving the model", () => {
    expect(capacityFor(adverts, "trantoria-1")).toEqual({ workers: 2, capacity: 5, free: 4 });
    expect(capacityFor(adverts, "solaria-1")).toEqual({ workers: 1, capacity: 2, free: 1 });
    expect(capacityFor(adverts, "solaria-3")).toEqual({ workers: 0, capacity: 0, free: 0 });
  });
});

describe("Prometheus rendering", () => {
  test("one sample per model and metric, labels escaped, help and type lines present", () => {
    const text = renderPrometheus({
      gatewayId: 'g"1',
      workers: 2,
      pendingCalls: 3,
      deadLettered: 4,
      resent: 5,
      duplicateResults: 6,
      refused: 9,
      models: [{ model: "trantoria-1", depth: 7, waiting: 5, inFlight: 2, oldestAgeMs: 1500, workers: 2, capacity: 4, free: 2 }],
    });
    const lines = text.trim().split("\n");
    expect(lines).toContain('stt_inference_dead_lettered_total{gateway="g\\"1"} 4');
    expect(lines).toContain('stt_inference_queue_depth{gateway="g\\"1",model="trantoria-1"} 7');
    expect(lines).toContain('stt_inference_oldest_job_age_seconds{gateway="g\\"1",model="trantoria-1"} 1.5');
    expect(lines).toContain('stt_inference_refused_total{gateway="g\\"1"} 9');
    const samples = lines.filter((l) => !l.startsWith("#"));
    expect(samples).toHaveLength(13);
    for (const s of samples) expect(s).toMatch(/^stt_[a-z_]+\{[^}]*\} -?\d+(\.\d+)?$/);
    expect(lines.filter((l) => l.startsWith("# TYPE"))).toHaveLength(13);
  });
});
