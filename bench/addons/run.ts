/**
 * Add-on cost beside the recognizer's: CPU-seconds per audio-second of the end-of-turn add-on
 * (Smart Turn v3 with the service defaults, its own VAD stream and the per-channel detector, audio
 * in 100 ms pieces), of diarization (a voice print per utterance) and of the recognizer in the same process, one onnxruntime thread each, measured in
 * one run. Usage: `bun bench/addons/run.ts [repeats]`; the models are read from MODELS_DIR,
 * `./models` or `../shared/models` (`bun run models -- pull smart-turn-v3 resemblyzer-speaker whisper-tiny.en`).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { loadEngine } from "../../workers/engines/registry.ts";
import { createTurnChannel, SmartTurn, turnFeatures } from "../../workers/engines/turn/index.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";
import { catalogueEntry, isInstalled, SMART_TURN_FILE, SPEAKER_FILE } from "../../workers/catalogue/index.ts";
import { SpeakerEncoder } from "../../workers/engines/speaker/index.ts";
import { endOfTurnDefaults } from "../../server/options/defaults.ts";

const ROOT = resolve(import.meta.dir, "../..");
const SHARED = resolve(ROOT, "../shared");
const REPEATS = Number(process.argv[2] ?? 3);
const modelDirs = [process.env.MODELS_DIR, join(ROOT, "models"), join(SHARED, "models")];
const turnPath = modelDirs.map((d) => d && join(d, SMART_TURN_FILE)).find((p) => p && existsSync(p));
if (!turnPath) {
  console.log("the turn model is not installed: bun run models -- pull smart-turn-v3");
  process.exit(1);
}

const cpu = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

function speak(text: string): Float32Array {
  const out = `/tmp/bench-turn-${Bun.hash(text)}.wav`;
  Bun.spawnSync(["sh", "-c", `espeak-ng -v en-us -w ${out}.raw.wav "${text}" && sox ${out}.raw.wav -r 16000 -c 1 -b 16 ${out}`]);
  return readWavFile(out).samples;
}
function join16k(...parts: (Float32Array | number)[]): Float32Array {
  const arrays = parts.map((p) => (typeof p === "number" ? new Float32Array(Math.round(p * 16000)) : p));
  const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) (out.set(a, at), (at += a.length));
  return out;
}

const jfk = readWavFile(join(SHARED, "audio/jfk.wav")).samples;
const dialogue = join16k(speak("What time does the train to London leave tomorrow morning?"), 1.5, speak("Could you tell me where the nearest pharmacy is?"), 1.5);
const model = await SmartTurn.load(turnPath);
const settings = { ...endOfTurnDefaults };

// one evaluation: front end and model apart
const feats = turnFeatures(jfk);
await model.runFeatures(feats);
let t = process.cpuUsage();
for (let i = 0; i < 10; i++) turnFeatures(jfk);
const featCpu = cpu(t) / 10;
t = process.cpuUsage();
for (let i = 0; i < 10; i++) await model.runFeatures(feats);
const runCpu = cpu(t) / 10;
console.log(`smart-turn one evaluation: front end ${(featCpu * 1000).toFixed(1)} ms cpu, model ${(runCpu * 1000).toFixed(1)} ms cpu`);

const vad = await SileroVad.load(join(SHARED, "models/silero-vad/silero_vad.onnx"));
const counting = { predict: (a: Float32Array) => (evaluations++, model.predict(a)) } as SmartTurn;
let evaluations = 0;

/** The add-on as a session runs it: its own VAD stream and the detector, audio in 100 ms pieces. */
async function streamed(audio: Float32Array, label: string, over: Partial<typeof settings> = {}): Promise<void> {
  evaluations = 0;
  t = process.cpuUsage();
  for (let r = 0; r < REPEATS; r++) {
    const channel = createTurnChannel(counting, vad, 0, { ...settings, ...over });
    for (let i = 0; i < audio.length; i += 1600) await channel.push(audio.subarray(i, i + 1600), i / 16000);
  }
  const seconds = (REPEATS * audio.length) / 16000;
  console.log(`end_of_turn on ${label.padEnd(28)} ${(cpu(t) / seconds).toFixed(4)} cpu-s/audio-s  (${(evaluations / REPEATS).toFixed(0)} evaluations per ${(audio.length / 16000).toFixed(1)} s)`);
}
await streamed(dialogue, "two questions, defaults");
await streamed(dialogue, "two questions, threshold 0.99", { threshold: 0.99 }); // worst case: re-evaluated until stop_s

const speakerPath = modelDirs.map((d) => d && join(d, SPEAKER_FILE)).find((p) => p && existsSync(p));
if (speakerPath) {
  const encoder = await SpeakerEncoder.load(speakerPath);
  const clip = readWavFile(join(SHARED, "audio/leopard_diarization_test.wav")).samples;
  const utterances = [[1.7, 3.8], [6.2, 11.0], [12.8, 19.3]].map(([s, e]) => clip.subarray(s! * 16000, e! * 16000));
  for (const u of utterances) await encoder.embed(u);
  t = process.cpuUsage();
  for (let r = 0; r < REPEATS; r++) for (const u of utterances) await encoder.embed(u);
  const seconds = (REPEATS * utterances.reduce((n, u) => n + u.length, 0)) / 16000;
  console.log(`diarization (speaker encoder) per utterance  ${(cpu(t) / seconds).toFixed(4)} cpu-s/audio-s`);
} else {
  console.log("diarization skipped: bun run models -- pull resemblyzer-speaker");
}

// the recognizer of trantoria-1 (whisper-tiny.en) on the same speech, finals only
const tiny = catalogueEntry("whisper-tiny.en")!;
const tinyDir = modelDirs.find((d) => d && isInstalled(tiny, d));
if (tinyDir) {
  const engine = await loadEngine("whisper", join(tinyDir, tiny.dir), { name: tiny.id, threads: 1, options: tiny.options });
  const clips = [jfk, dialogue];
  await engine.transcribe({ audio: jfk, partial: false });
  t = process.cpuUsage();
  for (let r = 0; r < REPEATS; r++) for (const audio of clips) await engine.transcribe({ audio, partial: false });
  const recSeconds = (REPEATS * clips.reduce((s, a) => s + a.length, 0)) / 16000;
  console.log(`recognizer whisper-tiny.en (trantoria-1)     ${(cpu(t) / recSeconds).toFixed(4)} cpu-s/audio-s (finals only)`);
  await engine.dispose();
} else {
  console.log("recognizer skipped: bun run models -- pull whisper-tiny.en");
}
