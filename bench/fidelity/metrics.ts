/**
 * What bench/fidelity measures of one system's transcript of one clip (definitions in
 * bench/fidelity/README.md): WER, dropped turns, repetition loops, insertion bursts, duplicated
 * committed text, final lag; and, for the service, dropped VAD segments.
 */
import { fidelityWords } from "./normalize.ts";

/** A reference turn: what was synthesized, and where its speech lies in the clip (seconds). */
export interface Turn {
  text: string;
  start: number;
  end: number;
}

/**
 * A final of a system: the service's final transcript, WhisperLive's completed segment,
 * faster-whisper's segment. Times in seconds of clip audio; `at`: arrival (seconds since the clip's
 * first sample was sent), absent offline.
 */
export interface Final {
  text: string;
  start: number;
  end: number;
  at?: number;
  /** The service's words with their confidences. */
  words?: { word: string; confidence: number }[];
  /** The language the service gave the final (every clip is English). */
  language?: string;
}

export interface ClipMetrics {
  words: number;
  edits: number;
  turns: number;
  /** Indices of reference turns none of whose words is aligned to a word of a final within 1 s of the turn. */
  droppedTurns: number[];
  /** Repetition loops: [the repeated n-gram, times in a row, final index]. */
  loops: { ngram: string; times: number; final: number }[];
  /** Runs of ≥ INSERT_RUN consecutive inserted hypothesis words within one final. */
  insertionBursts: { words: string; final: number }[];
  /** Committed text repeated at the start of the next final. */
  duplicates: { words: string; final: number }[];
  /** Per non-dropped turn: arrival of the final holding its last recognised word − turn end − endpointing (s). */
  lags: number[];
  /** The same per turn (null: dropped, or no arrival time). */
  lagByTurn: (number | null)[];
  /**
   * Per non-dropped turn: arrival of the first final whose audio holds the turn's end − turn end −
   * endpointing (s); the aligned final's when none does. A misheard last word can align to a later
   * final ("Two." heard as "Do.", then aligned to a digit of the next dictation); the final that
   * holds the turn's audio is the one its speaker waited for.
   */
  timedLags: number[];
}

/**
 * A minimum-cost alignment: per reference word, the hypothesis index it is matched to or substituted
 * by, or -1 (deleted); the inserted hypothesis indices; the cost. Deletions and insertions cost 1, a
 * match 0, a substitution 1; `far(i, j)` pairs are never matched nor substituted (their cost, 2.5,
 * exceeds a deletion plus an insertion). Without `far` the cost is the word edit distance.
 */
export function align(ref: string[], hyp: string[], far?: (i: number, j: number) => boolean): { refTo: number[]; inserted: Set<number>; edits: number } {
  const n = ref.length;
  const m = hyp.length;
  const pair = (i: number, j: number) => (far?.(i, j) ? 2.5 : ref[i] === hyp[j] ? 0 : 1);
  const d: Float64Array[] = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let j = 0; j <= m; j++) d[0]![j] = j;
  for (let i = 1; i <= n; i++) {
    d[i]![0] = i;
    for (let j = 1; j <= m; j++) d[i]![j] = Math.min(d[i - 1]![j - 1]! + pair(i - 1, j - 1), d[i - 1]![j]! + 1, d[i]![j - 1]! + 1);
  }
  const refTo = new Array<number>(n).fill(-1);
  const inserted = new Set<number>();
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + pair(i - 1, j - 1) && pair(i - 1, j - 1) < 2) {
      refTo[i - 1] = j - 1;
      i--;
      j--;
    } else if (i > 0 && d[i]![j] === d[i - 1]![j]! + 1) {
      i--;
    } else {
      inserted.add(j - 1);
      j--;
    }
  }
  return { refTo, inserted, edits: d[n]![m]! };
}

const INSERT_RUN = 5;
/** How far (s) a final's audio may stop short of a turn's end and still hold it (the VAD's end is padded, the reference's is not). */
const HOLD_SLACK_S = 0.1;
const LOOP_TIMES = 3;
const MAX_NGRAM = 6;

/** Most times `gram` occurs consecutively in `words`. */
function maxRun(words: string[], gram: string[]): number {
  const n = gram.length;
  let best = 0;
  for (let s = 0; s < words.length; s++) {
    let k = 0;
    while (s + (k + 1) * n <= words.length && gram.every((g, x) => words[s + k * n + x] === g)) k++;
    best = Math.max(best, k);
  }
  return best;
}

/** n-grams (n ≤ 6) repeated ≥ 3 times in a row in `words` more often than `ref` repeats them in a row. */
export function repetitionLoops(words: string[], ref: string[]): { ngram: string; times: number }[] {
  const out: { ngram: string; times: number }[] = [];
  const covered = new Array<boolean>(words.length).fill(false);
  for (let n = 1; n <= MAX_NGRAM; n++) {
    for (let s = 0; s + LOOP_TIMES * n <= words.length; s++) {
      if (covered[s]) continue;
      const gram = words.slice(s, s + n);
      // A gram that is itself a repetition of a shorter one is counted as the shorter.
      if (n > 1 && gram.every((g) => g === gram[0])) continue;
      let k = 1;
      while (s + (k + 1) * n <= words.length && gram.every((g, x) => words[s + k * n + x] === g)) k++;
      if (k < LOOP_TIMES || k <= maxRun(ref, gram)) continue;
      out.push({ ngram: gram.join(" "), times: k });
      for (let x = s; x < s + k * n; x++) covered[x] = true;
    }
  }
  return out;
}

