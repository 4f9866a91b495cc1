/** Checks around a Whisper decode: the audio accepted (finite samples), silence by peak, a result its prompt led astray. */
import { borrowsFromPrompt, plainWords as wordsOf, SHORT_AUDIO_S, tooDense } from "./repetition.ts";

/** A decode of `seconds` of audio that its prompt led astray (see `WhisperEngine.transcribe`). */
export function promptLed(text: string, prompt: string, seconds: number): boolean {
  const short = seconds < SHORT_AUDIO_S;
  return echoesPrompt(text, prompt, short) || copiesPrompt(text, prompt) || tooDense(text, seconds) || (short && borrowsFromPrompt(text, prompt));
}

/** Words of a prompt's end that `copiesPrompt` searches. */
const COPY_SPAN_WORDS = 40;

/**
 * `text` is, word for word, three words or more found together in `prompt`'s last words, anywhere,
 * not only at its end (`echoesPrompt`): on a reply it cannot make out, Whisper writes a phrase of
 * its prompt or lead again ("I'll say bye to you." for a noisy "Two." after "I'll say bye to you.
 * Please."). A speaker who did say them again is heard so by the decode made without it.
 */
export function copiesPrompt(text: string, prompt: string): boolean {
  const t = wordsOf(text);
  const p = wordsOf(prompt).slice(-COPY_SPAN_WORDS);
  if (t.length < 3) return false;
  for (let i = 0; i + t.length <= p.length; i++) if (t.every((w, j) => w === p[i + j])) return true;
  return false;
}

/**
 * `text` is the end of `prompt` again, word for word: two words or more, or eight letters and
 * digits, or (`anyLength`, for a word or two of audio, where a lone echo such as "5.22." for "Yes."
 * is common) any.
 */
export function echoesPrompt(text: string, prompt: string, anyLength = false): boolean {
  const t = wordsOf(text);
  const p = wordsOf(prompt);
  if (t.length === 0 || t.length > p.length || (!anyLength && t.length < 2 && t.join("").length < 8)) return false;
  return t.every((w, i) => w === p[p.length - t.length + i]);
}

export function peak(audio: Float32Array): number {
  let p = 0;
  for (let i = 0; i < audio.length; i++) p = Math.max(p, Math.abs(audio[i]));
  return p;
}

export function checkAudio(audio: Float32Array): void {
  if (!(audio instanceof Float32Array)) throw new TypeError("audio must be a Float32Array");
  for (let i = 0; i < audio.length; i++) {
    if (!Number.isFinite(audio[i])) throw new RangeError(`audio sample ${i} is not a finite number`);
  }
}
