/**
 * Worker thread of the batched VAD: one Silero session; the recurrent state and the 64-sample
 * context of every stream (by slot); each tick's chunks scored with one inference per step, all
 * streams of the step in the batch dimension (input [B, 576], state [2, B, 128]). Buffers and
 * tensors are reused from tick to tick.
 */
import { parentPort } from "node:worker_threads";
import * as ort from "onnxruntime-node";
import type { FromVadWorker, ToVadWorker } from "./batch-protocol.ts";

if (!parentPort) throw new Error("workers/vad/batch-worker.ts must run as a worker thread");
const port = parentPort;

const FRAME = 512;
const CONTEXT = 64;
const ROW = CONTEXT + FRAME;
const HIDDEN = 128;

let session: ort.InferenceSession | null = null;
const sr = new ort.Tensor("int64", BigInt64Array.from([16000n]), []);
/** Per slot: h (128) then c (128), then the context (64). */
let slotState = new Float32Array(0);
const SLOT = 2 * HIDDEN + CONTEXT;

let capacity = 0;
let input = new Float32Array(0);
let state = new Float32Array(0);
const tensors = new Map<number, { input: ort.Tensor; state: ort.Tensor }>();

function ensureSlots(slot: number): void {
  if ((slot + 1) * SLOT <= slotState.length) return;
  const next = new Float32Array(Math.max((slot + 1) * SLOT, slotState.length * 2));
  next.set(slotState);
  slotState = next;
}

function ensureBatch(b: number): { input: ort.Tensor; state: ort.Tensor } {
  if (b > capacity) {
    capacity = Math.max(b, capacity * 2, 8);
    input = new Float32Array(capacity * ROW);
    state = new Float32Array(2 * capacity * HIDDEN);
    tensors.clear();
  }
  let t = tensors.get(b);
  if (!t) {
    t = {
      input: new ort.Tensor("float32", input.subarray(0, b * ROW), [b, ROW]),
      state: new ort.Tensor("float32", state.subarray(0, 2 * b * HIDDEN), [2, b, HIDDEN]),
    };
    tensors.set(b, t);
  }
  return t;
}

async function run(msg: Extract<ToVadWorker, { type: "run" }>): Promise<FromVadWorker> {
  const { slots, counts, resets, frames } = msg;
  for (const s of resets) {
    ensureSlots(s);
    slotState.fill(0, s * SLOT, (s + 1) * SLOT);
  }
  const n = slots.length;
  const offsets = new Int32Array(n); // first chunk of each stream in `frames` / `probs`
  let total = 0;
  let steps = 0;
  for (let i = 0; i < n; i++) {
    ensureSlots(slots[i]!);
    offsets[i] = total;
    total += counts[i]!;
    steps = Math.max(steps, counts[i]!);
  }
  const probs = new Float32Array(total);
  const rows = new Int32Array(n);
  for (let step = 0; step < steps; step++) {
    let b = 0;
    for (let i = 0; i < n; i++) if (counts[i]! > step) rows[b++] = i;
    const t = ensureBatch(b);
    for (let r = 0; r < b; r++) {
      const i = rows[r]!;
      const base = slots[i]! * SLOT;
      input.set(slotState.subarray(base + 2 * HIDDEN, base + SLOT), r * ROW);
      const chunk = (offsets[i]! + step) * FRAME;
      input.set(frames.subarray(chunk, chunk + FRAME), r * ROW + CONTEXT);
      state.set(slotState.subarray(base, base + HIDDEN), r * HIDDEN);
      state.set(slotState.subarray(base + HIDDEN, base + 2 * HIDDEN), (b + r) * HIDDEN);
    }
    const out = await session!.run({ input: t.input, state: t.state, sr });
    const p = out.output!.data as Float32Array;
    const next = out.stateN!.data as Float32Array;
    for (let r = 0; r < b; r++) {
      const i = rows[r]!;
      const base = slots[i]! * SLOT;
      slotState.set(next.subarray(r * HIDDEN, (r + 1) * HIDDEN), base);
      slotState.set(next.subarray((b + r) * HIDDEN, (b + r + 1) * HIDDEN), base + HIDDEN);
      const chunkEnd = (offsets[i]! + step + 1) * FRAME;
      slotState.set(frames.subarray(chunkEnd - CONTEXT, chunkEnd), base + 2 * HIDDEN);
      probs[offsets[i]! + step] = p[r]!;
    }
  }
  return { type: "result", id: msg.id, probs, inferences: steps };
}

let queue: Promise<unknown> = Promise.resolve();
port.on("message", (msg: ToVadWorker) => {
  if (msg.type === "load") {
    queue = queue.then(async () => {
      try {
        session = await ort.InferenceSession.create(msg.modelPath, {
          intraOpNumThreads: 1,
          interOpNumThreads: 1,
          executionMode: "sequential",
          graphOptimizationLevel: "all",
        });
        for (const name of ["input", "state", "sr"]) {
          if (!session.inputNames.includes(name)) throw new Error(`${msg.modelPath} is not a Silero VAD v5 model (no input "${name}")`);
        }
        port.postMessage({ type: "loaded" } satisfies FromVadWorker);
      } catch (e) {
        port.postMessage({ type: "load_failed", message: (e as Error).message } satisfies FromVadWorker);
      }
    });
  } else {
    queue = queue.then(async () => {
      try {
        const reply = await run(msg);
        port.postMessage(reply, [(reply as { probs: Float32Array<ArrayBuffer> }).probs.buffer]);
      } catch (e) {
        port.postMessage({ type: "failed", id: msg.id, message: (e as Error).message } satisfies FromVadWorker);
      }
    });
  }
});
