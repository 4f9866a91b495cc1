/**
 * Where a long computation may stop: lets the event loop run once (so that an abort sent as a
 * message from another thread, a task like any other, is delivered), then throws the signal's
 * reason if it is aborted. Without the turn, a check right after an ONNX call runs before a message
 * that arrived during the call, and the abort lands one call late.
 */
export async function stopIfAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  if (!signal.aborted) await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}
