/**
 * What the playground shows, built from the server messages: a timeline of final utterances and
 * speech / end-of-turn markers, the current partial, the entities and redactions, the acks.
 */
import type { Entity, ServerMessage, Utterance } from "../../generated/openapi/types.gen.ts";

export type TimelineItem =
  | { kind: "utterance"; id: string; utterance: Utterance; redacted?: string; entities: Entity[]; sentiment?: string; translations: string[] }
  | { kind: "marker"; type: "speech_start" | "speech_end" | "end_of_turn"; time: number | null; detail: string };

export interface PlaygroundState {
  timeline: TimelineItem[];
  partial: { id: string; text: string } | null;
  /** Last acknowledged audio (`audio_chunk` acks), in milliseconds and bytes. */
  acked: { ms: number; bytes: number; count: number };
  stopAcknowledged: boolean;
  lifecycle: string[];
  errors: string[];
  log: { at: number; type: string; text: string }[];
}

export const initialState = (): PlaygroundState => ({
  timeline: [],
  partial: null,
  acked: { ms: 0, bytes: 0, count: 0 },
  stopAcknowledged: false,
  lifecycle: [],
  errors: [],
  log: [],
});

const LOG_LIMIT = 300;

/**
 * Where an item sits on the timeline: a final at its end time, a marker at its time (after a final
 * ending at the same instant). Finals may arrive after later speech markers; the timeline stays in
 * the order of the audio.
 */
function position(item: TimelineItem): [number, number] {
  return item.kind === "utterance" ? [item.utterance.end, 0] : [item.time ?? Number.POSITIVE_INFINITY, 1];
}

function insert(timeline: TimelineItem[], item: TimelineItem): TimelineItem[] {
  const [time, rank] = position(item);
  let at = timeline.length;
  while (at > 0) {
    const [t, r] = position(timeline[at - 1]!);
    if (t < time || (t === time && r <= rank)) break;
    at--;
  }
  return [...timeline.slice(0, at), item, ...timeline.slice(at)];
}

function withUtterance(state: PlaygroundState, id: string, change: (item: Extract<TimelineItem, { kind: "utterance" }>) => Extract<TimelineItem, { kind: "utterance" }>): TimelineItem[] {
  return state.timeline.map((item) => (item.kind === "utterance" && item.id === id ? change(item) : item));
}

export function apply(state: PlaygroundState, message: ServerMessage, at: number): PlaygroundState {
  const log = [...state.log, { at, type: message.type, text: JSON.stringify(message) }].slice(-LOG_LIMIT);
  const next = { ...state, log };
  switch (message.type) {
    case "transcript": {
      const { id, is_final, utterance } = message.data;
      if (!is_final) return { ...next, partial: { id, text: utterance.text } };
      const partial = state.partial?.id === id ? null : state.partial;
      if (utterance.text.trim() === "") return { ...next, partial };
      return { ...next, partial, timeline: insert(state.timeline, { kind: "utterance", id, utterance, entities: [], translations: [] }) };
    }
    case "speech_start":
    case "speech_end":
      return { ...next, timeline: insert(state.timeline, { kind: "marker", type: message.type, time: message.data.time, detail: `channel ${message.data.channel}` }) };
    case "end_of_turn": {
      const d = message.data;
      const detail = [d.reason, d.probability === null ? null : `p=${d.probability.toFixed(2)}`].filter(Boolean).join(", ");
      return { ...next, timeline: insert(state.timeline, { kind: "marker", type: "end_of_turn", time: d.end, detail }) };
    }
    case "named_entity_recognition": {
      if (!message.data) return message.error ? { ...next, errors: [...state.errors, `entities: ${message.error.message}`] } : next;
      const results = message.data.results;
      return { ...next, timeline: withUtterance(state, message.data.utterance_id, (u) => ({ ...u, entities: [...u.entities, ...results] })) };
    }
    case "pii": {
      const { utterance_id, utterance, entities } = message.data;
      return { ...next, timeline: withUtterance(state, utterance_id, (u) => ({ ...u, redacted: utterance.text, entities: [...u.entities, ...entities] })) };
    }
    case "sentiment_analysis": {
      if (!message.data) return next;
      const label = message.data.results.map((r) => r.sentiment).join(", ");
      return { ...next, timeline: withUtterance(state, message.data.utterance_id, (u) => ({ ...u, sentiment: label })) };
    }
    case "translation": {
      if (!message.data) return next;
      const text = `${message.data.target_language}: ${message.data.translated_utterance.text}`;
      return { ...next, timeline: withUtterance(state, message.data.utterance_id, (u) => ({ ...u, translations: [...u.translations, text] })) };
    }
    case "audio_chunk": {
      const [, bytes] = message.data.byte_range;
      const [, ms] = message.data.time_range;
      return { ...next, acked: { ms, bytes, count: state.acked.count + 1 } };
    }
    case "stop_recording":
      return { ...next, stopAcknowledged: message.acknowledged };
    case "error":
      return { ...next, errors: [...state.errors, JSON.stringify((message as { error?: unknown }).error ?? message)] };
    default:
      return { ...next, lifecycle: [...state.lifecycle, message.type] };
  }
}
