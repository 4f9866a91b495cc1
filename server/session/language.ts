/**
 * The session's language when the client neither fixed one nor asked for code switching: the
 * evidence of its utterances' language detections, combined, rather than the first final's guess.
 * Whisper's detection on a short reply is a weak witness ("Nine." is heard as German "Nein."), and
 * a session whose first final was such a reply used to keep that language to its end.
 *
 * Each utterance's detection contributes its log-probabilities (floored, so no single utterance can
 * veto a language), weighted by its length up to FULL_WEIGHT_S; the sum is the log of the product of
 * independent witnesses. Until one language holds SETTLED of that posterior, decodes detect again
 * with the sum as their prior; from then on the session is in that language.
 */
import type { LanguageProbability } from "../../workers/contract/types.ts";

const FLOOR = Math.log(1e-4);
const FULL_WEIGHT_S = 2;
const SETTLED = 0.99;
/** Utterances remembered (evidence stops growing once a language is settled). */
const MAX_UTTERANCES = 64;

interface Witness {
  probabilities: LanguageProbability[];
  weight: number;
}

/** A final-settings decode's detection over `[from, from + seconds)` of its utterance (seconds). */
interface Piece {
  probabilities: LanguageProbability[];
  from: number;
  seconds: number;
}

/** Final-settings pieces kept per utterance (its speculative finals, cuts, rest decodes, revisions): the latest. */
const MAX_PIECES = 16;

const contains = (outer: { from: number; seconds: number }, inner: { from: number; seconds: number }) =>
  outer.from <= inner.from + 1e-3 && inner.from + inner.seconds <= outer.from + outer.seconds + 1e-3;

/** Two decodes of the same stretch (to 10 ms). */
const same = (a: { from: number; seconds: number }, b: { from: number; seconds: number }) => Math.abs(a.from - b.from) < 0.01 && Math.abs(a.seconds - b.seconds) < 0.01;

export class LanguageEvidence {
  /**
   * Per utterance, its latest partial's detection and its final-settings decodes' (`full`), one
   * piece per stretch of its audio. A decode of more of the utterance joins the pieces before it
   * rather than replacing them: the buffer after a cut, or a final's unread ending, heard only
   * part of it (a run of digits, say), and a longer buffer's detection can turn on its digits
   * (Whisper hears a dictation in an espeak-ng voice as Latin once the numbers come) where the
   * speech before them was clearly English.
   */
  private readonly byUtterance = new Map<string, { partial?: Witness; full?: Piece[] }>();
  private settledOn: string | undefined;

  /**
   * An utterance's detection. A partial's replaces its earlier partial's: it heard a prefix of
   * the audio in its own window. A final-settings decode's (`partial` false), of the audio from
   * `from` seconds into the utterance, replaces a piece of the same stretch (it may have chosen
   * between languages by decoding in both; the engine's probabilities then say so) and stands,
   * with the utterance's other pieces, for the utterance once there is one.
   */
  record(utterance: string, probabilities: LanguageProbability[] | undefined, seconds: number, partial = false, from = 0): void {
    if (this.settledOn !== undefined || !probabilities || probabilities.length === 0) return;
    const entry = this.byUtterance.get(utterance) ?? {};
    this.byUtterance.delete(utterance);
    const heard = Math.max(0, seconds);
    if (partial) entry.partial = { probabilities, weight: Math.min(1, heard / FULL_WEIGHT_S) };
    else {
      const piece = { probabilities, from, seconds: heard };
      entry.full = [...(entry.full ?? []).filter((p) => !same(piece, p)), piece].slice(-MAX_PIECES);
    }
    this.byUtterance.set(utterance, entry);
    if (this.byUtterance.size > MAX_UTTERANCES) this.byUtterance.delete(this.byUtterance.keys().next().value!);
  }

  /**
   * A final-settings decode that heard no speech: the pieces of its audio (`span`; the whole
   * utterance without one) are no witness, and an utterance left without a piece is none at all.
   * A partial that heard none drops only the utterance's partial detection.
   */
  forget(utterance: string, partial = false, span?: { from: number; seconds: number }): void {
    const entry = this.byUtterance.get(utterance);
    if (this.settledOn !== undefined || !entry) return;
    if (partial) {
      delete entry.partial;
      if (!entry.full) this.byUtterance.delete(utterance);
      return;
    }
    entry.full = span ? entry.full?.filter((p) => !contains(span, p)) : undefined;
    if (!entry.full || entry.full.length === 0) this.byUtterance.delete(utterance);
  }

  /**
   * Log-evidence per language (the best at 0), or undefined before any detection. A decode of an
   * utterance (`except`) does not take its own partials' detections: they heard part of the same
   * audio in short windows, and made the final's detection look certain when it was not. Its own
   * final-settings decode's stays, so a language chosen by decoding holds for its later decodes.
   */
  prior(except?: string): Record<string, number> | undefined {
    const totals = this.totals(except);
    if (totals.size === 0) return undefined;
    const best = Math.max(...totals.values());
    return Object.fromEntries([...totals].map(([language, v]) => [language, v - best]));
  }

  /** The session's language once the evidence settles it (it then stays). */
  settled(): string | undefined {
    if (this.settledOn !== undefined) return this.settledOn;
    const prior = this.prior();
    if (!prior) return undefined;
    let sum = 0;
    let top: string | undefined;
    for (const [language, v] of Object.entries(prior)) {
      sum += Math.exp(v);
      if (v === 0) top ??= language;
    }
    if (top !== undefined && 1 / sum >= SETTLED) this.settledOn = top;
    return this.settledOn;
  }

  private totals(except?: string): Map<string, number> {
    const witnesses: Witness[] = [];
    for (const [utterance, { partial, full }] of this.byUtterance) {
      const w = full ? combined(full) : utterance === except ? undefined : partial;
      if (w) witnesses.push(w);
    }
    const languages = new Set<string>();
    for (const { probabilities } of witnesses) for (const p of probabilities) languages.add(p.language);
    const totals = new Map<string, number>();
    for (const language of languages) totals.set(language, 0);
    for (const { probabilities, weight } of witnesses) {
      const seen = new Map(probabilities.map((p) => [p.language, p.probability]));
      for (const language of languages) {
        const p = seen.get(language);
        totals.set(language, totals.get(language)! + weight * (p && p > 0 ? Math.max(FLOOR, Math.log(p)) : FLOOR));
      }
    }
    return totals;
  }
}

/**
 * An utterance's final-settings pieces as one witness: each language's log-probability averaged
 * over the pieces by their length (floored per piece; a longer stretch is the stronger witness),
 * weighted by the audio they heard up to FULL_WEIGHT_S, so an utterance weighs as much however
 * many pieces it was decoded in.
 */
function combined(pieces: Piece[]): Witness {
  const total = pieces.reduce((s, p) => s + p.seconds, 0);
  const languages = new Set(pieces.flatMap((p) => p.probabilities.map((q) => q.language)));
  const probabilities: LanguageProbability[] = [];
  for (const language of languages) {
    let sum = 0;
    for (const p of pieces) {
      const q = p.probabilities.find((x) => x.language === language)?.probability;
      sum += (total > 0 ? p.seconds / total : 1 / pieces.length) * (q && q > 0 ? Math.max(FLOOR, Math.log(q)) : FLOOR);
    }
    probabilities.push({ language, probability: Math.exp(sum) });
  }
  return { probabilities, weight: Math.min(1, total / FULL_WEIGHT_S) };
}
