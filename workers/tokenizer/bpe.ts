/**
 * Byte-level byte-pair encoding in the tiktoken format: a rank file of `base64(token-bytes) rank`
 * lines, a pre-tokenizer regex, and special tokens with ids after the ranks.
 */
import { readFileSync } from "node:fs";

/** The GPT-2 pre-tokenizer pattern, used by Whisper's `gpt2` and `multilingual` encodings. */
export const GPT2_PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

const utf8 = new TextEncoder();

/** Bytes as a latin1 string: a cheap, exact Map key. */
function bytesKey(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** Parses tiktoken rank text (`base64 rank` per line) into byte-key → rank. */
export function parseTiktokenRanks(text: string): Map<string, number> {
  const ranks = new Map<string, number>();
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    if (line.trim() === "") continue;
    const [b64, rankText] = line.split(" ");
    const rank = Number(rankText);
    if (!b64 || !Number.isInteger(rank) || rank < 0) throw new Error(`bad tiktoken line ${lineNo}: ${line.slice(0, 40)}`);
    ranks.set(bytesKey(Buffer.from(b64, "base64")), rank);
  }
  return ranks;
}

/** Reads a `.tiktoken` rank file. */
export function loadTiktokenRanks(path: string): Map<string, number> {
  return parseTiktokenRanks(readFileSync(path, "utf8"));
}

export interface EncodeOptions {
  /** Special tokens that may appear literally in the text ("all" or a set of their strings). */
  allowedSpecial?: "all" | ReadonlySet<string>;
}

/** A byte-level BPE codec (tiktoken semantics). */
export class BytePairEncoding {
  private readonly decoder: Uint8Array[];
  private readonly specialByText: Map<string, number>;
  private readonly specialById = new Map<number, string>();

  constructor(
    private readonly ranks: Map<string, number>,
    specialTokens: Record<string, number>,
    private readonly pattern: RegExp = GPT2_PATTERN,
  ) {
    this.decoder = [];
    for (const [key, rank] of ranks) {
      // a loop, not Uint8Array.from: 50 000 calls with strings made that builtin hot and polymorphic in
      // every engine thread (see workers/engines/whisper/decoder.ts, CACHE_BRANCH)
      const bytes = new Uint8Array(key.length);
      for (let i = 0; i < key.length; i++) bytes[i] = key.charCodeAt(i);
      this.decoder[rank] = bytes;
    }
    this.specialByText = new Map(Object.entries(specialTokens));
    for (const [text, id] of this.specialByText) this.specialById.set(id, text);
  }

  /** Number of ordinary (BPE) tokens. */
  get rankCount(): number {
    return this.ranks.size;
  }

  /** Total vocabulary size (ranks + special tokens). */
  get vocabSize(): number {
    let max = this.decoder.length - 1;
    for (const id of this.specialById.keys()) max = Math.max(max, id);
    return max + 1;
  }

  /** Id of a special token, or undefined. */
  specialId(text: string): number | undefined {
    return this.specialByText.get(text);
  }

  /** Text of a special token id, or undefined for ordinary tokens. */
  specialText(id: number): string | undefined {
    return this.specialById.get(id);
  }

  /** Encodes text to token ids. Special-token text is encoded as ordinary text unless allowed. */
  encode(text: string, opts: EncodeOptions = {}): number[] {
    const out: number[] = [];
    const allowed = opts.allowedSpecial;
    if (!allowed || (allowed !== "all" && allowed.size === 0)) {
      this.encodeOrdinary(text, out);
      return out;
    }
    const names = [...this.specialByText.keys()].filter((s) => allowed === "all" || allowed.has(s));
    const escaped = names.sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const splitter = new RegExp(`(${escaped.join("|")})`, "g");
    for (const part of text.split(splitter)) {
      if (part === "") continue;
      const id = this.specialByText.get(part);
      if (id !== undefined && names.includes(part)) out.push(id);
      else this.encodeOrdinary(part, out);
    }
    return out;
  }

  private encodeOrdinary(text: string, out: number[]): void {
    for (const match of text.matchAll(this.pattern)) {
      const bytes = utf8.encode(match[0]);
      const whole = this.ranks.get(bytesKey(bytes));
      if (whole !== undefined) out.push(whole);
      else this.mergePiece(bytes, out);
    }
  }

  /** tiktoken's byte_pair_merge: repeatedly join the adjacent pair with the lowest rank. */
  private mergePiece(bytes: Uint8Array, out: number[]): void {
    const bounds: number[] = [];
    for (let i = 0; i <= bytes.length; i++) bounds.push(i);
    for (;;) {
      let best = Infinity;
      let bestAt = -1;
      for (let i = 0; i + 2 < bounds.length; i++) {
        const r = this.ranks.get(bytesKey(bytes, bounds[i], bounds[i + 2]));
        if (r !== undefined && r < best) {
          best = r;
          bestAt = i;
        }
      }
      if (bestAt < 0) break;
      bounds.splice(bestAt + 1, 1);
    }
    for (let i = 0; i + 1 < bounds.length; i++) {
      const r = this.ranks.get(bytesKey(bytes, bounds[i], bounds[i + 1]));
      if (r === undefined) throw new Error(`byte sequence without a rank (incomplete vocabulary?)`);
      out.push(r);
    }
  }

  /** Raw bytes of one token (special tokens give their UTF-8 text). */
  tokenBytes(id: number): Uint8Array {
    const b = this.decoder[id];
    if (b) return b;
    const special = this.specialById.get(id);
    if (special !== undefined) return utf8.encode(special);
    throw new RangeError(`token id ${id} is not in the vocabulary`);
  }

  /** Concatenated bytes of a token sequence. */
  decodeBytes(ids: readonly number[]): Uint8Array {
    const parts = ids.map((id) => this.tokenBytes(id));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }

  /** Decodes ids to text; invalid UTF-8 (e.g. a split multi-byte character) becomes U+FFFD. */
  decode(ids: readonly number[]): string {
    return new TextDecoder("utf-8").decode(this.decodeBytes(ids));
  }
}
