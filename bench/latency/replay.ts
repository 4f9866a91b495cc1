/**
 * Deterministic replay of the live path's recognition, for the accuracy of streamed finals: the
 * endpointer (Silero VAD, as sessions configure it) cuts each clip into utterances and partials, and
 * the streaming policy decodes them on Whisper tiny.en, with every decode taking `--decode-s`
 * seconds of audio time (a decode started at t returns at the first 100-ms chunk at or after t + D;
 * audio that arrives meanwhile waits, the newest first, as in the service). No clock, no load: the
 * same arguments give the same finals on any machine. Prints the finals' WER per setting beside the
 * offline decode of each whole clip.
 *
 *   bun bench/latency/replay.ts [--profile low_latency] [--decode-s 0.25,0.4,0.8] [--margins 0,0.3]
 *                               [--clips jfk.wav,leopard_test.wav,leopard_diarization_test.wav,OSR_us_000_0034_8k.wav]
 *
 * `--margins`: values of the profile's `commitMarginS` to compare.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { createResampler } from "../../server/audio/resampler.ts";
import { STREAMING_PROFILES, streamingProfile } from "../../server/session/profiles.ts";
import type { StreamDecodeRequest } from "../../server/session/stream-types.ts";
import { UtteranceStream } from "../../server/session/streaming.ts";
import { createEndpointer } from "../../server/vad/endpointer.ts";
import { modelsDir, vadModelsDir } from "../../test/asr/models.ts";
import { referenceTexts } from "../../test/asr/stream.ts";
import { normalizeWords, wordEdits } from "../../test/asr/wer.ts";
import { sharedAudio } from "../../test/helpers/server.ts";
import { readWavFile } from "../../workers/dsp/wav.ts";
import { WhisperEngine } from "../../workers/engines/whisper/index.ts";
import { SileroVad } from "../../workers/engines/vad/silero.ts";

const RATE = 16000;
const CHUNK_S = 0.1;
const { values: args } = parseArgs({
  options: {
    profile: { type: "string", default: "low_latency" },
    "decode-s": { type: "string", default: "0.25,0.4,0.8" },
    margins: { type: "string", default: `0,${STREAMING_PROFILES.low_latency.commitMarginS}` },
    clips: { type: "string", default: "jfk.wav,leopard_test.wav,leopard_diarization_test.wav,OSR_us_000_0034_8k.wav" },
    endpointing: { type: "string", default: "0.64" },
  },
});
const base = streamingProfile(args.profile);
const clips = args.clips!.split(",");
const references = await referenceTexts(sharedAudio);
/** The reference without speaker tags. */
const reference = (clip: string) => normalizeWords((references.get(clip) ?? "").replace(/\[spk\d+\]/g, " "));

