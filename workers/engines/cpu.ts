/**
 * What the CPU offers onnxruntime's integer kernels, read once from the operating system.
 *
 * With 8-bit dot-product instructions (x86's AVX-512 VNNI, AVX-VNNI or AMX) onnxruntime multiplies
 * unsigned activations by signed 8-bit weights in one instruction, about four times faster than
 * its path for unsigned weights. Without them, its signed-weight path adds pairs of products into
 * 16-bit lanes, which can saturate, so signed-int8 models are preferred only where the CPU has them.
 */
import { readFileSync } from "node:fs";

const DOT_PRODUCT_FLAGS = ["avx512_vnni", "avx_vnni", "amx_int8"];

/** True when `flags` (a `/proc/cpuinfo` flags line's words) name an 8-bit dot-product instruction. */
export function flagsHaveInt8DotProduct(flags: readonly string[]): boolean {
  return flags.some((f) => DOT_PRODUCT_FLAGS.includes(f));
}

let cached: boolean | undefined;

/** True on an x86 CPU with 8-bit dot-product instructions; false elsewhere or when unknown. */
export function hasInt8DotProduct(): boolean {
  if (cached !== undefined) return cached;
  cached = false;
  if (process.arch !== "x64" || process.platform !== "linux") return cached;
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("flags"));
    cached = line ? flagsHaveInt8DotProduct(line.slice(line.indexOf(":") + 1).trim().split(/\s+/)) : false;
  } catch {
    cached = false;
  }
  return cached;
}
