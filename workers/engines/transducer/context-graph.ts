/**
 * Contextual biasing graph for transducer beam search (the Aho-Corasick "context graph" of
 * icefall/sherpa-onnx): each matched hotword token earns a bonus; a partial match that breaks
 * off gives its bonus back; a completed phrase keeps it.
 */

interface Node {
  token: number;
  /** Bonus accumulated from the root to this node. */
  nodeScore: number;
  isEnd: boolean;
  next: Map<number, Node>;
  fail: Node;
}

export interface ContextState {
  readonly node: unknown;
}

export class ContextGraph {
  private readonly root: Node;

  /** `phrases`: token sequences with the bonus each matched token earns. */
  constructor(phrases: { tokens: number[]; tokenScore: number }[]) {
    const root = { token: -1, nodeScore: 0, isEnd: false, next: new Map(), fail: undefined } as unknown as Node;
    root.fail = root;
    this.root = root;
    for (const { tokens, tokenScore } of phrases) {
      let node = root;
      for (const t of tokens) {
        let child = node.next.get(t);
        if (!child) {
          child = { token: t, nodeScore: node.nodeScore + tokenScore, isEnd: false, next: new Map(), fail: root };
          node.next.set(t, child);
        } else {
          child.nodeScore = Math.max(child.nodeScore, node.nodeScore + tokenScore);
        }
        node = child;
      }
      if (tokens.length > 0) node.isEnd = true;
    }
    // Breadth-first failure links.
    const queue: Node[] = [...root.next.values()];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const [t, child] of node.next) {
        let f = node.fail;
        while (f !== root && !f.next.has(t)) f = f.fail;
        const target = f.next.get(t);
        child.fail = target && target !== child ? target : root;
        queue.push(child);
      }
    }
  }

  get start(): ContextState {
    return { node: this.root };
  }

  /** Advances by one emitted token: the score change and the new state. */
  forward(state: ContextState, token: number): { score: number; state: ContextState } {
    const from = state.node as Node;
    let node: Node | undefined = from.next.get(token);
    let score: number;
    if (node) {
      score = node.nodeScore - from.nodeScore;
    } else {
      let f = from.fail;
      while (f !== this.root && !f.next.has(token)) f = f.fail;
      node = f.next.get(token) ?? this.root;
      score = node.nodeScore - from.nodeScore;
    }
    // A completed phrase keeps its bonus and matching restarts at the root.
    if (node.isEnd) return { score, state: { node: this.root } };
    return { score, state: { node } };
  }

  /** Score change when the stream ends in `state` (an unfinished match gives its bonus back). */
  finalize(state: ContextState): number {
    return 0 - (state.node as Node).nodeScore;
  }
}
