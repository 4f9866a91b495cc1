/**
 * Synthesized speech for tests: Debian's espeak-ng (installed by scripts/bootstrap.sh) speaks each
 * word, sox makes it 16 kHz mono 16-bit without dither (sox dithers at random by default, so every
 * machine would hear other samples); clips are cached per word in the system temp folder.
 */
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";

const CACHE = path.join(tmpdir(), "live-stt-espeak-undithered");
const RATE = 16000;

function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${r.stderr.toString()}`);
}

/** One word (or phrase) spoken by espeak-ng, as 16 kHz mono floats. */
export function spoken(text: string, voice = "en-us", wordsPerMinute = 150): Float32Array {
  mkdirSync(CACHE, { recursive: true });
  const name = `${voice}-${wordsPerMinute}-${text.replace(/[^a-z0-9]+/gi, "_").slice(0, 80)}-${Bun.hash(text).toString(16)}`;
  const out = path.join(CACHE, `${name}.wav`);
  if (!existsSync(out)) {
    const raw = path.join(CACHE, `${name}.raw.wav`);
    run(["espeak-ng", "-v", voice, "-s", String(wordsPerMinute), "-w", raw, text]);
    run(["sox", raw, "-D", "-r", String(RATE), "-c", "1", "-b", "16", out]);
  }
  return readWavFile(out).samples;
}

/** Words spoken one after another, each followed by `silenceS` of silence, after `leadS` of silence. */
export function spokenSequence(words: string[], silenceS = 0.6, leadS = 0.5): Float32Array {
  const parts: Float32Array[] = [new Float32Array(Math.round(leadS * RATE))];
  for (const w of words) parts.push(spoken(w), new Float32Array(Math.round(silenceS * RATE)));
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
