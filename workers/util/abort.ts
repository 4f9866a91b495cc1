/**
 * Where a long computation may stop, or wait: lets the event loop run once (so that an abort or a
 * hold sent as a message from another thread, a task like any other, is delivered), then throws
 * the signal's reason if it is aborted, or waits while the computation is held (`hold`). Without
 * the turn, a check right after an ONNX call runs before a message that arrived during the call,
 * and the abort lands one call late.
 */
export async function stopIfAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  if (!signal.aborted) await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
  const held = holds.get(signal);
  if (!held) return;
  holds.delete(signal);
  held.onParked();
  await held.released;
  signal.throwIfAborted();
}

interface Hold {
  released: Promise<void>;
  onParked: () => void;
}

/** Computations asked to wait, by their signal. */
const holds = new WeakMap<AbortSignal, Hold>();

/**
 * Asks the computation checking `signal` to wait at its next stop point (`stopIfAborted`), its work
 * so far kept; `onParked` is called once it waits there. Returns the release: the computation goes
 * on (or throws, if `signal` was aborted meanwhile). A computation that ends before its next stop
 * point never waits; its release is then a no-op.
 */
export function hold(signal: AbortSignal, onParked: () => void): () => void {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Hold = { released, onParked };
  holds.set(signal, held);
  return () => {
    if (holds.get(signal) === held) holds.delete(signal);
    release();
  };
}
