import { describe, expect, test } from "bun:test";
import { logSumExp } from "./search.ts";

/** log Σ exp over [from, to), summed in float64 from scratch. */
function direct(row: Float32Array, from: number, to: number): number {
  let max = -Infinity;
  for (let i = from; i < to; i++) max = Math.max(max, row[i]!);
  if (max === -Infinity) return -Infinity;
  let s = 0;
  for (let i = from; i < to; i++) s += Math.exp(row[i]! - max);
  return max + Math.log(s);
}

describe("logSumExp", () => {
  const V = 51864;
  const logits = new Float32Array(V + 7);
  let seed = 7;
  for (let i = 0; i < logits.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    logits[i] = (seed / 2 ** 32 - 0.5) * 40;
  }
  // a row that is a view into a larger buffer, as the decoder's batched logits are
  const row = logits.subarray(7);
  row.fill(-Infinity, 100, 2000);

  test("a whole row, a view, and a range of it agree with the direct sum", () => {
    expect(logSumExp(row)).toBeCloseTo(direct(row, 0, V), 10);
    expect(logSumExp(row, 50363, V)).toBeCloseTo(direct(row, 50363, V), 10);
    expect(logSumExp(row, 0, 50363)).toBeCloseTo(direct(row, 0, 50363), 10);
    expect(logSumExp(row, 10, 11)).toBe(row[10]!);
  });

  test("every entry −Infinity, or none, gives −Infinity", () => {
    expect(logSumExp(row, 100, 2000)).toBe(-Infinity);
    expect(logSumExp(row, 5, 5)).toBe(-Infinity);
  });

  test("equal entries: max + log n", () => {
    expect(logSumExp(new Float32Array(1000).fill(3))).toBeCloseTo(3 + Math.log(1000), 12);
  });
});
