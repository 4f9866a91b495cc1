/**
 * An utterance's text and words edited together. Add-ons express their changes as character edits
 * of `text`; applying them rewrites the text, merges the words an edit touches into one word (first
 * start, last end, lowest confidence) and maps offsets from the old text to the new one, so entity
 * offsets stay right through later edits. When the words cannot be located in the text, an edit
 * collapses them into one word holding the whole new text: no removed characters survive in `words`.
 */
import type { Word } from "../../generated/openapi/types.gen.ts";

export interface Span {
  start: number;
  end: number;
}

/** Replace `text.slice(start, end)` by `text`. */
export interface Edit extends Span {
  text: string;
}

export interface TextState {
  text: string;
  words: Word[];
}

/** Character span of each word in `text` (trimmed words found in order), or null when they are not all there. */
export function locateWords(text: string, words: Word[]): Span[] | null {
  const spans: Span[] = [];
  let cursor = 0;
  for (const w of words) {
    const needle = w.word.trim();
    if (needle === "") return null;
    const at = text.indexOf(needle, cursor);
    if (at < 0) return null;
    spans.push({ start: at, end: at + needle.length });
    cursor = at + needle.length;
  }
  return spans;
}

/** Maps offsets of the text before `edits` to the text after them. */
export class OffsetMap {
  constructor(private readonly edits: ReadonlyArray<Edit & { newStart: number; newEnd: number }>) {}

  /** New offset of an entity start at `p` (inside an edit: the edit's new start). */
  start(p: number): number {
    return this.map(p, true);
  }

  /** New offset of an entity end at `p` (inside an edit: the edit's new end). */
  end(p: number): number {
    return this.map(p, false);
  }

  private map(p: number, isStart: boolean): number {
    let delta = 0;
    for (const e of this.edits) {
      if (p <= e.start) break;
      if (p < e.end) return isStart ? e.newStart : e.newEnd;
      delta = e.newEnd - e.end;
    }
    return p + delta;
  }

  /** Old offset of new offset `p`: a start inside an edit maps to the edit's old start, an end to its old end. */
  back(p: number, isStart: boolean): number {
    let delta = 0;
    for (const e of this.edits) {
      if (p <= e.newStart) break;
      if (p < e.newEnd) return isStart ? e.start : e.end;
      delta = e.newEnd - e.end;
    }
    return p - delta;
  }

  /** Where each edit landed in the new text. */
  landed(): Span[] {
    return this.edits.map((e) => ({ start: e.newStart, end: e.newEnd }));
  }
}

/** Sorted, non-overlapping edits; overlapping ones (later in the list) are dropped. */
function normalizeEdits(edits: Edit[]): Edit[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Edit[] = [];
  for (const e of sorted) {
    const last = out[out.length - 1];
    if (last && e.start < last.end) continue;
    out.push(e);
  }
  return out;
}

/** Applies `edits` (any order, overlaps dropped) to text and words. */
export function applyEdits(state: TextState, edits: Edit[]): { state: TextState; map: OffsetMap } {
  const list = normalizeEdits(edits).filter((e) => state.text.slice(e.start, e.end) !== e.text);
  if (list.length === 0) return { state, map: new OffsetMap([]) };
  let text = "";
  let cursor = 0;
  const placed: Array<Edit & { newStart: number; newEnd: number }> = [];
  for (const e of list) {
    text += state.text.slice(cursor, e.start);
    const newStart = text.length;
    text += e.text;
    placed.push({ ...e, newStart, newEnd: text.length });
    cursor = e.end;
  }
  text += state.text.slice(cursor);
  const map = new OffsetMap(placed);
  return { state: { text, words: rebuildWords(state, list, text, map) }, map };
}

function rebuildWords(before: TextState, edits: Edit[], text: string, map: OffsetMap): Word[] {
  const spans = locateWords(before.text, before.words);
  if (!spans) {
    const first = before.words[0];
    const last = before.words[before.words.length - 1];
    if (!first || !last || text.trim() === "") return [];
    const confidence = Math.min(...before.words.map((w) => w.confidence));
    return [{ word: text.trim(), start: first.start, end: last.end, confidence }];
  }
  // Union-find over words: words touched by one edit (or by edits touching each other) merge.
  const group = spans.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i]!)));
  for (const e of edits) {
    let firstHit = -1;
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i]!;
      const touches = e.start === e.end ? e.start > s.start && e.start < s.end : e.start < s.end && e.end > s.start;
      if (!touches) continue;
      if (firstHit < 0) firstHit = i;
      else group[root(i)] = root(firstHit);
    }
  }
  const out: Word[] = [];
  for (let i = 0; i < spans.length; ) {
    let j = i;
    while (j + 1 < spans.length && root(j + 1) === root(i)) j++;
    const start = map.start(spans[i]!.start);
    const end = map.end(spans[j]!.end);
    const word = text.slice(start, end).trim();
    if (word !== "") {
      const ws = before.words.slice(i, j + 1);
      out.push({
        word,
        start: ws[0]!.start,
        end: ws[ws.length - 1]!.end,
        confidence: Math.min(...ws.map((w) => w.confidence)),
      });
    }
    i = j + 1;
  }
  return out;
}
