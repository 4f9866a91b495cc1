/**
 * Loads done at most once per process (models, engines, code loaded on first use): callers share the
 * load's promise; a load that fails is forgotten, so the next call tries again.
 */

/** One load per key. */
export class LoadOnce<K, V> {
  private readonly loads = new Map<K, Promise<V>>();

  /** The load of `key`, started with `load` when none is kept. */
  get(key: K, load: () => Promise<V>): Promise<V> {
    let p = this.loads.get(key);
    if (!p) {
      const started = load();
      p = started;
      this.loads.set(key, started);
      started.catch(() => {
        if (this.loads.get(key) === started) this.loads.delete(key);
      });
    }
    return p;
  }

  /** Forgets the load of `key` and returns it, if one was kept. */
  take(key: K): Promise<V> | undefined {
    const p = this.loads.get(key);
    this.loads.delete(key);
    return p;
  }

  /** Forgets every load and returns them. */
  takeAll(): Promise<V>[] {
    const all = [...this.loads.values()];
    this.loads.clear();
    return all;
  }
}

/** A single load: `load` runs on the first call, and again after a failure. */
export function loadOnce<V>(load: () => Promise<V>): () => Promise<V> {
  const once = new LoadOnce<true, V>();
  return () => once.get(true, load);
}
