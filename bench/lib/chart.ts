/** A small SVG bar chart of the summary's ratios (no dependency: a few rectangles and labels). */
export function chart(title: string, bars: { label: string; value: number; target?: number }[]): string {
  const w = 640, rowH = 28, left = 230, top = 40;
  const max = Math.max(1, ...bars.map((b) => Math.max(b.value, b.target ?? 0))) * 1.1;
  const x = (v: number) => left + ((w - left - 60) * v) / max;
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const rows = bars.map((b, i) => {
    const y = top + i * rowH;
    const v = Number.isFinite(b.value) ? b.value : 0;
    const target = b.target === undefined ? "" : `<line x1="${x(b.target)}" x2="${x(b.target)}" y1="${y - 2}" y2="${y + 20}" stroke="#c00" stroke-dasharray="3,2"/>`;
    return `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${esc(b.label)}</text>` +
      `<rect x="${left}" y="${y}" width="${Math.max(1, x(v) - left)}" height="18" fill="#4a7bd0"/>` +
      `<text x="${x(v) + 4}" y="${y + 14}">${Number.isFinite(b.value) ? b.value.toFixed(2) : "n/a"}</text>` + target;
  });
  const h = top + bars.length * rowH + 20;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="12">` +
    `<text x="10" y="22" font-size="14" font-weight="bold">${esc(title)}</text>${rows.join("")}</svg>\n`;
}
