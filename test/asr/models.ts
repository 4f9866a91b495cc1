/**
 * Where the real-weight tests and `bench/wer` find Whisper weights: `MODELS_DIR` (what CI's
 * bootstrap fills) or `./models`, with the catalogue's layout (`bun run models -- pull <id>`).
 * The session pipeline's VAD comes from the same directory when it holds one, else from
 * `../shared/models` (see test/helpers/models.ts).
 */
import { installed, modelsDir, vadModelsDir } from "../helpers/models.ts";

export { installed, modelsDir, vadModelsDir };

/**
 * Whether tests needing `ids` run: they do when the weights are installed; when they are not, CI
 * fails (its bootstrap installs them) and a developer's run skips them with a warning.
 */
export function requireWeights(...ids: string[]): boolean {
  const missing = ids.filter((id) => !installed(id));
  if (missing.length === 0) return true;
  const how = `install with: ${missing.map((id) => `bun run models -- pull ${id}`).join(" && ")} (MODELS_DIR=${modelsDir})`;
  if (process.env.CI) throw new Error(`real-weight tests need ${missing.join(", ")}: ${how}`);
  console.warn(`skipping real-weight tests: ${missing.join(", ")} not installed; ${how}`);
  return false;
}
