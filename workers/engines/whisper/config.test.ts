import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { flagsHaveInt8DotProduct } from "../cpu.ts";
import { type QuantizedChoice, loadWhisperConfig } from "./config.ts";

const root = mkdtempSync(join(tmpdir(), "whisper-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A model directory holding `config.json` and the named ONNX files (empty: only their names matter here). */
function modelDir(name: string, suffixes: string[]): string {
  const dir = join(root, name);
  const config = { num_mel_bins: 80, vocab_size: 51864, d_model: 384, decoder_layers: 4, decoder_attention_heads: 6 };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  for (const s of suffixes) {
    writeFileSync(join(dir, `encoder_model${s}.onnx`), "");
    writeFileSync(join(dir, `decoder_model_merged${s}.onnx`), "");
  }
  return dir;
}

const pick = (dir: string, quantized: QuantizedChoice, int8DotProduct: boolean) => {
  const cfg = loadWhisperConfig(dir, { quantized, int8DotProduct });
  return [basename(cfg.encoderPath), basename(cfg.decoderPath)];
};

describe("which ONNX files a Whisper model loads", () => {
  const all = modelDir("all", ["", "_quantized", "_int8"]);

  test("encoder: the signed int8 encoder where the CPU has 8-bit dot products, else the unsigned one; the fp32 decoder", () => {
    expect(pick(all, "encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged.onnx"]);
    expect(pick(all, "encoder", false)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged.onnx"]);
  });

  test("true: int8 for both, signed first where the CPU has 8-bit dot products; false: fp32 for both", () => {
    expect(pick(all, true, true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_int8.onnx"]);
    expect(pick(all, true, false)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged_quantized.onnx"]);
    expect(pick(all, false, true)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
  });

  test("a model without signed int8 files (an older conversion) keeps its unsigned ones; one without int8 files its fp32 ones", () => {
    const older = modelDir("older", ["", "_quantized"]);
    expect(pick(older, "encoder", true)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged.onnx"]);
    expect(pick(older, true, true)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged_quantized.onnx"]);
    const plain = modelDir("plain", [""]);
    expect(pick(plain, "encoder", true)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
  });

  test("signed-encoder: the signed int8 encoder where the CPU has 8-bit dot products, else fp32; the fp32 decoder", () => {
    expect(pick(all, "signed-encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged.onnx"]);
    expect(pick(all, "signed-encoder", false)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    const older = modelDir("older-signed", ["", "_quantized"]);
    expect(pick(older, "signed-encoder", true)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
  });

  test("with the int8 encoder on a CPU with 8-bit dot products: the decoder with int8 cross-attention projections, where there is one", () => {
    const cross = modelDir("cross", ["", "_quantized", "_int8", "_cross_int8"]);
    expect(pick(cross, "encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_cross_int8.onnx"]);
    expect(pick(cross, "signed-encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_cross_int8.onnx"]);
    // without dot products (its products could saturate), and where fp32 or int8 files were asked for: as before
    expect(pick(cross, "encoder", false)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged.onnx"]);
    expect(pick(cross, "signed-encoder", false)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    expect(pick(cross, false, true)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    expect(pick(cross, true, true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_int8.onnx"]);
  });

  test("with the int8 encoder on a CPU with 8-bit dot products: the decoder with 8-bit weight blocks before the others", () => {
    const w8 = modelDir("w8", ["", "_quantized", "_int8", "_cross_int8", "_w8"]);
    expect(pick(w8, "encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_w8.onnx"]);
    expect(pick(w8, "signed-encoder", true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_w8.onnx"]);
    // its products are in 8-bit integers: not without dot products, nor where fp32 or int8 files were asked for
    expect(pick(w8, "encoder", false)).toEqual(["encoder_model_quantized.onnx", "decoder_model_merged.onnx"]);
    expect(pick(w8, "signed-encoder", false)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    expect(pick(w8, false, true)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    expect(pick(w8, true, true)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_int8.onnx"]);
  });

  test("without 8-bit dot products a signed-int8 file is used only when no other file is there", () => {
    const signed = modelDir("signed", ["", "_int8"]);
    expect(pick(signed, "encoder", false)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    expect(pick(signed, true, false)).toEqual(["encoder_model.onnx", "decoder_model_merged.onnx"]);
    const only = modelDir("only", ["_int8"]);
    expect(pick(only, "encoder", false)).toEqual(["encoder_model_int8.onnx", "decoder_model_merged_int8.onnx"]);
  });

  test("8-bit dot-product instructions are read from the CPU's flags", () => {
    expect(flagsHaveInt8DotProduct(["sse4_2", "avx2", "avx512f", "avx512_vnni"])).toBe(true);
    expect(flagsHaveInt8DotProduct(["avx2", "avx_vnni"])).toBe(true);
    expect(flagsHaveInt8DotProduct(["avx2", "avx512f", "avx512bw"])).toBe(false);
  });
});
