import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SMART_TURN_FILE, SPEAKER_FILE, SPEAKER_ID } from "../workers/catalogue/index.ts";
import type { VadModel } from "../workers/contract/vad.ts";
import { pulledModelsDir } from "../test/helpers/addon-models.ts";
import { createLogger } from "./log.ts";
import { audioAddons } from "./addon-models.ts";

const settings = { threshold: 0.5, silence_ms: 300, stop_s: 2, reeval_ms: 500, emit_scores: false } as never;

/** A logger that keeps its error lines. */
function recordingLog(): { log: ReturnType<typeof createLogger>; errors: string[] } {
  const errors: string[] = [];
  const log = { ...createLogger({}, { level: "error" }), error: (m: string) => void errors.push(m), child: () => log };
  return { log, errors };
}

/** A models directory with files at the add-ons' paths that are not models. */
function brokenModels(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "addon-models-"));
  for (const file of [SMART_TURN_FILE, SPEAKER_FILE]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), "not a model");
  }
  return dir;
}

describe("audio add-ons load after the service starts", () => {
  test("an installed add-on is on before anything is loaded; nothing loads until a session or warm() asks", async () => {
    let vadLoads = 0;
    const vad = () => {
      vadLoads++;
      return Promise.reject(new Error("no VAD here"));
    };
    const { log } = recordingLog();
    const lazy = audioAddons(brokenModels(), vad, log);
    expect(lazy.addons.turnChannel).not.toBeNull();
    expect(lazy.addons.speakers).not.toBeNull();
    expect(vadLoads).toBe(0);
    await lazy.warm();
    expect(vadLoads).toBe(1);
    await lazy.warm();
    expect(vadLoads).toBe(1);
  });

  test("no model file: the add-on is off", () => {
    const lazy = audioAddons(mkdtempSync(path.join(tmpdir(), "no-models-")), () => Promise.reject(new Error("unused")), recordingLog().log);
    expect(lazy.addons.turnChannel).toBeNull();
    expect(lazy.addons.speakers).toBeNull();
  });

  test("a model that fails to load is logged once; its add-on then adds nothing (no events, no speaker)", async () => {
    const { log, errors } = recordingLog();
    const lazy = audioAddons(brokenModels(), () => Promise.resolve({} as VadModel), log);
    const channel = lazy.addons.turnChannel!(0, settings);
    expect(await channel.push(new Float32Array(16000), 0)).toEqual([]);
    await expect(lazy.addons.speakers!(undefined).label(new Float32Array(16000))).rejects.toThrow(/could not be loaded/);
    await expect(lazy.addons.speakers!(undefined).label(new Float32Array(16000))).rejects.toThrow(/could not be loaded/);
    expect(errors.filter((e) => /end-of-turn/.test(e))).toHaveLength(1);
    expect(errors.filter((e) => /speaker-embedding/.test(e))).toHaveLength(1);
  });

  test("a session that needs the speaker encoder before it has loaded waits for it", async () => {
    const dir = await pulledModelsDir(SPEAKER_ID);
    const { log, errors } = recordingLog();
    const lazy = audioAddons(dir, () => Promise.reject(new Error("unused")), log);
    // Asked for at once, before warm(): the label comes once the encoder has loaded.
    const labeller = lazy.addons.speakers!(undefined);
    const tone = new Float32Array(32000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 220 * i) / 16000));
    expect(await labeller.label(tone)).toBe(0);
    expect(errors).toEqual([]);
  });
});
