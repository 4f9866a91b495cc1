/** Operator configuration read from the environment: the engine threads of the embedded recognizer, admission's headroom. */
import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { loadConfig, StartupError } from "../../server/config.ts";

describe("ENGINE_THREADS", () => {
  test("defaults to one engine thread per core", () => {
    expect(loadConfig({}).engineThreads).toBe(availableParallelism());
  });
  test("takes an operator's count", () => {
    expect(loadConfig({ ENGINE_THREADS: "3" }).engineThreads).toBe(3);
  });
  test("refuses what is not a count of threads, naming the variable", () => {
    for (const bad of ["0", "-1", "1.5", "many", "65"]) expect(() => loadConfig({ ENGINE_THREADS: bad })).toThrow(StartupError);
    expect(() => loadConfig({ ENGINE_THREADS: "0" })).toThrow(/ENGINE_THREADS must be an integer 1\.\.64, got 0/);
  });
});

describe("CAPACITY_HEADROOM", () => {
  test("defaults to 0.8 of the engine threads; 0 is no limit; above 1 over-commits", () => {
    expect(loadConfig({}).capacityHeadroom).toBe(0.8);
    expect(loadConfig({ CAPACITY_HEADROOM: "0" }).capacityHeadroom).toBe(0);
    expect(loadConfig({ CAPACITY_HEADROOM: "1.5" }).capacityHeadroom).toBe(1.5);
  });
  test("refuses what is not a share, naming the variable", () => {
    for (const bad of ["-0.1", "lots", "101"]) expect(() => loadConfig({ CAPACITY_HEADROOM: bad })).toThrow(/CAPACITY_HEADROOM must be a number 0\.\.100/);
  });
});
