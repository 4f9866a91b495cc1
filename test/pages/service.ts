/**
 * A real service for the page and example tests: real clock, temporary DATA_DIR, port 0 on
 * loopback, models from MODELS_DIR (default `./models`, as bootstrap fills it; see test/asr/models.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "../../server/log.ts";
import { startServer, type RunningServer } from "../../server/server.ts";
import { modelsDir } from "../asr/models.ts";

export { modelsDir };
export const KEY = "pages-test-key";

export function startService(): Promise<RunningServer> {
  return startServer({
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "live-stt-pages-")),
      MODELS_DIR: modelsDir,
      BOOTSTRAP_API_KEY: KEY,
    },
    log: createLogger({ test: true }),
  });
}

/** The Whisper-family model the transcript tests need (`solaria-1`), with the way to install it. */
export const WHISPER_MODEL = "solaria-1";

export async function requireWhisper(service: RunningServer): Promise<void> {
  const response = await fetch(`${service.url}/v2/live/capabilities`, { headers: { "x-service-key": KEY } });
  const { models } = (await response.json()) as { models: { model: string }[] };
  if (!models.some((m) => m.model === WHISPER_MODEL)) {
    throw new Error(
      `this test needs a Whisper model serving ${WHISPER_MODEL} in MODELS_DIR (${modelsDir}); ` +
        `install one with \`MODELS_DIR=${modelsDir} bun run models -- pull whisper-base\` (served now: ${models.map((m) => m.model).join(", ") || "none"})`,
    );
  }
}
