import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { BytePairEncoding, parseTiktokenRanks } from "./bpe.ts";
import { WHISPER_LANGUAGES, WhisperTokenizer } from "./whisper.ts";

const ASSETS = resolve(import.meta.dir, "../../../shared/models/whisper-assets");
const multi = WhisperTokenizer.load(ASSETS);
const gpt2 = WhisperTokenizer.load(ASSETS, { encoding: "gpt2" });

/** The bytes of rank `rank` as listed in the rank file itself. */
function fileTokenText(file: string, rank: number): string {
  const line = readFileSync(resolve(ASSETS, file), "utf8").split("\n")[rank];
  const [b64, r] = line.split(" ");
  expect(Number(r)).toBe(rank);
  return Buffer.from(b64, "base64").toString("utf8");
}

describe("Whisper special tokens", () => {
  test("multilingual ids match openai/whisper", () => {
    expect(multi.vocabSize).toBe(51865);
    expect(multi.eot).toBe(50257);
    expect(multi.sot).toBe(50258);
    expect(multi.languageToken("en")).toBe(50259);
    expect(multi.languageToken("zh")).toBe(50260);
    expect(multi.languageToken("fr")).toBe(50265);
    expect(multi.languageToken("su")).toBe(50357);
    expect(multi.translate).toBe(50358);
    expect(multi.transcribe).toBe(50359);
    expect(multi.sotLm).toBe(50360);
    expect(multi.sotPrev).toBe(50361);
    expect(multi.noSpeech).toBe(50362);
    expect(multi.noTimestamps).toBe(50363);
    expect(multi.timestampBegin).toBe(50364);
    expect(multi.bpe.specialId("<|30.00|>")).toBe(51864);
    expect(multi.timestampSeconds(50364 + 150)).toBe(3);
    expect(() => multi.languageToken("yue")).toThrow(/yue/);
  });

  test("English-only (gpt2) ids and the 100-language large-v3 vocabulary", () => {
    expect(gpt2.eot).toBe(50256);
    expect(gpt2.sot).toBe(50257);
    expect(gpt2.noTimestamps).toBe(50362);
    expect(gpt2.timestampBegin).toBe(50363);
    expect(gpt2.vocabSize).toBe(51864);
    const v3 = WhisperTokenizer.load(ASSETS, { numLanguages: 100 });
    expect(v3.vocabSize).toBe(51866);
    expect(v3.languageToken("yue")).toBe(50358);
    expect(v3.transcribe).toBe(50360);
    expect(v3.timestampBegin).toBe(50365);
    expect(WHISPER_LANGUAGES.length).toBe(100);
  });

  test("prompt sequences", () => {
    expect(multi.sotSequence("en", "transcribe", true)).toEqual([50258, 50259, 50359]);
    expect(multi.sotSequence("fr", "translate", false)).toEqual([50258, 50265, 50358, 50363]);
    // English-only models: <|startoftranscript|> alone (no language, no task token).
    expect(gpt2.sotSequence(undefined, undefined, true)).toEqual([50257]);
    expect(gpt2.sotSequence(undefined, undefined, false)).toEqual([50257, 50362]);
  });
});

describe("BPE encode/decode", () => {
  test("known ids: 'Hello world'", () => {
    expect(gpt2.encode("Hello world")).toEqual([15496, 995]);
    expect(multi.encode("Hello world")).toEqual([15947, 1002]);
    expect(multi.encode(" Hello world")).toEqual([2425, 1002]);
    expect(fileTokenText("multilingual.tiktoken", 1002)).toBe(" world");
    expect(fileTokenText("multilingual.tiktoken", 2425)).toBe(" Hello");
    expect(fileTokenText("gpt2.tiktoken", 15496)).toBe("Hello");
  });

  test("decoding known id sequences, with and without specials", () => {
    expect(multi.decode([15947, 1002])).toBe("Hello world");
    expect(gpt2.decode([15496, 995])).toBe("Hello world");
    const seq = [50258, 50259, 50359, 50364, 2425, 1002, 50414, 50257];
    expect(multi.decodeWithSpecials(seq)).toBe(
      "<|startoftranscript|><|en|><|transcribe|><|0.00|> Hello world<|1.00|><|endoftext|>",
    );
    expect(multi.decode(seq)).toBe(" Hello world");
  });

  test.each([
    ["English", "The quick brown fox jumps over the lazy dog, doesn't it? 1234567"],
    ["French", "Ça a été un été très chaud à Besançon : où êtes-vous ?"],
    ["Japanese", "今日はいい天気ですね。東京タワーに行きましょう。"],
    ["Korean", "안녕하세요, 만나서 반갑습니다."],
    ["Russian", "Съешь же ещё этих мягких французских булок, да выпей чаю."],
    ["emoji", "I 💜 🎉🇫🇷 and 👩‍👩‍👧 !"],
    ["whitespace", "  two  spaces\n\ttab and trailing   "],
  ])("round-trips %s", (_name, text) => {
    const ids = multi.encode(text);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((t) => t >= 0 && t < multi.eot)).toBe(true);
    expect(multi.decode(ids)).toBe(text);
    expect(gpt2.decode(gpt2.encode(text))).toBe(text);
  });

  test("byte-pair merging of a piece that is not one token", () => {
    const ids = multi.encode("antidisestablishmentarianism");
    expect(ids.length).toBeGreaterThan(1);
    expect(multi.decode(ids)).toBe("antidisestablishmentarianism");
  });

  test("special-token text is ordinary unless allowed", () => {
    expect(multi.encode("<|endoftext|>")).not.toContain(multi.eot);
    expect(multi.bpe.encode("a<|endoftext|>b", { allowedSpecial: "all" })).toEqual([
      ...multi.encode("a"), multi.eot, ...multi.encode("b"),
    ]);
  });

  test("a split multi-byte character decodes to U+FFFD; unknown ids are a clear error", () => {
    const ids = multi.encode("🎉");
    expect(ids.length).toBeGreaterThan(1);
    expect(multi.decode(ids.slice(0, 1))).toContain("\uFFFD");
    expect(() => multi.decode([999999])).toThrow(/not in the vocabulary/);
  });

  test("a tiny hand-made vocabulary merges by rank", () => {
    const ranks = parseTiktokenRanks(
      ["a", "b", "c", "ab", "bc", "abc"].map((t, i) => `${Buffer.from(t).toString("base64")} ${i}`).join("\n"),
    );
    const bpe = new BytePairEncoding(ranks, { "<|x|>": 6 });
    expect(bpe.encode("abc")).toEqual([5]);
    expect(bpe.encode("abcb")).toEqual([5, 1]);
    expect(() => parseTiktokenRanks("YQ== x")).toThrow(/bad tiktoken line 1/);
  });
});
