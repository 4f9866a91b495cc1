/**
 * Numbers of entities within a session: per type, the first entity is 1, the next new one 2, and
 * the same entity keeps its number. Names are the same person when the words of one are all words
 * of the other ("Sarah Connor", later "Sarah"); other types when their letters and digits agree.
 */
import type { EntityType } from "./types.ts";

const keyOf = (label: EntityType, text: string): string =>
  label === "name" ? text.toLowerCase().replace(/[^\p{L}\p{N}\s'-]/gu, "").replace(/\s+/g, " ").trim() : text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

export class EntityRegistry {
  private readonly known = new Map<EntityType, Array<{ key: string; id: number }>>();

  /** The number of an entity, giving it a new one when it is new. */
  idOf(label: EntityType, text: string): number {
    return this.find(label, text) ?? this.add(label, text);
  }

  /** The number of an entity seen before, or null. */
  find(label: EntityType, text: string): number | null {
    const key = keyOf(label, text);
    const list = this.known.get(label) ?? [];
    const exact = list.find((e) => e.key === key);
    if (exact) return exact.id;
    if (label !== "name") return null;
    const words = new Set(key.split(" "));
    const same = list.find((e) => {
      const other = e.key.split(" ");
      return other.every((w) => words.has(w)) || [...words].every((w) => other.includes(w));
    });
    return same?.id ?? null;
  }

  private add(label: EntityType, text: string): number {
    const list = this.known.get(label) ?? [];
    const id = list.length + 1;
    list.push({ key: keyOf(label, text), id });
    this.known.set(label, list);
    return id;
  }

  /** State kept with a resumed session. */
  toJSON(): Record<string, Array<{ key: string; id: number }>> {
    return Object.fromEntries(this.known);
  }

  static from(saved: Record<string, Array<{ key: string; id: number }>> | undefined): EntityRegistry {
    const r = new EntityRegistry();
    for (const [label, list] of Object.entries(saved ?? {})) r.known.set(label as EntityType, list);
    return r;
  }
}
