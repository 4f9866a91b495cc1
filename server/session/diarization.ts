/**
 * The `diarization` add-on: each final utterance gets a voice print from the speaker encoder and the
 * zero-based `speaker` that the session's online clustering assigns it (speakers numbered in order
 * of appearance, shared by all channels of the session), honouring `diarization_config`
 * (`number_of_speakers` caps the speakers at that number, else `max_speakers`).
 */
import type { Utterance } from "../../generated/openapi/types.gen.ts";
import { DEFAULT_SPEAKER_THRESHOLD, OnlineSpeakerClustering, type SpeakerEncoder } from "../../workers/engines/speaker/index.ts";
import type { Enricher, Enrichment, UtteranceRef } from "./enrich.ts";

export interface DiarizationConfig {
  number_of_speakers?: number | null;
  max_speakers?: number | null;
}

export class DiarizationEnricher implements Enricher {
  readonly name = "diarization";
  private readonly clustering: OnlineSpeakerClustering;

  constructor(
    private readonly encoder: SpeakerEncoder,
    config: DiarizationConfig | null | undefined,
  ) {
    this.clustering = new OnlineSpeakerClustering({
      threshold: DEFAULT_SPEAKER_THRESHOLD,
      numberOfSpeakers: config?.number_of_speakers ?? null,
      maxSpeakers: config?.max_speakers ?? null,
    });
  }

  /** The utterance with its speaker (finals come in the order utterances end). */
  async onFinal(utterance: Utterance, ref: UtteranceRef): Promise<Enrichment | void> {
    if (!ref.audio || ref.audio.length === 0) return;
    const print = await this.encoder.embed(ref.audio);
    return { utterance: { ...utterance, speaker: this.clustering.assign(print, ref.audio.length / 16000) } };
  }
}
