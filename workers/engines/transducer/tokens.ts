/**
 * `tokens.txt` of sherpa-onnx models ("<symbol> <id>" per line, `▁` marking a word start):
 * detokenization and a longest-match encoder for hotword phrases.
 */
import { readFileSync } from "node:fs";

export const WORD_START = "\u2581";

export class TokenTable {
  readonly symbols: string[] = [];
  private readonly ids = new Map<string, number>();
  readonly blank: number;
  /** True when no symbol holds a lowercase letter (phrases are then upper-cased). */
  readonly upperCase: boolean;

  constructor(text: string) {
    let lineNo = 0;
    for (const line of text.split("\n")) {
      lineNo++;
      if (line.trim() === "") continue;
      const m = /^(.*)\s+(\d+)\s*$/.exec(line);
      if (!m) throw new Error(`tokens.txt line ${lineNo}: expected "<symbol> <id>"`);
      const id = Number(m[2]);
      this.symbols[id] = m[1];
      this.ids.set(m[1], id);
    }
    this.blank = this.ids.get("<blk>") ?? this.ids.get("<blank>") ?? 0;
    this.upperCase = !this.symbols.some((s) => s !== undefined && !/^<.*>$/.test(s) && s !== s.toUpperCase());
  }

  static load(path: string): TokenTable {
    return new TokenTable(readFileSync(path, "utf8"));
  }

  get size(): number {
    return this.symbols.length;
  }

  id(symbol: string): number | undefined {
    return this.ids.get(symbol);
  }

  /** Joins token symbols into text (`▁` → space; `<0xHH>` byte tokens decoded as UTF-8). */
  detokenize(ids: readonly number[]): string {
    const bytes: number[] = [];
    const enc = new TextEncoder();
    for (const id of ids) {
      const s = this.symbols[id];
      if (s === undefined || id === this.blank || (/^<.*>$/.test(s) && !/^<0x[0-9A-Fa-f]{2}>$/.test(s))) continue;
      if (/^<0x[0-9A-Fa-f]{2}>$/.test(s)) bytes.push(parseInt(s.slice(3, 5), 16));
      else bytes.push(...enc.encode(s.replaceAll(WORD_START, " ")));
    }
    return new TextDecoder().decode(Uint8Array.from(bytes)).trim();
  }

  /**
   * Encodes a phrase by greedy longest match over the symbols, each word prefixed with `▁`.
   * Returns null when some part has no symbol.
   */
  encodePhrase(phrase: string): number[] | null {
    const norm = this.upperCase ? phrase.toUpperCase() : phrase;
    const words = norm.trim().split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) return null;
    const out: number[] = [];
    for (const word of words) {
      const text = WORD_START + word;
      let i = 0;
      while (i < text.length) {
        let found = -1;
        let len = 0;
        for (let j = text.length; j > i; j--) {
          const id = this.ids.get(text.slice(i, j));
          if (id !== undefined && id !== this.blank) {
            found = id;
            len = j - i;
            break;
          }
        }
        if (found < 0) {
          if (i === 0) {
            i = 1; // a lone "▁" may be absent: try the word without it
            continue;
          }
          return null;
        }
        out.push(found);
        i += len;
      }
    }
    return out;
  }
}
