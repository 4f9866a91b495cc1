/**
 * The enrichment stage between recognition and delivery. Built once per session from its options;
 * `process` takes a recognized utterance (partial or final) and returns it rewritten, with the add-on
 * messages a final produces, in this order:
 *   numerals → punctuation: false → custom_spelling → custom_vocabulary (text side) → pii → named
 *   entities → sentiment
 * (spellings come after the punctuation pass so that the casing they give is kept).
 * Text rewrites run on partials and finals alike (a partial must not show what its final will hide);
 * messages and entity numbers come from finals only. Everything downstream (transcripts, callbacks,
 * `post_final_transcript`, the stored result) receives the rewritten utterance.
 */
import type {
  EntityName,
  LiveSessionInit,
  NamedEntity,
  NamedEntityRecognitionMessage,
  PiiMessage,
  SentimentAnalysisMessage,
  SentimentResult,
  Utterance,
} from "../../generated/openapi/types.gen.ts";
import { nerSettings, tagEntities } from "./entities/ner.ts";
import { piiSettings, redact } from "./entities/pii.ts";
import { EntityRegistry } from "./entities/registry.ts";
import { toNumerals } from "./numerals.ts";
import { withoutPunctuation } from "./punctuation.ts";
import { sentimentOf } from "./sentiment.ts";
import { type Replacer, spellingReplacer, vocabularyReplacer } from "./spelling.ts";
import type { TextState } from "./text.ts";

export type EnrichOptions = Pick<LiveSessionInit, "numerals" | "punctuation" | "named_entity_recognition" | "pii" | "realtime_processing">;
export type EnrichmentMessage = PiiMessage | NamedEntityRecognitionMessage | SentimentAnalysisMessage;
type MessageOf<T extends EnrichmentMessage["type"]> = Extract<EnrichmentMessage, { type: T }>;
/** Builds a message: fills `session_id`, `created_at` and `type` (the session's message factory). */
export type BuildMessage = <T extends EnrichmentMessage["type"]>(type: T, body: Omit<MessageOf<T>, "session_id" | "created_at" | "type">) => MessageOf<T>;

/** A BuildMessage for one session id and clock. */
export function messageBuilder(sessionId: string, now: () => number = Date.now): BuildMessage {
  return (type, body) => ({ session_id: sessionId, created_at: new Date(now()).toISOString(), type, ...body }) as never;
}

/** One utterance going through the stage. */
export interface Work {
  id: string;
  final: boolean;
  utterance: Utterance;
  state: TextState;
  messages: EnrichmentMessage[];
}

/** One add-on of the stage. */
export interface Enricher {
  readonly name: string;
  apply(work: Work): void;
}

/** The text of an utterance whose redaction failed. */
export const REDACTION_FAILED = "[REDACTED]";

/** Default entity selection of `named_entity_recognition` when `entities` is omitted. */
export const NER_FALLBACK: EntityName = "ner";

const textEnricher = (name: string, rewrite: (s: TextState, language: string) => { state: TextState }): Enricher => ({
  name,
  apply(w) {
    w.state = rewrite(w.state, w.utterance.language).state;
  },
});

const replacerEnricher = (name: string, r: Replacer): Enricher => textEnricher(name, (s) => r.apply(s));

/** The enrichers an option set turns on, in stage order. */
export function buildEnrichers(options: EnrichOptions, build: BuildMessage, registry: EntityRegistry, record: SessionEnrichments): Enricher[] {
  const rp = options.realtime_processing;
  const out: Enricher[] = [];
  if (options.numerals) out.push(textEnricher("numerals", toNumerals));
  if (options.punctuation === false) out.push(textEnricher("punctuation", withoutPunctuation));
  if (rp?.custom_spelling && rp.custom_spelling_config) out.push(replacerEnricher("custom_spelling", spellingReplacer(rp.custom_spelling_config)));
  if (rp?.custom_vocabulary && rp.custom_vocabulary_config) out.push(replacerEnricher("custom_vocabulary", vocabularyReplacer(rp.custom_vocabulary_config)));
  if (options.pii) {
    const settings = piiSettings(options.pii);
    out.push({
      name: "pii",
      apply(w) {
        const r = redact(w.state, w.utterance.language, settings, registry, w.final);
        w.state = r.state;
        if (w.final && r.entities.length > 0) {
          w.messages.push(build("pii", { data: { utterance_id: w.id, utterance: current(w), entities: r.entities } }));
        }
      },
    });
  }
  if (options.named_entity_recognition || rp?.named_entity_recognition) {
    const settings = nerSettings(options.named_entity_recognition, NER_FALLBACK);
    out.push({
      name: "named_entity_recognition",
      apply(w) {
        if (!w.final) return;
        const results = tagEntities(w.state.text, w.utterance.language, settings, registry);
        record.entities.push(...results);
        w.messages.push(build("named_entity_recognition", { error: null, data: { utterance_id: w.id, utterance: current(w), results } }));
      },
    });
  }
  if (rp?.sentiment_analysis) {
    out.push({
      name: "sentiment_analysis",
      apply(w) {
        if (!w.final) return;
        const results = sentimentOf(current(w));
        record.sentiments.push(...results);
        w.messages.push(build("sentiment_analysis", { error: null, data: { utterance_id: w.id, utterance: current(w), results } }));
      },
    });
  }
  return out;
}

