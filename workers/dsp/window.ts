/** Periodic Hann window of length n (as torch.hann_window(n) / scipy's `hann(n, sym=False)`). */
export function periodicHann(n: number): Float64Array {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return w;
}
