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

export class LanguageEvidence {
  /** Per utterance, its latest partial's detection and its latest final-settings decode's (`full`). */
  private readonly byUtterance = new Map<string, { partial?: Witness; full?: Witness }>();
  private settledOn: string | undefined;

  /**
   * An utterance's detection (its latest decode of a kind replaces an earlier one). A partial's
   * detection heard a prefix of the audio in its own window; a final-settings decode's
   * (`partial` false) may have chosen between languages by decoding in both (the engine's
   * probabilities then say so), and stands for the utterance once there is one.
   */
  record(utterance: string, probabilities: LanguageProbability[] | undefined, seconds: number, partial = false): void {
    if (this.settledOn !== undefined || !probabilities || probabilities.length === 0) return;
    const entry = this.byUtterance.get(utterance) ?? {};
    this.byUtterance.delete(utterance);
    entry[partial ? "partial" : "full"] = { probabilities, weight: Math.min(1, Math.max(0, seconds) / FULL_WEIGHT_S) };
    this.byUtterance.set(utterance, entry);
    if (this.byUtterance.size > MAX_UTTERANCES) this.byUtterance.delete(this.byUtterance.keys().next().value!);
  }

  /**
   * An utterance whose final-settings decode heard no speech is no witness; a partial that heard
   * none drops only the utterance's partial detection.
   */
  forget(utterance: string, partial = false): void {
    const entry = this.byUtterance.get(utterance);
    if (this.settledOn !== undefined || !entry) return;
    if (partial) delete entry.partial;
    if (!partial || !entry.full) this.byUtterance.delete(utterance);
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
      const w = full ?? (utterance === except ? undefined : partial);
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
