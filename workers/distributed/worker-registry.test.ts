import { describe, expect, test } from "bun:test";
import type { ModelCapability } from "../contract/types.ts";
import { capacityFor, unionCapabilities, type WorkerAdvert } from "./worker-registry.ts";

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