async function load16k(name: string): Promise<Float32Array> {
  const wav = readWavFile(path.join(sharedAudio, name));
  if (wav.channels !== 1) throw new Error(`${name}: mono clips only`);
  if (wav.sampleRate === RATE) return wav.samples;
  const r = await createResampler(wav.sampleRate, RATE);
  const head = r.push(wav.samples);
  const tail = r.flush();
  r.close();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

const vad = await SileroVad.load(path.join(vadModelsDir, "silero-vad", "silero_vad.onnx"));
const engine = await WhisperEngine.load({ modelDir: path.join(modelsDir, "whisper-tiny.en"), assetsDir: path.join(modelsDir, "whisper-assets"), preferQuantized: "encoder" });
const audio = new Map<string, Float32Array>();
for (const c of clips) audio.set(c, await load16k(c));

/** Finals of one clip (0.5 s of silence before it, 2 s after) streamed through endpointer and policy. */
async function replay(clip: string, decodeS: number, commitMarginS: number): Promise<string[]> {
  const x = audio.get(clip)!;
  const signal = new Float32Array(x.length + 2.5 * RATE);
  signal.set(x, RATE / 2);
  const endpointer = createEndpointer(vad.createStream(RATE), {
    endpointing: Number(args.endpointing),
    partialIntervalMs: base.partialIntervalMs,
    partialOnPause: true,
  });
  // No rests: decode times here are simulated, the wall clock is not the engine's load.
  const profile = { ...base, commitMarginS, restWhenBehind: 0 };
  const finals: string[] = [];
  let clock = 0;
  /** Decodes waiting for their (simulated) time to pass; all open while a final is made. */
  let gates: { due: number; open: () => void }[] = [];
  let finishing = false;
  const decode = async (req: StreamDecodeRequest, abort?: AbortSignal) => {
    const result = engine.transcribe({ audio: req.audio, partial: req.partial, languages: ["en"], previousText: req.previousText || undefined, beamSize: req.beamSize }, abort);
    result.catch(() => {});
    if (!finishing) {
      await new Promise<void>((open, fail) => {
        gates.push({ due: clock + decodeS, open });
        abort?.addEventListener("abort", () => fail(abort.reason), { once: true });
      });
    }
    return result;
  };
  let stream: UtteranceStream | null = null;
  /** Resolves once the stream has started its next decode or has nothing left to decode. */
  const settled = (s: UtteranceStream) =>
    new Promise<void>((resolve) => {
      let idle = false;
      void s.idle().then(() => (idle = true));
      const poll = setInterval(() => {
        if (idle || gates.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 2);
    });
  const finalText = async (a: Float32Array) => {
    finishing = true;
    for (const g of gates.splice(0)) g.open();
    const text = stream
      ? (await stream.finish(a)).text
      : (await engine.transcribe({ audio: a, partial: false, languages: ["en"], previousText: finals.join(" ") || undefined, beamSize: profile.finalBeamSize })).text;
    finishing = false;
    stream = null;
    finals.push(text.trim());
  };
  for (let i = 0; i < signal.length; i += CHUNK_S * RATE) {
    for (const e of await endpointer.push(signal.subarray(i, i + CHUNK_S * RATE))) {
      if (e.type === "utterance_partial") {
        stream ??= new UtteranceStream({ profile, decode, context: finals.join(" ") });
        stream.partial(e.audio, e.pause);
      } else if (e.type === "utterance_final") await finalText(e.audio);
    }
    clock += CHUNK_S;
    // Decodes due by now return; the stream then starts the next one (a new gate) or goes idle.
    for (;;) {
      const due = gates.filter((g) => g.due <= clock + 1e-9);
      if (due.length === 0) break;
      gates = gates.filter((g) => !due.includes(g));
      for (const g of due) g.open();
      if (stream) await settled(stream);
    }
  }
  for (const e of await endpointer.flush()) if (e.type === "utterance_final") await finalText(e.audio);
  return finals;
}

let offlineEdits = 0;
let words = 0;
for (const c of clips) {
  const r = await engine.transcribe({ audio: audio.get(c)!, partial: false, languages: ["en"] });
  offlineEdits += wordEdits(reference(c), normalizeWords(r.text));
  words += reference(c).length;
}
console.log(`profile ${args.profile}; clips ${clips.join(", ")} (${words} words); offline WER ${((100 * offlineEdits) / words).toFixed(1)} %`);
console.log("| decode time (audio s) | commit margin s | word errors | WER |\n|---|---|---|---|");
const detail: string[] = [];
for (const d of args["decode-s"]!.split(",").map(Number)) {
  for (const m of args.margins!.split(",").map(Number)) {
    let edits = 0;
    for (const c of clips) {
      const finals = await replay(c, d, m);
      edits += wordEdits(reference(c), normalizeWords(finals.join(" ")));
      detail.push(`D=${d} margin=${m} ${c}: ${finals.join(" | ")}`);
    }
    console.log(`| ${d} | ${m} | ${edits} | ${((100 * edits) / words).toFixed(1)} % |`);
  }
}
console.log(`\n${detail.join("\n")}`);
vad.close();
await engine.dispose();
