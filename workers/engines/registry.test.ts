import { expect, test } from "bun:test";
import { resolve } from "node:path";
import { engineLoader, hasEngineFamily, loadEngine, registerEngineFamily } from "./registry.ts";
import type { Engine } from "./types.ts";

const MOONSHINE = resolve(import.meta.dir, "../../../shared/models/moonshine-micro");

test("the isolated-token family loads through the registry with its catalogue name and options", async () => {
  expect(hasEngineFamily("isolated-token")).toBe(true);
  const engine = await loadEngine("isolated-token", MOONSHINE, { name: "moonshine-micro-spelling-int8", options: { preferQuantized: true } });
  try {
    expect(engine.info.name).toBe("moonshine-micro-spelling-int8");
    expect(engine.info.family).toBe("isolated-token");
  } finally {
    await engine.dispose();
  }
});

test("a registered loader replaces the built-in one in this thread", async () => {
  const fake = { info: { name: "x" } } as unknown as Engine;
  registerEngineFamily("transducer", async () => fake);
  expect(hasEngineFamily("transducer")).toBe(true);
  expect(await (await engineLoader("transducer"))("/nowhere", { name: "x" })).toBe(fake);
});

test("an unknown family fails clearly", async () => {
  await expect(engineLoader("nope" as "whisper")).rejects.toThrow(/no engine loader/);
});