const current = (w: Work): Utterance => ({ ...w.utterance, text: w.state.text, words: w.state.words });

/** What a session's add-ons found, for the stored result and `post_final_transcript`. */
export interface SessionEnrichments {
  entities: NamedEntity[];
  sentiments: SentimentResult[];
}

/** The enrichment stage of one session. */
export class EnrichmentStage {
  readonly registry: EntityRegistry;
  readonly found: SessionEnrichments;
  readonly enrichers: Enricher[];
  /** Seconds spent per add-on since the session started. */
  readonly seconds: Record<string, number> = {};

  constructor(
    options: EnrichOptions,
    private readonly build: BuildMessage,
    registry = new EntityRegistry(),
    /** Told of an add-on that failed on an utterance (for the session's log). */
    private readonly onError?: (addOn: string, err: Error) => void,
    /** What the session's add-ons found before a restart. */
    found?: SessionEnrichments,
  ) {
    this.registry = registry;
    this.found = { entities: [...(found?.entities ?? [])], sentiments: [...(found?.sentiments ?? [])] };
    this.enrichers = buildEnrichers(options, build, registry, this.found);
  }

  get active(): boolean {
    return this.enrichers.length > 0;
  }

  /** Rewrites an utterance and returns it with the messages it produced (finals only). */
  process(id: string, utterance: Utterance, final: boolean): { utterance: Utterance; messages: EnrichmentMessage[] } {
    if (this.enrichers.length === 0) return { utterance, messages: [] };
    const work: Work = { id, final, utterance, state: { text: utterance.text, words: utterance.words }, messages: [] };
    for (const e of this.enrichers) {
      const t0 = performance.now();
      try {
        e.apply(work);
      } catch (err) {
        this.failed(e.name, work, err as Error);
      }
      this.seconds[e.name] = (this.seconds[e.name] ?? 0) + (performance.now() - t0) / 1000;
    }
    return { utterance: current(work), messages: work.messages };
  }

  /**
   * An add-on that throws: a text rewrite leaves the text as it was; redaction fails closed (the
   * whole utterance is masked); entities and sentiment send their message with `error` and no data.
   */
  private failed(name: string, w: Work, err: Error): void {
    this.onError?.(name, err);
    if (name === "pii") {
      const first = w.state.words[0];
      const last = w.state.words[w.state.words.length - 1];
      w.state = { text: REDACTION_FAILED, words: first && last ? [{ word: REDACTION_FAILED, start: first.start, end: last.end, confidence: Math.min(...w.state.words.map((x) => x.confidence)) }] : [] };
    } else if (w.final && (name === "named_entity_recognition" || name === "sentiment_analysis")) {
      w.messages.push(this.build(name, { error: { message: `${name} failed: ${err.message}` }, data: null }));
    }
  }

  /** The `named_entity_recognition` and `sentiment_analysis` members of the session's result, when on. */
  resultMembers(): { named_entity_recognition?: { success: true; is_empty: boolean; exec_time: number; error: null; entity: string; results: NamedEntity[] }; sentiment_analysis?: { success: true; is_empty: boolean; exec_time: number; error: null; results: string } } {
    const out: ReturnType<EnrichmentStage["resultMembers"]> = {};
    if (this.enrichers.some((e) => e.name === "named_entity_recognition")) out.named_entity_recognition = { success: true, is_empty: this.found.entities.length === 0, exec_time: this.seconds.named_entity_recognition ?? 0, error: null, entity: JSON.stringify(this.found.entities), results: this.found.entities };
    if (this.enrichers.some((e) => e.name === "sentiment_analysis")) out.sentiment_analysis = { success: true, is_empty: this.found.sentiments.length === 0, exec_time: this.seconds.sentiment_analysis ?? 0, error: null, results: JSON.stringify(this.found.sentiments) };
    return out;
  }
}
