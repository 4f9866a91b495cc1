/**
 * Worker thread of the batched VAD: one Silero session; the recurrent state and the 64-sample
 * context of every stream (by slot); each tick's chunks scored with one inference per step, all
 * streams of the step in the batch dimension (input [B, 576], state [2, B, 128]). Ticks arrive in
 * shared memory (`batch-protocol.ts`): the thread waits on the request word, not on messages or
 * timers. Buffers and tensors are reused from tick to tick.
 */
import { parentPort } from "node:worker_threads";
import * as ort from "onnxruntime-node";
import { CTL, type FromVadWorker, type SharedVadBuffers, type ToVadWorker } from "./batch-protocol.ts";

if (!parentPort) throw new Error("workers/engines/vad/batch-worker.ts must run as a worker thread");
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
/** Per tick: first chunk of each stream, and the rows of one step (grown as needed). */
let offsets = new Int32Array(16);
let rows = new Int32Array(16);

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

/** Scores the tick held in the shared buffers; returns the inferences it ran. */
async function run(control: Int32Array, index: Int32Array, frames: Float32Array, probs: Float32Array): Promise<number> {
  const n = control[CTL.STREAMS]!;
  const resets = control[CTL.RESETS]!;
  for (let k = 2 * n; k < 2 * n + resets; k++) {
    const s = index[k]!;
    ensureSlots(s);
    slotState.fill(0, s * SLOT, (s + 1) * SLOT);
  }
  if (offsets.length < n) {
    offsets = new Int32Array(2 * n);
    rows = new Int32Array(2 * n);
  }
  let total = 0;
  let steps = 0;
  for (let i = 0; i < n; i++) {
    ensureSlots(index[i]!);
    offsets[i] = total;
    const c = index[n + i]!;
    total += c;
    if (c > steps) steps = c;
  }
  for (let step = 0; step < steps; step++) {
    let b = 0;
    for (let i = 0; i < n; i++) if (index[n + i]! > step) rows[b++] = i;
    const t = ensureBatch(b);
    for (let r = 0; r < b; r++) {
      const i = rows[r]!;
      const base = index[i]! * SLOT;
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
      const base = index[i]! * SLOT;
      slotState.set(next.subarray(r * HIDDEN, (r + 1) * HIDDEN), base);
      slotState.set(next.subarray((b + r) * HIDDEN, (b + r + 1) * HIDDEN), base + HIDDEN);
      const chunkEnd = (offsets[i]! + step + 1) * FRAME;
      slotState.set(frames.subarray(chunkEnd - CONTEXT, chunkEnd), base + 2 * HIDDEN);
      probs[offsets[i]! + step] = p[r]!;
    }
  }
  return steps;
}

/** Waits for each tick on the request word, scores it, and signals it done. */
async function serve(buffers: SharedVadBuffers): Promise<never> {
  const control = new Int32Array(buffers.control);
  // Length-tracking views: the main thread grows the buffers between ticks.
  const index = new Int32Array(buffers.index);
  const frames = new Float32Array(buffers.frames);
  const probs = new Float32Array(buffers.probs);
  let seen = Atomics.load(control, CTL.REQUEST);
  for (;;) {
    const wait = Atomics.waitAsync(control, CTL.REQUEST, seen);
    if (wait.async) await wait.value;
    const id = Atomics.load(control, CTL.REQUEST);
    if (id === seen) continue;
    seen = id;
    try {
      control[CTL.INFERENCES] = await run(control, index, frames, probs);
      Atomics.store(control, CTL.DONE, id);
      Atomics.notify(control, CTL.DONE);
    } catch (e) {
      port.postMessage({ type: "failed", id, message: (e as Error).message } satisfies FromVadWorker);
    }
  }
}

port.on("message", async (msg: ToVadWorker) => {
  if (msg.type !== "load") return;
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
  } catch (e) {
    port.postMessage({ type: "load_failed", message: (e as Error).message } satisfies FromVadWorker);
    return;
  }
  void serve(msg.buffers);
  port.postMessage({ type: "loaded" } satisfies FromVadWorker);
});
