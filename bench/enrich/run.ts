/**
 * Cost of the text add-ons: CPU-seconds per audio-second of each add-on, beside the recognizer's,
 * measured in one run. Usage: `bun bench/enrich/run.ts [iterations]`.
 *
 * Transcripts: the English reference texts of ../shared/audio (utterances = their sentences, or
 * speaker turns, over the clip's real duration) and a synthetic 60 s call full of spoken numbers and
 * personal data. For each add-on alone, the stage processes every final utterance `iterations`
 * times; CPU-seconds per audio-second = CPU spent / (iterations × audio seconds). Partials: the text
 * rewrites run on them too; at the service's partial interval (0.5 s) a second of speech costs about
 * two partial passes, reported as "with partials". The recognizer's figure is the isolated-token
 * engine (the real speech weights in MODELS_DIR) on its spoken-token clips, same process.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { type EnrichOptions, EnrichmentStage, messageBuilder } from "../../server/enrich/pipeline.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { IsolatedTokenEngine } from "../../workers/engines/isolated/engine.ts";

const ROOT = resolve(import.meta.dir, "../..");
const AUDIO = resolve(ROOT, "../shared/audio");
const MODELS = resolve(process.env.MODELS_DIR ?? join(ROOT, "../shared/models"));
const ITERATIONS = Number(process.argv[2] ?? 20);

interface Transcript {
  name: string;
  seconds: number;
  utterances: string[];
}

function references(): Transcript[] {
  const rows = readFileSync(join(AUDIO, "transcripts.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t"));
  const wanted: Record<string, (t: string) => string[]> = {
    "jfk.wav": (t) => [t],
    "leopard_test.wav": (t) => [t],
    "OSR_us_000_0034_8k.wav": (t) => t.split(/(?<=\.)\s+/),
    "leopard_diarization_test.wav": (t) => t.split(/\s*\[spk\d\]\s*/).filter((s) => s !== ""),
  };
  return rows.flatMap(([file, text]) => {
    const split = file && text ? wanted[file] : undefined;
    if (!split || !file || !text) return [];
    const wav = readWavFile(join(AUDIO, file));
    return [{ name: file, seconds: wav.samples.length / wav.channels / wav.sampleRate, utterances: split(text) }];
  });
}

/** A 60 s support call: numbers, a name, a card, a phone number, an address, money, dates. */
const CALL: Transcript = {
  name: "synthetic call (60 s)",
  seconds: 60,
  utterances: [
    "Hello, thank you for calling, my name is Emma, how can I help you today?",
    "Hi, my name is Sarah Connor and I was charged twice on my card.",
    "I'm sorry to hear that. Can you give me the card number?",
    "Sure, it is four one one one one one one one one one one one one one one one.",
    "Thank you. And the phone number on the account?",
    "Two zero two, five five five, zero one nine three.",
    "I see two payments of forty nine dollars and ninety nine cents on the third of March.",
    "Yes, that's right, I only ordered once, from Boston.",
    "I'll refund one of them, it takes three to five business days.",
    "Great, can you send the confirmation to sarah dot connor at example dot com?",
    "Of course. Is there anything else I can help you with?",
    "No, that's all, thank you so much, you were very helpful.",
  ],
};

const addOns: Record<string, EnrichOptions> = {
  numerals: { numerals: true },
  "punctuation: false": { punctuation: false },
  custom_spelling: { realtime_processing: { custom_spelling: true, custom_spelling_config: { spelling_dictionary: { SQL: ["sequel"], Gettleman: ["gettleman", "get a man"] } } } },
  "custom_vocabulary (text)": { realtime_processing: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: ["Gladia", { value: "Kubernetes", pronunciations: ["cooper netties"] }] } } },
  pii: { pii: { entities: "pii" } },
  named_entity_recognition: { named_entity_recognition: { entities: "ner" } },
  sentiment_analysis: { realtime_processing: { sentiment_analysis: true } },
};

const head = messageBuilder("00000000-0000-4000-8000-000000000000", () => 0);
const cpu = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

function toUtterances(t: Transcript): Utterance[] {
  const chars = t.utterances.reduce((s, u) => s + u.length, 0);
  let at = 0;
  return t.utterances.map((text) => {
    const d = (t.seconds * text.length) / chars;
    const words = text.split(" ").map((w, i, all) => ({ word: w, start: at + (d * i) / all.length, end: at + (d * (i + 1)) / all.length, confidence: 0.9 }));
    const u = { start: at, end: at + d, confidence: 0.9, channel: 0, language: "en", text, words };
    at += d;
    return u;
  });
}

function measure(options: EnrichOptions, utterances: Utterance[], final: boolean): number {
  const stage = new EnrichmentStage(options, head);
  utterances.forEach((u, i) => stage.process(`0:${i}`, u, final)); // warm-up
  const t0 = process.cpuUsage();
  for (let k = 0; k < ITERATIONS; k++) utterances.forEach((u, i) => stage.process(`0:${i}`, u, final));
  return cpu(t0) / ITERATIONS;
}

async function recognizer(): Promise<number | null> {
  try {
    const engine = await IsolatedTokenEngine.load(join(MODELS, "moonshine-micro"));
    const clips = ["a", "b", "c", "zero", "double_u"].map((n) => readWavFile(join(AUDIO, "spelling", `${n}.wav`)).samples);
    const seconds = clips.reduce((s, c) => s + c.length, 0) / 16000;
    for (const audio of clips) await engine.transcribe({ audio, partial: false });
    const t0 = process.cpuUsage();
    for (let k = 0; k < ITERATIONS; k++) for (const audio of clips) await engine.transcribe({ audio, partial: false });
    return cpu(t0) / (ITERATIONS * seconds);
  } catch (e) {
    console.log(`recognizer skipped: ${(e as Error).message}`);
    return null;
  }
}

const asr = await recognizer();
console.log(`iterations ${ITERATIONS}; recognizer (isolated-token engine, moonshine-micro): ${asr === null ? "n/a" : asr.toFixed(5)} CPU-s per audio-s\n`);
const transcripts = [...references(), CALL];
console.log("CPU-seconds per audio-second: finals alone, × the recognizer's, and with partials (2 per second of speech)");
console.log(`${"transcript".padEnd(30)}${"add-on".padEnd(26)}${"finals".padStart(10)}${"× asr".padStart(9)}${"+partials".padStart(11)}`);
for (const t of transcripts) {
  const utterances = toUtterances(t);
  for (const [name, options] of Object.entries(addOns)) {
    const finals = measure(options, utterances, true) / t.seconds;
    const partials = (measure(options, utterances, false) / utterances.length) * 2;
    const vs = asr ? (finals / asr).toFixed(4) : "n/a";
    console.log(`${t.name.padEnd(30)}${name.padEnd(26)}${finals.toFixed(6).padStart(10)}${vs.padStart(9)}${(finals + partials).toFixed(6).padStart(11)}`);
  }
  console.log(`${"".padEnd(30)}(${utterances.length} utterances, ${t.utterances.join(" ").length} characters, ${t.seconds.toFixed(1)} s of audio)`);
}
