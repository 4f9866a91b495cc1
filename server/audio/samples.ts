/** Sample buffers put end to end (16 kHz mono floats and the like). */

/** The parts one after another; the only part itself when there is one (not a copy). */
export function concatSamples(parts: readonly Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