/** Whether `ref` holds `gram` twice in a row. */
const repeatedInRef = (ref: string[], gram: string[]) => maxRun(ref, gram) >= 2;

export function clipMetrics(turns: Turn[], finals: Final[], endpointing: number): ClipMetrics {
  const refWords: string[] = [];
  const refTurn: number[] = [];
  turns.forEach((t, k) => {
    for (const w of fidelityWords(t.text)) {
      refWords.push(w);
      refTurn.push(k);
    }
  });
  const nonEmpty = finals.filter((f) => fidelityWords(f.text).length > 0);
  const hypWords: string[] = [];
  const hypFinal: number[] = [];
  const finalWords = nonEmpty.map((f) => fidelityWords(f.text));
  finalWords.forEach((ws, k) => {
    for (const w of ws) {
      hypWords.push(w);
      hypFinal.push(k);
    }
  });
  // WER: the plain edit distance; insertion bursts from its alignment.
  const { inserted, edits } = align(refWords, hypWords);
  // Turns: aligned again with a word of a final that lies more than 1 s from a turn never paired to
  // that turn's words, so that a turn is heard only through what was transcribed around it.
  const far = (i: number, j: number) => {
    const t = turns[refTurn[i]!]!;
    const f = nonEmpty[hypFinal[j]!]!;
    return f.start > t.end + 1 || f.end < t.start - 1;
  };
  const { refTo } = align(refWords, hypWords, far);

  const droppedTurns: number[] = [];
  const lags: number[] = [];
  const timedLags: number[] = [];
  const lagByTurn: (number | null)[] = turns.map(() => null);
  turns.forEach((t, k) => {
    const idx = refWords.map((_, i) => i).filter((i) => refTurn[i] === k);
    if (idx.length === 0) return;
    const heard = idx.filter((i) => refTo[i]! >= 0);
    if (heard.length === 0) {
      droppedTurns.push(k);
      return;
    }
    const f = nonEmpty[hypFinal[refTo[heard[heard.length - 1]!]!]!]!;
    if (f.at !== undefined) {
      lags.push(f.at - t.end - endpointing);
      lagByTurn[k] = f.at - t.end - endpointing;
    }
    const holding = nonEmpty.find((g) => g.at !== undefined && g.start <= t.end + HOLD_SLACK_S && g.end >= t.end - HOLD_SLACK_S) ?? f;
    if (holding.at !== undefined) timedLags.push(holding.at - t.end - endpointing);
  });

  const loops = finalWords.flatMap((ws, k) => repetitionLoops(ws, refWords).map((l) => ({ ...l, final: k })));

  const insertionBursts: ClipMetrics["insertionBursts"] = [];
  for (let j = 0; j < hypWords.length; ) {
    if (!inserted.has(j)) {
      j++;
      continue;
    }
    let e = j;
    while (e + 1 < hypWords.length && inserted.has(e + 1) && hypFinal[e + 1] === hypFinal[j]) e++;
    if (e - j + 1 >= INSERT_RUN) insertionBursts.push({ words: hypWords.slice(j, e + 1).join(" "), final: hypFinal[j]! });
    j = e + 1;
  }

  const duplicates: ClipMetrics["duplicates"] = [];
  for (let k = 1; k < finalWords.length; k++) {
    const a = finalWords[k - 1]!;
    const b = finalWords[k]!;
    const overlapInTime = nonEmpty[k]!.start < nonEmpty[k - 1]!.end - 0.1;
    for (let n = Math.min(a.length, b.length, 12); n >= 1; n--) {
      const gram = b.slice(0, n);
      if (!gram.every((g, x) => a[a.length - n + x] === g)) continue;
      if ((n >= 2 || overlapInTime) && !repeatedInRef(refWords, gram)) duplicates.push({ words: gram.join(" "), final: k });
      break;
    }
  }

  return { words: refWords.length, edits, turns: turns.length, droppedTurns, loops, insertionBursts, duplicates, lags, lagByTurn, timedLags };
}

/**
 * Speech segments the service's VAD reported (speech_start … speech_end, seconds of session audio)
 * that no non-empty final overlaps (a final's [start, end] within 0.1 s of the segment).
 */
export function droppedVadSegments(segments: { start: number; end: number }[], finals: Final[]): { start: number; end: number }[] {
  const said = finals.filter((f) => fidelityWords(f.text).length > 0);
  return segments.filter((s) => !said.some((f) => f.start <= s.end + 0.1 && f.end >= s.start - 0.1));
}

/** Nearest-rank quantile. */
export function quantile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}
