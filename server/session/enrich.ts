/**
 * The enrichment stage: add-ons that run between recognition and delivery (entities, sentiment,
 * translation, end of turn…). Each enabled `Enricher` sees the session's recognized utterances (and,
 * if it asks, its audio) and may change a final utterance before it is delivered, add messages that
 * follow its transcript, or send messages of its own at any time. Enrichers run in the order given;
 * a session with none behaves exactly as without this stage.
 *
 * Adding an add-on: implement `Enricher` in its own module, and return it from `createEnrichers`
 * (`server/enrich/session.ts`) when the session's options turn it on (see ARCHITECTURE.md, "add an add-on").
 */
import type { LiveSessionInit, TranscriptionResult, Utterance } from "../../generated/openapi/types.gen.ts";
import type { InferenceCoordinator } from "../../workers/contract/types.ts";
import type { Logger } from "../log.ts";
import type { AppliedOptions } from "../options/defaults.ts";
import type { MessageFactory, SessionMessage } from "./messages.ts";

/** What an enricher can use: the session's options, its message builders and its outlet. */
export interface EnrichContext {
  sessionId: string;
  options: AppliedOptions;
  /** The init body as the client sent it (tells an option asked for from one filled in by default). */
  requested: LiveSessionInit;
  /** Inference, for add-ons that run the session's recognizer (translation). */
  coordinator: InferenceCoordinator;
  messages: MessageFactory;
  log: Logger;
  /** Delivers a message now (filtered by the session's flags like every other message). */
  emit(message: SessionMessage): void;
  /** After a restart (resume on another process): what each enricher's `persist` returned, by name. */
  restored?: Readonly<Record<string, unknown>>;
}

/** Which utterance a result belongs to: `id` is the transcript's `data.id` (`<channel>:<index>`). */
export interface UtteranceRef {
  id: string;
  channel: number;
  /** The utterance's mono 16 kHz audio (finals). */
  audio?: Float32Array;
}

/** What an enricher returns for an utterance: a replacement utterance and/or messages that follow its transcript. */
export interface Enrichment {
  utterance?: Utterance;
  messages?: SessionMessage[];
}

type MaybePromise<T> = T | Promise<T>;

export interface Enricher {
  /** For logs. */
  readonly name: string;
  /** A final utterance, before its `transcript` is delivered (finals of a channel come in order, one at a time). */
  onFinal?(utterance: Utterance, ref: UtteranceRef): MaybePromise<Enrichment | void>;
  /** A partial utterance, before its `transcript` is delivered (may be skipped under load). */
  onPartial?(utterance: Utterance, ref: UtteranceRef): MaybePromise<Enrichment | void>;
  /** Mono 16 kHz audio of one channel as the front end reads it; `time` is the session time of its first sample. */
  onAudio?(channel: number, samples: Float32Array, time: number): void;
  /** The recording ended: every final was delivered. Messages returned precede `end_recording`. */
  finish?(): MaybePromise<SessionMessage[] | void>;
  /** Members this add-on contributes to the session result (`post_final_transcript`, the stored result). */
  result?(): Partial<TranscriptionResult>;
  /** State a restarted process continues from (JSON), handed back as `ctx.restored[name]`. */
  persist?(): unknown;
  /** The session ended or was handed over: release resources. */
  close?(): void;
}

/**
 * Builds the enrichers a session's options turn on, in the order they run (asynchronously when an
 * add-on's code or model is loaded on first use).
 */
export type EnricherFactory = (options: AppliedOptions, ctx: EnrichContext) => MaybePromise<Enricher[]>;

/** Runs a session's enrichers in order. */
export class EnrichmentPipeline {
  constructor(
    private readonly enrichers: Enricher[],
    private readonly log: Logger,
  ) {}

  /** True when some enricher runs (the session awaits the stage only then). */
  get active(): boolean {
    return this.enrichers.length > 0;
  }

  /** True when some enricher reads the audio. */
  get wantsAudio(): boolean {
    return this.enrichers.some((e) => e.onAudio);
  }

  final(utterance: Utterance, ref: UtteranceRef): Promise<Required<Enrichment>> {
    return this.run("onFinal", utterance, ref);
  }

  partial(utterance: Utterance, ref: UtteranceRef): Promise<Required<Enrichment>> {
    return this.run("onPartial", utterance, ref);
  }

  audio(channel: number, samples: Float32Array, time: number): void {
    for (const e of this.enrichers) {
      try {
        e.onAudio?.(channel, samples, time);
      } catch (err) {
        this.log.error("enricher failed on audio", { enricher: e.name, err });
      }
    }
  }

  async finish(): Promise<SessionMessage[]> {
    const out: SessionMessage[] = [];
    for (const e of this.enrichers) {
      try {
        out.push(...((await e.finish?.()) ?? []));
      } catch (err) {
        this.log.error("enricher failed to finish", { enricher: e.name, err });
      }
    }
    return out;
  }

  /** What the enrichers add to the session result. */
  result(): Partial<TranscriptionResult> {
    const out: Partial<TranscriptionResult> = {};
    for (const e of this.enrichers) {
      try {
        Object.assign(out, e.result?.());
      } catch (err) {
        this.log.error("enricher failed to report its result", { enricher: e.name, err });
      }
    }
    return out;
  }

  /** What the enrichers keep across a restart, by name (see `Enricher.persist`). */
  persist(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const e of this.enrichers) {
      const state = e.persist?.();
      if (state !== undefined) out[e.name] = state;
    }
    return out;
  }

  close(): void {
    for (const e of this.enrichers) e.close?.();
  }

  /** An enricher that fails leaves the utterance as it was (the failure is logged). */
  private async run(hook: "onFinal" | "onPartial", utterance: Utterance, ref: UtteranceRef): Promise<Required<Enrichment>> {
    const messages: SessionMessage[] = [];
    for (const e of this.enrichers) {
      try {
        const r = await e[hook]?.(utterance, ref);
        if (r?.utterance) utterance = r.utterance;
        if (r?.messages) messages.push(...r.messages);
      } catch (err) {
        this.log.error("enricher failed", { enricher: e.name, hook, utterance: ref.id, err });
      }
    }
    return { utterance, messages };
  }
}
