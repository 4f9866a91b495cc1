/**
 * `custom_spelling` and the text side of `custom_vocabulary`.
 * Spelling: every variant of `spelling_dictionary` heard as whole words (case-insensitive; a
 * multi-word variant matches across any whitespace) is replaced by its spelling; longer variants
 * win over shorter ones that overlap them.
 * Vocabulary: the recognizer is biased towards the entries (engine side); after recognition, an
 * entry's `pronunciations` (written as heard) and the entry itself heard in another case are written
 * as the entry's `value`. No fuzzy matching.
 */
import type { CustomSpellingConfig, CustomVocabularyConfig } from "../../generated/openapi/types.gen.ts";
import { applyEdits, type Edit, type OffsetMap, type TextState } from "./text.ts";

export interface Replacement {
  heard: string;
  written: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A compiled set of whole-word, case-insensitive replacements. */
export class Replacer {
  private readonly pattern: RegExp | null;
  private readonly written = new Map<string, string>();

  constructor(replacements: Replacement[]) {
    const variants: string[] = [];
    for (const r of replacements) {
      const heard = r.heard.trim().replace(/\s+/g, " ");
      if (heard === "") continue;
      const key = heard.toLowerCase();
      if (!this.written.has(key)) {
        this.written.set(key, r.written);
        variants.push(heard);
      }
    }
    variants.sort((a, b) => b.length - a.length);
    const body = variants.map((v) => v.split(" ").map(escape).join("\\s+")).join("|");
    this.pattern = body === "" ? null : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${body})(?![\\p{L}\\p{N}_])`, "giu");
  }

  edits(text: string): Edit[] {
    if (!this.pattern) return [];
    const out: Edit[] = [];
    for (const m of text.matchAll(this.pattern)) {
      const written = this.written.get(m[0].replace(/\s+/g, " ").toLowerCase());
      if (written !== undefined) out.push({ start: m.index, end: m.index + m[0].length, text: written });
    }
    return out;
  }

  apply(state: TextState): { state: TextState; map: OffsetMap } {
    return applyEdits(state, this.edits(state.text));
  }
}

export function spellingReplacer(config: CustomSpellingConfig): Replacer {
  return new Replacer(Object.entries(config.spelling_dictionary).flatMap(([written, heard]) => heard.map((h) => ({ heard: h, written }))));
}

export function vocabularyReplacer(config: CustomVocabularyConfig): Replacer {
  return new Replacer(
    config.vocabulary.flatMap((item) => {
      if (typeof item === "string") return [{ heard: item, written: item }];
      return [{ heard: item.value, written: item.value }, ...(item.pronunciations ?? []).map((p) => ({ heard: p, written: item.value }))];
    }),
  );
}
