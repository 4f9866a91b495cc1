import { describe, expect, test } from "bun:test";
import type { LiveSessionInit } from "../../generated/openapi/types.gen.ts";
import { requestedFeatures } from "./features.ts";

describe("requestedFeatures", () => {
  test("asks for the add-ons switched on", () => {
    const init = { diarization: true, realtime_processing: { custom_vocabulary: true } } as LiveSessionInit;
    expect(requestedFeatures(init).sort()).toEqual(["custom_vocabulary", "diarization"]);
  });

  test("accurate word timestamps are never asked of the engine: a model without its alignment decoder still serves the session", () => {
    const init = { realtime_processing: { words_accurate_timestamps: true } } as LiveSessionInit;
    expect(requestedFeatures(init)).toEqual([]);
  });
});
