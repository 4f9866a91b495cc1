/** The `models list` view: every catalogue entry, whether it is installed, and what it serves. */
import { CATALOGUE, PUBLIC_MODELS } from "../catalogue/entries.ts";
import { isInstalled, servingEntries } from "../catalogue/capabilities.ts";
import type { PublicModel } from "../contract/types.ts";

export interface ListedEntry {
  id: string;
  family: string;
  installed: boolean;
  /** Public models this entry is a candidate for. */
  candidateFor: PublicModel[];
  /** Public models it serves right now (installed, first installed candidate, family loadable). */
  serving: PublicModel[];
  description: string;
}

/** Lists the catalogue against the files in `modelsDir`. */
export function listEntries(modelsDir: string): ListedEntry[] {
  const serving = servingEntries(modelsDir);
  return CATALOGUE.map((e) => ({
    id: e.id,
    family: e.family,
    installed: isInstalled(e, modelsDir),
    candidateFor: PUBLIC_MODELS.filter((m) => m.candidates.includes(e.id)).map((m) => m.model),
    serving: serving.filter((s) => s.entry.id === e.id).map((s) => s.model.model),
    description: e.description,
  }));
}

/** Plain-text table of `listEntries`. */
export function formatList(rows: ListedEntry[]): string {
  const lines = [["ENTRY", "FAMILY", "INSTALLED", "PUBLIC MODELS"]].concat(rows.map((r) => [
    r.id,
    r.family,
    r.installed ? "installed" : "-",
    r.serving.length ? `serves ${r.serving.join(", ")}` : r.candidateFor.length ? `candidate for ${r.candidateFor.join(", ")}` : "",
  ]));
  const widths = [0, 1, 2].map((i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c)).join("  ").trimEnd()).join("\n");
}
