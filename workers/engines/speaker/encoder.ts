/**
 * Speaker embeddings with Resemblyzer's GE2E speaker encoder (converted to ONNX by
 * `workers/models/convert/resemblyzer.ts`): a 256-dimensional L2-normalised voice print per
 * utterance, as upstream's `embed_utterance` computes it.
 *
 * Front end (upstream `preprocess_wav` + `wav_to_mel_spectrogram`): 16 kHz mono; the volume raised
 * (never lowered) to an average of −30 dBFS; power mel spectrogram (not log) with n_fft 400 (25 ms),
 * hop 160 (10 ms), periodic Hann, centred with zero padding, 40 Slaney mel bands 0–8 kHz. The
 * utterance is cut into partial windows of 160 frames (1.6 s) at 1.3 per second, the last kept when
 * it covers at least 75 % (audio zero-padded to it); the embedding is the normalised mean of the
 * partial embeddings. Upstream also trims long silences with WebRTC VAD; here utterances come from
 * the service's own voice-activity detection.
 */
import * as ort from "onnxruntime-node";
import { applyFilterBank, melFilterBank } from "../../dsp/mel.ts";
import { powerSpectrogram } from "../../dsp/stft.ts";
import { periodicHann } from "../../dsp/window.ts";

const SR = 16000;
const N_FFT = 400;
const HOP = 160;
const N_MELS = 40;
const PARTIAL_FRAMES = 160;
const RATE = 1.3;
const MIN_COVERAGE = 0.75;
const TARGET_DBFS = -30;
const EMBEDDING_SIZE = 256;

const filters = melFilterBank({ sampleRate: SR, nFft: N_FFT, nMels: N_MELS, scale: "slaney", norm: "slaney" });
const hann = periodicHann(N_FFT);

/** Raises the volume to an average of −30 dBFS (upstream `normalize_volume(increase_only=True)`). */
function normalizeVolume(wav: Float32Array): Float32Array {
  let sq = 0;
  for (let i = 0; i < wav.length; i++) sq += wav[i]! * wav[i]!;
  const dbfs = 10 * Math.log10(sq / Math.max(1, wav.length) + 1e-20);
  const change = TARGET_DBFS - dbfs;
  if (change <= 0 || !Number.isFinite(change)) return wav;
  const gain = 10 ** (change / 20);
  return wav.map((x) => x * gain);
}

/** Power mel frames [frames × 40], frames = 1 + floor(samples / 160). */
function speakerMel(wav: Float32Array): { data: Float32Array; frames: number } {
  const padded = new Float32Array(wav.length + N_FFT);
  padded.set(wav, N_FFT / 2);
  const spec = powerSpectrogram(padded, { nFft: N_FFT, hop: HOP, window: hann, center: false });
  const mel = applyFilterBank(filters, N_MELS, spec.data, spec.nFrames, N_FFT / 2 + 1); // [40, frames]
  const out = new Float32Array(spec.nFrames * N_MELS);
  for (let m = 0; m < N_MELS; m++) for (let f = 0; f < spec.nFrames; f++) out[f * N_MELS + m] = mel[m * spec.nFrames + f]!;
  return { data: out, frames: spec.nFrames };
}

/** Start frames of the partial windows of an utterance of `samples` samples (upstream `compute_partial_slices`). */
export function partialStarts(samples: number): number[] {
  const nFrames = Math.ceil((samples + 1) / HOP);
  const step = Math.round(SR / RATE / HOP);
  const steps = Math.max(1, nFrames - PARTIAL_FRAMES + step + 1);
  const starts: number[] = [];
  for (let i = 0; i < steps; i += step) starts.push(i);
  const last = starts[starts.length - 1]! * HOP;
  const coverage = (samples - last) / (PARTIAL_FRAMES * HOP);
  if (coverage < MIN_COVERAGE && starts.length > 1) starts.pop();
  return starts;
}

/** What a session needs of the speaker encoder (`SpeakerEncoder` in this thread, `SpeakerEncoderThread` in its own). */
export interface VoicePrinter {
  /** The utterance's voice print (unit length); calls answer in call order. */
  embed(wav: Float32Array): Promise<Float32Array>;
  release(): Promise<void>;
}

export class SpeakerEncoder implements VoicePrinter {
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(private readonly session: ort.InferenceSession) {}

  static async load(modelPath: string, threads = 1): Promise<SpeakerEncoder> {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential" });
    } catch (err) {
      throw new Error(`cannot load the speaker encoder from ${modelPath}: ${(err as Error).message}`);
    }
    if (!session.inputNames.includes("mels") || !session.outputNames.includes("embedding")) {
      throw new Error(`${modelPath} is not a speaker encoder (inputs mels → embedding)`);
    }
    return new SpeakerEncoder(session);
  }

  /** The utterance's voice print (unit length). Calls run one at a time, in call order. */
  embed(wav: Float32Array): Promise<Float32Array> {
    const run = this.tail.then(() => this.embedNow(wav));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async embedNow(wav: Float32Array): Promise<Float32Array> {
    if (wav.length === 0) throw new RangeError("cannot embed an empty utterance");
    const starts = partialStarts(wav.length);
    const needed = (starts[starts.length - 1]! + PARTIAL_FRAMES) * HOP;
    const audio = new Float32Array(Math.max(needed, wav.length));
    audio.set(normalizeVolume(wav));
    const mel = speakerMel(audio);
    const batch = new Float32Array(starts.length * PARTIAL_FRAMES * N_MELS);
    starts.forEach((s, b) => batch.set(mel.data.subarray(s * N_MELS, (s + PARTIAL_FRAMES) * N_MELS), b * PARTIAL_FRAMES * N_MELS));
    const out = await this.session.run({ mels: new ort.Tensor("float32", batch, [starts.length, PARTIAL_FRAMES, N_MELS]) });
    const partials = out.embedding!.data as Float32Array;
    const mean = new Float32Array(EMBEDDING_SIZE);
    for (let b = 0; b < starts.length; b++) for (let k = 0; k < EMBEDDING_SIZE; k++) mean[k]! += partials[b * EMBEDDING_SIZE + k]!;
    return unit(mean);
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** `v` scaled to unit length. */
export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const s = 1 / Math.max(Math.sqrt(n), 1e-12);
  return v.map((x) => x * s);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}
