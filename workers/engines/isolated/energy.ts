/** Energy-based trimming of an utterance to where its speech is. */

export interface SpeechBounds {
  /** First and one-past-last sample of the speech; both 0 when there is none. */
  startSample: number;
  endSample: number;
  /** Peak RMS over 10 ms frames. */
  peakRms: number;
}

export interface TrimOptions {
  sampleRate: number;
  /** Frames below peak × this ratio are trimmed (default 0.1, i.e. −20 dB). */
  relativeThreshold?: number;
  /** A peak RMS below this counts as silence (default 0.003, about −50 dBFS). */
  silenceRms?: number;
}

/** Finds the speech span of `audio` by 10 ms frame RMS relative to the loudest frame. */
export function speechBounds(audio: Float32Array, opts: TrimOptions): SpeechBounds {
  const frame = Math.max(1, Math.round(opts.sampleRate / 100));
  const nFrames = Math.ceil(audio.length / frame);
  const rms = new Float64Array(nFrames);
  let peak = 0;
  for (let f = 0; f < nFrames; f++) {
    const end = Math.min(audio.length, (f + 1) * frame);
    let acc = 0;
    for (let i = f * frame; i < end; i++) acc += audio[i] * audio[i];
    rms[f] = Math.sqrt(acc / (end - f * frame));
    if (rms[f] > peak) peak = rms[f];
  }
  if (peak < (opts.silenceRms ?? 0.003)) return { startSample: 0, endSample: 0, peakRms: peak };
  const threshold = peak * (opts.relativeThreshold ?? 0.1);
  let first = 0;
  while (rms[first] < threshold) first++;
  let last = nFrames - 1;
  while (rms[last] < threshold) last--;
  return { startSample: first * frame, endSample: Math.min(audio.length, (last + 1) * frame), peakRms: peak };
}
