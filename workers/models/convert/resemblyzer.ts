/**
 * Converts Resemblyzer's speaker encoder (`resemblyzer/pretrained.pt` in the Resemblyzer wheel: a
 * GE2E model, 3-layer LSTM 40→256 + linear 256→256 + ReLU, L2-normalised output) into ONNX with the
 * project's graph builder. The checkpoint is read by `torch_legacy_state.py` (Python standard library
 * only); no PyTorch is needed. The output is byte-for-byte deterministic, so it is pinned.
 *
 * Graph: `mels` float32 [batch, frames, 40] (batch first, linear-power mel frames) → `embedding`
 * float32 [batch, 256].
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GraphBuilder } from "../../fixtures/onnx-builder.ts";

const HIDDEN = 256;
const LAYERS = 3;
const N_MELS = 40;

interface StateIndex {
  [name: string]: { offset: number; shape: number[] };
}

/** PyTorch LSTM gate blocks (i, f, g, o) → ONNX order (i, o, f, c). */
function reorderGates(w: Float32Array, rowLen: number): Float32Array {
  const block = HIDDEN * rowLen;
  const out = new Float32Array(w.length);
  [0, 3, 1, 2].forEach((src, dst) => out.set(w.subarray(src * block, (src + 1) * block), dst * block));
  return out;
}

/** Builds the ONNX model from an extracted state dict (index + raw float32 blob). */
function buildSpeakerEncoder(index: StateIndex, blob: Float32Array): Uint8Array {
  const t = (name: string, shape: number[]): Float32Array => {
    const e = index[name];
    if (!e) throw new Error(`the checkpoint has no tensor ${name}`);
    if (e.shape.join("x") !== shape.join("x")) throw new Error(`${name}: shape [${e.shape}] is not [${shape}]`);
    return blob.subarray(e.offset, e.offset + shape.reduce((a, b) => a * b, 1));
  };
  const g = new GraphBuilder("resemblyzer_speaker_encoder");
  const mels = g.input("mels", "float32", ["batch", "frames", N_MELS]);
  let x = g.op("Transpose", [mels], { perm: [1, 0, 2] }); // [frames, batch, 40]
  let lastH = "";
  for (let l = 0; l < LAYERS; l++) {
    const inSize = l === 0 ? N_MELS : HIDDEN;
    const W = g.floats([1, 4 * HIDDEN, inSize], reorderGates(t(`lstm.weight_ih_l${l}`, [4 * HIDDEN, inSize]), inSize));
    const R = g.floats([1, 4 * HIDDEN, HIDDEN], reorderGates(t(`lstm.weight_hh_l${l}`, [4 * HIDDEN, HIDDEN]), HIDDEN));
    const b = new Float32Array(8 * HIDDEN);
    b.set(reorderGates(t(`lstm.bias_ih_l${l}`, [4 * HIDDEN]), 1), 0);
    b.set(reorderGates(t(`lstm.bias_hh_l${l}`, [4 * HIDDEN]), 1), 4 * HIDDEN);
    const B = g.floats([1, 8 * HIDDEN], b);
    const [y, yh] = g.node("LSTM", [x, W, R, B], 2, { hidden_size: { int: HIDDEN }, direction: "forward" });
    x = g.op("Squeeze", [y!, g.ints([1])]); // [frames, batch, H]
    lastH = yh!;
  }
  const h = g.op("Squeeze", [lastH, g.ints([0])]); // [batch, H]
  const lin = g.op("Gemm", [h, g.floats([HIDDEN, HIDDEN], t("linear.weight", [HIDDEN, HIDDEN])), g.floats([HIDDEN], t("linear.bias", [HIDDEN]))], { transB: { int: 1 } });
  const relu = g.op("Relu", [lin]);
  const norm = g.op("ReduceL2", [relu], { axes: { ints: [1] }, keepdims: { int: 1 } });
  const emb = g.op("Div", [relu, g.op("Max", [norm, g.floats([1], [1e-12])])]);
  g.output("embedding", "float32", ["batch", HIDDEN], emb);
  return g.build({ producer: "live-stt resemblyzer converter", metadata: { source: "resemblyzer==0.1.4 resemblyzer/pretrained.pt", n_mels: N_MELS } });
}

/** Converts the checkpoint file into ONNX bytes (runs the standard-library extractor with `python`). */
export function convertResemblyzer(checkpoint: string, python = "python3"): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "resemblyzer-"));
  try {
    const prefix = join(dir, "state");
    const run = Bun.spawnSync([python, join(import.meta.dir, "torch_legacy_state.py"), checkpoint, "model_state", prefix], { stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`reading ${checkpoint} failed: ${run.stderr.toString().trim()}`);
    const index = JSON.parse(readFileSync(`${prefix}.json`, "utf8")) as StateIndex;
    const raw = readFileSync(`${prefix}.f32`);
    const blob = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    return buildSpeakerEncoder(index, blob);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
